"""The committed training data (training/: the canonical files, see docs/training.md) is sound:
the 8x8 game files replay under the reference rules, the self-play and engine games to their
recorded results, and the exact test sets hold positions of 20 empties whose scores the solver
confirms."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import reference_rules as rr
from othello_engine import Board, Engine, Limit, weights
from othello_engine.board import BLACK
from othello_engine.train.records import parse_cells

TRAINING = Path(__file__).resolve().parent.parent / "training"
# games played to the end by engines: the recorded result is the final disc difference
ENGINE_GAMES = sorted(TRAINING.glob("round*_games.txt.gz")) + [TRAINING / "zebra_games.txt.gz"]
# people's games: results as recorded (a game may stop early, on a resignation or the clock)
PEOPLE_GAMES = [TRAINING / "wthor_1977-2019_games.txt.gz"]
TEST_SETS = sorted(TRAINING.glob("test20*.txt.gz"))
# midgame sets labelled by depth-28 searches of the shipped evaluation (testset --depth 28)
DEEP_SETS = {TRAINING / "test36_d28.txt.gz": 36, TRAINING / "test44_d28.txt.gz": 44}
SAMPLE = 25


def _lines(path: Path) -> list[str]:
    with gzip.open(path, "rt") as f:
        return f.read().splitlines()


def _sample(lines: list[str], k: int) -> list[str]:
    """k lines spread over the whole file, the first and the last among them."""
    if len(lines) <= k:
        return lines
    step = (len(lines) - 1) / (k - 1)
    return [lines[round(i * step)] for i in range(k)]


def _replay(line: str) -> tuple[rr.Grid, bool, int]:
    """The grid after a record's moves under the reference rules (passes implied), whether the
    game is over there, and the recorded disc difference for black."""
    moves, diff, _solve = line.split()
    grid = rr.start_grid(8)
    color = rr.BLACK
    for i in range(0, len(moves), 2):
        if rr.status(grid, color) == "pass":
            color = rr.other(color)
        col = ord(moves[i]) - ord("a")
        row = int(moves[i + 1]) - 1
        grid = rr.play(grid, color, (row, col))      # raises on an illegal move
        color = rr.other(color)
    return grid, rr.status(grid, color) == "over", int(diff)


def test_the_data_files_are_there() -> None:
    for path in ENGINE_GAMES + PEOPLE_GAMES + TEST_SETS + list(DEEP_SETS):
        assert path.is_file(), path
    assert {p.name for p in TEST_SETS} >= {"test20_wthor.txt.gz", "test20_zebra.txt.gz"}


@pytest.mark.parametrize("path", ENGINE_GAMES, ids=lambda p: p.name)
def test_engine_games_replay_to_their_results(path: Path) -> None:
    lines = _lines(path)
    assert lines
    for line in _sample(lines, SAMPLE):
        grid, over, diff = _replay(line)
        assert over, line
        assert rr.final_score(grid) == diff, line


@pytest.mark.parametrize("path", PEOPLE_GAMES, ids=lambda p: p.name)
def test_people_games_replay_legally(path: Path) -> None:
    lines = _lines(path)
    assert len(lines) == 126275
    for line in _sample(lines, SAMPLE):
        grid, over, diff = _replay(line)
        assert -64 <= diff <= 64
        if over:
            assert rr.final_score(grid) == diff, line


@pytest.mark.parametrize("path", TEST_SETS, ids=lambda p: p.name)
def test_exact_test_sets_hold_solved_positions_of_20_empties(path: Path) -> None:
    lines = _lines(path)
    assert len(lines) == 500
    for line in lines:
        cells, result, score = line.split()
        assert len(cells) == 64 and cells.count("-") == 20 and score == "-", line
        assert -64 <= int(result) <= 64
    engine = Engine(hash_mb=16)
    for line in _sample(lines, 3):
        cells, result, _ = line.split()
        # X is the side to move; the oracle's frame is absolute, so X plays black there
        assert rr.status(rr.grid_from_text(cells), rr.BLACK) != "over", line
        player, opponent = parse_cells(cells)
        board = Board.from_discs(8, player, opponent, BLACK)
        engine.new_game()
        r = engine.search(board, Limit(exact=True))
        assert r.exact and r.score == 100 * int(result), line


@pytest.mark.parametrize("path", list(DEEP_SETS), ids=lambda p: p.name)
def test_deep_test_sets_hold_midgame_positions_and_search_scores(path: Path) -> None:
    empties = DEEP_SETS[path]
    lines = _lines(path)
    assert len(lines) == 500         # one position a game (people's games share openings: a few repeat)
    for line in lines:
        cells, result, score = line.split()
        assert len(cells) == 64 and cells.count("-") == empties and score == "-", line
        assert -64 <= int(result) <= 64
    # the shipped weights, whatever another test module of this process loaded (a label with
    # other weights installs them process-wide)
    weights.load(weights.DEFAULT_PATH)
    engine = Engine(hash_mb=16)
    for line in _sample(lines, 3):
        cells, result, _ = line.split()
        assert rr.status(rr.grid_from_text(cells), rr.BLACK) == "move", line
        player, opponent = parse_cells(cells)
        engine.new_game()
        r = engine.search(Board.from_discs(8, player, opponent, BLACK),
                          Limit(depth=28, nodes=500_000_000))
        # the label is such a search's score in whole discs (the search may have changed a little
        # since the set was made, so within a few discs)
        assert abs(r.score / 100 - int(result)) <= 4, (line, r.score)
