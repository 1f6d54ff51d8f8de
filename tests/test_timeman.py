"""Time budgets: never lose on time, use the clock, plan the exact solve; pure-function tests."""

from __future__ import annotations

import itertools
import math

import pytest

from othello_engine import _core
from othello_engine.timeman import (DEFAULT_SOLVE, MARGIN, MARGIN_SHARE, MAX_MARGIN, MIN_BUDGET, Budget, SolveModel,
                                    clock_budget, movetime_budget, next_lateness, own_moves_left,
                                    reported_clock, safety_margin, solve_model)

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
            assert b.hard <= max(MIN_BUDGET, usable - min(MARGIN, MARGIN_SHARE * usable)) + 1e-12


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


GATE = 0.8
"""The search starts the exact solve only when the solve estimate fits this share of the hard limit
left (Search.run): the oracle for whether a budget lets the search prove the result."""


def opens_gate(b: Budget, empties: int, model: SolveModel = DEFAULT_SOLVE) -> bool:
    return b.hard is not None and model.seconds(empties) <= GATE * b.hard


def test_plans_the_exact_solve_when_it_fits():
    model = SolveModel(seconds_at_20=1.0, growth=3.0)
    # 20 empties, solve expected in 1 s: with 30 s on the clock the move may take what the solve needs
    b = clock_budget(30.0, 0.0, None, 20, 0.01, model)
    assert opens_gate(b, 20, model) and b.soft == b.hard
    # with 1.2 s the gate cannot open now (1.25 s needed): this move stays short of the gate
    # and leaves the next one (18 empties) what opens it
    b = clock_budget(1.2, 0.0, None, 20, 0.01, model)
    assert not opens_gate(b, 20, model)
    nxt = clock_budget(1.2 - b.hard - 0.01, 0.0, None, 18, 0.01, model)
    assert opens_gate(nxt, 18, model)


def test_the_moves_before_the_planned_solve_keep_its_time():
    model = SolveModel(seconds_at_20=1.0, growth=3.0)
    # at 22 empties with 6 s the solve is planned for 20 (it needs 1.25 s then): spending all of
    # this move's hard limit leaves it, and this move does not open its own (dearer) gate
    b = clock_budget(6.0, 0.0, None, 22, 0.01, model)
    assert not opens_gate(b, 22, model)
    nxt = clock_budget(6.0 - b.hard - 0.01, 0.0, None, 20, 0.01, model)
    assert opens_gate(nxt, 20, model)
    # and it spends most of the rest: no more than the solve needs and a margin is kept back
    assert 6.0 - b.hard < 2.5 * model.seconds(20) / GATE


def play_with_proof(clock: float, inc: float, overhead: float,
                    solve_share: float) -> tuple[float, int, int]:
    """Play out a game against the search's gate: a move spends half way between its soft and hard
    limits, unless its hard limit opens the gate; then it proves the result in solve_share of the
    estimate (at most its hard limit) and every later move costs only the overhead. Returns the
    clock left at the end (negative: lost on time), the empties of the proof (0: none) and the
    own moves played after it."""
    left, proved, after = clock, 0, 0
    for empties in range(60, 0, -2):
        if proved:
            used, after = 0.001, after + 1
        else:
            b = clock_budget(left, inc, None, empties, overhead)
            if opens_gate(b, empties):
                used, proved = min(b.hard, solve_share * _core.solve_seconds(empties)), empties
            else:
                used = (b.soft + b.hard) / 2
        left -= used + overhead
        if left <= 0:
            return left, proved, after
        left += inc
    return left, proved, after


@pytest.mark.parametrize("clock, inc, proof_by", [(10.0, 0.1, 16), (2.0, 0.05, 14), (60.0, 0.0, 20),
                                                  (300.0, 2.0, 20), (600.0, 0.0, 20)])
@pytest.mark.parametrize("solve_share", [0.05, 0.3, 1.0])
def test_little_is_left_but_the_increments_after_the_proof(clock, inc, proof_by, solve_share):
    """The solve estimate is near the worst case: whether the solve takes 5% of it or all of it,
    the result is proven by proof_by empties and what is left at the end is the increments of the
    moves after the proof (answered at once) plus at most 5% of the base time and the safety
    margin (kept on the clock to the end)."""
    left, proved, after = play_with_proof(clock, inc, 0.01, solve_share)
    assert left > 0 and proved >= proof_by
    assert left - after * inc <= 0.05 * clock + MARGIN


def test_own_moves_left():
    assert [own_moves_left(e) for e in (60, 59, 2, 1, 0)] == [30, 30, 1, 1, 1]


def solve_gate_opens_at(clock: float, inc: float) -> int:
    """Empties at which the search's solve gate first opens when every move spends its soft budget."""
    left = clock
    for empties in range(60, 0, -2):
        b = clock_budget(left, inc, None, empties, 0.01)
        if b.hard is not None and _core.solve_seconds(empties) <= GATE * b.hard:
            return empties
        left += inc - b.soft - 0.01
    return 0


# 300 s + 2 s proves by 20, not 22: a proof at 22 would leave one more 2 s increment and the
# 10.8 s the gate needs at 22 mostly unspent (the plan weighs both against a midgame move)
@pytest.mark.parametrize("clock, inc, empties", [(60.0, 0.0, 20), (300.0, 2.0, 20), (600.0, 0.0, 22),
                                                 (10.0, 0.1, 16), (2.0, 0.05, 14)])
def test_a_long_clock_lets_the_search_prove_the_result_early(clock, inc, empties):
    assert solve_gate_opens_at(clock, inc) >= empties


