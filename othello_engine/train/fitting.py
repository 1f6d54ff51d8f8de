"""Step 3, fit: pattern weights by ridge least squares over labelled positions, written as a weights file."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from othello_engine import _core
from othello_engine.train.records import read_positions
from othello_engine.train.runner import progress_bar
from othello_engine.train.schedule import Schedule

FAMILY_BASES = (0x42FF, 0x1F1F, 0x70707, 0xFF00, 0xFF0000, 0xFF000000, 0x8040201008040201,
                0x80402010080402, 0x804020100804, 0x8040201008, 0x80402010)
"""The base squares of each family of _pattern.pxi, in its table order."""


def canonical_map():
    """For every table entry of a phase, the entry it must equal: a family's base group that a
    symmetry maps onto itself (the edge by its mirror, a diagonal by its reversal) reads the
    same squares in another order, so the evaluation is symmetric only if those entries agree."""
    import numpy as np
    total = _core.PATTERN_SCALAR_OFFSET
    canon = np.arange(total + len(_core.PATTERN_SCALARS), dtype=np.int64)
    offset = 0
    for base in FAMILY_BASES:
        tied = tied_indices([s for s in range(64) if base >> s & 1])
        canon[offset:offset + len(tied)] = offset + tied
        offset += len(tied)
    return canon


def tied_indices(squares):
    """For every index of a group of squares (base 3 over the squares in ascending order), the
    smallest index of the same contents under the symmetries that map the group onto itself."""
    import numpy as np
    squares = sorted(squares)
    n = len(squares)
    idx = np.arange(3 ** n, dtype=np.int64)
    digits = (idx[:, None] // (3 ** np.arange(n))) % 3
    best = idx.copy()
    for k in range(1, 8):
        image = [_core.symmetry(1 << s, k).bit_length() - 1 for s in squares]
        if sorted(image) != squares:
            continue
        # digit i moves to the position of square image[i] in the base order
        pos = [squares.index(t) for t in image]
        best = np.minimum(best, (digits * (3 ** np.array(pos))).sum(axis=1))
    return best


def positions_features(P, O):
    """(indices n x PATTERN_INSTANCES, scalars n x 4) of the positions, from the core."""
    import numpy as np
    n = len(P)
    k = _core.PATTERN_INSTANCES
    idx = np.zeros(k * n, dtype=np.int32)
    sc = np.zeros(4 * n, dtype=np.int32)
    if n:
        _core.pattern_features(np.ascontiguousarray(P, dtype=np.uint64),
                               np.ascontiguousarray(O, dtype=np.uint64), idx, sc)
    return idx.reshape(n, k), sc.reshape(n, 4)


def positions_features_n(P, O, size: int):
    """(indices n x PATTERN_N_INSTANCES, scalars n x 5) of size x size positions (layout 2)."""
    import numpy as np
    n = len(P)
    k = _core.PATTERN_N_INSTANCES
    m = len(_core.PATTERN_N_SCALARS)
    idx = np.zeros(k * n, dtype=np.int32)
    sc = np.zeros(m * n, dtype=np.int32)
    if n:
        _core.pattern_features_n(list(P), list(O), size, idx, sc)
    return idx.reshape(n, k), sc.reshape(n, m)


def fit_phase(idx, sc, y, canon, ridge: float, iterations: int, n_tab: Optional[int] = None,
              huber: float = 0.0, rounds: int = 4):
    """Weights (floats, discs) of one phase minimising squared error plus ridge * count-scaled
    L2, by conjugate gradients on the normal equations over the tied (canonical) entries; n_tab
    table entries come before the scalar terms (default: 8x8's).

    huber > 0: Huber's loss instead of the squared error (squared within huber discs of the
    target, linear beyond, so that a far-off label pulls no harder than one huber discs off),
    by iteratively reweighted least squares: after the plain fit, ``rounds`` more fits, each
    position weighted min(1, huber / |residual of the fit before|), each started from the
    last weights."""
    import numpy as np
    w = _fit_weighted(idx, sc, y, canon, ridge, iterations, n_tab, None, None)
    for _ in range(rounds if huber > 0 else 0):
        r = np.abs(predict_raw(w, canon[idx], sc, n_tab) - y)
        sw = np.minimum(1.0, huber / np.maximum(r, 1e-9))
        w = _fit_weighted(idx, sc, y, canon, ridge, iterations, n_tab, sw, w)
    return w[canon]                     # untie: every entry gets its representative's weight


def predict_raw(w, cidx, sc, n_tab: int):
    """The evaluation (discs, unclamped) of positions by the weights w over their table entries
    cidx (n x instances) and scalar features sc (n x scalars)."""
    return w[cidx].sum(axis=1) + (sc * w[n_tab:n_tab + sc.shape[1]]).sum(axis=1)


def _fit_weighted(idx, sc, y, canon, ridge: float, iterations: int, n_tab: Optional[int],
                  sw, start):
    """fit_phase's conjugate gradients with the positions weighted sw (None: all 1), from the
    tied weights start (None: zero); returns the tied weights."""
    import numpy as np
    if n_tab is None:
        n_tab = _core.PATTERN_SCALAR_OFFSET
    n_all = n_tab + sc.shape[1]
    cidx = canon[idx]                                   # n x instances, tied entries
    # the scalar terms a column each; every sum below is numpy's own, never BLAS's: a BLAS dot
    # product adds in an order that depends on its thread count, and so would the weights
    scf = np.ascontiguousarray(sc.T, dtype=np.float64)
    if sw is None:
        counts = np.bincount(cidx.ravel(), minlength=n_all).astype(np.float64)
    else:
        counts = np.bincount(cidx.ravel(), weights=np.repeat(sw, cidx.shape[1]),
                             minlength=n_all)
    reg = ridge * np.ones(n_all)
    reg[n_tab:] = 1e-3

    def dot(a, b):
        return float((a * b).sum())

    def A(w):
        out = w[cidx].sum(axis=1)
        for j in range(len(scf)):
            out += scf[j] * w[n_tab + j]
        return out

    def At(r):
        g = np.bincount(cidx.ravel(), weights=np.repeat(r, cidx.shape[1]), minlength=n_all)
        for j in range(len(scf)):
            g[n_tab + j] += dot(scf[j], r)
        return g

    def M(w):
        return At(A(w) if sw is None else A(w) * sw) + reg * w

    w = np.zeros(n_all) if start is None else start.copy()
    b = At(y if sw is None else y * sw)
    r = b - M(w)
    diag = counts + reg
    diag[n_tab:] = ((scf ** 2).sum(axis=1) if sw is None else (scf ** 2 * sw).sum(axis=1)) + reg[n_tab:]
    z = r / diag
    p = z.copy()
    rz = dot(r, z)
    for _ in range(iterations):
        Mp = M(p)
        alpha = rz / dot(p, Mp)
        w += alpha * p
        r -= alpha * Mp
        z = r / diag
        rz_new = dot(r, z)
        if rz_new < 1e-12 * len(y):
            break
        p = z + (rz_new / rz) * p
        rz = rz_new
    return w


def blended_targets(result, score, blend):
    """Each position's target: blend x its search score + (1 - blend) x its game's result, or the
    result alone where it has no search score (NaN; from the solve point on the result is the
    exact score). blend: a number, or one a position."""
    import numpy as np
    return np.where(np.isnan(score), result, blend * score + (1 - blend) * result)


def held_out(n: int, holdout: int, block: int = 61):
    """Which of n positions are held out of the fit: every holdout-th block of block positions
    (a game's length at most, so about one game in holdout; 0: none)."""
    import numpy as np
    if not holdout:
        return np.zeros(n, bool)
    return (np.arange(n) // block) % holdout == 0


@dataclass(frozen=True)
class FitSettings:
    """The ridge strength and conjugate-gradient iterations of every phase, the weight of the
    search score against the result (by empties), one game in ``holdout`` held out for the error
    report (0: none), the empties beyond a phase's own that it also trains on (``window``), and
    the phases to fit (None: all; the others get zero weights); ``huber`` > 0: Huber's loss with
    that knee in discs instead of the squared error (see fit_phase)."""
    ridge: float = 5.0
    iterations: int = 60
    blend: Schedule = Schedule((), 0.5)    # weight of the search score, by empties
    holdout: int = 20
    window: int = 2
    phases: Optional[tuple[int, int]] = None
    size: int = 8
    huber: float = 0.0


def fit(paths: Sequence[str], out_path: str, s: FitSettings, quiet: bool = False,
        report: Callable[[str], None] = print) -> dict:
    """Fit every phase on the position files and write the weights file; returns the held-out
    mean absolute errors per phase (discs, against each position's target)."""
    import numpy as np
    from othello_engine import weights as weights_mod
    size = s.size
    squares = size * size
    parts = []
    for k, path in enumerate(paths, 1):
        if not quiet:  # reading millions of positions takes seconds: say so before the bar
            print(f"fit: reading {path} ({k} of {len(paths)})", file=sys.stderr, flush=True)
        parts.append(read_positions(path, size))
    P = np.concatenate([x[0] for x in parts])
    O = np.concatenate([x[1] for x in parts])
    result = np.concatenate([x[2] for x in parts])
    score = np.concatenate([x[3] for x in parts])
    empties = np.concatenate([x[4] for x in parts])
    blend = np.array([s.blend.at(e) for e in range(squares + 1)])[empties]
    target = blended_targets(result, score, blend)
    held = held_out(len(P), s.holdout, 61 if size == 8 else squares - 3)
    if size == 8:
        features = positions_features
        canon = canonical_map()
        phases, entries, n_tab = _core.PATTERN_PHASES, _core.PATTERN_ENTRIES, _core.PATTERN_SCALAR_OFFSET
    else:
        # layout 2 reads every symmetric image, so no table entries need tying
        def features(P, O):
            return positions_features_n(P, O, size)
        entries = _core.pattern_n_entries(size)
        n_tab = _core.pattern_n_scalar_offset(size)
        phases = _core.PATTERN_N_PHASES
        canon = np.arange(entries, dtype=np.int64)
        empties = empties * 60 // (squares - 4)     # the phases' empties, scaled to 8x8's 60
    out = np.zeros((phases, entries), dtype=np.int16)
    errors = {}
    bar = progress_bar(phases, 0, "fit", not quiet)
    for phase in range(phases):
        lo, hi = 4 * phase - s.window, 4 * phase + 3 + s.window
        if phase == phases - 1:
            hi = 64
        sel = (empties >= lo) & (empties <= hi)
        train = sel & ~held
        test = held & (empties >= 4 * phase) & (empties <= (4 * phase + 3 if hi < 64 else 64))
        if s.phases is not None and not s.phases[0] <= phase <= s.phases[1]:
            train = test = np.zeros(len(P), bool)
        if train.sum() == 0:
            errors[phase] = (0, float("nan"), float("nan"), float("nan"))
            if bar is not None:
                bar.update(1)
            continue
        # the features of this phase's positions only (their indices for every position at once
        # took 184 bytes a position: 3.9 GB for round 9's 21 M); the same rows in the same order
        rows = np.flatnonzero(train | test)
        idx, sc = features(P[rows], O[rows])
        t_rows, y, y_result = train[rows], target[rows], result[rows]
        w = fit_phase(idx[t_rows], sc[t_rows], y[t_rows], canon, s.ridge, s.iterations, n_tab,
                      s.huber)
        out[phase] = np.clip(np.round(w * 100), -32000, 32000).astype(np.int16)
        if test.any():
            h_rows = test[rows]
            pred = predict_raw(out[phase].astype(np.int64), idx[h_rows], sc[h_rows], n_tab) / 100.0
            pred = np.clip(pred, -63, 63)
            errors[phase] = (int(test.sum()), float(np.abs(pred - y[h_rows]).mean()),
                             float(np.abs(pred - y_result[h_rows]).mean()),
                             float(np.abs(y[h_rows]).mean()))
        else:
            errors[phase] = (0, float("nan"), float("nan"), float("nan"))
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    weights_mod.write(out_path, out.ravel(), size)
    report(f"fit: {len(P)} positions ({int(held.sum())} held out), weights written to {out_path}")
    report("phase  empties  held-out  MAE(target)  MAE(result)  MAE(zero weights)")
    for phase, (n, e_t, e_r, e_0) in errors.items():
        hi = 4 * phase + 3 if phase < phases - 1 else 60
        report(f"{phase:5d}  {4 * phase:2d}-{hi:2d}    {n:8d}  {e_t:11.2f}  {e_r:11.2f}  {e_0:17.2f}")
    return errors
