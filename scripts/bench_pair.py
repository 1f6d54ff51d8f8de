"""Benchmark: two builds' exact-solve times, paired. Both solve the same FFO positions at the same
moment, one process each, so that a slow spell of a shared host slows both; the run is repeated.

    python scripts/bench_pair.py TREE_A TREE_B 45-49 [--repeat 3] [--hash 64] [--tune-b k=v]

TREE_A and TREE_B are source trees with the core built in place (`python setup.py build_ext
--inplace`); each process imports othello_engine from its tree (PYTHONPATH) and runs this
directory's bench_ffo.py. One line a run: each build's CPU seconds and nodes, the ratio B/A;
then the mean, lowest and highest ratio. On a host where one build's time moves by 5% from run to
run, the ratio of a pair moves by 1-2%. Needs two free cores.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOTAL = re.compile(r"^total: (\d+) positions, (\d+) wrong, .*?(\d+) nodes, ([\d.]+) s wall, ([\d.]+) s cpu")


def tree_env(tree: Path) -> dict[str, str]:
    """The environment of a process that imports othello_engine from tree."""
    return {**os.environ, "PYTHONPATH": str(tree)}


def core_of(tree: Path) -> str | None:
    """The path of the compiled core that a process importing from tree loads (None: none)."""
    probe = subprocess.run([sys.executable, "-P", "-c",
                            "import othello_engine._core as c; print(c.__file__)"],
                           env=tree_env(tree), cwd=tree, capture_output=True, text=True)
    return probe.stdout.strip() if probe.returncode == 0 else None


def start(tree: Path, positions: list[str], hash_mb: int, tune: list[str]) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-P", str(HERE / "bench_ffo.py"), *positions, "--hash", str(hash_mb)]
    for item in tune:
        cmd += ["--tune", item]
    return subprocess.Popen(cmd, env=tree_env(tree), cwd=tree,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def total_of(output: str) -> tuple[int, int, float] | None:
    """(wrong, nodes, cpu seconds) from bench_ffo's total line."""
    for line in output.splitlines():
        m = TOTAL.match(line)
        if m:
            return int(m.group(2)), int(m.group(3)), float(m.group(5))
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree_a", type=Path)
    ap.add_argument("tree_b", type=Path)
    ap.add_argument("positions", nargs="+", help="FFO numbers, e.g. 45-49")
    ap.add_argument("--repeat", type=int, default=3, help="paired runs (default 3)")
    ap.add_argument("--hash", type=int, default=64, help="transposition table MiB (default 64)")
    ap.add_argument("--tune-a", action="append", default=[], metavar="NAME=VALUE",
                    help="a core tuning knob for build A's process (repeatable)")
    ap.add_argument("--tune-b", action="append", default=[], metavar="NAME=VALUE",
                    help="the same for build B")
    args = ap.parse_args(argv)
    trees = [args.tree_a.resolve(), args.tree_b.resolve()]
    for name, tree in zip("AB", trees):
        core = core_of(tree)
        if core is None or not Path(core).resolve().is_relative_to(tree):
            print(f"{name}: {tree} has no core built in place (it would load {core or 'none'}); "
                  f"run `python setup.py build_ext --inplace` there", file=sys.stderr)
            return 2
    ratios: list[float] = []
    for run in range(1, args.repeat + 1):
        procs = [start(tree, args.positions, args.hash, tune)
                 for tree, tune in zip(trees, (args.tune_a, args.tune_b))]
        outputs = [p.communicate()[0] for p in procs]
        totals = [total_of(out) for out in outputs]
        for name, out, total in zip("AB", outputs, totals):
            if total is None:
                print(f"{name}: bench_ffo.py gave no total:\n{out}", file=sys.stderr)
                return 1
            if total[0]:
                print(f"{name}: {total[0]} wrong scores:\n{out}", file=sys.stderr)
                return 1
        (_, na, ca), (_, nb, cb) = totals  # type: ignore[misc]
        if ca <= 0 or cb <= 0:
            print(f"run {run}: A {na} nodes, B {nb} nodes: too short to time (choose larger "
                  f"positions)", flush=True)
            continue
        ratios.append(cb / ca)
        print(f"run {run}: A {ca:.2f} s cpu, {na} nodes; B {cb:.2f} s cpu, {nb} nodes; "
              f"B/A {cb / ca:.3f}", flush=True)
    if not ratios:
        return 1
    print(f"B/A: mean {statistics.fmean(ratios):.3f}, lowest {min(ratios):.3f}, highest {max(ratios):.3f} "
          f"over {len(ratios)} paired runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
