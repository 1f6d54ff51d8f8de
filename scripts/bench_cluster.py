"""Ray against the local path: per-task overhead and throughput of matches and analysis.

Prints (with the load average next to each figure):
  * Ray start-up (``--cluster local``) and the round trip of one task through a slot actor,
    carrying a game's payload (a scheduled game in, a GameResult out) and a batch of positions
    (tasks in, records out), with no engine work: the overhead per game and per position;
  * a match of --games games between fast engines (depth 1 and 2): local ``--concurrency N``
    against ``--cluster local`` with N slots (games/s, ms per game);
  * --positions analysed positions (depth --depth): local ``--jobs N`` against ``--cluster local``
    (positions/s, ms per position).
Needs Ray (pip install 'othello_engine[cluster]').

    python scripts/bench_cluster.py [--games 200] [--positions 2000] [--slots 2]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pickle
import random
import sys
import time

from othello_engine import analysis, cluster, match
from othello_engine.analysis import remote as analysis_remote
from othello_engine.client import Limit
from othello_engine.board import Board, random_moves, square_name
from othello_engine.cli import match as match_cli


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def random_lines(count: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        moves = random_moves(Board(), rng.randint(1, 50), rng)
        lines.append("".join(square_name(move) for move in moves) + "\n")
    return lines


def _echo(payload: object) -> object:
    return payload


def overhead(slots: int, n: int, payload: object) -> float:
    """Seconds per task of a round trip through the slot actors (no work), all slots busy."""
    pool = cluster.Pool(slots)
    try:
        list(pool.run(_echo, [payload] * (2 * slots), depth=2))  # actors up and warm
        t0 = time.perf_counter()
        for _ in pool.run(_echo, [payload] * n, depth=2):
            pass
        return (time.perf_counter() - t0) / n
    finally:
        pool.close()


def driver_cost(lines: list[str], records: list[analysis.Record], game: match.GameResult) -> tuple[float, float]:
    """Seconds of the driver's own serial work per position (read the line, pickle the task,
    unpickle the record, write it as JSON) and per game (unpickle the result, count it, write GGF)."""
    sink = open(os.devnull, "w")
    writer = analysis.JsonWriter(sink)
    n = 0
    t0 = time.perf_counter()
    for k, text in enumerate(lines):
        fmt, positions = analysis.parse_line(text.strip())
        for pos in positions:
            pickle.loads(pickle.dumps(analysis.Task(k, "bench", k + 1, text, fmt, pos)))
            writer.write(pickle.loads(pickle.dumps(records[n % len(records)])))
            n += 1
    per_position = (time.perf_counter() - t0) / n
    stats = match.PairingStats(game.black, game.white)
    t0 = time.perf_counter()
    for _ in range(2000):
        g = pickle.loads(pickle.dumps(game))
        stats.add(g)
        sink.write(g.ggf + "\n")
        sink.flush()
    per_game = (time.perf_counter() - t0) / 2000
    sink.close()
    return per_position, per_game


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--depth", type=int, default=2, help="analysis depth (default 2)")
    ap.add_argument("--slots", type=int, default=2, help="local --jobs/--concurrency and Ray slots")
    args = ap.parse_args()
    cluster.check_available()

    t0 = time.perf_counter()
    cluster.connect("local", num_cpus=args.slots)
    print(f"Ray start-up (--cluster local, {args.slots} CPUs): {time.perf_counter() - t0:.2f} s  "
          f"[{load()}]", flush=True)

    engine = f"{sys.executable} -P -m othello_engine"
    config, _ = match_cli.config_from_argv(
        ["--engine", f"cmd={engine}", "name=d1", "depth=1", "--engine", f"cmd={engine}", "name=d2",
         "depth=2", "--games", str(args.games), "--concurrency", str(args.slots)])

    sample = match.run_match(dataclasses.replace(config, games=2, concurrency=1))
    game_payload = (config.schedule()[0], sample.games[0])
    lines = random_lines(args.positions)
    tasks = []
    for i, text in enumerate(lines[:analysis_batch()]):
        fmt, positions = analysis.parse_line(text.strip())
        tasks.append(analysis.Task(i, "bench", i + 1, text.strip(), fmt, positions[0]))
    records = list(analysis.analyse_lines([("bench", lines[:analysis_batch()])],
                                          Limit(depth=args.depth)))
    per_game = overhead(args.slots, 400, game_payload)
    per_batch = overhead(args.slots, 200, (tasks, records))
    print(f"round trip per task, {args.slots} slots busy: game {1000 * per_game:.2f} ms; batch of "
          f"{analysis_batch()} positions {1000 * per_batch:.2f} ms = "
          f"{1000 * per_batch / analysis_batch():.3f} ms per position  [{load()}]", flush=True)

    per_position, per_game = driver_cost(lines[:500], records, sample.games[0])
    print(f"driver's serial work: {1000 * per_position:.3f} ms per position (parse, pickle, write "
          f"JSON), {1000 * per_game:.3f} ms per game (unpickle, count, write GGF)  [{load()}]",
          flush=True)

    for label, where in (("local --concurrency", None), ("--cluster local, slots", "local")):
        arrivals: list[float] = []
        t0 = time.perf_counter()
        result = match.run_match(config, cluster=where,
                                 on_game=lambda g, r: arrivals.append(time.perf_counter()))
        dt = time.perf_counter() - t0
        assert len(result.games) == args.games
        print(f"match {args.games} games d1 vs d2, {label} {args.slots}: {dt:.2f} s, "
              f"{args.games / dt:.1f} games/s, {1000 * dt / args.games:.1f} ms per game; first game "
              f"after {arrivals[0] - t0:.2f} s  [{load()}]", flush=True)

    limit = Limit(depth=args.depth)
    for label, where in (("local --jobs", None), ("--cluster local, slots", "local")):
        t0 = time.perf_counter()
        n, first_record = 0, 0.0
        for _ in analysis.analyse_lines([("bench", lines)], limit, jobs=args.slots, cluster=where):
            n += 1
            first_record = first_record or time.perf_counter() - t0
        dt = time.perf_counter() - t0
        print(f"analysis {n} positions depth {args.depth}, {label} {args.slots}: {dt:.2f} s, "
              f"{n / dt:.0f} positions/s, {1000 * dt / n:.2f} ms per position; first record after "
              f"{first_record:.2f} s  [{load()}]", flush=True)
    cluster.shutdown()
    return 0


def analysis_batch() -> int:
    return analysis_remote.ANALYSIS_BATCH


if __name__ == "__main__":
    sys.exit(main())
