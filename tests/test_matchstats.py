"""Match statistics against values worked out by hand (and by a second route where one exists)."""

from __future__ import annotations

import importlib.util
import math
import random
from pathlib import Path
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


def _best_loglik_trinomial(losses: int, draws: int, wins: int, s: float) -> float:
    """The highest log-likelihood of L-D-W over trinomials of mean score s, by a fine grid
    over the draw probability (p_win = s - p_draw/2, p_loss = 1 - s - p_draw/2)."""
    best = -math.inf
    top = 2 * min(s, 1 - s)
    for k in range(1, 200000):
        d = top * k / 200000
        w, l = s - d / 2, 1 - s - d / 2
        if w <= 0 or l <= 0:
            continue
        best = max(best, wins * math.log(w) + draws * math.log(d) + losses * math.log(l))
    return best


@pytest.mark.parametrize("w,l,d", [(100, 100, 100), (30, 20, 50), (12, 25, 3), (120, 80, 200)])
def test_the_gsprt_is_the_ratio_of_the_best_likelihoods(w: int, l: int, d: int) -> None:
    s0, s1 = ms.expected_score(0), ms.expected_score(10)
    want = _best_loglik_trinomial(l, d, w, s1) - _best_loglik_trinomial(l, d, w, s0)
    assert ms.sprt_llr(w, l, d, 0, 10) == pytest.approx(want, abs=1e-4)


@pytest.mark.parametrize("seed", range(5))
def test_the_pentanomial_fit_has_the_mean_and_no_better_neighbour(seed: int) -> None:
    rng = random.Random(seed)
    counts = [rng.randint(1, 40) for _ in range(5)]
    freqs = [c / sum(counts) for c in counts]
    s = rng.uniform(0.3, 0.7)
    p = ms._nearest_with_mean(freqs, ms.PAIR_SCORES, s)
    assert sum(p) == pytest.approx(1.0, abs=1e-9)
    assert sum(q * v for q, v in zip(p, ms.PAIR_SCORES)) == pytest.approx(s, abs=1e-9)

    def loglik(q: list[float]) -> float:
        return sum(f * math.log(x) for f, x in zip(freqs, q))

    # moving mass between outcomes without changing the total or the mean never does better
    for _ in range(200):
        i, j, k = rng.sample(range(5), 3)
        vi, vj, vk = (ms.PAIR_SCORES[x] for x in (i, j, k))
        # a direction with zero sum and zero mean: e_i*a + e_j*b + e_k*c
        a = vk - vj
        b = vi - vk
        c = vj - vi
        eps = 1e-4 * rng.choice((-1, 1))
        q = list(p)
        q[i] += eps * a
        q[j] += eps * b
        q[k] += eps * c
        if min(q) > 0:
            assert loglik(q) <= loglik(p) + 1e-12


def test_sprt_verdicts() -> None:
    p = ms.SprtParams(0, 10, 0.05, 0.05)
    assert ms.sprt(300, 100, 100, p).verdict == "H1"
    assert ms.sprt(100, 300, 100, p).verdict == "H0"
    assert ms.sprt(10, 10, 10, p).verdict is None
    assert ms.sprt(0, 0, 0, p).llr == 0.0
    # a clean sweep moves the test, without making either hypothesis impossible
    assert 0 < ms.sprt(30, 0, 0, p).llr < math.inf and ms.sprt(0, 30, 0, p).llr < 0
    assert ms.sprt_pairs((0, 0, 0, 0, 20), ms.SprtParams(0, 250)).verdict == "H1"
    assert "H1 accepted" in str(ms.sprt(300, 100, 100, p))
    with pytest.raises(ms.StatsError):
        ms.sprt_pairs((1, 2, 3), p)


def test_five_games_of_equal_engines_decide_nothing() -> None:
    """The reproducer: two identical engines went 0-4-1 and the old test accepted H0 (LLR -3.89)."""
    assert ms.sprt(0, 4, 1, ms.SprtParams(0, 50)).verdict is None
    assert ms.sprt_pairs((2, 0, 0, 0, 0), ms.SprtParams(0, 50)).verdict is None


def _simulation():
    path = Path(__file__).resolve().parent.parent / "scripts" / "sprt_simulation.py"
    spec = importlib.util.spec_from_file_location("sprt_simulation", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("true_elo, wrong", [(0.0, "H1"), (50.0, "H0")])
def test_simulated_error_rates_hold(true_elo: float, wrong: str) -> None:
    """300 simulated matches with correlated game pairs (scripts/sprt_simulation.py has the
    large runs): the wrong verdict stays within alpha = beta = 5% plus three standard errors,
    and no test stops within 20 games (the old test did 8.7% of the time)."""
    sim = _simulation()
    r = sim.simulate(true_elo, ms.SprtParams(0, 50), runs=300, pairs=True, draw_elo=30, bias_sd=100,
                     max_games=20000, seed=7)
    assert r[wrong] <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 300)
    assert r["within20"] == 0.0


def test_sprt_params_parse_and_reject() -> None:
    p = ms.SprtParams.parse("elo0=0 elo1=10 alpha=0.05 beta=0.1")
    assert (p.elo0, p.elo1, p.alpha, p.beta) == (0, 10, 0.05, 0.1)
    assert ms.SprtParams.parse("elo1=5,elo0=-5").elo0 == -5
    for bad, word in (("elo0=10 elo1=0", "elo0 < elo1"), ("alpha=0.7", "alpha"),
                      ("gamma=1", "gamma"), ("elo1=ten", "ten")):
        with pytest.raises(ms.StatsError, match=word):
            ms.SprtParams.parse(bad)
