"""Searching on several threads: exact scores, limits, stop, the Threads option in every protocol
and tool, and a stress run of short multi-thread searches over the real process."""

from __future__ import annotations

import json
import random
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from othello_engine import _core, weights
from othello_engine.board import Board
from othello_engine.notation import parse_obf
from othello_engine.engine import Engine, Limit, usable_cpus

from ffo_data import ffo_line, needs_ffo
from uci_support import EngineProcess, Ref

PY = sys.executable
ERROR = "info string error: "
NODES = re.compile(r" nodes (\d+) ")

# An engine wrapper that writes every line it is sent to a log file, then runs our engine.
TEE = '''
import subprocess, sys, threading
log = open(sys.argv[1], "a", buffering=1)
proc = subprocess.Popen([sys.executable, "-m", "othello_engine"], stdin=subprocess.PIPE, bufsize=0)
for line in sys.stdin.buffer:
    log.write(line.decode())
    proc.stdin.write(line)
proc.stdin.close()
sys.exit(proc.wait())
'''


def midgame(plies: int = 20, seed: int = 3) -> Board:
    rng = random.Random(seed)
    b = Board()
    while len(b.move_stack) < plies:
        b.push(rng.choice(b.legal_moves()))
    return b


# --- the compiled search --------------------------------------------------------------------------

@needs_ffo
@pytest.mark.parametrize("threads, pattern", [(1, False), (2, False), (4, False), (2, True),
                                              (4, True)])
def test_exact_ffo_scores_with_any_thread_count(threads: int, pattern: bool) -> None:
    """FFO #1-#19 solved exactly: the score and a best move of the suite (the oracle), with the
    classic and the pattern evaluation ordering the moves."""
    assert not pattern or weights.ensure_loaded()
    search = _core.Search(16, threads)
    for n in range(1, 20):
        board, scored = parse_obf(ffo_line(n))
        expected = max(score for _, score in scored)
        search.clear()
        lines, _, nodes, exact = search.run(board.player, board.opponent, board.mask, 60, solve=1,
                                            pattern=pattern)
        move, score, _ = lines[0]
        assert exact and score == 100 * expected, (n, threads, score, expected)
        assert (move, expected) in scored, (n, threads, move)
        assert nodes > 0


def test_node_limit_counts_the_nodes_of_all_threads() -> None:
    b = midgame()
    for threads in (2, 3):
        search = _core.Search(16, threads)
        lines, depth, nodes, exact = search.run(b.player, b.opponent, b.mask, 60, 30000)
        # each thread polls every 1024 nodes at most, and less often as the budget runs out
        assert 30000 <= nodes <= 30000 + threads * 1024, (threads, nodes)
        assert lines[0][0] in b.legal_moves() and not exact and depth < b.empties


def test_hard_time_and_stop_hold_with_helpers() -> None:
    b = midgame(24)
    search = _core.Search(16, max(2, usable_cpus()))
    t0 = time.monotonic()
    lines, depth, _, exact = search.run(b.player, b.opponent, b.mask, 60, 0, 0.0, 0.15)
    assert time.monotonic() - t0 < 0.15 + 0.05 and not exact
    assert lines[0][0] in b.legal_moves()


def test_stop_of_an_exact_solve_with_four_threads_within_50_ms() -> None:
    engine = Engine(threads=4)
    b = midgame(30)        # 30 empties: far beyond a quick solve
    engine.start(b, Limit(exact=True))
    time.sleep(0.3)
    t0 = time.monotonic()
    engine.stop()
    result = engine.wait(2.0)
    assert result is not None and time.monotonic() - t0 < 0.05
    assert result.best_move in b.legal_moves() and not result.exact


def test_thread_count_changes_between_searches() -> None:
    engine = Engine(hash_mb=4)
    b = midgame()
    for threads in (1, 4, 2, 1, 3):
        engine.set_threads(threads)
        assert engine.threads == threads
        result = engine.search(b, Limit(depth=8))
        assert result.best_move in b.legal_moves() and result.depth == 8
    with pytest.raises(ValueError):
        engine.set_threads(0)
    with pytest.raises(ValueError):
        Engine(threads=257)
    assert engine.threads == 3


