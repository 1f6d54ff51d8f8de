"""Games files of every format read as one stream of games, and written: WTHOR, GGF, move lists.

A file whose name ends in ``.wtb`` (``.wtd``: 10x10) is read by :mod:`othello_engine.wthor`, with
its names from the name files beside it or given; any other file is text, where a line holding
``(;`` has GGF games (:mod:`othello_engine.ggf`), a line ``<moves> <result> <solve>`` is a training
game record, and any other line is a move list from the standard start (:mod:`othello_engine.notation`).
Bad games come out as :class:`BadGame` values in their place, so nothing is dropped unsaid.
"""

from __future__ import annotations

import datetime
import os
import re
from collections import Counter
from dataclasses import dataclass
from typing import IO, Iterable, Iterator, Optional, Union

from othello_engine import atomicfile, wthor
from othello_engine.board import PASS, Board, OthelloError, Square
from othello_engine.ggf import GameRecord, format_ggf, parse_ggf_games
from othello_engine.notation import parse_moves

FORMATS = ("wthor", "ggf", "moves", "train")
"""What :func:`write_games` writes: a WTHOR file (with its name files), GGF lines, move lists, or
training game records (``<moves> <black disc difference> 0``, as ``othello-train label`` reads)."""


@dataclass
class Game:
    """One game of a games file: where it is (the file, its number there from 1), its moves from
    the standard start (forced passes put in), the names, and the results, each None when the file
    does not say: ``result`` is Black's disc difference as recorded, ``final`` the one of the last
    position when the moves end the game, ``theoretical`` Black's disc difference under perfect
    play from ``depth`` empties (WTHOR). A WTHOR game keeps its record and header (``raw``)."""

    source: str
    number: int
    moves: list[Square]
    size: int = 8
    black: str = ""
    white: str = ""
    tournament: str = ""
    year: Optional[int] = None
    result: Optional[int] = None
    final: Optional[int] = None
    theoretical: Optional[int] = None
    depth: Optional[int] = None
    raw: Optional[tuple[wthor.WthorGame, wthor.WthorFile]] = None

    def board(self) -> Board:
        """The board after the game, its moves on its stack."""
        board = Board(self.size)
        for move in self.moves:
            board.push(move)
        return board

    def record(self) -> GameRecord:
        """The game as the package's GameRecord."""
        result = "" if self.result is None else f"{self.result:+d}.00" if self.result else "0.00"
        return GameRecord(board=self.board(), black=self.black, white=self.white, result=result,
                          place=self.tournament, date="" if self.year is None else str(self.year))


@dataclass(frozen=True)
class BadGame:
    """A game that could not be read: its file, its number there (from 1), and why."""

    source: str
    number: int
    reason: str

    def __str__(self) -> str:
        return f"{self.source}: game {self.number}: {self.reason}"


Entry = Union[Game, BadGame]


def read_games(path: str, players: Optional[str] = None, tournaments: Optional[str] = None,
               size: int = 8) -> Iterator[Entry]:
    """Every game of a file in order (see the module's docstring), a BadGame in the place of each
    one that cannot be read or played. ``players``/``tournaments``: WTHOR name files (default:
    the ones beside a WTHOR file); ``size``: the board of move lists. OSError, or WthorError for
    a WTHOR file that cannot be read at all, names the file."""
    if wthor.is_wthor_path(path):
        yield from _wthor_games(path, players, tournaments)
        return
    with open(path, encoding="utf-8", errors="replace") as f:
        yield from text_games(path, f, size)


def _wthor_games(path: str, players: Optional[str], tournaments: Optional[str]) -> Iterator[Entry]:
    wf = wthor.read_wthor(path, players, tournaments)
    header = wf.header
    size = header.size
    year = header.game_year or None
    for number, item in wthor.played_games(wf):
        if isinstance(item, wthor.BadGame):
            yield BadGame(path, number, item.reason)
            continue
        game, moves, final = item
        yield Game(path, number, moves, size,
                   black=_name(wf.players, game.black), white=_name(wf.players, game.white),
                   tournament=_name(wf.tournaments, game.tournament), year=year,
                   result=wthor.black_difference(game.black_discs, size), final=final,
                   theoretical=wthor.black_difference(game.theoretical, size),
                   depth=header.score_empties, raw=(game, wf))


def _name(names: Optional[list[str]], number: int) -> str:
    return names[number] if names is not None else f"#{number}"


_TRAIN_RECORD = re.compile(r"(\S+)\s+([+-]?[0-9]{1,3})\s+([0-9]{1,2})")
_THEORETICAL = re.compile(r"theoretical ([+-][0-9]{1,3}) at ([0-9]{1,3}) empties")
"""The comment a GGF game written from WTHOR carries its theoretical score in (see :func:`game_line`)."""
_YEAR = re.compile(r"(?<![0-9])(1[0-9]{3}|20[0-9]{2})(?![0-9])")


def text_games(source: str, lines: Iterable[str], size: int = 8) -> Iterator[Entry]:
    """The games of text lines (GGF, training records, move lists); ``#`` starts a comment."""
    number = 0
    for line_number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if "(;" in line:
            try:
                records = parse_ggf_games(line)
            except (OthelloError, ValueError) as exc:
                number += 1
                yield BadGame(source, number, f"line {line_number}: {exc}")
                continue
            for rec in records:
                number += 1
                yield game_of_record(rec, source, number)
            continue
        number += 1
        text, result = line.split("#", 1)[0].strip(), None
        m = _TRAIN_RECORD.fullmatch(text)
        if m:
            text, result = m.group(1), int(m.group(2))
        try:
            board = parse_moves(text, size)
        except (OthelloError, ValueError) as exc:
            yield BadGame(source, number, f"line {line_number}: {exc}")
            continue
        yield Game(source, number, list(board.move_stack), size, result=result, final=_final(board))


