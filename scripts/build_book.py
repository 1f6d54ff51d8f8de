"""Build the small opening book that ships with the package (othello_engine/data/book.txt).

The engine builds it itself: from the start position, every move of a book position is searched to
--depth; the moves within --margin of the best lead to new book positions (breadth first, at most
--positions per board size, at most --plies deep); finally the values are negamaxed back up and the
book is written in its text form. Prints progress and the figures at the end.

    python scripts/build_book.py                      # the shipped book
    python scripts/build_book.py --positions 50 --depth 4 --output /tmp/book.txt
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from othello_engine.board import Board, square_name
from othello_engine.book import Book
from othello_engine.engine import Engine

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = ROOT / "othello_engine" / "data" / "book.txt"
EXACT_6X6 = ROOT / "training" / "book6.txt"
"""The 6x6 perfect-play part (scripts/build_book6.py), folded in last: its exact scores win."""


def expand(book: Book, engine: Engine, size: int, depth: int, margin: int, max_positions: int,
           max_plies: int) -> int:
    """Grow the book for one board size breadth first; returns the positions added."""
    frontier = [Board(size)]
    book.add_position(frontier[0])
    added = 1
    started = time.monotonic()
    for ply in range(max_plies):
        next_frontier: list[Board] = []
        for board in frontier:
            moves = [m for m in book.evaluate_moves(board, engine, depth) if m.score is not None]
            if not moves:
                continue
            best = max(m.score for m in moves if m.score is not None)
            for m in moves:
                if added >= max_positions:
                    break
                if m.score is not None and m.score >= best - margin:
                    child = board.copy()
                    child.push(m.move)
                    if child.is_game_over():
                        continue
                    if book.add_position(child):
                        added += 1
                        next_frontier.append(child)
        print(f"{size}x{size} ply {ply + 1}: {added} positions, "
              f"{time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
        frontier = next_frontier
        if not frontier or added >= max_positions:
            break
    # the last frontier's moves still need scores before negamax
    for board in frontier:
        book.evaluate_moves(board, engine, depth)
    return added


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    p.add_argument("--depth", type=int, default=10, help="search depth behind each move")
    p.add_argument("--margin", type=int, default=60,
                   help="centi-discs below the best for a move to be expanded")
    p.add_argument("--positions", type=int, default=300, help="positions for the 8x8 board")
    p.add_argument("--positions-6x6", type=int, default=60, help="positions for the 6x6 board")
    p.add_argument("--plies", type=int, default=10)
    p.add_argument("--hash", type=int, default=16)
    p.add_argument("--exact-6x6", type=lambda s: Path(s) if s else None, default=EXACT_6X6,
                   help="the perfect-play 6x6 book to fold in (default training/book6.txt; "
                        "an empty value: none)")
    args = p.parse_args(argv)
    engine = Engine(hash_mb=args.hash)
    book = Book.memory()
    started = time.monotonic()
    for size, count in ((8, args.positions), (6, args.positions_6x6)):
        if count > 0:
            expand(book, engine, size, args.depth, args.margin, count, args.plies)
    changed = book.propagate()
    if args.exact_6x6 and args.exact_6x6.exists():
        with open(args.exact_6x6, encoding="utf-8") as f:
            print(f"{args.exact_6x6}: {book.import_text(f)} exact 6x6 positions folded in",
                  file=sys.stderr)
    with open(args.output, "w", encoding="utf-8") as f:
        book.export_text(f)
    st = book.stats()
    start_moves = ", ".join(f"{square_name(m.move)} {m.score}" for m in book.lookup(Board()))
    print(f"wrote {args.output}: {st.positions} positions, {st.moves} moves ({st.scored} scored), "
          f"{changed} negamax updates, depth {args.depth}, {time.monotonic() - started:.1f} s")
    print(f"start position: {start_moves}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