# --- big boards: a 26x26 game has 672 moves, not 60 ------------------------------------------------

@pytest.mark.parametrize("size", [10, 16, 26])
@pytest.mark.parametrize("clock, inc", [(30.0, 0.0), (120.0, 0.1), (600.0, 0.0), (20.0, 0.05)])
def test_a_big_board_game_never_flags_and_uses_the_clock(size, clock, inc):
    """Spend every hard limit plus the overhead over a whole game of a big board, planned with the
    core's solve estimate of that size: the clock never runs out, the first moves are not starved
    (each gets a fair share of the game's moves), and little is left at the end."""
    model = solve_model(size)
    left, first = clock, None
    moves = own_moves_left(size * size - 4)
    for empties in range(size * size - 4, 0, -2):
        b = clock_budget(left, inc, None, empties, 0.01, model)
        assert MIN_BUDGET <= b.soft <= b.hard
        first = b.hard if first is None else first
        left -= b.hard + 0.01
        assert left > 0, (size, clock, inc, empties)
        left += inc
    assert first >= 0.3 * (clock - moves * 0.01) / moves
    assert left - inc <= 0.25 * (clock + moves * inc)


def test_the_solve_estimate_saturates_on_hundreds_of_empties():
    assert DEFAULT_SOLVE.seconds(672) == solve_model(26).seconds(672) > 1e6
    assert solve_model(8) == DEFAULT_SOLVE
    assert solve_model(10).seconds(20) > DEFAULT_SOLVE.seconds(20)   # dearer nodes on wide boards


def test_a_big_board_budget_is_quick_to_plan():
    import time
    started = time.perf_counter()
    for empties in range(672, 600, -2):
        clock_budget(300.0, 0.0, None, empties, 0.01, solve_model(26))
    assert time.perf_counter() - started < 2.0      # 36 budgets; linear in the moves left


# --- the safety margin: whole-second clocks and a loaded machine -------------------------------------

def test_a_whole_second_report_is_read_as_what_is_surely_left():
    # rounded to nearest (Quarry), "5" means 4.5 to 5.5 s; dropped fraction, 5 to 6 s
    assert reported_clock(5, 1.0) == 4.5
    # the own account knows the fraction where it agrees with the report...
    assert reported_clock(5, 1.0, own=4.7) == 4.7
    # ...but never more than the report, nor less than what the report guarantees
    assert reported_clock(5, 1.0, own=5.9) == 5
    assert reported_clock(5, 1.0, own=1.0) == 4.5
    assert reported_clock(0, 1.0, own=0.3) == 0.0
    # a millisecond clock (UCI's) loses nothing worth counting
    assert reported_clock(1.234, 0.001) == pytest.approx(1.2335)


def test_the_margin_follows_the_lateness_seen_and_fades():
    assert safety_margin(0.0) == MARGIN
    assert safety_margin(0.1) == pytest.approx(0.3)
    assert safety_margin(100.0) == MAX_MARGIN
    late = 0.0
    late = next_lateness(late, 0.2)       # a search ended 0.2 s after its hard limit
    assert late == 0.2
    for _ in range(20):                   # then 20 searches on time
        late = next_lateness(late, -0.01)
    assert late < 0.01 and safety_margin(late) == MARGIN


@pytest.mark.parametrize("base", [3, 5, 10, 30, 120])
@pytest.mark.parametrize("rounding", ["nearest", "floor"])
@pytest.mark.parametrize("lag", [0.0, 0.005])
def test_a_whole_second_clock_is_never_lost_spending_every_hard_limit(base, rounding, lag):
    """The controller's clock is the truth; it reports it in whole seconds before each move (Quarry
    rounds to nearest, othello-match drops the fraction) and charges each move the hard limit plus
    the overhead plus ``lag`` (what the pipes and the GUI cost beyond the Move Overhead; a lag well
    beyond it is what raising Move Overhead is for). The engine plans on what is surely left, with
    its own account (the last estimate less what it charged itself): the clock never runs out."""
    overhead = 0.01
    true, own, lowest = float(base), float(base), float(base)
    for empties in range(60, 0, -2):
        report = math.floor(true + 0.5) if rounding == "nearest" else math.floor(true)
        left = reported_clock(report, 1.0, own)
        assert left <= true + 1e-9 + 30 * lag
        b = clock_budget(left, 0.0, None, empties, overhead)
        true -= b.hard + overhead + lag
        own = left - b.hard - overhead
        lowest = min(lowest, true)
        assert true > 0, (base, rounding, empties)
    assert lowest > 0.02


@pytest.mark.parametrize("base, late", [(1.0, 0.02), (3.0, 0.1), (10.0, 0.2)])
def test_searches_that_end_late_raise_the_margin_so_the_clock_holds(base, late):
    """A loaded machine: every search ends ``late`` s after its hard limit, which spends in full.
    With the lateness fed back as the engine does (``Engine.budget``: added to the overhead of
    every later move, and the margin raised) the clock holds at base + 20 ms; planned as on a quiet
    machine, it runs out."""
    def play(adaptive: bool) -> float:
        clock, seen, lowest = base, 0.0, base
        for empties in range(56, 0, -2):
            if adaptive:
                b = clock_budget(clock, 0.02, None, empties, 0.01 + seen, margin=safety_margin(seen))
            else:
                b = clock_budget(clock, 0.02, None, empties, 0.01)
            clock -= b.hard + late + 0.01
            lowest = min(lowest, clock)
            if clock <= 0:
                return clock
            seen = next_lateness(seen, late)
            clock += 0.02
        return lowest
    assert play(adaptive=True) > 0
    assert play(adaptive=False) <= 0
