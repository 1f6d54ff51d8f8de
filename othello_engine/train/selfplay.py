"""Step 1, generate: self-play games from random openings, one record line a game."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional

from othello_engine.board import PASS, Board, square_name
from othello_engine.filelock import held
from othello_engine.train.records import open_text, settle_output
from othello_engine.train.runner import process_engine, run_ordered


@dataclass(frozen=True)
class GenerateSettings:
    """How the games are played: ``random_min``..``random_max`` uniformly random opening plies,
    then the engine (``evaluation``, ``weights``) at ``depth`` with a random move at a chance of
    ``epsilon``, then perfect play from ``solve`` empties; ``seed`` seeds every game; ``size``:
    the board's size (3..26)."""
    seed: int = 1
    depth: int = 6
    random_min: int = 4
    random_max: int = 16
    epsilon: float = 0.03
    solve: int = 18
    evaluation: str = "pattern"
    weights: Optional[str] = None
    size: int = 8


def play_game(index: int, s: GenerateSettings) -> str:
    """One self-play game, numbered index, as a record line:
    ``<moves without passes> <black disc difference> <solve empties>``."""
    from othello_engine.engine import Limit
    rng = random.Random(f"{s.seed}/{index}")
    engine = process_engine(s.evaluation, s.weights, s.size)
    engine.new_game()
    board = Board(s.size)
    moves: list[str] = []
    n_random = rng.randint(s.random_min, s.random_max)
    ply = 0
    while not board.is_game_over():
        if board.must_pass():
            board.push(PASS)
            continue
        legal = board.legal_moves()
        if ply < n_random:
            move = rng.choice(legal)
        elif board.empties <= s.solve:
            move = engine.search(board, Limit(exact=True)).best_move
        elif rng.random() < s.epsilon:
            move = rng.choice(legal)
        else:
            move = engine.search(board, Limit(depth=s.depth)).best_move
        board.push(move)
        moves.append(square_name(move, s.size))
        ply += 1
    return f"{''.join(moves)} {board.disc_difference():+d} {s.solve}\n"


def _play_game_item(item: tuple[int, GenerateSettings]) -> str:
    return play_game(*item)


def generate(out_path: str, games: int, settings: GenerateSettings, jobs: int = 1,
             quiet: bool = False, cluster: Optional[str] = None) -> int:
    """Append games numbered from the file's line count up to games - 1; return how many.
    ``cluster``: a Ray address to play them on (see :func:`~othello_engine.train.runner.run_ordered`)."""
    with held(out_path):     # one run at a time appends to a file (FileInUse for a second one)
        done = settle_output(out_path, "game", settings.size)
        if done >= games:
            return 0
        items = [(i, settings) for i in range(done, games)]
        with open_text(out_path, "at") as out:
            return run_ordered(_play_game_item, items, out, jobs, "generate", done, games, quiet,
                               cluster=cluster)
