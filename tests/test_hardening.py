"""Hostile and careless input, over the real processes: the reproducers of issue 14, one test each.

Hangs (a quadratic GGF parser, a FIFO as book, a grandchild holding an engine's pipes, a ping with
a number int() refuses, a Hash resize that touched every page), data loss (export over the book
being read, a bad GGF ending the input, a full disk losing a match's results, a busy book), memory
(unbounded lines and read-ahead in othello-analyze), odd book paths, non-ASCII digits and an
engine that floods info lines.
"""

from __future__ import annotations

import json
import os
import queue
import resource
import shlex
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Optional

import pytest

from othello_engine.book import Book

PY = sys.executable
ENGINE = [PY, "-m", "othello_engine"]
ROOT = Path(__file__).resolve().parent.parent
FLOODER = ROOT / "tests" / "engines" / "random_mover.py"
GAMES = "f5 d6 c3 d3 c4\nf5 f6 e6 f4\n"

posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs, process groups and rlimits are POSIX")


class Pipe:
    """The engine process over pipes, as a GUI drives it: send lines, read lines with timeouts."""

    def __init__(self, *args: str, env: Optional[dict[str, str]] = None,
                 preexec: Optional[Callable[[], None]] = None) -> None:
        self.proc = subprocess.Popen(ENGINE + list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, preexec_fn=preexec)
        self.lines: queue.Queue[Optional[str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(line + "\n" for line in lines).encode("utf-8"))
        self.proc.stdin.flush()

    def until(self, done: Callable[[str], bool], timeout: float) -> list[str]:
        """Lines up to the first done(line); AssertionError naming them after timeout seconds."""
        deadline = time.monotonic() + timeout
        got: list[str] = []
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no answer within {timeout} s; got {got[-5:]}") from None
            if line is None:
                raise AssertionError(f"the engine ended; got {got[-5:]}")
            got.append(line)
            if done(line):
                return got

    def close(self) -> tuple[int, str]:
        try:
            self.send("quit")
        except OSError:
            pass
        _, err = self.proc.communicate(timeout=10)
        return self.proc.returncode, err.decode("utf-8", "replace")


def run(args: list[str], stdin: str | bytes = "", timeout: float = 60,
        env: Optional[dict[str, str]] = None) -> subprocess.CompletedProcess[str]:
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    r = subprocess.run(args, input=data, capture_output=True, timeout=timeout, env=env)
    return subprocess.CompletedProcess(r.args, r.returncode, r.stdout.decode("utf-8", "replace"),
                                       r.stderr.decode("utf-8", "replace"))


def book_cmd(*args: str) -> list[str]:
    return ENGINE + ["book", *args]


def make_book(path: Path, games: Path) -> None:
    games.write_text(GAMES)
    r = run(book_cmd("--book", str(path), "add", str(games)))
    assert r.returncode == 0, r.stderr


def uci_book_lines(path: str) -> list[str]:
    """What the UCI-like session answers when BookFile is path: lines up to readyok."""
    p = Pipe()
    p.send("setoption name OwnBook value true", f"setoption name BookFile value {path}",
           "position startpos", "go depth 1")
    lines = p.until(lambda s: s.startswith("bestmove"), 10)
    p.send("isready")
    lines += p.until(lambda s: s == "readyok", 10)
    rc, err = p.close()
    assert rc == 0 and "Traceback" not in err
    return lines


# --- 1. the GGF parser is linear ------------------------------------------------------------------

def test_unclosed_bracket_ggf_is_read_in_linear_time(tmp_path: Path) -> None:
    ggf = "(;GM[Othello]" + "B[" * 50_000 + ";)"   # 100 KB: hours with the quadratic parser
    p = Pipe()
    started = time.monotonic()
    p.send("nboard 2", "set game " + ggf, "ping 1")
    lines = p.until(lambda s: s == "pong 1", 10)
    assert time.monotonic() - started < 5
    assert any(s.startswith("status set game rejected") and "no closing ']'" in s for s in lines)
    assert p.close()[0] == 0
    started = time.monotonic()
    r = run(ENGINE + ["analyze", "--json", "-q", "--depth", "1"], ggf + "\nf5\n", timeout=30)
    records = [json.loads(x) for x in r.stdout.splitlines()]
    assert [("error" in rec) for rec in records] == [True, False] and r.returncode == 1
    games = tmp_path / "games.ggf"
    games.write_text(ggf + "\n(;GM[Othello]B[F5];)\n")
    r = run(book_cmd("--book", str(tmp_path / "b.book"), "add", str(games)), timeout=30)
    assert r.returncode == 1 and "added 1 games" in r.stdout and "Traceback" not in r.stderr
    assert time.monotonic() - started < 20


# --- 2, 11, 12. book paths that are not book files ---------------------------------------------

@posix_only
def test_fifo_as_book_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    lines = uci_book_lines(str(fifo))
    not_used = [s for s in lines if "book not used" in s]
    assert not_used == [f"info string book not used: book {str(fifo)!r} is not a regular file "
                        "(a pipe or device is not a book)"]
    assert "readyok" in lines and not any("internal error" in s for s in lines)
    env = dict(os.environ, OTHELLO_ENGINE_BOOK=str(fifo))
    p = Pipe("--nboard", env=env)
    p.send("nboard 2", "hint 1", "ping 1")
    lines = p.until(lambda s: s == "pong 1", 10)
    assert [s for s in lines if "book" in s] == [not_used[0].replace("info string", "status")]
    assert p.close()[0] == 0
    for command in (["stats"], ["show", "--moves", "f5"]):
        r = run(book_cmd("--book", str(fifo), *command), timeout=10)
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and "not a regular file" in r.stderr


@pytest.mark.parametrize("kind", ["devnull", "empty"])
def test_zero_size_book_is_one_book_not_used_line(tmp_path: Path, kind: str) -> None:
    path = "/dev/null" if kind == "devnull" else str(tmp_path / "empty.book")
    if kind == "empty":
        Path(path).write_bytes(b"")
    elif not os.path.exists(path):
        pytest.skip("no /dev/null")
    lines = uci_book_lines(path)
    assert len([s for s in lines if "book not used" in s]) == 1
    assert not any("internal error" in s or "error:" in s for s in lines)
    p = Pipe("--nboard", env=dict(os.environ, OTHELLO_ENGINE_BOOK=path))
    p.send("nboard 2", "hint 1", "ping 1")
    lines = p.until(lambda s: s == "pong 1", 10)
    assert len([s for s in lines if s.startswith("status book not used: ")]) == 1
    assert not any("internal error" in s for s in lines)
    assert p.close()[0] == 0
    for command in (["stats"], ["show"], ["export"]):
        r = run(book_cmd("--book", path, *command))
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    if kind == "empty":  # a writer may still make a new book of an empty file
        (tmp_path / "g.txt").write_text(GAMES)
        r = run(book_cmd("--book", path, "add", str(tmp_path / "g.txt")))
        assert r.returncode == 0, r.stderr


@posix_only
def test_odd_book_paths_for_writing(tmp_path: Path) -> None:
    games = tmp_path / "g.txt"
    games.write_text(GAMES)
    if os.path.exists("/dev/null"):  # a character device: refused, no journal left beside it
        journal_before = os.path.exists("/dev/null-journal")
        r = run(book_cmd("--book", "/dev/null", "add", str(games)))
        assert r.returncode == 1 and "not a regular file" in r.stderr
        assert os.path.exists("/dev/null-journal") == journal_before
    link = tmp_path / "link.book"
    link.symlink_to(tmp_path / "elsewhere" / "target.book")
    r = run(book_cmd("--book", str(link), "add", str(games)))
    assert r.returncode == 1 and "symbolic link to a missing file" in r.stderr
    assert not (tmp_path / "elsewhere").exists()
    book = tmp_path / "ro.book"
    make_book(book, games)
    before = book.read_bytes()
    book.chmod(0o444)
    try:
        r = run(book_cmd("--book", str(book), "add", str(games)))
        assert r.returncode == 1 and "is read-only" in r.stderr and "corrupt" not in r.stderr
        assert book.read_bytes() == before
        r = run(book_cmd("--book", str(book), "stats"))  # reading it is fine
        assert r.returncode == 0 and "7 positions" in r.stdout
    finally:
        book.chmod(0o644)


# --- 3. a grandchild holding an engine's pipes ---------------------------------------------------

@posix_only
def test_match_does_not_wait_for_a_grandchild_holding_the_pipes(tmp_path: Path) -> None:
    started = time.monotonic()
    r = run(ENGINE + ["match", "--engine", "cmd=othello-engine", "depth=1", "--engine",
                      "cmd=sh -c 'sleep 20 & exit 0'", "--handshake-timeout", "2", "--ggf", ""],
            timeout=60)
    assert time.monotonic() - started < 10, "the match waited for the grandchild"
    assert r.returncode == 2 and "othello-match: error: engine 'sh'" in r.stderr
    from othello_engine.client import EngineProcess
    marker = tmp_path / "alive"
    proc = EngineProcess(["sh", "-c", f"(sleep 5; touch {shlex.quote(str(marker))}) & echo up; exit 0"])
    assert proc.readline(timeout=5) == "up"
    started = time.monotonic()
    proc.close()
    assert time.monotonic() - started < 3
    time.sleep(5.5)
    assert not marker.exists(), "the process left in the engine's group was not ended"


# --- 4, 13. numbers: ASCII digits of bounded length -----------------------------------------------

def test_nboard_numbers_never_lose_a_pong() -> None:
    p = Pipe()
    tokens = ["--3", "²", "٣", "9" * 5000, "1_0", "+-1", "x"]
    p.send("nboard 2", *[f"ping {t}" for t in tokens], "hint ²", "nboard ²", "set depth ٣", "ping 7")
    lines = p.until(lambda s: s == "pong 7", 10)
    assert lines.count("pong 0") == len(tokens)
    assert not any("internal error" in s for s in lines)
    assert any(s.startswith("status bad hint count '²'") for s in lines)
    assert any(s.startswith("status bad nboard command: version '²'") for s in lines)
    assert any(s.startswith("status bad depth '٣'") for s in lines)
    p.send("ping -3", "ping 12")
    assert p.until(lambda s: s == "pong 12", 5) == ["pong -3", "pong 12"]
    assert p.close()[0] == 0


def test_uci_accepts_only_ascii_digits() -> None:
    p = Pipe()
    p.send("position startpos", "go depth ٣", "setoption name Hash value ١٦", "go nodes ١٠",
           "position fen 8/8/8/3ox3/3xo3/8/8/8 x ١", "isready")
    lines = p.until(lambda s: s == "readyok", 10)
    assert len([s for s in lines if s.startswith("info string error: ")]) == 4
    assert not any(s.startswith("bestmove") for s in lines)
    assert p.close()[0] == 0
    r = run(ENGINE + ["analyze", "--depth", "٣", "-q"], "f5\n")
    assert r.returncode == 2 and "not an integer" in r.stderr
    r = run(ENGINE + ["--gtp"], "boardsize ٨\nkomi ٣\ntime_settings ٣ 0 0\nboardsize 8\nquit\n")
    answers = [x for x in r.stdout.split("\n\n") if x.strip()]
    assert [a[:1] for a in answers] == ["?", "?", "?", "=", "="], answers


# --- 5. Hash resize -----------------------------------------------------------------------------

def _address_space(megabytes: int) -> Callable[[], None]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))
    return limit


