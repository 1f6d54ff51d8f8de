"""Drive engine processes from Python: a line pipe to a child process and the UCI/UGI driver on top.

Two layers, as in python-chess's ``chess.engine``:

- :class:`EngineProcess` starts a command, writes lines to its stdin and reads its stdout lines
  from a reader thread with timeouts; it notices when the process dies and always cleans up
  (``quit``, then terminate, then kill). It knows nothing about any protocol, so other drivers
  (GTP, NBoard) can be built on it the same way :class:`Engine` is.
- :class:`Engine` speaks the UCI-like protocol or its UGI dialect:

>>> import sys
>>> from othello_engine.board import Board, square_name
>>> with Engine.popen([sys.executable, "-m", "othello_engine"]) as engine:
...     result = engine.play(Board(), Limit(depth=2))
...     square_name(result.move) in ("d3", "c4", "f5", "e6")
True
"""

from __future__ import annotations

import collections
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Iterator, Mapping, Optional, Sequence, Union, overload

from othello_engine.board import (BLACK, PASS, Board, OthelloError, Square, parse_square,
                                  square_name)
from othello_engine.engine import Limit
from othello_engine.textnum import ascii_float, ascii_int

__all__ = [
    "EngineError", "EngineTerminatedError", "EngineTimeoutError", "IllegalEngineMoveError",
    "EngineProcess", "ProtocolEngine", "Engine", "Limit", "Info", "Option", "PlayResult",
    "AnalysisStream", "position_command", "go_command", "parse_info", "move_token",
]

Command = Union[str, Sequence[str]]
LogCallback = Callable[[str, str], None]
"""Called with (direction, line) for every line: direction ``">"`` sent, ``"<"`` received,
``"!"`` the engine's stderr."""

EXACT_DEPTH = 60
"""Depth sent with an exact solve: deeper than any game can go."""


# --- errors --------------------------------------------------------------------------------------

class EngineError(RuntimeError):
    """The engine did something the protocol does not allow, or rejected a command."""


class EngineTerminatedError(EngineError):
    """The engine process is gone (exited, crashed or was killed)."""


class EngineTimeoutError(EngineError, TimeoutError):
    """The engine did not answer in time."""


class IllegalEngineMoveError(EngineError):
    """The engine answered with a move that is not legal in the position; ``token`` is its text."""

    def __init__(self, message: str, token: str) -> None:
        super().__init__(message)
        self.token = token


# --- the process layer ---------------------------------------------------------------------------

_EOF = object()

MAX_LINE = 1 << 20
"""Longest engine output line kept (bytes); the rest of a longer line is dropped."""
MAX_BATCHES = 1024
"""Most output reads (of up to 64 KiB each) kept unread: beyond them the reader waits for the
caller, and the pipe holds the engine back, so an engine that floods output nobody reads cannot
fill the memory."""
QUIT_WAIT = 0.5
"""Seconds an engine gets to exit after ``quit`` (and end of input) before it is terminated."""
TERMINATE_WAIT = 0.5
"""Seconds an engine gets to exit after SIGTERM before it is killed."""
STOP_WAIT = 0.5
"""Seconds an engine gets to answer ``stop`` with ``bestmove`` after a search timed out, before
it is killed (engines answer within milliseconds; one that does not is hung)."""


def _kill_quietly(proc: subprocess.Popen[bytes]) -> None:
    """Last-resort cleanup for a process nobody closed (run by weakref.finalize)."""
    if proc.poll() is None:
        try:
            proc.kill()
        except OSError:
            pass
    try:
        proc.wait(timeout=1.0)
    except (subprocess.TimeoutExpired, OSError):
        pass


