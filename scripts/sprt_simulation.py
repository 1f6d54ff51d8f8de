"""Simulated SPRTs: how often each verdict comes at a given true Elo, and after how many games.

Each simulated match plays game pairs (one opening, the colours swapped) between engines whose
true Elo difference is given, with a draw rate and an opening bias (each opening favours one
colour by a random Elo amount, so the two games of a pair are correlated, as in real matches).
The win/draw/loss probabilities follow the Bayeselo draw model, calibrated so that the expected
score per game is exactly the logistic score of the true Elo. The test is the one
``othello-match --sprt`` runs (:func:`othello_engine.match.stats.sprt_pairs`), or game by game
(``--model trinomial``).

    python scripts/sprt_simulation.py --elo 0 50 --runs 2000
"""

from __future__ import annotations

import argparse
import math
import random
import time

from othello_engine.match.stats import SprtParams, expected_score, pair_outcome, sprt, sprt_pairs


def outcome_probabilities(elo: float, draw_elo: float) -> tuple[float, float, float]:
    """(win, draw, loss) of a side ``elo`` points stronger, in the Bayeselo draw model."""
    win = 1.0 / (1.0 + 10.0 ** ((-elo + draw_elo) / 400.0))
    loss = 1.0 / (1.0 + 10.0 ** ((elo + draw_elo) / 400.0))
    return win, 1.0 - win - loss, loss


def calibrated_elo(true_elo: float, draw_elo: float, biases: list[float]) -> float:
    """The model's strength parameter whose mean score per game (over the opening biases, each
    played with both colours) is the logistic score of ``true_elo``."""
    goal = expected_score(true_elo)
    lo, hi = -1000.0, 1000.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        total = 0.0
        for b in biases:
            for sign in (1.0, -1.0):
                w, d, _ = outcome_probabilities(mid + sign * b, draw_elo)
                total += w + 0.5 * d
        if total / (2 * len(biases)) < goal:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def simulate(true_elo: float, params: SprtParams, *, runs: int, pairs: bool, draw_elo: float,
             bias_sd: float, max_games: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    strength = calibrated_elo(true_elo, draw_elo, [rng.gauss(0.0, bias_sd) for _ in range(2000)])
    h1 = h0 = early = 0
    games_total = 0

    def game(elo: float) -> float:
        w, d, _ = outcome_probabilities(elo, draw_elo)
        u = rng.random()
        return 1.0 if u < w else 0.5 if u < w + d else 0.0

    for _ in range(runs):
        penta = [0] * 5
        wins = losses = draws = 0
        verdict = None
        games = 0
        while games < max_games and verdict is None:
            bias = rng.gauss(0.0, bias_sd)
            first, second = game(strength + bias), game(strength - bias)
            games += 2
            penta[pair_outcome(first, second)] += 1
            for s in (first, second):
                wins += s == 1.0
                losses += s == 0.0
                draws += s == 0.5
            state = sprt_pairs(penta, params) if pairs else sprt(wins, losses, draws, params)
            verdict = state.verdict
        h1 += verdict == "H1"
        h0 += verdict == "H0"
        early += verdict is not None and games <= 20
        games_total += games
    return {"H1": h1 / runs, "H0": h0 / runs, "games": games_total / runs, "within20": early / runs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elo", type=float, nargs="+", default=[0.0, 25.0, 50.0], help="true Elo values")
    ap.add_argument("--sprt", default="elo0=0 elo1=50 alpha=0.05 beta=0.05")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--model", choices=("pentanomial", "trinomial"), default="pentanomial")
    ap.add_argument("--draw-elo", type=float, default=30.0, help="Bayeselo drawelo (30: about 8%% draws)")
    ap.add_argument("--bias", type=float, default=100.0, help="opening bias standard deviation (Elo)")
    ap.add_argument("--max-games", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    params = SprtParams.parse(args.sprt)
    print(f"SPRT {args.sprt}, {args.model}, {args.runs} runs each, drawelo {args.draw_elo:g}, "
          f"opening bias sd {args.bias:g} Elo")
    for elo in args.elo:
        started = time.monotonic()
        r = simulate(elo, params, runs=args.runs, pairs=args.model == "pentanomial", draw_elo=args.draw_elo,
                     bias_sd=args.bias, max_games=args.max_games, seed=args.seed)
        se = math.sqrt(max(r["H1"] * (1 - r["H1"]), 1e-9) / args.runs)
        print(f"true Elo {elo:+6.1f}: H1 {100 * r['H1']:5.1f}% (+/- {100 * se:.1f})  H0 {100 * r['H0']:5.1f}%  "
              f"mean games {r['games']:7.1f}  stopped within 20 games {100 * r['within20']:.1f}%  "
              f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
