"""scripts/pattern_families.py: its fit of the shipped layout agrees with `othello-train fit` and
`othello-train evaluate`, candidate families get their own lines, and bad input gets one line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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
               "--variants", "base,tri,edgein+cross", "--tests", str(TEST_SET)], tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("phase 5 (20-23 empties): ")
    assert f", {phase5.group(1)} held out; exact sets: test20_zebra" in lines[0]
    rows = {ln.split()[0]: ln for ln in lines[1:]}
    assert sorted(rows) == ["base", "edgein+cross", "tri"]
    base = re.match(r"base\s+held-out (\d+\.\d+) test20_zebra (\d+\.\d\d) ", rows["base"])
    assert base, rows["base"]
    # the same fit as the pipeline's: its held-out error and the engine's error on the exact set
    assert f"{float(base.group(1)):.2f}" == phase5.group(2)
    assert base.group(2) == pattern.group(1)
    for name in ("tri", "edgein+cross"):
        other = re.match(rf"{re.escape(name)}\s+held-out (\d+\.\d+) test20_zebra (\d+\.\d\d) ",
                         rows[name])
        assert other, rows[name]
        assert other.group(1) != base.group(1)       # more families: another fit

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


def test_bad_input_gets_one_line(tmp_path: Path) -> None:
    (tmp_path / "p.txt").write_text("not a position file\n")
    for args, where in ((["p.txt", "--variants", "base,nosuch"], "nosuch"),
                        (["none.txt"], "none.txt"),
                        (["p.txt"], "p.txt"),
                        (["p.txt", "--train-share", "0.5,0"], "--train-share"),
                        (["p.txt", "--train-share", "1.5"], "--train-share")):
        bad = run([sys.executable, "-P", str(SCRIPT), *args], tmp_path)
        assert bad.returncode == 2
        assert bad.stdout == ""
        assert len(bad.stderr.splitlines()) == 1 and where in bad.stderr, bad.stderr
