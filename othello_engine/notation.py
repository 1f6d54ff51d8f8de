"""Text forms of positions and games: board strings, OBF lines and the one move-list parser.

Squares, board strings and FEN are read by :mod:`othello_engine.board` (``parse_square``,
``Board.from_cells``, ``Board.from_fen``); GGF has its own module (:mod:`othello_engine.ggf`).

The move-list grammar, the one every reader of the package uses (the UCI ``position`` command,
NBoard, GTP, match openings, ``othello-analyze``, the book, ``othello-play``):

- moves are squares (``f5``, ``F5``; a letter and one or two digits beyond 8x8: ``j10``) or passes
  (``pass``, ``PA``, ``ps``, ``0000``, ``@@``), either case;
- they may stand apart (spaces, commas, hyphens, dots) or run together (``f5d6c3``, ``e4d5j10``);
- a pass may be written out, and where it is forced (the side to move has no legal move and the
  other side has one) it may also be left out: the next move is then the other side's.

>>> [square_name(m) for m in parse_moves('f5 d6,C3-d3').move_stack]
['f5', 'd6', 'c3', 'd3']
>>> moves = parse_moves('e6d6c4d3c7b5d2e2f2f1b3d7d8g2h2h3a6h1c2').move_stack   # white passes after h1
>>> [square_name(m) for m in moves[-3:]]
['h1', 'pass', 'c2']
"""

from __future__ import annotations

import re
from typing import Optional

from typing import Sequence, Union

from othello_engine.board import (BLACK, FRAME_SIZE, LEGACY_PASS, MIN_SIZE, MAX_SIZE, PASS, Board,
                                  InvalidBoardError, OthelloError, Square, clip_text, parse_square,
                                  square_name)


class MoveListError(OthelloError):
    """A move list that cannot be played: ``index`` (1-based) and ``token`` name the first bad move
    (index 0 when the text itself cannot be read), ``reason`` says why."""

    def __init__(self, index: int, token: str, reason: str) -> None:
        self.index, self.token, self.reason = index, token, reason
        where = f"move {index} {clip_text(token)!r}" if index else f"move list {clip_text(token)!r}"
        super().__init__(f"{where}: {reason}")


_SEPARATORS = re.compile(r"[\s,.\-]+")
_TOKEN = {   # a pass token first, so 'pa' is never read as a square
    False: re.compile(r"pass|pa|ps|0000|@@|[a-z][0-9]", re.ASCII | re.IGNORECASE),
    True: re.compile(r"pass|pa|ps|0000|@@|[a-z][0-9]{1,2}", re.ASCII | re.IGNORECASE),
}


def move_tokens(moves: Union[str, Sequence[str]], size: int = 8) -> list[str]:
    """Split a move list (a text, or tokens as a protocol line gives them) into one token a move.

    >>> move_tokens('f5d6 C3, pass e4d5j10', 10)
    ['f5', 'd6', 'C3', 'pass', 'e4', 'd5', 'j10']
    """
    words = _SEPARATORS.split(moves) if isinstance(moves, str) else [w for m in moves for w in _SEPARATORS.split(m)]
    token = _TOKEN[size > FRAME_SIZE]
    out: list[str] = []
    for word in words:
        i = 0
        while i < len(word):
            m = token.match(word, i)
            if m is None:
                raise MoveListError(len(out) + 1, word[i:], "expected a square (like f5) or a pass")
            out.append(m.group())
            i = m.end()
    return out


def push_move(board: Board, move: int) -> None:
    """Play one move of a move list on board: the move, after the forced pass it leaves out when
    the side to move has no legal move and the other side has one. Raises IllegalMoveError and
    leaves board as it was when the move cannot be played."""
    if move != PASS and board.must_pass():
        board.push(PASS)
        try:
            board.push(move)
        except OthelloError:
            board.pop()
            raise
        return
    board.push(move)


def play_moves(board: Board, moves: Union[str, Sequence[str]]) -> Board:
    """A copy of board with a move list played on it (see the grammar above); raises
    MoveListError naming the first bad move, and board is unchanged."""
    out = board.copy()
    for i, tok in enumerate(move_tokens(moves, board.size), 1):
        try:
            push_move(out, parse_square(tok, board.size))
        except MoveListError:
            raise
        except OthelloError as exc:
            raise MoveListError(i, tok, str(exc)) from None
    return out


