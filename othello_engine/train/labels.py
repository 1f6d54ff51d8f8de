"""Step 2, label: a target for every position of the games (the result, and a search score), or
for positions one move off the games' lines (siblings)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

from othello_engine import _core

from othello_engine.filelock import held
from othello_engine.train.records import (board_of, cells_of, game_lines, game_plies, game_positions,
                                          open_text, parse_game, position_line, settle_output)
from othello_engine.train.runner import process_engine, run_ordered
from othello_engine.train.schedule import Schedule


@dataclass(frozen=True)
class LabelSettings:
    """The search depth of the scores by empties (0: no score there) and the weights that search
    with (None: results only, no search scores, unless ``evaluation`` is "classic": scores of the
    classic evaluation), the empties up to which positions are scored by an exact solve instead
    (``exact``, 0: none) and the board's size. With ``siblings`` (a chance, 0: off) the positions
    are not the games' own but one move off their lines (see :func:`sibling_positions`), seeded by
    ``seed`` and the game's number. ``result`` says what a game position's result column holds:
    "game", the game's result; "exact", the exact score (in whole discs) where the position was
    solved, the game's result elsewhere; "score", its score wherever it has one (for games whose
    results say little of their positions, such as people's games)."""
    depth: Schedule = Schedule((), 6)
    weights: Optional[str] = None
    exact: int = 0
    size: int = 8
    evaluation: str = "pattern"
    siblings: float = 0.0
    seed: int = 1
    result: str = "game"


def label_game(line: str, s: LabelSettings) -> str:
    """The position lines of one game record: every position before a move (passes included:
    the side to move is X), with the game's result for the side to move, and a depth-limited
    search score of the weights s.weights before the solve point when they are given."""
    from othello_engine.engine import Limit
    moves, black_diff, solve = parse_game(line, s.size)
    search = None
    scores = s.weights is not None or s.evaluation == "classic"
    if scores or s.exact:
        search = process_engine("pattern" if s.weights else "classic", s.weights, s.size)
        search.new_game()
    squares = s.size * s.size
    out = []
    for P, O, sign in list(game_positions(moves, s.size))[:-1]:
        empties = squares - bin(P).count("1") - bin(O).count("1")
        score = None
        result = sign * black_diff
        depth = int(s.depth.at(empties))
        if search is not None and empties <= s.exact and empties > solve:
            score = search.search(board_of(P, O, s.size), Limit(exact=True)).score
            if s.result != "game":
                result = score_result(score, squares)
        elif scores and search is not None and empties > solve and depth > 0:
            score = search.search(board_of(P, O, s.size), Limit(depth=depth)).score
            if s.result == "score":
                result = score_result(score, squares)
        out.append(position_line(cells_of(P, O, s.size), result, score, s.size))
    return "".join(out)


def score_result(score: int, squares: int) -> int:
    """A score in centi-discs as a result column: whole discs, within the board's squares.

    >>> score_result(4600, 64), score_result(-149, 64), score_result(9999, 64)
    (46, -1, 64)
    """
    return max(-squares, min(squares, round(score / 100)))


def sibling_positions(moves: list[int], index: int, s: LabelSettings) -> Iterator[tuple[int, int, int]]:
    """(player, opponent, empties) of the siblings of game number ``index``: at each position of
    the game, with a chance of ``s.siblings``, one of the mover's other legal moves at random, and
    the position after it (with the pass made if the side to move has none). A sibling is taken
    where the search depth of its empties is more than 0 (so ``--depth`` says where), and never
    after the game's end. The same games and settings give the same positions, searched or not."""
    rng = random.Random(s.seed * 1000003 + index)
    squares = s.size * s.size
    for (P, O, _), move in zip(game_positions(moves, s.size), moves):
        empties = squares - bin(P).count("1") - bin(O).count("1")
        if empties < 2 or s.depth.at(empties - 1) <= 0 or rng.random() >= s.siblings:
            continue
        legal = _core.legal_moves_n(P, O, s.size)
        others = [sq for sq in range(legal.bit_length()) if (legal >> sq) & 1 and sq != move]
        if not others:
            continue
        cP, cO = _core.make_move_n(P, O, rng.choice(others), s.size)
        if not _core.legal_moves_n(cP, cO, s.size):
            if not _core.legal_moves_n(cO, cP, s.size):
                continue
            cP, cO = cO, cP
        yield cP, cO, empties - 1


def label_siblings(index: int, line: str, s: LabelSettings) -> str:
    """The position lines of the siblings of one game (:func:`sibling_positions`): each gets the
    search score of ``s.weights`` at its empties' depth, or its exact score up to ``s.exact``
    empties; its result column is that score in whole discs (the game's result says nothing of
    a position it never reached), so ``fit`` learns the score there whatever its blend. Without
    weights the search is the classic evaluation's (``label`` refuses siblings without either)."""
    from othello_engine.engine import Limit
    moves, _, _ = parse_game(line, s.size)
    search = process_engine("pattern" if s.weights else "classic", s.weights, s.size)
    search.new_game()
    squares = s.size * s.size
    out = []
    for P, O, empties in sibling_positions(moves, index, s):
        limit = Limit(exact=True) if empties <= s.exact else Limit(depth=int(s.depth.at(empties)))
        score = max(-9999, min(9999, search.search(board_of(P, O, s.size), limit).score))
        result = score_result(score, squares)
        out.append(position_line(cells_of(P, O, s.size), result, score, s.size))
    return "".join(out)


def _positions_of(index: int, line: str, s: LabelSettings) -> int:
    """How many position lines game ``index`` gets (its plies, or its siblings)."""
    if not s.siblings:
        return game_plies(line, s.size)
    moves, _, _ = parse_game(line, s.size)
    return sum(1 for _ in sibling_positions(moves, index, s))


def _label_item(item: tuple[int, str, LabelSettings]) -> str:
    index, line, s = item
    return label_siblings(index, line, s) if s.siblings else label_game(line, s)


def label(games_path: str, out_path: str, settings: LabelSettings, jobs: int = 1,
          quiet: bool = False, limit: Optional[int] = None, cluster: Optional[str] = None,
          errors: Optional[Callable[[str], None]] = None) -> int:
    """Label the games of games_path not yet in out_path (resumes by counting the games whose
    positions are complete: a game's lines are written together). Returns the games labelled.
    ``cluster``: a Ray address to label them on (see :func:`~othello_engine.train.runner.run_ordered`).
    A WTHOR database is read too (:func:`~othello_engine.train.records.game_lines`; its bad games
    go to ``errors``)."""
    if settings.result == "exact" and not settings.exact:
        raise ValueError("--result exact takes the scores of --exact's solves: give --exact")
    if settings.siblings and settings.weights is None and settings.evaluation != "classic":
        raise ValueError("--siblings labels positions by their search scores: give --weights (or "
                         "--eval classic)")
    games = game_lines(games_path, errors)
    if limit is not None:
        games = games[:limit]
    with held(out_path):     # one run at a time appends to a file (FileInUse for a second one)
        done_positions = settle_output(out_path, "position", settings.size)
        done = 0
        n = 0
        for line in games:           # how many whole games the existing file holds
            count = _positions_of(done, line, settings)
            if n + count > done_positions:
                break
            n += count
            done += 1
        if n != done_positions:      # a game cut short: its positions are labelled again
            settle_output(out_path, "position", settings.size, keep=n)
        items = [(i, line, settings) for i, line in enumerate(games[done:], start=done)]
        with open_text(out_path, "at") as out:
            return run_ordered(_label_item, items, out, jobs, "label", done, len(games), quiet,
                               chunksize=8, cluster=cluster)