def test_more_threads_than_cpus_keep_the_time_limit() -> None:
    """Threads beyond the CPUs take turns on them, so the Engine runs one per CPU: a 0.2 s
    search with Threads 256 ends on time (each helper would need a turn to see the stop)."""
    engine = Engine(threads=256)
    assert engine.threads == 256
    b = midgame()
    t0 = time.monotonic()
    result = engine.search(b, Limit(time=0.2))
    assert time.monotonic() - t0 < 0.2 + 0.1 and result.best_move in b.legal_moves()


def test_multipv_with_threads() -> None:
    engine = Engine(threads=3, multipv=3)
    b = midgame()
    seen = []
    result = engine.search(b, Limit(depth=9), on_info=seen.append)
    moves = [line.move for line in result.lines]
    assert len(moves) == 3 == len(set(moves)) and set(moves) <= set(b.legal_moves())
    assert [line.score for line in result.lines] == sorted((line.score for line in result.lines),
                                                           reverse=True)
    assert all(len(info.lines) == 3 for info in seen) and seen[-1].depth == 9


def test_one_thread_searches_the_same_tree_every_time() -> None:
    """Threads 1 is the plain search: the same node count on a fixed depth, whatever the search
    object did before (including searches with more threads)."""
    b = midgame()
    fresh = _core.Search(16)
    _, _, expected, _ = fresh.run(b.player, b.opponent, b.mask, 9)
    used = _core.Search(16, 3)
    used.run(b.player, b.opponent, b.mask, 9)
    used.set_threads(1)
    used.clear()
    _, _, nodes, _ = used.run(b.player, b.opponent, b.mask, 9)
    assert nodes == expected


# --- the engine process ---------------------------------------------------------------------------

def test_uci_threads_option_and_busy_error() -> None:
    eng = EngineProcess(["--threads", "2"])
    try:
        lines = eng.ask("uci", lambda s: s == "uciok")
        assert "option name Threads type spin default 2 min 1 max 256" in lines
        eng.send("position startpos moves f5 d6 c3 d3 c4")
        eng.send("go infinite")
        assert not any(s.startswith("bestmove") for s in eng.quiet(0.3))
        eng.send("setoption name Threads value 3")
        got, _ = eng.until(lambda s: s.startswith(ERROR))
        assert got[-1] == ERROR + "setoption while a search runs: send stop first"
        sent = eng.send("stop")
        got, stamp = eng.until(lambda s: s.startswith("bestmove"))
        assert stamp - sent < 0.05
        assert eng.quiet(0.2) == []
        for threads in ("3", "1", "4"):
            eng.send(f"setoption name Threads value {threads}")
            got = eng.ask("go depth 8", lambda s: s.startswith("bestmove"))
            assert sum(s.startswith("bestmove") for s in got) == 1
            assert not any(s.startswith(ERROR) for s in got)
        eng.send("setoption name Threads value 257")
        assert eng.until(lambda s: s.startswith(ERROR))[0][-1] == (
            ERROR + "setoption: value 257 for 'Threads' is out of range 1..256")
        eng.send("go nodes 40000")
        got = eng.until(lambda s: s.startswith("bestmove"))[0]
        counts = [int(m.group(1)) for s in got if (m := NODES.search(s))]
        assert counts and counts[-1] <= 40000 + 4 * 1024
    finally:
        assert eng.close() == 0
    assert b"Traceback" not in eng.stderr


def test_ugi_announces_threads_and_multipv_info_sums_nodes() -> None:
    eng = EngineProcess()
    try:
        lines = eng.ask("ugi", lambda s: s == "ugiok")
        assert "option name Threads type spin default 1 min 1 max 256" in lines
        eng.send("setoption name Threads value 2")
        eng.send("setoption name MultiPV value 2")
        eng.send("position startpos moves f5 d6 c3")
        got = eng.ask("go depth 9", lambda s: s.startswith("bestmove"))
        last = [s for s in got if s.startswith("info depth 9 ")]
        assert [s.split(" multipv ")[1][0] for s in last] == ["1", "2"]
        assert len({NODES.search(s).group(1) for s in last}) == 1  # one total for the iteration
    finally:
        assert eng.close() == 0


