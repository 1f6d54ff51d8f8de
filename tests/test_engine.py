"""Tests of the Engine object: background search, stop, wait, callbacks, limits, evaluation."""

from __future__ import annotations

import random
import threading
import time

import pytest

from othello_engine.board import PASS, Board
from othello_engine.engine import Engine, Limit, SearchInfo, SearchResult


def midgame(seed: int = 1, plies: int = 20) -> Board:
    rng = random.Random(seed)
    b = Board()
    for _ in range(plies):
        moves = b.legal_moves()
        b.push(rng.choice(moves) if moves else PASS)
    return b


class Done:
    """Collects on_done calls."""

    def __init__(self) -> None:
        self.results: list[SearchResult] = []
        self.event = threading.Event()
        self.at = 0.0

    def __call__(self, result: SearchResult) -> None:
        self.results.append(result)
        self.at = time.monotonic()
        self.event.set()


def test_stop_at_once_still_gives_one_legal_result() -> None:
    engine = Engine(hash_mb=4)
    b = midgame()
    for _ in range(5):
        done = Done()
        engine.start(b, Limit(infinite=True), on_done=done)
        engine.stop()
        result = engine.wait(2.0)
        assert done.event.wait(2.0)
        time.sleep(0.01)
        assert len(done.results) == 1 and done.results[0] is result
        assert result.best_move in b.legal_moves()


def test_deep_search_stops_within_50_ms() -> None:
    engine = Engine(hash_mb=16)
    b = midgame(2)
    infos: list[SearchInfo] = []
    done = Done()
    engine.start(b, Limit(infinite=True), on_info=infos.append, on_done=done)
    time.sleep(0.3)
    assert engine.is_searching
    t0 = time.monotonic()
    engine.stop()
    assert done.event.wait(1.0)
    assert done.at - t0 < 0.05
    assert not engine.is_searching
    result = done.results[0]
    assert result.best_move in b.legal_moves()
    assert infos and result.depth == infos[-1].depth


def test_move_time_is_kept() -> None:
    engine = Engine(hash_mb=4, move_overhead=0.01)
    t0 = time.monotonic()
    result = engine.search(midgame(3), Limit(time=0.25))
    spent = time.monotonic() - t0
    assert 0.1 < spent < 0.35
    assert result.depth >= 1


def test_wait_with_timeout_while_searching() -> None:
    engine = Engine(hash_mb=4)
    engine.start(midgame(4), Limit(infinite=True))
    assert engine.wait(0.05) is None and engine.is_searching
    engine.stop()
    assert engine.wait(1.0) is not None


def test_game_over_and_forced_pass_through_start() -> None:
    engine = Engine(hash_mb=4)
    over = Board.from_cells("X" * 64, "O")
    done = Done()
    engine.start(over, Limit(depth=3), on_done=done)
    assert done.event.wait(1.0)
    assert done.results[0].best_move is None and done.results[0].exact
    assert done.results[0].score == -6400       # white to move, all 64 discs black


def test_an_exception_in_on_info_still_ends_with_one_result(capsys) -> None:
    engine = Engine(hash_mb=4)
    b = midgame(5)

    def bad(info: SearchInfo) -> None:
        raise RuntimeError("boom")

    done = Done()
    engine.start(b, Limit(depth=4), on_info=bad, on_done=done)
    assert done.event.wait(2.0)
    time.sleep(0.01)
    assert len(done.results) == 1 and done.results[0].best_move in b.legal_moves()
    assert "boom" in capsys.readouterr().err


def test_options_and_new_game() -> None:
    engine = Engine(hash_mb=2)
    engine.set_hash(3)
    assert engine.hash_mb == 3
    engine.new_game()
    engine.contempt = 20
    b = midgame(6)
    r1 = engine.search(b, Limit(depth=6))
    engine.new_game()
    r2 = engine.search(b, Limit(depth=6))
    assert r1.best_move == r2.best_move and r1.score == r2.score   # deterministic from a clear table


def test_info_reports_increase_and_pv_starts_with_best_move() -> None:
    infos: list[SearchInfo] = []
    r = Engine(hash_mb=4).search(midgame(7), Limit(depth=7), on_info=infos.append)
    assert [i.depth for i in infos] == list(range(1, 8))
    assert all(i.seldepth >= i.depth for i in infos)
    assert r.pv[0] == r.best_move and len(r.pv) >= 1


def test_evaluation_dict() -> None:
    terms = Engine(hash_mb=1).evaluation(midgame(8))
    assert "total" in terms and all(isinstance(v, int) for v in terms.values())


@pytest.mark.parametrize("fields", [dict(depth=0), dict(depth=-3), dict(nodes=-5), dict(nodes=0),
                                    dict(nodes=2 ** 64), dict(time=float("nan")), dict(time=-1.0),
                                    dict(black_clock=float("inf")), dict(white_inc=-0.1),
                                    dict(moves_to_go=0), dict(depth=2.5), dict(depth=True)])
def test_a_bad_limit_is_refused_with_a_clear_error(fields: dict) -> None:
    from othello_engine.engine import InvalidLimitError
    with pytest.raises(InvalidLimitError, match=next(iter(fields))):
        Limit(**fields)


def test_good_limits_are_accepted() -> None:
    Limit(depth=1, nodes=1, time=0, black_clock=0.0, white_clock=12.5, black_inc=0, moves_to_go=1)