def test_big_hash_does_not_block_the_input_thread() -> None:
    p = Pipe()
    started = time.monotonic()
    p.send("setoption name Hash value 4096", "isready")
    lines = p.until(lambda s: s == "readyok", 10)
    # a machine without 4 GiB may refuse the table, with the spec's line; either way at once
    assert time.monotonic() - started < 2.5, "the resize blocked isready"
    assert all(s == "info string error: setoption: Hash 4096 MiB cannot be allocated; keeping 16 MiB"
               for s in lines[:-1])
    p.send("position startpos", "go depth 3")
    assert p.until(lambda s: s.startswith("bestmove"), 10)[-1].startswith("bestmove ")
    assert p.close()[0] == 0


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_AS") or sys.platform != "linux",
                    reason="needs RLIMIT_AS (Linux)")
def test_hash_resize_frees_the_old_table_first_and_keeps_one() -> None:
    p = Pipe(preexec=_address_space(1600))
    p.send("setoption name Hash value 1024", "setoption name Hash value 1024", "isready")
    lines = p.until(lambda s: s == "readyok", 10)
    assert lines == ["readyok"], "two 1 GiB tables were held at once"
    p.send("setoption name Hash value 4096", "isready")
    lines = p.until(lambda s: s == "readyok", 10)
    assert lines == ["info string error: setoption: Hash 4096 MiB cannot be allocated; keeping 1024 MiB",
                     "readyok"]
    p.send("position startpos", "go depth 4")
    assert p.until(lambda s: s.startswith("bestmove"), 20)[-1].startswith("bestmove ")
    rc, err = p.close()
    assert rc == 0 and "Traceback" not in err


