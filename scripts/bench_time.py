"""Time-management benchmark: engine-vs-engine games at fast clocks over pipes, refereed here.

Prints, per game, time losses, each side's clock left at the end, the lowest it fell to (when a
move's reply arrived, before its increment) and its clock use by ply 20; then totals per time
control (targets: no time loss, >= 10% of the clock used by ply 20, <= 10% left at the end on
average, and the lowest clock above the safety margin). ``--gtp`` plays the games in GTP on a
whole-second clock: ``time_settings BASE 0 0``, and before each ``genmove`` a ``time_left`` of the
referee's clock in whole seconds, rounded to nearest as Quarry does (``--rounding floor`` as
othello-match and gogui do). Also measures `go movetime` accuracy and the parse time of a 60-move
`position` (``--movetime``, ``--parse``), and the exact-solve times that calibrate
``_core.solve_seconds``, the solve-cost model shared by the search's hand-over gate and the
game-clock plan (``timeman.DEFAULT_SOLVE``) (``--calibrate``).

    python scripts/bench_time.py --games 100 --tc 10+0.1 --tc 2+0.05 --concurrency 2
    python scripts/bench_time.py --gtp --games 20 --tc 5 --concurrency 2
"""

from __future__ import annotations

import argparse
import math
import queue
import random
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Optional

from othello_engine.board import BLACK, PASS, Board, parse_square, square_name

ENGINE = [sys.executable, "-P", "-m", "othello_engine"]


