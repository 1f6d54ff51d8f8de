"""The match on a Ray cluster: engine slots as actors that keep their players between games.

The slot class and the task functions are module-level, since Ray pickles them by name; the pool
itself (actors, retries, a task whose worker died played again) is :class:`othello_engine.cluster.Pool`.
"""

from __future__ import annotations

from typing import Any, Callable

from othello_engine.cluster import Pool, cluster_cpus, connect
from othello_engine.client import DriverError, EngineFailure, Player
from othello_engine.match.config import Job, MatchConfig, MatchError
from othello_engine.match.records import GameResult
from othello_engine.match.referee import play_job, start_first


class MatchSlot:
    """One game slot: the players (engine processes) it keeps between games."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.pool: dict[str, Player] = {}

    def close(self) -> None:
        for player in self.pool.values():
            player.close()
        self.pool.clear()


def slot_game(slot: MatchSlot, job: Job) -> GameResult:
    """Play one scheduled game on a slot (its players started or restarted as needed)."""
    return play_job(slot.config, slot.pool, job)


def slot_start(slot: MatchSlot, _: object) -> dict[str, tuple[str, str]]:
    """Start every engine in this slot, as the local path does before the first game: the
    names they give themselves and their evaluations, or MatchError naming the first that
    cannot start."""
    for spec in slot.config.engines:
        try:
            slot.pool[spec.name] = start_first(spec, slot.config)
        except (EngineFailure, DriverError) as exc:
            raise MatchError(str(exc)) from None
    return {name: (player.engine_id, player.evaluation) for name, player in slot.pool.items()}


def play_match(config: MatchConfig, jobs: list[Job], *, address: str,
               record: Callable[[GameResult], None], stop: Any, no_more: Any,
               engine_ids: dict[str, str], engine_evals: dict[str, str]) -> None:
    """The cluster half of :func:`othello_engine.match.runner.run_match`: every engine is started
    once on a worker (MatchError if one cannot start), then the jobs are played by slot actors,
    ``config.concurrency`` at once (1: one per CPU of the cluster), and each finished game is
    passed to record. No game starts once no_more is set; stop drops the games in flight."""
    connect(address)
    slots = config.concurrency if config.concurrency > 1 else cluster_cpus()
    pool = Pool(max(1, min(slots, len(jobs))), MatchSlot, (config,))
    try:
        for name, (ident, evaluation) in pool.call_on(0, slot_start, None).items():
            engine_ids[name] = ident
            engine_evals[name] = evaluation
        todo = (job for job in jobs if not no_more.is_set())
        for _, game in pool.run(slot_game, todo, depth=1, halt=stop.is_set):
            record(game)
    finally:
        pool.close()
