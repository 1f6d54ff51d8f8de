"""Averaging weights files entry by entry: one evaluation from several fits of the same layout.

Two fits of similar data err in partly different directions, so their mean entry by entry (in
centi-discs, rounded to the nearest, a half to the even neighbour) can play better than either;
whether it does is for a match to say. Plain Python: no numpy needed.
"""

from __future__ import annotations

import array
from typing import Callable, Sequence

from othello_engine import weights as weights_mod


def average(paths: Sequence[str], out_path: str, size: int = 8,
            report: Callable[[str], None] = print) -> "array.array[int]":
    """Write the entry-by-entry mean of the weights files at paths (at least two, every one for a
    size x size board) to out_path; returns the averaged weights. Each file is read and checked
    before anything is written (WeightsError names a file that cannot be used)."""
    if len(paths) < 2:
        raise ValueError("name at least two weights files")
    tables = [weights_mod.read(path, size) for path in paths]
    n = len(tables)
    # s / n is exact where it matters: a tie (an odd sum over two files, say) is k + 0.5, which a
    # float holds exactly, and round() takes it to the even neighbour as numpy's round does
    mean = array.array("h")
    changed = 0
    for column in zip(*tables):
        mean.append(round(sum(column) / n))
        changed += min(column) != max(column)
    weights_mod.write(out_path, mean, size)
    report(f"average: {n} files, {len(mean)} entries ({changed} differ between them), "
           f"weights written to {out_path}")
    return mean
