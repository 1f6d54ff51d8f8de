"""Regenerate othello_engine/data/openings.txt: balanced XOT-style 8-move opening lines.

How the lines are chosen: random legal 8-move lines from the standard start (seeded), one per
position up to the board's 8 symmetries, each searched by our Engine to a fixed depth; the lines
whose score (centi-discs, side to move) is closest to 0 are kept, ordered by line.

    python scripts/make_openings.py [--count 40] [--candidates 300] [--depth 10] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from othello_engine.board import Board, canonical, square_name
from othello_engine.engine import Engine, Limit


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--candidates", type=int, default=300)
    ap.add_argument("--plies", type=int, default=8)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent
                                         / "othello_engine" / "data" / "openings.txt"))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    engine = Engine(hash_mb=16)
    seen: set[tuple[int, int]] = set()
    scored: list[tuple[int, str]] = []
    tries = 0
    while len(scored) < args.candidates and tries < args.candidates * 20:
        tries += 1
        board = Board()
        for _ in range(args.plies):
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))
        if len(board.move_stack) < args.plies or not board.legal_moves():
            continue
        key = canonical(board.player, board.opponent)[:2]
        if key in seen:
            continue
        seen.add(key)
        engine.new_game()
        score = engine.search(board, Limit(depth=args.depth)).score
        scored.append((score, "".join(square_name(m) for m in board.move_stack)))
    scored.sort(key=lambda t: (abs(t[0]), t[1]))
    keep = sorted(scored[: args.count], key=lambda t: t[1])
    worst = max(abs(s) for s, _ in keep)
    with open(args.out, "w") as f:
        f.write(f"# {len(keep)} balanced XOT-style openings ({args.plies} moves from the standard start).\n")
        f.write(f"# Chosen by scripts/make_openings.py --seed {args.seed} --depth {args.depth}: of "
                f"{len(scored)} distinct random lines, those our engine scores closest to 0\n")
        f.write(f"# at depth {args.depth} (all within {worst} centi-discs for the side to move).\n")
        for score, line in keep:
            f.write(f"{line}\n")
    print(f"wrote {len(keep)} lines to {args.out}; |score| <= {worst} centi-discs at depth {args.depth}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