# --- 6. no command overwrites the file it reads ------------------------------------------------

def test_export_never_overwrites_the_book_and_is_atomic(tmp_path: Path) -> None:
    book = tmp_path / "my.book"
    make_book(book, tmp_path / "g.txt")
    before = book.read_bytes()
    for target in (str(book), str(tmp_path / "." / "my.book")):
        r = run(book_cmd("--book", str(book), "export", target))
        assert r.returncode == 1 and "it is the book being read" in r.stderr
    link = tmp_path / "alias.txt"
    link.symlink_to(book)
    r = run(book_cmd("--book", str(book), "export", str(link)))
    assert r.returncode == 1 and "it is the book being read" in r.stderr
    assert book.read_bytes() == before
    assert "7 positions" in run(book_cmd("--book", str(book), "stats")).stdout
    out = tmp_path / "out.txt"
    out.write_text("old content\n")
    r = run(book_cmd("--book", str(book), "export", str(out)))
    assert r.returncode == 0 and out.read_text().startswith("# othello_engine book 1\n")
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]
    if os.path.exists("/dev/full"):
        r = run(book_cmd("--book", str(book), "export", "/dev/full"))
        assert r.returncode == 1 and "Traceback" not in r.stderr


def test_no_run_writes_over_its_own_input(tmp_path: Path) -> None:
    """An output file that is one of the inputs (another spelling or a link included) is refused
    with one error before anything is read or written: each of these used to empty the input."""
    games = tmp_path / "games.txt"
    games.write_text(GAMES)
    link = tmp_path / "link.txt"
    link.symlink_to(games)
    cases = [
        (ENGINE + ["analyze", str(games), "--depth", "1", "-q", "--output", str(tmp_path / "." / "games.txt")],
         "othello-analyze: will not write"),
        (ENGINE + ["train", "label", str(games), str(link), "--depth", "1", "-q"],
         "othello-train label: will not write"),
        (ENGINE + ["train", "testset", str(games), str(games), "-q"], "othello-train testset: will not write"),
        (ENGINE + ["train", "fit", str(games), "--out", str(games), "-q"], "othello-train fit: will not write"),
        (ENGINE + ["match", "--engine", "cmd=" + shlex.join(ENGINE), "name=a", "--engine",
                   "cmd=" + shlex.join(ENGINE), "name=b", "--each", "depth=1", "--games", "2",
                   "--openings", str(games), "--ggf", str(link)],
         "othello-match: error: will not write the GGF file"),
    ]
    for args, error in cases:
        r = run(args, timeout=120)
        assert r.returncode == 2 and r.stderr.startswith(error) and r.stderr.count("\n") == 1, (args, r.stderr)
        assert "it is the input" in r.stderr or "it is the openings file" in r.stderr
        assert games.read_text() == GAMES and link.is_symlink()
    # a different output file is written as before
    out = tmp_path / "out.txt"
    r = run(ENGINE + ["analyze", str(games), "--depth", "1", "-q", "--json", "--output", str(out)])
    assert r.returncode == 0 and len(out.read_text().splitlines()) == 2


