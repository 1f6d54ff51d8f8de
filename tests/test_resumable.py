"""Resuming an output file (othello_engine.resumable), and the runs that resume through it: a last
line cut short is dropped, a gzip stream cut short by a kill is written again intact (appending
after it left a file that could never be read back), and a file named .gz that is not gzip is
refused and left as it is."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
from pathlib import Path

import pytest

from othello_engine import resumable

np = pytest.importorskip("numpy")   # the training steps below need it

from othello_engine import train  # noqa: E402

SETTINGS = train.GenerateSettings(seed=7, depth=1, random_min=2, random_max=8, epsilon=0.05,
                                  solve=8, evaluation="classic")


def killed_gzip(text: str, unflushed: str = "") -> bytes:
    """The bytes a gzip writer leaves when it is killed: ``text`` written and flushed (as the runs
    flush each line), ``unflushed`` written after it, and the stream never closed."""
    raw = io.BytesIO()
    gz = gzip.GzipFile(fileobj=raw, mode="wb")
    gz.write(text.encode())
    gz.flush()
    gz.write(unflushed.encode())
    data = raw.getvalue()
    gz.close()              # too late: the bytes above are what the kill left
    return data


def gzip_text(path: Path) -> str:
    with gzip.open(path, "rt") as f:
        return f.read()


def test_plain_file_keeps_its_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_bytes(b"a\nb\nc\nd-cut")
    assert list(resumable.whole_lines(str(path))) == [b"a\n", b"b\n", b"c\n"]
    assert resumable.settle(str(path)) == 3 and path.read_bytes() == b"a\nb\nc\n"
    assert resumable.settle(str(path), keep=1) == 1 and path.read_bytes() == b"a\n"
    assert resumable.settle(str(path), keep=5) == 1 and path.read_bytes() == b"a\n"
    assert resumable.settle(str(tmp_path / "none.txt")) == 0
    assert not (tmp_path / "none.txt").exists()


def test_a_whole_last_line_without_its_newline_gets_one(tmp_path: Path) -> None:
    path = tmp_path / "games.ggf"
    path.write_bytes(b"(;GM[Othello];)\n(;GM[Othello];)")
    whole = resumable.whole_lines(str(path), whole_last=lambda line: line.endswith(b";)"))
    assert len(list(whole)) == 2
    assert resumable.settle(str(path), whole_last=lambda line: line.endswith(b";)")) == 2
    assert path.read_bytes() == b"(;GM[Othello];)\n(;GM[Othello];)\n"   # the next record goes on a line of its own
    path.write_bytes(b"(;GM[Othello];)\n(;GM[Oth")
    assert resumable.settle(str(path), whole_last=lambda line: line.endswith(b";)")) == 1
    assert path.read_bytes() == b"(;GM[Othello];)\n"


def test_gzip_cut_by_a_kill_is_written_again_whole(tmp_path: Path) -> None:
    path = tmp_path / "out.txt.gz"
    path.write_bytes(killed_gzip("one\ntwo\nthree\n", "fo"))
    with pytest.raises(EOFError):
        gzip_text(path)
    assert list(resumable.whole_lines(str(path))) == [b"one\n", b"two\n", b"three\n"]
    assert resumable.settle(str(path)) == 3
    assert gzip_text(path) == "one\ntwo\nthree\n"
    with gzip.open(path, "at") as f:     # what a resumed run does next
        f.write("four\n")
    assert gzip_text(path) == "one\ntwo\nthree\nfour\n"
    assert resumable.settle(str(path), keep=2) == 2 and gzip_text(path) == "one\ntwo\n"


def test_intact_gzip_is_not_touched(tmp_path: Path) -> None:
    path = tmp_path / "out.txt.gz"
    with gzip.open(path, "wt") as f:
        f.write("x\ny\n")
    with gzip.open(path, "at") as f:     # a second member, as a resumed run appends
        f.write("z\n")
    before = path.read_bytes()
    assert resumable.settle(str(path)) == 3 and path.read_bytes() == before


def test_a_file_named_gz_that_is_not_gzip_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "notes.gz"
    path.write_bytes(b"my own notes\n")
    with pytest.raises(ValueError, match="not a gzip file"):
        resumable.settle(str(path))
    with pytest.raises(ValueError, match="not a gzip file"):
        train.generate(str(path), 4, SETTINGS, quiet=True)
    assert path.read_bytes() == b"my own notes\n"


def test_generate_resumes_a_killed_gzip_file_to_the_same_games(tmp_path: Path) -> None:
    full = tmp_path / "full.txt.gz"
    assert train.generate(str(full), 40, SETTINGS, quiet=True) == 40
    games = gzip_text(full).splitlines(keepends=True)
    part = tmp_path / "part.txt.gz"
    part.write_bytes(killed_gzip("".join(games[:25]), games[25][:9]))
    assert train.generate(str(part), 40, SETTINGS, quiet=True) == 15
    assert gzip_text(part) == "".join(games)


def test_label_resumes_a_killed_gzip_file_without_doubling_a_game(tmp_path: Path) -> None:
    games = tmp_path / "games.txt"
    assert train.generate(str(games), 12, SETTINGS, quiet=True) == 12
    full = tmp_path / "full.txt.gz"
    train.label(str(games), str(full), train.LabelSettings(), quiet=True)
    lines = gzip_text(full).splitlines(keepends=True)
    part = tmp_path / "part.txt.gz"
    part.write_bytes(killed_gzip("".join(lines[:100]), lines[100][:20]))   # a game half written
    train.label(str(games), str(part), train.LabelSettings(), quiet=True)
    assert gzip_text(part) == "".join(lines)


def test_a_cut_gzip_input_is_one_error_line(tmp_path: Path) -> None:
    games = tmp_path / "games.txt.gz"
    games.write_bytes(killed_gzip("f5d6c3 +2 0\n" * 3, "f5"))
    proc = subprocess.run([sys.executable, "-P", "-m", "othello_engine", "train", "label", str(games),
                           str(tmp_path / "pos.txt"), "--quiet"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"othello-train label: {games}: the gzip stream is cut short or damaged (the output of an "
        f"interrupted run? the command that wrote it, run again, repairs it)"]
    assert "Traceback" not in proc.stdout + proc.stderr
