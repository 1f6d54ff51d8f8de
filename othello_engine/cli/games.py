"""``othello-games``: games files on the command line: convert, stats, filter, check (argument parsing and output only)."""

from __future__ import annotations

import argparse
import sys
from typing import Iterator, Optional, Sequence, TextIO

from othello_engine import atomicfile
from othello_engine.board import OthelloError
from othello_engine.cli.common import start_size_arg
from othello_engine.games import (FORMATS, BadGame, Entry, Game, GameFilter, check_games, format_for,
                                  game_stats, parse_years, read_games, write_text, write_wthor)
from othello_engine.textnum import int_arg

PROG = "othello-games"


def _positive(text: str) -> int:
    value = int_arg(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number >= 1")
    return value


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog=PROG, description="Games files: WTHOR (.wtb, with WTHOR.JOU/.TRN beside it), GGF and move "
                               "lists: convert them, count what they hold, filter and check them.",
        epilog="Exit status: 0 when every game was read, 1 when some games were bad (each is reported "
               "on stderr with its number; the others are processed), 2 for bad arguments or a file "
               "that cannot be read at all.")
    sub = ap.add_subparsers(dest="command", required=True)

    def inputs(p: argparse.ArgumentParser) -> None:
        p.add_argument("files", nargs="+", help="games files: .wtb (WTHOR), GGF or move lists")
        p.add_argument("--players", metavar="FILE.JOU", help="WTHOR player names (default: beside the file)")
        p.add_argument("--tournaments", metavar="FILE.TRN",
                       help="WTHOR tournament names (default: beside the file)")
        p.add_argument("--size", type=start_size_arg, default=8, metavar="N",
                       help="the board of move-list lines (default 8)")

    def output(p: argparse.ArgumentParser) -> None:
        p.add_argument("-o", "--output", metavar="FILE",
                       help="write the games here (default: standard output); .wtb writes WTHOR with "
                            "FILE's .JOU and .TRN beside it")
        p.add_argument("--to", choices=FORMATS,
                       help="output format (default: from the output's name: .wtb WTHOR, .ggf GGF, "
                            "else move lists; GGF on standard output)")

    c = sub.add_parser("convert", help="convert between WTHOR, GGF, move lists and training records")
    inputs(c)
    output(c)
    s = sub.add_parser("stats", help="games, players, tournaments, years, results, frequent openings")
    inputs(s)
    s.add_argument("--plies", type=_positive, default=6, help="length of the openings counted (default 6)")
    s.add_argument("--top", type=_positive, default=10, help="openings listed (default 10)")
    f = sub.add_parser("filter", help="the games of a player, tournament, years or opening")
    inputs(f)
    output(f)
    f.add_argument("--player", help="part of either player's name (case ignored)")
    f.add_argument("--black", help="part of Black's name")
    f.add_argument("--white", help="part of White's name")
    f.add_argument("--tournament", help="part of the tournament's name")
    f.add_argument("--year", help="a year or FIRST-LAST")
    f.add_argument("--opening", metavar="MOVES", help="games whose first moves reach this position "
                                                      "(up to symmetry), e.g. f5d6c3")
    k = sub.add_parser("check", help="replay every game; WTHOR theoretical scores against an exact solve")
    inputs(k)
    k.add_argument("--limit", type=_positive, metavar="N", help="check only the first N games (bad "
                                                                "records further on are still reported)")
    k.add_argument("--no-solve", action="store_true", help="replay only: no exact solves")
    k.add_argument("--hash", type=_positive, default=64, metavar="MB", help="the solver's table (default 64)")
    k.add_argument("--threads", type=_positive, metavar="N", help="the solver's threads (default: the cores)")
    return ap


class _Reader:
    """The games of the input files in order; bad ones are reported on stderr and counted."""

    def __init__(self, args: argparse.Namespace, err: TextIO, report: bool = True) -> None:
        self.args, self.err, self.report = args, err, report
        self.bad = 0

    def entries(self) -> Iterator[Entry]:
        for path in self.args.files:
            for entry in read_games(path, self.args.players, self.args.tournaments, self.args.size):
                if isinstance(entry, BadGame):
                    self.bad += 1
                    if self.report:
                        self.err.write(f"{PROG}: bad: {entry}\n")
                yield entry

    def games(self) -> Iterator[Game]:
        for entry in self.entries():
            if isinstance(entry, Game):
                yield entry


def _write(args: argparse.Namespace, games: Iterator[Game], out: TextIO, err: TextIO) -> int:
    """Write games as the output arguments say; the number written."""
    fmt = args.to or (format_for(args.output) if args.output and args.output != "-" else "ggf")
    if fmt == "wthor":
        if not args.output or args.output == "-":
            raise OthelloError("WTHOR output needs a file: -o FILE.wtb")
        kept = list(games)
        jou, trn = write_wthor(kept, args.output)
        err.write(f"{PROG}: wrote {len(kept)} games to {args.output} (names in {jou}, {trn})\n")
        return len(kept)
    written = 0

    def counted() -> Iterator[Game]:
        nonlocal written
        for game in games:
            written += 1
            yield game
    if args.output and args.output != "-":
        with atomicfile.replacing(args.output) as f:
            refused = write_text(counted(), f, fmt)
    else:
        refused = write_text(counted(), out, fmt)
    for bad in refused:
        err.write(f"{PROG}: not written: {bad}\n")
    if args.output and args.output != "-":
        err.write(f"{PROG}: wrote {written - len(refused)} games to {args.output}\n")
    return written - len(refused)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``othello-games``: see ``othello-games --help``."""
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    out, err = sys.stdout, sys.stderr
    reader = _Reader(args, err, report=args.command != "check")
    try:
        if args.command == "convert":
            _write(args, reader.games(), out, err)
        elif args.command == "filter":
            keep = GameFilter(player=args.player, black=args.black, white=args.white,
                              tournament=args.tournament,
                              years=parse_years(args.year) if args.year else None,
                              opening=args.opening).matcher()
            _write(args, (g for g in reader.games() if keep(g)), out, err)
        elif args.command == "stats":
            stats = game_stats(reader.games(), args.plies)
            stats.bad = reader.bad
            out.write("\n".join(stats.lines(args.top)) + "\n")
        elif args.command == "check":
            report = check_games(reader.entries(), solve=not args.no_solve, limit=args.limit,
                                 hash_mb=args.hash, threads=args.threads,
                                 on_line=lambda text: out.write(text + "\n") or out.flush())
            out.write("\n".join(report.lines()) + "\n")
    except KeyboardInterrupt:
        err.write(f"{PROG}: interrupted\n")
        return 130
    except BrokenPipeError:
        return 1 if reader.bad else 0
    except OSError as exc:
        name = getattr(exc, "filename", None)
        err.write(f"{PROG}: {name + ': ' if name else ''}{exc.strerror or exc}\n")
        return 2
    except (OthelloError, ValueError) as exc:
        err.write(f"{PROG}: {exc}\n")
        return 2
    return 1 if reader.bad else 0


if __name__ == "__main__":
    sys.exit(main())