class EngineProcess:
    """A child process spoken to in lines of text.

    ``command`` is an argument list, or a string split like a shell would (no shell runs).
    Output lines are decoded leniently (UTF-8, bad bytes replaced) and stripped of the line end.
    stderr is read too: its last lines are kept for error messages (:meth:`stderr_tail`) and,
    with ``stderr=sys.stderr`` (or any text stream), also copied there.

    >>> import sys
    >>> with EngineProcess([sys.executable, "-c", "print(input()[::-1])"]) as p:
    ...     p.send("olleh")
    ...     p.readline(timeout=10)
    'hello'
    """

    def __init__(self, command: Command, *, cwd: Optional[str] = None,
                 env: Optional[Mapping[str, str]] = None, stderr: Optional[IO[str]] = None,
                 log: Optional[LogCallback] = None, name: Optional[str] = None) -> None:
        args = shlex.split(command) if isinstance(command, str) else list(command)
        if not args:
            raise ValueError("empty engine command")
        self.command: list[str] = args
        self.name = name or os.path.basename(args[0])
        self.log = log
        self._stderr_copy = stderr
        self._stderr_lines: collections.deque[str] = collections.deque(maxlen=40)
        # (arrival, [lines]) batches, then _EOF
        self._lines: queue.Queue[object] = queue.Queue(maxsize=MAX_BATCHES)
        self._ready: collections.deque[tuple[str, float]] = collections.deque()  # taken, not read
        self.arrived = 0.0
        """When the line last returned by :meth:`readline` arrived (``time.monotonic()``)."""
        self._write_lock = threading.Lock()
        self._closed = False
        self._eof = False
        try:
            self.proc: subprocess.Popen[bytes] = subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=cwd, env=dict(env) if env is not None else None,
                # its own session: a Ctrl-C meant for us does not kill the engine mid-close
                start_new_session=(os.name == "posix"))
        except OSError as exc:
            raise EngineTerminatedError(f"cannot start engine {shlex.join(args)!r}: {exc}") from exc
        self._finalizer = weakref.finalize(self, _kill_quietly, self.proc)
        self._out_thread = threading.Thread(target=self._read_stdout, daemon=True,
                                            name=f"{self.name}-stdout")
        self._err_thread = threading.Thread(target=self._read_stderr, daemon=True,
                                            name=f"{self.name}-stderr")
        self._out_thread.start()
        self._err_thread.start()

    # --- reader threads -----------------------------------------------------------------------
    def _read_stdout(self) -> None:
        # Whatever is available is read at once and queued as one batch stamped with its arrival
        # time: an engine that floods info lines is read as fast as it writes them, and the
        # caller judges a reply by when it came, not by when it got round to reading it.
        stream = self.proc.stdout
        assert stream is not None
        partial = b""
        dropping = False  # inside a line longer than MAX_LINE: its rest is dropped
        try:
            while True:
                chunk = stream.read1(1 << 16)  # type: ignore[attr-defined]
                if not chunk:
                    break
                now = time.monotonic()
                if dropping:
                    end = chunk.find(b"\n")
                    if end < 0:
                        continue
                    chunk, dropping = chunk[end + 1:], False
                pieces = (partial + chunk).split(b"\n")
                partial = pieces.pop()
                if len(partial) > MAX_LINE:
                    pieces.append(partial[:MAX_LINE])
                    partial, dropping = b"", True
                if pieces:
                    self._put_lines(now, pieces)
            if partial:
                self._put_lines(time.monotonic(), [partial])
        except (OSError, ValueError):
            pass
        finally:
            self._put(_EOF)

    def _put_lines(self, arrival: float, pieces: list[bytes]) -> None:
        lines = [raw.decode("utf-8", errors="replace").rstrip("\r") for raw in pieces]
        if self.log is not None:
            for line in lines:
                self.log("<", line)
        self._put((arrival, lines))

    def _put(self, item: object) -> None:
        """Queue an item, waiting while MAX_BATCHES are unread; once the process is closed, the
        oldest unread batch makes room instead (so the reader ends, and the end is queued)."""
        while True:
            try:
                self._lines.put(item, timeout=0.1)
                return
            except queue.Full:
                if self._closed:
                    try:
                        self._lines.get_nowait()
                    except queue.Empty:
                        pass

    def _read_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        try:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                self._stderr_lines.append(line)
                if self.log is not None:
                    self.log("!", line)
                if self._stderr_copy is not None:
                    try:
                        self._stderr_copy.write(f"[{self.name}] {line}\n")
                        self._stderr_copy.flush()
                    except (OSError, ValueError):
                        pass
        except (OSError, ValueError):
            pass

    # --- state --------------------------------------------------------------------------------
    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> Optional[int]:
        """The exit status once the process has ended (negative: killed by that signal)."""
        return self.proc.poll()

    @property
    def alive(self) -> bool:
        return not self._eof and self.proc.poll() is None

    def stderr_tail(self, n: int = 10) -> list[str]:
        """The last n lines the process wrote to stderr."""
        return list(self._stderr_lines)[-n:]

    def _terminated(self, doing: str) -> EngineTerminatedError:
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            code = None
        why = "closed its output" if code is None else f"exited with code {code}"
        if code is not None and code < 0:
            try:
                why = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                pass
        tail = self.stderr_tail(5)
        more = ("; stderr: " + " | ".join(tail)) if tail else ""
        return EngineTerminatedError(f"engine {self.name!r} {why} while {doing}{more}")

    # --- I/O ----------------------------------------------------------------------------------
    def send(self, line: str) -> None:
        """Write one line (a newline is added) and flush it."""
        if "\n" in line or "\r" in line:
            raise ValueError(f"a command must be one line: {line!r}")
        if self._closed:
            raise EngineTerminatedError(f"engine {self.name!r} is closed")
        stdin = self.proc.stdin
        assert stdin is not None
        with self._write_lock:
            try:
                stdin.write(line.encode("utf-8") + b"\n")
                stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                raise self._terminated(f"sending {line!r}") from None
        if self.log is not None:
            self.log(">", line)

    def readline(self, timeout: Optional[float] = None, doing: str = "reading",
                 arrived_by: Optional[float] = None) -> str:
        """The next output line; EngineTimeoutError after timeout seconds (None: wait forever),
        EngineTerminatedError once the process has closed its output and every line is read.
        With ``arrived_by`` (a ``time.monotonic()`` deadline) a line that arrived later is left
        unread and EngineTimeoutError is raised: lines that came in time are read even when the
        caller is late to read them. :attr:`arrived` is the returned line's arrival time."""
        if not self._ready:
            if self._eof:
                raise self._terminated(doing)
            try:
                item = self._lines.get(timeout=None if timeout is None else max(0.0, timeout))
            except queue.Empty:
                raise EngineTimeoutError(f"engine {self.name!r} did not answer within {timeout:g} s "
                                         f"while {doing}") from None
            if item is _EOF:
                self._eof = True
                raise self._terminated(doing)
            arrival, lines = item  # type: ignore[misc]
            self._ready.extend((line, arrival) for line in lines)
        line, arrival = self._ready[0]
        if arrived_by is not None and arrival > arrived_by:
            raise EngineTimeoutError(f"engine {self.name!r} did not answer in time while {doing}")
        self._ready.popleft()
        self.arrived = arrival
        return line

    def read_until(self, done: Callable[[str], bool], timeout: Optional[float] = None,
                   doing: str = "reading") -> list[str]:
        """Read lines up to and including the first for which done(line) is true; return them all.
        The timeout covers the whole wait."""
        deadline = None if timeout is None else time.monotonic() + timeout
        lines = []
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise EngineTimeoutError(f"engine {self.name!r} did not answer within "
                                         f"{timeout:g} s while {doing}")
            line = self.readline(left, doing)
            lines.append(line)
            if done(line):
                return lines

    def pending(self) -> list[str]:
        """Lines already received and not yet read (does not wait)."""
        out: list[str] = [line for line, _ in self._ready]
        self._ready.clear()
        while not self._eof:
            try:
                item = self._lines.get_nowait()
            except queue.Empty:
                return out
            if item is _EOF:
                self._eof = True
                return out
            out.extend(item[1])  # type: ignore[index]
        return out

    # --- ending -------------------------------------------------------------------------------
    def close(self, quit_command: Optional[str] = None, timeout: float = QUIT_WAIT) -> Optional[int]:
        """End the process and reap it: send quit_command (if any) and give it timeout seconds
        to exit, then terminate it (TERMINATE_WAIT seconds more), then kill it. Safe to call more
        than once. Returns the exit status."""
        if not self._closed:
            self._closed = True
            if quit_command is not None and self.proc.poll() is None:
                stdin = self.proc.stdin
                assert stdin is not None
                try:
                    with self._write_lock:
                        stdin.write(quit_command.encode("utf-8") + b"\n")
                        stdin.flush()
                except (OSError, ValueError):
                    pass
            try:
                if self.proc.stdin is not None:
                    self.proc.stdin.close()  # EOF is a quit for most engines
            except (OSError, ValueError):
                pass
            for stage in ("wait", "terminate", "kill"):
                if stage == "terminate":
                    self._signal(signal.SIGTERM)
                elif stage == "kill":
                    self._signal(signal.SIGKILL if os.name == "posix" else signal.SIGTERM)
                try:
                    self.proc.wait(timeout={"wait": timeout, "terminate": TERMINATE_WAIT}.get(stage, 2.0))
                    break
                except subprocess.TimeoutExpired:
                    continue
            self._end_group()
            for stream, reader in ((self.proc.stdout, self._out_thread),
                                   (self.proc.stderr, self._err_thread)):
                if reader.is_alive():
                    continue  # closing a stream a thread is reading would wait for that read
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
            self._finalizer.detach()
        return self.proc.poll()

    def _end_group(self) -> None:
        """After the process has exited: a child it left behind in its process group (``sh -c
        'engine & exit'``) may still hold the output pipes; terminate, then kill the group until
        the pipes close, so that closing never waits for it."""
        for sig, wait in ((None, 0.2), (signal.SIGTERM, 0.3),
                          (signal.SIGKILL if os.name == "posix" else None, 0.5)):
            if sig is not None and os.name == "posix" and self.proc.poll() is not None:
                try:
                    os.killpg(self.proc.pid, sig)
                except OSError:
                    pass  # the group is empty
            self._out_thread.join(timeout=wait)
            self._err_thread.join(timeout=wait)
            if not self._out_thread.is_alive() and not self._err_thread.is_alive():
                return

    def kill(self) -> None:
        """Kill the process at once (and reap it), e.g. when it hangs."""
        self._signal(signal.SIGKILL if os.name == "posix" else signal.SIGTERM)
        self.close(timeout=1.0)

    def _signal(self, sig: int) -> None:
        if self.proc.poll() is not None:
            return
        try:
            if os.name == "posix":
                # the whole process group, so an engine started by a wrapper script dies too
                os.killpg(self.proc.pid, sig)
            else:
                self.proc.send_signal(sig)
        except (ProcessLookupError, PermissionError, OSError):
            try:
                self.proc.send_signal(sig)
            except OSError:
                pass

    def __enter__(self) -> EngineProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "alive" if self.alive else f"ended ({self.returncode})"
        return f"<EngineProcess {self.name!r} pid={self.pid} {state}>"


