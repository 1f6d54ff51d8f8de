"""GGF (Generic Game Format): the one reader and the one writer of GGF game records.

A GGF game is ``(;`` properties ``;)``; a property is a key of capital letters and a value in
brackets, where a backslash escapes the next character (so ``]`` and ``\\`` can stand in a value).
Every GGF the package writes goes through :func:`format_ggf`, and whatever text a name, a result or
a comment holds, :func:`parse_ggf` reads the record back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from othello_engine.board import (BLACK, MAX_SIZE, PASS, WHITE, Board, Color, InvalidBoardError, OthelloError,
                                  clip_text, parse_square, square_name)

@dataclass
class GameRecord:
    """A game read from or written to GGF: the board after the moves (its start position and move
    stack hold the whole game), the players, and per-move evaluations and times where given."""

    board: Board
    black: str = ""
    white: str = ""
    result: str = ""
    place: str = ""
    date: str = ""
    time_control: str = ""
    evals: list[Optional[float]] = field(default_factory=list)
    times: list[Optional[float]] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)

    def ggf(self) -> str:
        """This record as one GGF game (see :func:`format_ggf`)."""
        return format_ggf(self.board, self.black, self.white, self.result, self.evals, self.times,
                          self.place, self.date, self.time_control)


_GGF_ESCAPE = re.compile(r"\\(.)", re.S)


_RECORD_FIELDS = {"PB": "black", "PW": "white", "RE": "result", "PC": "place", "DT": "date",
                  "TI": "time_control"}
"""The GGF properties a GameRecord keeps as fields (every other one goes to its tags)."""


def parse_ggf(text: str) -> GameRecord:
    """Read one GGF game ``(;GM[Othello]...BO[8 <cells> <side>]B[F5]W[F6]...;)``.

    Cells in BO are ``-`` empty, ``*`` black, ``O`` white; moves may carry ``/eval/time``; a pass
    is ``PA``. A move by the side not to move after a forced pass gets the pass inserted. Fields
    other than the board, the moves and the players are kept in ``tags``. In a value a backslash
    escapes the next character (``PC[a\\]b]`` is the place ``a]b``).

    >>> rec = parse_ggf('(;GM[Othello]PB[a]PW[b]TY[8]BO[8 ' + '-' * 27 + 'O*------*O' + '-' * 27
    ...                 + ' *]B[F5//0.1]W[d6/-1.5];)')
    >>> [square_name(m) for m in rec.board.move_stack], rec.black, rec.evals
    (['f5', 'd6'], 'a', [None, -1.5])
    """
    body = text.strip()
    if not body.startswith("(;") or not body.endswith(";)"):
        raise InvalidBoardError(f"bad GGF {clip_text(text)!r}: a game is '(;' ... ';)'")
    props = [(key, _GGF_ESCAPE.sub(r"\1", value)) for key, value in _ggf_properties(body[2:-2], text)]
    rec = GameRecord(board=Board())
    board: Optional[Board] = None
    moves: list[tuple[Color, str]] = []
    for key, value in props:
        if key == "BO":
            board = _ggf_board(value, text)
        elif key in ("B", "W"):
            moves.append((BLACK if key == "B" else WHITE, value))
        elif key in _RECORD_FIELDS:
            setattr(rec, _RECORD_FIELDS[key], value)
        else:
            rec.tags[key] = value
    if "GM" in rec.tags and rec.tags["GM"].lower() != "othello":
        raise InvalidBoardError(f"bad GGF: game {rec.tags['GM']!r} is not Othello")
    if board is None:
        ty = re.search(r"[0-9]+", rec.tags.get("TY", "8"), re.ASCII)
        size = int(ty.group()) if ty and len(ty.group()) <= 2 else 0 if ty else 8
        try:
            board = Board(size)
        except OthelloError:
            raise InvalidBoardError(f"bad GGF: type {clip_text(rec.tags['TY'])!r} is not a board size "
                                    f"with a standard start (an even size 4..{MAX_SIZE}); give BO") from None
    for color, value in moves:
        parts = value.split("/")
        if board.turn != color and board.must_pass():
            board.push(PASS)
            rec.evals.append(None)
            rec.times.append(None)
        if board.turn != color:
            raise InvalidBoardError(f"bad GGF: move {value!r} by the side not to move")
        try:
            board.push(parse_square(parts[0], board.size))
        except OthelloError as exc:
            raise InvalidBoardError(f"bad GGF move {value!r}: {exc}") from None
        rec.evals.append(_float_or_none(parts[1]) if len(parts) > 1 else None)
        rec.times.append(_float_or_none(parts[2]) if len(parts) > 2 else None)
    rec.board = board
    return rec


def _value_end(text: str, start: int) -> int:
    """The index of the ``]`` that closes the value starting at ``start`` (a backslash escapes the
    next character), or -1. One pass over the text: no backtracking."""
    i = start
    while True:
        close = text.find("]", i)
        if close < 0:
            return -1
        backslashes = 0
        j = close - 1
        while j >= start and text[j] == "\\":
            backslashes += 1
            j -= 1
        if backslashes % 2 == 0:
            return close
        i = close + 1


def _ggf_properties(body: str, text: str) -> list[tuple[str, str]]:
    """The ``KEY[value]`` properties of a game's body, in order (values still escaped), read in
    one pass: time linear in the length, whatever the text (an unclosed ``[`` is found once)."""
    props = []
    i, n = 0, len(body)
    while i < n:
        if body[i].isspace():
            i += 1
            continue
        m = _GGF_KEY.match(body, i)
        if m is None:
            raise InvalidBoardError(f"bad GGF {clip_text(text)!r}: unreadable text {clip_text(body[i:])!r}")
        end = _value_end(body, m.end())
        if end < 0:
            raise InvalidBoardError(f"bad GGF: the value of {m.group(1)} at character {i + 2} has no "
                                    "closing ']'")
        props.append((m.group(1), body[m.end():end]))
        i = end + 1
    return props


_GGF_KEY = re.compile(r"([A-Z]{1,2})\[", re.ASCII)
_GGF_STOP = re.compile(r"\[|;\)")


def _ggf_games(text: str) -> tuple[list[str], str]:
    """The GGF games ``(; ... ;)`` of a text and what is left between them, in one pass: property
    values are skipped whole (escapes included), so a ``;)`` inside a value does not end a game."""
    games: list[str] = []
    leftover: list[str] = []
    i, n = 0, len(text)
    while i < n:
        start = text.find("(;", i)
        if start < 0:
            leftover.append(text[i:])
            break
        leftover.append(text[i:start])
        j = start + 2
        end = -1
        while True:
            m = _GGF_STOP.search(text, j)  # the next value or end of game: each found once
            if m is None:
                break
            if m.group() == ";)":
                end = m.end()
                break
            close = _value_end(text, m.end())
            if close < 0:
                break
            j = close + 1
        if end < 0:
            leftover.append(text[start:])  # an unfinished game: nothing after it can close
            break
        games.append(text[start:end])
        i = end
    return games, "".join(leftover)


def _ggf_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


def parse_ggf_games(text: str) -> list[GameRecord]:
    """Read every GGF game of a text (a GGF file holds one ``(; ... ;)`` after another).

    >>> [g.black for g in parse_ggf_games('(;GM[Othello]PB[a;)b]B[F5];) (;PB[c]B[F5];)')]
    ['a;)b', 'c']
    """
    games, leftover = _ggf_games(text)
    leftover = leftover.strip()
    if leftover:
        raise InvalidBoardError(f"bad GGF text: unreadable {clip_text(leftover)!r} between games")
    return [parse_ggf(g) for g in games]


def _ggf_board(value: str, text: str) -> Board:
    fields = value.split()
    if len(fields) < 3 or not re.fullmatch(r"[0-9]{1,2}", fields[0], re.ASCII):
        raise InvalidBoardError(f"bad GGF board {clip_text(value)!r}: expected '<size> <cells> <side>'")
    size = int(fields[0])
    cells = "".join(fields[1:-1])
    if len(cells) != size * size:
        raise InvalidBoardError(f"bad GGF board {clip_text(value)!r}: {len(cells)} cells for size {size}")
    return Board.from_cells(cells, fields[-1])


def _float_or_none(text: str) -> Optional[float]:
    try:
        return float(text) if text.strip() else None
    except ValueError:
        return None


def format_ggf(board: Board, black: str = "", white: str = "", result: str = "",
               evals: Optional[list[Optional[float]]] = None,
               times: Optional[list[Optional[float]]] = None, place: str = "othello_engine",
               date: str = "", time_control: str = "", comment: str = "") -> str:
    """Write the game of board (its start position and move stack) as one GGF line; a
    ``comment`` goes after the moves as ``C[...]``.

    >>> b = Board(); _ = b.push_str('f5')
    >>> format_ggf(b, 'me', 'you').endswith('*]B[F5];)')
    True
    """
    # a backslash escapes the next character of a value (parse_ggf undoes it), so ']' and '\\'
    # inside a name or place survive the round trip
    place, date, black, white, result, time_control, comment = (
        _ggf_escape(str(v)) for v in (place, date, black, white, result, time_control, comment))
    start = board.replay()
    cells = start.cells().replace("X", "*")
    side = "*" if start.turn == BLACK else "O"
    out = ["(;GM[Othello]", f"PC[{place}]"]
    if date:
        out.append(f"DT[{date}]")
    out += [f"PB[{black}]", f"PW[{white}]"]
    if result:
        out.append(f"RE[{result}]")
    if time_control:
        out.append(f"TI[{time_control}]")
    out.append(f"TY[{board.size}]BO[{board.size} {cells} {side}]")
    turn = start.turn
    for i, move in enumerate(board.move_stack):
        text = "PA" if move == PASS else square_name(move, board.size).upper()
        ev = evals[i] if evals and i < len(evals) else None
        tm = times[i] if times and i < len(times) else None
        if ev is not None or tm is not None:
            text += "/" + ("" if ev is None else f"{ev:.2f}")
            if tm is not None:
                text += f"/{tm:.2f}"
        out.append(("B" if turn == BLACK else "W") + f"[{text}]")
        turn ^= 1
    if comment:
        out.append(f"C[{comment}]")
    out.append(";)")
    return "".join(out)


