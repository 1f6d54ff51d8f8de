"""Node counts of fixed searches (midgame depths and exact solves), to show a change keeps the trees.

Prints one line per search; diff the output of two builds: equal lines mean equal search trees.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from othello_engine import _core, weights
from othello_engine.notation import parse_obf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ffo import DEFAULT_DIR, load_suite  # noqa: E402
from bench_search import midgame_positions  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--positions", type=int, default=6, help="midgame positions (default 6)")
    ap.add_argument("--depth", type=int, default=12, help="midgame depth (default 12)")
    ap.add_argument("--ffo", default="1-19", help="FFO positions to solve (default 1-19)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--eval", dest="evaluation", choices=("pattern", "classic"), default="pattern")
    args = ap.parse_args(argv)
    pattern = args.evaluation == "pattern"
    if pattern and not weights.ensure_loaded():
        print(weights.load_error, file=sys.stderr)
        return 2
    search = _core.Search(16)
    if args.threads != 1:
        search.set_threads(args.threads)
    for i, b in enumerate(midgame_positions(args.positions, 1), 1):
        search.clear()
        lines, depth, nodes, _ = search.run(b.player, b.opponent, b.mask, args.depth, solve_lead=0,
                                            pattern=pattern)
        print(f"mid {i} depth {depth} move {lines[0][0]} score {lines[0][1]} nodes {nodes}")
        search.clear()
        lines, depth, nodes, _ = search.run(b.player, b.opponent, b.mask, args.depth, multipv=3,
                                            solve_lead=0, pattern=pattern)
        print(f"mid {i} multipv3 depth {depth} moves {[l[0] for l in lines]} nodes {nodes}")
    suite = load_suite(DEFAULT_DIR)
    lo, _, hi = args.ffo.partition("-")
    for n in range(int(lo), int(hi or lo) + 1):
        board, _ = parse_obf(suite[n])
        search.clear()
        lines, _, nodes, exact = search.run(board.player, board.opponent, board.mask, 60, solve=1,
                                            pattern=pattern)
        print(f"ffo {n} move {lines[0][0]} score {lines[0][1]} exact {exact} nodes {nodes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
