"""Solve 6x6 Othello exactly: the score for the side to move, the principal variation, nodes and time.

From the 6x6 start by default (its known perfect-play result: white wins 20-16, so black to move
scores -4), or from the position after --moves. Prints one line per finished iteration (the
midgame iterations that prepare the solve, then the solve) and the result:

    python scripts/solve_6x6.py                           # the start, one thread
    python scripts/solve_6x6.py --threads 2 --hash 1024
    python scripts/solve_6x6.py --moves "d5 e3 d2 c5"     # a position of the opening (28 empties)

A solve from the start takes 4.1 G nodes, under 3 minutes on one core with a 1024 MiB table, its
moves ordered by the learned 6x6 evaluation (``--eval classic``: 29 G nodes, half an hour;
docs/benchmarks.md); ``--wld`` proves only win, draw or loss, which is faster.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time

from othello_engine import _core, weights
from othello_engine.board import PASS, Board, OthelloError, from_core, square_name
from othello_engine.notation import play_moves

SIZE = 6


def line_text(board: Board, pv: tuple[int, ...]) -> str:
    return " ".join("pass" if from_core(sq, SIZE) == PASS else square_name(sq, SIZE) for sq in pv)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", default="", help="moves from the 6x6 start to the position to solve")
    ap.add_argument("--threads", type=int, default=1, help="search threads (default 1)")
    ap.add_argument("--hash", type=int, default=256, help="transposition table MiB (default 256)")
    ap.add_argument("--wld", action="store_true", help="prove only win, draw or loss")
    ap.add_argument("--eval", choices=("pattern", "classic"), default="pattern",
                    help="the evaluation that orders the moves (default pattern: the learned "
                         "6x6 weights)")
    ap.add_argument("--progress", type=float, default=60.0, metavar="SECONDS",
                    help="print the nodes so far this often during a long iteration (default 60; "
                         "0: never)")
    args = ap.parse_args(argv)
    try:
        board = play_moves(Board(SIZE), args.moves)
    except OthelloError as exc:
        print(f"solve_6x6: {exc}", file=sys.stderr)
        return 2
    if board.is_game_over():
        print(f"the game is over: {board.disc_difference():+d} for the side to move")
        return 0
    try:
        search = _core.Search(args.hash, args.threads)
    except (ValueError, MemoryError) as exc:
        print(f"solve_6x6: {exc}", file=sys.stderr)
        return 2
    pattern = args.eval == "pattern" and weights.ensure_loaded_size(SIZE)
    side = "black" if board.turn == 0 else "white"
    print(f"6x6, {board.empties} empties, {side} to move; {args.threads} thread(s), "
          f"{args.hash} MiB table, {'pattern' if pattern else 'classic'} evaluation", flush=True)
    start = time.perf_counter()

    def report(depth: int, seldepth: int, exact: bool, nodes: int, seconds: float,
               lines: list) -> None:
        move, score, pv = lines[0]
        kind = "exact" if exact else "midgame"
        print(f"  {kind} depth {depth}: score {score / 100:+.2f} nodes {nodes} "
              f"time {time.perf_counter() - start:.1f} s pv {line_text(board, pv)}", flush=True)

    done = threading.Event()

    def progress() -> None:
        while not done.wait(args.progress):
            print(f"  ... iteration {search.depth_now}: nodes {search.nodes_now()} "
                  f"time {time.perf_counter() - start:.0f} s", flush=True)

    if args.progress > 0:
        threading.Thread(target=progress, daemon=True).start()
    lines, depth, nodes, exact = search.run(board.player, board.opponent, board.mask, 60,
                                            solve=2 if args.wld else 1, callback=report,
                                            pattern=pattern)
    done.set()
    seconds = time.perf_counter() - start
    move, score, pv = lines[0]
    if args.wld:
        result = "win" if score > 0 else ("loss" if score < 0 else "draw")
        print(f"result {result} for {side}")
    else:
        print(f"score {score // 100:+d} for {side}")
    print(f"pv {line_text(board, pv)}")
    print(f"nodes {nodes} time {seconds:.1f} s ({nodes / max(seconds, 1e-9) / 1e6:.2f} M nodes/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
