"""Positions, squares and notation: the Board type and the text forms of squares, moves and boards.

Board model
-----------
An N x N board (3 <= N <= 26) has columns ``a``.. (left to right) and rows ``1``.. (top to bottom):
``a1`` is the top-left corner and, on 8x8, ``h8`` the bottom-right one (``z26`` on 26x26). A
:data:`Square` is the integer ``row * stride + col`` with zero-based row and col, where the stride
is 8 for every board up to 8x8 and the side of the board beyond (:func:`stride`): a board of 3..8
sits in the top-left corner of the 8x8 frame, so ``b2`` is 9 on all of them, and its squares are
the bits of ``Board.mask``; a board of 9..26 is a dense ``size * size``-bit integer (``b2`` is 11
on 10x10). A :data:`PASS` (1024, no square on any board) is the move of a side with no legal
move while its opponent has one. The standard start (every even size) has white on the top-left
and bottom-right of the four centre squares (d4 and e5 on 8x8) and black on the other two; black
moves first. Odd sizes have no standard start and are set up from a position.

Text forms
----------
- squares: ``a1``..``h8`` (``a1``..``z26`` on bigger boards: rows of two digits, ``j10``; either
  case) or the zero-based ``row,col`` form (``2,3`` is ``d3``);
- pass: ``pass``, ``PA``, ``pa``, ``0000``, ``@@`` on input (:func:`parse_square`); each protocol
  prints its own one form;
- absolute board strings (:meth:`Board.from_cells`, :meth:`Board.cells`): N*N cells row by row
  from a1, ``-`` or ``.`` empty, ``X``/``B``/``*`` black, ``O``/``W`` white, plus the side to move;
- the player-relative form (:meth:`Board.from_relative`): ``P`` side to move, ``O`` opponent, ``-``;
- OBF lines (:func:`parse_obf`, :func:`format_obf`): ``<cells> <side>; <move>:<score>; ...``;
- UGI FEN (:meth:`Board.from_fen`, :meth:`Board.fen`): ranks joined by ``/``, rank 1 first, ``x``
  black, ``o`` white, digits for runs of empties (a run of 10 or more is written with two digits
  on boards of 9 and more), then ``x`` or ``o`` to move;
- GGF game records (:func:`parse_ggf`, :func:`format_ggf`).

Every parser raises a subclass of :class:`OthelloError` (a ``ValueError``) that quotes its input.

>>> b = Board()
>>> for move in ('f5', 'd6'):
...     _ = b.push_str(move)
>>> print(b)        # X black, O white, * the legal moves of the side to move (black)
  a b c d e f g h
1 . . . . . . . .
2 . . . . . . . .
3 . . * . . . . .
4 . . * O X . . .
5 . . * O X X . .
6 . . * O . . . .
7 . . * . . . . .
8 . . . . . . . .
>>> b.fen()
'8/8/8/3ox3/3oxx2/3o4/8/8 x'
"""

from __future__ import annotations

import operator
import re
from typing import Final, Iterator, Optional, Protocol

from othello_engine import _core

Square = int
"""A square index: ``row * stride(size) + col``; a1 = 0 is the top-left corner (h8 = 63 on 8x8)."""
Bitboard = int
"""A set of squares as an integer, bit ``row * stride(size) + col`` (64 bits up to 8x8)."""
Color = int

BLACK: Final[Color] = 0
WHITE: Final[Color] = 1
PASS: Final[Square] = 1024
"""The pass move (the side to move has no legal move but the opponent has): a value that is no
square on any board. The compiled core's own pass code (64 up to 8x8, ``size * size`` beyond) never
leaves this module and the engine; files that stored 64 for a pass on a board up to 8x8 still read."""
LEGACY_PASS: Final[Square] = 64
"""The pass of boards up to 8x8 before sizes beyond 8 existed (still read as a pass there)."""