def game_of_record(rec: GameRecord, source: str, number: int) -> Entry:
    """A GameRecord as a Game (a BadGame when it does not start from the standard start)."""
    board = rec.board
    if board.size % 2 or board.replay() != Board(board.size):
        return BadGame(source, number, "not from the standard start position")
    year = _YEAR.search(rec.date)
    score = _THEORETICAL.search(rec.tags.get("C", ""))
    return Game(source, number, list(board.move_stack), board.size, black=rec.black, white=rec.white,
                tournament=rec.place, year=int(year.group()) if year else None,
                result=wthor.result_difference(rec.result), final=_final(board),
                theoretical=int(score.group(1)) if score else None,
                depth=int(score.group(2)) if score else None)


def _final(board: Board) -> Optional[int]:
    return board.disc_difference() if board.is_game_over() else None


# --- writing ---------------------------------------------------------------------------------------
def format_for(path: str) -> str:
    """The output format a file name suggests: .wtb/.wtd WTHOR, .ggf GGF, else move lists."""
    if wthor.is_wthor_path(path):
        return "wthor"
    return "ggf" if path.lower().endswith(".ggf") else "moves"


def game_line(game: Game, fmt: str) -> str:
    """A game as one line of a text format (ggf, moves, train); OthelloError when it has no such
    line (a training record needs a result and an 8x8 board)."""
    if fmt == "ggf":
        board = game.board()
        comment = "" if game.theoretical is None else f"theoretical {game.theoretical:+d} at {game.depth} empties"
        return format_ggf(board, game.black, game.white, game.record().result, place=game.tournament,
                          date="" if game.year is None else str(game.year), comment=comment)
    text = wthor.moves_text(game.moves, game.size)
    if fmt == "moves":
        return text
    if fmt == "train":
        result = game.result if game.result is not None else game.final
        if result is None or game.size != 8:
            raise OthelloError("a training record needs an 8x8 game with a result")
        return f"{text} {result:+d} 0"
    raise OthelloError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")


def write_text(games: Iterable[Game], out: IO[str], fmt: str) -> list[BadGame]:
    """Write games one a line; the ones that have no line in fmt are returned, not written."""
    refused = []
    for game in games:
        try:
            out.write(game_line(game, fmt) + "\n")
        except OthelloError as exc:
            refused.append(BadGame(game.source, game.number, str(exc)))
    return refused


def write_wthor(games: list[Game], path: str) -> tuple[str, str]:
    """Write games as a WTHOR file, with its names in ``<stem>.JOU`` and ``<stem>.TRN`` beside it
    (read back by :func:`othello_engine.wthor.read_wthor`); returns the name files' paths. Games
    read from one WTHOR file keep their records whole (names by the same numbers, every field as
    it was); other games get numbers in the order their names first appear. OthelloError when the
    games are not all of one size, 8 or 10."""
    sizes = {g.size for g in games} or {8}
    if len(sizes) > 1 or not sizes <= {8, 10}:
        raise OthelloError(f"WTHOR holds 8x8 or 10x10 games of one size, not {sorted(sizes)}")
    size = sizes.pop()
    files = {id(g.raw[1]): g.raw[1] for g in games if g.raw is not None}
    stem = os.path.splitext(path)[0]
    jou, trn = stem + ".JOU", stem + ".TRN"
    if len(files) == 1 and all(g.raw is not None for g in games):
        wf = next(iter(files.values()))
        records = [g.raw[0] for g in games if g.raw is not None]
        header = wf.header
        players = wf.players if wf.players is not None else _numbered(records, "black", "white")
        places = wf.tournaments if wf.tournaments is not None else _numbered(records, "tournament")
    else:
        players_at: dict[str, int] = {}
        places_at: dict[str, int] = {}
        records = []
        for g in games:
            rec = wthor.wthor_game(g.record(), places_at.setdefault(g.tournament, len(places_at)),
                                   players_at.setdefault(g.black, len(players_at)),
                                   players_at.setdefault(g.white, len(players_at)),
                                   None if g.theoretical is None else (g.theoretical + size * size) // 2)
            records.append(rec)
        years = Counter(g.year for g in games if g.year is not None)
        today = datetime.date.today()
        header = wthor.WthorHeader(today.year // 100, today.year % 100, today.month, today.day,
                                   game_year=years.most_common(1)[0][0] if years else 0,
                                   board_size=size, depth=next((g.depth for g in games if g.depth), 0) or 0)
        players, places = list(players_at), list(places_at)
    atomicfile.write_bytes(path, wthor.format_wthor(header, records))
    atomicfile.write_bytes(jou, wthor.format_names(players, wthor.PLAYER_NAME_SIZE))
    atomicfile.write_bytes(trn, wthor.format_names(places, wthor.TOURNAMENT_NAME_SIZE))
    return jou, trn


def _numbered(records: list[wthor.WthorGame], *fields: str) -> list[str]:
    """Names ``#n`` for the numbers the records use (a file read without its name files)."""
    top = max((getattr(r, f) for r in records for f in fields), default=-1)
    return [f"#{n}" for n in range(top + 1)]


def opening_text(game: Game, plies: int) -> Optional[str]:
    """The first plies moves of a game as text (passes left out), None when it is shorter."""
    moves = [m for m in game.moves if m != PASS]
    if len(moves) < plies:
        return None
    return wthor.moves_text(moves[:plies], game.size)
