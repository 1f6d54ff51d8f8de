"""A session's engine: its own engine process, driven through the client from a thread of its own.

The server process never searches. Each session has one :class:`EngineWorker`: a thread that
starts the engine process (:class:`~othello_engine.client.EngineClient`) when the first search is
asked for, runs one search at a time, posts what it finds through a callback, and ends the
process when the session closes or no search was asked for during ``idle`` seconds (it starts
again on the next request). :meth:`EngineWorker.cancel` stops the running search at once.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from othello_engine.board import BLACK, Board, square_name
from othello_engine.client import EngineClient, EngineError, python_command
from othello_engine.client.uci import AnalysisStream
from othello_engine.engine import Limit

MAX_MULTIPV = 64
"""Most lines of a hint (the engine's MultiPV maximum); on big boards the rest go unscored."""
START_TIMEOUT = 30.0
"""Seconds an engine process gets to start and answer its handshake."""


@dataclass
class Job:
    """A search asked for by a session. ``kind`` is ``move`` (the engine's move in ``boards[0]``),
    ``hint`` (every legal move scored by MultiPV) or ``analyze`` (each of ``boards`` in turn, at
    ``plies``). ``version`` is the game's version when the job was made."""

    kind: str
    boards: Sequence[Board]
    limit: Limit
    version: int
    plies: Sequence[int] = ()
    token: int = 0


@dataclass
class Outcome:
    """What a job found: for ``move``, the move and its score; for ``hint``, scores by square;
    for ``analyze``, one position's score (``ply``), and ``done`` on the last. Scores are in
    discs: ``score`` for Black, ``hints`` for the side to move. ``error`` is set when the engine
    failed."""

    job: Job
    move: Optional[int] = None
    score: Optional[float] = None
    hints: dict[str, float] = field(default_factory=dict)
    ply: int = -1
    done: bool = True
    error: Optional[str] = None


Post = Callable[[Outcome], None]


class EngineWorker:
    """One session's engine process and the thread that talks to it."""

    def __init__(self, post: Post, idle: float = 600.0,
                 command: Optional[Sequence[str]] = None,
                 options: Optional[dict[str, Any]] = None) -> None:
        self.post = post
        self.idle = idle
        self.command = list(command) if command else python_command()
        self.options = dict(options or {})
        self.engine: Optional[EngineClient] = None
        self.starts = 0
        self._jobs: queue.Queue[Optional[Job]] = queue.Queue()
        self._lock = threading.Lock()
        self._token = 0
        self._stream: Optional[AnalysisStream] = None
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="web-engine", daemon=True)
        self._thread.start()

    # --- the session's side -------------------------------------------------------------------
    def submit(self, job: Job) -> None:
        """Run job after stopping whatever runs now."""
        with self._lock:
            if self._closed:
                return
            self._token += 1
            job.token = self._token
            self._stop_stream()
        self._jobs.put(job)

    def cancel(self) -> None:
        """Stop the running search and forget the queued ones."""
        with self._lock:
            self._token += 1
            self._stop_stream()

    def close(self) -> None:
        """Stop searching and end the engine process (the thread does it; this returns at once)."""
        with self._lock:
            self._closed = True
            self._token += 1
            self._stop_stream()
        self._jobs.put(None)

    def join(self, timeout: Optional[float] = None) -> None:
        self._thread.join(timeout)

    @property
    def running(self) -> bool:
        """True while an engine process is up."""
        engine = self.engine
        return engine is not None and engine.alive

    def _stop_stream(self) -> None:
        if self._stream is not None:
            self._stream.stop()

    # --- the thread ---------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            while True:
                try:
                    job = self._jobs.get(timeout=self.idle if self.engine is not None else None)
                except queue.Empty:
                    self._end_engine()   # idle: the process goes, the next job starts another
                    continue
                if job is None:
                    break
                if job.token != self._token:
                    continue
                try:
                    self._do(job)
                except EngineError as exc:
                    self._end_engine()
                    if job.token == self._token:
                        self.post(Outcome(job, error=f"the engine failed: {exc}"))
                except Exception as exc:  # noqa: BLE001 - the thread must live and tell the page
                    self._end_engine()
                    self.post(Outcome(job, error=f"the engine failed: {type(exc).__name__}: {exc}"))
        finally:
            self._end_engine()

    def _client(self) -> EngineClient:
        if self.engine is None or not self.engine.alive:
            self._end_engine()
            self.engine = EngineClient.popen(self.command, timeout=START_TIMEOUT,
                                             options=self.options or None, name="othello_engine")
            self.starts += 1
        return self.engine

    def _end_engine(self) -> None:
        engine, self.engine = self.engine, None
        if engine is not None:
            try:
                engine.close()
            except Exception:  # noqa: BLE001 - closing is best effort; the process is reaped anyway
                pass

    def _search(self, job: Job, board: Board, multipv: int) -> Optional[Any]:
        """One search of board; None if the job was cancelled before it ended."""
        engine = self._client()
        stream = engine.analysis(board, job.limit, multipv)
        with self._lock:
            self._stream = stream
            cancelled = job.token != self._token
        if cancelled:
            stream.stop()
        try:
            with stream:
                timeout = None if job.limit.time is None else job.limit.time + engine.search_slack
                result = stream.wait(timeout)
        finally:
            with self._lock:
                self._stream = None
        return None if job.token != self._token else result

    def _do(self, job: Job) -> None:
        if job.kind == "move":
            board = job.boards[0]
            result = self._search(job, board, 1)
            if result is not None:
                self.post(Outcome(job, move=result.move, score=_black_score(result.info, board)))
        elif job.kind == "hint":
            board = job.boards[0]
            k = max(1, min(MAX_MULTIPV, len(board.legal_moves())))
            result = self._search(job, board, k)
            if result is not None:
                hints = {square_name(info.move, board.size): info.score / 100
                         for info in result.lines if info.move is not None and info.score is not None}
                self.post(Outcome(job, hints=hints))
        elif job.kind == "analyze":
            last = len(job.boards) - 1
            for i, (ply, board) in enumerate(zip(job.plies, job.boards)):
                result = self._search(job, board, 1)
                if result is None:
                    return
                self.post(Outcome(job, score=_black_score(result.info, board), ply=ply,
                                  done=i == last))
            if not job.boards:
                self.post(Outcome(job, done=True))


def _black_score(info: Any, board: Board) -> Optional[float]:
    """An info's score (centi-discs for the side to move) in discs for Black."""
    if info is None or info.score is None:
        return None
    score = info.score / 100
    return score if board.turn == BLACK else -score