class ProtocolEngine:
    """Base of the protocol drivers: owns an :class:`EngineProcess`, is a context manager and
    always cleans the process up. Subclasses set ``quit_command`` and speak their protocol
    through ``self.process``."""

    quit_command: Optional[str] = "quit"
    quit_timeout: float = QUIT_WAIT

    def __init__(self, process: EngineProcess) -> None:
        self.process = process

    @property
    def name(self) -> str:
        return self.process.name

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.process.alive

    def close(self) -> Optional[int]:
        """Ask the engine to quit, then make sure the process is gone; returns its exit status."""
        return self.process.close(self.quit_command if self.process.alive else None,
                                  self.quit_timeout)

    quit = close

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- values ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Option:
    """An option the engine declared: ``option name <name> type <type> [default ..] [min ..]
    [max ..] [var ..]*``."""

    name: str
    type: str
    default: Optional[str] = None
    min: Optional[int] = None
    max: Optional[int] = None
    var: tuple[str, ...] = ()


@dataclass(frozen=True)
class Info:
    """One ``info`` line. ``score`` is in centi-discs for the side to move; ``exact`` means it
    is a proven final disc difference (then ``score == 100 * discs``). ``bound`` is ``"lower"``
    or ``"upper"`` for a fail-high/-low score. ``time`` is in seconds. Fields the line did not
    carry are None (``pv`` empty)."""

    depth: Optional[int] = None
    seldepth: Optional[int] = None
    multipv: int = 1
    score: Optional[int] = None
    exact: bool = False
    bound: Optional[str] = None
    nodes: Optional[int] = None
    nps: Optional[int] = None
    time: Optional[float] = None
    pv: tuple[Square, ...] = ()
    hashfull: Optional[int] = None
    string: Optional[str] = None

    @property
    def move(self) -> Optional[Square]:
        """The first move of the PV."""
        return self.pv[0] if self.pv else None

    @property
    def discs(self) -> Optional[int]:
        """The proven disc difference when the score is exact, else None."""
        return self.score // 100 if self.exact and self.score is not None else None


