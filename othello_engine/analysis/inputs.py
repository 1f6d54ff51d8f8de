"""Reading analysis input: lines of OBF, board strings, FEN, move lists or GGF games into positions.

:func:`parse_line` reads one line (its format given or detected by :func:`detect_format`);
:func:`open_sources` gives the lines of input files and pipes, none longer than :data:`MAX_LINE`
bytes held in memory; a WTHOR database (``.wtb``) gives one GGF line a game, and a :class:`BadLine`
in the place of a bad game.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import IO, Iterable, Iterator, Optional, Sequence

from othello_engine.board import MAX_SIZE, MIN_SIZE, Board, OthelloError, Square
from othello_engine.games.files import BadGame, game_line, read_games
from othello_engine.ggf import parse_ggf
from othello_engine.notation import MoveListError, parse_moves, parse_obf
from othello_engine.wthor import is_wthor_path

FORMATS = ("obf", "board", "fen", "moves", "ggf")
MAX_ECHO = 200
"""Characters of an input line an error record repeats; the rest is cut (see clip_input)."""
MAX_LINE = 1 << 20
"""Longest input line read (bytes), as in the engine: a longer one is an error record and its
rest is read and dropped without being held in memory."""

Source = tuple[str, Iterable[str]]
"""An input: its name (a path, ``-`` for stdin) and its lines."""


class InputError(ValueError):
    """An input line that cannot be read as a position or game."""


def clip_input(text: str) -> str:
    """The input line as an error record repeats it: whole up to MAX_ECHO characters, else its
    start, an ellipsis and the original length (a 100 KB line must not give a 100 KB record).

    >>> clip_input("f5 d6")
    'f5 d6'
    >>> clip_input("x" * 1000) == "x" * 200 + "... (1000 characters)"
    True
    """
    return text if len(text) <= MAX_ECHO else f"{text[:MAX_ECHO]}... ({len(text)} characters)"


@dataclass(frozen=True)
class Position:
    """One position to analyse, with where it came from. ``known`` holds OBF move scores (discs,
    side to move); ``ply``/``played`` the number (1-based) and move of a game's next move."""

    board: Board
    known: tuple[tuple[Square, int], ...] = ()
    ply: Optional[int] = None
    played: Optional[Square] = None


_CELLS = re.compile(r"^[-.xXoObBwW*]+$")
_MOVES = re.compile(r"^(?:\s*(?:[a-hA-H][1-8]|pass|PA|pa|@@))+\s*$")
_WIDE_MOVES = re.compile(r"^(?:\s*(?:[a-zA-Z][0-9]{1,2}|pass|PA|pa|@@))+\s*$")


def _is_cells(token: str) -> bool:
    n = len(token)
    return bool(_CELLS.match(token)) and any(n == k * k for k in range(MIN_SIZE, MAX_SIZE + 1))


def detect_format(text: str, size: int = 8) -> str:
    """Guess the format of an input line (see :data:`FORMATS`).

    >>> detect_format("(;GM[Othello]BO[8 ...];)"), detect_format("f5 d6 c3"), detect_format("f5d6")
    ('ggf', 'moves', 'moves')
    >>> detect_format("8/8/8/3ox3/3xo3/8/8/8 x"), detect_format("-" * 64 + " X; G8:+18;")
    ('fen', 'obf')
    >>> detect_format("-" * 64 + " X"), detect_format("hello")
    ('board', 'unknown')
    """
    t = text.strip()
    if t.startswith("(;"):
        return "ggf"
    first = t.split()[0] if t.split() else ""
    if "/" in first:
        return "fen"
    if ";" in t:
        return "obf"
    fields = t.split()
    # a wrong length still counts as a board string, so the error says what is wrong with it
    if len(fields) == 2 and _CELLS.match(fields[0]) and len(fields[0]) >= 9 and fields[1].lower() in (
            "x", "o", "b", "w", "*", "black", "white"):
        return "board"
    if len(fields) == 1 and len(t) > 9 and _is_cells(t[:-1]) and t[-1].lower() in "xobw*":
        return "board"
    if (_MOVES if size <= 8 else _WIDE_MOVES).match(t):
        return "moves"
    return "unknown"


