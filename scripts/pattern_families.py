"""Would more pattern families lower the evaluation's error? An offline fit of one phase.

Fits one phase of the pattern evaluation (its positions, widened by 2 empties each side as
`othello-train fit` does, or by ``--widen`` empties) with the shipped families alone and with
candidate families added, and prints for each variant the mean absolute error on the held-out games (against the same blended
targets; the shipped layout's figure is the one `othello-train fit` prints for that phase) and on
exact test sets (by default the committed ``training/test20*.txt.gz``, which are
phase 5's). Nothing in the engine changes: the candidates' indices are computed here, square by
square, from each family's base squares and its images under the board's eight symmetries, with
the entries a symmetry maps onto each other tied as the fit ties the shipped ones.

    python scripts/pattern_families.py wthor.pos r2.pos ... --phase 5 --variants base,tri,tri+cross

A variant may also leave shipped families out, by their names in ``_core.PATTERN_FAMILIES``
after a minus: ``-diag4-diag5+edgein+tri`` fits the shipped layout without the two short
diagonals and with two candidates instead (the same 46 instances, so the same number of weights
read a position, but larger tables).

``--train-share 0.25,0.5,1`` fits each variant on those shares of the training games (whole blocks
of 61 positions, chosen by a fixed seed; the held-out games stay the same): how the error falls
with more data.

Candidates (base squares; row 1 is a1..h1): ``edgein`` row 1 and c2, f2; ``tri`` a1..d1, a2..c2,
a3, b3, a4; ``cblock`` a1, c1..f1, h1, c2..f2; ``cross`` a1, b1, a2..c2, b3..d3, c4, d4;
``corner8`` a1..d1, a2..d2.

Scalar candidates (the issue's "scalar features such as stable discs and mobility by region"),
each one or more columns added to the four scalar terms, one weight a column and phase:
``stable`` the difference of the two sides' stable discs (the core's own count: full lines, walls
and stable neighbours on all four axes); ``mobsplit`` each side's mobility alone (two columns, so
that the fit can weigh one's own moves and the opponent's apart); ``mobregion`` the mobility
difference on corners, X-squares, C-squares, the other edge squares and the inner squares apart
(five columns); ``frontsplit`` each side's frontier (potential mobility) alone. Needs numpy
(``pip install -e '.[train]'``).
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import time

from othello_engine import _core
from othello_engine.textnum import ascii_float
from othello_engine.train import fitting
from othello_engine.train.records import read_positions

CANDIDATES = {
    "edgein": (0, 1, 2, 3, 4, 5, 6, 7, 10, 13),
    "tri": (0, 1, 2, 3, 8, 9, 10, 16, 17, 24),
    "cblock": (0, 2, 3, 4, 5, 7, 10, 11, 12, 13),
    "cross": (0, 1, 8, 9, 10, 17, 18, 19, 26, 27),
    "corner8": (0, 1, 2, 3, 8, 9, 10, 11),
}
SCALARS = ("stable", "mobsplit", "mobregion", "frontsplit")
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TESTS = os.path.join(HERE, os.pardir, "training", "test20*.txt.gz")


def family(squares: tuple[int, ...]):
    """(instances, table size, canonical entry of every index): the instances are the distinct
    images of the base squares, each read in the base order; an index maps to the smallest index
    of the same contents under the symmetries that map the base group onto itself (as the fit ties
    the shipped families' entries)."""
    squares = tuple(sorted(squares))
    instances, seen = [], set()
    for k in range(8):
        image = [_core.symmetry(1 << s, k).bit_length() - 1 for s in squares]
        if frozenset(image) not in seen:
            seen.add(frozenset(image))
            instances.append(image)
    return instances, 3 ** len(squares), fitting.tied_indices(squares)


def family_indices(P, O, instances):
    """n x instances: each instance's base-3 index (0 empty, 1 the side to move, 2 the other)."""
    import numpy as np
    cols = []
    for image in instances:
        v = np.zeros(len(P), dtype=np.int64)
        for i, s in enumerate(image):
            bit = np.uint64(s)
            digit = ((P >> bit) & np.uint64(1)).astype(np.int64) + 2 * ((O >> bit) & np.uint64(1)).astype(np.int64)
            v += digit * 3 ** i
        cols.append(v)
    return np.stack(cols, axis=1)


U64 = 0xFFFFFFFFFFFFFFFF
NOT_A, NOT_H = 0xFEFEFEFEFEFEFEFE, 0x7F7F7F7F7F7F7F7F
CORNERS = 0x8100000000000081
XSQ = 0x0042000000004200
CSQ = 0x4281000000008142
EDGES = 0xFF818181818181FF & ~(CORNERS | CSQ)


def _shift(x, s: int, mask: int = U64):
    """x shifted by s squares (left for s > 0), masked; numpy uint64 arrays."""
    import numpy as np
    y = (x << np.uint64(s)) if s > 0 else (x >> np.uint64(-s))
    return y & np.uint64(mask)


def neighbours(x):
    """The squares next to x (numpy uint64 arrays)."""
    h = _shift(x, 1, NOT_A) | _shift(x, -1, NOT_H)
    return h | _shift(x | h, 8) | _shift(x | h, -8)


def popcount(x):
    import numpy as np
    return np.bitwise_count(x).astype(np.int32) if hasattr(np, "bitwise_count") else \
        np.array([bin(int(v)).count("1") for v in x], dtype=np.int32)


def stable_counts(P, O):
    """Each P's stable discs against O, counted by the core as its solver counts them."""
    import numpy as np
    P = np.ascontiguousarray(P, dtype=np.uint64)
    out = np.zeros(len(P), dtype=np.int32)
    _core.stable_counts(P, np.ascontiguousarray(O, dtype=np.uint64), out)
    return out


def scalar_columns(P, O, name: str):
    """The scalar candidate's columns (n x k, int32) for P to move against O."""
    import numpy as np
    if name == "stable":
        return (stable_counts(P, O) - stable_counts(O, P))[:, None]
    if name == "frontsplit":
        empty = ~(P | O)
        return np.stack([popcount(empty & neighbours(O)), popcount(empty & neighbours(P))], axis=1)
    ps, os_ = P.tolist(), O.tolist()
    mP = np.array([_core.legal_moves(p, o) for p, o in zip(ps, os_)], dtype=np.uint64)
    mO = np.array([_core.legal_moves(o, p) for p, o in zip(ps, os_)], dtype=np.uint64)
    if name == "mobsplit":
        return np.stack([popcount(mP), popcount(mO)], axis=1)
    if name == "mobregion":
        inner = U64 & ~(CORNERS | XSQ | CSQ | EDGES)
        return np.stack([popcount(mP & np.uint64(r)) - popcount(mO & np.uint64(r))
                         for r in (CORNERS, XSQ, CSQ, EDGES, inner)], axis=1)
    raise ValueError(name)


def shipped_columns(name: str) -> range:
    """The index columns of a shipped family (its instances, in the core's order)."""
    start = 0
    for family_name, _, count in _core.PATTERN_FAMILIES:
        if family_name == name:
            return range(start, start + count)
        start += count
    raise KeyError(name)


def parse_variant(text: str) -> list[str]:
    """'base-diag4+edgein' -> ['-diag4', 'edgein']: candidates added, '-name' a shipped family
    left out ('base' alone: the shipped layout)."""
    return [t.lstrip("+") for t in re.findall(r"[+-]?[A-Za-z0-9_]+", text) if t.lstrip("+") != "base"]


def features(P, O, names: list[str]):
    """(indices, scalars, canonical map, table entries) of the shipped layout less the families
    named '-name', plus the named candidates, their tables after the shipped ones (a left-out
    family keeps its entries, which nothing reads), the scalar terms last."""
    import numpy as np
    idx, sc = fitting.positions_features(P, O)
    n_tab = _core.PATTERN_SCALAR_OFFSET
    canon = fitting.canonical_map()
    dropped = [c for n in names if n.startswith("-") for c in shipped_columns(n[1:])]
    idx = np.delete(idx, dropped, axis=1) if dropped else idx
    cols, maps, offset = [idx.astype(np.int64)], [canon[:n_tab]], n_tab
    extra = [scalar_columns(P, O, name) for name in names if name in SCALARS]
    if extra:
        sc = np.concatenate([sc] + extra, axis=1)
    for name in (n for n in names if n not in SCALARS and not n.startswith("-")):
        instances, size, fam_canon = family(CANDIDATES[name])
        cols.append(family_indices(P, O, instances) + offset)
        maps.append(fam_canon + offset)
        offset += size
    maps.append(offset + np.arange(sc.shape[1]))
    return np.concatenate(cols, axis=1), sc, np.concatenate(maps), offset


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("positions", nargs="+", help="labelled positions (othello-train label)")
    ap.add_argument("--phase", type=int, default=5, help="the phase fitted (default 5: 20-23 empties)")
    ap.add_argument("--variants", default="base," + ",".join(CANDIDATES),
                    help="comma-separated; each is base or candidates joined by +, and shipped "
                         "families left out by -name (default: each candidate alone)")
    ap.add_argument("--tests", default=DEFAULT_TESTS, help="exact test sets (a glob)")
    ap.add_argument("--blend", type=float, default=0.5, help="weight of the search score (default 0.5)")
    ap.add_argument("--ridge", type=float, default=5.0)
    ap.add_argument("--widen", type=int, default=2,
                    help="the phase's window of empties widened by this many on both sides for the "
                         "fit (default 2, as `othello-train fit` does)")
    ap.add_argument("--iterations", type=int, default=60)
    ap.add_argument("--train-share", default="1", metavar="S[,S...]",
                    help="the learning curve: fit on this share of the training games (blocks of "
                         "61 positions, as held out), each variant with each share (default 1: all)")
    ap.add_argument("--huber", default="0", metavar="K[,K...]",
                    help="Huber's loss with these knees in discs, each variant fitted with each "
                         "(0: least squares, the default)")
    args = ap.parse_args(argv)
    texts = [v.strip() for v in args.variants.split(",")]
    variants = [parse_variant(v) for v in texts]
    shipped = [name for name, _, _ in _core.PATTERN_FAMILIES]
    known = set(CANDIDATES) | set(SCALARS) | {"-" + name for name in shipped}
    unknown = sorted({n for v in variants for n in v} - known)
    if unknown:
        what = ("shipped family", ", ".join(shipped)) if unknown[0].startswith("-") else \
            ("candidate", ", ".join(list(CANDIDATES) + list(SCALARS)))
        print(f"pattern_families: unknown {what[0]} {unknown[0].lstrip('-')!r} (known: {what[1]})",
              file=sys.stderr)
        return 2
    if args.widen < 0:
        print(f"pattern_families: --widen takes 0 or more empties, not {args.widen}", file=sys.stderr)
        return 2
    knees = [ascii_float(k) for k in args.huber.split(",")]
    if any(k is None or k < 0 for k in knees):
        print(f"pattern_families: --huber takes knees of 0 or more discs, not {args.huber!r}",
              file=sys.stderr)
        return 2
    shares = [ascii_float(k) for k in args.train_share.split(",")]
    if any(k is None or not 0 < k <= 1 for k in shares):
        print(f"pattern_families: --train-share takes shares above 0 and at most 1, not "
              f"{args.train_share!r}", file=sys.stderr)
        return 2
    try:
        import numpy as np
    except ImportError:
        print("pattern_families: needs numpy (pip install -e '.[train]')", file=sys.stderr)
        return 2
    try:
        parts = [read_positions(p) for p in args.positions]
        tests = {os.path.basename(p).split(".")[0]: read_positions(p)
                 for p in sorted(glob.glob(args.tests))}
    except OSError as exc:
        print(f"pattern_families: {exc.filename}: {exc.strerror or 'cannot be read'}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"pattern_families: {exc}", file=sys.stderr)
        return 2
    P = np.concatenate([x[0] for x in parts])
    O = np.concatenate([x[1] for x in parts])
    result = np.concatenate([x[2] for x in parts]).astype(float)
    score = np.concatenate([x[3] for x in parts])
    empties = np.concatenate([x[4] for x in parts])
    target = fitting.blended_targets(result, score, args.blend)
    lo, hi = 4 * args.phase, 4 * args.phase + 3
    held = fitting.held_out(len(P), fitting.FitSettings.holdout)     # as `fit` holds them out
    train = ~held & (empties >= lo - args.widen) & (empties <= hi + args.widen)
    test = held & (empties >= lo) & (empties <= hi)
    if not train.any() or not test.any():
        print(f"pattern_families: no positions of phase {args.phase} to fit or to test", file=sys.stderr)
        return 2
    keep = train | test
    P, O, target, train, test = P[keep], O[keep], target[keep], train[keep], test[keep]
    print(f"phase {args.phase} ({lo}-{hi} empties): {int(train.sum())} positions fitted, "
          f"{int(test.sum())} held out; exact sets: {', '.join(tests) or 'none'}")
    block = np.flatnonzero(keep) // 61                  # the blocks held_out counts in
    rank = np.random.default_rng(1).permutation(int(block.max()) + 1)[block] / (block.max() + 1)
    for text, names in zip(texts, variants):
        start = time.time()
        # the indices once a variant (the candidates' are computed here, square by square), for
        # every knee and share fitted with it
        idx, sc, canon, n_tab = features(P, O, names)
        test_sets = [(name, features(tP, tO, names)[:2], tres)
                     for name, (tP, tO, tres, _, _) in tests.items()]
        for huber, share in ((h, s) for h in knees for s in shares):
            fitted = train & (rank < share)
            w = fitting.fit_phase(idx[fitted], sc[fitted], target[fitted], canon, args.ridge,
                                  args.iterations, n_tab, huber)
            w = np.clip(np.round(w * 100), -32000, 32000).astype(np.int64)   # centi-discs, as stored

            def predict(ix, s):
                return np.clip(fitting.predict_raw(w, ix, s, n_tab) / 100.0, -63, 63)

            errors = [f"held-out {np.abs(predict(idx[test], sc[test]) - target[test]).mean():.3f}"]
            for name, (tidx, tsc), tres in test_sets:
                errors.append(f"{name} {np.abs(predict(tidx, tsc) - tres).mean():.2f}")
            label = ((text or "base") + (f" huber {huber:g}" if huber else "")
                     + (f" share {share:g} ({int(fitted.sum())})" if share < 1 else ""))
            print(f"{label:28s} {' '.join(errors)}  ({time.time() - start:.0f} s)", flush=True)
            start = time.time()
    return 0


if __name__ == "__main__":
    sys.exit(main())
