"""Analysing one position on an engine process: the Task, the Worker (engine and retry policy), its spec.

A :class:`Worker` owns one engine process started from a :class:`WorkerSpec`; :func:`analyse_task`
is the work of one engine slot, locally (a thread) or on a cluster (an actor): one :class:`Task`
in, one :class:`Record` out, never an exception.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import IO, Any, Mapping, Optional, Sequence

from othello_engine.analysis.inputs import Position, clip_input
from othello_engine.analysis.records import Record, final_record, make_record
from othello_engine.board import PASS, square_name
from othello_engine.client import (EngineClient, EngineError, EngineTerminatedError, EngineTimeoutError,
                                   Limit, python_command)

DEFAULT_ENGINE = python_command()
"""The engine command when none is given: this package's engine, in this interpreter, with the
working directory off the path."""


@dataclass(frozen=True)
class Task:
    """One position to analyse: its place in the output (index) and where it came from."""

    index: int
    file: str
    line: int
    text: str
    fmt: str
    pos: Position


@dataclass(frozen=True)
class WorkerSpec:
    """How to start an analysis engine: its command line, protocol, options, and where its
    stderr goes (None: the default; not picklable to a cluster, so set only locally)."""

    command: Sequence[str] = field(default_factory=lambda: list(DEFAULT_ENGINE))
    protocol: str = "uci"
    options: Mapping[str, Any] = field(default_factory=dict)
    stderr: Optional[IO[str]] = None

    def start(self) -> EngineClient:
        return EngineClient.popen(self.command, self.protocol, options=self.options, stderr=self.stderr)


class Worker:
    """One engine process and the retry policy around it (engine None: started at the first
    position)."""

    def __init__(self, spec: WorkerSpec, engine: Optional[EngineClient] = None) -> None:
        self.spec = spec
        self.engine: Optional[EngineClient] = engine
        self.closed = False

    def restart(self) -> None:
        if self.engine is not None:
            self.engine.close()
        self.engine = None
        if self.closed:
            raise EngineTerminatedError("the analysis was stopped")
        self.engine = self.spec.start()

    def close(self) -> None:
        self.closed = True
        if self.engine is not None:
            self.engine.close()
            self.engine = None

    def analyse(self, task: Task, limit: Limit, multipv: int, timeout: Optional[float]) -> Record:
        pos = task.pos
        board = pos.board
        if board.is_game_over():
            return final_record(task.file, task.line, task.text, task.fmt, pos)
        flip = board.must_pass()
        if flip:
            board = board.copy()
            board.push(PASS)
        last_error: Optional[Exception] = None
        for attempt in (1, 2):
            try:
                if self.engine is None:
                    self.restart()
                assert self.engine is not None
                started = time.monotonic()
                result = self.engine.play(board, limit, multipv=multipv, timeout=timeout)
                return make_record(task.file, task.line, task.text, task.fmt, pos, result,
                                   time.monotonic() - started, flip)
            except EngineTerminatedError as exc:
                last_error = exc
                try:
                    self.restart()
                except EngineError as again:
                    return self.error(task, f"engine died ({exc}) and could not be restarted: "
                                             f"{again}")
            except EngineTimeoutError as exc:
                self._drop_if_hung()
                return self.error(task, str(exc))
            except EngineError as exc:
                return self.error(task, str(exc))
        return self.error(task, f"engine died twice on this position: {last_error}")

    def _drop_if_hung(self) -> None:
        """After a timeout: keep the engine only if it still answers; the next position gets a
        new one otherwise."""
        engine = self.engine
        if engine is None:
            return
        try:
            if engine.alive:
                engine.ping(timeout=2.0)
                return
        except EngineError:
            pass
        engine.process.kill()
        self.engine = None

    @staticmethod
    def error(task: Task, why: str) -> Record:
        return Record(file=task.file, line=task.line, input=clip_input(task.text), format=task.fmt,
                      ply=task.pos.ply, played=None if task.pos.played is None
                      else square_name(task.pos.played, task.pos.board.size), error=why)


def analyse_task(worker: Worker, task: Task, limit: Limit, multipv: int,
                 timeout: Optional[float]) -> Record:
    """One position's record from worker's engine; never raises (a bug gives an error record,
    so the position is not lost and the run does not hang). The work of one engine slot,
    locally (a thread) or on a cluster (an actor)."""
    try:
        return worker.analyse(task, limit, multipv, timeout)
    except Exception as exc:
        return Worker.error(task, f"internal error: {exc!r}")


def start_workers(spec: WorkerSpec, jobs: int) -> list[Worker]:
    """jobs workers, their engines started in parallel; EngineError (every started engine
    closed again) if one cannot start."""
    engines: list[Optional[EngineClient]] = [None] * jobs
    errors: list[Exception] = []

    def start(i: int) -> None:
        try:
            engines[i] = spec.start()
        except (EngineError, OSError, ValueError) as exc:
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(i,)) for i in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        for e in engines:
            if e is not None:
                e.close()
        raise EngineError(str(errors[0])) if not isinstance(errors[0], EngineError) else errors[0]
    return [Worker(spec, e) for e in engines if e is not None]
