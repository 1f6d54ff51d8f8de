"""The training pipeline of the pattern evaluation: generate games, label positions, fit, export.

``othello-train`` (or ``othello-engine train``; the command line is :mod:`othello_engine.cli.train`)
runs one step per subcommand; each step reads the previous step's file, writes its own, and resumes
where an interrupted run stopped (a rerun with the same output file does only what is missing). Work
items are seeded by their number, so a run gives the same file whatever ``--jobs`` says.

1. ``generate`` (:mod:`~othello_engine.train.selfplay`): self-play games from random openings (a
   random number of uniformly random plies, then the engine at a fixed depth with a few random
   moves, then perfect play from ``--solve`` empties). One game a line:
   ``<moves> <black disc difference> <solve empties>``, e.g. ``f5d6c3d3c4... +6 18``; passes are
   not written (they are implied).
2. ``label`` (:mod:`~othello_engine.train.labels`): every position of every game gets a target,
   the final disc difference for the side to move (or, with ``--siblings``, positions one move off
   the games' lines get their search scores). From the solve point on the game was played
   perfectly, so its result is the exact score of those positions; earlier positions also get a
   search score made with the weights fitted so far (``--weights``, the backward bootstrapping of
   Logistello and Edax). One position a line, of fixed width: ``<64 cells, X to move> <result>
   <search score in centi-discs, or ->`` (see :data:`~othello_engine.train.records.POSITION_WIDTH`).
3. ``fit`` (:mod:`~othello_engine.train.fitting`): ridge least squares over the sparse pattern
   features, phase by phase (numpy; ``pip install 'othello_engine[train]'``), with a held-out set
   whose error is printed per phase; it exports the weights (``--out weights.bin``).
4. ``average`` (:mod:`~othello_engine.train.averaging`): the entry-by-entry mean of several fits'
   weights files (``--out``): one evaluation, which can play better than each of them.
5. ``testset`` and ``evaluate`` (:mod:`~othello_engine.train.testsets`): positions of the games
   solved exactly, and the mean absolute error of the static evaluation (classic and pattern)
   against them.

The files and their formats are :mod:`~othello_engine.train.records`; running the work items in
processes or on Ray is :mod:`~othello_engine.train.runner`.
"""

from othello_engine.train.averaging import average
from othello_engine.train.fitting import (FAMILY_BASES, FitSettings, canonical_map, fit, fit_phase,
                                          positions_features)
from othello_engine.train.labels import LabelSettings, label, label_game, label_siblings, sibling_positions
from othello_engine.train.records import (NO_SCORE, POSITION_WIDTH, board_of, cells_of, game_plies,
                                          game_positions, open_text, parse_cells, parse_game, read_positions)
from othello_engine.train.runner import PROGRESS_MIN_SECONDS, process_engine, progress_bar, run_ordered
from othello_engine.train.schedule import Schedule, parse_schedule
from othello_engine.train.selfplay import GenerateSettings, generate, play_game
from othello_engine.train.testsets import evaluate, testset

__all__ = [
    "FAMILY_BASES", "NO_SCORE", "POSITION_WIDTH", "PROGRESS_MIN_SECONDS", "FitSettings", "GenerateSettings",
    "LabelSettings", "Schedule", "average", "board_of", "canonical_map", "cells_of",
    "evaluate", "fit", "fit_phase", "game_plies", "game_positions", "generate", "label", "label_game",
    "label_siblings",
    "open_text", "parse_cells", "parse_game", "parse_schedule", "play_game", "positions_features",
    "process_engine", "progress_bar", "read_positions", "run_ordered", "sibling_positions", "testset",
]
