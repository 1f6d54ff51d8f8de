"""Time budgets for one search, as pure functions of the clock and the position.

The plan for a game clock: an Othello game ends after a known number of moves (one per empty
square, passes aside), so the engine can plan to use nearly all of its clock. It keeps back the
Move Overhead per move still to play plus a small safety share, and plans the exact endgame solve
for one of its moves: the search starts the solve only when its own estimate of the cost
(``_core.solve_seconds``) fits 80% of the hard limit, and stops once the result is proven, so
what a solve is given and does not use, and the increments of the moves after the proof (they
are answered at once), stay on the clock to the end. The plan therefore keeps back only what
opens the gate at the planned move, picks that move where this is worth about one midgame move,
and shares the rest over the moves before it by a phase weight; the moves just before the solve
are kept short of their own gate, so that the search does not prove the result early with the
pool still full.

Every hard limit, the solve's too, keeps a safety margin on the clock beyond the overhead and the
later moves' least time: MARGIN (0.1 s), or LATE_FACTOR times the lateness the engine has seen
(how long after their hard limits its searches ended: the machine's load). A clock reported in
whole seconds (GTP's ``time_left``) is read as what is surely left (``reported_clock``): half a
second less, or the engine's own account of the clock where that lies between the two.

Nothing here assumes an 8x8 game: the moves still to play come from the empty squares (a 26x26
game has over 670 moves), the solve estimate saturates instead of overflowing on hundreds of
empties, and the plan costs time linear in the moves left.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from othello_engine import _core

MIN_BUDGET = 0.001
"""Smallest budget (s): enough for a shallow search, so that even a flagging engine answers."""
MIN_MOVE = 0.01
"""Least time (s) any later move is assumed to take on top of the overhead (reply, depth 1)."""
SOFT_FACTOR = 0.5
HARD_FACTOR = 1.3
"""A move's planned share of the clock becomes soft = SOFT_FACTOR * share and hard = HARD_FACTOR *
share (where the clock allows): an iteration started before soft often ends past it, so the time
spent is between the two and near the share on average."""
MAX_SHARE = 0.35
"""Most of the usable clock one move may take while five or more moves remain."""
SAFETY_SHARE = 0.02
"""Share of the clock kept back against slow replies, at most SAFETY_CAP seconds."""
SAFETY_CAP = 0.5
MARGIN = 0.1
"""The least safety margin (s) every hard limit keeps on the clock beyond the overhead and the
later moves' least time (at most MARGIN_SHARE of the usable time, so that an all but empty clock
still answers): on a loaded machine a search can end tens of milliseconds after its hard limit, and a
GUI's clock runs on while it reads the reply. ``safety_margin`` raises it with the lateness seen."""
MARGIN_SHARE = 0.5
"""Most of the usable clock the margin may take: at 1 s + 20 ms the clock is near 0.3 s for
many moves, where a quarter would cut the margin to 70 ms."""
LATE_FACTOR = 3.0
"""The margin is at least this many times the lateness seen (``next_lateness``): a machine busy
enough to make one search end late can make the next one later."""
LATE_DECAY = 0.8
"""Each move keeps this share of the lateness seen before it: a burst of load fades in a few
moves, a steady one keeps being measured."""
MAX_MARGIN = 5.0
"""The margin's ceiling (s): a stall of seconds (a suspended laptop) must not starve a long game."""
GATE_SHARE = 0.8
"""The search starts the exact solve only when ``_core.solve_seconds(empties)`` fits this share of
the hard limit left (``Search.run``): a move planned as the solve gets a hard limit that opens it."""
SOLVE_MARGIN = 2.0
"""The moves after the solve are planned to cost SOLVE_MARGIN times the solve estimate (they are
answered from the proof; the margin covers a solve cut short)."""
SOLVE_MOVES = 1.0
"""The solve is planned for the first move at which what it needs kept back (the hard limit that
opens the gate, the moves after it and their increments) is at most SOLVE_MOVES midgame moves'
worth of the pool: what the solve was kept and did not use stays on the clock to the end, so a
dear solve is planned only where the clock is long."""
GATE_ROOM = 0.9
"""A midgame move before the planned solve takes at most this share of the hard limit that would
open the search's gate (else it would solve early and leave the rest of the pool unspent)."""
LATER_ROOM = 0.5
"""...and the plan gives the moves after this one at most this share of it: near the end the
search often proves the result before its planned solve, unasked, and what such a move was given
and did not use is left on the clock; the earlier moves take it instead."""
LATE_MOVES = 2
"""The last LATE_MOVES moves before the planned solve get soft = hard = their share."""
MAX_SOLVE = 1e9
"""The solve estimate saturates here (seconds): hundreds of empties would overflow a float."""


@dataclass(frozen=True)
class Budget:
    """How long one search may take, in seconds: start no new iteration after ``soft``, stop the
    search at ``hard``. ``None`` means no limit."""

    soft: float | None
    hard: float | None


