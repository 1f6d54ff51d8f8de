"""Test support for the engine process: a pipe driver and the reference rules in protocol terms."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, Iterable, Optional

def default_sigint() -> None:
    """``preexec_fn`` of a child that a test interrupts with SIGINT: the signal at its default
    action, so that the child's Python turns it into KeyboardInterrupt even when the tests were
    started with SIGINT ignored (a background job of a non-interactive shell inherits SIG_IGN,
    and Python then installs no handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# --- the reference rules in the protocol's terms ---------------------------------------------------

import reference_rules as rr  # noqa: E402

_COLOR = {"x": rr.BLACK, "o": rr.WHITE}


class Ref:
    """A position of the reference rules (tests/reference_rules.py) with its side to move, spoken
    in the protocol's terms: moves are names (``d3``, passes ``pass``/``0000``/``PA``/``@@``), the
    side is ``'x'`` (black) or ``'o'`` (white), and ``grid[r][c]`` is ``'.'``, ``'x'`` or ``'o'``."""

    def __init__(self, size: int = 8) -> None:
        self._grid = rr.start_grid(size)
        self.size = size
        self.turn = "x"

    @classmethod
    def from_cells(cls, cells: str, turn: str) -> "Ref":
        ref = cls.__new__(cls)
        ref._grid = rr.grid_from_text(cells.upper().replace("B", "X").replace("W", "O"))
        ref.size, ref.turn = len(ref._grid), turn
        return ref

    @property
    def grid(self) -> list[list[str]]:
        return [[ch.lower() for ch in row] for row in self._grid]

    def copy(self) -> "Ref":
        ref = Ref.__new__(Ref)
        ref._grid, ref.size, ref.turn = rr.copy_grid(self._grid), self.size, self.turn
        return ref

    def moves(self, me: Optional[str] = None) -> list[str]:
        return [f"{'abcdefghijklmnopqrstuvwxyz'[c]}{r + 1}" for r, c in rr.legal_moves(self._grid, _COLOR[me or self.turn])]

    def must_pass(self) -> bool:
        return rr.status(self._grid, _COLOR[self.turn]) == "pass"

    def game_over(self) -> bool:
        return rr.status(self._grid, _COLOR[self.turn]) == "over"

    def play(self, move: str) -> None:
        if move.lower() in ("pass", "0000", "pa", "@@"):
            assert self.must_pass(), "illegal pass"
            square = None
        else:
            square = (int(move[1:]) - 1, "abcdefghijklmnopqrstuvwxyz".index(move[0].lower()))
            assert square in rr.legal_moves(self._grid, _COLOR[self.turn]), f"illegal move {move}"
        self._grid = rr.play(self._grid, _COLOR[self.turn], square)
        self.turn = "o" if self.turn == "x" else "x"

    def count(self, who: str) -> int:
        return rr.count(self._grid, _COLOR[who])

    def result(self) -> str:
        """The UGI `query result` answer."""
        if not self.game_over():
            return "none"
        score = rr.final_score(self._grid)
        return "p1win" if score > 0 else "p2win" if score < 0 else "draw"

    def final_black(self) -> int:
        return rr.final_score(self._grid)

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
        return rr.perft(self._grid, _COLOR[self.turn], depth)


# --- the engine process -------------------------------------------------------------------------------

class EngineProcess:
    """The real engine process over pipes; a reader thread timestamps every line it writes."""

    def __init__(self, args: Iterable[str] = (),
                 preexec_fn: Optional[Callable[[], None]] = None) -> None:
        self.proc = subprocess.Popen([sys.executable, "-P", "-m", "othello_engine", *args],
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


def command(name: str) -> str:
    """The installed entry point ``name`` (``othello-match``, ...) of the interpreter running the tests,
    so a test starts the command it installed even when its environment is not on ``PATH``."""
    import os
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else name
