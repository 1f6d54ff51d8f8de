"""Running a step's numbered work items in order: local processes or Ray, a progress bar, each process's engine."""

from __future__ import annotations

import multiprocessing
import signal
import sys
from typing import IO, Any, Callable, Iterable, Optional, Sequence

PROGRESS_MIN_SECONDS = 0.5

_ENGINE = None


def process_engine(evaluation: str, weights: Optional[str], size: int = 8) -> Any:
    """This process's engine (made once, reused for every work item), set to this item's
    evaluation and weights of a size x size board (a step run after another in the same process
    gets its own)."""
    global _ENGINE
    from othello_engine import weights as weights_mod
    if weights and size == 8 and weights_mod.loaded_path != weights:
        weights_mod.load(weights)
    elif weights and size != 8 and weights_mod.loaded_paths.get(size) != weights:
        weights_mod.load(weights, size)
    if _ENGINE is None:
        from othello_engine.engine import Engine
        _ENGINE = Engine(hash_mb=16)
    _ENGINE.evaluation_kind = evaluation
    return _ENGINE


def progress_bar(total: int, initial: int, desc: str, enabled: bool) -> Any:
    """A tqdm bar on stderr when tqdm is installed (it is in the train extra), else None."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, initial=initial, desc=desc, unit="it", file=sys.stderr,
                mininterval=PROGRESS_MIN_SECONDS, dynamic_ncols=True)


def run_ordered(func: Callable, items: Sequence, out: IO[str], jobs: int, desc: str,
                done: int, total: int, quiet: bool, chunksize: int = 4,
                cluster: Optional[str] = None) -> int:
    """Apply func to every item (in jobs processes when jobs > 1; with ``cluster``, a Ray address,
    on every CPU of that cluster, see :mod:`othello_engine.cluster`) and write each returned text
    to out in item order as soon as it and all before it are ready. Returns the items written."""
    bar = progress_bar(total, done, desc, not quiet)
    written = 0
    pool = None
    results: Iterable = ()
    try:
        if cluster is not None:
            from othello_engine import cluster as ray_cluster  # Ray is imported only on request
            results = ray_cluster.imap_ordered(func, items, cluster)
        elif jobs > 1:
            ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
            pool = ctx.Pool(jobs, initializer=_worker_init)
            results = pool.imap(func, items, chunksize=chunksize)
        else:
            results = map(func, items)
        for text in results:
            out.write(text)
            out.flush()
            written += 1
            if bar is not None:
                bar.update(1)
        if pool is not None:
            pool.close()
            pool.join()
    finally:
        if pool is not None:
            pool.terminate()
        if cluster is not None:
            results.close()  # type: ignore[attr-defined]  # ends the slot actors now
        if bar is not None:
            bar.close()
    return written


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent handles Ctrl-C and ends the pool