@dataclass(frozen=True)
class SolveModel:
    """Expected time of an exact endgame solve: ``seconds_at_20 * growth ** (empties - 20)``.
    Calibrate it with ``scripts/bench_time.py --calibrate``."""

    seconds_at_20: float
    growth: float

    def seconds(self, empties: int) -> float:
        try:
            return min(MAX_SOLVE, self.seconds_at_20 * self.growth ** (empties - 20))
        except OverflowError:
            return MAX_SOLVE


DEFAULT_SOLVE = SolveModel(seconds_at_20=_core.solve_seconds(20),
                           growth=_core.solve_seconds(21) / _core.solve_seconds(20))
"""The search's own estimate (``_core.solve_seconds``, which decides whether it starts the solve),
so that the plan and the search agree on when the result can be proven."""


def solve_model(size: int) -> SolveModel:
    """The solve estimate of a size x size board: DEFAULT_SOLVE up to 8x8; beyond, the core's own
    estimate for that size (``_core.solve_seconds_n``: the same tree, dearer nodes), so that the
    plan and the search's gate agree there too."""
    if size <= 8:
        return DEFAULT_SOLVE
    at_20 = _core.solve_seconds_n(20, size)
    return SolveModel(seconds_at_20=at_20, growth=_core.solve_seconds_n(21, size) / at_20)