@dataclass(frozen=True)
class PlayResult:
    """What a search ended with: ``move`` is a square, :data:`PASS`, or None when the engine
    said the game is over; ``info`` the last main-line info; ``lines`` the last info of every
    multi-PV line, best first; ``elapsed`` the wall time the client waited (seconds)."""

    move: Optional[Square]
    info: Info = field(default_factory=Info)
    lines: tuple[Info, ...] = ()
    elapsed: float = 0.0
    token: str = ""
    arrived: Optional[float] = None
    """When the ``bestmove`` line arrived (``time.monotonic()``); ``elapsed`` ends then too."""


# --- the wire -------------------------------------------------------------------------------------

def move_token(move: Square, protocol: str = "uci", size: int = 8) -> str:
    """A move of a size x size board as sent to an engine: ``f5`` (``j10``); pass is ``pass``
    (UCI-like) or ``0000`` (UGI)."""
    if move == PASS:
        return "0000" if protocol == "ugi" else "pass"
    return square_name(move, size)


def _standard_start(board: Board) -> bool:
    return board.size % 2 == 0 and board == Board(board.size)


def position_command(board: Board, protocol: str = "uci") -> str:
    """The ``position`` line for a board: its game's start position plus the moves played, so
    the engine sees the history.

    >>> b = Board(); _ = b.push_str("f5")
    >>> position_command(b)
    'position startpos moves f5'
    >>> position_command(Board.from_fen("8/8/8/3ox3/3xx3/8/8/8 o"))
    'position board ---------------------------OX------XX--------------------------- w'
    >>> position_command(Board.from_fen("8/8/8/3ox3/3xx3/8/8/8 o"), "ugi")
    'position fen 8/8/8/3ox3/3xx3/8/8/8 o'
    """
    start = board.replay()
    if _standard_start(start) and (start.size == 8 or protocol == "uci"):
        head = "position startpos" + ("" if start.size == 8 else f" {start.size}")
    elif protocol == "ugi":
        head = f"position fen {start.fen()}"
    else:
        head = f"position board {start.cells()} {'b' if start.turn == BLACK else 'w'}"
    if board.move_stack:
        head += " moves " + " ".join(move_token(m, protocol, board.size) for m in board.move_stack)
    return head


def _ms(seconds: float) -> int:
    return max(0, int(round(seconds * 1000)))


def go_command(limit: Optional[Limit], protocol: str = "uci") -> str:
    """The ``go`` line for a limit. Clocks are ``btime``/``wtime``/``binc``/``winc`` in the
    UCI-like protocol and ``p1time``/``p2time``/``p1inc``/``p2inc`` in UGI (player 1 is black).
    An exact solve is ``exact`` (this package's engine solves to the end) with a full depth,
    so an engine that ignores the flag still searches to the end of the game.

    >>> go_command(Limit(depth=8, nodes=10000))
    'go depth 8 nodes 10000'
    >>> go_command(Limit(black_clock=60, white_clock=55.5, black_inc=1), "ugi")
    'go p1time 60000 p2time 55500 p1inc 1000 p2inc 0'
    """
    if limit is None:
        return "go infinite"
    parts = ["go"]
    if limit.infinite:
        parts.append("infinite")
    if limit.exact:
        parts += ["depth", str(EXACT_DEPTH), "exact"]
    elif limit.depth is not None:
        parts += ["depth", str(limit.depth)]
    if limit.nodes is not None:
        parts += ["nodes", str(limit.nodes)]
    if limit.time is not None:
        parts += ["movetime", str(max(1, _ms(limit.time)))]
    if limit.black_clock is not None or limit.white_clock is not None:
        b, w = ("p1", "p2") if protocol == "ugi" else ("b", "w")
        if limit.black_clock is not None:
            parts += [f"{b}time", str(_ms(limit.black_clock))]
        if limit.white_clock is not None:
            parts += [f"{w}time", str(_ms(limit.white_clock))]
        parts += [f"{b}inc", str(_ms(limit.black_inc)), f"{w}inc", str(_ms(limit.white_inc))]
        if limit.moves_to_go is not None:
            parts += ["movestogo", str(limit.moves_to_go)]
    return " ".join(parts)


