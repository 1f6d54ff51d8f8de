"""Collect the data of Multi-ProbCut: the scores of full-width searches of one position at every
depth from 1 to --depth, for positions sampled from a games file.

Each output line is ``<empties> <v1> <v2> ... <vD>`` (centi-discs, side to move), or blank for a
position that did not give every depth's score. The file is appended to, a line a position, and the
run resumes after the whole lines already written; `othello_engine.train.mpc` fits
the margins from it (``python -m othello_engine.train.mpc FILE``).

    python scripts/mpc_data.py games.txt mpc.txt --positions 600 --depth 12
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from othello_engine import _core, weights
from othello_engine.resumable import settle
from othello_engine.train.records import game_positions, open_text, parse_game


def sample_positions(games_path: str, count: int, seed: int, empties: tuple[int, int]):
    """count positions (P, O) from the games of games_path, each from its own game, with the
    number of empties drawn uniformly from the range (inclusive), side to move able to move."""
    with open_text(games_path) as f:
        games = [line for line in f if line.strip()]
    rng = random.Random(seed)
    rng.shuffle(games)
    out = []
    for line in games:
        if len(out) >= count:
            break
        moves, _, _ = parse_game(line)
        want = rng.randint(*empties)
        for P, O, _ in game_positions(moves):
            if 64 - _core.popcount(P | O) == want and _core.legal_moves(P, O):
                out.append((P, O))
                break
    return out


def depth_scores(search, P: int, O: int, depth: int) -> list[int]:
    """The score of full-width (non-selective) searches of P to move at depths 1..depth."""
    scores: dict[int, int] = {}

    def seen(d, seldepth, exact, nodes, seconds, lines):
        scores[d] = lines[0][1]

    search.clear()
    search.run(P, O, 0xFFFFFFFFFFFFFFFF, depth, callback=seen, selective=False, pattern=True,
               solve_lead=0)
    return [scores.get(d) for d in range(1, depth + 1)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games")
    ap.add_argument("out")
    ap.add_argument("--positions", type=int, default=600)
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--empties", default="14-50", help="range of empties, MIN-MAX")
    ap.add_argument("--weights", help="pattern weights (default: the shipped ones)")
    args = ap.parse_args(argv)
    lo, hi = (int(x) for x in args.empties.split("-"))
    why = weights.use(args.weights)
    if why:
        print(why, file=sys.stderr)
        return 1
    done = settle(args.out)     # a line a position (blank where one gave no scores); a cut line goes
    positions = sample_positions(args.games, args.positions, args.seed, (lo, hi))
    search = _core.Search(64)
    t0 = time.perf_counter()
    with open(args.out, "a") as out:
        for i, (P, O) in enumerate(positions[done:], done):
            empties = 64 - _core.popcount(P | O)
            depth = min(args.depth, empties - 1)
            v = depth_scores(search, P, O, depth)
            # a blank line for a position without every depth's score keeps a line a position,
            # so that a resumed run starts at the right one (the fit skips blank lines)
            out.write("\n" if None in v else f"{empties} " + " ".join(str(x) for x in v) + "\n")
            out.flush()
            if (i + 1) % 20 == 0:
                print(f"{i + 1}/{len(positions)} positions, {time.perf_counter() - t0:.0f} s",
                      file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
