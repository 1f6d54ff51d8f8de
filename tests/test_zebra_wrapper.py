"""scripts/engines/zebra_ugi.py, the UCI/UGI wrapper that makes Zebra an opponent: its parsing of
Zebra's output and its refusals without Zebra; with a Zebra binary ($ZEBRA_BIN, its coeffs2.bin
beside it or in $ZEBRA_DATA), the wrapper driven over pipes (answers checked with the reference
rules and its exact scores with the reference solver), refereed games against our engine and
the strength script's Zebra opponent."""

from __future__ import annotations

import doctest
import importlib.util
import json
import os
import queue
import random
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Optional

import pytest

import reference_rules as ref
from ggf_support import replay_with_reference
from othello_engine.board import PASS, Board, parse_square

PY = sys.executable
ROOT = Path(__file__).resolve().parent.parent
WRAPPER = ROOT / "scripts" / "engines" / "zebra_ugi.py"
STRENGTH = ROOT / "scripts" / "strength.py"


def zebra_binary() -> Optional[str]:
    """$ZEBRA_BIN when it is an executable with coeffs2.bin beside it (or in $ZEBRA_DATA)."""
    path = os.environ.get("ZEBRA_BIN")
    if not path or not os.access(path, os.X_OK):
        return None
    data = Path(os.environ.get("ZEBRA_DATA") or Path(path).resolve().parent)
    return path if (data / "coeffs2.bin").is_file() else None


ZEBRA = zebra_binary()
ZEBRA_NAME = Path(ZEBRA or "zebra").resolve().name[:15]     # as /proc/<pid>/stat names it
needs_zebra = pytest.mark.skipif(ZEBRA is None, reason="no Zebra: set ZEBRA_BIN (see docs/development.md, 'Zebra as an opponent')")


