"""Strength benchmark: refereed matches of the engine at a fixed time per move against a weaker
setting of itself, rust-reversi, gtp-rhino and Zebra, from balanced openings; prints W-L-D, Elo and LOS.

Every game goes through othello_engine.match (the code behind ``othello-match``): each engine is
its own process, the referee owns the board, clocks, illegal moves, crashes and hangs, and every
opening is played twice with colours swapped. Opponents:

  self   othello_engine at a fixed depth (--weak-depth), the weaker setting
  rust   rust-reversi's alpha-beta with a square-table evaluation (pip install rust-reversi),
         through scripts/engines/rust_reversi_uci.py, at the same time per move;
         target: at least 90% of the points
  rhino  gtp-rhino, GRhino's GTP front end (Debian package grhino), at --rhino-level with its
         opening book off; it plays by its level's search depths (--rhino-time puts it on a
         movetime the referee enforces); target: more than 50% of the points
  zebra  Zebra (built by the user from GitHub lk16/zebra, see docs/development.md), through
         scripts/engines/zebra_ugi.py, at the same time per move (or --zebra-time seconds, or
         --zebra-depth plies);
         --zebra PATH or $ZEBRA_BIN; target: at least 50% of the points

An opponent that is not installed is skipped with a line saying so.

    python scripts/strength.py --time 0.1 --openings 10        # 20 games per opponent
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, TextIO

from othello_engine.board import BLACK
from othello_engine.ggf import parse_ggf
from othello_engine.client import DriverError, EngineSpec, TimeControl
from othello_engine.match import (GameResult, MatchConfig, MatchError, MatchResult, Opening, format_report,
                                  game_line, load_openings, parse_engine, run_match)

RUST_WRAPPER = Path(__file__).resolve().parent / "engines" / "rust_reversi_uci.py"
ZEBRA_WRAPPER = Path(__file__).resolve().parent / "engines" / "zebra_ugi.py"
OPPONENTS = ("self", "rust", "rhino", "zebra")
TARGETS = {"rust": (0.90, ">="), "rhino": (0.50, ">"), "zebra": (0.50, ">=")}
"""The points share our engine must reach against an opponent (issues 3 and 13)."""


@dataclass(frozen=True)
class Opponent:
    """One opponent of the benchmark: its key, its engine (None when it is not installed) and
    the line that says why it is skipped."""

    key: str
    spec: Optional[EngineSpec]
    skipped: str = ""


def rhino_program() -> Optional[str]:
    """gtp-rhino's path (Debian installs it in /usr/games, often not on PATH), or None."""
    return shutil.which("gtp-rhino") or shutil.which("/usr/games/gtp-rhino")


def zebra_program(path: Optional[str]) -> Optional[str]:
    """The Zebra binary (--zebra, else $ZEBRA_BIN) when it is an executable file, or None."""
    path = path or os.environ.get("ZEBRA_BIN")
    if not path:
        return None
    found = shutil.which(path)
    return found if found and Path(found).is_file() else None


def make_opponent(key: str, args: argparse.Namespace) -> Opponent:
    py = sys.executable
    if key == "zebra":
        program = zebra_program(args.zebra)
        if program is None:
            return Opponent(key, None, "Zebra is not available (build it from GitHub lk16/zebra, then give "
                                       "--zebra PATH or set ZEBRA_BIN): skipped")
        command = [py, str(ZEBRA_WRAPPER), "--zebra", program]
        if args.zebra_data:
            command += ["--data", args.zebra_data]
        if args.zebra_depth:
            return Opponent(key, parse_engine([f"cmd={shlex.join(command)}", f"name=zebra-d{args.zebra_depth}",
                                               f"depth={args.zebra_depth}"]))
        seconds = args.zebra_time if args.zebra_time is not None else args.time
        return Opponent(key, parse_engine([f"cmd={shlex.join(command)}", "name=zebra", f"movetime={seconds:g}"]))
    if key == "self":
        return Opponent(key, parse_engine([f"cmd={args.ours}", f"name=othello_engine-d{args.weak_depth}",
                                           f"depth={args.weak_depth}"]))
    if key == "rust":
        if importlib.util.find_spec("rust_reversi") is None:
            return Opponent(key, None, "rust-reversi is not installed (pip install rust-reversi): skipped")
        return Opponent(key, parse_engine([f"cmd={shlex.join([py, str(RUST_WRAPPER)])}", "name=rust-reversi",
                                           f"movetime={args.time:g}"]))
    program = rhino_program()
    if program is None:
        return Opponent(key, None, "gtp-rhino is not installed (Debian package grhino): skipped")
    tc = TimeControl(movetime=args.rhino_time) if args.rhino_time else TimeControl()
    return Opponent(key, EngineSpec(name=f"gtp-rhino-l{args.rhino_level}", protocol="gtp", tc=tc,
                                    command=(program, f"--level={args.rhino_level}", "--book=0")))


