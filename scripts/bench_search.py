"""Benchmark: midgame search speed (nodes per second), depth reached in a fixed time, time to a fixed depth."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import threading
import time
from typing import Callable

from othello_engine import _core, weights
from othello_engine.board import PASS, Board


def midgame_positions(count: int, seed: int, plies: tuple[int, int] = (18, 30)) -> list[Board]:
    """Reproducible middle-game positions: 6 random plies, then a depth-3 self-play."""
    rng = random.Random(seed)
    search = _core.Search(4)
    out: list[Board] = []
    while len(out) < count:
        b = Board()
        target = rng.randint(*plies)
        while len(b.move_stack) < target and not b.is_game_over():
            moves = b.legal_moves()
            if not moves:
                b.push(PASS)
            elif len(b.move_stack) < 6:
                b.push(rng.choice(moves))
            else:
                lines, _, _, _ = search.run(b.player, b.opponent, b.mask, 3)
                b.push(lines[0][0])
        if not b.is_game_over() and b.legal_moves():
            out.append(b)
    return out


def wide_positions(size: int, count: int, seed: int) -> list[tuple[int, int]]:
    """Reproducible middle-game positions (P, O) of a size x size board (9..26): seeded random
    play from the start until a third to a half of the board is filled, side to move able to
    move."""
    rng = random.Random(seed * 1000 + size)
    h = (size - 1) // 2
    out: list[tuple[int, int]] = []
    while len(out) < count:
        P = (1 << (h * size + h + 1)) | (1 << ((h + 1) * size + h))
        O = (1 << (h * size + h)) | (1 << ((h + 1) * size + h + 1))
        target = rng.randint(size * size // 3, size * size // 2)
        for _ in range(target):
            moves = _core.legal_moves_n(P, O, size)
            if not moves:
                if not _core.legal_moves_n(O, P, size):
                    break
                P, O = O, P
                continue
            squares = [i for i in range(size * size) if (moves >> i) & 1]
            P, O = _core.make_move_n(P, O, rng.choice(squares), size)
        if _core.legal_moves_n(P, O, size):
            out.append((P, O))
    return out


def bench_wide(args: argparse.Namespace) -> int:
    """Midgame nodes per second on a wide board: a fixed time and a fixed depth per position."""
    size = args.size
    search = _core.Search(args.hash, 1)
    rates, fixed = [], []
    depth_fixed = args.depth if args.depth_set else 6
    print(f"{size}x{size}, classic evaluation, 1 thread (Mnps by wall time; cpu: by the process's "
          f"CPU time, which a shared machine does not inflate)")
    print(f"{'pos':>3} {'emp':>3} | {'depth@' + str(args.time) + 's':>9} {'nodes':>10} {'Mnps':>6} "
          f"{'cpu':>6} | {'d' + str(depth_fixed) + ' time':>8} {'nodes':>10} {'Mnps':>6}")
    cpu_rates = []
    for i, (P, O) in enumerate(wide_positions(size, args.positions, args.seed), 1):
        empties = size * size - bin(P | O).count("1")
        search.clear()
        t0, c0 = time.perf_counter(), time.process_time()
        _, depth, nodes, _ = search.run_n(P, O, size, 60, 0, args.time, args.time, solve_lead=0)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        cpu_rates.append(nodes / dc)
        search.clear()
        t1 = time.perf_counter()
        _, _, nodes2, _ = search.run_n(P, O, size, depth_fixed, solve_lead=0)
        dt2 = time.perf_counter() - t1
        rates.append(nodes / dt)
        fixed.append(dt2)
        print(f"{i:>3} {empties:>3} | {depth:>9} {nodes:>10} {nodes / dt / 1e6:>6.2f} "
              f"{nodes / dc / 1e6:>6.2f} | "
              f"{dt2:>8.3f} {nodes2:>10} {nodes2 / dt2 / 1e6 if dt2 else 0:>6.2f}", flush=True)
    print(f"load {os.getloadavg()[0]:.1f}")
    print(f"mean {statistics.mean(rates) / 1e6:.2f} Mnps (median "
          f"{statistics.median(rates) / 1e6:.2f}; by cpu time: mean "
          f"{statistics.mean(cpu_rates) / 1e6:.2f}); depth {depth_fixed}: mean "
          f"{statistics.mean(fixed):.3f}s, max {max(fixed):.3f}s")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=int, default=8,
                    help="board size; 9..26 times the search on positions of that board (classic "
                         "evaluation, one thread, or --threads N,M at a fixed depth, 8 unless "
                         "--depth; default 8)")
    ap.add_argument("--positions", type=int, default=10, help="number of positions (default 10)")
    ap.add_argument("--time", type=float, default=1.0, help="seconds per position (default 1)")
    ap.add_argument("--depth", type=int, default=11, help="fixed depth to time (default 11)")
    ap.add_argument("--hash", type=int, default=64, help="table MiB (default 64)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", default="1", metavar="N[,M...]",
                    help="search threads; a list such as 1,2 times the fixed depth with each count "
                         "in turn and prints the speed-ups over the first (default 1)")
    ap.add_argument("--eval", dest="evaluation", choices=("pattern", "classic"), default="pattern",
                    help="evaluation searched with (default pattern: the shipped weights)")
    ap.add_argument("--weights", help="pattern weights file (default: the shipped one)")
    ap.add_argument("--swing", type=int, metavar="DEPTH",
                    help="instead: the mean change of the root score from each depth to the next, "
                         "up to DEPTH (the odd/even swing)")
    ap.add_argument("--tune", action="append", default=[], metavar="NAME=VALUE",
                    help="experiments: set a search tuning parameter (_core._set_tuning)")
    args = ap.parse_args(argv)
    args.depth_set = "--depth" in (argv if argv is not None else sys.argv)
    counts = [int(t) for t in args.threads.split(",")]
    if args.size != 8:
        if args.positions == 10:
            args.positions = 5
        if len(counts) > 1:
            size = args.size
            if not args.depth_set:
                args.depth = 8
            wide = [(P, O, size * size - bin(P | O).count("1"))
                    for P, O in wide_positions(size, args.positions, args.seed)]
            print(f"{size}x{size}, classic evaluation")
            return compare_threads(wide, args, counts, lambda search, P, O: search.run_n(
                P, O, size, args.depth, solve_lead=0)[2])
        return bench_wide(args)
    for item in args.tune:
        name, _, value = item.partition("=")
        _core._set_tuning(name, int(value))
    pattern = args.evaluation == "pattern"
    why = weights.use(args.weights) if pattern else None
    if why:
        print(why, file=sys.stderr)
        return 2
    boards = midgame_positions(args.positions, args.seed)
    if args.swing:
        return depth_swing(boards, args.swing, args.hash, pattern)
    if len(counts) > 1:
        return compare_threads([(b.player, b.opponent, b.empties) for b in boards], args, counts,
                               lambda search, P, O: search.run(P, O, (1 << 64) - 1, args.depth,
                                                               solve_lead=0, pattern=pattern)[2])
    search = _core.Search(args.hash, counts[0])
    depths, rates, fixed = [], [], []
    print(f"{'pos':>3} {'emp':>3} | {'depth@' + str(args.time) + 's':>9} {'nodes':>10} {'Mnps':>6} | "
          f"{'d' + str(args.depth) + ' time':>8} {'nodes':>10} {'Mnps':>6}")
    for i, b in enumerate(boards, 1):
        search.clear()
        t0 = time.perf_counter()
        _, depth, nodes, _ = search.run(b.player, b.opponent, b.mask, 60, 0, args.time, args.time,
                                        solve_lead=0, pattern=pattern)
        dt = time.perf_counter() - t0
        search.clear()
        t1 = time.perf_counter()
        _, _, nodes2, _ = search.run(b.player, b.opponent, b.mask, args.depth, solve_lead=0,
                                     pattern=pattern)
        dt2 = time.perf_counter() - t1
        depths.append(depth)
        rates.append(nodes / dt)
        fixed.append(dt2)
        print(f"{i:>3} {b.empties:>3} | {depth:>9} {nodes:>10} {nodes / dt / 1e6:>6.2f} | "
              f"{dt2:>8.3f} {nodes2:>10} {nodes2 / dt2 / 1e6 if dt2 else 0:>6.2f}", flush=True)
    print(f"evaluation {args.evaluation}" + "".join(f"; {t}" for t in args.tune) + f"; load {os.getloadavg()[0]:.1f}")
    print(f"mean {statistics.mean(rates) / 1e6:.2f} Mnps, depth in {args.time}s: median "
          f"{statistics.median(depths)}, min {min(depths)}; depth {args.depth}: mean "
          f"{statistics.mean(fixed):.3f}s, max {max(fixed):.3f}s")
    return 0


def depth_swing(boards: list[Board], max_depth: int, hash_mb: int, pattern: bool) -> int:
    """The odd/even swing: the mean (signed) and mean absolute change of the root score from each
    iteration depth to the next, over the positions."""
    search = _core.Search(hash_mb, 1)
    scores: list[dict[int, int]] = []
    for b in boards:
        search.clear()
        seen: dict[int, int] = {}

        def note(depth, _seldepth, _exact, _nodes, _elapsed, lines, seen=seen):
            seen[depth] = lines[0][1]
        search.run(b.player, b.opponent, b.mask, max_depth, solve_lead=0, pattern=pattern,
                   callback=note)
        scores.append(seen)
    print(f"{'depths':>8} {'positions':>9} {'mean':>7} {'mean abs':>8}   (discs, side to move)")
    for d in range(2, max_depth + 1):
        steps = [(s[d] - s[d - 1]) / 100.0 for s in scores if d in s and d - 1 in s]
        if steps:
            print(f"{d - 1:>3} -> {d:<2} {len(steps):>9} {statistics.mean(steps):>+7.2f} "
                  f"{statistics.mean(abs(x) for x in steps):>8.2f}")
    return 0


def parallel_capacity(threads: int, seconds: float = 2.0) -> float:
    """How many cores this process gets now: the throughput of `threads` independent perft counts
    (no shared data) over that of one. On a shared machine it is below `threads`, and no search can
    be faster with `threads` threads than this control."""
    P, O = 0x0000000810000000, 0x0000001008000000

    def rate(n: int) -> float:
        done = [0] * n
        stop = time.perf_counter() + seconds / 2

        def work(k: int) -> None:
            while time.perf_counter() < stop:
                _core.perft(P, O, 9, bulk=True)
                done[k] += 1
        workers = [threading.Thread(target=work, args=(k,)) for k in range(n)]
        t0 = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return sum(done) / (time.perf_counter() - t0)
    return rate(threads) / rate(1)


LONG_ENOUGH = 0.05
"""Seconds a position must take with the first thread count to enter the geometric mean."""


def compare_threads(positions: list[tuple[int, int, int]], args: argparse.Namespace,
                    counts: list[int], run: Callable[[_core.Search, int, int], int]) -> int:
    """Time to args.depth of every position (P, O, empties) with each thread count (run(search, P,
    O) searches it to that depth and returns the nodes); speed-ups over the first count and nodes
    per second per thread."""
    print(f"control: {max(counts)} independent perft threads run x{parallel_capacity(max(counts)):.2f} "
          f"as fast as one (the cores this process gets now)")
    searches = {t: _core.Search(args.hash, t) for t in counts}
    times: dict[int, list[float]] = {t: [] for t in counts}
    rates: dict[int, list[float]] = {t: [] for t in counts}
    print(f"{'pos':>3} {'emp':>3} " + " ".join(f"{f'{t}t d{args.depth} s':>10} {'nodes':>10} {'Mnps/t':>6}"
                                               for t in counts))
    for i, (P, O, empties) in enumerate(positions, 1):
        row = f"{i:>3} {empties:>3} "
        for t in counts:
            search = searches[t]
            search.clear()
            t0 = time.perf_counter()
            nodes = run(search, P, O)
            dt = time.perf_counter() - t0
            times[t].append(dt)
            rates[t].append(nodes / dt / t)
            row += f"{dt:>10.3f} {nodes:>10} {nodes / dt / t / 1e6:>6.2f} "
        print(row, flush=True)
    base = counts[0]
    # positions searched in less than LONG_ENOUGH s by the first count say little of the others:
    # the helper threads join an iteration only from its depth 6 on
    long_enough = [k for k, dt in enumerate(times[base]) if dt >= LONG_ENOUGH]
    for t in counts:
        total = sum(times[t])
        ratios = sorted(a / b for a, b in zip(times[base], times[t]))
        geo = (f", geometric mean x{statistics.geometric_mean(times[base][k] / times[t][k] for k in long_enough):.2f}"
               f" over the {len(long_enough)} of {LONG_ENOUGH:g} s or more" if long_enough else "")
        print(f"threads {t}: depth {args.depth} in {total:.2f} s total, "
              f"{statistics.mean(rates[t]) / 1e6:.2f} Mnps per thread"
              + ("" if t == base else f"; speed-up x{sum(times[base]) / total:.2f} over {base} "
                 f"(per position: median x{statistics.median(ratios):.2f}{geo}), nodes/s per thread "
                 f"{statistics.mean(rates[t]) / statistics.mean(rates[base]):.0%} of {base}"))
    if len(counts) > 1 and 2 * len(long_enough) < len(positions):
        print(f"note: most positions took under {LONG_ENOUGH:g} s with {base} thread(s), too short for "
              f"the helpers to show their speed-up; a larger --depth measures it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
