"""atomicfile: a whole file is replaced in one step or not at all, whatever stops the write."""

from __future__ import annotations

import array
import os
import stat
import threading
from pathlib import Path

import pytest

from othello_engine import atomicfile, weights


def leftovers(folder: Path) -> list[str]:
    return sorted(f for f in os.listdir(folder) if f.endswith(".tmp"))


@pytest.mark.parametrize("stop", [RuntimeError("a bad game"), KeyboardInterrupt()])
def test_a_failed_or_interrupted_write_keeps_the_old_file(tmp_path: Path, stop: BaseException) -> None:
    path = tmp_path / "games.ggf"
    path.write_text("old\n")
    with pytest.raises(type(stop)):
        with atomicfile.replacing(path) as f:
            f.write("half of the new")
            raise stop
    assert path.read_text() == "old\n" and leftovers(tmp_path) == []


def test_text_and_bytes_replace_the_file(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    atomicfile.write_text(path, "caf\u00e9\n")
    assert path.read_bytes() == "caf\u00e9\n".encode("utf-8")
    atomicfile.write_bytes(str(path), b"\x00\x01")
    assert path.read_bytes() == b"\x00\x01" and leftovers(tmp_path) == []


def test_modes_an_old_file_keeps_its_own_a_new_one_follows_the_umask(tmp_path: Path) -> None:
    old = tmp_path / "old.txt"
    old.write_text("x")
    os.chmod(old, 0o640)
    atomicfile.write_text(old, "y")
    assert stat.S_IMODE(os.stat(old).st_mode) == 0o640
    umask = os.umask(0o027)
    try:
        atomicfile.write_text(tmp_path / "new.txt", "z")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "new.txt").st_mode) == 0o640


def test_a_link_is_followed_and_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    atomicfile.write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"


def test_a_directory_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        atomicfile.write_text(tmp_path, "x")
    assert leftovers(tmp_path) == []


def test_an_unwritable_folder_raises_oserror_and_changes_nothing(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        atomicfile.write_text(tmp_path / "no such folder" / "x.txt", "x")
    _, phases, entries = weights.shape(6)
    with pytest.raises(weights.WeightsError, match="no such folder/w.weights: cannot write"):
        weights.write(str(tmp_path / "no such folder" / "w.weights"), array.array("h", [0] * (phases * entries)), 6)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_is_written_directly(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    atomicfile.write_text(fifo, "through the pipe\n")
    reader.join(10)
    assert got == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and leftovers(tmp_path) == []
