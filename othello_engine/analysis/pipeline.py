"""The analysis run: input lines read ahead, positions spread over engine slots, records in input order.

:func:`analyse_lines` is the whole analysis as a generator of records. Engine slots are local
workers (threads, :mod:`othello_engine.analysis.runner`) or, with a cluster address, Ray actors
(:mod:`othello_engine.analysis.remote`, imported only then).
"""

from __future__ import annotations

import itertools
import queue
import threading
from typing import Callable, Generator, Optional, Sequence

from othello_engine.analysis.inputs import (MAX_ECHO, MAX_LINE, InputError, Source, clip_input,
                                            detect_format, parse_line)
from othello_engine.analysis.records import Record, ResumeError
from othello_engine.analysis.runner import Task, Worker, WorkerSpec, analyse_task, start_workers
from othello_engine.client import Limit

READ_AHEAD = 512
"""Positions read ahead of the output at most (the input is not read further until the output
catches up), so that an endless or huge input takes bounded memory."""

Consumer = Callable[["queue.Queue[Optional[Task]]", Callable[[int, Record], None],
                     Callable[[], bool]], None]
"""A consumer of positions: takes tasks off the queue until None (or halt()), publishes each
record under its index."""


def analyse_lines(sources: Sequence[Source], limit: Limit, *, spec: Optional[WorkerSpec] = None,
                  multipv: int = 1, jobs: int = 1, fmt: str = "auto",
                  timeout: Optional[float] = None,
                  on_progress: Optional[Callable[[int, Optional[int]], None]] = None,
                  skip: int = 0, last_line: Optional[int] = None,
                  cluster: Optional[str] = None, size: int = 8,
                  empties: Optional[int] = None) -> Generator[Record, None, None]:
    """Analyse every position of the input lines with ``jobs`` engine processes and yield the
    records in input order (a GGF game gives one record per move). Blank lines and lines
    starting with ``#`` are skipped. on_progress(done, total) is called as positions finish
    (total is None until all input is read). Engines are started first: EngineError if that
    fails (before any record is yielded). ``skip``: the first records are already written (an
    earlier run); they are neither analysed nor yielded; ``last_line``: the input line of the
    last of them, checked (ResumeError from the reader if the input differs). ``cluster``: a Ray address (see
    :mod:`othello_engine.cluster`); the positions then go to its workers in batches, ``jobs``
    engines at once (1: one per CPU of the cluster). ``size``: the board of move-list lines (the
    other formats say their own size). ``empties``: of a game, only its position with that many
    empty squares (an error record when it has none)."""
    spec = spec or WorkerSpec()
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    if cluster is not None:
        # only on request: the adapter brings the cluster module (and that, Ray)
        from othello_engine.analysis.remote import AnalysisRunner
        portable = WorkerSpec(spec.command, spec.protocol, dict(spec.options))  # no local stderr
        runner = AnalysisRunner(portable, limit, multipv, timeout, address=cluster,
                                slots=None if jobs == 1 else jobs)
        return _run(sources, [runner.consume], [], fmt, on_progress, skip, last_line, size, empties)
    workers = start_workers(spec, jobs)

    def consumer(worker: Worker) -> Consumer:
        def work(tasks: queue.Queue[Optional[Task]], publish: Callable[[int, Record], None],
                 halt: Callable[[], bool]) -> None:
            while True:
                task = tasks.get()
                if task is None or halt():
                    return
                publish(task.index, analyse_task(worker, task, limit, multipv, timeout))
        return work

    return _run(sources, [consumer(w) for w in workers], [w.close for w in workers], fmt,
                on_progress, skip, last_line, size, empties)


