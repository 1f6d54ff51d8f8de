"""scripts/strength.py and its rust-reversi engine wrapper, over real processes: the wrapper's
protocol answers checked with the reference rules, a refereed game against our engine replayed
through them, and the benchmark's own run and skip lines."""

from __future__ import annotations

import importlib.util
import json
import random
import shlex
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Optional

import pytest

import reference_rules as ref
from ggf_support import replay_with_reference

PY = sys.executable
ROOT = Path(__file__).resolve().parent.parent
WRAPPER = ROOT / "scripts" / "engines" / "rust_reversi_uci.py"
STRENGTH = ROOT / "scripts" / "strength.py"
HAVE_RUST = importlib.util.find_spec("rust_reversi") is not None
needs_rust = pytest.mark.skipif(not HAVE_RUST, reason="rust-reversi is not installed (pip install rust-reversi)")


def wrapper_session(lines: list[str]) -> list[str]:
    """Send the lines (and quit) to a fresh wrapper process; return its output lines. The wrapper
    searches in its input loop, so every go is answered before the next line is read."""
    proc = subprocess.run([PY, str(WRAPPER)], input="\n".join(lines + ["quit"]) + "\n",
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout
    return proc.stdout.splitlines()


def bestmoves(out: list[str]) -> list[str]:
    words = [line.split() for line in out if line.startswith("bestmove")]
    assert all(len(w) == 2 for w in words), out
    return [w[1] for w in words]


def square_of(token: str) -> tuple[int, int]:
    return int(token[1]) - 1, ord(token[0]) - ord("a")


def positions(seed: int, count: int) -> list[tuple[ref.Grid, str, ref.Move]]:
    """Positions of random games (grid, side to move, the move played there), from the reference rules."""
    rng = random.Random(seed)
    out: list[tuple[ref.Grid, str, ref.Move]] = []
    while len(out) < count:
        out.extend(ref.random_game(8, rng))
    return out


def side(color: str) -> str:
    return "b" if color == ref.BLACK else "w"


@needs_rust
def test_wrapper_answers_legal_moves_under_every_limit() -> None:
    """Midgame positions: each go form gets exactly one bestmove, legal by the reference rules."""
    cases = [(g, c) for g, c, _ in positions(3, 200) if ref.status(g, c) == "move"][10::37][:5]
    gos = ["go movetime 30", "go depth 2", "go btime 500 wtime 500 binc 10 winc 10",
           "go p1time 300 p2time 300", "go movetime 3"]
    lines = ["uci", "isready"]
    for (grid, color), go in zip(cases, gos):
        lines += [f"position board {ref.grid_text(grid)} {side(color)}", go]
    out = wrapper_session(lines)
    assert "uciok" in out and "readyok" in out
    moves = bestmoves(out)
    assert len(moves) == len(cases)
    for (grid, color), move in zip(cases, moves):
        assert square_of(move) in ref.legal_moves(grid, color), (ref.grid_text(grid), color, move)


@needs_rust
def test_wrapper_passes_and_game_over() -> None:
    """A side with no move answers pass (UGI: 0000); a finished game gets its final score and
    bestmove (none); a position sent with its forced pass left out is accepted."""
    all_positions = positions(5, 3000)
    must_pass = next((g, c) for g, c, _ in all_positions if ref.status(g, c) == "pass")
    over = next((g, c) for g, c, _ in all_positions if ref.status(g, c) == "over")
    grid, color = must_pass
    for dialect, token in (("uci", "pass"), ("ugi", "0000")):
        out = wrapper_session([dialect, f"position board {ref.grid_text(grid)} {side(color)}", "go movetime 20"])
        assert bestmoves(out) == [token]
    # the opponent's reply after the pass, given without it: the wrapper puts the pass in itself
    reply = ref.legal_moves(grid, ref.other(color))[0]
    after = ref.play(ref.play(grid, color, None), ref.other(color), reply)
    reply_name = "abcdefgh"[reply[1]] + str(reply[0] + 1)
    out = wrapper_session(["uci", f"position board {ref.grid_text(grid)} {side(color)} moves {reply_name}",
                           "go depth 1"])
    assert not [line for line in out if "error" in line], out
    if ref.status(after, color) == "move":
        assert square_of(bestmoves(out)[0]) in ref.legal_moves(after, color)
    grid, color = over
    out = wrapper_session(["uci", f"position board {ref.grid_text(grid)} {side(color)}", "go movetime 20"])
    assert bestmoves(out) == ["(none)"]
    final = ref.final_score(grid) * (1 if color == ref.BLACK else -1)
    assert f"info depth 0 score disc {final:+d}" in out


@needs_rust
def test_wrapper_rejects_bad_input_and_keeps_its_position() -> None:
    out = wrapper_session(["uci", "position startpos moves f5", "position startpos moves f5 f5",
                           "position fen 8/8/8 x", "setoption name Hash value 8", "go movetime -",
                           "go depth 1"])
    errors = [line for line in out if line.startswith("info string error")]
    assert len(errors) == 4, out
    assert "'f5'" in errors[0] and "Hash" in errors[2]
    # the go after the rejected lines searches the position after f5 (white to move)
    grid = ref.play(ref.start_grid(8), ref.BLACK, (4, 5))
    assert [square_of(m) in ref.legal_moves(grid, ref.WHITE) for m in bestmoves(out)] == [True]




@needs_rust
def test_wrapper_plays_refereed_games_against_our_engine(tmp_path: Path) -> None:
    """othello-match referees the wrapper against our engine (one opening, colours swapped):
    both games end normally and their records replay to the reported scores."""
    js, ggf = tmp_path / "m.json", tmp_path / "m.ggf"
    proc = subprocess.run(
        [PY, "-m", "othello_engine", "match",
         "--engine", f"cmd={shlex.join([PY, str(WRAPPER)])}", "name=rust", "movetime=0.02",
         "--engine", f"cmd={shlex.join([PY, '-m', 'othello_engine'])}", "name=ours", "movetime=0.02",
         "--games", "2", "--json", str(js), "--ggf", str(ggf), "--quiet"],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(js.read_text())
    games = data["games"]
    assert len(games) == 2 and {g["black"] for g in games} == {"rust", "ours"}
    assert all(g["termination"] == "normal" and g["culprit"] is None for g in games), games
    lines = ggf.read_text().splitlines()
    assert [replay_with_reference(line) for line in lines] == [g["discs"] for g in games]
    assert data["engines"][0]["id"].startswith("rust-reversi")


def load_strength(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("strength_script", STRENGTH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "strength_script", module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


def test_missing_opponents_are_skipped_with_a_line(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    strength = load_strength(monkeypatch)
    real_find_spec = importlib.util.find_spec

    def no_rust(name: str, package: Optional[str] = None) -> object:
        return None if name == "rust_reversi" else real_find_spec(name, package)

    monkeypatch.setattr(strength.importlib.util, "find_spec", no_rust)
    monkeypatch.setattr(strength, "rhino_program", lambda: None)
    assert strength.main(["--opponents", "rust,rhino"]) == 0
    out = capsys.readouterr().out
    assert "rust-reversi is not installed (pip install rust-reversi): skipped" in out
    assert "gtp-rhino is not installed (Debian package grhino): skipped" in out
    assert "W-L-D" not in out


def test_zebra_time_is_zebras_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """--zebra-time gives Zebra its own time per move (its start-up back); without it Zebra
    gets --time, as our engine does."""
    strength = load_strength(monkeypatch)
    fake = sys.executable  # any executable file stands for the Zebra binary here
    args = strength.build_parser().parse_args(["--time", "0.1", "--zebra", fake, "--zebra-time", "0.13"])
    assert strength.make_opponent("zebra", args).spec.tc.movetime == pytest.approx(0.13)
    args = strength.build_parser().parse_args(["--time", "0.1", "--zebra", fake])
    assert strength.make_opponent("zebra", args).spec.tc.movetime == pytest.approx(0.1)


def test_bad_options_are_refused() -> None:
    for args in (["--opponents", "stockfish"], ["--openings", "0"], ["--time", "0"],
                 ["--zebra-time", "0"], ["--zebra-time", "-1"]):
        proc = subprocess.run([PY, str(STRENGTH), *args], capture_output=True, text=True, timeout=30)
        assert proc.returncode == 2 and "strength.py: error:" in proc.stderr, (args, proc.stderr)


@needs_rust
def test_strength_runs_refereed_pairings() -> None:
    """The benchmark itself: one opening each way against the weak self and rust-reversi; the
    summary's W-L-D add up to the games played."""
    proc = subprocess.run([PY, str(STRENGTH), "--time", "0.02", "--openings", "1", "--opponents", "self,rust",
                           "--weak-depth", "1"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    summary = proc.stdout.split("summary:")[1].strip().splitlines()
    assert [line.split()[0] for line in summary] == ["self", "rust"]
    for line in summary:
        w, l, d = (int(x) for x in line.split("W-L-D ")[1].split(",")[0].split("-"))
        assert w + l + d == 2, line
    assert "target >= 90%" in summary[1]
    assert proc.stdout.count("2 of 2 games played") == 2


def wrapper_processes() -> list[int]:
    """Pids of running rust-reversi wrapper processes (from /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if str(WRAPPER).encode() in cmdline:
                pids.append(int(entry.name))
    return pids


@needs_rust
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to list processes")
def test_sigterm_reports_the_games_so_far_and_leaves_no_engine_running() -> None:
    proc = subprocess.Popen([PY, str(STRENGTH), "--time", "0.05", "--openings", "3", "--opponents", "rust"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if line.strip().startswith("game 1/6"):
                break
        assert wrapper_processes(), "the wrapper should be running mid-match"
        proc.terminate()
        rest, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "summary: (interrupted)" in rest and "stopped early" in rest
    assert not wrapper_processes()
