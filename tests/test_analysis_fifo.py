"""othello-analyze reads named pipes and the shell's ``<(...)`` like files; other non-files are refused."""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from othello_engine.board import PASS, Board

import reference_rules as ref

ANALYZE = [sys.executable, "-m", "othello_engine.cli.analyze"]


def endgame(seed: int, empties: int) -> Board:
    """A position from a random game with `empties` empty squares (the side to move has a move)."""
    rng = random.Random(seed)
    while True:
        b = Board()
        while b.empties > empties and not b.is_game_over():
            b.push(rng.choice(b.legal_moves() or [PASS]))
        if not b.is_game_over() and b.legal_moves():
            return b


def line_of(b: Board) -> str:
    return f"{b.cells()} {'XO'[b.turn]}"


def check_records(stdout: str, boards: list[Board]) -> None:
    recs = [json.loads(line) for line in stdout.splitlines()]
    assert len(recs) == len(boards)
    for rec, b in zip(recs, boards):
        assert rec["exact"] and rec["score"] == ref.solve_text(b.cells(), "XO"[b.turn])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_read_as_input(tmp_path: Path) -> None:
    boards = [endgame(s, 8) for s in (1, 2, 3)]
    fifo = tmp_path / "positions.fifo"
    os.mkfifo(fifo)
    plain = tmp_path / "more.txt"
    plain.write_text(line_of(boards[2]) + "\n")

    def feed() -> None:
        with open(fifo, "w") as f:   # blocks until the analyser opens the pipe
            f.write(line_of(boards[0]) + "\n" + line_of(boards[1]) + "\n")

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    proc = subprocess.run(ANALYZE + ["--json", "--exact", str(fifo), str(plain)],
                          capture_output=True, text=True, timeout=120)
    writer.join(5)
    assert proc.returncode == 0, proc.stderr
    check_records(proc.stdout, boards)


@pytest.mark.skipif(shutil.which("bash") is None or not os.path.isdir("/dev/fd"),
                    reason="needs bash process substitution")
def test_process_substitution_is_read_as_input() -> None:
    boards = [endgame(s, 6) for s in (4, 5)]
    text = "\\n".join(line_of(b) for b in boards)
    cmd = " ".join(f"'{a}'" for a in ANALYZE) + f" --json --exact <(printf '{text}\\n')"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    check_records(proc.stdout, boards)


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no unix sockets here")
def test_a_socket_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        proc = subprocess.run(ANALYZE + ["--depth", "1", str(path)], capture_output=True, text=True,
                              timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"othello-analyze: cannot read {str(path)!r}: not a regular file or pipe\n"
