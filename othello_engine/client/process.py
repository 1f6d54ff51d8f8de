"""Start, read and stop an engine process: a line pipe to a child process, with no protocol in it.

:class:`EngineProcess` starts a command, writes lines to its stdin and reads its stdout lines
from a reader thread with timeouts; it notices when the process dies and always cleans up
(``quit``, then terminate, then kill). It knows nothing about any protocol: the UCI/UGI client
(:class:`~othello_engine.client.uci.EngineClient`) and the match's GTP and NBoard players are
built on it through :class:`ProtocolEngine`.
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
from typing import IO, Any, Callable, Mapping, Optional, Sequence, Union

from othello_engine.client.errors import EngineTerminatedError, EngineTimeoutError

__all__ = ["Command", "LogCallback", "EngineProcess", "ProtocolEngine", "MAX_LINE", "MAX_BATCHES",
           "QUIT_WAIT", "TERMINATE_WAIT"]

Command = Union[str, Sequence[str]]

def python_command(module: str = "othello_engine") -> list[str]:
    """The command that runs ``python -m module`` in this interpreter with the working directory
    kept off ``sys.path`` (``-P``), so that a folder named like the package where the user
    happens to be is never imported in place of the installed package."""
    return [sys.executable, "-P", "-m", module]

LogCallback = Callable[[str, str], None]
"""Called with (direction, line) for every line: direction ``">"`` sent, ``"<"`` received,
``"!"`` the engine's stderr."""

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

