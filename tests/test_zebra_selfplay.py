"""scripts/zebra_selfplay.py, training games from Zebra's self-play: its openings, its reading of
Zebra's game log against game results recorded before, its refusals, and with a Zebra binary
($ZEBRA_BIN, coeffs2.bin beside it) a small run that resumes."""

from __future__ import annotations

import gzip
import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import reference_rules as rr

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "zebra_selfplay.py"
ZEBRA_GAMES = ROOT / "training" / "zebra_games.txt.gz"
ZEBRA_BIN = os.environ.get("ZEBRA_BIN")
HAVE_ZEBRA = bool(ZEBRA_BIN) and (Path(ZEBRA_BIN).resolve().parent / "coeffs2.bin").is_file()

spec = importlib.util.spec_from_file_location("zebra_selfplay", SCRIPT)
zs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(zs)


def replay(moves: str):
    """(grid, colour to move) after the moves (a1 = row 0, col 0), passes made where forced."""
    grid, color = rr.start_grid(8), rr.BLACK
    for i in range(0, len(moves), 2):
        if rr.status(grid, color) == "pass":
            color = rr.other(color)
        move = (int(moves[i + 1]) - 1, ord(moves[i]) - ord("a"))
        assert move in rr.legal_moves(grid, color), moves[:i + 2]
        grid, color = rr.play(grid, color, move), rr.other(color)
    return grid, color


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=600)


def test_openings_are_distinct_legal_lines_and_seeded():
    lines = zs.random_openings(300, 5)
    assert lines == zs.random_openings(300, 5) and lines != zs.random_openings(300, 6)
    assert len(set(lines)) == 300
    for text in lines:
        assert 6 <= len(text) // 2 <= 12
        grid, color = replay(text)
        assert rr.status(grid, color) == "move", text      # the side to move has a move


def test_a_zebra_log_reads_as_the_results_recorded_before():
    # Zebra's games of the test set, with the results this package recorded for them (by its own
    # replay): written out as Zebra's log writes games, they must read back to the same records
    with gzip.open(ZEBRA_GAMES, "rt") as f:
        games = [line.split() for line in f][:60]
    log = "".join(f"# Sat Nov 28 07:53:36 2026\n#     32 - 32\n{moves}\n" for moves, _, _ in games)
    log += "# Sat Nov 28 07:53:37 2026\n#     10 - 12\n" + games[0][0][:40] + "\n"   # cut short
    log += "# x\n#  1 - 1\nf5f5\n"                                                    # illegal
    records, bad = zs.game_records(log, 14)
    assert bad == 2
    assert records == [f"{moves} {int(result):+d} 14" for moves, result, _ in games]
    assert len({r.split()[1] for r in records}) > 5          # many different results


def test_refusals_are_one_line_without_a_traceback(tmp_path):
    done = run(str(tmp_path / "g.txt"), "--zebra", str(tmp_path / "nothing"))
    assert done.returncode == 2 and "not an executable file" in done.stderr
    fake = tmp_path / "zebra"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    done = run(str(tmp_path / "g.txt"), "--zebra", str(fake))
    assert done.returncode == 2 and "coeffs2.bin" in done.stderr
    (tmp_path / "coeffs2.bin").write_bytes(b"")
    done = run(str(tmp_path / "g.txt"), "--zebra", str(fake), "--games", "0")
    assert done.returncode == 2 and "--games" in done.stderr
    for d in (done,):
        assert "Traceback" not in d.stderr and len(d.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "g.txt").exists()


def test_an_interrupted_run_says_how_to_resume(tmp_path):
    fake = tmp_path / "zebra"
    fake.write_text("#!/bin/sh\nsleep 60\n")
    fake.chmod(0o755)
    (tmp_path / "coeffs2.bin").write_bytes(b"")
    proc = subprocess.Popen([sys.executable, str(SCRIPT), str(tmp_path / "g.txt"), "--zebra", str(fake),
                             "--games", "10", "--jobs", "1"], stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            # as from a terminal: a runner started in the background (nohup, CI)
                            # may pass SIGINT on ignored, and the child would keep ignoring it
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    started = tmp_path / "g.txt.work" / "chunk_000"      # made just before Zebra's first run
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)             # Ctrl-C: the script and its Zebra run
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "run again to resume" in err and "Traceback" not in err, err
    assert not (tmp_path / "g.txt").exists()


@pytest.mark.skipif(not HAVE_ZEBRA, reason="no Zebra: set ZEBRA_BIN to the zebra binary (coeffs2.bin beside it)")
def test_zebra_plays_the_openings_and_a_run_resumes(tmp_path):
    out = tmp_path / "z.txt"
    args = (str(out), "--zebra", ZEBRA_BIN, "--games", "30", "--depth", "2", "--exact", "8",
            "--seed", "3", "--jobs", "1")
    done = run(*args)
    assert done.returncode == 0, done.stderr
    records = out.read_text().splitlines()
    assert len(records) == 30
    for record, opening in zip(records, zs.random_openings(30, 3)):
        moves, result, solve = record.split()
        assert moves.startswith(opening) and solve == "8"
        grid, color = replay(moves)
        assert rr.status(grid, color) == "over" and rr.final_score(grid) == int(result)
    # another run with the same settings plays nothing again; other settings are refused
    first = out.read_text()
    done = run(*args)
    assert done.returncode == 0 and out.read_text() == first
    done = run(*args[:-4], "--seed", "4", "--jobs", "1")
    assert done.returncode == 2 and "other settings" in done.stderr
