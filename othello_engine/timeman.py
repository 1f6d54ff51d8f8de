"""Time budgets for one search, as pure functions of the clock and the position."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """How long one search may take, in seconds: start no new iteration after ``soft``, stop the
    search at ``hard``. ``None`` means no limit."""

    soft: float | None
    hard: float | None


def movetime_budget(movetime: float, overhead: float) -> Budget:
    """A fixed time per move: use it all, minus the overhead kept for I/O."""
    t = max(0.001, movetime - overhead)
    return Budget(soft=t, hard=t)


def clock_budget(remaining: float, increment: float, moves_to_go: int | None, empties: int,
                 overhead: float) -> Budget:
    """Budget from a game clock. PLACEHOLDER rule (issue 4 refines it): spread the remaining time
    over the moves still to play by this side, never using more than a share of the clock."""
    own_moves_left = max(1, (empties + 1) // 2)
    horizon = min(moves_to_go, own_moves_left) if moves_to_go else own_moves_left
    usable = max(0.0, remaining - overhead)
    soft = usable / (horizon + 2) + 0.8 * increment
    hard = min(usable * 0.5, soft * 3.0)
    soft = min(soft, hard)
    return Budget(soft=max(0.001, soft), hard=max(0.002, hard))
