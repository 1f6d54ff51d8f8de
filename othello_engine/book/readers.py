"""Reading games to add to a book: GGF records and move sequences from a file, or a WTHOR database."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator, Optional

from othello_engine.board import Board, OthelloError
from othello_engine.book.store import BookError
from othello_engine.games.files import BadGame
from othello_engine.games.files import read_games as read_games_file
from othello_engine.ggf import parse_ggf
from othello_engine.notation import parse_moves
from othello_engine.wthor import is_wthor_path


def read_games(path: str, size: int = 8,
               errors: Optional[Callable[[str], None]] = None) -> Iterator[Board]:
    """The games in a file: GGF records ``(;...;)`` (several per file or line), or one move
    sequence per line (``f5d6c3`` or ``f5 d6 c3``; ``#`` starts a comment). A record that cannot
    be read raises BookError, or with ``errors`` is reported through it (one line naming the
    file, the record and why) and skipped, and the rest of the file is read. A ``.wtb`` file is a
    WTHOR database (:mod:`othello_engine.wthor`), read game by game the same way."""
    def bad(why: str) -> None:
        if errors is None:
            raise BookError(why)
        errors(why)

    if is_wthor_path(path):
        for entry in read_games_file(path):
            if isinstance(entry, BadGame):
                bad(str(entry))
            else:
                yield entry.board()
        return
    text = Path(path).read_text(encoding="utf-8", errors="replace")

    pos, number = 0, 0
    while pos < len(text):
        start = text.find("(;", pos)
        between = text[pos:] if start < 0 else text[pos:start]
        first_line = text.count("\n", 0, pos) + 1
        for n, line in enumerate(between.split("\n"), first_line):  # move sequences, one a line
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            try:
                game = parse_moves(line, size)
            except (OthelloError, ValueError) as exc:
                bad(f"{path}:{n}: {exc}")
            else:
                yield game
        if start < 0:
            return
        number += 1
        where = f"{path}:{text.count(chr(10), 0, start) + 1}: game {number}"
        end = text.find(";)", start)
        if end < 0:
            bad(f"{where}: unterminated GGF game at character {start}")
            return
        try:
            game = parse_ggf(text[start:end + 2]).board
        except (OthelloError, ValueError) as exc:
            bad(f"{where}: {exc}")
        else:
            yield game
        pos = end + 2