def load_wrapper() -> ModuleType:
    spec = importlib.util.spec_from_file_location("zebra_ugi", WRAPPER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["zebra_ugi"] = module      # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


zu = load_wrapper()


# --- without Zebra ------------------------------------------------------------------------------

def test_docstring_examples() -> None:
    result = doctest.testmod(zu)
    assert result.attempted > 0 and result.failed == 0


def test_status_lines_of_every_kind() -> None:
    """Zebra's progress lines (midgame, selective solve, exact, win/loss/draw, big node counts) and
    the lines that are not progress."""
    parse = zu.parse_status
    r = parse("-->  18  +9.37        1556481  f6 f7 d3 c5 f5     0.6 s  2526993 nps")
    assert (r.depth, r.score, r.nodes, r.pv) == (18, "cp 937", 1556481, ("f6", "f7", "d3", "c5", "f5"))
    assert parse("-->  22  -20         74176230  c1 e1 e2 b4 h7     5.8 s  12763911 nps").score == "disc -20"
    assert parse("-->  14  +0          5000  a1     0.0 s").score == "disc +0"
    assert parse("-->  22  Loss        23913381  b4 e6 h7 c1 h8     1.1 s").score == "wld loss"
    assert parse("-->  22  Loss @ 99%    163310  b4 e6 h7 c1        0.0 s").score is None
    assert parse("-->  22  +4 @ 72%   2010602  c1   0.3 s").score == "cp 400"
    assert parse("-->  20  -0.50      12G  d3   9.0 s").nodes == 12 * 10 ** 9
    for other in ("PV: f6 f7 d3", "[-inf,inf]:    c5=0.23 f6", "", "Black: 4   White: 1"):
        assert parse(other) is None


def test_game_file_and_pv_with_passes() -> None:
    board = Board()
    board.push(parse_square("f5"))
    text = zu.position_file_text(board)
    lines = text.splitlines()
    assert lines[1] == "W" and len(lines[0]) == 64 and lines[0] == board.cells()
    # a PV through a forced pass: Zebra leaves the pass out, the wrapper puts it back
    rng = random.Random(11)
    for grid, color, _ in _positions(rng, 4000):
        if ref.status(grid, color) != "move":
            continue
        for m in ref.legal_moves(grid, color):
            after = ref.play(grid, color, m)
            if ref.status(after, ref.other(color)) != "pass" or ref.status(after, color) != "move":
                continue
            reply = ref.legal_moves(after, color)[0]
            b = Board.from_cells(ref.grid_text(grid), "b" if color == ref.BLACK else "w")
            # the third move is stale (its square is taken): the PV ends before it
            pv = zu.pv_moves(b, (_name(m), _name(reply), _name(m)))
            assert pv == [parse_square(_name(m)), PASS, parse_square(_name(reply))]
            return
    pytest.fail("no position with a forced pass found")


def _name(move: tuple[int, int]) -> str:
    return "abcdefgh"[move[1]] + str(move[0] + 1)


def _positions(rng: random.Random, count: int) -> list[tuple[ref.Grid, str, ref.Move]]:
    out: list[tuple[ref.Grid, str, ref.Move]] = []
    while len(out) < count:
        out.extend(ref.random_game(8, rng))
    return out


def test_wrapper_refuses_to_start_without_zebra(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("ZEBRA_BIN", "ZEBRA_DATA")}
    no_data = tmp_path / "zebra"
    no_data.write_text("#!/bin/sh\n")
    no_data.chmod(0o755)
    for args, words in (([], "ZEBRA_BIN"), (["--zebra", str(tmp_path / "nope")], "not an executable"),
                        (["--zebra", str(no_data)], "coeffs2.bin")):
        proc = subprocess.run([PY, str(WRAPPER), *args], input="uci\n", capture_output=True, text=True,
                              timeout=30, env=env)
        assert proc.returncode == 2 and proc.stdout == "", (args, proc.stdout)
        assert "zebra_ugi: error:" in proc.stderr and words in proc.stderr, proc.stderr


def load_strength(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("strength_script", STRENGTH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "strength_script", module)
    spec.loader.exec_module(module)
    return module


def test_strength_skips_zebra_when_it_is_not_there(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ZEBRA_BIN", raising=False)
    strength = load_strength(monkeypatch)
    assert strength.main(["--opponents", "zebra"]) == 0
    out = capsys.readouterr().out
    assert "Zebra is not available" in out and "ZEBRA_BIN" in out and "W-L-D" not in out


# --- with Zebra ---------------------------------------------------------------------------------

def session(lines: list[str], timeout: float = 60) -> list[str]:
    """Drive a fresh wrapper over pipes: each line is sent when the previous one is answered
    (a go by its bestmove, unless it ends with `` &``); ``sleep <s>`` waits. Returns every
    output line."""
    assert ZEBRA is not None
    proc = subprocess.Popen([PY, str(WRAPPER), "--zebra", ZEBRA], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None
    out: list[str] = []
    deadline = time.monotonic() + timeout
    lines_read: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines_read.put(x) for x in proc.stdout], daemon=True).start()  # type: ignore

    def read_until(prefix: str) -> None:
        while True:
            try:
                line = lines_read.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no {prefix!r} in time: {out}")
            out.append(line.rstrip("\n"))
            if line.startswith(prefix):
                return

    try:
        for line in lines:
            if line.startswith("sleep "):
                time.sleep(float(line.split()[1]))
                continue
            background = line.endswith(" &")          # a go not to wait for (refused, or stopped later)
            line = line[:-2] if background else line
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            word = line.split()[0] if line.split() and not background else ""
            waits = {"uci": "uciok", "ugi": "ugiok", "isready": "readyok", "query": "response"}
            if word == "go" and "infinite" not in line:
                read_until("bestmove")
            elif word == "stop":
                read_until("bestmove")
            elif word in waits:
                read_until(waits[word])
        proc.stdin.write("isready\n")
        proc.stdin.flush()
        read_until("readyok")
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=10)
        time.sleep(0.05)
        while not lines_read.empty():
            out.append(lines_read.get().rstrip("\n"))
        err = proc.stderr.read()  # type: ignore[union-attr]
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "Traceback" not in "\n".join(out)
    return out


def bestmoves(out: list[str]) -> list[str]:
    words = [line.split() for line in out if line.startswith("bestmove")]
    assert all(len(w) == 2 for w in words), out
    return [w[1] for w in words]


def square_of(token: str) -> tuple[int, int]:
    return int(token[1]) - 1, ord(token[0]) - ord("a")


def side(color: str) -> str:
    return "b" if color == ref.BLACK else "w"


@needs_zebra
def test_every_go_form_gets_one_legal_move() -> None:
    """Midgame positions: movetime, depth, both clock forms, depth with movetime, infinite + stop;
    each gets exactly one bestmove, legal by the reference rules, in about its time."""
    rng = random.Random(3)
    cases = [(g, c) for g, c, _ in _positions(rng, 300)
             if ref.status(g, c) == "move" and len(ref.legal_moves(g, c)) > 1
             and 20 <= sum(row.count(ref.EMPTY) for row in g) <= 50][::17][:6]
    gos = ["go movetime 300", "go depth 3", "go btime 3000 wtime 3000 binc 10 winc 10",
           "go p1time 2000 p2time 2000", "go depth 40 movetime 250", "go infinite"]
    lines = ["uci", "isready"]
    for (grid, color), go in zip(cases, gos):
        lines += [f"position board {ref.grid_text(grid)} {side(color)}", go]
    lines += ["sleep 0.4", "stop"]
    out = session(lines)
    moves = bestmoves(out)
    assert len(moves) == len(cases) == 6
    for (grid, color), move in zip(cases, moves):
        assert square_of(move) in ref.legal_moves(grid, color), (ref.grid_text(grid), color, move)
    infos = [line for line in out if line.startswith("info depth")]
    assert infos and all(" pv " in line and " time " in line for line in infos)


@needs_zebra
def test_movetime_is_kept() -> None:
    """The bestmove of a go movetime comes within 60 ms of its time (Zebra cut at its budget)."""
    assert ZEBRA is not None
    proc = subprocess.Popen([PY, str(WRAPPER), "--zebra", ZEBRA], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write("uci\nposition startpos moves f5 d6 c3 d3 c4\n")
        proc.stdin.flush()
        while not proc.stdout.readline().startswith("uciok"):
            pass
        for ms in (400, 700):
            t0 = time.monotonic()
            proc.stdin.write(f"go movetime {ms}\n")
            proc.stdin.flush()
            while not (line := proc.stdout.readline()).startswith("bestmove"):
                assert line
            elapsed = time.monotonic() - t0
            assert ms / 1000 - 0.06 <= elapsed <= ms / 1000 + 0.06, (ms, elapsed)
        proc.stdin.write("quit\n")                # quit, so the wrapper removes its directory
        proc.stdin.flush()
        proc.wait(timeout=5)
    finally:
        proc.kill()
        proc.wait()


@needs_zebra
def test_passes_single_moves_and_game_over() -> None:
    """A side with no move answers pass (UGI: 0000); a finished game gets its final score and
    bestmove (none); a position with its forced pass left out is accepted."""
    rng = random.Random(5)
    all_positions = _positions(rng, 3000)
    must_pass = next((g, c) for g, c, _ in all_positions if ref.status(g, c) == "pass")
    over = next((g, c) for g, c, _ in all_positions if ref.status(g, c) == "over")
    single = next((g, c) for g, c, _ in all_positions
                  if ref.status(g, c) == "move" and len(ref.legal_moves(g, c)) == 1)
    grid, color = must_pass
    out = session(["uci", f"position board {ref.grid_text(grid)} {side(color)}", "go movetime 200",
                   "ugi", "go depth 4"])
    assert bestmoves(out) == ["pass", "0000"]
    reply = ref.legal_moves(grid, ref.other(color))[0]
    after = ref.play(ref.play(grid, color, None), ref.other(color), reply)
    out = session(["uci", f"position board {ref.grid_text(grid)} {side(color)} moves {_name(reply)}",
                   "go depth 2"])
    assert not [line for line in out if "error" in line], out
    if ref.status(after, color) == "move":
        assert square_of(bestmoves(out)[0]) in ref.legal_moves(after, color)
    grid, color = over
    out = session(["uci", f"position board {ref.grid_text(grid)} {side(color)}", "go movetime 200",
                   "query gameover", "query result"])
    assert bestmoves(out) == ["(none)"]
    final = ref.final_score(grid) * (1 if color == ref.BLACK else -1)
    assert f"info depth 0 score disc {final:+d}" in out
    result = "p1win" if ref.final_score(grid) > 0 else "p2win" if ref.final_score(grid) < 0 else "draw"
    assert "response true" in out and f"response {result}" in out
    grid, color = single
    out = session(["uci", f"position board {ref.grid_text(grid)} {side(color)}", "go movetime 1000"])
    assert [square_of(m) for m in bestmoves(out)] == ref.legal_moves(grid, color)


@needs_zebra
def test_exact_scores_and_moves_match_the_reference_solver() -> None:
    """go exact on endgames of 7-9 empties: Zebra's proven score is the reference solver's, and
    its move keeps that score (the board reaches Zebra the right way round)."""
    rng = random.Random(21)
    cases = []
    while len(cases) < 4:
        for grid, color, _ in ref.random_game(8, rng):
            empties = sum(row.count(ref.EMPTY) for row in grid)
            if 7 <= empties <= 9 and ref.status(grid, color) == "move" and len(ref.legal_moves(grid, color)) > 1:
                cases.append((grid, color))
                break
    lines = ["uci"]
    for grid, color in cases:
        lines += [f"position board {ref.grid_text(grid)} {side(color)}", "go exact movetime 20000"]
    lines += ["go wld"]                    # the last position again, for win/draw/loss only
    out = session(lines)
    moves = bestmoves(out)
    assert len(moves) == len(cases) + 1
    memo: dict = {}
    blocks = "\n".join(out).split("bestmove")
    last = ref.solve(*cases[-1], memo)
    wld = [line.split("score wld ")[1].split()[0] for line in blocks[-2].splitlines() if "score wld" in line]
    assert wld and wld[-1] == ("win" if last > 0 else "loss" if last < 0 else "draw"), (wld, last)
    for (grid, color), move, block in zip(cases, moves, blocks):
        best = ref.solve(grid, color, memo)
        scores = [line.split("score disc ")[1].split()[0] for line in block.splitlines() if "score disc" in line]
        assert scores and int(scores[-1]) == best, (ref.grid_text(grid), color, scores, best)
        after = ref.play(grid, color, square_of(move))
        assert -ref.solve(after, ref.other(color), memo) == best, (ref.grid_text(grid), color, move)


@needs_zebra
def test_bad_input_gets_one_error_line_and_keeps_the_position() -> None:
    out = session(["uci", "position startpos moves f5", "position startpos moves f5 f5",
                   "position fen 8/8/8 x", "position startpos 6", "position fen 8/8/8/3o4/4x3/8/8/8 x",
                   "setoption name Hash value 8", "setoption name Move Overhead value big",
                   "go movetime - &", "go searchmoves d6 &", "go perft 2 &", "frobnicate", "query colour &",
                   "go depth 1"])
    errors = [line for line in out if line.startswith("info string error")]
    assert len(errors) == 11, out
    assert "'f5'" in errors[0] and "6x6" in errors[2] and "4 discs" in errors[3] and "Hash" in errors[4]
    assert "searchmoves" in errors[7] and "'frobnicate'" in errors[9]
    grid = ref.play(ref.start_grid(8), ref.BLACK, (4, 5))     # the position after f5, white to move
    assert [square_of(m) in ref.legal_moves(grid, ref.WHITE) for m in bestmoves(out)] == [True]


def _stat(pid: int) -> Optional[tuple[str, str, int]]:
    """A process's name, state and parent (None when it is gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name, rest = text[text.index("(") + 1:].rsplit(")", 1)
    state, ppid = rest.split()[:2]
    return name, state, int(ppid)


def _running_zebras(parent: int) -> list[int]:
    """The live Zebra processes started by parent."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            st = _stat(int(entry.name))
            if st is not None and st[2] == parent and st[0] == ZEBRA_NAME and st[1] not in "ZX":
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] == ZEBRA_NAME and st[1] not in "ZX"


@needs_zebra
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to list processes")
def test_busy_commands_and_quit_leave_no_zebra_running() -> None:
    """During a search: isready answers, position is refused; quit mid-search ends the wrapper and
    its Zebra run at once."""
    assert ZEBRA is not None
    proc = subprocess.Popen([PY, str(WRAPPER), "--zebra", ZEBRA], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write("uci\nposition startpos\ngo infinite\n")
        proc.stdin.flush()
        time.sleep(0.5)
        zebras = _running_zebras(proc.pid)
        assert zebras, "Zebra should be running"
        proc.stdin.write("isready\nposition startpos moves f5\n")
        proc.stdin.flush()
        lines = []
        while not (line := proc.stdout.readline()).startswith("info string error"):
            lines.append(line)
        assert "readyok\n" in lines and "while a search runs" in line
        t0 = time.monotonic()
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=5)
        assert proc.returncode == 0 and time.monotonic() - t0 < 1.0
        time.sleep(0.1)
        assert not [z for z in zebras if _alive(z)]
    finally:
        proc.kill()
        proc.wait()


@needs_zebra
def test_refereed_games_against_our_engine(tmp_path: Path) -> None:
    """othello-match referees the wrapper (UGI) against our engine, one opening, colours swapped:
    both games end normally and their records replay to the reported scores."""
    assert ZEBRA is not None
    js, ggf = tmp_path / "m.json", tmp_path / "m.ggf"
    proc = subprocess.run(
        [PY, "-m", "othello_engine", "match",
         "--engine", f"cmd={shlex.join([PY, str(WRAPPER), '--zebra', ZEBRA])}", "name=zebra", "proto=ugi", "depth=2",
         "--engine", f"cmd={shlex.join([PY, '-m', 'othello_engine'])}", "name=ours", "depth=2",
         "--games", "2", "--json", str(js), "--ggf", str(ggf), "--quiet"],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(js.read_text())
    games = data["games"]
    assert len(games) == 2 and {g["black"] for g in games} == {"zebra", "ours"}
    assert all(g["termination"] == "normal" and g["culprit"] is None for g in games), games
    lines = ggf.read_text().splitlines()
    assert [replay_with_reference(line) for line in lines] == [g["discs"] for g in games]
    assert data["engines"][0]["id"].startswith("Zebra")


@needs_zebra
def test_strength_plays_zebra() -> None:
    """The benchmark's Zebra opponent: one opening each way, Zebra at a fixed depth."""
    assert ZEBRA is not None
    proc = subprocess.run([PY, str(STRENGTH), "--time", "0.05", "--openings", "1", "--opponents", "zebra",
                           "--zebra", ZEBRA, "--zebra-depth", "2"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    summary = proc.stdout.split("summary:")[1].strip().splitlines()
    assert [line.split()[0] for line in summary] == ["zebra"]
    w, l, d = (int(x) for x in summary[0].split("W-L-D ")[1].split(",")[0].split("-"))
    assert w + l + d == 2 and "target >= 50%" in summary[0]
