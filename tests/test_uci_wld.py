"""`go wld` over pipes: a proven win, draw or loss (``score wld win|draw|loss``) that agrees with the
reference solver, and a bestmove that keeps it."""

from __future__ import annotations

import random
import re

import pytest

from othello_engine.board import PASS, Board

import reference_rules as ref
from uci_support import EngineProcess

WLD_INFO = re.compile(r"info depth (\d+) seldepth \d+ multipv 1 score wld (win|draw|loss) nodes \d+ "
                      r"nps \d+ time \d+ pv( [a-h][1-8]| pass)+$")
SEEDS = list(range(10)) + [26, 31, 32]
"""Random games stopped at 7 empties: wins and losses, draws (seeds 26 and 31; the
test checks that every kind is covered) and a forced pass (seed 32)."""


def position(seed: int, empties: int = 7) -> Board:
    rng = random.Random(seed)
    b = Board()
    while b.empties > empties and not b.is_game_over():
        b.push(rng.choice(b.legal_moves() or [PASS]))
    return b


def wld(value: int) -> str:
    return "win" if value > 0 else "loss" if value < 0 else "draw"


@pytest.fixture(scope="module")
def eng():
    e = EngineProcess()
    e.ask("uci", lambda s: s == "uciok")
    yield e
    assert e.close() == 0
    assert b"Traceback" not in e.stderr and not any("error" in s for s in e.seen), e.seen


def test_wld_agrees_with_the_reference_and_the_move_keeps_it(eng):
    kinds = set()
    for seed in SEEDS:
        b = position(seed)
        assert not b.is_game_over()
        cells, side = b.cells(), "XO"[b.turn]
        truth = wld(ref.solve_text(cells, side))
        kinds.add(truth)
        eng.send(f"position board {cells} {'b' if side == 'X' else 'w'}")
        lines = eng.ask("go wld", lambda s: s.startswith("bestmove"), timeout=30)
        proven = [WLD_INFO.match(s) for s in lines if " score wld " in s]
        assert len(proven) == 1 and proven[0] is not None, lines
        assert proven[0].group(2) == truth, (seed, lines)
        assert int(proven[0].group(1)) == b.empties
        move = lines[-1].split()[1]
        grid = ref.grid_from_text(cells)
        if move == "pass":
            assert ref.status(grid, side) == "pass"
            after = ref.play(grid, side, None)
        else:
            square = (int(move[1]) - 1, "abcdefgh".index(move[0]))
            assert square in ref.legal_moves(grid, side), (seed, move)
            after = ref.play(grid, side, square)
        # the opponent's best from there is the mover's result with the sign turned
        assert wld(-ref.solve(after, ref.other(side))) == truth, (seed, move)
    assert kinds == {"win", "draw", "loss"}


def test_wld_is_cut_by_a_time_limit_and_skips_the_book(eng):
    eng.send("setoption name OwnBook value true")
    eng.send("position startpos")
    lines = eng.ask("go wld movetime 200", lambda s: s.startswith("bestmove"), timeout=10)
    eng.send("setoption name OwnBook value false")
    eng.sync()
    assert not any("book move" in s for s in lines), lines
    assert not any(" score wld " in s for s in lines)       # 60 empties: not proven in 0.2 s
    assert lines[-1].split()[1] in ("d3", "c4", "f5", "e6")


def test_wld_on_a_finished_game_reports_the_exact_score(eng):
    cells = "X" * 40 + "O" * 24
    eng.send(f"position board {cells} b")
    lines = eng.ask("go wld", lambda s: s.startswith("bestmove"))
    assert lines[-2:] == ["info depth 0 score disc +16", "bestmove (none)"]