_INT_FIELDS = {"depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "tbhits",
               "currmovenumber"}


def parse_info(line: str, size: int = 8) -> Info:
    """Read an ``info`` line; unknown fields are skipped, unreadable moves end the PV.

    >>> i = parse_info("info depth 3 multipv 2 score disc -4 nodes 120 time 15 pv d3 c3 pass")
    >>> i.depth, i.multipv, i.score, i.exact, i.time, i.pv == (19, 18, PASS)
    (3, 2, -400, True, 0.015, True)
    """
    tokens = line.split()
    values: dict[str, Any] = {}
    i = 1 if tokens and tokens[0] == "info" else 0
    while i < len(tokens):
        key = tokens[i]
        i += 1
        if key == "string":
            values["string"] = " ".join(tokens[i:])
            break
        if key == "pv":
            pv = []
            while i < len(tokens):
                try:
                    pv.append(parse_square(tokens[i], size))
                except OthelloError:
                    break
                i += 1
            values["pv"] = tuple(pv)
            continue
        if key == "score":
            while i < len(tokens):
                kind = tokens[i]
                if kind in ("cp", "disc", "discs", "mate") and i + 1 < len(tokens):
                    value = ascii_float(tokens[i + 1])
                    if value is None or abs(value) > 1e15:
                        break
                    n = int(value)
                    if kind == "cp":
                        values["score"] = n
                    elif kind == "mate":  # no mates in Othello; keep a huge score of that sign
                        values["score"] = 100 * 64 if n > 0 else -100 * 64
                    else:
                        values["score"], values["exact"] = 100 * n, True
                    i += 2
                elif kind in ("lowerbound", "upperbound"):
                    values["bound"] = kind[:-5]
                    i += 1
                elif kind == "exact":
                    values["exact"] = True
                    i += 1
                elif kind == "wdl":
                    i += 4
                else:
                    break
            continue
        if key in _INT_FIELDS or key == "time":
            if i < len(tokens):
                number = ascii_int(tokens[i])
                if number is None:
                    continue
                n = number
                i += 1
                if key == "time":
                    values["time"] = n / 1000
                elif key in ("depth", "seldepth", "multipv", "nodes", "nps", "hashfull"):
                    values[key] = n
            continue
        # currmove <m>, refutation, currline and unknown keys: skip the key only
    return Info(**values)


def parse_option(line: str) -> Optional[Option]:
    """Read an ``option name ... type ...`` line (names may hold spaces); None if unreadable.

    >>> parse_option("option name Move Overhead type spin default 30 min 0 max 5000")
    Option(name='Move Overhead', type='spin', default='30', min=0, max=5000, var=())
    """
    tokens = line.split()
    if len(tokens) < 4 or tokens[:2] != ["option", "name"] or "type" not in tokens[2:]:
        return None
    keys = {"type", "default", "min", "max", "var"}
    t = tokens.index("type", 2)
    name = " ".join(tokens[2:t])
    fields: dict[str, list[str]] = {}
    current = None
    vars_: list[str] = []
    for tok in tokens[t:]:
        if tok in keys and (current != "default" or tok != "default"):
            current = tok
            if tok == "var":
                vars_.append("")
            fields.setdefault(tok, [])
            continue
        if current == "var":
            vars_[-1] = (vars_[-1] + " " + tok).strip()
        elif current is not None:
            fields[current].append(tok)

    def number(key: str) -> Optional[int]:
        return ascii_int(fields[key][0]) if fields.get(key) else None

    default = " ".join(fields["default"]) if "default" in fields else None
    return Option(name, " ".join(fields.get("type", [])), default, number("min"), number("max"),
                  tuple(vars_))


# --- the UCI / UGI driver -------------------------------------------------------------------------

