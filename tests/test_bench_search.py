"""scripts/bench_search.py's thread comparison: the speed-ups it prints (total, median, geometric
mean over the positions long enough to say something), and its note when the positions are too
short. The searches are stood in for by sleeps, so that the figures are known."""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_search.py"


def _script():
    spec = importlib.util.spec_from_file_location("bench_search", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compare(capsys, seconds: dict[int, float], count: int = 3) -> str:
    bench = _script()

    def run(search, P, O) -> int:
        time.sleep(seconds[search.threads])
        return 1000

    positions = [(0x0000000810000000, 0x0000001008000000, 60)] * count
    assert bench.compare_threads(positions, argparse.Namespace(hash=1, depth=5), [1, 2], run) == 0
    return capsys.readouterr().out


def test_long_positions_get_a_geometric_mean(capsys) -> None:
    out = _compare(capsys, {1: 0.12, 2: 0.06})
    line = next(ln for ln in out.splitlines() if ln.startswith("threads 2:"))
    m = re.search(r"speed-up x(\d+\.\d\d) over 1 \(per position: median x(\d+\.\d\d), "
                  r"geometric mean x(\d+\.\d\d) over the 3 of 0\.05 s or more\)", line)
    assert m, line
    for figure in m.groups():
        assert 1.6 < float(figure) < 2.1, line
    assert "note:" not in out


def test_short_positions_get_a_note_instead(capsys) -> None:
    out = _compare(capsys, {1: 0.002, 2: 0.002})
    line = next(ln for ln in out.splitlines() if ln.startswith("threads 2:"))
    assert "geometric mean" not in line
    assert re.search(r"speed-up x\d+\.\d\d over 1 \(per position: median x\d+\.\d\d\)", line), line
    assert "note: most positions took under 0.05 s with 1 thread(s)" in out
    assert "a larger --depth measures it" in out


def test_the_script_runs_with_two_thread_counts(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-P", str(SCRIPT), "--threads", "1,2", "--depth", "5",
                          "--positions", "2", "--hash", "2"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert re.search(r"^threads 1: depth 5 in \d+\.\d\d s total", out.stdout, re.M), out.stdout
    assert re.search(r"^threads 2: depth 5 in .*speed-up x\d+\.\d\d over 1", out.stdout, re.M), out.stdout
