"""A match from ``othello-match`` arguments: the argument parser and :func:`config_from_argv`.

The public way for tests and scripts to build a :class:`~othello_engine.match.config.MatchConfig`
the way the command line does (``--each`` settings merged into every engine, openings loaded,
SPRT read); :mod:`othello_engine.cli.match` uses the same parser and adds the output.
"""

from __future__ import annotations

import argparse
from typing import Sequence

from othello_engine.cli.common import size_arg
from othello_engine.match.config import MatchConfig, MatchError, parse_engine
from othello_engine.match.openings import SkippedLine, load_openings
from othello_engine.match.stats import SprtParams, StatsError
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
                    help="openings: move lines (f5d6c4...), FEN or board lines; default: the shipped set")
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
    if len(args.engine) < 2:
        raise MatchError(f"a match needs at least two --engine, got {len(args.engine)}")
    engines = []
    for k, settings in enumerate(args.engine, 1):
        own_keys = {s.partition("=")[0] for s in settings}
        own_tc = own_keys & {"tc", "movetime", "depth", "nodes"}
        each = [s for s in args.each if s.partition("=")[0] not in own_keys
                and not (own_tc and s.partition("=")[0] in ("tc", "movetime", "depth", "nodes"))]
        engines.append(parse_engine(each + list(settings), k))
    openings, skipped = load_openings(args.openings, args.size)
    sprt = None
    if args.sprt:
        try:
            sprt = SprtParams.parse(" ".join(args.sprt))
        except StatsError as exc:
            raise MatchError(str(exc)) from None
    for flag, value in (("--margin", args.margin), ("--move-timeout", args.move_timeout),
                        ("--handshake-timeout", args.handshake_timeout)):
        if not value >= 0:
            raise MatchError(f"{flag} = {value}: must be >= 0")
    config = MatchConfig(engines=tuple(engines), openings=tuple(openings), games=args.games,
                         concurrency=args.concurrency, gauntlet=args.gauntlet, margin=args.margin,
                         move_timeout=args.move_timeout, handshake_timeout=args.handshake_timeout,
                         sprt=sprt)
    return config, skipped