def own_moves_left(empties: int) -> int:
    """Moves the side to move still plays if nobody passes: half the empties, rounded up."""
    return max(1, (empties + 1) // 2)


def phase_weight(empties: int) -> float:
    """Relative share of the clock for a move before the endgame solve: opening moves are
    cheaper (they matter less and book or shallow search does), the midgame counts fully."""
    return 0.6 if empties >= 50 else 1.0


def max_share(horizon: int) -> float:
    """Most of the usable clock one move may take when `horizon` moves remain to plan for."""
    return min(0.9, max(MAX_SHARE, 1.5 / horizon))


def reported_clock(reported: float, resolution: float, own: Optional[float] = None) -> float:
    """What is surely left on a clock that a controller reports to ``resolution`` seconds (GTP's
    ``time_left`` is whole seconds), given the engine's ``own`` account of that clock where it
    keeps one (the last report less the time it measured since, Move Overhead included).

    Quarry rounds to the nearest second, so what is left may be half a second less than its
    report; othello-match and gogui drop the fraction, so it may be up to a second more. The
    clock is therefore at least the report less half a step, and the own account (which knows the
    fraction) is used where it lies between that and the report.

    >>> reported_clock(5, 1.0), reported_clock(5, 1.0, own=4.8), reported_clock(5, 1.0, own=5.7)
    (4.5, 4.8, 5)
    >>> reported_clock(5, 1.0, own=3.0), reported_clock(0, 1.0), reported_clock(2.0, 0.001)
    (4.5, 0.0, 1.9995)
    """
    floor = reported - resolution / 2
    left = floor if own is None else max(floor, min(own, reported))
    return max(0.0, left)


def next_lateness(lateness: float, late: float) -> float:
    """The lateness estimate after a search that ended ``late`` seconds after its hard limit
    (negative: early): the new lateness if larger, else the old one fading by LATE_DECAY.

    >>> next_lateness(0.0, 0.02), round(next_lateness(0.1, -0.5), 3)
    (0.02, 0.08)
    """
    return max(0.0, late, lateness * LATE_DECAY)


def safety_margin(lateness: float = 0.0) -> float:
    """The margin every hard limit keeps on the clock (s) when searches have been ending
    ``lateness`` seconds after their hard limits: MARGIN on a quiet machine, LATE_FACTOR times
    the lateness on a busy one, at most MAX_MARGIN.

    >>> safety_margin(), round(safety_margin(0.2), 3), safety_margin(60.0)
    (0.1, 0.6, 5.0)
    """
    return min(MAX_MARGIN, max(MARGIN, LATE_FACTOR * lateness))


def movetime_budget(movetime: float, overhead: float) -> Budget:
    """A fixed time per move: use it all, minus the overhead kept for the reply to get out.

    >>> movetime_budget(1.0, 0.01)
    Budget(soft=0.99, hard=0.99)
    """
    t = max(MIN_BUDGET, movetime - overhead)
    return Budget(soft=t, hard=t)


def clock_budget(remaining: float, increment: float, moves_to_go: Optional[int], empties: int,
                 overhead: float, solve: SolveModel = DEFAULT_SOLVE, margin: float = MARGIN) -> Budget:
    """Budget for one move from a game clock (all times in seconds).

    remaining: the side to move's clock (what is surely left: see reported_clock); increment:
    added after each of its moves; moves_to_go: moves to the next time control (None: the clock
    covers the rest of the game); empties: empty squares; overhead: time lost per move outside the
    search (I/O, the GUI's lag); margin: kept on the clock by every hard limit (see
    safety_margin), also by the one that opens the exact solve.

    >>> b = clock_budget(10.0, 0.1, None, 56, 0.01)
    >>> 0.1 < b.soft < b.hard < 1.0
    True
    """
    n = own_moves_left(empties)
    horizon = min(moves_to_go, n) if moves_to_go else n
    usable = remaining - overhead
    if usable <= MIN_BUDGET:
        return Budget(MIN_BUDGET, MIN_BUDGET)
    later = horizon - 1
    # what the later moves need at the least, beyond the increments they bring
    future_min = max(0.0, later * (overhead + MIN_MOVE - increment),
                     overhead + MIN_MOVE if later else 0.0)
    cap = max(MIN_BUDGET, usable - future_min - min(margin, MARGIN_SHARE * usable))
    safety = min(SAFETY_SHARE * remaining, SAFETY_CAP)
    pool = max(MIN_BUDGET, usable + later * (increment - overhead) - safety)

    # our moves to come within the horizon; what a solve at the i-th of them needs kept back
    plies = [empties - 2 * i for i in range(horizon)]
    weights = [phase_weight(e) for e in plies]
    cost = [solve.seconds(e) for e in plies]
    # after[i]: the solve estimates of the moves after the i-th; before[i]: the weights before it
    # (running sums, so that the plan stays linear in the moves left: hundreds on big boards)
    after = [0.0] * (horizon + 1)
    for i in range(horizon - 1, 0, -1):
        after[i - 1] = after[i] + cost[i]
    before = [0.0] * (horizon + 1)
    for i in range(horizon):
        before[i + 1] = before[i] + weights[i]

    def needs(i: int) -> float:
        """What a solve at plies[i] keeps back of the pool: the hard limit that opens the search's
        gate then with the margin every hard limit keeps, the moves after it (their
        least time, or the increments they bring if more: those are part of the pool, but come
        too late to be spent before the proof)."""
        return (cost[i] / GATE_SHARE + margin + SOLVE_MARGIN * after[i]
                + max(MIN_MOVE, increment - overhead) * (later - i))

    # the planned solve: the first later move whose needs are worth at most SOLVE_MOVES midgame
    # moves (what a solve keeps back and does not use is left on the clock at the end)
    solve_at = next((i for i in range(1, horizon)
                     if needs(i) <= SOLVE_MOVES * (pool - needs(i)) / before[i]), horizon)
    reserve = needs(solve_at) if solve_at < horizon else 0.0
    gate = solve.seconds(empties) / GATE_SHARE
    # solve now when the search's gate opens with what the moves after it do not need, unless
    # this move can spend (as a midgame move, short of the gate) what the planned solve leaves
    later_cost = SOLVE_MARGIN * after[0]
    hard = min(cap, pool - later_cost)
    if gate <= hard and pool - reserve > gate:
        hard = max(MIN_BUDGET, hard)
        return Budget(soft=hard, hard=hard)
    spend = max(pool - reserve, pool * 0.5)
    share = _first_share(spend, weights[:max(1, solve_at)], plies, solve)
    # the per-move cap counts the moves that cost time: those up to and including the solve; a
    # share swollen by later moves that can take little (see _first_share) may pass it
    hard_cap = min(cap, max(pool * max_share(min(horizon, solve_at + 1)), share))
    if solve_at < horizon:
        # a solve started now would end early and leave the rest of the pool unspent
        hard_cap = min(hard_cap, max(MIN_BUDGET, gate * GATE_ROOM))
    if solve_at > LATE_MOVES:
        hard = min(hard_cap, share * HARD_FACTOR, spend)
        soft = min(share * SOFT_FACTOR, hard)
    else:
        # the last moves before the solve spend their share, and no more: what they leave is
        # not spent later, what they take beyond it the solve misses
        hard = soft = min(hard_cap, share)
    return Budget(soft=max(MIN_BUDGET, soft), hard=max(MIN_BUDGET, hard))


def _first_share(spend: float, weights: list[float], plies: list[int], solve: SolveModel) -> float:
    """This move's part of `spend` shared by `weights` over the moves before the solve (their
    empties are ``plies``), where a later move takes no more than LATER_ROOM of the hard limit
    that would open the search's solve gate: what such a move cannot take goes to the others."""
    n = len(weights)
    limits = [math.inf] + [solve.seconds(e) / GATE_SHARE * LATER_ROOM for e in plies[1:n]]
    fixed = [False] * n
    while True:
        free = spend - sum(limits[i] for i in range(n) if fixed[i])
        weight = sum(w for w, f in zip(weights, fixed) if not f)
        per = max(0.0, free) / weight
        over = [i for i in range(n) if not fixed[i] and weights[i] * per > limits[i]]
        if not over:
            return weights[0] * per
        for i in over:
            fixed[i] = True