def test_resume_refuses_a_file_of_another_kind_and_leaves_it(tmp_path: Path) -> None:
    """The steps that resume an output file count (and may cut) its lines: a file that holds
    something else is refused with one line and left byte for byte (each used to be cut or
    overwritten: label replaced it with positions, analyze --resume took its first line for a
    header and rewrote the file)."""
    games = tmp_path / "games.txt"
    r = run(ENGINE + ["train", "generate", "--games", "2", "--depth", "1", "-q", str(games)])
    assert r.returncode == 0, r.stderr
    notes = tmp_path / "notes.txt"
    text = "my notes\nsecond line\n"
    moves = tmp_path / "moves.txt"
    moves.write_text(GAMES)
    cases = [
        (ENGINE + ["train", "label", str(games), str(notes), "--depth", "1", "-q"], "othello-train label: "),
        (ENGINE + ["train", "testset", str(games), str(notes), "--empties", "40", "-q"], "othello-train testset: "),
        (ENGINE + ["train", "generate", "--games", "3", "--depth", "1", "-q", str(notes)],
         "othello-train generate: "),
        (ENGINE + ["analyze", str(moves), "--depth", "1", "-q", "--output", str(notes), "--resume"],
         "othello-analyze: cannot resume"),
        (ENGINE + ["analyze", str(moves), "--depth", "1", "-q", "--csv", "--output", str(notes), "--resume"],
         "othello-analyze: cannot resume"),
    ]
    for args, error in cases:
        notes.write_text(text)
        r = run(args, timeout=120)
        assert r.returncode == 2 and r.stderr.startswith(error) and r.stderr.count("\n") == 1, (args, r.stderr)
        assert notes.read_text() == text
    # a file of the step's own kind still resumes: label one game, then the rest
    labels = tmp_path / "labels.txt"
    assert run(ENGINE + ["train", "label", str(games), str(labels), "--depth", "1", "-q", "--limit", "1"]).returncode == 0
    first = labels.read_text()
    r = run(ENGINE + ["train", "label", str(games), str(labels), "--depth", "1", "-q"])
    assert r.returncode == 0 and labels.read_text().startswith(first) and len(labels.read_text()) > len(first)