def parse_moves(moves: Union[str, Sequence[str]], size: int = 8, board: Optional[Board] = None) -> Board:
    """The board after a move list played from board (default: the standard start of size)."""
    return play_moves(board if board is not None else Board(size), moves)



def parse_position(text: str) -> Board:
    """Read a position in any of the text forms: a UGI FEN (it has ``/``), or an absolute board
    string with the side to move (``<cells> <side>``, OBF annotations allowed and ignored).

    >>> parse_position('8/8/8/3ox3/3xo3/8/8/8 x') == parse_position('-' * 27 + 'OX------XO' + '-' * 27 + ' X')
    True
    """
    if not isinstance(text, str):
        raise InvalidBoardError(f"bad position {text!r}: expected a string")
    if "/" in text:
        return Board.from_fen(text)
    head = text.partition(";")[0].split()
    if len(head) < 2:
        raise InvalidBoardError(f"bad position {text!r}: expected a FEN or '<cells> <side>'")
    return Board.from_cells("".join(head[:-1]), head[-1])


def parse_obf(line: str) -> tuple[Board, list[tuple[Square, int]]]:
    """Read an OBF line (FFO test-suite format): 64 cells (``X``, ``O``, ``-``), the side to move,
    then ``; move:score`` annotations; returns the board and the (move, score) list, best first.
    Smaller boards work the same way with N*N cells; boards beyond 8x8 have no OBF (use a FEN or
    a board string). Annotated moves are checked for legality.

    >>> b, scores = parse_obf('-' * 27 + 'OX------XO' + '-' * 27 + ' X; F5:+0; D3:+0;')
    >>> b == Board(), [(square_name(m), v) for m, v in scores]
    (True, [('f5', 0), ('d3', 0)])
    """
    if not isinstance(line, str):
        raise InvalidBoardError(f"bad OBF line {line!r}: expected a string")
    head, _, rest = line.partition(";")
    fields = head.split()
    if len(fields) == 1 and len(fields[0]) in (n * n + 1 for n in range(MIN_SIZE, MAX_SIZE + 1)):
        fields = [fields[0][:-1], fields[0][-1]]
    if len(fields) != 2:
        raise InvalidBoardError(f"bad OBF line {line.strip()!r}: expected '<cells> <side>;'")
    board = Board.from_cells(fields[0], fields[1])
    if board.size > FRAME_SIZE:
        raise InvalidBoardError(f"bad OBF line {clip_text(line.strip())!r}: OBF is for boards up to 8x8, "
                                f"not {board.size}x{board.size} (give a FEN or a board string)")
    scores: list[tuple[Square, int]] = []
    for item in rest.split(";"):
        item = item.strip()
        if not item:
            continue
        mv, sep, val = item.partition(":")
        try:
            move = parse_square(mv, board.size)
            if not sep or not re.fullmatch(r"[+-]?[0-9]{1,9}", val.strip(), re.ASCII):
                raise InvalidBoardError("expected <move>:<score>")
        except ValueError as exc:
            raise InvalidBoardError(f"bad OBF annotation {item!r} in {line.strip()!r}: {exc}") from None
        if not board.is_legal(move):
            raise InvalidBoardError(f"bad OBF annotation {item!r} in {line.strip()!r}: "
                                    f"{mv.strip()} is not a legal move")
        scores.append((move, int(val)))
    return board, scores


def format_obf(board: Board, scores: Optional[list[tuple[Square, int]]] = None) -> str:
    """The OBF line of a position: cells (``X``, ``O``, ``-``), side (``X``/``O``), then
    ``; MOVE:+score`` for each (move, score) given.

    >>> format_obf(Board(4), [(parse_square('b1'), 2)])
    '-----OX--XO----- X; B1:+2;'
    """
    if board.size > FRAME_SIZE:
        raise InvalidBoardError(f"OBF is for boards up to 8x8, not {board.size}x{board.size}")
    out = board.cells() + (" X;" if board.turn == BLACK else " O;")
    for move, score in scores or []:
        name = "PA" if move == PASS or move == LEGACY_PASS else square_name(move).upper()
        out += f" {name}:{score:+d};"
    return out
