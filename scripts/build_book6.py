"""Build the perfect-play part of the 6x6 opening book: every move scored by the exact solver.

Two parts:

- full width to ``--full-plies F``: every position of the first F plies (under the 8 symmetries)
  gets every move scored exactly, from exact solves of all the positions F + 1 plies in;
- optimal lines to ``--lines L``: below that, every position reached from the start by optimal
  moves only (both sides), down to ply L, gets every move scored exactly, from solves of its
  children.

Solves run in ``--jobs`` processes and are appended to ``--solved FILE`` as they finish (one line
each: canonical player and opponent bitboards in hex, the exact score for the side to move, nodes,
seconds), so an interrupted run resumes where it stopped. The result is written in the book's text
form (``othello-book import``) to ``--out``:

    python scripts/build_book6.py --full-plies 4 --lines 10 --jobs 2 \\
        --solved training/book6_solved.txt --out /tmp/book6.txt

Then ``python scripts/build_book6.py --merge /tmp/book6.txt`` folds it into the shipped book
(othello_engine/data/book.txt), where an exact score replaces a searched one.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from typing import Optional

from othello_engine import atomicfile
from othello_engine.board import BLACK, PASS, Board
from othello_engine.book.store import Book, position_key
from othello_engine.resumable import settle

SIZE = 6
"""The board size (--size: 6, or 4 for a test run in a fraction of a second)."""
Key = tuple[int, int]  # the canonical (player, opponent) of a side-relative position


def key_of(board: Board) -> Key:
    _, p, o, _ = position_key(board.player, board.opponent, SIZE)
    return p, o


def board_of(key: Key) -> Board:
    return Board.from_discs(SIZE, key[0], key[1], BLACK)  # "black" is the side to move


def moves_of(board: Board) -> list[int]:
    """The moves of a position that is not over: its legal moves, or a pass."""
    return board.legal_moves() or [PASS]


def children(board: Board) -> list[tuple[int, Board]]:
    out = []
    for move in moves_of(board):
        child = board.copy()
        child.push(move)
        out.append((move, child))
    return out


# --- solving -------------------------------------------------------------------------------
_engine = None


def _start_solver(size: int, hash_mb: int) -> None:
    """A solver process's set-up: the board size and its engine (one thread, its own table)."""
    global SIZE, _engine
    from othello_engine.engine import Engine
    SIZE = size
    _engine = Engine(hash_mb=hash_mb, threads=1)


def _solve(key: Key) -> tuple[Key, int, int, float]:
    from othello_engine.engine import Limit
    assert _engine is not None
    board = board_of(key)
    start = time.perf_counter()
    r = _engine.search(board, Limit(exact=True))
    if not r.exact:
        raise RuntimeError(f"the solve of {board.fen()} did not finish exactly")
    return key, r.score // 100, r.nodes, time.perf_counter() - start


def load_solved(path: str) -> dict[Key, int]:
    solved: dict[Key, int] = {}
    if os.path.exists(path):
        settle(path)        # a line cut short by a kill is dropped (its position is solved again)
        with open(path, encoding="ascii") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and not line.startswith("#"):
                    solved[(int(parts[0], 16), int(parts[1], 16))] = int(parts[2])
    return solved


def solve_all(keys: set[Key], solved: dict[Key, int], path: str, jobs: int, hash_mb: int) -> None:
    """Solve every key not in solved, appending each result to path as it comes."""
    todo = []
    for k in keys:
        if k in solved:
            continue
        b = board_of(k)
        if b.is_game_over():
            solved[k] = b.disc_difference()
        else:
            todo.append(k)
    todo.sort()
    if not todo:
        return
    print(f"solving {len(todo)} positions ({board_of(todo[0]).empties} empties first) "
          f"in {jobs} process(es)", file=sys.stderr, flush=True)
    start = time.perf_counter()
    with open(path, "a", encoding="ascii") as out, \
            multiprocessing.Pool(jobs, _start_solver, (SIZE, hash_mb)) as pool:
        for n, (key, score, nodes, seconds) in enumerate(pool.imap_unordered(_solve, todo), 1):
            solved[key] = score
            out.write(f"{key[0]:x} {key[1]:x} {score} {nodes} {seconds:.2f}\n")
            out.flush()
            print(f"  {n}/{len(todo)}: {score:+d} ({board_of(key).empties} empties, {nodes} "
                  f"nodes, {seconds:.1f} s; {time.perf_counter() - start:.0f} s so far)",
                  file=sys.stderr, flush=True)


