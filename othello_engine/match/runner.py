"""Running a match: the schedule played by parallel engine slots (threads, or a Ray cluster).

Every engine is started once first; then each slot takes the next scheduled game, plays it with
its own players (:func:`othello_engine.match.referee.play_job`) and hands the result back, where
it is counted, checked against the SPRT and passed to the caller.
"""

from __future__ import annotations

import queue
import threading
from typing import Callable, Iterable, Optional

from othello_engine.client import DriverError, EngineFailure, Player
from othello_engine.match.config import Job, MatchConfig, MatchError
from othello_engine.match.records import GameResult
from othello_engine.match.referee import play_job, start_first
from othello_engine.match.report import MatchResult, PairingStats
from othello_engine.match.stats import sprt_pairs


def run_match(config: MatchConfig, on_game: Optional[Callable[[GameResult, MatchResult], None]] = None,
              stop: Optional[threading.Event] = None, *, done: Iterable[GameResult] = (),
              cluster: Optional[str] = None) -> MatchResult:
    """Play the match. Every engine is started once first: one that cannot start or finish its
    handshake raises MatchError before any game. ``on_game`` is called (under a lock) after each
    game. An SPRT verdict starts no new game (those in progress finish and count); setting
    ``stop`` aborts the games in progress after their current move (they are not counted).
    ``done``: games of an earlier run (see :func:`~othello_engine.match.records.read_finished_games`),
    counted and not played again. ``cluster``: a Ray address (see :mod:`othello_engine.cluster`);
    the games are then played by its workers, ``config.concurrency`` of them at once (0 or 1: one per CPU)."""
    stop = stop or threading.Event()
    result = MatchResult(config=config)
    result.pairings = [PairingStats(config.engines[i].name, config.engines[j].name)
                       for i, j in config.pairings()]
    lock = threading.Lock()
    no_more = threading.Event()

    def record(game: GameResult, old: bool = False) -> None:
        with lock:
            if game.termination == "aborted":
                return
            result.games.append(game)
            result.pairing_of(game.black, game.white).add(game, pair=config.pair_of(game.number))
            if config.sprt is not None and not no_more.is_set():  # the SPRT ends at its crossing
                p = result.pairings[0]
                result.sprt = sprt_pairs(p.pentanomial, config.sprt)
                if result.sprt.verdict and not no_more.is_set():
                    result.stopped_early = f"SPRT: {result.sprt.verdict} accepted"
                    no_more.set()  # games in progress still finish and count
            if on_game is not None and not old:
                on_game(game, result)

    for game in sorted(done, key=lambda g: g.number):
        record(game, old=True)
    finished = {g.number for g in result.games}
    todo = [job for job in config.schedule() if job[0] not in finished]
    if cluster is not None:
        # imported only on request: the cluster path is the only one that needs Ray
        from othello_engine.match.remote import play_match
        try:
            play_match(config, todo, address=cluster, record=record, stop=stop, no_more=no_more,
                       engine_ids=result.engine_ids, engine_evals=result.engine_evals)
        except KeyboardInterrupt:
            result.stopped_early = "interrupted"
            stop.set()
        return _finish(result, stop)
    first_pool: dict[str, Player] = {}
    try:
        for spec in config.engines:
            first_pool[spec.name] = start_first(spec, config)
            result.engine_ids[spec.name] = first_pool[spec.name].engine_id
            result.engine_evals[spec.name] = first_pool[spec.name].evaluation
    except MatchError:
        for p in first_pool.values():
            p.close()
        raise
    except (EngineFailure, DriverError) as exc:
        for p in first_pool.values():
            p.close()
        raise MatchError(str(exc)) from None
    jobs: queue.Queue[Job] = queue.Queue()
    for job in todo:
        jobs.put(job)
    n_workers = min(config.concurrency, jobs.qsize())

    def worker(pool: dict[str, Player]) -> None:
        try:
            while not stop.is_set() and not no_more.is_set():
                try:
                    job = jobs.get_nowait()
                except queue.Empty:
                    return
                record(play_job(config, pool, job, stop))
                for name, player in pool.items():  # an engine may fall back on this board size
                    if player.evaluation:
                        result.engine_evals[name] = player.evaluation
        finally:
            for p in pool.values():
                p.close()

    pools: list[dict[str, Player]] = [first_pool] + [{} for _ in range(max(0, n_workers - 1))]
    threads = [threading.Thread(target=worker, args=(pool,), daemon=True) for pool in pools]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.2)
    except KeyboardInterrupt:
        result.stopped_early = "interrupted"
        stop.set()
        for t in threads:
            t.join(10.0)
    return _finish(result, stop)


def _finish(result: MatchResult, stop: threading.Event) -> MatchResult:
    if stop.is_set() and not result.stopped_early:
        result.stopped_early = "stopped"
    result.games.sort(key=lambda g: g.number)
    return result

