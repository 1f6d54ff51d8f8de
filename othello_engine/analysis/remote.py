"""The analysis on a Ray cluster: engine slots as actors that analyse positions in batches.

The slot class and the task functions are module-level, since Ray pickles them by name; the pool
itself (actors, retries, a batch whose worker died analysed again) is
:class:`othello_engine.cluster.Pool`. Nothing here imports Ray: the pool does, when it is built.
"""

from __future__ import annotations

import queue
from typing import Any, Callable, Iterable, Iterator, Optional

from othello_engine.analysis.records import Record
from othello_engine.analysis.runner import Task, Worker, WorkerSpec, analyse_task
from othello_engine.client import Limit
from othello_engine.cluster import NOT_YET, Pool, cluster_cpus, connect

ANALYSIS_BATCH = 16
"""Positions per cluster task: enough to hide the per-task cost, few enough to balance the load."""


class AnalysisSlot:
    """One analysis slot: an engine process (started at the first position, restarted as the
    local path does) and the search settings."""

    def __init__(self, spec: WorkerSpec, limit: Limit, multipv: int,
                 timeout: Optional[float]) -> None:
        self.worker = Worker(spec)
        self.limit, self.multipv, self.timeout = limit, multipv, timeout

    def close(self) -> None:
        self.worker.close()


def slot_batch(slot: AnalysisSlot, tasks: list[Task]) -> list[tuple[int, Record]]:
    """Analyse a batch of positions on a slot: (index, record) of each."""
    return [(t.index, analyse_task(slot.worker, t, slot.limit, slot.multipv, slot.timeout))
            for t in tasks]


def slot_start(slot: AnalysisSlot, _: object) -> None:
    """Start this slot's engine: EngineError if it cannot start."""
    slot.worker.restart()


def batches(tasks: Iterable[Any], size: int) -> Iterator[Any]:
    """Consecutive tasks in lists of up to size; a partial list goes out when the input pauses.

    >>> list(batches([1, 2, 3, NOT_YET, NOT_YET, 4], 2))
    [[1, 2], [3], NOT_YET, [4]]
    """
    group: list[Any] = []
    for task in tasks:
        if task is NOT_YET:
            if group:
                yield group
                group = []
            else:
                yield NOT_YET
            continue
        group.append(task)
        if len(group) == size:
            yield group
            group = []
    if group:
        yield group


class AnalysisRunner:
    """The cluster half of :func:`othello_engine.analysis.analyse_lines`: :meth:`consume` takes
    the positions off the task queue in batches, has slot actors analyse them and publishes each
    record under its index; the local code keeps reading input and writing records in order."""

    def __init__(self, spec: WorkerSpec, limit: Limit, multipv: int, timeout: Optional[float],
                 address: str, slots: Optional[int] = None, batch: Optional[int] = None) -> None:
        connect(address)
        self.batch = batch or ANALYSIS_BATCH
        self.pool = Pool(slots or cluster_cpus(), AnalysisSlot, (spec, limit, multipv, timeout))
        try:  # an engine that cannot start fails before any record, as locally
            self.pool.call_on(0, slot_start, None)
        except BaseException:
            self.pool.close()
            raise

    def consume(self, tasks: queue.Queue[Optional[Task]], publish: Callable[[int, Record], None],
                halt: Callable[[], bool]) -> None:
        def queued() -> Iterator[Any]:
            while True:
                try:
                    task = tasks.get(timeout=0.01)
                except queue.Empty:
                    yield NOT_YET
                    continue
                if task is None:
                    return
                yield task

        pool = self.pool
        try:
            for _, records in pool.run(slot_batch, batches(queued(), self.batch), depth=2,
                                       halt=halt):
                for index, record in records:
                    publish(index, record)
        finally:
            pool.close()