class Engine(ProtocolEngine):
    """An engine process speaking the UCI-like protocol (``protocol="uci"``) or its UGI dialect
    (``protocol="ugi"``). Start one with :meth:`popen`; use it as a context manager, or call
    :meth:`close`. One search at a time; calls are not meant to be made from several threads,
    except :meth:`AnalysisStream.stop`.

    ``timeout`` bounds every reply that should come at once (handshake, ``isready``); a search
    with a time limit or clock is given its time plus ``search_slack`` seconds before
    EngineTimeoutError. Depth- and node-limited searches wait as long as they take unless the
    call passes ``timeout``.
    """

    search_slack: float = 5.0

    def __init__(self, process: EngineProcess, protocol: str = "uci", timeout: float = 10.0) -> None:
        if protocol not in ("uci", "ugi"):
            raise ValueError(f"unknown protocol {protocol!r}: expected 'uci' or 'ugi'")
        super().__init__(process)
        self.protocol = protocol
        self.timeout = timeout
        self.id: dict[str, str] = {}
        self.options: dict[str, Option] = {}
        self.strings: list[str] = []
        """``info string`` texts seen outside searches (most recent last, at most 100)."""
        self._multipv = 1
        self._busy = False
        self._named = False  # the caller chose the name: keep it over the engine's id name

    @classmethod
    def popen(cls, command: Command, protocol: str = "uci", *, timeout: float = 10.0,
              options: Optional[Mapping[str, Any]] = None, cwd: Optional[str] = None,
              env: Optional[Mapping[str, str]] = None, stderr: Optional[IO[str]] = None,
              log: Optional[LogCallback] = None, name: Optional[str] = None) -> Engine:
        """Start the command, do the handshake (``uci``/``ugi`` ... ``uciok``/``ugiok``, then
        ``isready``) and apply options. The process is killed if any of that fails."""
        process = EngineProcess(command, cwd=cwd, env=env, stderr=stderr, log=log, name=name)
        engine = cls(process, protocol, timeout)
        engine._named = name is not None
        try:
            engine._handshake()
            if options:
                engine.configure(options)
        except BaseException:
            # no quit for an engine that failed its handshake: terminate it, then kill it
            engine.process.close(None, timeout=0.5)
            raise
        return engine

    # --- set-up --------------------------------------------------------------------------------
    def _handshake(self) -> None:
        ok = "ugiok" if self.protocol == "ugi" else "uciok"
        self.process.send(self.protocol)
        for line in self.process.read_until(lambda s: s.strip() == ok, self.timeout,
                                            f"waiting for {ok}"):
            tokens = line.split()
            if len(tokens) >= 3 and tokens[0] == "id":
                self.id[tokens[1]] = " ".join(tokens[2:])
            elif tokens[:1] == ["option"]:
                option = parse_option(line)
                if option is not None:
                    self.options[option.name.lower()] = option
        if "name" in self.id and not self._named:
            self.process.name = self.id["name"]
        self.ping()

    def ping(self, timeout: Optional[float] = None) -> None:
        """``isready`` and wait for ``readyok``; EngineError if the engine reported an error
        (``info string error: ...``) for a command sent before."""
        self.process.send("isready")
        lines = self.process.read_until(lambda s: s.strip() == "readyok",
                                        self.timeout if timeout is None else timeout,
                                        "waiting for readyok")
        errors = self._note_strings(lines)
        if errors:
            raise EngineError(f"engine {self.name!r} reported: {'; '.join(errors)}")

    def _note_strings(self, lines: Sequence[str]) -> list[str]:
        """Remember info strings; return the error texts among them."""
        errors = []
        for line in lines:
            if line.startswith("info string "):
                text = line[len("info string "):].strip()
                self.strings = (self.strings + [text])[-100:]
                if text.lower().startswith("error"):
                    errors.append(text)
        return errors

    def configure(self, options: Mapping[str, Any]) -> None:
        """Set options (``setoption name <n> value <v>``); names are checked against what the
        engine declared (case-insensitive), spin values against their range. ``MultiPV`` is
        managed by :meth:`analyse`. Booleans go as ``true``/``false``; a ``button`` takes None.
        EngineError if the engine rejects one."""
        self._check_idle()
        commands: list[str] = []
        for name, value in options.items():
            option = self.options.get(name.lower())
            if option is None:
                known = ", ".join(o.name for o in self.options.values()) or "none"
                raise EngineError(f"engine {self.name!r} has no option {name!r} (it has: {known})")
            if option.name.lower() == "multipv":
                raise EngineError("MultiPV is set per call: use analyse(..., multipv=k)")
            if option.type == "button" or value is None:
                commands.append(f"setoption name {option.name}")
                continue
            if isinstance(value, bool):
                text = "true" if value else "false"
            else:
                text = str(value)
            if option.type == "spin":
                parsed = ascii_int(text.strip())
                if parsed is None:
                    raise EngineError(f"option {option.name!r} needs an integer, not {value!r}")
                number = parsed
                if ((option.min is not None and number < option.min)
                        or (option.max is not None and number > option.max)):
                    raise EngineError(f"value {number} for option {option.name!r} is out of range "
                                      f"{option.min}..{option.max}")
            if option.type == "combo" and option.var and text not in option.var:
                raise EngineError(f"value {text!r} for option {option.name!r} is not one of "
                                  f"{', '.join(option.var)}")
            commands.append(f"setoption name {option.name} value {text}")
        self._send_checked(commands)

    def new_game(self) -> None:
        """Tell the engine a new game starts (``ucinewgame``/``uginewgame``)."""
        self._check_idle()
        self._send_checked(["uginewgame" if self.protocol == "ugi" else "ucinewgame"])

    # --- searching -----------------------------------------------------------------------------
    def _check_idle(self) -> None:
        if self._busy:
            raise EngineError(f"engine {self.name!r} is busy with a search; stop it first")
        if not self.process.alive:
            raise self.process._terminated("idle")

    def _multipv_commands(self, k: int) -> list[str]:
        if k < 1:
            raise ValueError(f"multipv must be at least 1, not {k}")
        if k == self._multipv:
            return []
        option = self.options.get("multipv")
        if option is None:
            if k > 1:
                raise EngineError(f"engine {self.name!r} has no MultiPV option")
            return []
        return [f"setoption name {option.name} value {k}"]

    def _search_timeout(self, board: Board, limit: Optional[Limit],
                        timeout: Optional[float]) -> Optional[float]:
        if timeout is not None:
            return timeout
        if limit is None or limit.infinite:
            return None
        if limit.time is not None:
            return limit.time + self.search_slack
        clock = limit.black_clock if board.turn == BLACK else limit.white_clock
        if clock is not None:
            return clock + self.search_slack
        return None

    def _start(self, board: Board, limit: Optional[Limit], multipv: int) -> AnalysisStream:
        self._check_idle()
        commands = self._multipv_commands(multipv)
        self._send_checked(commands + [position_command(board, self.protocol)])
        self._multipv = multipv
        started = time.monotonic()
        self.process.send(go_command(limit, self.protocol))
        # answered at once even while searching; an error before it means go was rejected
        self.process.send("isready")
        self._busy = True
        return AnalysisStream(self, board, started)

    def _send_checked(self, commands: Sequence[str]) -> None:
        """Send commands, then ``isready``; EngineError naming them if the engine reported an
        error (a rejected position must not be searched as the previous one). An engine that
        sends ``bestmove`` a moment before it accepts new commands ("busy"/"searching") gets
        them again, for up to a second."""
        deadline = time.monotonic() + 1.0
        while True:
            for command in commands:
                self.process.send(command)
            try:
                self.ping()
                return
            except EngineError as exc:
                text = str(exc).lower()
                if ("searching" not in text and "busy" not in text) or time.monotonic() > deadline:
                    raise EngineError(f"{exc} (after {'; '.join(commands)!r})") from None
                time.sleep(0.02)

    def play(self, board: Board, limit: Limit, *, multipv: int = 1,
             timeout: Optional[float] = None) -> PlayResult:
        """Search the position (its game's moves are sent too) and return the engine's move
        with its last info (and, with ``multipv=k``, the last info of each of k lines).

        IllegalEngineMoveError if the move is not legal; EngineTimeoutError if no ``bestmove``
        comes within the timeout (see the class); EngineTerminatedError if the engine dies.
        """
        stream = self._start(board, limit, multipv)
        with stream:
            result = stream.wait(self._search_timeout(board, limit, timeout))
        return result

    @overload
    def analyse(self, board: Board, limit: Limit, multipv: None = None, *,
                timeout: Optional[float] = None) -> Info: ...

    @overload
    def analyse(self, board: Board, limit: Limit, multipv: int, *,
                timeout: Optional[float] = None) -> list[Info]: ...

    def analyse(self, board: Board, limit: Limit, multipv: Optional[int] = None, *,
                timeout: Optional[float] = None) -> Union[Info, list[Info]]:
        """Search and return the final info: one :class:`Info` (the main line), or with
        ``multipv=k`` a list of up to k, best first (fewer when there are fewer moves)."""
        stream = self._start(board, limit, multipv or 1)
        with stream:
            result = stream.wait(self._search_timeout(board, limit, timeout))
        if multipv is None:
            return result.info
        return list(result.lines)

    def analysis(self, board: Board, limit: Optional[Limit] = None,
                 multipv: Optional[int] = None) -> AnalysisStream:
        """Start a search and return a stream of its infos (iterate it; it ends at ``bestmove``).
        With no limit it runs until :meth:`AnalysisStream.stop`. Use it as a context manager:
        leaving the block stops the search and waits for the engine to finish it.

        >>> import sys
        >>> with Engine.popen([sys.executable, "-m", "othello_engine"]) as engine:
        ...     with engine.analysis(Board()) as stream:
        ...         for info in stream:
        ...             if info.depth and info.depth >= 3:
        ...                 stream.stop()
        ...     stream.result.move in Board().legal_moves()
        True
        """
        return self._start(board, limit, multipv or 1)

    def __repr__(self) -> str:
        return f"<Engine {self.name!r} {self.protocol} pid={self.pid}>"


