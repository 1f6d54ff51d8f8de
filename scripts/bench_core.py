#!/usr/bin/env python3
"""Benchmark of the compiled rules: perft(9) and perft(10) from the 8x8 start, with and without
bulk counting, plus what the board mask of smaller boards costs the 8x8 path; with --size N
(9..26), perft from the start of the N x N board instead. With --reversi, also the same perft with
the `reversi` library of GitHub y-tetsu/reversi (a Python package for boards of 4x4 to 26x26; not on
PyPI, so install it from its source, then the figures and the ratio are printed; skipped otherwise).

Prints the best of --repeat runs of each, as wall time and as the process's CPU time (the machine
is shared: the best run is the least disturbed one, and CPU time does not count the time spent
waiting for a core). Usage: python scripts/bench_core.py [--repeat N] [--size N [--depth D]]
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Callable

from othello_engine import _core
from othello_engine.board import Board

EXPECTED = {9: 3005288, 10: 24571284}


def best_time(fn: Callable[[], int], repeat: int, expected: int) -> tuple[float, float]:
    """(best wall time, best CPU time) of repeat runs of fn, which must return expected."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        n = fn()
        wall = min(wall, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
        if n != expected:
            raise SystemExit(f"wrong count {n}, expected {expected}")
    return wall, cpu


# perft depths timed by default on the wide boards (each takes a second or so)
WIDE_DEPTHS = {10: (8, 9), 12: (8, 9), 16: (8,), 26: (8,)}


def start_position(size: int) -> tuple[int, int]:
    """(P, O) of the standard start of a size x size board (9..26), black to move."""
    h = (size - 1) // 2
    black = (1 << (h * size + h + 1)) | (1 << ((h + 1) * size + h))
    white = (1 << (h * size + h)) | (1 << ((h + 1) * size + h + 1))
    return black, white


def bench_wide(size: int, depths: tuple[int, ...], repeat: int) -> None:
    """perft from the start of the size x size board: leaves per second, bulk on and off."""
    P, O = start_position(size)
    print(f"{size}x{size} board ({'2' if size <= 11 else '11'}-word kernels)")
    print(f"{'depth':>5} {'bulk':>5} {'leaves':>12} {'wall s':>8} {'cpu s':>8} {'leaves/s (cpu)':>15}")
    for bulk in (False, True):
        for depth in depths:
            expected = _core.perft_n(P, O, depth, size, bulk=True)
            wall, cpu = best_time(lambda: _core.perft_n(P, O, depth, size, bulk), repeat, expected)
            print(f"{depth:>5} {'on' if bulk else 'off':>5} {expected:>12} {wall:>8.3f} "
                  f"{cpu:>8.3f} {expected / cpu / 1e6:>14.1f}M")


def reversi_perft(board, color, other, depth: int) -> int:
    """Leaves of the game tree through the y-tetsu `reversi` board API, counted as _core.perft
    counts them (a pass is a ply only when the opponent can move; a finished game is one leaf)."""
    if depth == 0:
        return 1
    moves = board.get_legal_moves(color)
    if not moves:
        if not board.get_legal_moves(other):
            return 1
        return reversi_perft(board, other, color, depth - 1)
    total = 0
    for x, y in moves:
        board.put_disc(color, x, y)
        total += reversi_perft(board, other, color, depth - 1)
        board.undo()
    return total


def compare_reversi(size: int, depth: int, repeat: int) -> None:
    """perft(depth) from the start of a size x size board by the `reversi` library and by the core
    (without bulk counting, so both make every move), with the speed ratio."""
    try:
        import reversi
    except ImportError:
        print("reversi (y-tetsu/reversi) is not installed: no comparison")
        return
    board = reversi.BitBoard(size)
    black, white = reversi.C.black, reversi.C.white
    if size <= 8:
        P, O, mask = Board(size).player, Board(size).opponent, _core.board_mask(size)
        expected = _core.perft(P, O, depth, mask)
        ours = best_time(lambda: _core.perft(P, O, depth, mask), repeat, expected)[1]
    else:
        P, O = start_position(size)
        expected = _core.perft_n(P, O, depth, size)
        ours = best_time(lambda: _core.perft_n(P, O, depth, size), repeat, expected)[1]
    theirs = best_time(lambda: reversi_perft(board, black, white, depth), 1, expected)[1]
    print(f"{size}x{size} perft({depth}) = {expected}: reversi {type(board).__name__} "
          f"{expected / theirs / 1e3:.1f}k leaves/s, othello_engine {expected / ours / 1e6:.1f}M "
          f"leaves/s (cpu): {theirs / ours:,.0f} times faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--size", type=int, default=8, help="board size (8: the 8x8 figures)")
    parser.add_argument("--depth", type=int, action="append",
                        help="perft depth on a wide board (repeatable; default by size)")
    parser.add_argument("--reversi", type=int, metavar="DEPTH",
                        help="also time perft(DEPTH) with the y-tetsu reversi library, if installed")
    args = parser.parse_args()
    if args.reversi is not None:
        compare_reversi(args.size, args.reversi, args.repeat)
    if args.size != 8:
        depths = tuple(args.depth or WIDE_DEPTHS.get(args.size, (7,)))
        bench_wide(args.size, depths, args.repeat)
        print(f"load {os.getloadavg()[0]:.2f}")
        return
    b = Board()
    P, O, mask = b.player, b.opponent, b.mask
    print(f"{'depth':>5} {'bulk':>5} {'leaves':>10} {'wall s':>8} {'cpu s':>8} {'leaves/s (cpu)':>15}")
    for bulk in (False, True):
        for depth in (9, 10):
            wall, cpu = best_time(lambda: _core.perft(P, O, depth, mask, bulk), args.repeat,
                                  EXPECTED[depth])
            print(f"{depth:>5} {'on' if bulk else 'off':>5} {EXPECTED[depth]:>10} {wall:>8.3f} "
                  f"{cpu:>8.3f} {EXPECTED[depth] / cpu / 1e6:>14.1f}M")
    print("\nboard-mask cost on 8x8, perft(10), cpu s: masked kernel vs a copy with no mask at all")
    for bulk in (False, True):
        # alternate the two so that load changes hit both alike
        masked = frame = float("inf")
        for _ in range(args.repeat):
            masked = min(masked, best_time(lambda: _core.perft(P, O, 10, mask, bulk), 1, EXPECTED[10])[1])
            frame = min(frame, best_time(lambda: _core._perft_frame(P, O, 10, bulk), 1, EXPECTED[10])[1])
        print(f"  bulk {'on ' if bulk else 'off'}: masked {masked:.3f}, no mask {frame:.3f}, "
              f"difference {100 * (masked - frame) / frame:+.1f}%")


if __name__ == "__main__":
    main()
