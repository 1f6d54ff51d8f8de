"""Settings that vary with a position's empties (a search depth, a blend weight) and their text form."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Schedule:
    """A value that depends on a position's empties: ``steps`` are (most empties, value) pairs in
    increasing order, ``rest`` the value beyond the last one. Written ``12`` (the same everywhere)
    or ``26:12,4`` (12 up to 26 empties, 4 beyond); see :func:`parse_schedule`.

    >>> s = parse_schedule("26:12,4", "--depth", whole=True)
    >>> s.at(26), s.at(27), str(s)
    (12.0, 4.0, '26:12,4')
    """
    steps: tuple[tuple[int, float], ...] = ()
    rest: float = 0.0

    def at(self, empties: int) -> float:
        for most, value in self.steps:
            if empties <= most:
                return value
        return self.rest

    def __str__(self) -> str:
        return ",".join([f"{e}:{v:g}" for e, v in self.steps] + [f"{self.rest:g}"])


def parse_schedule(text: str, what: str, whole: bool = False) -> Schedule:
    """``V`` or ``E1:V1,E2:V2,...,V`` (E increasing) as a Schedule; ValueError if malformed."""
    def number(t: str) -> float:
        v = float(t)
        if not math.isfinite(v) or v < 0 or (whole and v != int(v)):
            raise ValueError
        return v
    try:
        *pairs, last = text.split(",")
        steps = []
        for pair in pairs:
            e, _, v = pair.partition(":")
            steps.append((int(e), number(v)))
        rest = number(last)
    except ValueError:
        raise ValueError(f"bad {what} {text!r}: expected a value or EMPTIES:VALUE,...,VALUE "
                         f"(e.g. 26:12,4)") from None
    if any(b[0] <= a[0] for a, b in zip(steps, steps[1:])):
        raise ValueError(f"bad {what} {text!r}: the empties must increase")
    return Schedule(tuple(steps), rest)
