"""The training files: game records, position lines, and reading them back (plain or gzip, resumable)."""

from __future__ import annotations

import gzip
import io
import os
import re
from typing import IO, Callable, Iterator, Optional

from othello_engine import _core
from othello_engine.board import BLACK, PASS, Board, OthelloError, clip_text, parse_square, square_name
from othello_engine.notation import move_tokens
from othello_engine.resumable import CUT_STREAM, is_gzip, settle

POSITION_WIDTH = 77
"""A position line: 64 cells, space, result (%+03d), space, search score (%+07d centi-discs, or
'      -' when there is none), newline: fixed width, so that fit reads a file with numpy at once.
Another board size has size * size cells (:func:`position_width`)."""
NO_SCORE = "      -"
_POSITION_LINE = re.compile(r"[XO-]{64} [+-]\d\d (?:[+-]\d{6}|      -)\n?")
_POSITION_LINE_N = re.compile(r"([XO-]+) [+-]\d{2,3} (?:[+-]\d{6}|      -)\n?")


def position_width(size: int = 8) -> int:
    """The bytes of a position line of a size x size board (newline included).

    >>> position_width(8), position_width(10)
    (77, 114)
    """
    return size * size + 13 + (1 if size > 8 else 0)


def position_line(cells: str, result: int, score: Optional[int] = None, size: int = 8) -> str:
    """A position line (see POSITION_WIDTH): the cells, the result for the side to move, and the
    search score clipped to +-9999 centi-discs (None: no score).

    >>> position_line("-" * 64, 2, 12345)[64:]
    ' +02 +009999\\n'
    """
    text = NO_SCORE if score is None else f"{max(-9999, min(9999, score)):+07d}"
    return f"{cells} {result:+0{3 if size <= 8 else 4}d} {text}\n"


def check_position_line(line: str, path: str, number: int, size: int = 8) -> None:
    r"""ValueError naming the file and line unless ``line`` is a position line (see POSITION_WIDTH).

    >>> check_position_line("-" * 64 + " +02       -\n", "t.txt", 1)
    >>> check_position_line("f5d6c3 +12 60", "g.txt", 3)
    Traceback (most recent call last):
    ...
    ValueError: g.txt line 3: not a position line (64 cells X/O/-, the result, the score); a game file? (othello-train testset makes a test set of one)
    """
    if not _is_position_line(line, size):
        raise ValueError(f"{path} line {number}: not a position line (64 cells X/O/-, the result, the score); "
                         "a game file? (othello-train testset makes a test set of one)")


# --- files ---------------------------------------------------------------------------------------
def open_text(path: str, mode: str = "r") -> IO[str]:
    """A text file, gzip-compressed when its name ends in .gz. Reading a gzip file whose stream
    ends early or is damaged raises ValueError naming the file (an interrupted run's output that
    no run resumed), not the decompressor's own EOFError."""
    if is_gzip(path):
        binary = mode.replace("t", "") + "b"
        gz = _CheckedGzip(path, binary) if binary.startswith("r") else gzip.GzipFile(path, binary)
        return io.TextIOWrapper(gz, encoding="ascii")
    return open(path, mode, encoding="ascii")


class _CheckedGzip(gzip.GzipFile):
    """A gzip file read with a stream cut short or damaged reported as ValueError."""

    def read(self, size: Optional[int] = -1) -> bytes:
        try:
            return super().read(size)
        except CUT_STREAM:
            raise ValueError(self._broken()) from None

    def read1(self, size: int = -1) -> bytes:
        try:
            return super().read1(size)
        except CUT_STREAM:
            raise ValueError(self._broken()) from None

    def _broken(self) -> str:
        return (f"{self.name}: the gzip stream is cut short or damaged (the output of an interrupted "
                f"run? the command that wrote it, run again, repairs it)")


def check_resumable(path: str, kind: str, size: int = 8) -> None:
    """ValueError naming the file unless an output file that a step would resume holds lines of
    ``kind`` (``"game"`` or ``"position"``): its first whole line, and for a plain file its last
    one too, are checked. Resuming counts and may cut a file's lines, so a file of anything else
    (another step's output, a text of the user's) is refused and left as it is. A missing or empty
    file passes; so does a last line cut short, which the resume drops."""
    if not os.path.exists(path):
        return
    valid = _is_game_line if kind == "game" else _is_position_line
    with open(path, "rb") as raw:
        if is_gzip(path):
            try:
                with gzip.GzipFile(fileobj=raw) as f:
                    lines = [f.readline(1 << 16)]
            except (EOFError, OSError):
                lines = [b""]
        else:
            head = raw.read(1 << 16)
            raw.seek(max(0, os.fstat(raw.fileno()).st_size - (1 << 16)))
            tail = raw.read()
            lines = [head[:head.find(b"\n") + 1]]
            whole = tail[:tail.rfind(b"\n") + 1]
            lines.append(whole[whole.rfind(b"\n", 0, len(whole) - 1) + 1:])
    for line in lines:
        if not line.endswith(b"\n"):
            continue        # nothing whole there (an empty file, or a last line cut short)
        try:
            text = line.decode("ascii")
        except UnicodeDecodeError:
            text = ""
        if not valid(text, size):
            raise ValueError(f"{path}: not a file of {kind} lines to resume (it holds "
                             f"{clip_text(text.strip() or repr(line[:40]))!r}); give another output "
                             f"file, it is left as it is")


