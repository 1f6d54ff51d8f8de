"""The ``othello-play`` command line: options, the starting position and the terminal's input loop."""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import Optional, TextIO

from othello_engine.board import BLACK, WHITE, Board, OthelloError
from othello_engine.cli.common import start_size_arg
from othello_engine.engine import Engine, Limit
from othello_engine.play import COLOR_NAMES, DISC_LETTERS, Game, Style, load_game
from othello_engine.textnum import float_arg, int_arg


class PlayError(ValueError):
    """A command line option that cannot be used (names the option and the value)."""


def terminal_supports_color(stream: TextIO) -> bool:
    """Colours when stream is a terminal, TERM is set and not ``dumb``, and NO_COLOR is unset."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM", "dumb") in ("", "dumb"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def start_board(args: argparse.Namespace) -> Board:
    """The starting position from the options: a saved game, a board string, or the standard one."""
    if args.load:
        try:
            return load_game(args.load)
        except OSError as exc:
            raise PlayError(f"--load {args.load!r}: {exc.strerror or exc}") from None
        except OthelloError as exc:
            raise PlayError(f"--load {args.load!r}: {exc}") from None
    if args.board:
        text = args.board.strip()
        try:
            if "/" in text:
                return Board.from_fen(text)
            fields = text.split()
            if len(fields) >= 2 and len(fields[-1]) <= 5 and not set(fields[-1]) <= set("-."):
                return Board.from_cells("".join(fields[:-1]), fields[-1])
            return Board.from_cells(text, "b")
        except OthelloError as exc:
            raise PlayError(f"--board: {exc}") from None
    return Board(args.size)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="othello-play", description="Play Othello against the engine in a terminal.",
        epilog="In the game, type help for the commands.")
    p.add_argument("--side", default="black", choices=["black", "white", "b", "w", "random"],
                   help="your colour (black moves first; default black)")
    p.add_argument("--size", type=start_size_arg, default=8, metavar="N",
                   help="board size for the standard start: an even size 4..26 (default 8)")
    strength = p.add_mutually_exclusive_group()
    strength.add_argument("--depth", type=int_arg, help="engine strength: search depth per move")
    strength.add_argument("--time", type=float_arg,
                          help="engine strength: seconds per move (default 1.0)")
    p.add_argument("--board", metavar="CELLS [SIDE]",
                   help="start from a board string (rows from a1: X/B black, O/W white, - empty; "
                        "then b or w to move) or a UGI FEN; CELLS may start with '-'")
    p.add_argument("--load", metavar="FILE", help="start from a saved game (GGF)")
    p.add_argument("--no-color", action="store_true", help="plain text, no ANSI colours")
    p.add_argument("--color", action="store_true", help="ANSI colours even when not detected")
    p.add_argument("--book", nargs="?", const="", default=None, metavar="FILE",
                   help="let the engine play from an opening book (the shipped one if no FILE)")
    p.add_argument("--hash", type=int_arg, default=16, help="transposition table size, MB")
    p.add_argument("--seed", type=int_arg, default=None, help="seed for random choices")
    return p


def join_board_value(argv: list[str]) -> list[str]:
    """argv with ``--board CELLS [SIDE]`` made into one ``--board=CELLS SIDE``: argparse would take
    cells that start with ``-`` (an empty a1) for an option, and it takes one value only.

    >>> join_board_value(["--depth", "1", "--board", "--XO" + "-" * 12, "w", "--no-color"])
    ['--depth', '1', '--board=--XO------------ w', '--no-color']
    """
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--board" and i + 1 < len(argv):
            value = argv[i + 1]
            i += 2
            if i < len(argv) and not argv[i].startswith("-"):   # the side to move
                value += " " + argv[i]
                i += 1
            out.append("--board=" + value)
        elif argv[i] == "--":
            out.extend(argv[i:])
            break
        else:
            out.append(argv[i])
            i += 1
    return out


def main(argv: Optional[list[str]] = None) -> int:
    args = build_parser().parse_args(join_board_value(sys.argv[1:] if argv is None else argv))
    try:
        board = start_board(args)
        if args.depth is not None and args.depth < 1:
            raise PlayError(f"--depth {args.depth}: must be at least 1")
        if args.time is not None and args.time <= 0:
            raise PlayError(f"--time {args.time}: must be positive")
    except PlayError as exc:
        print(f"othello-play: {exc}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    side = args.side if args.side != "random" else rng.choice(["black", "white"])
    human = BLACK if side in ("black", "b") else WHITE
    limit = Limit(depth=args.depth) if args.depth is not None else Limit(time=args.time or 1.0)
    color = args.color or (not args.no_color and terminal_supports_color(sys.stdout))
    encoding = (getattr(sys.stdout, "encoding", "") or "").lower().replace("-", "")
    style = Style(color=color, unicode=color and encoding == "utf8")
    probe = None
    if args.book is not None:
        from othello_engine import book as book_module
        probe = book_module.probe_function(args.book or None, seed=args.seed,
                                           warn=lambda text: print(text, file=sys.stderr))

    def write(text: str) -> None:
        print(text, flush=True)

    engine = Engine(hash_mb=args.hash)
    game = Game(board, human, limit, engine, style, write, interactive=sys.stdout.isatty(),
                book_probe=probe)
    strength = f"depth {args.depth}" if args.depth is not None else f"{limit.time:g} s per move"
    write(f"Othello {board.size}x{board.size}: you play {COLOR_NAMES[human]} "
          f"({DISC_LETTERS[human]}), the engine plays {COLOR_NAMES[human ^ 1]} at {strength}. "
          f"Type help for the commands.")
    try:
        game.advance()
        while True:
            try:
                line = input("> ")
            except EOFError:
                write("")
                break
            except KeyboardInterrupt:
                write("")
                break
            if not game.handle(line):
                break
    except KeyboardInterrupt:
        write("")
    finally:
        engine.stop()
        engine.wait(2.0)
    write("Bye.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
