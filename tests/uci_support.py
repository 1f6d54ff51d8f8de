"""Test support for the engine process: a pipe driver and an independent reference of the rules."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from typing import Callable, Iterable, Optional

# --- reference rules (pure Python, independent of othello_engine) ----------------------------------

DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


class Ref:
    """A position in plain lists: grid[r][c] in '.', 'x' (black), 'o' (white); turn 'x' or 'o'."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self.grid = [["."] * size for _ in range(size)]
        h = size // 2 - 1
        self.grid[h][h] = self.grid[h + 1][h + 1] = "o"
        self.grid[h][h + 1] = self.grid[h + 1][h] = "x"
        self.turn = "x"

    @classmethod
    def from_cells(cls, cells: str, turn: str) -> "Ref":
        n = int(round(len(cells) ** 0.5))
        ref = cls.__new__(cls)
        ref.size = n
        ref.grid = [[{"X": "x", "O": "o"}.get(cells[r * n + c].upper(), ".") for c in range(n)]
                    for r in range(n)]
        ref.turn = turn
        return ref

    def copy(self) -> "Ref":
        ref = Ref.__new__(Ref)
        ref.size, ref.turn = self.size, self.turn
        ref.grid = [row[:] for row in self.grid]
        return ref

    def flips(self, r: int, c: int, me: str) -> list[tuple[int, int]]:
        if self.grid[r][c] != ".":
            return []
        you = "o" if me == "x" else "x"
        out: list[tuple[int, int]] = []
        for dr, dc in DIRS:
            line = []
            rr, cc = r + dr, c + dc
            while 0 <= rr < self.size and 0 <= cc < self.size and self.grid[rr][cc] == you:
                line.append((rr, cc))
                rr, cc = rr + dr, cc + dc
            if line and 0 <= rr < self.size and 0 <= cc < self.size and self.grid[rr][cc] == me:
                out += line
        return out

    def moves(self, me: Optional[str] = None) -> list[str]:
        me = me or self.turn
        return [f"{'abcdefgh'[c]}{r + 1}" for r in range(self.size) for c in range(self.size)
                if self.flips(r, c, me)]

    def must_pass(self) -> bool:
        return not self.moves() and bool(self.moves("o" if self.turn == "x" else "x"))

    def game_over(self) -> bool:
        return not self.moves() and not self.moves("o" if self.turn == "x" else "x")

    def play(self, move: str) -> None:
        if move.lower() in ("pass", "0000", "pa", "@@"):
            assert self.must_pass(), "illegal pass"
        else:
            c, r = "abcdefgh".index(move[0].lower()), int(move[1:]) - 1
            flips = self.flips(r, c, self.turn)
            assert flips, f"illegal move {move}"
            self.grid[r][c] = self.turn
            for rr, cc in flips:
                self.grid[rr][cc] = self.turn
        self.turn = "o" if self.turn == "x" else "x"

    def count(self, who: str) -> int:
        return sum(row.count(who) for row in self.grid)

    def result(self) -> str:
        """The UGI `query result` answer."""
        if not self.game_over():
            return "none"
        b, w = self.count("x"), self.count("o")
        return "p1win" if b > w else "p2win" if w > b else "draw"

    def final_black(self) -> int:
        b, w = self.count("x"), self.count("o")
        e = self.size * self.size - b - w
        return b - w + (e if b > w else -e if w > b else 0)

    def fen(self) -> str:
        ranks = []
        for row in self.grid:
            text, run = "", 0
            for ch in row:
                if ch == ".":
                    run += 1
                else:
                    text += (str(run) if run else "") + ch
                    run = 0
            ranks.append(text + (str(run) if run else ""))
        return "/".join(ranks) + " " + self.turn

    def perft(self, depth: int) -> int:
        if depth == 0:
            return 1
        if self.game_over():
            return 1
        moves = self.moves() or ["pass"]
        total = 0
        for m in moves:
            child = self.copy()
            child.play(m)
            total += child.perft(depth - 1)
        return total


# --- the engine process -------------------------------------------------------------------------------

class EngineProcess:
    """The real engine process over pipes; a reader thread timestamps every line it writes."""

    def __init__(self, args: Iterable[str] = (),
                 preexec_fn: Optional[Callable[[], None]] = None) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "othello_engine", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0, preexec_fn=preexec_fn)
        self.lines: "queue.Queue[tuple[float, Optional[str]]]" = queue.Queue()
        self.seen: list[str] = []
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\r\n")))
        self.lines.put((time.monotonic(), None))

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send(self, line: str | bytes) -> float:
        assert self.proc.stdin is not None
        data = line if isinstance(line, bytes) else line.encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()
        return time.monotonic()

    def read(self, timeout: float = 10.0) -> tuple[float, str]:
        """The next line and when it arrived; AssertionError on timeout or end of output."""
        try:
            stamp, line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output within {timeout} s; seen so far: {self.seen[-10:]}")
        assert line is not None, f"the engine ended its output; seen: {self.seen[-10:]}"
        self.seen.append(line)
        return stamp, line

    def until(self, pred: Callable[[str], bool], timeout: float = 10.0) -> tuple[list[str], float]:
        """Lines up to and including the first matching pred, and the time the match arrived."""
        got: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            stamp, line = self.read(max(0.01, deadline - time.monotonic()))
            got.append(line)
            if pred(line):
                return got, stamp

    def ask(self, line: str, pred: Callable[[str], bool], timeout: float = 10.0) -> list[str]:
        self.send(line)
        return self.until(pred, timeout)[0]

    def sync(self) -> list[str]:
        """Send isready; return the lines written before readyok."""
        return self.ask("isready", lambda s: s == "readyok")[:-1]

    def quiet(self, seconds: float) -> list[str]:
        """Lines written within the next `seconds`."""
        got: list[str] = []
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return got
            try:
                _, line = self.lines.get(timeout=left)
            except queue.Empty:
                return got
            if line is None:
                return got
            self.seen.append(line)
            got.append(line)

    def close(self) -> int:
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except (BrokenPipeError, OSError):
                pass
        try:
            return self.proc.wait(5)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