def settle_output(path: str, kind: str, size: int = 8, keep: Optional[int] = None) -> int:
    """Settle a step's output file of ``kind`` lines before the step appends (see
    :func:`othello_engine.resumable.settle`: a cut last line dropped, a cut gzip stream written
    again, ``keep`` lines kept) and return how many lines it holds. ValueError, the file left as
    it is, for a file of other lines (:func:`check_resumable`), a file named .gz that is not gzip,
    or one whose only text could not begin such a line (NotResumable)."""
    check_resumable(path, kind, size)
    pattern = _GAME_START if kind == "game" else _position_start(size)
    return settle(path, keep, compressed=is_gzip(path),
                  line_start=lambda head: pattern.fullmatch(head) is not None)


_GAME_START = re.compile(rb"[A-Za-z0-9,.\-]*(?: (?:[+-]?\d*(?: \d*)?)?)?")
"""What a game line cut short can hold: moves, then the result, then the solve empties."""


def _position_start(size: int) -> re.Pattern[bytes]:
    """What a position line cut short can hold: cells, then the result, then the score."""
    n = size * size
    return re.compile(rb"[XO-]{0,%d}|[XO-]{%d} (?:[+-]\d{0,3}(?: (?:[+-]\d{0,6}| {0,6}-?)?)?)?"
                      % (n, n))


def _is_position_line(line: str, size: int) -> bool:
    m = _POSITION_LINE.fullmatch(line) if size == 8 else _POSITION_LINE_N.fullmatch(line)
    return m is not None and (size == 8 or len(m.group(1)) == size * size)


def _is_game_line(line: str, size: int) -> bool:
    try:
        parse_game(line, size)
    except ValueError:
        return False
    return True


# --- game records ----------------------------------------------------------------------------------
def game_lines(path: str, errors: Optional[Callable[[str], None]] = None) -> list[str]:
    """The game record lines of a game file (plain or gzip; blank lines left out), or of a WTHOR
    database (``.wtb``): each of its games as ``<moves> <black disc difference> 0``, the result as
    the database records it and no exact part (solve 0: every position may get a search score).
    A bad WTHOR game is left out and reported through ``errors`` (one line naming the file and the
    game); without ``errors``, ValueError."""
    from othello_engine.games.files import BadGame, game_line, read_games
    from othello_engine.wthor import is_wthor_path
    if not is_wthor_path(path):
        with open_text(path) as f:
            return [line for line in f if line.strip()]
    lines = []
    for entry in read_games(path):
        if isinstance(entry, BadGame):
            if errors is None:
                raise ValueError(str(entry))
            errors(str(entry))
            continue
        try:
            lines.append(game_line(entry, "train") + "\n")
        except OthelloError as exc:
            if errors is None:
                raise ValueError(f"{path}: game {entry.number}: {exc}") from None
            errors(f"{path}: game {entry.number}: {exc}")
    return lines


def parse_game(line: str, size: int = 8) -> tuple[list[int], int, int]:
    """(moves, black disc difference, solve empties) of a record line. The moves are read with the
    package's one move-list grammar (:mod:`othello_engine.notation`); the records the pipeline
    writes leave every pass out.

    >>> parse_game("f5d6c3 +2 18")
    ([37, 43, 18], 2, 18)
    """
    parts = line.split()
    if len(parts) != 3:
        raise ValueError(f"bad game record {clip_text(line.strip())!r}: expected <moves> <result> <solve>")
    try:
        moves = [parse_square(token, size) for token in move_tokens(parts[0], size)]
    except OthelloError as exc:
        raise ValueError(f"bad game record {clip_text(line.strip())!r}: {exc}") from None
    return moves, int(parts[1]), int(parts[2])


