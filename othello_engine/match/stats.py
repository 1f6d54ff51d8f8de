"""Match statistics as pure functions: Elo difference and its margin, LOS, draw ratio, SPRT.

All Elo figures use the logistic model: a rating difference ``d`` gives the stronger side an
expected score ``1 / (1 + 10 ** (-d / 400))``. Scores count a win 1, a draw 1/2, a loss 0.

>>> round(elo_from_score(0.75), 1)
190.8
>>> round(los(60, 40), 4)
0.9772
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Optional

from othello_engine.textnum import ascii_float

Z95 = NormalDist().inv_cdf(0.975)
"""The two-sided 95% quantile of the standard normal distribution (1.95996...)."""


class StatsError(ValueError):
    """Bad input to a statistic, e.g. negative counts or SPRT bounds out of range."""


def expected_score(elo: float) -> float:
    """The expected score of a side rated ``elo`` points above its opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    """The Elo difference that makes ``score`` (0 < score < 1) the expected score;
    +/-inf at 1 and 0."""
    if not 0.0 <= score <= 1.0:
        raise StatsError(f"score {score!r} is not between 0 and 1")
    if score == 1.0:
        return math.inf
    if score == 0.0:
        return -math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def _check_counts(wins: int, losses: int, draws: int) -> int:
    for name, n in (("wins", wins), ("losses", losses), ("draws", draws)):
        if n < 0:
            raise StatsError(f"{name} = {n} is negative")
    return wins + losses + draws


def score_of(wins: int, losses: int, draws: int) -> float:
    """The mean score per game (0.5 with no games)."""
    n = _check_counts(wins, losses, draws)
    return (wins + 0.5 * draws) / n if n else 0.5


def score_variance(wins: int, losses: int, draws: int) -> float:
    """The variance of one game's score (1, 1/2, 0) in the sample."""
    n = _check_counts(wins, losses, draws)
    if not n:
        return 0.0
    s = score_of(wins, losses, draws)
    return (wins * (1 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s ** 2) / n


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with the half-width of its 95% confidence interval (both may be inf)."""

    elo: float
    margin: float

    def __str__(self) -> str:
        margin = "inf" if math.isinf(self.margin) else f"{self.margin:.1f}"
        return f"{_fmt(self.elo)} +/- {margin}"


def _fmt(x: float) -> str:
    return ("+inf" if x > 0 else "-inf") if math.isinf(x) else f"{x:+.1f}"


def elo_estimate(wins: int, losses: int, draws: int) -> EloEstimate:
    """Elo difference from W-L-D with a 95% margin: the score's normal confidence interval
    mapped through :func:`elo_from_score`, half its width (the convention of cutechess).

    >>> str(elo_estimate(50, 50, 0))
    '+0.0 +/- 69.0'
    """
    n = _check_counts(wins, losses, draws)
    if not n:
        return EloEstimate(0.0, math.inf)
    s = score_of(wins, losses, draws)
    stdev = math.sqrt(score_variance(wins, losses, draws) / n)
    low = min(1.0, max(0.0, s - Z95 * stdev))
    high = min(1.0, max(0.0, s + Z95 * stdev))
    elo = elo_from_score(s)
    if s in (0.0, 1.0):  # a clean sweep bounds the Elo on one side only
        return EloEstimate(elo, math.inf)
    margin = (elo_from_score(high) - elo_from_score(low)) / 2
    return EloEstimate(elo, margin)


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority: the probability that the side with ``wins`` is the stronger,
    from the normal approximation to the decisive games (draws carry no information); 0.5 with
    no decisive game."""
    _check_counts(wins, losses, 0)
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def draw_ratio(wins: int, losses: int, draws: int) -> float:
    """The share of drawn games (0 with no games)."""
    n = _check_counts(wins, losses, draws)
    return draws / n if n else 0.0


@dataclass(frozen=True)
class SprtParams:
    """A sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1, with error
    rates alpha (accept H1 when H0 holds) and beta (accept H0 when H1 holds)."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise StatsError(f"SPRT needs elo0 < elo1, got elo0={self.elo0} elo1={self.elo1}")
        for name, x in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < x < 0.5:
                raise StatsError(f"SPRT {name}={x} must be between 0 and 0.5")

    @property
    def lower_bound(self) -> float:
        """Accept H0 when the LLR falls to this: ln(beta / (1 - alpha))."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """Accept H1 when the LLR rises to this: ln((1 - beta) / alpha)."""
        return math.log((1.0 - self.beta) / self.alpha)

    @classmethod
    def parse(cls, text: str) -> SprtParams:
        """Read ``elo0=0 elo1=10 alpha=0.05 beta=0.05`` (any subset, any order, spaces or commas)."""
        values: dict[str, float] = {}
        for item in text.replace(",", " ").split():
            key, sep, val = item.partition("=")
            if not sep or key not in ("elo0", "elo1", "alpha", "beta"):
                raise StatsError(f"bad SPRT setting {item!r}: expected elo0=, elo1=, alpha= or beta=")
            value = ascii_float(val)
            if value is None:
                raise StatsError(f"bad SPRT setting {item!r}: {val!r} is not a number")
            values[key] = value
        return cls(**values)


@dataclass(frozen=True)
class SprtResult:
    """The log-likelihood ratio so far, the bounds, and the verdict: ``"H1"`` (elo1 holds: the
    first engine is stronger), ``"H0"`` (elo0 holds), or None (keep playing)."""

    llr: float
    lower: float
    upper: float
    verdict: Optional[str]

    def __str__(self) -> str:
        tail = {"H1": "H1 accepted", "H0": "H0 accepted", None: "continue"}[self.verdict]
        return f"LLR {self.llr:.2f} ({self.lower:.2f}, {self.upper:.2f}) {tail}"


def sprt_llr(wins: int, losses: int, draws: int, elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of elo1 over elo0 for W-L-D, with game scores taken
    as normal with the sample's variance (the normalized GSPRT of fishtest's trinomial model):
    ``N (s1 - s0) (2 s - s0 - s1) / (2 var)``. A sample with no variance yet (every game the
    same result) gets half a win and half a loss added, so a clean sweep still moves the test."""
    n = _check_counts(wins, losses, draws)
    if n == 0:
        return 0.0
    if (wins == n or losses == n or draws == n):
        w, l, d = wins + 0.5, losses + 0.5, float(draws)
        n = n + 1
    else:
        w, l, d = float(wins), float(losses), float(draws)
    s = (w + 0.5 * d) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s ** 2) / n
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)


def sprt(wins: int, losses: int, draws: int, params: SprtParams) -> SprtResult:
    """The SPRT's state after W-L-D (counted for the first engine)."""
    llr = sprt_llr(wins, losses, draws, params.elo0, params.elo1)
    lo, hi = params.lower_bound, params.upper_bound
    verdict = "H1" if llr >= hi else "H0" if llr <= lo else None
    return SprtResult(llr, lo, hi, verdict)