PASS_TOKENS: Final = frozenset({"pass", "pa", "0000", "@@", "ps"})
MIN_SIZE: Final = 3
MAX_SIZE: Final = 26
FRAME_SIZE: Final = 8
"""Boards up to this size live in the 64-bit frame of the compiled core."""
STANDARD_SIZES: Final = tuple(range(4, MAX_SIZE + 1, 2))
FILES: Final = "abcdefghijklmnopqrstuvwxyz"


class OthelloError(ValueError):
    """Base class of every error raised for bad input (a ValueError)."""


class InvalidSquareError(OthelloError):
    """A square or move token that cannot be read."""


class IllegalMoveError(OthelloError):
    """A move that is not legal in the position."""


class InvalidBoardError(OthelloError):
    """A board string, FEN, OBF or GGF text that cannot be read, or a bad board size."""


def stride(size: int) -> int:
    """The row stride of square indexes on a size x size board: 8 up to 8x8, the size beyond.

    >>> stride(6), stride(8), stride(10)
    (8, 8, 10)
    """
    return FRAME_SIZE if size <= FRAME_SIZE else size


def square_count(size: int) -> int:
    """Square indexes of a size x size board lie in ``0 .. square_count(size) - 1`` (64 up to 8x8)."""
    return 64 if size <= FRAME_SIZE else size * size


def square_index(row: int, col: int, size: int = 8) -> Square:
    """The square of a zero-based row and column on a size x size board (no range check)."""
    return row * stride(size) + col


def board_mask(size: int) -> Bitboard:
    """The squares of a size x size board as a bitboard.

    >>> board_mask(8) == (1 << 64) - 1, board_mask(10) == (1 << 100) - 1
    (True, True)
    """
    check_size(size)
    return _core.board_mask(size) if size <= FRAME_SIZE else (1 << size * size) - 1


def core_pass(size: int) -> int:
    """The compiled core's pass code on a size x size board: the first index past its frame's
    squares (64 up to 8x8, size * size beyond)."""
    return square_count(size)


def to_core(move: Square, size: int) -> int:
    """A move (square or PASS) as the core takes it on a size x size board."""
    return core_pass(size) if move == PASS else move


def from_core(move: int, size: int) -> Square:
    """A move as the core returns it on a size x size board, PASS for its pass code."""
    return PASS if move == core_pass(size) else move


def legal_moves_of(player: Bitboard, opponent: Bitboard, size: int) -> Bitboard:
    """The legal moves of player as a bitboard (side-relative, trusted input)."""
    if size <= FRAME_SIZE:
        return _core.legal_moves(player, opponent, _core.board_mask(size))
    return _core.legal_moves_n(player, opponent, size)


def play_move(player: Bitboard, opponent: Bitboard, move: Square, size: int) -> tuple[Bitboard, Bitboard]:
    """(player', opponent') after player plays move (a square or PASS), sides swapped: the first
    is the new side to move. The move must be legal (trusted input)."""
    if size <= FRAME_SIZE:
        return _core.make_move(player, opponent, to_core(move, size))
    return _core.make_move_n(player, opponent, to_core(move, size), size)


def perft_count(player: Bitboard, opponent: Bitboard, depth: int, size: int, bulk: bool = False,
                stop: Optional[bytearray] = None) -> int:
    """Leaves of the game tree below a side-relative position at depth plies (the core's perft)."""
    if size <= FRAME_SIZE:
        return _core.perft(player, opponent, depth, _core.board_mask(size), bulk, stop)
    return _core.perft_n(player, opponent, depth, size, bulk, stop)


