"""Bad input found by fuzzing (issue 26, points 9, 10 and 12): a clear error that names the problem,
never a traceback, and the engine goes on."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from uci_support import command

from othello_engine.board import Board, InvalidBoardError

HUGE_RUN = "10/10/" + "1" * 5000 + "/10/10/10/10/10/10/10 x"


def engine(stdin: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "othello_engine"], input=stdin, text=True,
                          capture_output=True, timeout=60, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("fen, stray, rank", [("8/8/zz x", "z", 3), ("3/1z1/3 x", "z", 2),
                                              ("8/8/8/3ox3/3xo3/8/8/8?8 x", "?", 8)])
def test_a_stray_fen_character_is_named(fen, stray, rank):
    with pytest.raises(InvalidBoardError, match=re.escape(f"stray character {stray!r} in rank {rank}")):
        Board.from_fen(fen)
    out = engine(f"uci\nposition fen {fen}\nd\nquit\n")
    assert f"info string error: position: bad FEN {fen.split()[0]!r}"[:30] in out.stdout
    assert f"stray character {stray!r} in rank {rank}" in out.stdout


def test_a_huge_digit_run_is_a_bad_fen():
    with pytest.raises(InvalidBoardError, match="a run of .* empties in rank 3, longer than the rank"):
        Board.from_fen(HUGE_RUN)
    out = engine(f"uci\nposition startpos 10\nposition fen {HUGE_RUN}\nd\nquit\n")
    assert "internal error" not in out.stdout and "Traceback" not in out.stderr
    assert "longer than the rank" in out.stdout
    assert "fen 10/10/10/10/4ox4/4xo4/10/10/10/10 x" in out.stdout     # the previous position stays


def test_match_skips_a_huge_digit_run(tmp_path):
    openings = tmp_path / "open.txt"
    openings.write_text(HUGE_RUN + "\n10/10/10/10/4ox4/4xo4/10/10/10/10 x\n")
    engine_cmd = f"cmd={sys.executable} -P -m othello_engine"
    out = subprocess.run([command("othello-match"), "--engine", engine_cmd, "name=a", "depth=1", "--engine", engine_cmd,
                          "name=b", "depth=1", "--size", "10", "--openings", str(openings), "--games", "2"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "longer than the rank" in out.stderr + out.stdout


def test_play_refuses_a_huge_digit_run():
    out = subprocess.run([command("othello-play"), "--board", HUGE_RUN], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "longer than the rank" in out.stderr


@pytest.mark.parametrize("protocol, stdin, done", [
    ("uci", "uci\nquit\n", "uciok"),
    ("gtp", "1 name\nquit\n", "=1 othello_engine"),
    ("nboard", "nboard 2\nping 1\n", "pong 1"),
])
def test_weights_from_a_fifo_are_refused_at_once(tmp_path, protocol, stdin, done):
    fifo = tmp_path / "weights"
    os.mkfifo(fifo)
    out = engine(stdin, {"OTHELLO_ENGINE_WEIGHTS": str(fifo)})      # the timeout fails a blocked start
    assert done in out.stdout
    assert "not a regular file" in out.stdout + out.stderr