def _run(sources: Sequence[Source], consumers: list[Consumer], closers: list[Callable[[], None]],
         fmt: str, on_progress: Optional[Callable[[int, Optional[int]], None]], skip: int = 0,
         last_line: Optional[int] = None, size: int = 8,
         empties: Optional[int] = None) -> Generator[Record, None, None]:
    tasks: queue.Queue[Optional[Task]] = queue.Queue()
    board = _ResultBoard(skip, max(READ_AHEAD, 32 * len(consumers)))  # room for every slot

    def check_resume(index: int, number: int) -> None:
        if index == skip - 1 and last_line is not None and number != last_line:
            raise ResumeError(f"the output does not match the input: its record {skip} is of line "
                              f"{last_line}, the input gives line {number}")

    def feed() -> None:
        index = 0
        try:
            for name, lines in sources:
                for number, raw in enumerate(lines, 1):
                    if not board.wait_room(index):  # read ahead only so far: memory stays bounded
                        return
                    text = raw.rstrip("\r\n")
                    if not text.strip() or text.lstrip().startswith("#"):
                        continue
                    try:
                        length = getattr(raw, "length", len(text))
                        if length > MAX_LINE:
                            raise InputError(f"line of {length} bytes is longer than the "
                                             f"{MAX_LINE} bytes a line may have: not read")
                        if getattr(raw, "error", None):     # a bad game of a database
                            raise InputError(raw.error)
                        found, positions = parse_line(text, fmt, size)
                        if empties is not None and found == "ggf":
                            positions = [p for p in positions if p.board.empties == empties][:1]
                            if not positions:
                                raise InputError(f"the game has no position with {empties} empties "
                                                 "before a move")
                    except Exception as exc:  # a bad line is one error record, never the end
                        detected = detect_format(text[:MAX_ECHO]) if fmt == "auto" else fmt
                        why = str(exc) if isinstance(exc, InputError) else f"internal error: {exc!r}"
                        check_resume(index, number)
                        if index >= skip:
                            board.publish(index, Record(
                                file=name, line=number, input=clip_input(text),
                                format=None if detected == "unknown" else detected, error=why))
                        index += 1
                        continue
                    for pos in positions:
                        check_resume(index, number)
                        if index >= skip:
                            tasks.put(Task(index, name, number, text, found, pos))
                        index += 1
        except (OSError, UnicodeError) as exc:
            board.publish(index, Record(file="?", line=0, input="",
                                        error=f"cannot read input: {exc}"))
            index += 1
        except ResumeError as exc:
            board.fail(exc)
        finally:
            if 0 < index < skip and last_line is not None:  # the input is shorter than the output
                board.fail(ResumeError(f"the output does not match the input: it holds {skip} "
                                       f"records, the input gives {index}"))
            board.finish(index)
            for _ in consumers:
                tasks.put(None)

    def consume(consumer: Consumer) -> None:
        try:
            consumer(tasks, board.publish, lambda: board.stopped)
        except BaseException as exc:  # e.g. a cluster that fails: the reader raises it
            board.fail(exc)

    threads = [threading.Thread(target=feed, name="analyze-input", daemon=True)]
    threads += [threading.Thread(target=consume, args=(c,), name=f"analyze-{i}", daemon=True)
                for i, c in enumerate(consumers)]
    for t in threads:
        t.start()
    try:
        for index in itertools.count(skip):
            record = board.take(index, on_progress)
            if record is None:
                return
            yield record
    finally:
        board.stopped = True
        for close in closers:
            close()  # also ends a search in progress: its process is gone
        for _ in consumers:
            tasks.put(None)
        for t in threads[1:]:
            t.join(timeout=5)


class _ResultBoard:
    """Where workers leave records and the reader takes them in input order (from index skip)."""

    def __init__(self, skip: int = 0, window: int = READ_AHEAD) -> None:
        self.cond = threading.Condition()
        self.results: dict[int, Record] = {}
        self.done = skip
        self.total: Optional[int] = None
        self.stopped = False
        self.taken = skip           # the read-ahead window counts from the first record not yet written
        self.window = window
        self.error: Optional[BaseException] = None

    def wait_room(self, index: int) -> bool:
        """Block the reader while index is window positions ahead of the consumer; False once
        the run is stopped."""
        with self.cond:
            while not self.stopped and index - self.taken >= self.window:
                self.cond.wait(0.2)
            return not self.stopped

    def fail(self, exc: BaseException) -> None:
        with self.cond:
            self.error = exc
            self.cond.notify_all()

    def publish(self, index: int, record: Record) -> None:
        with self.cond:
            self.results[index] = record
            self.done += 1
            self.cond.notify_all()

    def finish(self, total: int) -> None:
        with self.cond:
            self.total = total
            self.cond.notify_all()

    def take(self, index: int, on_progress: Optional[Callable[[int, Optional[int]], None]]
             ) -> Optional[Record]:
        """The record at index, waiting for it; None after the last one."""
        with self.cond:
            while True:
                if self.error is not None:
                    raise self.error
                if index in self.results or (self.total is not None and index >= self.total):
                    break
                self.cond.wait(0.2)
                if on_progress is not None:
                    on_progress(self.done, self.total)
            record = self.results.pop(index, None)
            self.taken = index + 1
            self.cond.notify_all()
            done, total = self.done, self.total
        if on_progress is not None:
            on_progress(done, total)
        return record
