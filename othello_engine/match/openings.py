"""Reading a match's openings: opening lines and files, the shipped set, start positions of a size.

A line is a move list from the standard start (read by :func:`othello_engine.notation.play_moves`,
so a forced pass may be left out), a UGI FEN or a board string (read by
:func:`othello_engine.notation.parse_position`). A WTHOR database (``.wtb``) gives the first moves
of its games, each position once up to symmetry (:func:`game_openings`).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Optional

from othello_engine.board import PASS, Board, OthelloError, canonical, clip_text
from othello_engine.match.config import MatchError, Opening
from othello_engine.notation import MoveListError, parse_position, play_moves

DEFAULT_OPENING_PLIES = 8
"""Moves of each game an opening taken from a games database has."""


@dataclass(frozen=True)
class SkippedLine:
    """An opening line that could not be read, and why."""

    source: str
    text: str
    reason: str


def parse_opening_line(text: str, size: int = 8) -> Board:
    """One opening: a move line from the standard start of a size x size board (``f5d6c4d3``,
    ``f5 d6 c4``, ``F5-D6``; ``e4d5j10`` on 10x10), a UGI FEN (``8/8/8/3ox3/3xo3/8/8/8 x``) or a
    board string (size*size cells ``X``/``O``/``-`` and the side, OBF-style, anything after ``;``
    ignored). A FEN or board string of another size than ``size`` is an error. Raises
    OthelloError naming the problem.

    >>> from othello_engine.board import square_name
    >>> [square_name(m) for m in parse_opening_line('f5d6c3').move_stack]
    ['f5', 'd6', 'c3']
    >>> [square_name(m, 10) for m in parse_opening_line('e4 d4', 10).move_stack]
    ['e4', 'd4']
    """
    board = _opening_board(text, size)
    if board.size != size:
        raise OthelloError(f"bad opening {text.strip()[:60]!r}: a {board.size}x{board.size} position in "
                           f"a match on {size}x{size}")
    return board


def _opening_board(text: str, size: int) -> Board:
    line = text.split(";")[0].strip()
    fields = line.split()
    if not fields:
        raise OthelloError("empty opening line")
    if "/" in fields[0]:
        return parse_position(" ".join(fields))
    n = size * size
    if len(fields) <= 2 and len(fields[0]) in (n, n + 1) and set(fields[0][:n]) <= set("XxOo-.*"):
        # the side may stand apart or follow the cells at once (OBF style: ``...XO X`` or ``...XOX``)
        side = fields[1] if len(fields) == 2 else fields[0][n:]
        return parse_position(f"{fields[0][:n]} {side}")
    try:
        return play_moves(Board(size), fields)
    except MoveListError as exc:
        raise OthelloError(f"bad move line {clip_text(line)!r}: {exc}") from None


def start_openings(size: int, plies: int = 4) -> list[Opening]:
    """The distinct positions (up to symmetry) after ``plies`` moves from the standard start of a
    size x size board, in the order of their first move line: the openings of a match on a size
    with no opening file.

    >>> len(start_openings(10, 2)), start_openings(10, 2)[0].text
    (3, 'e4d4')
    """
    found: dict[tuple[int, int], Opening] = {}

    def walk(board: Board, depth: int) -> None:
        if depth == 0 or board.is_game_over():
            key = canonical(board.player, board.opponent, size)[:2]
            if key not in found and not board.is_game_over():
                found[key] = Opening(board.copy(), f"start+{plies} plies ({size}x{size})")
            return
        for move in board.legal_moves() or [PASS]:
            board.push(move)
            walk(board, depth - 1)
            board.pop()

    walk(Board(size), plies)
    return list(found.values())


def game_openings(path: str, size: int = 8, plies: int = DEFAULT_OPENING_PLIES
                  ) -> tuple[list[Opening], list[SkippedLine]]:
    """The openings of a WTHOR database: the position after the first ``plies`` moves of each game
    (passes not counted), each once up to symmetry, in the order of the games; bad games and games
    shorter than that are skipped and returned. MatchError when none is usable."""
    from othello_engine.games.files import BadGame, read_games
    from othello_engine.wthor import moves_text
    if not 1 <= plies <= 60:
        raise MatchError(f"--opening-plies {plies}: expected 1..60")
    found: dict[tuple[int, int], Opening] = {}
    skipped: list[SkippedLine] = []
    try:
        for entry in read_games(path):
            if isinstance(entry, BadGame):
                skipped.append(SkippedLine(f"{path}:{entry.number}", f"game {entry.number}", entry.reason))
                continue
            if entry.size != size:
                raise MatchError(f"openings file {path!r}: {entry.size}x{entry.size} games in a match on "
                                 f"{size}x{size}")
            board = Board(size)
            played = 0
            for move in entry.moves:
                if played == plies:
                    break
                board.push(move)
                played += move != PASS
            source = f"{path}:{entry.number}"
            if played < plies or board.is_game_over():
                skipped.append(SkippedLine(source, moves_text(board.move_stack, size),
                                           f"the game is shorter than {plies} moves"))
                continue
            key = canonical(board.player, board.opponent, size)[:2]
            if key not in found:
                found[key] = Opening(board, source)
    except OSError as exc:
        raise MatchError(f"openings file {path!r}: {exc.strerror or exc}") from None
    except OthelloError as exc:
        raise MatchError(f"openings file {exc}") from None
    if not found:
        raise MatchError(f"openings file {path!r}: no game with {plies} moves")
    return list(found.values()), skipped


def load_openings(path: Optional[str] = None, size: int = 8,
                  plies: int = DEFAULT_OPENING_PLIES) -> tuple[list[Opening], list[SkippedLine]]:
    """The openings of a file (one per line; ``#`` comments and blank lines ignored), or the
    shipped balanced set when path is None (8x8; on other even sizes the distinct positions 4
    plies from the start, :func:`start_openings`), or of a WTHOR database the positions after the
    first ``plies`` moves of its games (:func:`game_openings`). Unreadable lines are skipped and
    returned; a file with no usable line, or none at all, is a MatchError.

    >>> ops, bad = load_openings()
    >>> len(ops) >= 20, bad
    (True, [])
    """
    if path is not None and path.lower().endswith((".wtb", ".wtd")):
        return game_openings(path, size, plies)
    if path is None and size != 8:
        if size % 2:
            raise MatchError(f"a {size}x{size} board has no standard start: give --openings")
        return start_openings(size), []
    if path is None:
        name = "openings (shipped)"
        text = resources.files("othello_engine").joinpath("data/openings.txt").read_text()
    else:
        name = path
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as exc:
            raise MatchError(f"openings file {path!r}: {exc.strerror or exc}") from None
    openings: list[Opening] = []
    skipped: list[SkippedLine] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#")[0].strip()
        if not line:
            continue
        source = f"{name}:{n}"
        try:
            board = parse_opening_line(line, size)
        except OthelloError as exc:
            skipped.append(SkippedLine(source, line, str(exc)))
            continue
        if board.is_game_over():
            skipped.append(SkippedLine(source, line, "the game is already over"))
            continue
        openings.append(Opening(board, source))
    if not openings:
        raise MatchError(f"openings file {name!r}: no usable opening"
                         + (f" ({len(skipped)} bad lines, first: {skipped[0].reason})" if skipped else ""))
    return openings, skipped