def game_positions(moves: list[int], size: int = 8) -> Iterator[tuple[int, int, int]]:
    """(player, opponent, sign) before each move of the game and at its end; sign is +1 when Black
    is to move. A forced pass is made where the record leaves it out (an explicit pass is taken
    the same way, and yields no position of its own). Boards and moves of a size x size board are
    numbered as :mod:`othello_engine.board` numbers them.

    >>> [sign for _, _, sign in game_positions([37, 43])]
    [1, -1, 1]
    """
    start = Board(size)
    P, O = start.player, start.opponent
    sign = 1
    for move in moves:
        if not _core.legal_moves_n(P, O, size):
            P, O, sign = O, P, -sign
            if move == PASS:
                continue
        elif move == PASS:
            raise ValueError("a pass in a game record where the side to move has a legal move")
        yield P, O, sign
        if not (_core.legal_moves_n(P, O, size) >> move) & 1:
            raise ValueError(f"illegal move {square_name(move, size)} in a game record")
        P, O = _core.make_move_n(P, O, move, size)
        sign = -sign
    yield P, O, sign


def game_plies(line: str, size: int = 8) -> int:
    """How many positions of a game record get a position line (one before each move, passes
    implied)."""
    moves, _, _ = parse_game(line, size)
    return sum(1 for _ in game_positions(moves, size)) - 1


# --- positions -------------------------------------------------------------------------------------
def _squares(size: int) -> list[int]:
    """The squares of a size x size board in row order (the cells of a position line)."""
    st = 8 if size <= 8 else size
    return [r * st + c for r in range(size) for c in range(size)]


def cells_of(P: int, O: int, size: int = 8) -> str:
    """The cells a1..h8 (size x size cells in row order on another size), X for the side to move,
    O for its opponent, - for empty."""
    if size == 8:
        return "".join("X" if (P >> i) & 1 else "O" if (O >> i) & 1 else "-" for i in range(64))
    return "".join("X" if (P >> i) & 1 else "O" if (O >> i) & 1 else "-" for i in _squares(size))


def board_of(P: int, O: int, size: int = 8) -> Board:
    """The size x size board with P to move (as Black)."""
    return Board.from_discs(size, P, O, BLACK)


def parse_cells(text: str, size: int = 8) -> tuple[int, int]:
    """(player, opponent) bitboards of the cells written by :func:`cells_of`."""
    P = O = 0
    for i, c in zip(_squares(size), text) if size != 8 else enumerate(text):
        if c == "X":
            P |= 1 << i
        elif c == "O":
            O |= 1 << i
    return P, O


def read_positions(path: str, size: int = 8):
    """(P, O, result, score, empties) numpy arrays of a position file; score is NaN where absent.
    On another size than 8x8, P and O are arrays of Python ints (the board's numbering)."""
    import numpy as np
    width = position_width(size)
    with open_text(path) as f:
        raw = f.read().encode("ascii")
    a = np.frombuffer(raw, dtype=np.uint8)
    if len(a) % width or (len(a) and a[width - 1] != ord("\n")):
        raise ValueError(f"{path}: not a position file of {width}-byte lines ({size}x{size} positions)")
    a = a.reshape(-1, width)
    cells_n = size * size
    cells = a[:, :cells_n]
    r = cells_n + 1                         # the result's first byte
    rw = 3 if size <= 8 else 4
    result = _ints(a[:, r:r + rw])
    score = np.full(len(a), np.nan)
    s0 = r + rw + 1
    has = a[:, s0 + 6] != ord("-")
    score[has] = _ints(a[has][:, s0:s0 + 7]) / 100.0
    empties = cells_n - (cells != ord("-")).sum(axis=1)
    if size == 8:
        # cell i is bit i: packed little-endian, eight cells a byte, eight bytes a board (a byte
        # a cell at most while packing, where a product by the bit weights took eight)
        P = np.packbits(cells == ord("X"), axis=1, bitorder="little").view("<u8").ravel()
        O = np.packbits(cells == ord("O"), axis=1, bitorder="little").view("<u8").ravel()
        return P.astype(np.uint64), O.astype(np.uint64), result, score, empties
    # bit i of the board's numbering for the i-th cell: a little-endian bit string per row
    stride = 8 if size <= 8 else size
    nbits = stride * (size - 1) + size
    order = np.array(_squares(size))
    bits_p = np.zeros((len(a), nbits), dtype=np.uint8)
    bits_o = np.zeros((len(a), nbits), dtype=np.uint8)
    bits_p[:, order] = cells == ord("X")
    bits_o[:, order] = cells == ord("O")
    bp = np.packbits(bits_p, axis=1, bitorder="little")
    bo = np.packbits(bits_o, axis=1, bitorder="little")
    P = np.array([int.from_bytes(row.tobytes(), "little") for row in bp], dtype=object)
    O = np.array([int.from_bytes(row.tobytes(), "little") for row in bo], dtype=object)
    return P, O, result, score, empties


def _ints(field):
    """Signed decimal numbers written with a sign and zero padding, one row each."""
    import numpy as np
    digits = field[:, 1:].astype(np.int64) - ord("0")
    value = np.zeros(len(field), dtype=np.int64)
    for k in range(digits.shape[1]):
        value = value * 10 + digits[:, k]
    return np.where(field[:, 0] == ord("-"), -value, value).astype(np.float64)