# --- the book's tree -----------------------------------------------------------------------
def build(full_plies: int, lines: int, solved_path: str, jobs: int,
          hash_mb: int) -> dict[Key, tuple[Board, dict[int, int]]]:
    """The book: for each position, a board it is reached by and its moves (in that board's
    frame) with their exact scores for the side to move."""
    solved = load_solved(solved_path)
    # full width: the positions of plies 0..F (one representative board per canonical key)
    levels: list[dict[Key, Board]] = [{key_of(Board(SIZE)): Board(SIZE)}]
    for _ in range(full_plies):
        nxt: dict[Key, Board] = {}
        for b in levels[-1].values():
            if not b.is_game_over():
                for _, c in children(b):
                    nxt.setdefault(key_of(c), c)
        levels.append(nxt)
    frontier = {key_of(c) for b in levels[-1].values() if not b.is_game_over()
                for _, c in children(b)}
    solve_all(frontier, solved, solved_path, jobs, hash_mb)
    book: dict[Key, tuple[Board, dict[int, int]]] = {}
    for level in reversed(levels):  # deepest first, so children are known before parents
        for k, b in level.items():
            if b.is_game_over():
                solved.setdefault(k, b.disc_difference())
                continue
            scores = {m: -solved[key_of(c)] for m, c in children(b)}
            book[k] = (b, scores)
            solved[k] = max(scores.values())
    # optimal lines: the positions reached from the start by optimal moves only, below the
    # full-width part
    line_level = {key_of(Board(SIZE)): Board(SIZE)}
    for _ in range(full_plies + 1):
        line_level = {key_of(c): c for b, scores in (book[k] for k in line_level if k in book)
                      for m, c in children(b) if scores[m] == max(scores.values())}
    for ply in range(full_plies + 1, lines + 1):
        live = {k: b for k, b in line_level.items() if not b.is_game_over()}
        solve_all({key_of(c) for b in live.values() for _, c in children(b)}, solved,
                  solved_path, jobs, hash_mb)
        line_level = {}
        for k, b in live.items():
            scores = {m: -solved[key_of(c)] for m, c in children(b)}
            book[k] = (b, scores)
            best = max(scores.values())
            for m, c in children(b):
                if scores[m] == best:
                    line_level.setdefault(key_of(c), c)
        print(f"ply {ply}: {len(live)} positions on optimal lines", file=sys.stderr, flush=True)
    return book


def write_book(book: dict[Key, tuple[Board, dict[int, int]]], out_path: str) -> int:
    mem = Book.memory()
    for b, scores in book.values():
        for move, score in scores.items():
            mem.set_move(b, move, 100 * score, 60, exact=True)
    with open(out_path, "w", encoding="utf-8") as f:
        return mem.export_text(f)


def merge(path: str, shipped: str) -> int:
    """Fold the exact book at path into the shipped book's text file (exact scores win)."""
    mem = Book.memory()
    with open(shipped, encoding="utf-8") as f:
        mem.import_text(f)
    with open(path, encoding="utf-8") as f:
        mem.import_text(f)
    with atomicfile.replacing(shipped) as f:
        return mem.export_text(f)


def main(argv: Optional[list[str]] = None) -> int:
    global SIZE
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, choices=(4, 6), default=6, help="board size (default 6)")
    ap.add_argument("--full-plies", type=int, default=4, help="full width to this ply (default 4)")
    ap.add_argument("--lines", type=int, default=10,
                    help="optimal lines down to this ply (default 10)")
    ap.add_argument("--jobs", type=int, default=2, help="solver processes (default 2)")
    ap.add_argument("--hash", type=int, default=512,
                    help="transposition table MiB of each solver process (default 512)")
    ap.add_argument("--solved", default="book6_solved.txt", help="the resumable solve log")
    ap.add_argument("--out", default="book6.txt", help="the book in text form")
    ap.add_argument("--merge", metavar="BOOKTEXT",
                    help="fold this book text into othello_engine/data/book.txt and stop")
    args = ap.parse_args(argv)
    if args.merge:
        shipped = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                               "othello_engine", "data", "book.txt")
        print(f"{shipped}: {merge(args.merge, shipped)} positions")
        return 0
    SIZE = args.size
    book = build(args.full_plies, args.lines, args.solved, args.jobs, args.hash)
    n = write_book(book, args.out)
    root = book[key_of(Board(SIZE))][1]
    print(f"{n} positions written to {args.out}; the start scores {max(root.values()):+d} "
          "for black")
    return 0


if __name__ == "__main__":
    sys.exit(main())
