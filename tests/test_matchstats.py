"""Match statistics against values worked out by hand (and by a second route where one exists)."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from othello_engine.match import stats as ms


def test_elo_of_textbook_scores() -> None:
    # 75% is a 3:1 odds ratio: 400 log10(3) = 190.8485...
    assert ms.elo_from_score(0.75) == pytest.approx(190.8485, abs=1e-3)
    assert ms.elo_from_score(0.25) == pytest.approx(-190.8485, abs=1e-3)
    # 10:1 odds is exactly 400 Elo
    assert ms.elo_from_score(10 / 11) == pytest.approx(400.0, abs=1e-9)
    assert ms.elo_from_score(0.5) == 0.0
    assert ms.elo_from_score(1.0) == math.inf and ms.elo_from_score(0.0) == -math.inf
    for elo in (-350.0, -20.0, 0.0, 7.5, 240.0):
        assert ms.elo_from_score(ms.expected_score(elo)) == pytest.approx(elo, abs=1e-9)
    with pytest.raises(ms.StatsError, match="1.5"):
        ms.elo_from_score(1.5)


def test_elo_margin_by_hand() -> None:
    # 50-50-0: s = 0.5, per-game variance 0.25, stdev of the mean 0.05; the interval
    # 0.5 +/- 1.959964 * 0.05 = [0.4020018, 0.5979982] maps to +/- 400 log10(0.5979982 / 0.4020018)
    est = ms.elo_estimate(50, 50, 0)
    assert est.elo == pytest.approx(0.0, abs=1e-9)
    assert est.margin == pytest.approx(400 * math.log10(0.5979982 / 0.4020018), abs=1e-4)
    assert est.margin == pytest.approx(68.99, abs=0.01)
    # 40-30-30: s = 0.55, var = (40*.45^2 + 30*.05^2 + 30*.55^2)/100 = 0.1725, stdev 0.0415331;
    # interval [0.4685954, 0.6314046] -> Elo [-21.86, 93.48]; centre 400 log10(.55/.45) = 34.86
    est = ms.elo_estimate(40, 30, 30)
    assert ms.score_variance(40, 30, 30) == pytest.approx(0.1725)
    assert est.elo == pytest.approx(34.86, abs=0.01)
    assert est.margin == pytest.approx((93.48 + 21.86) / 2, abs=0.02)
    # a clean sweep has no finite upper bound
    assert ms.elo_estimate(4, 0, 0).margin == math.inf
    assert str(ms.elo_estimate(4, 0, 0)) == "+inf +/- inf"
    assert str(ms.elo_estimate(40, 30, 30)) == "+34.9 +/- 57.7"


def test_los_against_the_normal_table() -> None:
    # (W - L) / sqrt(W + L) standard deviations: 60-40 is z = 2, Phi(2) = 0.97725 (table)
    assert ms.los(60, 40) == pytest.approx(0.97725, abs=1e-5)
    assert ms.los(40, 60) == pytest.approx(1 - 0.97725, abs=1e-5)
    assert ms.los(30, 30) == 0.5 and ms.los(0, 0) == 0.5
    # second route: the normal CDF of the statistics module
    for w, l in ((7, 3), (12, 20), (1, 0)):
        assert ms.los(w, l) == pytest.approx(NormalDist().cdf((w - l) / math.sqrt(w + l)), abs=1e-12)


def test_draw_ratio_and_score() -> None:
    assert ms.draw_ratio(3, 2, 5) == 0.5
    assert ms.draw_ratio(0, 0, 0) == 0.0
    assert ms.score_of(3, 2, 5) == 0.55
    with pytest.raises(ms.StatsError, match="losses"):
        ms.score_of(1, -1, 0)


def test_sprt_bounds() -> None:
    p = ms.SprtParams(0, 10, 0.05, 0.05)
    assert p.upper_bound == pytest.approx(math.log(19), abs=1e-12)   # 2.944439
    assert p.lower_bound == pytest.approx(-2.944439, abs=1e-6)
    q = ms.SprtParams(0, 5, 0.05, 0.10)
    assert q.upper_bound == pytest.approx(math.log(0.90 / 0.05))
    assert q.lower_bound == pytest.approx(math.log(0.10 / 0.95))


def _llr_by_games(results: list[float], elo0: float, elo1: float) -> float:
    """The same normal model summed game by game: sum of log N(x; s1, var) - log N(x; s0, var)."""
    n = len(results)
    mean = sum(results) / n
    var = sum((x - mean) ** 2 for x in results) / n
    s0, s1 = ms.expected_score(elo0), ms.expected_score(elo1)
    return sum(((x - s0) ** 2 - (x - s1) ** 2) / (2 * var) for x in results)


@pytest.mark.parametrize("w,l,d", [(100, 100, 100), (30, 20, 50), (12, 25, 3), (120, 80, 200)])
def test_sprt_llr_two_routes(w: int, l: int, d: int) -> None:
    games = [1.0] * w + [0.0] * l + [0.5] * d
    assert ms.sprt_llr(w, l, d, 0, 10) == pytest.approx(_llr_by_games(games, 0, 10), rel=1e-9)


def test_sprt_llr_hand_value() -> None:
    # W = L = D = 100: s = 0.5, var = 1/6; s1 = 1/(1+10^(-1/40)) = 0.5143868;
    # LLR = 300 * 0.0143868 * (-0.0143868) / (1/3) = -0.18629
    assert ms.sprt_llr(100, 100, 100, 0, 10) == pytest.approx(-0.18629, abs=1e-5)


def test_sprt_verdicts() -> None:
    p = ms.SprtParams(0, 10, 0.05, 0.05)
    assert ms.sprt(300, 100, 100, p).verdict == "H1"
    assert ms.sprt(100, 300, 100, p).verdict == "H0"
    assert ms.sprt(10, 10, 10, p).verdict is None
    assert ms.sprt(0, 0, 0, p).llr == 0.0
    # a clean sweep still moves the test (regularised by half a win and half a loss)
    assert ms.sprt(30, 0, 0, p).verdict == "H1"
    assert ms.sprt(0, 30, 0, p).verdict == "H0"
    assert "H1 accepted" in str(ms.sprt(300, 100, 100, p))


def test_sprt_params_parse_and_reject() -> None:
    p = ms.SprtParams.parse("elo0=0 elo1=10 alpha=0.05 beta=0.1")
    assert (p.elo0, p.elo1, p.alpha, p.beta) == (0, 10, 0.05, 0.1)
    assert ms.SprtParams.parse("elo1=5,elo0=-5").elo0 == -5
    for bad, word in (("elo0=10 elo1=0", "elo0 < elo1"), ("alpha=0.7", "alpha"),
                      ("gamma=1", "gamma"), ("elo1=ten", "ten")):
        with pytest.raises(ms.StatsError, match=word):
            ms.SprtParams.parse(bad)