def square_name(sq: Square, size: int = 8) -> str:
    """Name of a square of a size x size board, ``'a1'`` .. ``'h8'`` (``'z26'`` on 26x26);
    ``'pass'`` for :data:`PASS` (and for 64 on boards up to 8x8, the pass of old files).

    >>> square_name(0), square_name(63), square_name(19), square_name(99, 10), square_name(PASS)
    ('a1', 'h8', 'd3', 'j10', 'pass')
    """
    if sq == PASS:
        return "pass"
    if not isinstance(sq, int) or isinstance(sq, bool):
        raise InvalidSquareError(f"square index {sq!r} is not an integer")
    if size <= FRAME_SIZE:
        if sq == LEGACY_PASS:
            return "pass"
        if not 0 <= sq < 64:
            raise InvalidSquareError(f"square index {sq!r} is out of range 0..63")
        return FILES[sq % 8] + str(sq // 8 + 1)
    check_size(size)
    if not 0 <= sq < size * size:
        raise InvalidSquareError(f"square index {sq!r} is out of range 0..{size * size - 1} "
                                 f"of the {size}x{size} board")
    return FILES[sq % size] + str(sq // size + 1)


def parse_square(text: str, size: int = 8) -> Square:
    """Read a square or pass of a size x size board: ``'d3'``/``'D3'`` (``'j10'``: rows of two
    digits on bigger boards), the zero-based ``'row,col'`` form, or a pass token (``pass``,
    ``PA``, ``pa``, ``0000``, ``@@``), which gives :data:`PASS`.

    >>> parse_square('d3'), parse_square('F5'), parse_square('2,3'), parse_square('PA') == PASS
    (19, 37, 19, True)
    >>> parse_square('j10', 10), parse_square('z26', 26)
    (99, 675)
    """
    if not isinstance(text, str):
        raise InvalidSquareError(f"bad square {text!r}: expected a string")
    check_size(size)
    t = text.strip()
    if t.lower() in PASS_TOKENS:
        return PASS
    step = stride(size)
    last = f"{FILES[size - 1]}{size}"
    m = _ROW_COL.fullmatch(t)
    if m:
        row, col = int(m.group(1)), int(m.group(2))
        if 0 <= row < size and 0 <= col < size:
            return row * step + col
        raise InvalidSquareError(f"bad square {text!r}: row,col must be two numbers in 0..{size - 1}")
    m = _NAMED.fullmatch(t)
    if m:
        col = FILES.index(m.group(1).lower())
        row = int(m.group(2)) - 1
        if 0 <= row < size and col < size:
            return row * step + col
        raise InvalidSquareError(f"bad square {text!r}: not on the {size}x{size} board (a1..{last})")
    raise InvalidSquareError(f"bad square {text!r}: expected a1..{last}, row,col or a pass")


_ROW_COL = re.compile(r"([0-9]{1,2})\s*,\s*([0-9]{1,2})", re.ASCII)
_NAMED = re.compile(r"([a-zA-Z])([0-9]{1,2})", re.ASCII)


def squares(bb: Bitboard) -> Iterator[Square]:
    """The squares of a bitboard in increasing order."""
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


def check_size(size: int) -> int:
    """Return size if it is a board size 3..26, else raise InvalidBoardError."""
    if not isinstance(size, int) or isinstance(size, bool) or not MIN_SIZE <= size <= MAX_SIZE:
        raise InvalidBoardError(f"board size {size!r} is out of range {MIN_SIZE}..{MAX_SIZE}")
    return size


class Board:
    """A position with the game that led to it.

    Discs are kept as absolute bitboards (:attr:`black`, :attr:`white`) with :attr:`turn`; the
    side-relative view the core works with is :attr:`player` / :attr:`opponent`. ``Board()`` is
    the 8x8 standard start (white on d4 and e5, black to move); ``Board(size=6)`` the 6x6 one,
    ``Board(size=10)`` the 10x10 one (white on e5 and f6), any even size 4..26.

    >>> b = Board()
    >>> [square_name(s) for s in b.legal_moves()]
    ['d3', 'c4', 'f5', 'e6']
    >>> b.push_str('f5'); b.turn == WHITE
    37
    True
    """

    def __init__(self, size: int = 8) -> None:
        check_size(size)
        if size % 2:
            raise InvalidBoardError(f"a {size}x{size} board has no standard start; give a position")
        h, n = size // 2 - 1, stride(size)
        white = (1 << (h * n + h)) | (1 << ((h + 1) * n + h + 1))
        black = (1 << (h * n + h + 1)) | (1 << ((h + 1) * n + h))
        self._reset(size, black, white, BLACK)

    def _reset(self, size: int, black: Bitboard, white: Bitboard, turn: Color) -> None:
        self.size = size
        self.mask: Bitboard = board_mask(size)
        self.black = black
        self.white = white
        self.turn = turn
        self.start_black, self.start_white, self.start_turn = black, white, turn
        self.move_stack: list[Square] = []
        self._undo: list[tuple[Bitboard, Bitboard, Color]] = []

    @classmethod
    def from_discs(cls, size: int, black: Bitboard, white: Bitboard, turn: Color) -> Board:
        """A position from absolute bitboards; it becomes the start of the game record."""
        mask = board_mask(size)
        bits = square_count(size)
        for bb in (black, white):
            if not isinstance(bb, int) or not 0 <= bb < 1 << bits:
                raise InvalidBoardError(f"bad bitboard {bb!r}: expected an integer in 0..2**{bits}-1")
        if black & white:
            raise InvalidBoardError("a square holds both a black and a white disc")
        if (black | white) & ~mask:
            raise InvalidBoardError(f"discs lie outside the {size}x{size} board")
        if turn not in (BLACK, WHITE):
            raise InvalidBoardError(f"bad side to move {turn!r}")
        board = cls.__new__(cls)
        board._reset(size, black, white, turn)
        return board

    # --- views ------------------------------------------------------------------------------
    @property
    def player(self) -> Bitboard:
        """Discs of the side to move."""
        return self.black if self.turn == BLACK else self.white

    @property
    def opponent(self) -> Bitboard:
        """Discs of the side not to move."""
        return self.white if self.turn == BLACK else self.black

    @property
    def empties(self) -> int:
        """Number of empty squares."""
        return self.size * self.size - (self.black | self.white).bit_count()

    def legal_moves_mask(self) -> Bitboard:
        """Legal moves of the side to move as a bitboard."""
        if self.size <= FRAME_SIZE:
            return _core.legal_moves(self.player, self.opponent, self.mask)
        return _core.legal_moves_n(self.player, self.opponent, self.size)

    def legal_moves(self) -> list[Square]:
        """Legal moves of the side to move (empty when it must pass or the game is over)."""
        return list(squares(self.legal_moves_mask()))

    def must_pass(self) -> bool:
        """True when the side to move has no move but the opponent has one."""
        if self.size <= FRAME_SIZE:
            return (_core.legal_moves(self.player, self.opponent, self.mask) == 0
                    and _core.legal_moves(self.opponent, self.player, self.mask) != 0)
        return (_core.legal_moves_n(self.player, self.opponent, self.size) == 0
                and _core.legal_moves_n(self.opponent, self.player, self.size) != 0)

    def is_game_over(self) -> bool:
        """True when neither side can move."""
        if self.size <= FRAME_SIZE:
            return (_core.legal_moves(self.player, self.opponent, self.mask) == 0
                    and _core.legal_moves(self.opponent, self.player, self.mask) == 0)
        return (_core.legal_moves_n(self.player, self.opponent, self.size) == 0
                and _core.legal_moves_n(self.opponent, self.player, self.size) == 0)

    def is_legal(self, move: Square) -> bool:
        """True if move (a square or PASS) may be played now."""
        if not isinstance(move, int):
            return False
        if self.size <= FRAME_SIZE:
            if move == PASS or move == LEGACY_PASS:
                return self.must_pass()
            return 0 <= move < 64 and bool(self.legal_moves_mask() >> move & 1)
        if move == PASS:
            return self.must_pass()
        return 0 <= move < self.size * self.size and bool(self.legal_moves_mask() >> move & 1)

    def count(self, color: Color) -> int:
        """Number of discs of color."""
        if isinstance(color, bool) or color not in (BLACK, WHITE):
            raise OthelloError(f"bad colour {color!r}: expected BLACK (0) or WHITE (1)")
        return (self.black if color == BLACK else self.white).bit_count()

    def disc_difference(self) -> int:
        """Final-score disc difference for black (empties to the winner) once the game is over;
        the plain difference of disc counts before."""
        b, w = self.count(BLACK), self.count(WHITE)
        if not self.is_game_over():
            return b - w
        e = self.size * self.size - b - w
        return b - w + (e if b > w else -e if w > b else 0)

    def winner(self) -> Color | None:
        """BLACK or WHITE once the game is over and someone won; None for a draw or a game on."""
        if not self.is_game_over():
            return None
        d = self.disc_difference()
        return BLACK if d > 0 else WHITE if d < 0 else None

    # --- moves ------------------------------------------------------------------------------
    def push(self, move: Square) -> None:
        """Play a legal move (or PASS when forced); raise IllegalMoveError and change nothing if not.
        On boards up to 8x8, 64 (the pass of old files) is taken as PASS."""
        if isinstance(move, bool):
            raise InvalidSquareError(f"bad move {move!r}: expected a square index or PASS")
        try:
            move = operator.index(move)     # numpy integers too
        except TypeError:
            raise InvalidSquareError(f"bad move {move!r}: expected a square index or PASS") from None
        if move == LEGACY_PASS and self.size <= FRAME_SIZE:
            move = PASS
        if not self.is_legal(move):
            if move == PASS:
                why = "the game is over" if self.is_game_over() else "the side to move has a legal move"
                raise IllegalMoveError(f"pass is illegal: {why}")
            name = square_name(move, self.size) if 0 <= move < square_count(self.size) else repr(move)
            raise IllegalMoveError(f"illegal move {name}: " + self._why_illegal(move))
        self._undo.append((self.black, self.white, self.turn))
        if self.size <= FRAME_SIZE:     # inline, not play_move: the 8x8 game loop's hot path
            p, o = _core.make_move(self.player, self.opponent, 64 if move == PASS else move)
        else:
            p, o = play_move(self.player, self.opponent, move, self.size)
        # after make_move, p is the new side to move (the old opponent)
        if self.turn == BLACK:
            self.white, self.black = p, o
        else:
            self.black, self.white = p, o
        self.turn ^= 1
        self.move_stack.append(move)

    def _why_illegal(self, move: Square) -> str:
        if not 0 <= move < square_count(self.size) or not (self.mask >> move) & 1:
            return f"not on the {self.size}x{self.size} board"
        if ((self.black | self.white) >> move) & 1:
            return "the square is occupied"
        if self.is_game_over():
            return "the game is over"
        if self.must_pass():
            return "the side to move must pass"
        return "it flips no disc"

    def push_str(self, text: str) -> Square:
        """Parse and play a move; return it."""
        move = parse_square(text, self.size)
        self.push(move)
        return move

    def pop(self) -> Square:
        """Take back the last move and return it."""
        if not self.move_stack:
            raise IndexError("pop from a board with no moves played")
        self.black, self.white, self.turn = self._undo.pop()
        return self.move_stack.pop()

    def copy(self) -> Board:
        """An independent copy, game record included."""
        board = Board.__new__(Board)
        board.__dict__.update(self.__dict__)
        board.move_stack = list(self.move_stack)
        board._undo = list(self._undo)
        return board

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self.size, self.black, self.white, self.turn) == (
            other.size, other.black, other.white, other.turn)

    def __hash__(self) -> int:
        return hash((self.size, self.black, self.white, self.turn))

    # --- text ---------------------------------------------------------------------------------
    def cells(self) -> str:
        """The board row by row from a1: ``X`` black, ``O`` white, ``-`` empty (size*size chars)."""
        out = []
        n = stride(self.size)
        for r in range(self.size):
            for c in range(self.size):
                bit = 1 << (r * n + c)
                out.append("X" if self.black & bit else "O" if self.white & bit else "-")
        return "".join(out)

    def __str__(self) -> str:
        # row numbers of two digits on boards of 10 and more: labels right-aligned to one width
        width = len(str(self.size))
        files = " " * (width + 1) + " ".join(FILES[: self.size])
        rows = [files]
        legal = self.legal_moves_mask()
        n = stride(self.size)
        for r in range(self.size):
            line = []
            for c in range(self.size):
                bit = 1 << (r * n + c)
                line.append("X" if self.black & bit else "O" if self.white & bit
                            else "*" if legal & bit else ".")
            rows.append(f"{r + 1:>{width}} " + " ".join(line))
        return "\n".join(rows)

    def __repr__(self) -> str:
        side = "X" if self.turn == BLACK else "O"
        return f"Board({self.cells()!r} {side})"

    # --- formats ------------------------------------------------------------------------------
    @classmethod
    def from_cells(cls, cells: str, side: str) -> Board:
        """A position from an absolute board string and the side to move.

        cells: size*size characters row by row from a1 (whitespace ignored): ``-`` or ``.`` empty;
        ``B``, ``X``, ``*`` black; ``W``, ``O`` white (case-insensitive). side: ``b``/``x``/``*``
        /``black`` or ``w``/``o``/``white``. The size is inferred from the length (9..676 squares).

        >>> Board.from_cells('-' * 27 + 'OX' + '-' * 6 + 'XO' + '-' * 27, 'b') == Board()
        True
        """
        size, black, white = _read_cells(cells, "bad board string", "BbXx*", "WwOo")
        return cls.from_discs(size, black, white, parse_side(side))

    @classmethod
    def from_relative(cls, cells: str, turn: Color = BLACK) -> Board:
        """A position from the player-relative form: ``P`` the side to move, ``O`` the opponent,
        ``-`` or ``.`` empty; turn says which colour the side to move is."""
        size, p, o = _read_cells(cells, "bad relative board", "Pp", "Oo")
        return cls.from_discs(size, p, o, turn) if turn == BLACK else cls.from_discs(size, o, p, turn)

    def relative_cells(self) -> str:
        """The board row by row in the player-relative form (``P`` side to move, ``O``, ``-``)."""
        table = {"X": "P", "O": "O"} if self.turn == BLACK else {"X": "O", "O": "P"}
        return "".join(table.get(ch, "-") for ch in self.cells())

    @classmethod
    def from_fen(cls, fen: str) -> Board:
        """A position from a UGI FEN: ranks joined by ``/``, rank 1 first, files a.., ``x`` black,
        ``o`` white, digits for runs of empties, then ``x`` or ``o`` for the side to move. The size
        is the number of ranks (3..26), each of that many squares. On boards up to 8x8 each digit
        is a run of its own (as ever); from 9x9 on, a run of digits is one number (``10``, ``26``).
        Trailing numeric fields (move counters) are accepted and ignored.

        >>> Board.from_fen('10/10/10/10/4ox4/4xo4/10/10/10/10 x') == Board(10)
        True

        >>> Board.from_fen('8/8/8/3ox3/3xo3/8/8/8 x') == Board()
        True
        """
        parts = fen.split() if isinstance(fen, str) else []
        if len(parts) < 2 or not all(re.fullmatch(r"[0-9]+", p, re.ASCII) for p in parts[2:]):
            raise InvalidBoardError(f"bad FEN {clip_text(str(fen))!r}: expected '<ranks> <x|o>'")
        ranks = parts[0].split("/")
        size = len(ranks)
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise InvalidBoardError(f"bad FEN {clip_text(fen, 100)!r}: {size} ranks, expected {MIN_SIZE}..{MAX_SIZE}")
        for r, rank in enumerate(ranks):   # a stray character is named before any length is checked
            stray = _FEN_STRAY.search(rank)
            if stray:
                raise InvalidBoardError(f"bad FEN {clip_text(fen, 100)!r}: stray character "
                                        f"{stray.group()!r} in rank {r + 1}")
        n = stride(size)
        runs = _FEN_RUN_WIDE if size > FRAME_SIZE else _FEN_RUN
        black = white = 0
        for r, rank in enumerate(ranks):
            c = 0
            for m in runs.finditer(rank):
                ch = m.group()
                if len(ch) > 2:     # never more than 26 empties: no int() of a huge digit run
                    raise InvalidBoardError(f"bad FEN {clip_text(fen, 100)!r}: a run of {clip_text(ch, 12)} "
                                            f"empties in rank {r + 1}, longer than the rank ({size})")
                if ch[0] in "123456789" and (size > FRAME_SIZE or ch != "9"):
                    c += int(ch)
                elif ch in "xXoO":
                    if c >= size:
                        raise InvalidBoardError(f"bad FEN {clip_text(fen, 100)!r}: rank {r + 1} is longer than {size}")
                    if ch in "xX":
                        black |= 1 << (r * n + c)
                    else:
                        white |= 1 << (r * n + c)
                    c += 1
                else:
                    raise InvalidBoardError(f"bad FEN {clip_text(fen, 100)!r}: stray character {ch[0]!r} in rank {r + 1}")
            if c != size:
                raise InvalidBoardError(f"bad FEN {clip_text(fen, 100)!r}: rank {r + 1} has {c} squares, expected {size}")
        if parts[1] not in ("x", "o", "X", "O"):
            raise InvalidBoardError(f"bad FEN {clip_text(fen, 100)!r}: side to move must be x or o")
        return cls.from_discs(size, black, white, BLACK if parts[1] in "xX" else WHITE)

    def fen(self) -> str:
        """The UGI FEN of the position (see :meth:`from_fen`)."""
        ranks = []
        n = stride(self.size)
        for r in range(self.size):
            out, run = [], 0
            for c in range(self.size):
                bit = 1 << (r * n + c)
                ch = "x" if self.black & bit else "o" if self.white & bit else ""
                if ch:
                    if run:
                        out.append(str(run))
                        run = 0
                    out.append(ch)
                else:
                    run += 1
            if run:
                out.append(str(run))
            ranks.append("".join(out))
        return "/".join(ranks) + (" x" if self.turn == BLACK else " o")

    def replay(self) -> Board:
        """A new board at this game's start position (no moves played)."""
        return Board.from_discs(self.size, self.start_black, self.start_white, self.start_turn)


_FEN_RUN = re.compile(r".", re.S)
_FEN_RUN_WIDE = re.compile(r"[0-9]+|.", re.S)
_FEN_STRAY = re.compile(r"[^0-9xXoO]")


class _Chooser(Protocol):
    def choice(self, seq: list[Square]) -> Square: ...


def random_moves(board: Board, plies: int, rng: _Chooser) -> list[Square]:
    """Play up to ``plies`` moves on ``board``, each chosen by ``rng.choice`` among the legal ones
    (a ``random.Random``), stopping early where the side to move has none (no pass is made);
    returns the moves played. The random lines of the scripts and tests (openings, positions)."""
    played: list[Square] = []
    for _ in range(plies):
        legal = board.legal_moves()
        if not legal:
            break
        move = rng.choice(legal)
        board.push(move)
        played.append(move)
    return played


def _read_cells(cells: str, what: str, first: str, second: str) -> tuple[int, Bitboard, Bitboard]:
    """Read a board string (whitespace ignored, ``-``/``.`` empty): its size and the bitboards of
    the characters in first and in second; any other character is an error quoting the text."""
    if not isinstance(cells, str):
        raise InvalidBoardError(f"{what} {cells!r}: expected a string")
    text = "".join(cells.split())
    size = _size_from_length(len(text), cells)
    n = stride(size)
    a = b = 0
    for i, ch in enumerate(text):
        bit = 1 << ((i // size) * n + i % size)
        if ch in first:
            a |= bit
        elif ch in second:
            b |= bit
        elif ch not in "-.":
            raise InvalidBoardError(f"{what} {clip_text(cells, 100)!r}: stray character {ch!r} at {i}")
    return size, a, b


def _size_from_length(n: int, text: str) -> int:
    size = int(round(n ** 0.5))
    if size * size != n or not MIN_SIZE <= size <= MAX_SIZE:
        raise InvalidBoardError(f"bad board string {clip_text(text, 100)!r}: {n} cells is not a square board "
                                f"of side {MIN_SIZE}..{MAX_SIZE}")
    return size


def parse_side(text: str) -> Color:
    """Read a side to move: ``b``/``x``/``*``/``black`` is BLACK, ``w``/``o``/``white`` is WHITE."""
    if not isinstance(text, str):
        raise InvalidBoardError(f"bad side to move {text!r}: expected b, w, x or o")
    t = text.strip().lower()
    if t in ("b", "x", "*", "black"):
        return BLACK
    if t in ("w", "o", "white"):
        return WHITE
    raise InvalidBoardError(f"bad side to move {text!r}: expected b, w, x or o")


def clip_text(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."



# --- symmetries ----------------------------------------------------------------------------------

SYMMETRY_INVERSE: Final = (0, 1, 2, 3, 4, 6, 5, 7)
"""SYMMETRY_INVERSE[k] undoes symmetry k (only the two quarter turns, 5 and 6, differ)."""


def transform_square(sq: Square, k: int, size: int = 8) -> Square:
    """Image of a square under symmetry k of a size x size board (see ``_core.symmetry``);
    PASS maps to PASS.

    >>> square_name(transform_square(parse_square('a1'), 1)), square_name(transform_square(0, 3, 6))
    ('h1', 'f6')
    """
    if sq == PASS:
        return PASS
    check_size(size)
    if not isinstance(k, int) or not 0 <= k < 8:
        raise ValueError(f"symmetry {k!r} is out of range 0..7")
    n = stride(size)
    if not isinstance(sq, int) or not 0 <= sq < n * n or sq % n >= size or sq // n >= size:
        raise InvalidSquareError(f"square {sq!r} is not on the {size}x{size} board")
    if size <= FRAME_SIZE:
        return _core.symmetry(1 << sq, k, size).bit_length() - 1
    return _core.symmetry_n(1 << sq, k, size).bit_length() - 1


def canonical(player: Bitboard, opponent: Bitboard, size: int = 8) -> tuple[Bitboard, Bitboard, int]:
    """The least of the 8 symmetric images of a side-relative position (ordered by player, then
    opponent) and the symmetry k that produces it; map a canonical move back with
    ``transform_square(move, SYMMETRY_INVERSE[k], size)``.

    >>> b = Board(); _ = b.push_str('f5')
    >>> p, o, k = canonical(b.player, b.opponent)
    >>> c = Board(); _ = c.push_str('d3')      # d3 is f5 turned about the diagonal
    >>> canonical(c.player, c.opponent)[:2] == (p, o)
    True
    """
    mask = board_mask(size)
    for name, bb in (("player", player), ("opponent", opponent)):
        if not isinstance(bb, int) or not 0 <= bb < 1 << square_count(size) or bb & ~mask:
            raise InvalidBoardError(f"bad {name} bitboard {bb!r}: discs off the {size}x{size} board")
    if player & opponent:
        raise InvalidBoardError(f"bad position: player and opponent overlap on {player & opponent:#x}")
    if size <= FRAME_SIZE:
        return _core.canonical(player, opponent, size)
    return _core.canonical_n(player, opponent, size)
