"""scripts/pattern_families.py: its fit of the shipped layout agrees with `othello-train fit` and
`othello-train evaluate`, candidate families and scalar terms get their own lines, shipped
families can be left out, the scalar candidates' columns agree with the rules, and bad input gets
one line."""

from __future__ import annotations

import importlib.util
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from othello_engine import _core
from uci_support import command

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "pattern_families.py"
TEST_SET = Path(__file__).resolve().parent.parent / "training" / "test20_zebra.txt.gz"


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_the_shipped_layout_is_fitted_as_the_pipeline_fits_it(tmp_path: Path) -> None:
    train = command("othello-train")
    for args in (["generate", "g.txt", "--games", "30", "--seed", "3", "--eval", "classic",
                  "--depth", "2", "--solve", "12", "--quiet"],
                 ["label", "g.txt", "p.txt", "--quiet"]):
        assert run([train, *args], tmp_path).returncode == 0
    fit = run([train, "fit", "p.txt", "--out", "s.weights"], tmp_path)
    assert fit.returncode == 0, fit.stderr
    phase5 = re.search(r"^\s+5\s+20-23\s+(\d+)\s+(\d+\.\d\d)", fit.stdout + fit.stderr, re.M)
    assert phase5, fit.stdout
    evaluated = run([train, "evaluate", str(TEST_SET), "--weights", "s.weights"], tmp_path)
    pattern = re.search(r"pattern (\d+\.\d\d) discs", evaluated.stdout)
    assert pattern, evaluated.stdout

    out = run([sys.executable, "-P", str(SCRIPT), "p.txt", "--phase", "5",
               "--variants", "base,tri,edgein+cross,stable+mobregion,-diag4-diag5+edgein",
               "--tests", str(TEST_SET)], tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("phase 5 (20-23 empties): ")
    assert f", {phase5.group(1)} held out; exact sets: test20_zebra" in lines[0]
    rows = {ln.split()[0]: ln for ln in lines[1:]}
    assert sorted(rows) == ["-diag4-diag5+edgein", "base", "edgein+cross", "stable+mobregion", "tri"]
    base = re.match(r"base\s+held-out (\d+\.\d+) test20_zebra (\d+\.\d\d) ", rows["base"])
    assert base, rows["base"]
    # the same fit as the pipeline's: its held-out error and the engine's error on the exact set
    assert f"{float(base.group(1)):.2f}" == phase5.group(2)
    assert base.group(2) == pattern.group(1)
    for name in ("tri", "edgein+cross", "stable+mobregion", "-diag4-diag5+edgein"):
        other = re.match(rf"{re.escape(name)}\s+held-out (\d+\.\d+) test20_zebra (\d+\.\d\d) ",
                         rows[name])
        assert other, rows[name]
        assert other.group(1) != base.group(1)       # other families: another fit

    # the learning curve: a share of the training games, and all of them as before
    curve = run([sys.executable, "-P", str(SCRIPT), "p.txt", "--phase", "5", "--variants", "base",
                 "--train-share", "0.5,1", "--tests", str(TEST_SET)], tmp_path)
    assert curve.returncode == 0, curve.stderr
    half, whole = curve.stdout.splitlines()[1:]
    assert whole.rsplit("(", 1)[0] == rows["base"].rsplit("(", 1)[0]     # all but the seconds
    fitted = int(re.search(r": (\d+) positions fitted", lines[0]).group(1))
    share = re.match(r"base share 0.5 \((\d+)\)\s+held-out (\d+\.\d+) ", half)
    assert share, half
    assert 0.3 * fitted < int(share.group(1)) < 0.7 * fitted
    assert share.group(2) != base.group(1)           # fewer games: another fit


def _script():
    spec = importlib.util.spec_from_file_location("pattern_families", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stable_reference(P: int, O: int) -> int:
    """P's stable discs by the definition, square by square: on each of the four axes the line
    is full, or a neighbour along it is off the board or a stable disc of P."""
    def line_full(r: int, c: int, dr: int, dc: int) -> bool:
        for sign in (1, -1):
            rr, cc = r, c
            while 0 <= rr < 8 and 0 <= cc < 8:
                if not (P | O) >> (8 * rr + cc) & 1:
                    return False
                rr, cc = rr + sign * dr, cc + sign * dc
        return True
    if not (P | O) & 0x8100000000000081:
        return 0
    stable = 0
    while True:
        new = 0
        for sq in range(64):
            if not P >> sq & 1:
                continue
            r, c = divmod(sq, 8)
            ok = True
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                ends = []
                for sign in (1, -1):
                    rr, cc = r + sign * dr, c + sign * dc
                    ends.append(not (0 <= rr < 8 and 0 <= cc < 8) or stable >> (8 * rr + cc) & 1)
                if not (any(ends) or line_full(r, c, dr, dc)):
                    ok = False
                    break
            if ok:
                new |= 1 << sq
        if new == stable:
            return bin(stable).count("1")
        stable = new


def test_scalar_candidates_follow_the_rules() -> None:
    np = pytest.importorskip("numpy")
    pf = _script()
    rng = random.Random(5)
    boards = []
    for _ in range(60):
        P, O = 0x0000000810000000, 0x0000001008000000
        for _ in range(rng.randint(20, 58)):
            moves = _core.legal_moves(P, O)
            if not moves:
                P, O = O, P
                moves = _core.legal_moves(P, O)
                if not moves:
                    break
            sq = rng.choice([i for i in range(64) if moves >> i & 1])
            P, O = _core.make_move(P, O, sq)
        boards.append((P, O))
    P = np.array([b[0] for b in boards], dtype=np.uint64)
    O = np.array([b[1] for b in boards], dtype=np.uint64)
    stable = pf.scalar_columns(P, O, "stable")[:, 0]
    split = pf.scalar_columns(P, O, "mobsplit")
    region = pf.scalar_columns(P, O, "mobregion")
    front = pf.scalar_columns(P, O, "frontsplit")
    assert any(stable)
    for k, (p, o) in enumerate(boards):
        assert stable[k] == _stable_reference(p, o) - _stable_reference(o, p)
        mp, mo = _core.legal_moves(p, o), _core.legal_moves(o, p)
        assert list(split[k]) == [bin(mp).count("1"), bin(mo).count("1")]
        assert sum(region[k]) == bin(mp).count("1") - bin(mo).count("1")
        assert region[k][0] == bin(mp & 0x8100000000000081).count("1") - bin(mo & 0x8100000000000081).count("1")
        empty = ~(p | o) & (2**64 - 1)
        fr = [sum(1 for sq in range(64) if empty >> sq & 1 and any(
            x >> (8 * (sq // 8 + dr) + sq % 8 + dc) & 1 for dr in (-1, 0, 1) for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= sq // 8 + dr < 8 and 0 <= sq % 8 + dc < 8)) for x in (o, p)]
        assert list(front[k]) == fr


def test_shipped_families_are_left_out_by_their_columns() -> None:
    np = pytest.importorskip("numpy")
    pf = _script()
    assert pf.parse_variant("base") == []
    assert pf.parse_variant("-diag4-diag5+edgein+tri") == ["-diag4", "-diag5", "edgein", "tri"]
    assert pf.parse_variant("stable+mobregion") == ["stable", "mobregion"]
    # the families' columns tile the core's instances in table order
    columns = [c for name, _, _ in _core.PATTERN_FAMILIES for c in pf.shipped_columns(name)]
    assert columns == list(range(_core.PATTERN_INSTANCES))
    P = np.array([0x0000000810000000, 0x00000018080C0000], dtype=np.uint64)
    O = np.array([0x0000001008000000, 0x0000240030000000], dtype=np.uint64)
    full, _, _, n_full = pf.features(P, O, [])
    less, _, _, n_less = pf.features(P, O, ["-diag4", "-row2"])
    kept = [c for c in range(_core.PATTERN_INSTANCES)
            if c not in pf.shipped_columns("diag4") and c not in pf.shipped_columns("row2")]
    assert n_less == n_full and less.shape[1] == len(kept) == _core.PATTERN_INSTANCES - 8
    assert (less == full[:, kept]).all()
    swapped, _, _, n_swapped = pf.features(P, O, ["-diag4", "edgein"])
    assert swapped.shape[1] == _core.PATTERN_INSTANCES and n_swapped == n_full + 3 ** 10


def test_bad_input_gets_one_line(tmp_path: Path) -> None:
    (tmp_path / "p.txt").write_text("not a position file\n")
    for args, where in ((["p.txt", "--variants", "base,nosuch"], "nosuch"),
                        (["p.txt", "--variants", "base-diag9"], "diag9"),
                        (["none.txt"], "none.txt"),
                        (["p.txt"], "p.txt"),
                        (["p.txt", "--train-share", "0.5,0"], "--train-share"),
                        (["p.txt", "--train-share", "1.5"], "--train-share"),
                        (["p.txt", "--widen", "-1"], "--widen")):
        bad = run([sys.executable, "-P", str(SCRIPT), *args], tmp_path)
        assert bad.returncode == 2
        assert bad.stdout == ""
        assert len(bad.stderr.splitlines()) == 1 and where in bad.stderr, bad.stderr
