"""Positions, squares and notation: the Board type and the text forms of squares and moves."""

from __future__ import annotations

from typing import Final, Iterator

from othello_engine import _core

Square = int
"""A square index 0..63: ``row * 8 + col``, a1 = 0 is the top-left corner, h8 = 63."""
Bitboard = int
"""A set of squares as a 64-bit integer, bit ``row * 8 + col``."""
Color = int

BLACK: Final[Color] = 0
WHITE: Final[Color] = 1
PASS: Final[Square] = 64
"""The pass move (the side to move has no legal move but the opponent has)."""

PASS_TOKENS: Final = frozenset({"pass", "pa", "0000", "@@", "ps"})
MIN_SIZE: Final = 3
MAX_SIZE: Final = 8
STANDARD_SIZES: Final = (4, 6, 8)
FILES: Final = "abcdefgh"


class OthelloError(ValueError):
    """Base class of every error raised for bad input (a ValueError)."""


class InvalidSquareError(OthelloError):
    """A square or move token that cannot be read."""


class IllegalMoveError(OthelloError):
    """A move that is not legal in the position."""


class InvalidBoardError(OthelloError):
    """A board string, FEN, OBF or GGF text that cannot be read, or a bad board size."""


def square_name(sq: Square) -> str:
    """Name of a square, ``'a1'`` .. ``'h8'``; ``'pass'`` for :data:`PASS`.

    >>> square_name(0), square_name(63), square_name(19)
    ('a1', 'h8', 'd3')
    """
    if sq == PASS:
        return "pass"
    if not 0 <= sq < 64:
        raise InvalidSquareError(f"square index {sq!r} is out of range 0..63")
    return FILES[sq % 8] + str(sq // 8 + 1)


def parse_square(text: str, size: int = 8) -> Square:
    """Read a square or pass: ``'d3'``/``'D3'``, the zero-based ``'row,col'`` form, or a pass token
    (``pass``, ``PA``, ``pa``, ``0000``, ``@@``), which gives :data:`PASS`.

    >>> parse_square('d3'), parse_square('F5'), parse_square('2,3'), parse_square('PA')
    (19, 37, 19, 64)
    """
    t = text.strip()
    if t.lower() in PASS_TOKENS:
        return PASS
    if "," in t:
        parts = t.split(",")
        if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
            row, col = int(parts[0]), int(parts[1])
            if 0 <= row < size and 0 <= col < size:
                return row * 8 + col
        raise InvalidSquareError(f"bad square {text!r}: row,col must be two numbers in 0..{size - 1}")
    if len(t) in (2, 3) and t[0].lower() in FILES and t[1:].isdigit():
        col = FILES.index(t[0].lower())
        row = int(t[1:]) - 1
        if 0 <= row < size and col < size:
            return row * 8 + col
    raise InvalidSquareError(f"bad square {text!r}: expected a1..{FILES[size - 1]}{size} or a pass")


def squares(bb: Bitboard) -> Iterator[Square]:
    """The squares of a bitboard in increasing order."""
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


def check_size(size: int) -> int:
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise InvalidBoardError(f"board size {size!r} is out of range {MIN_SIZE}..{MAX_SIZE}")
    return size


class Board:
    """A position with the game that led to it.

    Discs are kept as absolute bitboards (:attr:`black`, :attr:`white`) with :attr:`turn`; the
    side-relative view the core works with is :attr:`player` / :attr:`opponent`. ``Board()`` is
    the 8x8 standard start (white on d4 and e5, black to move); ``Board(size=6)`` the 6x6 one.

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
        h = size // 2 - 1
        white = (1 << (h * 8 + h)) | (1 << ((h + 1) * 8 + h + 1))
        black = (1 << (h * 8 + h + 1)) | (1 << ((h + 1) * 8 + h))
        self._reset(size, black, white, BLACK)

    def _reset(self, size: int, black: Bitboard, white: Bitboard, turn: Color) -> None:
        self.size = size
        self.mask: Bitboard = _core.board_mask(size)
        self.black = black
        self.white = white
        self.turn = turn
        self.start_black, self.start_white, self.start_turn = black, white, turn
        self.move_stack: list[Square] = []
        self._undo: list[tuple[Bitboard, Bitboard, Color]] = []

    @classmethod
    def from_discs(cls, size: int, black: Bitboard, white: Bitboard, turn: Color) -> Board:
        """A position from absolute bitboards; it becomes the start of the game record."""
        check_size(size)
        mask = _core.board_mask(size)
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
        return self.size * self.size - _core.popcount(self.black | self.white)

    def legal_moves_mask(self) -> Bitboard:
        return _core.legal_moves(self.player, self.opponent, self.mask)

    def legal_moves(self) -> list[Square]:
        """Legal moves of the side to move (empty when it must pass or the game is over)."""
        return list(squares(self.legal_moves_mask()))

    def must_pass(self) -> bool:
        """True when the side to move has no move but the opponent has one."""
        return (self.legal_moves_mask() == 0
                and _core.legal_moves(self.opponent, self.player, self.mask) != 0)

    def is_game_over(self) -> bool:
        """True when neither side can move."""
        return (self.legal_moves_mask() == 0
                and _core.legal_moves(self.opponent, self.player, self.mask) == 0)

    def is_legal(self, move: Square) -> bool:
        if move == PASS:
            return self.must_pass()
        return 0 <= move < 64 and bool(self.legal_moves_mask() >> move & 1)

    def count(self, color: Color) -> int:
        return _core.popcount(self.black if color == BLACK else self.white)

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
        """Play a legal move (or PASS when forced); raise IllegalMoveError and change nothing if not."""
        if not self.is_legal(move):
            if move == PASS:
                why = "the game is over" if self.is_game_over() else "the side to move has a legal move"
                raise IllegalMoveError(f"pass is illegal: {why}")
            name = square_name(move) if 0 <= move < 64 else repr(move)
            raise IllegalMoveError(f"illegal move {name}: " + self._why_illegal(move))
        self._undo.append((self.black, self.white, self.turn))
        p, o = _core.make_move(self.player, self.opponent, move)
        # after make_move, p is the new side to move (the old opponent)
        if self.turn == BLACK:
            self.white, self.black = p, o
        else:
            self.black, self.white = p, o
        self.turn ^= 1
        self.move_stack.append(move)

    def _why_illegal(self, move: Square) -> str:
        if not 0 <= move < 64 or not (self.mask >> move) & 1:
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
        for r in range(self.size):
            for c in range(self.size):
                bit = 1 << (r * 8 + c)
                out.append("X" if self.black & bit else "O" if self.white & bit else "-")
        return "".join(out)

    def __str__(self) -> str:
        files = "  " + " ".join(FILES[: self.size])
        rows = [files]
        legal = self.legal_moves_mask()
        for r in range(self.size):
            line = []
            for c in range(self.size):
                bit = 1 << (r * 8 + c)
                line.append("X" if self.black & bit else "O" if self.white & bit
                            else "*" if legal & bit else ".")
            rows.append(f"{r + 1} " + " ".join(line))
        return "\n".join(rows)

    def __repr__(self) -> str:
        side = "X" if self.turn == BLACK else "O"
        return f"Board({self.cells()!r} {side})"
