"""othello-train on bad input: one clear message, the right exit status, no half-made file."""

from __future__ import annotations

import subprocess
from pathlib import Path

from uci_support import command


def train(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([command("othello-train"), *args], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)


def games(tmp_path: Path) -> Path:
    out = train(tmp_path, "generate", "g.txt", "--games", "2", "--depth", "1", "--jobs", "1", "-q")
    assert out.returncode == 0, out.stderr
    return tmp_path / "g.txt"


def no_traceback(out: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in out.stderr and "invalid literal" not in out.stderr
    assert "randrange" not in out.stderr


def test_a_games_file_given_as_a_test_set(tmp_path: Path) -> None:
    games(tmp_path)
    out = train(tmp_path, "evaluate", "g.txt")
    assert out.returncode == 2
    assert "g.txt line 1: not a position line" in out.stderr
    no_traceback(out)


def test_a_backwards_random_range_is_refused_before_any_work(tmp_path: Path) -> None:
    out = train(tmp_path, "generate", "x.txt", "--games", "2", "--random", "9-2", "-q")
    assert out.returncode == 2 and "MIN <= MAX" in out.stderr
    no_traceback(out)
    assert not (tmp_path / "x.txt").exists()


def test_unusable_weights_leave_no_output_file(tmp_path: Path) -> None:
    out = train(tmp_path, "generate", "x2.txt", "--games", "2", "--weights", "nope.weights", "-q")
    assert out.returncode == 2 and "nope.weights" in out.stderr
    no_traceback(out)
    assert not (tmp_path / "x2.txt").exists()


def test_testset_out_of_range_and_with_nothing_to_solve(tmp_path: Path) -> None:
    out = train(tmp_path, "testset", "g.txt", "t.txt", "--empties", "70")
    assert out.returncode == 2 and "1..59" in out.stderr
    out = train(tmp_path, "testset", "g.txt", "t.txt", "--depth", "0")
    assert out.returncode == 2 and "--depth" in out.stderr and "1..60" in out.stderr
    no_traceback(out)
    (tmp_path / "none.txt").write_text("")
    out = train(tmp_path, "testset", "none.txt", "t.txt", "-q")
    assert out.returncode == 1 and "no position with 20 empties" in out.stderr
    assert not (tmp_path / "t.txt").exists()


def test_an_existing_output_file_is_never_removed(tmp_path: Path) -> None:
    kept = tmp_path / "t.txt"
    kept.write_text("")
    (tmp_path / "none.txt").write_text("")
    out = train(tmp_path, "testset", "none.txt", "t.txt", "-q")
    assert out.returncode == 1 and kept.exists()
