"""Multi-ProbCut statistics: how far a shallow search's score strays from a deep one's.

Probcut (Buro) cuts a node of depth D when a search of the shallow depth d = ``shallow_depth(D)``
scores far enough outside the window: v_D is predicted as v_d + mean with a spread sigma, and the
node is cut when the prediction clears the bound by ``t`` sigmas. The mean and sigma depend on D
and on the stage of the game, so they are fitted here per depth and per number of empties from the
scores of full-width searches of sampled positions at every depth (``scripts/mpc_data.py`` makes
them), as the strong engines do, in place of one margin for every node.

The model: sigma(D, empties) = a + b * D + c * empties, fitted by least squares to the absolute
errors |v_D - v_d - mean_D| scaled by sqrt(pi / 2) (the mean absolute deviation of a normal
distribution is sigma * sqrt(2 / pi)); mean_D is the mean error at depth D.

    python -m othello_engine.train.mpc mpc.txt
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Iterable, Sequence

MIN_DEPTH = 3
"""Shallowest depth probcut is fitted for."""


def shallow_depth(depth: int) -> int:
    """The depth of the probcut search that predicts a depth ``depth`` one: about half of it,
    of the same parity (scores swing between odd and even depths).

    >>> [shallow_depth(d) for d in (3, 4, 5, 6, 7, 12)]
    [1, 2, 1, 2, 3, 6]
    """
    ds = depth // 2
    if (depth - ds) & 1:
        ds -= 1
    return ds


@dataclass(frozen=True)
class MpcModel:
    """Fitted statistics: ``mean[D]`` (centi-discs) per depth, and sigma = a + b*D + c*empties."""

    mean: dict[int, float]
    a: float
    b: float
    c: float
    samples: int

    def sigma(self, depth: int, empties: int) -> float:
        """The spread of v_D - v_d at this depth and number of empties (centi-discs, at least 1).

        >>> MpcModel({}, 100.0, 10.0, 2.0, 0).sigma(6, 30)
        220.0
        """
        return max(1.0, self.a + self.b * depth + self.c * empties)


def read_samples(lines: Iterable[str]) -> list[tuple[int, list[int]]]:
    """Parse ``<empties> <v1> ... <vD>`` lines (blank lines skipped)."""
    out = []
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        try:
            values = [int(x) for x in fields]
        except ValueError:
            raise ValueError(f"line {number}: expected whole numbers") from None
        if len(values) < 2 or not 1 <= values[0] <= 60:
            raise ValueError(f"line {number}: expected <empties> <v1> ... <vD>")
        out.append((values[0], values[1:]))
    return out


def _solve3(m: Sequence[Sequence[float]], v: Sequence[float]) -> list[float]:
    """Solve the 3x3 system m x = v (Cramer's rule; m is a normal-equation matrix)."""
    def det(a):
        return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
                - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    d = det(m)
    if abs(d) < 1e-9:
        raise ValueError("the samples do not vary enough in depth and empties to fit sigma")
    out = []
    for k in range(3):
        mk = [list(row) for row in m]
        for i in range(3):
            mk[i][k] = v[i]
        out.append(det(mk) / d)
    return out


def fit(samples: Sequence[tuple[int, Sequence[int]]], max_depth: int | None = None) -> MpcModel:
    """Fit the model to samples (empties, [v1 .. vD]) for every depth D >= MIN_DEPTH that the
    samples reach (up to max_depth), pairing each D with shallow_depth(D).

    >>> import random
    >>> rng = random.Random(1)
    >>> rows = [(e, [int(rng.gauss(0, 50 + 10 * d)) for d in range(1, 11)])
    ...         for e in range(20, 50) for _ in range(20)]
    >>> m = fit(rows)
    >>> m.b > 0
    True
    """
    errors: dict[int, list[tuple[int, float]]] = {}
    for empties, v in samples:
        top = len(v) if max_depth is None else min(len(v), max_depth)
        for depth in range(MIN_DEPTH, top + 1):
            errors.setdefault(depth, []).append((empties, v[depth - 1] - v[shallow_depth(depth) - 1]))
    if not errors:
        raise ValueError(f"no sample reaches depth {MIN_DEPTH}")
    mean = {d: sum(e for _, e in rows) / len(rows) for d, rows in errors.items()}
    scale = math.sqrt(math.pi / 2)
    # least squares of y = a + b*D + c*E over every (D, E, y)
    m = [[0.0] * 3 for _ in range(3)]
    r = [0.0] * 3
    n = 0
    for depth, rows in errors.items():
        for empties, e in rows:
            y = abs(e - mean[depth]) * scale
            x = (1.0, float(depth), float(empties))
            for i in range(3):
                r[i] += x[i] * y
                for j in range(3):
                    m[i][j] += x[i] * x[j]
            n += 1
    a, b, c = _solve3(m, r)
    return MpcModel(mean, a, b, c, n)


def report(model: MpcModel, samples: Sequence[tuple[int, Sequence[int]]]) -> str:
    """A table of the measured and modelled spread per depth, for the record."""
    lines = [f"{model.samples} pairs; sigma = {model.a:.1f} + {model.b:.2f} * depth + "
             f"{model.c:.2f} * empties (centi-discs)",
             "depth  shallow  pairs  mean  measured-sigma  model-sigma(at their empties)"]
    scale = math.sqrt(math.pi / 2)
    for depth in sorted(model.mean):
        rows = [(e, v[depth - 1] - v[shallow_depth(depth) - 1]) for e, v in samples if len(v) >= depth]
        measured = sum(abs(x - model.mean[depth]) for _, x in rows) / len(rows) * scale
        modelled = sum(model.sigma(depth, e) for e, _ in rows) / len(rows)
        lines.append(f"{depth:5d}  {shallow_depth(depth):7d}  {len(rows):5d}  {model.mean[depth]:4.0f}"
                     f"  {measured:14.0f}  {modelled:11.0f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m othello_engine.train.mpc DATA", file=sys.stderr)
        return 2
    with open(args[0]) as f:
        samples = read_samples(f)
    model = fit(samples)
    print(report(model, samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
