"""Smoke tests: the package imports, the core builds, the engine finds a legal move."""

from othello_engine import _core
from othello_engine.board import Board
from othello_engine.engine import Engine, Limit


def test_perft_start_shallow():
    b = Board()
    assert [_core.perft(b.player, b.opponent, d) for d in range(1, 7)] == [4, 12, 56, 244, 1396, 8200]


def test_engine_returns_legal_move():
    b = Board()
    r = Engine(hash_mb=4).search(b, Limit(depth=3))
    assert r.best_move in b.legal_moves()