class AnalysisStream:
    """A running search: iterate for :class:`Info` values as they arrive (score-less lines such
    as ``info string`` are kept in :attr:`strings`, not yielded); the iteration ends at
    ``bestmove``. :meth:`stop` may be called from any thread."""

    def __init__(self, engine: Engine, board: Board, started: Optional[float] = None) -> None:
        self.engine = engine
        self.board = board
        self.started = time.monotonic() if started is None else started
        self.info = Info()
        """The latest main-line info (multipv 1) with a score or PV."""
        self.multipv: dict[int, Info] = {}
        self.strings: list[str] = []
        self.result: Optional[PlayResult] = None
        self._stopped = False
        self._ready = False
        self._stop_lock = threading.Lock()
        self._unparsed: dict[int, str] = {}  # the last info line per multipv, read by read_to_end

    @property
    def done(self) -> bool:
        return self.result is not None

    def stop(self) -> None:
        """Ask the engine to end the search now (it still answers with ``bestmove``)."""
        with self._stop_lock:
            if self._stopped or self.result is not None:
                return
            self._stopped = True
        try:
            self.engine.process.send("stop")
        except EngineTerminatedError:
            pass  # the next read reports it

    def next(self, timeout: Optional[float] = None) -> Optional[Info]:
        """The next info, or None once the search has ended (then :attr:`result` is set). Lines
        that arrived within the timeout are read even if reading them takes longer."""
        return self._next(timeout, parse=True)

    def read_to_end(self, timeout: Optional[float] = None) -> PlayResult:
        """Read to the ``bestmove`` and return the result, parsing only the last info line of
        each multi-PV line (fast with an engine that floods info lines); EngineTimeoutError if
        no ``bestmove`` arrived within the timeout (the search is left running)."""
        self._next(timeout, parse=False)
        assert self.result is not None
        return self.result

    def _next(self, timeout: Optional[float], parse: bool) -> Optional[Info]:
        process = self.engine.process
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.result is None:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                line = process.readline(left, "searching", arrived_by=deadline)
            except EngineTimeoutError:
                raise EngineTimeoutError(f"engine {self.engine.name!r} did not finish its "
                                         f"search within {timeout:g} s") from None
            except EngineTerminatedError:
                self.engine._busy = False
                raise
            tokens = line.split()
            if not tokens:
                continue
            if tokens[0] == "readyok" and not self._ready:
                self._ready = True
                continue
            if tokens[0] == "bestmove":
                self._finish(tokens[1] if len(tokens) > 1 else "")
                return None
            if tokens[0] != "info":
                continue
            if len(tokens) > 1 and tokens[1] == "string":
                text = line.split(None, 2)[2] if len(tokens) > 2 else ""
                self.strings.append(text)
                if not self._ready and text.lower().startswith("error"):
                    self._recover_from_rejected_go()
                    raise EngineError(f"engine {self.engine.name!r} rejected the search: {text}")
                continue
            if not parse:
                if "score" in tokens or "pv" in tokens:
                    k = 1
                    if "multipv" in tokens:
                        at = tokens.index("multipv") + 1
                        k = ascii_int(tokens[at]) or 1 if at < len(tokens) else 1
                    self._unparsed[k] = line
                continue
            info = parse_info(line, self.board.size)
            if info.score is None and not info.pv:
                continue  # currmove / hashfull chatter
            self.multipv[info.multipv] = info
            if info.multipv == 1:
                self.info = info
            return info
        return None

    def _recover_from_rejected_go(self) -> None:
        # the engine never started searching; swallow its readyok so the next command is clean
        try:
            self.engine.process.read_until(lambda s: s.strip() == "readyok", self.engine.timeout,
                                           "waiting for readyok")
        finally:
            self.engine._busy = False
            self.result = PlayResult(None)

    def _finish(self, token: str) -> None:
        arrived = self.engine.process.arrived
        elapsed = max(0.0, arrived - self.started)
        self.engine._busy = False
        for k in sorted(self._unparsed):  # the infos read_to_end skipped: only the last counts
            info = parse_info(self._unparsed[k], self.board.size)
            if info.score is not None or info.pv:
                self.multipv[info.multipv] = info
                if info.multipv == 1:
                    self.info = info
        self._unparsed.clear()
        if not self._ready:
            # the isready sent after go may still be answered; drain it so replies stay in step
            try:
                self.engine.process.read_until(lambda s: s.strip() == "readyok",
                                               self.engine.timeout, "waiting for readyok")
            except EngineTimeoutError:
                pass
            self._ready = True
        lines = tuple(self.multipv[k] for k in sorted(self.multipv))
        if token in ("", "(none)", "none"):
            move: Optional[Square] = None
        else:
            try:
                move = parse_square(token, self.board.size)
            except OthelloError:
                self.result = PlayResult(None, self.info, lines, elapsed, token, arrived)
                raise IllegalEngineMoveError(f"engine {self.engine.name!r} sent an unreadable move "
                                             f"{token!r}", token) from None
        self.result = PlayResult(move, self.info, lines, elapsed, token, arrived)
        if move is None:
            if not self.board.is_game_over():
                raise IllegalEngineMoveError(f"engine {self.engine.name!r} sent no move in a game "
                                             "that is not over", token)
        elif not self.board.is_legal(move):
            raise IllegalEngineMoveError(f"engine {self.engine.name!r} played {token!r}, which is "
                                         f"illegal in {self.board.fen()!r}", token)

    def wait(self, timeout: Optional[float] = None) -> PlayResult:
        """Read to the end of the search and return its result. On timeout the search is
        stopped; if the engine then still does not answer it is killed. Either way
        EngineTimeoutError is raised."""
        try:
            self.read_to_end(timeout)
        except EngineTimeoutError:
            self._abandon()
            raise EngineTimeoutError(f"engine {self.engine.name!r} did not finish its search "
                                     f"within {timeout:g} s") from None
        assert self.result is not None
        return self.result

    def _abandon(self) -> None:
        """After a timeout: stop the search and wait briefly for bestmove, else kill the engine."""
        self.stop()
        deadline = time.monotonic() + min(STOP_WAIT, self.engine.timeout)
        try:
            while self.next(max(0.0, deadline - time.monotonic())) is not None:
                pass   # one deadline for all: an engine that chatters but never answers is hung too
        except IllegalEngineMoveError:
            pass  # it did answer; the search is over
        except EngineError:
            self.engine._busy = False
            self.engine.process.kill()

    def __iter__(self) -> Iterator[Info]:
        while True:
            info = self.next()
            if info is None:
                return
            yield info

    def __enter__(self) -> AnalysisStream:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if self.result is None and self.engine.process.alive:
            self.stop()
            try:
                self.wait(self.engine.timeout)
            except EngineError:
                if exc_type is None:
                    raise
