"""The engine process: read commands from stdin, pick the protocol, write replies to stdout."""

from __future__ import annotations

import sys
import threading
from typing import IO, Iterator, Optional


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


def input_lines(stream: IO[bytes]) -> Iterator[str]:
    """Lines of the byte stream, decoded leniently (binary garbage becomes replacement characters)."""
    for raw in stream:
        yield raw.decode("utf-8", errors="replace").rstrip("\r\n")


def main(args: Optional[list[str]] = None) -> int:
    """Serve one protocol session on stdin/stdout; ``--nboard`` starts in NBoard mode."""
    args = list(args or [])
    out = Output(sys.stdout)
    lines = input_lines(sys.stdin.buffer)
    first: Optional[str] = None
    nboard = "--nboard" in args
    if not nboard:
        for line in lines:
            if line.strip():
                first = line
                break
        if first is None:
            return 0
        nboard = first.split()[0].lower() == "nboard"
    if nboard:
        from othello_engine.protocol.nboard import NBoardSession as Session
    else:
        from othello_engine.protocol.uci import UciSession as Session  # type: ignore[assignment]
    session = Session(out)
    try:
        if first is not None and not session.handle(first):
            return 0
        for line in lines:
            if not session.handle(line):
                break
    finally:
        session.close()
    return 0
