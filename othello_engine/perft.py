"""Perft: leaf counts of the game tree below a position, per root move, timed."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Optional

from othello_engine.board import PASS, Board, perft_count, play_move


@dataclass(frozen=True)
class PerftResult:
    """Leaves below a position at some depth, split by root move (in square order)."""

    depth: int
    total: int
    per_move: tuple[tuple[int, int], ...]
    seconds: float
    stopped: bool = False
    """True when ``stop`` ended the count: total and per_move then hold the root moves finished."""

    @property
    def leaves_per_second(self) -> float:
        return self.total / self.seconds if self.seconds > 0 else float("inf")


def perft(board: Board, depth: int, bulk: bool = False, divide: bool = True,
          on_move: Optional[Callable[[int, int], None]] = None,
          stop: Optional[bytearray] = None) -> PerftResult:
    """Count the leaves below board at depth plies (a pass is a ply only when the opponent can move;
    a finished game is one leaf); with divide, count each root move's subtree apart (and pass
    each ``(move, count)`` to ``on_move`` as soon as it is known). Another thread may end the
    count at once by setting ``stop[0] = 1`` (stop: a ``bytearray(1)``); the result says so.

    >>> from othello_engine.board import square_name
    >>> r = perft(Board(), 3)
    >>> r.total, [(square_name(m), n) for m, n in r.per_move]
    (56, [('d3', 14), ('c4', 14), ('f5', 14), ('e6', 14)])
    """
    if depth < 0:
        raise ValueError(f"perft depth {depth} must be >= 0")
    P, O, size = board.player, board.opponent, board.size
    start = time.perf_counter()
    per_move: list[tuple[int, int]] = []
    stopped = False
    if not divide or depth == 0 or board.is_game_over():
        total = perft_count(P, O, depth, size, bulk, stop)
        stopped = stop is not None and bool(stop[0])
        if stopped:
            total = 0
    else:
        moves = board.legal_moves() or [PASS]
        for move in moves:
            p, o = play_move(P, O, move, size)
            n = perft_count(p, o, depth - 1, size, bulk, stop)
            if stop is not None and stop[0]:
                stopped = True
                break       # this move's count is partial: leave it out
            per_move.append((move, n))
            if on_move is not None:
                on_move(move, n)
        total = sum(n for _, n in per_move)
    # A stop that comes after the last root move was counted leaves a whole count: not stopped.
    return PerftResult(depth, total, tuple(per_move), time.perf_counter() - start, stopped)
