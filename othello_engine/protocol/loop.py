"""The engine process: read commands from stdin, pick the protocol, write replies to stdout."""

from __future__ import annotations

import os
import queue
import sys
import threading
from typing import IO, Iterator, Optional

from othello_engine.protocol.session import SessionFactory

MAX_LINE = 1 << 20
"""Longest input line kept (bytes); the rest of a longer line is read and dropped."""

USAGE = """usage: othello-engine [--nboard | --gtp] [--threads N]
       othello-engine perft|match|analyze|book|play|train ... (each with --help)

Without arguments the engine reads commands on standard input and answers on standard output:
the UCI-like protocol (start with 'uci'), its UGI dialect ('ugi'), NBoard ('nboard 2', or from
the start with --nboard) or GTP (a GTP command such as 'protocol_version' or 'list_commands',
or from the start with --gtp). Type 'help' in the UCI-like protocol for its commands; the full
contract is protocol_spec.md.

options:
  --nboard        speak the NBoard protocol from the first line
  --gtp           speak GTP (version 2) from the first line, as GTP GUIs such as Quarry expect
  --threads N     search with N threads (1..256) in every protocol; the UCI-like
                  protocol starts with Threads N and can change it with setoption
  -h, --help      show this help and exit
"""

FLAGS = ("--nboard", "--gtp")


