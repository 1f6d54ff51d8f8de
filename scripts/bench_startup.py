"""Benchmark: time from starting the engine process to `uciok`, with the shipped pattern weights and
without a weights file (the classic fallback), and the time to read and check the weights file."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def start_to_uciok(env: dict[str, str]) -> float:
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-P", "-m", "othello_engine"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"uci\n")
    proc.stdin.flush()
    for line in proc.stdout:
        if line.startswith(b"uciok"):
            break
    elapsed = time.perf_counter() - t
    proc.stdin.write(b"quit\n")
    proc.stdin.flush()
    proc.wait()
    return elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=9, help="process starts per case (default 9)")
    args = ap.parse_args(argv)
    cases = (("shipped weights", dict(os.environ)),
             ("no weights file", dict(os.environ, OTHELLO_ENGINE_WEIGHTS=os.devnull + ".none")))
    for name, env in cases:
        times = [start_to_uciok(env) for _ in range(args.runs)]
        print(f"{name:>16}: process start to uciok median {statistics.median(times) * 1000:.0f} ms, "
              f"max {max(times) * 1000:.0f} ms")
    from othello_engine import weights
    t = time.perf_counter()
    weights.read(weights.DEFAULT_PATH)
    print(f"reading and checking {os.path.basename(weights.DEFAULT_PATH)}: "
          f"{(time.perf_counter() - t) * 1000:.1f} ms; load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
