"""The ``othello-engine perft`` command: the position from the arguments, the counts printed."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from othello_engine.board import Board, InvalidBoardError, OthelloError, parse_side, square_name
from othello_engine.notation import MoveListError, parse_obf, parse_position, play_moves
from othello_engine.perft import perft
from othello_engine.textnum import int_arg


def _board_from_args(args: argparse.Namespace) -> Board:
    given = args.position or args.fen or args.obf or args.board or args.relative
    if args.position:
        board = parse_position(args.position)
    elif args.fen:
        board = Board.from_fen(args.fen)
    elif args.obf:
        board = parse_obf(args.obf)[0]
    elif args.board:
        cells, side = _split_board(args.board)
        board = Board.from_cells(cells, side)
    elif args.relative:
        cells, side = _split_board(args.relative)
        board = Board.from_relative(cells, parse_side(side))
    else:
        board = Board(8 if args.size is None else args.size)
    if given and args.size is not None and args.size != board.size:
        raise InvalidBoardError(f"--size {args.size} disagrees with the {board.size}x{board.size} "
                                "position given")
    try:
        return play_moves(board, args.moves)   # the one move-list grammar (forced passes may be left out)
    except MoveListError as exc:
        raise OthelloError(f"--moves: {exc}") from None


def _split_board(text: str) -> tuple[str, str]:
    fields = text.split()
    if len(fields) < 2:
        raise InvalidBoardError(f"bad board {text!r}: expected '<cells> <side>'")
    return "".join(fields[:-1]), fields[-1]


def _rate(x: float) -> str:
    return f"{x / 1e6:.1f}M" if x != float("inf") else "inf"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="othello-engine perft",
        description="Count the leaves of the game tree (perft) from a position, per root move.")
    parser.add_argument("depth", type=int_arg, help="plies to count (a forced pass is a ply)")
    parser.add_argument("--size", type=int_arg, default=None,
                        help="board size for the standard start (an even size 4..26; default 8)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--position", help="a FEN or an absolute board string with the side to move")
    where.add_argument("--fen", help="UGI FEN, e.g. '8/8/8/3ox3/3xo3/8/8/8 x'")
    where.add_argument("--obf", help="an OBF line: '<cells> <X|O>'")
    where.add_argument("--board", metavar="'CELLS SIDE'",
                       help="absolute board string (X/B/* black, O/W white, -/. empty) and side")
    where.add_argument("--relative", metavar="'CELLS SIDE'",
                       help="player-relative board string (P to move, O, -) and its colour")
    parser.add_argument("--moves", nargs="*", default=[], help="moves to play first, e.g. f5 d6")
    parser.add_argument("--bulk", action="store_true", help="count the last ply by popcount")
    parser.add_argument("--no-divide", action="store_true", help="no per-move counts")
    parser.add_argument("--up-to", action="store_true", help="one line per depth 1..DEPTH")
    args = parser.parse_args(argv)
    try:
        board = _board_from_args(args)
        if args.depth < 0:
            raise ValueError(f"perft depth {args.depth} must be >= 0")
    except (OthelloError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # The count runs in a worker thread (the core releases the GIL), so that Ctrl-C, which only
    # the main thread sees, ends a count of many minutes at once. The handler is in place before
    # the first line is printed: a Ctrl-C at any moment after it sets the stop flag, which the
    # compiled count sees within microseconds (also when it comes before the count has begun).
    status, stop = [0], bytearray(1)
    interrupted = threading.Event()

    def on_interrupt(signum: int, frame: object) -> None:
        stop[0] = 1
        interrupted.set()

    previous = signal.getsignal(signal.SIGINT)
    if previous != signal.SIG_IGN:      # (a background job started with Ctrl-C ignored keeps it so)
        signal.signal(signal.SIGINT, on_interrupt)
    try:
        try:
            print(f"position {board.fen()} ({board.size}x{board.size})")
            print(f"bulk {'on' if args.bulk else 'off'}", flush=True)
        except BrokenPipeError:
            _drop_stdout()
            return 1
        worker = threading.Thread(target=_count, args=(board, args, status, stop), name="perft",
                                  daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(0.1)
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted.is_set():
        sys.stdout.flush()
        print("othello-engine perft: interrupted", file=sys.stderr)
        return 130
    return status[0]


def _count(board: Board, args: argparse.Namespace, status: list[int], stop: bytearray) -> None:
    """Print the counts the command line asked for (runs in the worker thread); a reader that
    goes away (``| head``) ends it quietly with status 1."""
    try:
        _print_counts(board, args, stop)
    except BrokenPipeError:
        _drop_stdout()
        status[0] = 1


def _drop_stdout() -> None:
    """Point stdout at /dev/null once its reader has gone, so that the exit's flush cannot fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _print_counts(board: Board, args: argparse.Namespace, stop: bytearray) -> None:
    if args.up_to:
        for d in range(1, args.depth + 1):
            r = perft(board, d, args.bulk, divide=False, stop=stop)
            if r.stopped:
                return
            print(f"depth {d} leaves {r.total} time {r.seconds:.4f} s leaves/s {_rate(r.leaves_per_second)}",
                  flush=True)
        return
    r = perft(board, args.depth, args.bulk, divide=not args.no_divide,
              on_move=lambda move, n: print(f"{square_name(move, board.size)} {n}", flush=True), stop=stop)
    if r.stopped:
        return
    print(f"depth {r.depth}")
    print(f"total {r.total}")
    print(f"time {r.seconds:.4f} s")
    print(f"leaves/s {_rate(r.leaves_per_second)}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
