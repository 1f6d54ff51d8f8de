"""A long search reports at least once a second: a long solve is never silent (it once printed
nothing for 15 minutes after its last iteration)."""

from __future__ import annotations

import re

from uci_support import EngineProcess

# FFO #57, 30 empties, black to move (a6, -10): its exact solve takes about 110 s on one core of a
# 2026 CPU after the last midgame iteration, long enough to be silent without progress reports.
# (The position of 26 empties used before took 12 s when the test was written, and 4.3 s on
# 2026-11-29, less than the test watches: the search then ended before the test was done.)
SOLVE = "8/8/3xxooo/2xxxooo/2xxoxoo/1oooxxxo/2oxoo1o/1ooooo2 x"


def gaps(stamps: list[float]) -> list[float]:
    return [b - a for a, b in zip(stamps, stamps[1:])]


def test_uci_progress_lines_come_every_second() -> None:
    e = EngineProcess()
    try:
        e.ask("uci", lambda line: line == "uciok")
        e.send(f"position fen {SOLVE}")
        started = e.send("go exact")
        stamps, progress = [started], []
        deadline = started + 4.5
        while stamps[-1] < deadline:
            stamp, line = e.read(timeout=5)
            if line.startswith("info depth"):
                stamps.append(stamp)
                if " score " not in line:
                    progress.append(line)
        e.send("stop")
        e.until(lambda line: line.startswith("bestmove"), timeout=10)
    finally:
        e.close()
    assert progress, "no progress line in a 4.5 s search"
    assert all(re.fullmatch(r"info depth \d+ nodes \d+ nps \d+ time \d+", line) for line in progress), progress
    # at least once a second, with room for a loaded machine
    assert max(gaps(stamps)) < 2.0, gaps(stamps)


def test_nboard_nodestats_come_every_second_in_a_long_solve() -> None:
    e = EngineProcess(["--nboard"])
    try:
        e.send("nboard 2")
        e.send("set depth 60")
        rows = "".join("-" * int(c) if c.isdigit() else c for c in SOLVE.split()[0].replace("/", ""))
        e.send("set game (;GM[Othello]PC[test]PB[a]PW[b]RE[?]TI[0//0]TY[8]BO[8 "
               + rows.replace("x", "*").replace("o", "O") + " *];)")
        e.send("ping 1")
        e.until(lambda line: line == "pong 1")
        started = e.send("go")
        stamps = [started]
        while stamps[-1] < started + 3.5:
            stamp, line = e.read(timeout=5)
            if line.startswith("nodestats") or line.startswith("==="):
                stamps.append(stamp)
                if line.startswith("==="):
                    break
    finally:
        e.close()
    assert len(stamps) >= 3
    assert max(gaps(stamps)) < 2.0, gaps(stamps)