class Output:
    """Thread-safe line writer: every line is written whole and flushed at once."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def __call__(self, line: str) -> None:
        with self._lock:
            try:
                self._stream.write(line + "\n")
                self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass  # the reader is gone; nothing left to tell it


def input_lines(stream: IO[bytes], limit: int = MAX_LINE) -> Iterator[str]:
    """Lines of the byte stream, decoded leniently (binary garbage becomes replacement characters).
    A line longer than ``limit`` bytes is cut to its first ``limit`` bytes."""
    first = True
    while True:
        raw = stream.readline(limit)
        if not raw:
            return
        if first and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]  # a UTF-8 byte order mark, as Windows tools write one
        first = False
        if not raw.endswith(b"\n") and len(raw) >= limit:
            while True:  # drop the rest of the over-long line without holding it in memory
                more = stream.readline(limit)
                if not more or more.endswith(b"\n"):
                    break
        yield raw.decode("utf-8", errors="replace").rstrip("\r\n")


class FdReader:
    """``readline(limit)`` straight from a file descriptor with its own buffer. The reading
    thread blocks in ``os.read``, which holds no interpreter lock: a thread blocked on the
    buffered ``sys.stdin`` at exit can abort the interpreter."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = b""
        self._eof = False

    def readline(self, limit: int = -1) -> bytes:
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0 and (limit < 0 or end < limit):
                line, self._buffer = self._buffer[:end + 1], self._buffer[end + 1:]
                return line
            if 0 <= limit <= len(self._buffer) or self._eof:
                cut = len(self._buffer) if limit < 0 else min(limit, len(self._buffer))
                line, self._buffer = self._buffer[:cut], self._buffer[cut:]
                return line
            try:
                chunk = os.read(self._fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self._eof = True
            self._buffer += chunk


class _ReadAhead:
    """The input lines, read by a thread of their own, so that the end of the input is seen
    while a command still runs: the session's ``end_of_input()`` (if it has one) is called
    then, from that thread (GTP stops a ``genmove`` search with it, as UCI stops ``go``)."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._queue: "queue.Queue[Optional[str]]" = queue.Queue()
        self._ended = threading.Event()
        self._lock = threading.Lock()
        self._session: object = None
        threading.Thread(target=self._read, args=(lines,), daemon=True).start()

    def _read(self, lines: Iterator[str]) -> None:
        try:
            for line in lines:
                self._queue.put(line)
        finally:
            self._queue.put(None)
            with self._lock:
                self._ended.set()
                self._tell(self._session)

    @staticmethod
    def _tell(session: object) -> None:
        hook = getattr(session, "end_of_input", None)
        if hook is not None:
            hook()

    def attach(self, session: object) -> None:
        """The session to tell of the end of the input (at once if it has already come)."""
        with self._lock:
            self._session = session
            if self._ended.is_set():
                self._tell(session)

    def __iter__(self) -> "_ReadAhead":
        return self

    def __next__(self) -> str:
        line = self._queue.get()
        if line is None:
            self._queue.put(None)  # every later read ends too
            raise StopIteration
        return line


def main(args: Optional[list[str]] = None) -> int:
    """Serve one protocol session on stdin/stdout; ``--nboard`` starts in NBoard mode, ``--gtp``
    in GTP mode; without them the first non-empty line picks the protocol."""
    args = list(args or [])
    if "-h" in args or "--help" in args:
        sys.stdout.write(USAGE)
        return 0
    unknown = [a for a in args if a not in FLAGS]
    if unknown:
        sys.stderr.write(f"othello-engine: unknown argument {unknown[0]!r} (see othello-engine --help)\n")
        return 2
    if all(flag in args for flag in FLAGS):
        sys.stderr.write("othello-engine: --nboard and --gtp exclude each other\n")
        return 2
    out = Output(sys.stdout)
    lines = _ReadAhead(input_lines(FdReader(sys.stdin.fileno())))
    first: Optional[str] = None
    comments: list[str] = []  # comment-only lines before the first command (GTP allows them)
    protocol = "nboard" if "--nboard" in args else "gtp" if "--gtp" in args else ""
    if not protocol:
        for line in lines:
            if line.split("#", 1)[0].strip():
                first = line
                break
            if line.strip():
                comments.append(line)
        if first is None and not comments:
            return 0
        protocol = protocol_of(first or "")
    session = session_factory(protocol)(out)
    lines.attach(session)
    try:
        if all(session.handle(line) for line in comments) and (first is None or session.handle(first)):
            for line in lines:
                if not session.handle(line):
                    break
    except KeyboardInterrupt:
        pass
    finally:
        session.close()
        _quiet_stdout()
    return 0


def session_factory(protocol: str) -> SessionFactory:
    """The session class of a protocol (``nboard``, ``gtp``, else the UCI-like one), imported only
    when asked for, so that a session loads only its own protocol."""
    if protocol == "nboard":
        from othello_engine.protocol.nboard import NBoardSession
        return NBoardSession
    if protocol == "gtp":
        from othello_engine.protocol.gtp import GtpSession
        return GtpSession
    from othello_engine.protocol.uci import UciSession
    return UciSession


GTP_FIRST_WORDS = frozenset((
    "protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
    "clear_board", "komi", "play", "genmove", "reg_genmove", "undo", "time_settings", "time_left",
    "final_score", "showboard", "list_games", "set_game"))
"""First commands that start a GTP session (none of them is a command of the other protocols)."""


def protocol_of(first: str) -> str:
    """The protocol a session's first non-empty line speaks: ``nboard``, ``gtp`` or ``uci`` (the
    UCI-like protocol and its UGI dialect, which sort themselves out).

    >>> protocol_of("nboard 2"), protocol_of("1 protocol_version"), protocol_of("list_commands")
    ('nboard', 'gtp', 'gtp')
    >>> protocol_of("uci"), protocol_of("ugi"), protocol_of("quit")
    ('uci', 'uci', 'uci')
    """
    words = first.split("#", 1)[0].split()
    if words and words[0].isascii() and words[0].isdigit():  # a GTP command id
        return "gtp" if len(words) > 1 and words[1].lower() in GTP_FIRST_WORDS else "uci"
    if not words:
        return "uci"
    word = words[0].lower()
    return "nboard" if word == "nboard" else "gtp" if word in GTP_FIRST_WORDS else "uci"


def _quiet_stdout() -> None:
    """Flush stdout now; if the reader has gone, point stdout at /dev/null so that the
    interpreter's own flush at exit cannot fail (and change the exit status)."""
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError, OSError):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