def test_nboard_with_threads_flag() -> None:
    eng = EngineProcess(["--nboard", "--threads", "2"])
    try:
        eng.send("nboard 2")
        eng.send("set depth 10")
        eng.send("set game (;GM[Othello]PC[x]PB[a]PW[b]RE[?]TI[0]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6];)")
        got = eng.ask("go", lambda s: s.startswith("=== "), timeout=20)
        ref = Ref()
        ref.play("f5")
        ref.play("d6")
        assert got[-1].split()[1][:2].lower() in ref.moves()
    finally:
        eng.close()
    assert b"Traceback" not in eng.stderr


def test_gtp_with_threads_flag() -> None:
    proc = subprocess.run([PY, "-m", "othello_engine", "--gtp", "--threads", "2"],
                          input="boardsize 8\nclear_board\ngenmove b\nquit\n", capture_output=True,
                          text=True, timeout=60)
    replies = [s for s in proc.stdout.splitlines() if s]
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert replies[2][2:].lower() in Ref().moves(), replies


def test_bad_threads_flag_is_a_usage_error() -> None:
    for args in (["--threads", "0"], ["--threads"], ["--threads=many"]):
        proc = subprocess.run([PY, "-m", "othello_engine", *args], input="", capture_output=True,
                              text=True, timeout=30)
        assert proc.returncode == 2 and "--threads" in proc.stderr and proc.stdout == ""


def test_stress_short_multithread_searches_with_random_stops() -> None:
    """Many short searches on 3 threads, stopped at random moments: every go gets exactly one
    legal bestmove, and the process never hangs or crashes."""
    rng = random.Random(18)
    eng = EngineProcess()
    try:
        eng.ask("uci", lambda s: s == "uciok")
        eng.send("setoption name Threads value 3")
        eng.send("setoption name Hash value 4")
        for round_ in range(40):
            ref, moves = Ref(), []
            for _ in range(rng.randint(0, 50)):
                if ref.game_over():
                    break
                m = rng.choice(ref.moves() or ["pass"])
                ref.play(m)
                moves.append(m)
            if ref.game_over():
                continue
            eng.send("position startpos moves " + " ".join(moves) if moves else "position startpos")
            kind = rng.choice(["movetime", "infinite", "depth", "nodes", "exact"])
            go = {"movetime": f"go movetime {rng.randint(1, 40)}", "infinite": "go infinite",
                  "depth": f"go depth {rng.randint(4, 14)}", "nodes": f"go nodes {rng.randint(1, 60000)}",
                  "exact": "go exact"}[kind]
            eng.send(go)
            time.sleep(rng.random() * 0.04)
            if kind in ("infinite", "exact") or rng.random() < 0.5:
                eng.send("stop")
            got = eng.until(lambda s: s.startswith("bestmove"), timeout=20)[0]
            assert not any(s.startswith(ERROR) for s in got), got
            assert ref.must_pass() or got[-1].split()[1] in ref.moves(), (moves, got[-1])
            assert eng.sync() == [], round_          # exactly one bestmove, nothing after it
    finally:
        assert eng.close() == 0
    assert b"Traceback" not in eng.stderr


# --- the tools ------------------------------------------------------------------------------------

def test_analyze_and_match_pass_threads_to_the_engine(tmp_path: Path) -> None:
    tee = tmp_path / "tee.py"
    tee.write_text(TEE)
    log = tmp_path / "sent.log"
    engine = shlex.join([PY, str(tee), str(log)])
    proc = subprocess.run([PY, "-m", "othello_engine.cli.analyze", "--json", "--depth", "6",
                           "--threads", "2", "--engine", engine], input="f5 d6\n",
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[0])["best"]
    assert "setoption name Threads value 2\n" in log.read_text().splitlines(keepends=True)
    bad = subprocess.run([PY, "-m", "othello_engine.cli.analyze", "--threads", "0"], input="f5\n",
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "--threads" in bad.stderr

    log.unlink()
    proc = subprocess.run([PY, "-m", "othello_engine", "match", "--engine", f"cmd={engine}", "name=a",
                           "depth=2", "option.Threads=3", "--engine",
                           f"cmd={shlex.join([PY, '-m', 'othello_engine'])}", "name=b", "depth=2",
                           "--games", "2", "--quiet", "--ggf", str(tmp_path / "g.ggf")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "setoption name Threads value 3\n" in log.read_text().splitlines(keepends=True)
