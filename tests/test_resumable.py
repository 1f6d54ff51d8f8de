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
    assert list(resumable.whole_lines(str(path), compressed=True)) == [b"one\n", b"two\n", b"three\n"]
    assert resumable.settle(str(path), compressed=True) == 3
    assert gzip_text(path) == "one\ntwo\nthree\n"
    with gzip.open(path, "at") as f:     # what a resumed run does next
        f.write("four\n")
    assert gzip_text(path) == "one\ntwo\nthree\nfour\n"
    assert resumable.settle(str(path), keep=2, compressed=True) == 2 and gzip_text(path) == "one\ntwo\n"


def test_intact_gzip_is_not_touched(tmp_path: Path) -> None:
    path = tmp_path / "out.txt.gz"
    with gzip.open(path, "wt") as f:
        f.write("x\ny\n")
    with gzip.open(path, "at") as f:     # a second member, as a resumed run appends
        f.write("z\n")
    before = path.read_bytes()
    assert resumable.settle(str(path), compressed=True) == 3 and path.read_bytes() == before


def test_a_file_named_gz_that_is_not_gzip_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "notes.gz"
    path.write_bytes(b"my own notes\n")
    with pytest.raises(resumable.NotResumable, match="not a gzip file"):
        resumable.settle(str(path), compressed=True)
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


@pytest.mark.parametrize("text", [b"my own notes, no newline", b"\x00\x01" * 40_000])
def test_a_file_without_a_whole_line_that_begins_none_is_left_as_it_is(tmp_path: Path, text: bytes) -> None:
    """Such a file gives a resumed run no line to check: it was cut to nothing before. A first line
    that a kill cut short (it begins a line of the run's kind) is still dropped."""
    start = lambda head: b"(;".startswith(head[:2])   # noqa: E731
    path = tmp_path / "out.txt"
    path.write_bytes(text)
    with pytest.raises(resumable.NotResumable, match="holds no whole line"):
        resumable.settle(str(path), line_start=start)
    assert path.read_bytes() == text
    path.write_bytes(b"(;GM[Oth")
    assert resumable.settle(str(path), line_start=start) == 0 and path.read_bytes() == b""


def test_the_commands_leave_a_file_without_a_whole_line_alone(tmp_path: Path) -> None:
    """othello-train generate, othello-analyze --resume and othello-match --resume, each onto a
    note without a newline: one line, status 2, the note as it was."""
    note = tmp_path / "notes.txt"
    positions = tmp_path / "positions.txt"
    positions.write_text("f5d6c3\n")
    engine = [sys.executable, "-P", "-m", "othello_engine"]
    runs = [
        (engine + ["train", "generate", str(note), "--games", "2", "--depth", "1", "-q"],
         "othello-train generate: "),
        ([sys.executable, "-P", "-m", "othello_engine.cli.analyze", str(positions), "--depth", "1",
          "-o", str(note), "--resume", "--quiet"], "othello-analyze: "),
        ([sys.executable, "-P", "-m", "othello_engine.cli.match", "--engine", "cmd=othello-engine",
          "name=a", "depth=1", "--engine", "cmd=othello-engine", "name=b", "depth=1", "--games", "2",
          "--ggf", str(note), "--resume", "--quiet"], "othello-match: error: "),
    ]
    for argv, prefix in runs:
        note.write_text("remember the milk")
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1, (argv, proc.stderr)
        assert lines[0].startswith(prefix) and "holds no whole line" in lines[0], lines
        assert note.read_text() == "remember the milk"