# --- 7. a bad record is one error, the rest is read ------------------------------------------------

def test_bad_ggf_record_is_one_error_and_the_rest_is_read(tmp_path: Path) -> None:
    text = ("f5 d6 c3\n(;GM[Othello]BO[\u00b2 xx b];)\nf5 d6\n(;GM[Othello]TY[" + "9" * 5000
            + "]B[F5];)\n(;GM[Othello]B[F5]W[F6];)\n")
    r = run(ENGINE + ["analyze", "--json", "-q", "--depth", "1"], text)
    records = [json.loads(x) for x in r.stdout.splitlines()]
    assert [rec["line"] for rec in records] == [1, 2, 3, 4, 5, 5]
    assert ["error" in rec for rec in records] == [False, True, False, True, False, False]
    assert r.returncode == 1
    games = tmp_path / "games.txt"
    games.write_text(text)
    r = run(book_cmd("--book", str(tmp_path / "b.book"), "add", str(games)))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "added 3 games" in r.stdout and r.stderr.count("skipped ") == 2
    with Book.open(tmp_path / "b.book") as book:
        assert book.stats().games == 3 + 2 + 2


# --- 8. a write failure keeps the results ---------------------------------------------------------

@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_match_full_disk_keeps_the_results(tmp_path: Path) -> None:
    js = tmp_path / "m.json"
    r = run(ENGINE + ["match", "--engine", "cmd=othello-engine", "name=a", "depth=1", "--engine",
                      "cmd=othello-engine", "name=b", "depth=2", "--games", "4", "--ggf", "/dev/full",
                      "--json", str(js), "--quiet"], timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "4 of 4 games played" in r.stdout
    assert "cannot write the GGF file '/dev/full': No space left on device" in r.stderr
    assert len(json.loads(js.read_text())["games"]) == 4
    r = run(ENGINE + ["match", "--engine", "cmd=othello-engine", "name=a", "depth=1", "--engine",
                      "cmd=othello-engine", "name=b", "depth=1", "--ggf", "", "--json", "/dev/full",
                      "--quiet"], timeout=60)
    assert r.returncode == 1 and "2 of 2 games played" in r.stdout
    assert "cannot write the JSON summary" in r.stderr and "Traceback" not in r.stderr


# --- 9. a busy book ---------------------------------------------------------------------------

def test_second_writer_waits_then_says_the_book_is_busy(tmp_path: Path) -> None:
    book = tmp_path / "b.book"
    games = tmp_path / "g.txt"
    make_book(book, games)
    holder = sqlite3.connect(str(book), isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # another writer in the middle of a long import
    try:
        started = time.monotonic()
        r = run(book_cmd("--wait", "1", "--book", str(book), "add", str(games)))
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert "is busy" in r.stderr and time.monotonic() - started < 8
        p = Pipe("--nboard", env=dict(os.environ, OTHELLO_ENGINE_BOOK=str(book)))
        started = time.monotonic()
        p.send("nboard 2", "move F5", "learn")
        lines = p.until(lambda s: s.startswith("status book not written") or s.startswith("status learned"), 20)
        assert time.monotonic() - started < 12, "learn kept the GUI waiting"
        assert any(s.startswith("status book not written: ") and "is busy" in s for s in lines)
        assert p.close()[0] == 0
        releaser = threading.Timer(1.0, lambda: holder.execute("COMMIT"))
        releaser.start()
        r = run(book_cmd("--book", str(book), "add", str(games)))
        releaser.join()
        assert r.returncode == 0 and "added 2 games" in r.stdout
        assert "waiting up to 60 s" in r.stderr
    finally:
        holder.close()


# --- 10. bounded memory in othello-analyze ---------------------------------------------------

PEAK = """
import resource, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def feed():
    p.stdin.write(b"f5\\n" + b"x" * (40 << 20) + b"\\nf5 d6\\n")
    p.stdin.close()
import threading; threading.Thread(target=feed).start()
out = p.stdout.read(); p.wait()
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.stderr.write(out.decode())
"""


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB and /proc: Linux")
def test_analyze_memory_is_bounded() -> None:
    r = subprocess.run([PY, "-c", PEAK, *ENGINE, "analyze", "--json", "-q", "--depth", "1"],
                       capture_output=True, text=True, timeout=120)
    records = [json.loads(x) for x in r.stderr.splitlines() if x.startswith("{")]
    assert [("error" in rec) for rec in records] == [False, True, False]
    assert "longer than the 1048576 bytes" in records[1]["error"]
    assert int(r.stdout) < 150_000, f"peak {r.stdout} KiB for a 40 MiB line"
    p = subprocess.Popen(ENGINE + ["analyze", "--json", "-q", "/dev/zero"], stdout=subprocess.DEVNULL)
    try:
        time.sleep(3)
        status = Path(f"/proc/{p.pid}/status").read_text()
        peak = int(status.split("VmHWM:")[1].split()[0])
        assert peak < 150_000, f"othello-analyze /dev/zero holds {peak} KiB after 3 s"
    finally:
        p.kill()
        p.wait()
    # reading ahead stops while the output is not read
    p = subprocess.Popen(ENGINE + ["analyze", "--json", "-q", "--depth", "1"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    assert p.stdin is not None
    sent = 0

    def feed() -> None:
        nonlocal sent
        try:
            for _ in range(300_000):
                p.stdin.write(b"f5 d6 c3 d3 c4 f4 f6 f3 e6 e7\n")
                sent += 1
            p.stdin.close()
        except (BrokenPipeError, ValueError):
            pass
    threading.Thread(target=feed, daemon=True).start()
    try:
        time.sleep(3)
        status = Path(f"/proc/{p.pid}/status").read_text()
        assert int(status.split("VmHWM:")[1].split()[0]) < 150_000
        assert sent < 300_000, "the whole input was read ahead of the output"
    finally:
        p.kill()
        p.wait()


# --- 14. an engine that floods info lines -------------------------------------------------------

def test_flooding_engine_is_timed_by_when_its_move_arrived(tmp_path: Path) -> None:
    js = tmp_path / "m.json"
    flood = shlex.join([PY, str(FLOODER), "--flood", "300000"])
    r = run(ENGINE + ["match", "--engine", f"cmd={flood}", "name=flood", "movetime=1", "--engine",
                      "cmd=othello-engine", "name=ours", "depth=1", "--margin", "1.5", "--ggf", "",
                      "--json", str(js), "--quiet"], timeout=120)
    assert r.returncode == 0, r.stderr
    games = json.loads(js.read_text())["games"]
    assert [g["termination"] for g in games] == ["normal", "normal"], games
