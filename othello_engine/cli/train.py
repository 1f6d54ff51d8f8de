"""The ``othello-train`` command line: one subcommand a step of :mod:`othello_engine.train`."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Optional

from othello_engine import train
from othello_engine.cli.common import start_size_arg
from othello_engine.filelock import FileInUse, input_clash
from othello_engine.textnum import ascii_float, ascii_int, int_arg

CLUSTER_HELP = ("run the work items on Ray: 'local', 'auto' or ray://HOST:PORT, on every CPU of the "
                "cluster (--jobs is for local runs); the same file as a local run. Needs "
                "'othello_engine[cluster]'")

SIZE_HELP = "board size (default 8; every step of one training run takes the same size)"


def _count(low: int, high: Optional[int] = None):
    """An argparse type: a whole number in low..high."""
    def parse(text: str) -> int:
        value = int_arg(text)
        if value < low or (high is not None and value > high):
            bound = f"{low}..{high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number {bound}")
        return value
    return parse


def _knee(text: str) -> float:
    """``--huber DISCS``: a finite number of discs, 0 or more."""
    value = ascii_float(text)
    if value is None or not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number of discs, 0 or more")
    return value


def _chance(text: str) -> float:
    """``--siblings CHANCE``: a number from 0 to 1."""
    value = ascii_float(text)
    if value is None or not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a chance from 0 to 1")
    return value


def _plies(text: str) -> tuple[int, int]:
    """``--random MIN-MAX`` (or one number): random opening plies, 0 <= MIN <= MAX <= 60."""
    lo, _, hi = text.partition("-")
    a, b = ascii_int(lo), ascii_int(hi or lo)
    if a is None or b is None or not 0 <= a <= b <= 60:
        raise argparse.ArgumentTypeError(f"{text!r}: expected MIN-MAX plies with 0 <= MIN <= MAX <= 60")
    return a, b


INTERRUPTED = {
    "fit": "interrupted: fit wrote nothing (the weights file is written at the end); run it again",
    "evaluate": "interrupted",
}
"""What an interrupted step leaves (the others append whole lines and resume)."""


def main(argv: Optional[list[str]] = None) -> int:
    """Run one step of the training pipeline; 0 on success, 1 when bad games of a WTHOR database were
    left out (each is reported), 2 on bad input, 130 when interrupted."""
    ap = argparse.ArgumentParser(prog="othello-train", description=(train.__doc__ or "").split("\n\n")[0])
    sub = ap.add_subparsers(dest="step", required=True)
    g = sub.add_parser("generate", help="self-play games, one record a line")
    g.add_argument("out", help="game file to append to (.gz for gzip)")
    g.add_argument("--games", type=_count(1), required=True, help="total number of games in the file")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--depth", type=_count(1, 60), default=6, help="search depth of the engine's moves")
    g.add_argument("--random", type=_plies, default=(4, 16), help="random opening plies, MIN-MAX (default 4-16)")
    g.add_argument("--epsilon", type=float, default=0.03, help="chance of a random move after the opening")
    g.add_argument("--solve", type=_count(0, 60), default=18, help="perfect play from this many empties")
    g.add_argument("--eval", dest="evaluation", choices=("pattern", "classic"), default="pattern")
    g.add_argument("--weights", help="pattern weights file (default: the shipped one)")
    g.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    g.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    g.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    g.add_argument("--size", type=start_size_arg, default=8, help=SIZE_HELP)
    lb = sub.add_parser("label", help="a target for every position of the games")
    lb.add_argument("games", help="game file (one record a line), or a WTHOR database (.wtb)")
    lb.add_argument("out", help="position file to append to (.gz for gzip)")
    lb.add_argument("--weights", help="pattern weights for the search scores (none: results only)")
    lb.add_argument("--depth", default="6",
                    help="search depth of the scores, or a schedule by empties: 26:12,4 searches "
                         "12 plies up to 26 empties and 4 beyond (0: no score there)")
    lb.add_argument("--limit", type=int, help="label only the first LIMIT games")
    lb.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    lb.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    lb.add_argument("--eval", dest="evaluation", choices=("pattern", "classic"), default="pattern",
                    help="classic: search scores of the classic evaluation when no --weights are given")
    lb.add_argument("--exact", type=_count(0, 60), default=0,
                    help="score positions up to this many empties by an exact solve (default 0: none)")
    lb.add_argument("--siblings", type=_chance, default=0.0, metavar="CHANCE",
                    help="label positions one move off the games' lines instead of their own: at "
                         "each position, with this chance, another legal move at random (where "
                         "--depth is more than 0 at its empties); their result is their score")
    lb.add_argument("--seed", type=int, default=1, help="seed of --siblings' choices (default 1)")
    lb.add_argument("--result", choices=("game", "exact", "score"), default="game",
                    help="a position's result column: the game's result (default); exact: its "
                         "exact score where --exact solved it; score: its score wherever it has "
                         "one (for games whose results say little of their positions)")
    lb.add_argument("--size", type=start_size_arg, default=8, help=SIZE_HELP)
    lb.add_argument("-q", "--quiet", action="store_true")
    ft = sub.add_parser("fit", help="fit the weights to position files and export them")
    ft.add_argument("positions", nargs="+", help="position files")
    ft.add_argument("--out", required=True, help="weights file to write")
    ft.add_argument("--ridge", type=float, default=train.FitSettings.ridge)
    ft.add_argument("--iterations", type=int, default=train.FitSettings.iterations)
    ft.add_argument("--blend", default=str(train.FitSettings.blend),
                    help="weight of the search score against the result where both exist, or a "
                         "schedule by empties (26:1,0.5: the score alone up to 26 empties)")
    ft.add_argument("--holdout", type=int, default=train.FitSettings.holdout,
                    help="hold out one game in N for the error report (0: none)")
    ft.add_argument("--phases", help="fit only phases FIRST-LAST (the others get zero weights)")
    ft.add_argument("--huber", type=_knee, default=train.FitSettings.huber, metavar="DISCS",
                    help="Huber's loss with this knee instead of the squared error: a label "
                         "further off than DISCS pulls no harder than one that far (default 0: "
                         "least squares)")
    ft.add_argument("--size", type=start_size_arg, default=8, help=SIZE_HELP)
    ft.add_argument("-q", "--quiet", action="store_true")
    av = sub.add_parser("average", help="the entry-by-entry mean of weights files of one layout")
    av.add_argument("weights", nargs="+", help="weights files (at least two)")
    av.add_argument("--out", required=True, help="weights file to write")
    av.add_argument("--size", type=start_size_arg, default=8, help=SIZE_HELP)
    ts = sub.add_parser("testset", help="solve positions of the games exactly (a test set)")
    ts.add_argument("games", help="game file, or a WTHOR database (.wtb)")
    ts.add_argument("out")
    ts.add_argument("--empties", type=_count(1, 59), default=20,
                    help="empty squares of the positions to solve (default 20)")
    ts.add_argument("--count", type=_count(1), default=500)
    ts.add_argument("--depth", type=_count(1, 60), default=0,
                    help="label by a search to this depth with the shipped pattern evaluation "
                         "instead of an exact solve (a midgame test set; default: exact)")
    ts.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ts.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    ts.add_argument("--size", type=start_size_arg, default=8, help=SIZE_HELP)
    ts.add_argument("-q", "--quiet", action="store_true")
    ev = sub.add_parser("evaluate", help="error of the static evaluations on an exact test set")
    ev.add_argument("testset")
    ev.add_argument("--weights", help="weights file (default: the shipped one)")
    ev.add_argument("--size", type=start_size_arg, default=8, help=SIZE_HELP)
    args = ap.parse_args(argv)
    address = getattr(args, "cluster", None)
    refused: tuple[type[Exception], ...] = (OSError, ValueError)
    if address is not None:
        from othello_engine.cluster import ClusterError, check_available
        try:
            check_available()
        except ClusterError as exc:
            print(f"othello-train {args.step}: {exc}", file=sys.stderr)
            return 2
        refused += (ClusterError,)
    out: Optional[str] = getattr(args, "out", None)  # the file this step writes (evaluate: none)
    existed = out is not None and os.path.exists(out)
    # the files the step reads: the one it writes must not be one of them (average reads every
    # file before it writes its own in one step, so its output may replace one of its inputs)
    reads = {"label": ("games", "weights"), "testset": ("games",), "generate": ("weights",),
             "fit": ("positions",)}.get(args.step, ())
    read_paths: list[Optional[str]] = []
    for name in reads:
        value = getattr(args, name)
        read_paths += value if isinstance(value, list) else [value]
    clash = None if out is None else input_clash(out, read_paths)
    if clash is not None:
        print(f"othello-train {args.step}: will not write {out!r}: it is the input {clash!r}; give "
              f"another output file", file=sys.stderr)
        return 2
    bad_games: list[str] = []

    def bad_game(text: str) -> None:    # a bad game of a WTHOR database: reported, left out
        bad_games.append(text)
        print(f"othello-train {args.step}: bad game left out: {text}", file=sys.stderr)
    try:
        if args.step == "generate" and args.weights:
            from othello_engine import weights
            weights.read(args.weights, args.size)  # a weights file that cannot be used stops before any output
        if args.step == "label":
            t = time.monotonic()
            depth = train.parse_schedule(args.depth, "--depth", whole=True)
            if args.weights:
                from othello_engine import weights
                weights.read(args.weights, args.size)
            settings = train.LabelSettings(depth=depth, weights=args.weights, exact=args.exact,
                                           size=args.size, evaluation=args.evaluation,
                                           siblings=args.siblings, seed=args.seed,
                                           result=args.result)
            n = train.label(args.games, args.out, settings, args.jobs, args.quiet, args.limit,
                            cluster=address, errors=bad_game)
            print(f"label: {n} games labelled into {args.out} in {time.monotonic() - t:.1f} s",
                  file=sys.stderr)
        elif args.step == "fit":
            phases = None
            if args.phases:
                first, _, last = args.phases.partition("-")
                phases = (int(first), int(last or first))
            blend = train.parse_schedule(args.blend, "--blend")
            fit_settings = train.FitSettings(ridge=args.ridge, iterations=args.iterations, blend=blend,
                                             holdout=args.holdout, phases=phases, size=args.size,
                                             huber=args.huber)
            train.fit(args.positions, args.out, fit_settings, args.quiet)
        elif args.step == "average":
            train.average(args.weights, args.out, args.size)
        elif args.step == "testset":
            n = train.testset(args.games, args.out, args.empties, args.count, args.jobs, args.quiet,
                              cluster=address, errors=bad_game, size=args.size, depth=args.depth)
            how = f"searched to depth {args.depth}" if args.depth else "solved"
            print(f"testset: {n} positions {how} into {args.out}", file=sys.stderr)
            if n == 0:
                print(f"othello-train testset: no position with {args.empties} empties and a move to "
                      f"play in {args.games}", file=sys.stderr)
                _drop_if_new(out, existed)
                return 1
        elif args.step == "evaluate":
            train.evaluate(args.testset, args.weights, size=args.size)
        elif args.step == "generate":
            lo, hi = args.random
            s = train.GenerateSettings(seed=args.seed, depth=args.depth, random_min=lo,
                                       random_max=hi, epsilon=args.epsilon, solve=args.solve,
                                       evaluation=args.evaluation, weights=args.weights,
                                       size=args.size)
            t = time.monotonic()
            n = train.generate(args.out, args.games, s, args.jobs, args.quiet, cluster=address)
            print(f"generate: {n} games written to {args.out} in {time.monotonic() - t:.1f} s",
                  file=sys.stderr)
    except KeyboardInterrupt:
        print(INTERRUPTED.get(args.step, "interrupted: the file keeps every whole line; rerun to resume"),
              file=sys.stderr)
        _drop_if_new(out, existed)
        return 130
    except FileInUse as exc:   # another run's file: left as it is, even if it is still empty
        print(f"othello-train {args.step}: {exc}", file=sys.stderr)
        return 2
    except refused as exc:
        print(f"othello-train {args.step}: {exc}", file=sys.stderr)
        _drop_if_new(out, existed)
        return 2
    if bad_games:
        print(f"othello-train {args.step}: {len(bad_games)} bad games left out (see above)", file=sys.stderr)
        return 1
    return 0


def _drop_if_new(path: Optional[str], existed: bool) -> None:
    """Remove an output file this run created and left empty (a step that failed before its first
    line): no half-made file stays behind."""
    if path is None or existed:
        return
    try:
        if os.path.getsize(path) == 0 or (path.endswith(".gz") and _gzip_empty(path)):
            os.remove(path)
    except OSError:
        pass


def _gzip_empty(path: str) -> bool:
    import gzip
    try:
        with gzip.open(path, "rb") as f:
            return f.read(1) == b""
    except (OSError, EOFError):
        return False


if __name__ == "__main__":
    sys.exit(main())