def _moves_board(text: str, size: int = 8) -> Board:
    try:
        return parse_moves(text, size)
    except MoveListError as exc:
        raise InputError(str(exc)) from None


def parse_line(text: str, fmt: str = "auto", size: int = 8) -> tuple[str, list[Position]]:
    """Read one input line in the given format (``auto``: detect it); return the format and the
    positions to analyse: one, or for a GGF game every position before a move. A move list
    starts from the standard start of a size x size board (the other formats say their size).
    InputError says why a line cannot be read.

    >>> fmt, positions = parse_line("f5 d6 c3")
    >>> fmt, positions[0].board.empties
    ('moves', 57)
    """
    if fmt == "auto":
        fmt = detect_format(text, size)
        if fmt == "unknown":
            raise InputError("not a position: expected OBF, a board string with its side, a UGI "
                             "FEN, a move list or a GGF game")
    elif fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}")
    try:
        if fmt == "obf":
            board, known = parse_obf(text)
            return fmt, [Position(board, tuple(known))]
        if fmt == "board":
            fields = text.split()
            if len(fields) == 1:
                fields = [fields[0][:-1], fields[0][-1]]
            if len(fields) != 2:
                raise InputError("a board string is '<cells> <side>'")
            return fmt, [Position(Board.from_cells(fields[0], fields[1]))]
        if fmt == "fen":
            return fmt, [Position(Board.from_fen(text.strip()))]
        if fmt == "moves":
            return fmt, [Position(_moves_board(text, size))]
        record = parse_ggf(text)
        game = record.board
        board = game.replay()
        positions = []
        for ply, move in enumerate(game.move_stack, 1):
            positions.append(Position(board.copy(), ply=ply, played=move))
            board.push(move)
        if not positions:
            raise InputError("the game has no moves")
        return fmt, positions
    except OthelloError as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(str(exc)) from None
    except (ValueError, OverflowError) as exc:  # a number no reader should have let through
        raise InputError(f"unreadable: {exc}") from None


class LongLine(str):
    """The start of an over-long input line; ``length`` is the whole line's length in bytes."""

    length: int


def bounded_lines(stream: IO[bytes], limit: int = MAX_LINE) -> Iterator[str]:
    """The decoded lines of a byte stream, none longer than limit bytes held in memory: a longer
    line gives its first MAX_ECHO characters as a LongLine carrying its full length.

    >>> import io
    >>> [(line, getattr(line, "length", None)) for line in bounded_lines(io.BytesIO(b"f5\\nxxxxx\\n"), 3)]
    [('f5\\n', None), ('xxxx', 6)]
    """
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        if len(raw) > limit and not raw.endswith(b"\n"):
            length = len(raw)
            while True:  # drop the rest of the line
                more = stream.readline(limit)
                length += len(more)
                if not more or more.endswith(b"\n"):
                    break
            line = LongLine(raw[:MAX_ECHO].decode("utf-8", errors="replace"))
            line.length = length
            yield line
            continue
        yield raw.decode("utf-8", errors="replace")


class BadLine(str):
    """The line of a game that could not be read from a database; ``error`` says why (the reader
    makes it an error record)."""

    error: str


def wthor_lines(path: str) -> Iterator[str]:
    """The games of a WTHOR file as GGF lines (names resolved when the name files are beside it),
    a BadLine for each bad game."""
    for entry in read_games(path):
        if isinstance(entry, BadGame):
            line = BadLine(f"{path} game {entry.number}")
            line.error = entry.reason
            yield line
        else:
            yield game_line(entry, "ggf")


def open_sources(paths: Sequence[str], stdin: IO[bytes]) -> list[Source]:
    """The inputs named by paths (``-`` or none: stdin), each read lazily as bounded lines; a
    ``.wtb`` file as the GGF lines of its games (:func:`wthor_lines`)."""
    def file_lines(path: str) -> Iterator[str]:
        if is_wthor_path(path):
            yield from wthor_lines(path)
            return
        with open(path, "rb") as f:
            yield from bounded_lines(f)

    if not paths:
        return [("-", bounded_lines(stdin))]
    return [(p, bounded_lines(stdin) if p == "-" else file_lines(p)) for p in paths]
