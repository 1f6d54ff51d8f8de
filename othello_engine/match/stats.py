"""Match statistics as pure functions: Elo difference and its margin, LOS, draw ratio, the GSPRT.

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
from typing import Optional, Sequence

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
    first engine is stronger), ``"H0"`` (elo0 holds), or None (keep playing). ``model`` names the
    outcomes counted: ``"pentanomial"`` (game pairs) or ``"trinomial"`` (single games)."""

    llr: float
    lower: float
    upper: float
    verdict: Optional[str]
    model: str = "trinomial"

    def __str__(self) -> str:
        tail = {"H1": "H1 accepted", "H0": "H0 accepted", None: "continue"}[self.verdict]
        return f"LLR {self.llr:.2f} ({self.lower:.2f}, {self.upper:.2f}) {tail}"


GAME_SCORES = (0.0, 0.5, 1.0)
"""The score of one game, in the order counts are given: a loss, a draw, a win."""

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The mean score per game of a game pair (one opening played once with each colour): 0, 1/2, 1,
3/2 or 2 points out of 2, in the order pentanomial counts are given."""

_UNSEEN = 1e-3
"""The count an outcome not seen yet is given, so that each keeps a probability (without it a
clean sweep would make one hypothesis impossible)."""


def _nearest_with_mean(freqs: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """The distribution over ``values`` of mean ``s`` that gives the observed frequencies the
    highest likelihood: ``p_i = f_i / (1 + lam (v_i - s))``, where ``lam`` is the root of
    ``sum_i p_i (v_i - s) = 0`` in the interval that keeps every ``p_i`` positive."""
    lo = -1.0 / (max(values) - s)
    hi = 1.0 / (s - min(values))

    def excess(lam: float) -> float:  # falls as lam rises: one root, found by bisection
        return sum(f * (v - s) / (1.0 + lam * (v - s)) for f, v in zip(freqs, values))

    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if excess(mid) > 0:
            lo = mid
        else:
            hi = mid
    lam = 0.5 * (lo + hi)
    return [f / (1.0 + lam * (v - s)) for f, v in zip(freqs, values)]


def gsprt_llr(counts: Sequence[int], values: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of elo1 over elo0 for outcome ``counts`` over
    outcome ``values`` (GAME_SCORES for single games, PAIR_SCORES for game pairs). Each hypothesis
    gets the distribution of its mean score that makes the sample most likely; the LLR is the log
    of the ratio of those two likelihoods (the GSPRT of the chess engine testing frameworks).

    >>> gsprt_llr((0, 0, 0), GAME_SCORES, 0, 10)
    0.0
    >>> gsprt_llr((10, 20, 40, 20, 10), PAIR_SCORES, 0, 10) < 0 < gsprt_llr((5, 20, 40, 20, 15), PAIR_SCORES, 0, 10)
    True
    """
    if any(c < 0 for c in counts):
        raise StatsError(f"negative count in {tuple(counts)}")
    n = sum(counts)
    if n == 0:
        return 0.0
    weights = [c if c else _UNSEEN for c in counts]
    total = sum(weights)
    freqs = [w / total for w in weights]
    s0, s1 = expected_score(elo0), expected_score(elo1)
    p0 = _nearest_with_mean(freqs, values, s0)
    p1 = _nearest_with_mean(freqs, values, s1)
    return n * sum(f * math.log(a / b) for f, a, b in zip(freqs, p1, p0))


def sprt_llr(wins: int, losses: int, draws: int, elo0: float, elo1: float) -> float:
    """The GSPRT's log-likelihood ratio of elo1 over elo0 for W-L-D counted game by game
    (the trinomial model)."""
    _check_counts(wins, losses, draws)
    return gsprt_llr((losses, draws, wins), GAME_SCORES, elo0, elo1)


def pair_outcome(first: float, second: float) -> int:
    """The pentanomial class (0..4) of a game pair from the first engine's two game scores.

    >>> pair_outcome(1.0, 0.5)
    3
    """
    return round(2 * (first + second))


def _verdict(llr: float, params: SprtParams, model: str) -> SprtResult:
    lo, hi = params.lower_bound, params.upper_bound
    verdict = "H1" if llr >= hi else "H0" if llr <= lo else None
    return SprtResult(llr, lo, hi, verdict, model)


def sprt(wins: int, losses: int, draws: int, params: SprtParams) -> SprtResult:
    """The SPRT's state after W-L-D (counted for the first engine), game by game. A match
    whose games come in pairs uses :func:`sprt_pairs` instead."""
    return _verdict(sprt_llr(wins, losses, draws, params.elo0, params.elo1), params, "trinomial")


def sprt_pairs(pentanomial: Sequence[int], params: SprtParams) -> SprtResult:
    """The SPRT's state after game pairs: ``pentanomial[k]`` pairs scored k/2 points of 2 by the
    first engine (see :func:`pair_outcome`). Pairs played on the same opening with the colours
    swapped share the opening's bias; counting them as pairs takes it into account, where
    counting their games apart overstates how much the games tell."""
    if len(pentanomial) != 5:
        raise StatsError(f"a pentanomial has 5 counts, got {len(pentanomial)}")
    return _verdict(gsprt_llr(pentanomial, PAIR_SCORES, params.elo0, params.elo1), params, "pentanomial")
