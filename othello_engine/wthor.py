"""WTHOR: the one reader and writer of the French federation's game database files (.wtb, .JOU, .TRN).

Every file has a 16-byte header (little-endian): the file's creation century, year, month and day
(a byte each); N1, the number of games (int32); N2, the number of names (int16, name files only);
the year of the games (int16); P1, the board size (0 or 8: 8x8, 10: 10x10); P2, the game type (1:
solitaires, not read here); P3, the number of empties at which the theoretical score starts (0
stands for 22); a reserved byte. A game file (``WTH_1990.wtb``, ``.wtd`` for 10x10) holds N1
records of 68 bytes (104 on 10x10): the tournament, black player and white player numbers (uint16
each), Black's disc count at the end, Black's disc count under perfect play from P3 empties, then
the moves (60, or 96 on 10x10), each ``10 * row + col`` (``12 * row + col`` on 10x10) with rows and
columns counted from 1 (a1 = 11, f5 = 56), 0 after the last move. Passes are left out. The name
files ``WTHOR.JOU`` (players) and ``WTHOR.TRN`` (tournaments) hold N2 names of 20 and 26 bytes,
Latin-1, padded with zero bytes.

Bad input is reported game by game (:class:`BadGame`, numbered from 1) and the rest is read: a
truncated last record, a header count that disagrees with the file's size, a move that is not a
square or not legal, a player or tournament number beyond the name file.

>>> g = WthorGame(1, 2, 3, 33, 32, bytes([56, 64]) + bytes(58))
>>> data = format_wthor(WthorHeader(game_year=2001), [g])
>>> len(data), parse_wthor(data).games == [g]
(84, True)
>>> moves, final = replay_game(g, 8)
>>> [square_name(m) for m in moves], final
(['f5', 'd6'], None)
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from typing import Iterator, NamedTuple, Optional, Sequence, Union

from othello_engine import _core
from othello_engine.board import PASS, Board, OthelloError, Square, legal_moves_of, square_name
from othello_engine.ggf import GameRecord

HEADER_SIZE = 16
PLAYER_NAME_SIZE = 20
TOURNAMENT_NAME_SIZE = 26
DEFAULT_DEPTH = 22
"""The depth of the theoretical score when the header says 0."""
_HEADER = struct.Struct("<4BiHH4B")
_RECORD_HEAD = struct.Struct("<3H2B")
_MOVES = {8: 60, 10: 96}
_CODE_ROW = {8: 10, 10: 12}
"""A move is ``_CODE_ROW[size] * row + col``, rows and columns from 1."""


class WthorError(OthelloError):
    """A file that cannot be read as WTHOR at all (no header, a header of no known kind)."""


class WthorHeader(NamedTuple):
    """The 16-byte header of every WTHOR file, field by field (see the module's docstring)."""

    century: int = 20
    year: int = 0
    month: int = 1
    day: int = 1
    games: int = 0
    names: int = 0
    game_year: int = 0
    board_size: int = 8
    game_type: int = 0
    depth: int = DEFAULT_DEPTH
    reserved: int = 0

    @property
    def size(self) -> int:
        """The board size of the games: 8 or 10."""
        return 10 if self.board_size == 10 else 8

    @property
    def score_empties(self) -> int:
        """The empties of the position the theoretical score is the perfect-play result of."""
        return self.depth or DEFAULT_DEPTH

    def pack(self) -> bytes:
        return _HEADER.pack(*self)


class WthorGame(NamedTuple):
    """One game record as stored: the name numbers, Black's discs at the end and under perfect play
    (see :attr:`WthorHeader.depth`), and the move bytes, 0 after the last move."""

    tournament: int
    black: int
    white: int
    black_discs: int
    theoretical: int
    moves: bytes


@dataclass(frozen=True)
class BadGame:
    """A game that could not be read or played: its number in the file (from 1), and why."""

    index: int
    reason: str

    def __str__(self) -> str:
        return f"game {self.index}: {self.reason}"


@dataclass
class WthorFile:
    """A game file read: its header, its whole records in order, and what was wrong with the rest
    (a truncated record, a header count that disagrees with the file's size)."""

    header: WthorHeader
    games: list[WthorGame]
    bad: list[BadGame] = field(default_factory=list)
    players: Optional[list[str]] = None
    tournaments: Optional[list[str]] = None


# --- reading ---------------------------------------------------------------------------------------
def parse_header(data: bytes) -> WthorHeader:
    """The header of a WTHOR file's bytes; WthorError when there is none."""
    if len(data) < HEADER_SIZE:
        raise WthorError(f"{len(data)} bytes: too short for a WTHOR header ({HEADER_SIZE} bytes)")
    return WthorHeader._make(_HEADER.unpack_from(data))


def record_size(size: int) -> int:
    """Bytes of one game record on a size x size board (68 on 8x8, 104 on 10x10)."""
    return 8 + _MOVES[size]


def parse_wthor(data: bytes) -> WthorFile:
    """Read a game file's bytes: every whole record, and the problems of the rest as BadGames.
    WthorError when the bytes are no game file (no header, a name or solitaire file, a board size
    other than 8 or 10)."""
    header = parse_header(data)
    if header.game_type == 1:
        raise WthorError("a file of solitaires (P2 = 1): only game files are read")
    if header.games == 0 and header.names:
        raise WthorError(f"a name file of {header.names} names (.JOU/.TRN), not a game file")
    if header.board_size not in (0, 8, 10):
        raise WthorError(f"board size {header.board_size} in the header: expected 0 or 8 (8x8) or 10 (10x10)")
    rsize = record_size(header.size)
    body = memoryview(data)[HEADER_SIZE:]
    whole, tail = divmod(len(body), rsize)
    fmt = f"<3H2B{_MOVES[header.size]}s"
    games = list(map(WthorGame._make, struct.iter_unpack(fmt, body[:whole * rsize])))
    bad: list[BadGame] = []
    if tail:
        bad.append(BadGame(whole + 1, f"truncated record: {tail} of {rsize} bytes"))
    present = whole + (1 if tail else 0)
    if header.games > present:
        first = present + 1
        span = f"games {first}..{header.games}" if header.games > first else f"game {first}"
        bad.append(BadGame(first, f"missing: the header counts {header.games} games, the file holds "
                                  f"{whole} whole records ({span} absent)"))
    elif header.games < whole:
        bad.append(BadGame(header.games + 1, f"beyond the header's count: the header counts {header.games} "
                                             f"games, the file holds {whole} whole records (all read)"))
    return WthorFile(header, games, bad)


def parse_names(data: bytes, record: Optional[int] = None) -> list[str]:
    """The names of a .JOU (20-byte records) or .TRN (26-byte) file's bytes; the record size is
    taken from the header's count and the file's size unless given. WthorError if neither fits."""
    header = parse_header(data)
    body = data[HEADER_SIZE:]
    if record is None:
        fits = [r for r in (PLAYER_NAME_SIZE, TOURNAMENT_NAME_SIZE) if header.names * r == len(body)]
        if not fits:
            raise WthorError(f"not a name file: {header.names} names do not fill {len(body)} bytes of "
                             f"{PLAYER_NAME_SIZE}- or {TOURNAMENT_NAME_SIZE}-byte records")
        record = fits[0]
    count = len(body) // record
    return [body[i * record:(i + 1) * record].split(b"\0", 1)[0].decode("latin-1").strip()
            for i in range(count)]


def read_names(path: str, record: Optional[int] = None) -> list[str]:
    """The names of a .JOU or .TRN file (see :func:`parse_names`); OSError and WthorError name the
    file."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        return parse_names(data, record)
    except WthorError as exc:
        raise WthorError(f"{path}: {exc}") from None


def names_beside(path: str) -> tuple[Optional[str], Optional[str]]:
    """The name files beside a game file (any case): ``<stem>.JOU`` and ``<stem>.TRN`` (the ones
    ``othello-games convert`` writes with a file), else ``WTHOR.JOU`` and ``WTHOR.TRN``; None each
    where there is none."""
    folder = os.path.dirname(path) or "."
    stem = os.path.splitext(os.path.basename(path))[0].upper()
    try:
        entries = {name.upper(): name for name in os.listdir(folder)}
    except OSError:
        return None, None
    found = []
    for ext in ("JOU", "TRN"):
        name = entries.get(f"{stem}.{ext}") or entries.get(f"WTHOR.{ext}")
        found.append(os.path.join(folder, name) if name else None)
    return found[0], found[1]


def read_wthor(path: str, players: Optional[str] = None, tournaments: Optional[str] = None) -> WthorFile:
    """Read a game file with its names: from the given .JOU and .TRN files, else from the ones
    beside it (names stay None where there is no file). WthorError or OSError when the file
    cannot be read at all; its messages name the file."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        wf = parse_wthor(data)
    except WthorError as exc:
        raise WthorError(f"{path}: {exc}") from None
    jou, trn = names_beside(path)
    wf.players = read_names(players or jou, PLAYER_NAME_SIZE) if players or jou else None
    wf.tournaments = read_names(tournaments or trn, TOURNAMENT_NAME_SIZE) if tournaments or trn else None
    return wf


def is_wthor_path(path: str) -> bool:
    """True when a file name says WTHOR games (.wtb, or .wtd for 10x10)."""
    return path.lower().endswith((".wtb", ".wtd"))


# --- moves -----------------------------------------------------------------------------------------
def _decode_table(size: int) -> list[int]:
    table = [-1] * 256
    n = _CODE_ROW[size]
    for row in range(1, size + 1):
        for col in range(1, size + 1):
            table[n * row + col] = (row - 1) * (8 if size == 8 else size) + col - 1
    return table


_DECODE = {size: _decode_table(size) for size in _MOVES}
_ENCODE = {size: {sq: code for code, sq in enumerate(table) if sq >= 0} for size, table in _DECODE.items()}


def move_code(move: Square, size: int = 8) -> int:
    """The WTHOR byte of a square (f5 is 56 on 8x8)."""
    try:
        return _ENCODE[size][move]
    except KeyError:
        raise WthorError(f"square {move!r} has no WTHOR code on a {size}x{size} board") from None


def encode_moves(moves: Sequence[Square], size: int = 8) -> bytes:
    """The move bytes of a record: the moves without their passes, zero-padded to 60 (96 on 10x10)."""
    codes = bytes(move_code(m, size) for m in moves if m != PASS)
    if len(codes) > _MOVES[size]:
        raise WthorError(f"{len(codes)} moves: a {size}x{size} record holds {_MOVES[size]}")
    return codes + bytes(_MOVES[size] - len(codes))


class BadRecord(OthelloError):
    """A game record that cannot be played: ``ply`` (from 1) is the move at fault, 0 for the record."""

    def __init__(self, ply: int, reason: str) -> None:
        self.ply, self.reason = ply, reason
        super().__init__(f"move {ply}: {reason}" if ply else reason)


def replay_game(game: WthorGame, size: int = 8) -> tuple[list[Square], Optional[int]]:
    """Play a record's moves under the rules with the compiled core: the moves with the forced
    passes the record leaves out put in, and Black's final disc difference (empties to the winner)
    when the moves end the game, None when they stop before its end (a resignation, a game lost on
    time). BadRecord names the first move that is no square, not legal, or follows the end."""
    table = _DECODE[size]
    out: list[Square] = []
    raw = game.moves
    end = raw.find(0)
    if end < 0:
        end = len(raw)
    elif raw.count(0) != len(raw) - end:
        raise BadRecord(end + 1 + next(i for i, b in enumerate(raw[end:]) if b), "a move after the end of "
                        "the move list (a 0 byte)")
    if size == 8:
        legal, flipped = _core.legal_moves, _core.flipped_discs
        P, O = 0x0000000810000000, 0x0000001008000000
    else:
        def legal(p: int, o: int) -> int:
            return legal_moves_of(p, o, size)

        def flipped(p: int, o: int, sq: int) -> int:
            return _core.flipped_discs_n(p, o, sq, size)
        start = Board(size)
        P, O = start.black, start.white
    black = True
    for ply in range(end):
        sq = table[raw[ply]]
        if sq < 0:
            raise BadRecord(ply + 1, f"byte {raw[ply]} is no square of a {size}x{size} board")
        bit = 1 << sq
        if (P | O) & bit:
            raise BadRecord(ply + 1, f"{square_name(sq, size)}: the square is occupied")
        flips = flipped(P, O, sq)
        if not flips:
            if not legal(P, O) and legal(O, P):     # a forced pass the record leaves out
                P, O = O, P
                black = not black
                out.append(PASS)
                flips = flipped(P, O, sq)
            if not flips:
                raise BadRecord(ply + 1, f"{square_name(sq, size)} is not legal for "
                                         f"{'black' if black else 'white'}")
        P, O = O & ~flips, P | flips | bit
        black = not black
        out.append(sq)
    if legal(P, O) or legal(O, P):
        return out, None
    mine, theirs = P.bit_count(), O.bit_count()
    empty = size * size - mine - theirs
    diff = mine - theirs + (empty if mine > theirs else -empty if theirs > mine else 0)
    return out, diff if black else -diff


def moves_text(moves: Sequence[Square], size: int = 8) -> str:
    """The moves as one run of squares without passes (the form the training files use)."""
    return "".join(square_name(m, size) for m in moves if m != PASS)


# --- game records ----------------------------------------------------------------------------------
def black_difference(black_discs: int, size: int = 8) -> int:
    """Black's disc difference from Black's disc count (empties counted to the winner)."""
    return 2 * black_discs - size * size


def name_of(names: Optional[list[str]], number: int, what: str) -> str:
    """A name by its number; BadRecord when a name file is loaded and the number is beyond it.
    Without a name file the number stands for the name (``#123``)."""
    if names is None:
        return f"#{number}"
    if not 0 <= number < len(names):
        raise BadRecord(0, f"{what} number {number} is beyond the name file ({len(names)} names)")
    return names[number]


def game_record(wf: WthorFile, game: WthorGame, moves: Optional[list[Square]] = None) -> GameRecord:
    """A record as the package's GameRecord: the game played on a Board (passes in), the names
    resolved, the result (Black's disc difference as GGF writes it: ``+12.00``), the tournament
    as the place, the year as the date; the raw numbers and the theoretical score in ``tags``
    (``wthor_tournament``, ``wthor_black``, ``wthor_white``, ``wthor_theoretical``). BadRecord
    when a move or a name number is bad."""
    size = wf.header.size
    if moves is None:
        moves, _ = replay_game(game, size)
    black = name_of(wf.players, game.black, "black player")
    white = name_of(wf.players, game.white, "white player")
    place = name_of(wf.tournaments, game.tournament, "tournament")
    board = Board(size)
    for move in moves:
        board.push(move)
    diff = black_difference(game.black_discs, size)
    return GameRecord(board=board, black=black, white=white, result=f"{diff:+d}.00" if diff else "0.00",
                      place=place, date=str(wf.header.game_year) if wf.header.game_year else "",
                      tags={"wthor_tournament": str(game.tournament), "wthor_black": str(game.black),
                            "wthor_white": str(game.white), "wthor_theoretical": str(game.theoretical)})


def game_records(wf: WthorFile) -> Iterator[tuple[int, Union[GameRecord, BadGame]]]:
    """(number from 1, GameRecord or BadGame) for every record of a file read, in order, then the
    file's own problems (a truncated record, a count that disagrees)."""
    for i, game in enumerate(wf.games, 1):
        try:
            yield i, game_record(wf, game)
        except BadRecord as exc:
            yield i, BadGame(i, str(exc))
    for problem in wf.bad:
        yield problem.index, problem


def played_games(wf: WthorFile) -> Iterator[tuple[int, Union[tuple[WthorGame, list[Square], Optional[int]], BadGame]]]:
    """(number, (record, moves with passes, final difference or None) or BadGame) for every record,
    then the file's own problems: the fast path (no Board, no names) for the tools that need only
    the moves. A name number beyond a loaded name file makes the game bad here too."""
    for i, game in enumerate(wf.games, 1):
        try:
            if wf.players is not None:
                name_of(wf.players, game.black, "black player")
                name_of(wf.players, game.white, "white player")
            if wf.tournaments is not None:
                name_of(wf.tournaments, game.tournament, "tournament")
            moves, final = replay_game(game, wf.header.size)
        except BadRecord as exc:
            yield i, BadGame(i, str(exc))
            continue
        yield i, (game, moves, final)
    for problem in wf.bad:
        yield problem.index, problem


# --- writing ---------------------------------------------------------------------------------------
def format_wthor(header: WthorHeader, games: Sequence[WthorGame]) -> bytes:
    """A game file's bytes: the header (its game count set to the games given) and the records.
    Every field of the header and of each record is written as it is, so reading gives them back."""
    size = header.size
    n = _MOVES[size]
    out = [header._replace(games=len(games)).pack()]
    for g in games:
        moves = bytes(g.moves)
        if len(moves) > n:
            raise WthorError(f"{len(moves)} move bytes: a {size}x{size} record holds {n}")
        out.append(_RECORD_HEAD.pack(g.tournament, g.black, g.white, g.black_discs, g.theoretical))
        out.append(moves + bytes(n - len(moves)))
    return b"".join(out)


def format_names(names: Sequence[str], record: int, header: Optional[WthorHeader] = None) -> bytes:
    """A name file's bytes: 20-byte records for players (.JOU), 26 for tournaments (.TRN). A name
    is written in Latin-1 (a character it lacks becomes ``?``), cut to fit its zero byte."""
    head = (header or WthorHeader(depth=0, board_size=0))._replace(games=0, names=len(names))
    out = [head.pack()]
    for name in names:
        raw = name.encode("latin-1", "replace")[:record - 1]
        out.append(raw + bytes(record - len(raw)))
    return b"".join(out)


def wthor_game(record: GameRecord, tournament: int, black: int, white: int,
               theoretical: Optional[int] = None) -> WthorGame:
    """A GameRecord as a WTHOR record with the given name numbers. Black's disc count is the
    record's result when it has one (GGF's ``+12.00``, ``-4``, ``B+12``), else the final count of
    its board; the theoretical score is taken from the record's tags when not given (else the
    disc count)."""
    board = record.board
    size = board.size
    if size not in _MOVES or board.replay() != Board(size):
        raise WthorError(f"WTHOR holds games from the standard 8x8 or 10x10 start, not "
                         f"{'this start' if size in _MOVES else f'a {size}x{size} board'}")
    diff = result_difference(record.result)
    if diff is None:
        diff = board.disc_difference()
    discs = max(0, min(size * size, (diff + size * size) // 2))
    if theoretical is None:
        tag = record.tags.get("wthor_theoretical", "")
        theoretical = int(tag) if tag.isdigit() and int(tag) <= 255 else discs
    return WthorGame(tournament, black, white, discs, theoretical, encode_moves(board.move_stack, size))


def result_difference(result: str) -> Optional[int]:
    """Black's disc difference of a GGF result (``+12.00``, ``-4``, ``0.00``, with ``:r`` or ``:t``
    after it), None when there is none.

    >>> result_difference('+12.00'), result_difference('-4:r'), result_difference('')
    (12, -4, None)
    """
    text = result.strip().split(":")[0]
    try:
        return round(float(text)) if text and len(text) <= 12 else None
    except ValueError:
        return None


__all__ = ["BadGame", "BadRecord", "WthorError", "WthorFile", "WthorGame", "WthorHeader",
           "black_difference", "encode_moves", "format_names", "format_wthor", "game_record", "game_records",
           "is_wthor_path", "move_code", "moves_text", "names_beside", "parse_header", "parse_names",
           "parse_wthor", "played_games", "read_names", "read_wthor", "record_size", "replay_game",
           "result_difference", "wthor_game"]