def pick_openings(count: int, path: Optional[str]) -> tuple[Opening, ...]:
    """``count`` openings spread evenly over the file (the shipped balanced set by default)."""
    openings, skipped = load_openings(path)
    for s in skipped:
        print(f"skipped opening {s.source} {s.text!r}: {s.reason}", file=sys.stderr)
    if not 1 <= count <= len(openings):
        raise MatchError(f"--openings {count}: the set has {len(openings)} openings (need 1..{len(openings)})")
    return tuple(openings[i * len(openings) // count] for i in range(count))


def think_times(result: MatchResult) -> str:
    """Each engine's mean and longest time per move (as the referee measured it), e.g.
    ``othello_engine 0.091 s (max 0.102)``."""
    spent: dict[str, list[float]] = {}
    for game in result.games:
        if not game.ggf:
            continue
        record = parse_ggf(game.ggf)
        board = record.board.replay()
        for move, seconds in zip(record.board.move_stack, record.times):
            name = game.black if board.turn == BLACK else game.white
            board.push(move)
            if seconds is not None:
                spent.setdefault(name, []).append(seconds)
    return ", ".join(f"{name} {sum(ts) / len(ts):.3f} s (max {max(ts):.3f})"
                     for name, ts in sorted(spent.items()) if ts)


def verdict(key: str, result: MatchResult) -> str:
    """Whether the pairing met its target, e.g. ``target >= 90%: met``; empty without one."""
    if key not in TARGETS or not result.games:
        return ""
    share, how = TARGETS[key]
    score = float(result.pairings[0].summary()["score"])
    met = score >= share if how == ">=" else score > share
    return f"target {how} {100 * share:.0f}%: {'met' if met else 'NOT met'}"


def play(ours: EngineSpec, opponent: Opponent, openings: tuple[Opening, ...], args: argparse.Namespace,
         ggf: Optional[TextIO]) -> tuple[MatchResult, bool]:
    """The refereed games against one opponent, and whether Ctrl-C / SIGTERM cut them short."""
    assert opponent.spec is not None
    config = MatchConfig(engines=(ours, opponent.spec), openings=openings, games=2 * len(openings),
                         concurrency=args.concurrency, gauntlet=True, margin=args.margin,
                         move_timeout=args.move_timeout)
    total = len(config.schedule())

    def on_game(game: GameResult, state: MatchResult) -> None:
        if ggf is not None and game.ggf:
            ggf.write(game.ggf + "\n")
            ggf.flush()
        if not args.quiet:
            print("  " + game_line(game, total, with_opening=True), flush=True)

    # The match runs in a thread and Ctrl-C / SIGTERM only sets its stop event: an interrupt
    # raised inside run_match's own Thread.join was seen to let it return while a game was
    # still on, whose engines were then killed at exit and the game scored as a crash.
    stop = threading.Event()
    outcome: list[MatchResult | BaseException] = []

    def runner() -> None:
        try:
            outcome.append(run_match(config, on_game=on_game, stop=stop))
        except BaseException as exc:  # handed to the main thread
            outcome.append(exc)

    thread = threading.Thread(target=runner, daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.2)
    except KeyboardInterrupt:
        stop.set()  # the games in progress end after their current move and are not counted
        deadline = time.monotonic() + args.move_timeout + 15.0
        while not outcome and time.monotonic() < deadline:
            time.sleep(0.05)
        if not outcome:
            raise
        interrupted = True
    else:
        interrupted = False
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0], interrupted


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time", type=float, default=0.1,
                    help="seconds per move for our engine, rust-reversi and Zebra (default 0.1)")
    ap.add_argument("--openings", type=int, default=10,
                    help="openings, each played twice with colours swapped (default 10: 20 games per opponent)")
    ap.add_argument("--openings-file", metavar="FILE",
                    help="openings file as othello-match reads it (default: the shipped balanced set)")
    ap.add_argument("--opponents", default=",".join(OPPONENTS),
                    help="comma-separated: self, rust, rhino, zebra (default all; missing ones are skipped)")
    ap.add_argument("--weak-depth", type=int, default=4, help="depth of the weaker self (default 4)")
    ap.add_argument("--rhino-level", type=int, default=3, choices=range(1, 6),
                    help="gtp-rhino level 1..5 (default 3)")
    ap.add_argument("--rhino-time", type=float, metavar="S",
                    help="also hold gtp-rhino to S seconds per move (default: its level decides)")
    ap.add_argument("--zebra", metavar="PATH", help="the Zebra binary (default: $ZEBRA_BIN)")
    ap.add_argument("--zebra-data", metavar="DIR",
                    help="the directory holding Zebra's coeffs2.bin (default: $ZEBRA_DATA, else the binary's)")
    ap.add_argument("--zebra-depth", type=int, metavar="N",
                    help="Zebra searches N plies a move instead of --time seconds")
    ap.add_argument("--zebra-time", type=float, metavar="S",
                    help="Zebra's seconds per move (default: --time). Zebra starts anew at every move "
                         "and spends about 30 ms of it unpacking its evaluation, so --time plus that "
                         "gives it the same time to search")
    ap.add_argument("--ours", default=shlex.join([sys.executable, "-P", "-m", "othello_engine"]), metavar="CMD",
                    help="our engine's command line (default: this Python's -m othello_engine)")
    ap.add_argument("--concurrency", type=int, default=1, help="games played at once (default 1)")
    ap.add_argument("--margin", type=float, default=0.5,
                    help="seconds a move may exceed its time before it loses (default 0.5)")
    ap.add_argument("--move-timeout", type=float, default=60.0,
                    help="seconds to wait for a move without a time limit (default 60)")
    ap.add_argument("--ggf", metavar="FILE", help="write every game here, one GGF line each")
    ap.add_argument("--quiet", action="store_true", help="no per-game lines")
    ap.add_argument("--check", action="store_true", help="exit with status 1 when a target is not met")
    return ap