class Player:
    """One engine process in the UCI-like protocol; a reader thread timestamps its lines."""

    def __init__(self, cmd: list[str], options: dict[str, str]) -> None:
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=0)
        self.lines: "queue.Queue[tuple[float, Optional[str]]]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send("uci")
        self.until("uciok", 10)
        for name, value in options.items():
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.until("readyok", 10)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put((time.monotonic(), raw.decode("utf-8", "replace").strip()))
        self.lines.put((time.monotonic(), None))

    def send(self, line: str) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
        return time.monotonic()

    def until(self, prefix: str, timeout: float, seen: Optional[list[str]] = None) -> tuple[float, str]:
        deadline = time.monotonic() + timeout
        while True:
            try:
                stamp, line = self.lines.get(timeout=max(0.001, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"no {prefix!r} within {timeout:.1f} s") from None
            if line is None:
                raise EOFError("the engine ended")
            if seen is not None:
                seen.append(line)
            if line.startswith(prefix):
                return stamp, line

    def close(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


class GtpPlayer(Player):
    """One engine process in GTP (``--gtp``); the same timestamped lines."""

    def __init__(self, cmd: list[str], options: dict[str, str]) -> None:
        self.proc = subprocess.Popen(cmd + ["--gtp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=0)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def ask(self, command: str, timeout: float) -> tuple[float, float, str]:
        """(when sent, when the answer arrived, its text) of a command that must succeed."""
        sent = self.send(command)
        stamp, line = self.until("=", timeout)
        self.until("", timeout)  # the empty line that ends a GTP response
        return sent, stamp, line[1:].strip()


@dataclass
class GameReport:
    tc: str
    number: int
    result: str = ""
    time_loss: Optional[str] = None
    initial: float = 0.0
    left: list[float] = field(default_factory=lambda: [0.0, 0.0])
    used_by_20: list[Optional[float]] = field(default_factory=lambda: [None, None])
    lowest: list[float] = field(default_factory=lambda: [math.inf, math.inf])
    """The lowest each side's clock fell to: when a move's reply arrived, before its increment."""
    spent: list[float] = field(default_factory=lambda: [0.0, 0.0])
    moves: list[int] = field(default_factory=lambda: [0, 0])
    solved: list[Optional[tuple[int, float]]] = field(default_factory=lambda: [None, None])
    """(empties, clock left after that move) when each side first reported a proven score."""
    moves_at_solve: list[Optional[int]] = field(default_factory=lambda: [None, None])
    """Each side's move count, that move included, when it first reported a proven score."""
    spent_after: list[float] = field(default_factory=lambda: [0.0, 0.0])
    """Clock each side spent on its moves after the one that first proved the result."""

    def after_proof(self, colour: int) -> Optional[int]:
        """Own moves played after the one that first proved the result (None: never proved)."""
        at = self.moves_at_solve[colour]
        return None if at is None else self.moves[colour] - at

    def line(self) -> str:
        names = ("black", "white")
        left = " ".join(f"{names[c]} {self.left[c]:.2f}s ({100 * self.left[c] / self.initial:.1f}%)"
                        for c in (0, 1))
        used = " ".join(f"{names[c]} {100 * u:.0f}%" if u is not None else f"{names[c]} -"
                        for c, u in enumerate(self.used_by_20))
        loss = self.time_loss or "none"
        solved = " ".join(f"{names[c]} {s[0]} empties {s[1]:.2f}s" if s else f"{names[c]} -"
                          for c, s in enumerate(self.solved))
        low = " ".join(f"{names[c]} {self.lowest[c]:.3f}s" for c in (0, 1))
        return (f"[{self.tc}] game {self.number:3d}: {self.result:8s} time loss: {loss:5s} left: {left}"
                f"  lowest: {low}  used by ply 20: {used}  solved at: {solved}")


def finish(report: "GameReport", board: Board, clocks: list[float]) -> None:
    """The end of a game: its result (or the time loss) and the clocks left."""
    d = board.disc_difference()
    report.result = ("lost on time" if report.time_loss
                     else f"B+{d}" if d > 0 else f"W+{-d}" if d < 0 else "draw")
    report.left = clocks


def play_game(tc: str, number: int, clock: float, inc: float, cmd: list[str], options: dict[str, str],
              opening_plies: int, seed: int) -> GameReport:
    rng = random.Random(seed)
    board = Board()
    for _ in range(opening_plies):
        board.push(rng.choice(board.legal_moves() or [PASS]))
    players = [Player(cmd, options), Player(cmd, options)]
    report = GameReport(tc, number, initial=clock)
    clocks = [clock, clock]
    try:
        for p in players:
            p.send("ucinewgame")
        while not board.is_game_over():
            side = board.turn
            p = players[side]
            moves = " ".join("pass" if m == PASS else square_name(m) for m in board.move_stack)
            p.send("position startpos" + (f" moves {moves}" if moves else ""))
            sent = p.send(f"go btime {int(clocks[BLACK] * 1000)} wtime {int(clocks[1 - BLACK] * 1000)} "
                          f"binc {int(inc * 1000)} winc {int(inc * 1000)}")
            seen: list[str] = []
            stamp, line = p.until("bestmove", clocks[side] + 5.0, seen)
            dt = stamp - sent
            clocks[side] -= dt
            report.lowest[side] = min(report.lowest[side], clocks[side])
            report.spent[side] += dt
            if report.solved[side] is not None:
                report.spent_after[side] += dt
            report.moves[side] += 1
            if clocks[side] <= 0:
                report.time_loss = "black" if side == BLACK else "white"
                break
            clocks[side] += inc
            if report.solved[side] is None and any(" score disc " in s for s in seen):
                report.solved[side] = (board.empties, clocks[side])
                report.moves_at_solve[side] = report.moves[side]
            board.push_str(line.split()[1])
            if len(board.move_stack) == 20:
                report.used_by_20 = [report.spent[c] / clock for c in (0, 1)]
        finish(report, board, clocks)
    finally:
        for p in players:
            p.close()
    return report


def whole_seconds(clock: float, rounding: str) -> int:
    """A clock as a whole-second GTP controller reports it: Quarry rounds to nearest (its
    ``floor(seconds_left + 0.5)``), othello-match and gogui drop the fraction."""
    return max(0, math.floor(clock + 0.5) if rounding == "nearest" else math.floor(clock))


def play_gtp_game(tc: str, number: int, clock: float, cmd: list[str], rounding: str,
                  opening_plies: int, seed: int) -> GameReport:
    """One game in GTP on a whole-second clock (no increment: GTP's absolute time)."""
    rng = random.Random(seed)
    board = Board()
    players = [GtpPlayer(cmd, {}), GtpPlayer(cmd, {})]
    names = ("b", "w")
    report = GameReport(tc, number, initial=clock)
    clocks = [clock, clock]
    try:
        for p in players:
            p.ask(f"time_settings {int(clock)} 0 0", 10)
        for _ in range(opening_plies):
            move = rng.choice(board.legal_moves() or [PASS])
            for p in players:
                p.ask(f"play {names[board.turn]} {'pass' if move == PASS else square_name(move)}", 10)
            board.push(move)
        while not board.is_game_over():
            side = board.turn
            p = players[side]
            p.ask(f"time_left {names[side]} {whole_seconds(clocks[side], rounding)} 0", 10)
            sent, stamp, answer = p.ask(f"genmove {names[side]}", clocks[side] + 5.0)
            dt = stamp - sent
            clocks[side] -= dt
            report.lowest[side] = min(report.lowest[side], clocks[side])
            report.spent[side] += dt
            report.moves[side] += 1
            if clocks[side] <= 0:
                report.time_loss = "black" if side == BLACK else "white"
                break
            board.push(PASS if answer.lower() == "pass" else parse_square(answer.lower()))
            players[1 - side].ask(f"play {names[side]} {answer}", 10)
            if len(board.move_stack) == 20:
                report.used_by_20 = [report.spent[c] / clock for c in (0, 1)]
        finish(report, board, clocks)
    finally:
        for p in players:
            p.close()
    return report


def run_games(args: argparse.Namespace, options: dict[str, str]) -> None:
    for tc in args.tc:
        base, _, inc = tc.partition("+")
        clock, increment = float(base), float(inc or 0)
        reports: list[GameReport] = []
        jobs: "queue.Queue[int]" = queue.Queue()
        for i in range(args.games):
            jobs.put(i + 1)
        lock = threading.Lock()

        def worker() -> None:
            while True:
                try:
                    n = jobs.get_nowait()
                except queue.Empty:
                    return
                try:
                    if args.gtp:
                        rep = play_gtp_game(tc, n, clock, args.engine, args.rounding, args.opening,
                                            args.seed + n)
                    else:
                        rep = play_game(tc, n, clock, increment, args.engine, options, args.opening,
                                        args.seed + n)
                except (TimeoutError, EOFError, ValueError) as exc:
                    rep = GameReport(tc, n, result=f"error: {exc}", initial=clock)
                with lock:
                    reports.append(rep)
                    print(rep.line(), flush=True)

        started = time.monotonic()
        threads = [threading.Thread(target=worker) for _ in range(args.concurrency)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        done = [r for r in reports if not r.result.startswith("error")]
        losses = sum(r.time_loss is not None for r in done)
        lefts = [r.left[c] / r.initial for r in done if not r.time_loss for c in (0, 1)]
        lefts_total = [r.left[c] / (r.initial + increment * r.moves[c]) for r in done
                       if not r.time_loss for c in (0, 1)]
        used = [u for r in done for u in r.used_by_20 if u is not None]
        solved = [s for r in done if not r.time_loss for s in r.solved if s is not None]
        print(f"== {tc}: {len(done)} games ({len(reports) - len(done)} errors) in "
              f"{time.monotonic() - started:.0f} s, {args.concurrency} at once")
        print(f"   time losses: {losses}")
        if lefts:
            print(f"   clock left at game end: mean {100 * statistics.mean(lefts):.1f}% of the base time "
                  f"(max {100 * max(lefts):.1f}%), mean {100 * statistics.mean(lefts_total):.1f}% of "
                  "base + increments")
        lows = [r.lowest[c] for r in done for c in (0, 1) if r.lowest[c] < math.inf]
        if lows:
            print(f"   lowest clock: min {min(lows):.3f} s, median {statistics.median(lows):.3f} s; "
                  f"sides below 50 ms: {sum(x < 0.05 for x in lows)} of {len(lows)}, below 100 ms: "
                  f"{sum(x < 0.1 for x in lows)}, below 500 ms: {sum(x < 0.5 for x in lows)}")
        if solved:
            after = [r.after_proof(c) for r in done if not r.time_loss for c in (0, 1)
                     if r.solved[c] is not None]
            # "left at the end" counts every increment, also those of the moves played after the
            # result was proven (answered at once): split off what the budget rules still decide
            planned = [(r.left[c] - increment * r.after_proof(c)) / r.initial for r in done
                       if not r.time_loss for c in (0, 1) if r.solved[c] is not None]
            print(f"   proven result first seen at {statistics.mean(s[0] for s in solved):.1f} empties on "
                  f"average, with {100 * statistics.mean(s[1] for s in solved) / clock:.1f}% of the base "
                  f"time left then; after it, {statistics.mean(after):.1f} more own moves each add the "
                  f"increment ({100 * increment * statistics.mean(after) / clock:.1f}% of the base); "
                  f"left at the end less those increments: {100 * statistics.mean(planned):.1f}%")
            # the end clock, split exactly: at the proof (its move's increment included) + the
            # increments received after it - the time those moves took
            proven = [(r, c) for r in done if not r.time_loss for c in (0, 1) if r.solved[c] is not None]
            at_proof = statistics.mean(r.solved[c][1] for r, c in proven)  # type: ignore[index]
            incs = statistics.mean(increment * (r.after_proof(c) or 0) for r, c in proven)
            spent = statistics.mean(r.spent_after[c] for r, c in proven)
            end = statistics.mean(r.left[c] for r, c in proven)
            print(f"   per side that proved the result ({len(proven)}): left at the end {end:.3f} s = left at "
                  f"the proof {at_proof:.3f} s + increments after it {incs:.3f} s - spent after it "
                  f"{spent:.3f} s")
        if used:
            print(f"   clock used by ply 20: mean {100 * statistics.mean(used):.1f}% "
                  f"(min {100 * min(used):.1f}%)", flush=True)


def measure_movetime(args: argparse.Namespace, options: dict[str, str]) -> None:
    p = Player(args.engine, options)
    try:
        p.send("position startpos moves f5 d6 c3 d3 c4 f4 f6 f3 e6 e7")
        for ms in (50, 100, 300, 1000):
            errors = []
            for _ in range(5):
                sent = p.send(f"go movetime {ms}")
                stamp, _ = p.until("bestmove", ms / 1000 + 5)
                errors.append((stamp - sent) * 1000 - ms)
            print(f"movetime {ms:5d} ms: reply at movetime {statistics.mean(errors):+.1f} ms on average "
                  f"(range {min(errors):+.1f} .. {max(errors):+.1f})", flush=True)
    finally:
        p.close()


def measure_parse() -> None:
    from othello_engine.protocol.uci import parse_position
    rng = random.Random(1)
    board = Board()
    while not board.is_game_over():
        board.push(rng.choice(board.legal_moves() or [PASS]))
    args = ["startpos", "moves"] + ["pass" if m == PASS else square_name(m) for m in board.move_stack]
    times = []
    for _ in range(2000):
        t = time.perf_counter()
        parse_position(args)
        times.append(time.perf_counter() - t)
    print(f"position startpos moves <{len(board.move_stack)} moves>: median "
          f"{1e6 * statistics.median(times):.0f} us, 99th percentile "
          f"{1e6 * sorted(times)[int(0.99 * len(times))]:.0f} us")


def calibrate(positions: int, max_empties: int, seed: int) -> None:
    """Exact-solve times of positions from games like the ones the engine plays: a few random
    opening plies, then its own depth-4 moves; the table of the engine's default size."""
    from othello_engine.engine import Engine, Limit
    from othello_engine.timeman import DEFAULT_SOLVE
    engine = Engine()
    player = Engine()
    rng = random.Random(seed)
    for empties in range(14, max_empties + 1):
        times = []
        for _ in range(positions):
            board = Board()
            for _ in range(6):
                board.push(rng.choice(board.legal_moves() or [PASS]))
            while board.empties > empties and not board.is_game_over():
                move = player.search(board, Limit(depth=4)).best_move
                board.push(PASS if move is None else move)
            if board.is_game_over() or board.empties != empties:
                continue
            engine.new_game()
            t = time.perf_counter()
            engine.search(board, Limit(exact=True))
            times.append(time.perf_counter() - t)
        if not times:
            continue
        times.sort()
        print(f"exact solve at {empties} empties ({len(times)} positions): median "
              f"{1000 * statistics.median(times):.1f} ms, 90th percentile "
              f"{1000 * times[int(0.9 * len(times))]:.1f} ms, max {1000 * times[-1]:.1f} ms; "
              f"model says {1000 * DEFAULT_SOLVE.seconds(empties):.1f} ms", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="games per time control")
    ap.add_argument("--tc", action="append", help="base+increment in seconds (repeatable)")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--opening", type=int, default=4, help="random plies before the clocks start")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--option", action="append", default=[], help="Name=Value for setoption")
    ap.add_argument("--engine", nargs="+", default=ENGINE, help="engine command")
    ap.add_argument("--gtp", action="store_true",
                    help="play in GTP on a whole-second clock (time_left before each genmove)")
    ap.add_argument("--rounding", choices=("nearest", "floor"), default="nearest",
                    help="how --gtp reports the clock in whole seconds (nearest: as Quarry)")
    ap.add_argument("--movetime", action="store_true", help="measure go movetime accuracy")
    ap.add_argument("--parse", action="store_true", help="measure parsing a 60-move position")
    ap.add_argument("--calibrate", type=int, metavar="MAX_EMPTIES",
                    help="time exact solves from 14 empties up to it")
    ap.add_argument("--calibrate-positions", type=int, default=20, metavar="N",
                    help="positions per number of empties for --calibrate (default 20)")
    args = ap.parse_args()
    options = dict(opt.split("=", 1) for opt in args.option)
    if args.parse:
        measure_parse()
    if args.movetime:
        measure_movetime(args, options)
    if args.calibrate:
        calibrate(args.calibrate_positions, args.calibrate, args.seed)
    if args.tc or not (args.parse or args.movetime or args.calibrate):
        args.tc = args.tc or ["10+0.1", "2+0.05"]
        run_games(args, options)


if __name__ == "__main__":
    main()
