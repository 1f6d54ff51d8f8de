"""How far a position file's labels lie from the exact scores, by empties.

Give two position files of the same games in the same order (``othello-train label`` of one game
file): LABELS, labelled as a round labels them (the games' results and, with --weights, search
scores), and EXACT, labelled with ``--depth 0 --exact E`` (exact scores up to E empties, nothing
beyond). For every position EXACT scores, it prints the mean absolute distance to the exact score
of the game's result, of the search score and of their blend (--blend, the weight of the search
score: fit's default 0.5), in discs, and how many positions had a search score.

    othello-train label games.txt.gz labels.pos --weights W --depth 8
    othello-train label games.txt.gz exact.pos --weights W --depth 0 --exact 19
    python scripts/label_noise.py labels.pos exact.pos
"""

from __future__ import annotations

import argparse
import sys

from othello_engine.train.records import open_text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("labels", help="position file labelled as a round labels it")
    ap.add_argument("exact", help="the same games labelled with --depth 0 --exact E")
    ap.add_argument("--blend", type=float, default=0.5, help="weight of the search score (default 0.5)")
    args = ap.parse_args(argv)
    # by empties: positions, sum |result - exact|, positions with a score, sum |score - exact|,
    # sum |blend - exact|
    stats: dict[int, list[float]] = {}
    with open_text(args.labels) as fl, open_text(args.exact) as fe:
        for number, (a, b) in enumerate(zip(fl, fe), 1):
            # the fields: cells, result, score ("-" where there is none)
            (cells, result_text, score_text), (exact_cells, _, exact_text) = a.split(), b.split()
            if cells != exact_cells:
                print(f"line {number}: the files hold other positions (not the same games in the "
                      "same order)", file=sys.stderr)
                return 1
            if exact_text == "-":
                continue
            exact = int(exact_text) / 100
            result = int(result_text)
            s = stats.setdefault(cells.count("-"), [0, 0.0, 0, 0.0, 0.0])
            s[0] += 1
            s[1] += abs(result - exact)
            if score_text != "-":
                score = int(score_text) / 100
                s[2] += 1
                s[3] += abs(score - exact)
                s[4] += abs(args.blend * score + (1 - args.blend) * result - exact)
            else:
                s[4] += abs(result - exact)
    print("empties  positions  scored  |result - exact|  |score - exact|  |blend - exact|")
    for empties in sorted(stats):
        n, res, scored, sc, bl = stats[empties]
        score = f"{sc / scored:15.2f}" if scored else f"{'-':>15}"
        print(f"{empties:7d}  {n:9d}  {scored:6d}  {res / n:16.2f}  {score}  {bl / n:15.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