def main(argv: Optional[list[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    wanted = [w.strip() for w in args.opponents.split(",") if w.strip()]
    unknown = [w for w in wanted if w not in OPPONENTS]
    if unknown or not wanted:
        print(f"strength.py: error: unknown opponent {unknown[0] if unknown else ''!r}; "
              f"expected some of {', '.join(OPPONENTS)}", file=sys.stderr)
        return 2
    if (not args.time > 0 or args.weak_depth < 1 or (args.rhino_time is not None and not args.rhino_time > 0)
            or (args.zebra_depth is not None and not 1 <= args.zebra_depth <= 60)
            or (args.zebra_time is not None and not args.zebra_time > 0)):
        print("strength.py: error: --time, --rhino-time and --zebra-time must be > 0, --weak-depth >= 1, "
              "--zebra-depth 1..60", file=sys.stderr)
        return 2
    try:
        ours = parse_engine([f"cmd={args.ours}", "name=othello_engine", f"movetime={args.time:g}"])
        openings = pick_openings(args.openings, args.openings_file)
        opponents = [make_opponent(key, args) for key in wanted]
    except (MatchError, DriverError) as exc:
        print(f"strength.py: error: {exc}", file=sys.stderr)
        return 2
    ggf = open(args.ggf, "w", encoding="utf-8") if args.ggf else None
    summary: list[tuple[str, str]] = []
    missed = interrupted = False
    try:
        for opponent in opponents:
            if opponent.spec is None:
                print(opponent.skipped, flush=True)
                summary.append((opponent.key, opponent.skipped))
                continue
            print(f"== {ours.name} ({ours.tc}) vs {opponent.spec.name} ({opponent.spec.tc}): "
                  f"{len(openings)} opening{'s' if len(openings) > 1 else ''} x 2 colours", flush=True)
            t0 = time.monotonic()
            try:
                result, interrupted = play(ours, opponent, openings, args, ggf)
            except MatchError as exc:
                print(f"{opponent.spec.name}: could not play: {exc}", flush=True)
                summary.append((opponent.key, f"could not play: {exc}"))
                continue
            print(format_report(result), flush=True)
            print(f"time per move: {think_times(result)}", flush=True)
            target = "" if interrupted else verdict(opponent.key, result)
            missed = missed or "NOT" in target
            p = result.pairings[0]
            sm = p.summary()
            summary.append((opponent.key, f"{p.first} vs {p.second}: W-L-D {p.wins}-{p.losses}-{p.draws}, "
                                          f"{100 * float(sm['score']):.1f}% of the points, Elo {p.elo()}, "
                                          f"LOS {100 * float(sm['los']):.1f}%"
                                          + (f"; {target}" if target else "")))
            print(f"({time.monotonic() - t0:.0f} s){'  ' + target if target else ''}\n", flush=True)
            if interrupted:
                break
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if ggf is not None:
            ggf.close()
    print("summary:" + (" (interrupted)" if interrupted else ""))
    for key, line in summary:
        print(f"  {key:5s} {line}")
    if interrupted:
        return 130
    return 1 if args.check and missed else 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    # a SIGTERM ends the games like Ctrl-C, so the engine processes are closed, not left running
    signal.signal(signal.SIGTERM, _interrupt)
    sys.exit(main())
