"""Benchmark: midgame search speed (nodes per second), depth reached in a fixed time, time to a fixed depth."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--positions", type=int, default=10, help="number of positions (default 10)")
    ap.add_argument("--time", type=float, default=1.0, help="seconds per position (default 1)")
    ap.add_argument("--depth", type=int, default=11, help="fixed depth to time (default 11)")
    ap.add_argument("--hash", type=int, default=64, help="table MiB (default 64)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--eval", dest="evaluation", choices=("pattern", "classic"), default="pattern",
                    help="evaluation searched with (default pattern: the shipped weights)")
    ap.add_argument("--weights", help="pattern weights file (default: the shipped one)")
    ap.add_argument("--tune", action="append", default=[], metavar="NAME=VALUE",
                    help="experiments: set a midgame tuning parameter (_core._set_mid_tuning)")
    args = ap.parse_args(argv)
    for item in args.tune:
        name, _, value = item.partition("=")
        _core._set_mid_tuning(name, int(value))
    pattern = args.evaluation == "pattern"
    if pattern:
        if args.weights:
            weights.load(args.weights)
        elif not weights.ensure_loaded():
            print(weights.load_error, file=sys.stderr)
            return 2
    boards = midgame_positions(args.positions, args.seed)
    search = _core.Search(args.hash)
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


if __name__ == "__main__":
    sys.exit(main())
