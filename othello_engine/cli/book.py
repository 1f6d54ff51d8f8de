"""The ``othello-book`` command: build, inspect and use opening books (argument parsing and output)."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from typing import Callable, Optional

from othello_engine import atomicfile, filelock
from othello_engine.board import BLACK, MAX_SIZE, STANDARD_SIZES, Board, OthelloError, square_name
from othello_engine.book import BUSY_WAIT, Book, BookError, ProgressCallback, format_score, read_games
from othello_engine.notation import parse_moves
from othello_engine.textnum import ascii_float, ascii_int


def _refuse_same_file(book_path: str, output: str) -> None:
    """BookError when output is the book file (or one of its SQLite side files): writing it
    would destroy the book being read."""
    sides = [book_path + ext for ext in ("-wal", "-shm", "-journal")]
    clash = filelock.input_clash(output, [book_path] + sides)
    if clash is not None:
        raise BookError(f"will not write {output!r}: it is the book being read ({book_path!r}); give "
                        f"another file")


def _export_to_file(book: Book, output: str) -> int:
    """Write the text form to output in one step (atomicfile: a failed export, a full disk or an
    error, leaves the old file as it was); a pipe or device (``/dev/stdout``) is written
    directly."""
    if os.path.isdir(output):
        raise BookError(f"cannot export to {output!r}: it is a directory")
    with atomicfile.replacing(output) as f:
        return book.export_text(f)


def _progress_printer(label: str) -> ProgressCallback:
    last = [0.0]

    def show(done: int, total: int, seconds: float) -> None:
        if done == total or seconds - last[0] >= 1.0:
            last[0] = seconds
            print(f"{label}: {done}/{total} positions, {seconds:.1f} s", file=sys.stderr, flush=True)

    return show


def _position_from_args(args: argparse.Namespace) -> Board:
    if args.board:
        fields = args.board.split()
        if "/" in args.board:
            return Board.from_fen(args.board)
        return Board.from_cells("".join(fields[:-1]) if len(fields) > 1 else fields[0],
                                fields[-1] if len(fields) > 1 else "b")
    return parse_moves(args.moves or "", args.size)


def _int_in(lo: int, hi: Optional[int] = None) -> Callable[[str], int]:
    """An argparse type: an integer in lo..hi (hi None: no upper bound), else a message naming
    the value and the range."""
    def parse(text: str) -> int:
        value = ascii_int(text.strip())
        if value is None:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer")
        if hi is None and value < lo:
            raise argparse.ArgumentTypeError(f"{value} is below {lo}")
        if hi is not None and not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is out of range {lo}..{hi}")
        return value
    return parse


def _seconds(text: str) -> float:
    """An argparse type: a number of seconds >= 0 in ASCII digits."""
    value = ascii_float(text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds >= 0")
    return value


def _board_size(text: str) -> int:
    """An argparse type: a size with a standard start (an even size 4..26)."""
    if text.strip() not in {str(n) for n in STANDARD_SIZES}:
        raise argparse.ArgumentTypeError(f"{text!r} is not a board size with a standard start: "
                                         f"expected an even size 4..{MAX_SIZE}")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="othello-book",
                                description="Build, inspect and use othello_engine opening books.")
    p.add_argument("--book", metavar="FILE",
                   help="the book file (SQLite); show/export read the shipped book without it")
    p.add_argument("--wait", type=_seconds, default=BUSY_WAIT, metavar="SECONDS",
                   help="how long a writing command waits while another process writes the book "
                        f"(default {BUSY_WAIT:g})")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--book", metavar="FILE", default=argparse.SUPPRESS,
                        help="the book file (may also be given before the command)")
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("add", parents=[common],
                       help="add games (GGF records or move sequences) to the book")
    a.add_argument("files", nargs="+")
    a.add_argument("--plies", type=_int_in(1), default=None,
                   help="only the first N moves of each game (N >= 1)")
    a.add_argument("--size", type=_board_size, default=8,
                   help="board size of move-sequence files (an even size 4..26)")
    d = sub.add_parser("deepen", parents=[common],
                       help="search the moves leading out of the book and negamax back")
    d.add_argument("--depth", type=_int_in(1, 60), default=8, help="search depth (1..60, default 8)")
    d.add_argument("--hash", type=_int_in(1, 4096), default=16,
                   help="transposition table size in MiB (1..4096, default 16)")
    s = sub.add_parser("show", parents=[common], help="what the book knows about a position")
    s.add_argument("--moves", default="", help="moves from the start, e.g. f5d6c3")
    s.add_argument("--board", help="a board string 'CELLS SIDE' or a FEN")
    s.add_argument("--size", type=_board_size, default=8, help="board size for --moves (an even size 4..26)")
    e = sub.add_parser("export", parents=[common], help="write the book as text")
    e.add_argument("output", nargs="?", default="-")
    i = sub.add_parser("import", parents=[common], help="read a text book into the book file")
    i.add_argument("input")
    sub.add_parser("stats", parents=[common], help="counts of positions, moves and games")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except (BookError, OthelloError) as exc:
        print(f"othello-book: {exc}", file=sys.stderr)
        return 1
    except sqlite3.Error as exc:  # a file damaged while in use, a full disk
        print(f"othello-book: book {args.book!r}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `othello-book export | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"othello-book: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("othello-book: interrupted; the book keeps what was committed", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    writes = args.command in ("add", "deepen", "import")
    if writes and not args.book:
        raise BookError(f"{args.command} writes a book: give the file with --book FILE")
    def tell(text: str) -> None:
        print(f"othello-book: {text}", file=sys.stderr, flush=True)

    if args.command == "export" and args.output != "-" and args.book:
        _refuse_same_file(args.book, args.output)
    if writes:
        book = Book.open(args.book, write=True, busy_wait=args.wait, on_busy=tell)
    else:
        book = Book.open(args.book) if args.book else Book.shipped()
    bad_records = 0

    def skip(why: str) -> None:
        nonlocal bad_records
        bad_records += 1
        tell(f"skipped {why}")

    with book:
        if args.command == "add":
            games = added = 0
            started = time.monotonic()
            last = started
            for name in args.files:
                for game in read_games(name, args.size, errors=skip):
                    added += book.add_game(game, args.plies)
                    games += 1
                    now = time.monotonic()
                    if now - last >= 1.0:
                        last = now
                        print(f"add: {games} games, {added} new positions, {now - started:.1f} s",
                              file=sys.stderr, flush=True)
            print(f"added {games} games: {added} new positions"
                  + (f"; {bad_records} records could not be read (see above)" if bad_records else ""))
            if bad_records:
                return 1
        elif args.command == "deepen":
            from othello_engine.engine import Engine
            searched = book.deepen(Engine(hash_mb=args.hash), args.depth,
                                   _progress_printer("deepen"))
            print(f"searched {searched} moves to depth {args.depth}")
        elif args.command == "show":
            board = _position_from_args(args)
            print(str(board))
            print(("Black" if board.turn == BLACK else "White") + " to move")
            moves = book.lookup(board)
            if not moves:
                print("not in the book")
            for m in moves:
                print(f"{square_name(m.move, board.size):>4}  score {format_score(m.score, m.exact):>12}  "
                      f"depth {m.depth:>2}  games {m.games}")
        elif args.command == "export":
            if args.output == "-":
                n = book.export_text(sys.stdout)
            else:
                n = _export_to_file(book, args.output)
                print(f"exported {n} positions to {args.output}")
        elif args.command == "import":
            with open(args.input, encoding="utf-8", errors="replace") as f:
                n = book.import_text(f)
            print(f"imported {n} positions")
        elif args.command == "stats":
            st = book.stats()
            print(f"{book.path}: {st.positions} positions, {st.moves} moves ({st.scored} scored); "
                  f"games passed through its positions {st.games} times")
    return 0


if __name__ == "__main__":
    sys.exit(main())
