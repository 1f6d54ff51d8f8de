"""``othello-match``: the command line of the match runner (argument parsing and output only)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from typing import Optional, Sequence, TextIO

from othello_engine import atomicfile, filelock
from othello_engine.cli.common import size_arg
from othello_engine.client import DriverError
from othello_engine.match.openings import DEFAULT_OPENING_PLIES
from othello_engine.match import (GameResult, MatchConfig, MatchError, MatchResult, SkippedLine,
                                  begins_record, config_from_settings, ends_record, format_report,
                                  game_line, read_finished_games, run_match)
from othello_engine.resumable import settle
from othello_engine.textnum import float_arg, int_arg


class _RaisingParser(argparse.ArgumentParser):
    """The parser of :func:`config_from_argv`: a bad argument is a MatchError, not an exit."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise MatchError(message)


def build_parser(parser: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The arguments of ``othello-match``, read by an instance of parser (the command line's
    own exits on a bad argument; :func:`config_from_argv` raises MatchError instead)."""
    ap = parser(
        prog="othello-match",
        description="Play refereed Othello matches between engines and report W-L-D, Elo, LOS and SPRT.",
        epilog="example: othello-match --engine cmd=othello-engine name=d4 depth=4 "
               "--engine cmd=othello-engine name=d2 depth=2 --games 20")
    ap.add_argument("--engine", nargs="+", action="append", metavar="KEY=VALUE", default=[],
                    help="an engine: cmd='COMMAND' [name=N] [proto=uci|ugi|gtp|nboard] [dir=D] "
                         "[tc=BASE+INC | movetime=S | depth=N | nodes=N] [option.NAME=VALUE]")
    ap.add_argument("--each", nargs="+", metavar="KEY=VALUE", default=[],
                    help="settings for every engine (an engine's own settings win)")
    ap.add_argument("--games", type=int_arg, default=2, help="games per pairing (default 2)")
    ap.add_argument("--size", type=size_arg, default=8, metavar="N",
                    help="board size of the match, 3..26 (default 8); without --openings an even size "
                         "plays the distinct positions 4 plies from its start")
    ap.add_argument("--openings", metavar="FILE",
                    help="openings: move lines (f5d6c4...), FEN or board lines, or a WTHOR database "
                         "(.wtb: the first --opening-plies moves of its games, each position once up "
                         "to symmetry); default: the shipped set")
    ap.add_argument("--opening-plies", type=int_arg, default=DEFAULT_OPENING_PLIES, metavar="N",
                    help=f"moves of each game taken from a WTHOR --openings file (default "
                         f"{DEFAULT_OPENING_PLIES})")
    ap.add_argument("--concurrency", type=int_arg, default=1, help="games played at once (default 1)")
    ap.add_argument("--gauntlet", action="store_true", help="the first engine against each other one "
                    "(default: round robin)")
    ap.add_argument("--sprt", nargs="+", metavar="KEY=VALUE",
                    help="stop early on a verdict: elo0=0 elo1=10 alpha=0.05 beta=0.05")
    ap.add_argument("--margin", type=float_arg, default=0.5,
                    help="seconds an engine may exceed its time before it loses (default 0.5)")
    ap.add_argument("--move-timeout", type=float_arg, default=60.0,
                    help="seconds to wait for a move without a clock or movetime (default 60)")
    ap.add_argument("--handshake-timeout", type=float_arg, default=10.0,
                    help="seconds an engine has to start and answer its handshake (default 10)")
    ap.add_argument("--allow-eval-fallback", action="store_true",
                    help="play on with an engine that says its evaluation is unavailable (it then "
                         "plays on a fallback; without this flag the match does not start)")
    ap.add_argument("--ggf", default="othello-match.ggf", metavar="FILE",
                    help="write every game here, one GGF line each (default othello-match.ggf; '' for none)")
    ap.add_argument("--json", metavar="FILE",
                    help="write a JSON summary here ('-' for stdout; the report then goes to stderr)")
    ap.add_argument("--resume", action="store_true",
                    help="keep the games already in the --ggf file (from an interrupted run of the same "
                         "match) and play only the missing ones")
    ap.add_argument("--cluster", metavar="ADDRESS",
                    help="play the games on Ray: 'local' (a Ray instance on this machine), 'auto' or "
                         "ray://HOST:PORT (an existing cluster); --concurrency then counts games at once "
                         "over the cluster (default: one per CPU). Needs 'othello_engine[cluster]'")
    ap.add_argument("--quiet", action="store_true", help="no progress or per-game lines on stderr")
    return ap


def config_from_argv(argv: Sequence[str]) -> tuple[MatchConfig, list[SkippedLine]]:
    """The match configuration of ``othello-match`` arguments, and the opening lines it skipped;
    MatchError (DriverError for an engine that cannot be driven) on bad input, arguments that
    do not parse included. The arguments about output and running (``--ggf``, ``--json``,
    ``--resume``, ``--cluster``, ``--quiet``) are accepted and play no part.

    >>> config, skipped = config_from_argv(['--engine', 'cmd=othello-engine', 'name=a', 'depth=1',
    ...                                     '--engine', 'cmd=othello-engine', 'name=b', '--games', '4'])
    >>> [e.name for e in config.engines], config.games, len(config.schedule()), skipped
    (['a', 'b'], 4, 4, [])
    """
    return config_from_args(build_parser(_RaisingParser).parse_args(list(argv)))


def config_from_args(args: argparse.Namespace) -> tuple[MatchConfig, list[SkippedLine]]:
    """The match configuration of parsed command-line arguments (MatchError on bad input)."""
    return config_from_settings(args.engine, each=args.each, games=args.games, size=args.size,
                                openings=args.openings, concurrency=args.concurrency,
                                gauntlet=args.gauntlet, sprt=" ".join(args.sprt) if args.sprt else None,
                                margin=args.margin, move_timeout=args.move_timeout,
                                handshake_timeout=args.handshake_timeout,
                                allow_eval_fallback=args.allow_eval_fallback,
                                opening_plies=args.opening_plies)


def main(argv: Optional[list[str]] = None) -> int:
    """``othello-match``: run a match from the command line; 0 when it ran, 2 on bad input,
    130 when interrupted (the games so far are reported)."""
    args = build_parser().parse_args(argv)
    err: TextIO = sys.stderr
    try:
        config, skipped = config_from_args(args)
    except (MatchError, DriverError) as exc:
        print(f"othello-match: error: {exc}", file=err)
        return 2
    for s in skipped:
        print(f"othello-match: skipped opening {s.source} {s.text!r}: {s.reason}", file=err)
    total = len(config.schedule())
    live = err.isatty() and not args.quiet
    if args.ggf:
        folder = os.path.dirname(os.path.abspath(args.ggf))
        if not os.access(folder, os.W_OK) or os.path.isdir(args.ggf):
            print(f"othello-match: error: cannot write the GGF file {args.ggf!r}", file=err)
            return 2
    for what, path in (("GGF file", args.ggf), ("JSON summary", args.json)):
        clash = filelock.input_clash(path, [args.openings]) if path else None
        if clash is not None:
            print(f"othello-match: error: will not write the {what} {path!r}: it is the openings "
                  f"file {clash!r}; give another file", file=err)
            return 2
    refused: tuple[type[Exception], ...] = (MatchError,)
    if args.cluster is not None:
        from othello_engine.cluster import ClusterError, check_available
        try:
            check_available()
        except ClusterError as exc:
            print(f"othello-match: error: {exc}", file=err)
            return 2
        refused += (ClusterError,)
    lock: Optional[int] = None   # the GGF file's lock (filelock): one run at a time writes it
    if args.ggf:
        try:
            lock = filelock.hold(args.ggf, create=False)  # a file already there, before it is read or cut
        except filelock.FileInUse as exc:
            print(f"othello-match: error: {exc}", file=err)
            return 2
    done: list[GameResult] = []
    if args.resume:
        if not args.ggf:
            print("othello-match: error: --resume needs the --ggf file of the earlier run", file=err)
            return 2
        if os.path.exists(args.ggf):
            try:
                done = read_finished_games(config, args.ggf)
                # a record cut short by a kill is played again
                settle(args.ggf, whole_last=ends_record, line_start=begins_record)
            except (MatchError, ValueError) as exc:   # ValueError: NotResumable
                print(f"othello-match: error: {exc}", file=err)
                filelock.release(lock)
                return 2
            except OSError as exc:
                print(f"othello-match: error: cannot resume from {args.ggf!r}: {exc.strerror or exc}",
                      file=err)
                filelock.release(lock)
                return 2
            if not args.quiet:
                print(f"othello-match: resuming: {len(done)} of {total} games already in {args.ggf}",
                      file=err)
    ggf_file: Optional[TextIO] = None
    write_failed: list[str] = []  # what could not be written; the match goes on without it

    def on_game(game: GameResult, state: MatchResult) -> None:
        nonlocal ggf_file, lock
        if args.ggf and game.ggf and not write_failed:
            try:
                if ggf_file is None:  # created with the first game, so a match that never starts leaves none
                    if lock is None:  # (FileInUse if another run created it since this one started)
                        lock = filelock.hold(args.ggf)
                    ggf_file = open(args.ggf, "a" if args.resume else "w", encoding="utf-8")
                ggf_file.write(game.ggf + "\n")
                ggf_file.flush()
            except OSError as exc:
                write_failed.append(f"the GGF file {args.ggf!r}")
                print(f"othello-match: error: cannot write the GGF file {args.ggf!r}: "
                      f"{exc.strerror or exc}; the match goes on without it", file=err, flush=True)
        if args.quiet:
            return
        if live:
            p = state.pairings[0]
            extra = f"  {p.first} vs {p.second} {p.wins}-{p.losses}-{p.draws}  Elo {p.elo()}"
            if state.sprt is not None:
                extra += f"  LLR {state.sprt.llr:.2f}"
            err.write(f"\rgames {len(state.games)}/{total}{extra}\x1b[K")
            if game.culprit:
                err.write("\n" + game_line(game, total) + "\n")
            err.flush()
        else:
            print(game_line(game, total), file=err, flush=True)

    try:
        result = run_match(config, on_game=on_game, done=done, cluster=args.cluster)
    except refused as exc:
        print(f"othello-match: error: {exc}", file=err)
        return 2
    finally:
        if ggf_file is not None:
            try:
                ggf_file.close()
            except OSError:  # the last flush failed: already reported, or reported now
                if not write_failed:
                    write_failed.append(f"the GGF file {args.ggf!r}")
                    print(f"othello-match: error: cannot write the GGF file {args.ggf!r}", file=err)
        filelock.release(lock)
    if live:
        err.write("\n")
    # with --json - stdout carries the JSON alone (for pipes), so the report goes to stderr
    report = format_report(result)
    try:
        print(report, file=err if args.json == "-" else sys.stdout, flush=True)
    except OSError as exc:  # stdout is full or gone: the results still reach the user
        write_failed.append("the report on standard output")
        print(f"othello-match: error: cannot write the report: {exc.strerror or exc}\n{report}", file=err)
    if args.json:
        data = result.to_json()
        data["skipped_openings"] = [asdict(s) for s in skipped]
        text = json.dumps(data, indent=2)
        try:
            if args.json == "-":
                print(text, flush=True)
            else:
                atomicfile.write_text(args.json, text + "\n")
        except OSError as exc:
            write_failed.append(f"the JSON summary {args.json!r}")
            print(f"othello-match: error: cannot write the JSON summary {args.json!r}: "
                  f"{exc.strerror or exc}", file=err)
    if result.stopped_early == "interrupted":
        return 130
    if write_failed:
        print(f"othello-match: {' and '.join(write_failed)} could not be written (the report above "
              "has every game)", file=err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
