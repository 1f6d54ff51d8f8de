"""scripts/bench_search.py's thread comparison: the speed-ups it prints (total, median, geometric
mean over the positions long enough to say something), and its note when the positions are too
short. The searches are stood in for by a clock that each stand-in search moves on by a set time,
so that the figures are exact whatever the machine's load."""

from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_search.py"


def _script():
    spec = importlib.util.spec_from_file_location("bench_search", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compare(capsys, monkeypatch, seconds: dict[int, float], count: int = 3) -> str:
    bench = _script()
    clock = [0.0]
    monkeypatch.setattr(bench.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(bench, "parallel_capacity", lambda threads: 2.0)

    def run(search, P, O) -> int:
        clock[0] += seconds[search.threads]
        return 1000

    positions = [(0x0000000810000000, 0x0000001008000000, 60)] * count
    assert bench.compare_threads(positions, argparse.Namespace(hash=1, depth=5), [1, 2], run) == 0
    return capsys.readouterr().out


def test_long_positions_get_a_geometric_mean(capsys, monkeypatch) -> None:
    out = _compare(capsys, monkeypatch, {1: 0.12, 2: 0.06})
    assert "control: 2 independent perft threads run x2.00 as fast as one" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("threads 2:"))
    assert ("speed-up x2.00 over 1 (per position: median x2.00, geometric mean x2.00 over the 3 "
            "of 0.05 s or more)") in line, line
    assert line.startswith("threads 2: depth 5 in 0.18 s total"), line
    assert "note:" not in out


def test_short_positions_get_a_note_instead(capsys, monkeypatch) -> None:
    out = _compare(capsys, monkeypatch, {1: 0.004, 2: 0.002})
    line = next(ln for ln in out.splitlines() if ln.startswith("threads 2:"))
    assert "geometric mean" not in line
    assert "speed-up x2.00 over 1 (per position: median x2.00)" in line, line
    assert "note: most positions took under 0.05 s with 1 thread(s)" in out
    assert "a larger --depth measures it" in out


def test_the_script_runs_with_two_thread_counts(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-P", str(SCRIPT), "--threads", "1,2", "--depth", "5",
                          "--positions", "2", "--hash", "2"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert re.search(r"^threads 1: depth 5 in \d+\.\d\d s total", out.stdout, re.M), out.stdout
    assert re.search(r"^threads 2: depth 5 in .*speed-up x\d+\.\d\d over 1", out.stdout, re.M), out.stdout
