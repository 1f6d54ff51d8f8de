"""scripts/bench_pair.py: two builds' solves side by side. The same build on both sides solves the
same positions with the same nodes, and the script reports each run's ratio and their summary; a
tree without a core of its own is refused rather than timed with another build's core."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ffo_data import needs_ffo

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "bench_pair.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def test_a_tree_without_its_own_core_is_refused(tmp_path: Path) -> None:
    (tmp_path / "othello_engine").mkdir()
    done = _run(str(tmp_path), str(tmp_path), "1")
    assert done.returncode == 2
    assert "has no core built in place" in done.stderr
    assert "Traceback" not in done.stderr


@needs_ffo
def test_the_same_build_on_both_sides_takes_the_same_nodes() -> None:
    if not list((ROOT / "othello_engine").glob("_core*.so")):
        pytest.skip("the core is not built in place in this tree")
    done = _run(str(ROOT), str(ROOT), "22-24", "--repeat", "2", "--hash", "4")
    assert done.returncode == 0, done.stderr
    runs = re.findall(r"^run (\d): A [\d.]+ s cpu, (\d+) nodes; B [\d.]+ s cpu, (\d+) nodes; B/A ([\d.]+)$",
                      done.stdout, re.M)
    assert [r[0] for r in runs] == ["1", "2"]
    assert all(a == b for _, a, b, _ in runs)
    assert runs[0][1] == runs[1][1]
    assert re.search(r"^B/A: mean [\d.]+, lowest [\d.]+, highest [\d.]+ over 2 paired runs$",
                     done.stdout, re.M)
