"""One run at a time writes a resumable output file: a second run on the same file is refused with
one line and exit 2, before it reads, cuts or appends to the file (othello-train generate, label and
testset; othello-match --ggf; othello-analyze --output). "Another run" is played here by this test
process holding the lock, and once by a real second run of generate."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from othello_engine import filelock
from uci_support import command, default_sigint

BUSY = "is being written by another run"
OURS = shlex.join([sys.executable, "-P", "-m", "othello_engine"])
ENGINES = ["--engine", f"cmd={OURS}", "name=a", "depth=1", "--engine", f"cmd={OURS}", "name=b", "depth=1"]


def run(tmp_path: Path, name: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([command(name), *args], capture_output=True, text=True, timeout=timeout,
                          cwd=tmp_path, stdin=subprocess.DEVNULL)


def refused(out: subprocess.CompletedProcess[str]) -> None:
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and BUSY in lines[0], out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_hold_and_release(tmp_path: Path) -> None:
    path = str(tmp_path / "out.txt")
    assert filelock.hold(path, create=False) is None and not os.path.exists(path)
    fd = filelock.hold(path)
    assert fd is not None and os.path.getsize(path) == 0
    with pytest.raises(filelock.FileInUse, match=BUSY):
        filelock.hold(path)
    with pytest.raises(filelock.FileInUse):
        with filelock.held(path):
            pass
    filelock.release(fd)
    with filelock.held(path):
        with pytest.raises(filelock.FileInUse):
            filelock.hold(path, create=False)
    filelock.release(filelock.hold(path, create=False))


def test_a_path_that_can_not_be_looked_up(tmp_path: Path) -> None:
    """Below a regular file (not a directory): without create there is nothing to lock; with
    create, the open's own error."""
    (tmp_path / "plain").write_text("")
    path = str(tmp_path / "plain" / "out.txt")
    assert filelock.hold(path, create=False) is None
    with pytest.raises(NotADirectoryError):
        filelock.hold(path)


def test_outputs_that_can_not_be_written_get_one_line(tmp_path: Path) -> None:
    """othello-analyze -o and othello-match --ggf at a path below a regular file: an error line
    that names the file, no traceback."""
    (tmp_path / "in.txt").write_text("f5\n")
    (tmp_path / "plain").write_text("")
    out = run(tmp_path, "othello-analyze", "in.txt", "--depth", "1", "--csv", "-q", "-o", "plain/a.csv",
              timeout=120)
    assert out.returncode == 2, out.stderr
    assert out.stderr == "othello-analyze: cannot write 'plain/a.csv': Not a directory\n", out.stderr
    out = run(tmp_path, "othello-match", *ENGINES, "--games", "2", "--ggf", "plain/m.ggf", "--quiet", timeout=120)
    assert "Traceback" not in out.stderr and "'plain/m.ggf' could not be written" in out.stderr, out.stderr
    assert (tmp_path / "plain").read_text() == ""


def test_a_pipe_is_not_locked_and_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert filelock.hold(str(fifo)) is None   # returns at once: no reader waits for a writer


def test_train_steps_refuse_a_file_another_run_writes(tmp_path: Path) -> None:
    out = run(tmp_path, "othello-train", "generate", "g.txt", "--games", "3", "--depth", "1", "-q")
    assert out.returncode == 0, out.stderr
    games = (tmp_path / "g.txt").read_text()
    for step in (["generate", "busy.txt", "--games", "5", "--depth", "1"],
                 ["label", "g.txt", "busy.txt", "--depth", "1"],
                 ["testset", "g.txt", "busy.txt", "--empties", "10", "--count", "2"]):
        busy = tmp_path / "busy.txt"
        busy.write_text("a line the other run wrote\nhalf a li")
        with filelock.held(str(busy)):
            refused(run(tmp_path, "othello-train", *step, "-q"))
            # neither cut back to its last whole line nor appended to
            assert busy.read_text() == "a line the other run wrote\nhalf a li"
        busy.unlink()
        with filelock.held(str(busy)):   # a file the other run has only just created, still empty
            refused(run(tmp_path, "othello-train", *step, "-q"))
            assert busy.exists() and busy.read_text() == ""
        busy.unlink()
    assert (tmp_path / "g.txt").read_text() == games


def test_a_second_generate_on_the_same_file_while_the_first_runs(tmp_path: Path) -> None:
    first = subprocess.Popen([command("othello-train"), "generate", "g.txt", "--games", "100000",
                              "--depth", "1", "--jobs", "1", "-q"], cwd=tmp_path,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=default_sigint)
    try:
        path = tmp_path / "g.txt"
        deadline = time.monotonic() + 60
        while not (path.exists() and path.read_text().count("\n") >= 2):
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        refused(run(tmp_path, "othello-train", "generate", "g.txt", "--games", "100000", "--depth", "1",
                    "-q"))
        assert first.poll() is None
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    # the first run's games alone, numbered from 0 without a gap: each game is one whole line
    lines = path.read_text().splitlines(True)
    assert lines and all(line.endswith("\n") and len(line.split()) == 3 for line in lines)
    again = run(tmp_path, "othello-train", "generate", "again.txt", "--games", str(len(lines)), "--depth",
                "1", "-q")
    assert again.returncode == 0 and (tmp_path / "again.txt").read_text().splitlines(True) == lines


def test_match_refuses_a_ggf_file_another_run_writes(tmp_path: Path) -> None:
    ggf = tmp_path / "m.ggf"
    ggf.write_text("(;GM[Othello]...;)\n")
    with filelock.held(str(ggf)):
        for extra in ([], ["--resume"]):
            out = run(tmp_path, "othello-match", *ENGINES, "--games", "2", "--ggf", "m.ggf", "--quiet", *extra,
                      timeout=120)
            refused(out)
            assert ggf.read_text() == "(;GM[Othello]...;)\n"
    out = run(tmp_path, "othello-match", *ENGINES, "--games", "2", "--ggf", "m.ggf", "--quiet", timeout=120)
    assert out.returncode == 0, out.stderr
    assert len(ggf.read_text().splitlines()) == 2


def test_analyze_refuses_an_output_another_run_writes(tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("f5\nf5d6\n")
    out_file = tmp_path / "a.csv"
    out_file.write_text("x\n")
    with filelock.held(str(out_file)):
        for extra in ([], ["--resume"]):
            out = run(tmp_path, "othello-analyze", "in.txt", "--depth", "1", "--csv", "-q", "-o", "a.csv",
                      *extra, timeout=120)
            refused(out)
            assert out_file.read_text() == "x\n"
    out = run(tmp_path, "othello-analyze", "in.txt", "--depth", "1", "--csv", "-q", "-o", "a.csv", timeout=120)
    assert out.returncode == 0, out.stderr
    assert out_file.read_text().count("\n") == 3
