"""Time budgets: never lose on time, use the clock, plan the exact solve; pure-function tests."""

from __future__ import annotations

import itertools

import pytest

from othello_engine import _core
from othello_engine.timeman import (DEFAULT_SOLVE, JITTER, MIN_BUDGET, Budget, SolveModel, clock_budget,
                                    movetime_budget, own_moves_left)

CLOCKS = [0.05, 0.3, 2.0, 10.0, 60.0, 600.0]
INCS = [0.0, 0.01, 0.1, 2.0]
OVERHEADS = [0.0, 0.01, 0.1]


def play_out(clock: float, inc: float, overhead: float, use: str, solve: SolveModel = DEFAULT_SOLVE,
             mtg: int | None = None) -> tuple[float, list[float]]:
    """Spend each move's soft or hard budget plus the overhead, from 60 empties to the end; return
    the clock left (negative = lost on time) and the clock after each move."""
    left, trace = clock, []
    for empties in range(60, 0, -2):
        b = clock_budget(left, inc, mtg, empties, overhead, solve)
        left -= (b.hard if use == "hard" else b.soft) + overhead
        if left <= 0:
            return left, trace
        left += inc
        trace.append(left)
    return left, trace


def test_movetime_uses_the_time_less_the_overhead():
    assert movetime_budget(1.0, 0.01) == Budget(0.99, 0.99)
    assert movetime_budget(0.005, 0.01) == Budget(MIN_BUDGET, MIN_BUDGET)


@pytest.mark.parametrize("clock, inc, overhead", list(itertools.product(CLOCKS, INCS, OVERHEADS)))
def test_budget_is_sane_and_leaves_the_overhead(clock, inc, overhead):
    for empties in (60, 45, 30, 20, 12, 3, 1):
        b = clock_budget(clock, inc, None, empties, overhead)
        assert MIN_BUDGET <= b.soft <= b.hard
        usable = clock - overhead
        if usable > MIN_BUDGET:
            # the overhead and a jitter margin always stay on the clock
            assert b.hard <= max(MIN_BUDGET, usable - min(JITTER, 0.25 * usable)) + 1e-12


@pytest.mark.parametrize("clock, inc, overhead", list(itertools.product(CLOCKS[1:], INCS, OVERHEADS[:2])))
def test_never_flags_even_spending_every_hard_limit(clock, inc, overhead):
    if clock < 30 * (overhead + 0.004) and inc < overhead + 0.004:
        pytest.skip("the clock cannot cover the overhead of every move")
    left, _ = play_out(clock, inc, overhead, "hard")
    assert left > 0


@pytest.mark.parametrize("clock, inc", [(10.0, 0.1), (2.0, 0.05), (60.0, 0.0), (300.0, 2.0)])
def test_uses_the_clock_early_and_leaves_little(clock, inc):
    left, trace = play_out(clock, inc, 0.01, "soft")
    total = clock + 30 * inc
    used_by_move_20 = clock + 10 * inc - trace[9]   # after each side's 10th move (ply 20)
    assert used_by_move_20 >= 0.10 * clock
    assert left <= 0.10 * total


def test_moves_to_go_and_increment_raise_the_budget():
    base = clock_budget(10.0, 0.0, None, 40, 0.01)
    assert clock_budget(10.0, 0.5, None, 40, 0.01).soft > base.soft
    assert clock_budget(10.0, 0.0, 3, 40, 0.01).soft > base.soft
    last = clock_budget(10.0, 0.0, 1, 40, 0.01)
    assert last.hard > 0.8 * 10.0 and last.hard <= 10.0 - 0.01


def test_more_time_never_means_a_smaller_budget():
    for empties in (58, 40, 24, 14):
        softs = [clock_budget(c, 0.0, None, empties, 0.01).soft for c in (1, 2, 5, 10, 30, 100)]
        assert softs == sorted(softs)


def test_plans_the_exact_solve_when_it_fits():
    model = SolveModel(seconds_at_20=1.0, growth=3.0)
    # 20 empties, solve expected in 1 s: with 30 s on the clock the move may take what the solve needs
    b = clock_budget(30.0, 0.0, None, 20, 0.01, model)
    assert b.hard >= 2 * model.seconds(20) and b.soft >= model.seconds(20)
    # with 3 s it does not fit the solve share now, but at the next move (18 empties) it does:
    # this move leaves that solve its time
    b = clock_budget(3.0, 0.0, None, 20, 0.01, model)
    assert 3.0 - b.hard >= 2 * model.seconds(18)
    nxt = clock_budget(3.0 - b.hard, 0.0, None, 18, 0.01, model)
    assert nxt.hard >= 2 * model.seconds(18)
    # before the solve, the midgame keeps back what the solve will need: a dearer solve at the
    # same point (20 empties) leaves less for the midgame move
    mid = clock_budget(30.0, 0.0, None, 30, 0.01, model)
    dearer = clock_budget(30.0, 0.0, None, 30, 0.01, SolveModel(3.0, 3.0))
    assert dearer.soft < mid.soft < 30.0 / 5


def test_own_moves_left():
    assert [own_moves_left(e) for e in (60, 59, 2, 1, 0)] == [30, 30, 1, 1, 1]


SEARCH_SOLVE_SHARE = 0.8
"""The search starts the exact solve only when _core.solve_seconds(empties) fits this share of the
hard limit left (see Search.run): the oracle for whether a budget lets the search prove the result."""


def solve_gate_opens_at(clock: float, inc: float) -> int:
    """Empties at which the search's solve gate first opens when every move spends its soft budget."""
    left = clock
    for empties in range(60, 0, -2):
        b = clock_budget(left, inc, None, empties, 0.01)
        if b.hard is not None and _core.solve_seconds(empties) <= SEARCH_SOLVE_SHARE * b.hard:
            return empties
        left += inc - b.soft - 0.01
    return 0


@pytest.mark.parametrize("clock, inc, empties", [(60.0, 0.0, 20), (300.0, 2.0, 22), (600.0, 0.0, 22),
                                                 (10.0, 0.1, 16), (2.0, 0.05, 14)])
def test_a_long_clock_lets_the_search_prove_the_result_early(clock, inc, empties):
    assert solve_gate_opens_at(clock, inc) >= empties
