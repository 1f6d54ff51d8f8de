"""Time budgets for one search, as pure functions of the clock and the position.

The plan for a game clock: an Othello game ends after a known number of moves (one per empty
square, passes aside), so the engine can plan to use nearly all of its clock. It keeps back the
Move Overhead per move still to play plus a small safety share, reserves what the exact endgame
solve is expected to cost, and spreads the rest over its moves until that solve by a phase weight.
Once the solve fits the time left, the move that can solve gets a budget large enough for it. The
expected cost is the search's own (``_core.solve_seconds``), so that a move planned as the solve
gets a hard limit with which the search does start the solve.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from othello_engine import _core

MIN_BUDGET = 0.001
"""Smallest budget (s): enough for a shallow search, so that even a flagging engine answers."""
MIN_MOVE = 0.003
"""Least time (s) any later move is assumed to take on top of the overhead (reply, depth 1)."""
SOFT_FACTOR = 0.35
HARD_FACTOR = 1.0
"""A move's planned share of the clock becomes soft = SOFT_FACTOR * share and hard = HARD_FACTOR *
share (where the clock allows): an iteration started before soft often ends past it, so the time
spent is between the two and near the share on average."""
MAX_SHARE = 0.35
"""Most of the usable clock one move may take while five or more moves remain."""
SAFETY_SHARE = 0.02
"""Share of the clock kept back against slow replies, at most SAFETY_CAP seconds."""
SAFETY_CAP = 0.5
JITTER = 0.05
"""Kept on the clock beyond the overhead by every hard limit (at most a quarter of the usable
time): on a loaded machine a search can end tens of milliseconds after its hard limit."""
GATE_SHARE = 0.8
"""The search starts the exact solve only when ``_core.solve_seconds(empties)`` fits this share of
the hard limit left (``Search.run``): a move planned as the solve gets a hard limit that opens it."""
SOLVE_MARGIN = 2.0
SOLVE_SHARE = 0.6
"""Plan the solve for the first move at which the expected solve time (times SOLVE_MARGIN) fits
this share of the pool as it is now: the midgame moves before it spend some of that pool, so the
plan asks for more than the gate (GATE_SHARE of the at most 75% a solving move may take)."""
RESERVE_FACTOR = 1.0
"""The midgame keeps back RESERVE_FACTOR times the expected cost of the solve and the moves
after it: what is kept back and not spent is left on the clock at the end."""


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
        return self.seconds_at_20 * self.growth ** (empties - 20)


DEFAULT_SOLVE = SolveModel(seconds_at_20=_core.solve_seconds(20),
                           growth=_core.solve_seconds(21) / _core.solve_seconds(20))
"""The search's own estimate (``_core.solve_seconds``, which decides whether it starts the solve),
so that the plan and the search agree on when the result can be proven."""


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


def movetime_budget(movetime: float, overhead: float) -> Budget:
    """A fixed time per move: use it all, minus the overhead kept for the reply to get out.

    >>> movetime_budget(1.0, 0.01)
    Budget(soft=0.99, hard=0.99)
    """
    t = max(MIN_BUDGET, movetime - overhead)
    return Budget(soft=t, hard=t)


def clock_budget(remaining: float, increment: float, moves_to_go: Optional[int], empties: int,
                 overhead: float, solve: SolveModel = DEFAULT_SOLVE) -> Budget:
    """Budget for one move from a game clock (all times in seconds).

    remaining: the side to move's clock; increment: added after each of its moves; moves_to_go:
    moves to the next time control (None: the clock covers the rest of the game); empties: empty
    squares; overhead: time lost per move outside the search (I/O, the GUI's lag).

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
    cap = max(MIN_BUDGET, usable - future_min - min(JITTER, 0.25 * usable))
    safety = min(SAFETY_SHARE * remaining, SAFETY_CAP)
    pool = max(MIN_BUDGET, usable + later * (increment - overhead) - safety)

    # our moves to come within the horizon, and the first one that can afford the exact solve
    plies = [empties - 2 * i for i in range(horizon)]
    solve_at = next((i for i, e in enumerate(plies)
                     if solve.seconds(e) * SOLVE_MARGIN <= SOLVE_SHARE * pool), horizon)
    if solve_at == 0:
        # the solve fits: the search ends when it has proved the result, and the moves after it
        # are cheap, so let it take what it needs up to the per-move cap
        later_cost = sum(solve.seconds(e) for e in plies[1:]) * SOLVE_MARGIN
        hard_cap = cap if horizon == 1 else min(cap, pool * max_share(2))
        hard = max(MIN_BUDGET, min(hard_cap, pool - later_cost))
        if solve.seconds(empties) <= GATE_SHARE * hard:
            return Budget(soft=hard, hard=hard)
        # the search would not start the solve with this hard limit: plan it for the next move
        solve_at = next((i for i, e in enumerate(plies) if i > 0 and
                         solve.seconds(e) * SOLVE_MARGIN <= SOLVE_SHARE * pool), horizon)
    reserve = sum(solve.seconds(e) for e in plies[solve_at:]) * RESERVE_FACTOR
    weights = [phase_weight(e) for e in plies[:solve_at]]
    # the per-move cap counts the moves that cost time: those up to and including the solve
    hard_cap = min(cap, pool * max_share(min(horizon, solve_at + 1)))
    share = max(pool - reserve, pool * 0.5) * weights[0] / sum(weights)
    hard = min(hard_cap, share * HARD_FACTOR)
    soft = min(share * SOFT_FACTOR, hard)
    return Budget(soft=max(MIN_BUDGET, soft), hard=max(MIN_BUDGET, hard))
