"""Step 2, label: a target for every position of the games (the result, and a search score)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from othello_engine.filelock import held
from othello_engine.train.records import (NO_SCORE, board_of, cells_of, game_lines, game_plies,
                                          game_positions, open_text, parse_game, settle_output)
from othello_engine.train.runner import process_engine, run_ordered
from othello_engine.train.schedule import Schedule


@dataclass(frozen=True)
class LabelSettings:
    """The search depth of the scores by empties (0: no score there) and the weights that search
    with (None: results only, no search scores, unless ``evaluation`` is "classic": scores of the
    classic evaluation), the empties up to which positions are scored by an exact solve instead
    (``exact``, 0: none) and the board's size."""
    depth: Schedule = Schedule((), 6)
    weights: Optional[str] = None
    exact: int = 0
    size: int = 8
    evaluation: str = "pattern"


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
        result = sign * black_diff
        score = NO_SCORE
        depth = int(s.depth.at(empties))
        if search is not None and empties <= s.exact and empties > solve:
            r = search.search(board_of(P, O, s.size), Limit(exact=True))
            score = f"{max(-9999, min(9999, r.score)):+07d}"
        elif scores and search is not None and empties > solve and depth > 0:
            r = search.search(board_of(P, O, s.size), Limit(depth=depth))
            score = f"{max(-9999, min(9999, r.score)):+07d}"
        wide = s.size > 8
        out.append(f"{cells_of(P, O, s.size)} {result:+04d} {score}\n" if wide
                   else f"{cells_of(P, O, s.size)} {result:+03d} {score}\n")
    return "".join(out)


def _label_item(item: tuple[str, LabelSettings]) -> str:
    return label_game(*item)


def label(games_path: str, out_path: str, settings: LabelSettings, jobs: int = 1,
          quiet: bool = False, limit: Optional[int] = None, cluster: Optional[str] = None,
          errors: Optional[Callable[[str], None]] = None) -> int:
    """Label the games of games_path not yet in out_path (resumes by counting the games whose
    positions are complete: a game's lines are written together). Returns the games labelled.
    ``cluster``: a Ray address to label them on (see :func:`~othello_engine.train.runner.run_ordered`).
    A WTHOR database is read too (:func:`~othello_engine.train.records.game_lines`; its bad games
    go to ``errors``)."""
    games = game_lines(games_path, errors)
    if limit is not None:
        games = games[:limit]
    with held(out_path):     # one run at a time appends to a file (FileInUse for a second one)
        done_positions = settle_output(out_path, "position", settings.size)
        done = 0
        n = 0
        for line in games:           # how many whole games the existing file holds
            count = game_plies(line, settings.size)
            if n + count > done_positions:
                break
            n += count
            done += 1
        if n != done_positions:      # a game cut short: its positions are labelled again
            settle_output(out_path, "position", settings.size, keep=n)
        items = [(line, settings) for line in games[done:]]
        with open_text(out_path, "at") as out:
            return run_ordered(_label_item, items, out, jobs, "label", done, len(games), quiet,
                               chunksize=8, cluster=cluster)
