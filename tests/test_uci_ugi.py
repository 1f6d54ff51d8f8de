"""The UGI dialect, driven exactly as the cutegames match runner drives it, and clock play to game end."""

from __future__ import annotations

import time
from typing import Optional

import pytest

from uci_support import EngineProcess, Ref


class Runner:
    """Replays the cutegames runner's conversation (engine_ugi.cpp, play.cpp, ugigame.hpp): it
    reads only lines of the shapes it waits for and ignores the rest."""

    def __init__(self, e1: EngineProcess, e2: EngineProcess) -> None:
        self.engines = (e1, e2)
        for e in self.engines:
            e.send("ugi")
            e.until(lambda s: s == "ugiok")
            e.send("setoption name Hash value 8")   # it reads no reply
            e.send("setoption name MultiPV value 1")
            self.is_ready(e)

    @staticmethod
    def is_ready(e: EngineProcess) -> None:
        e.send("isready")
        e.until(lambda s: s == "readyok")

    @staticmethod
    def position(e: EngineProcess, start: str, history: list[str]) -> None:
        msg = "position startpos" if start == "startpos" else f"position fen {start}"
        if history:
            msg += " moves " + " ".join(history)
        e.send(msg)

    def response(self, e: EngineProcess, start: str, history: list[str], question: str) -> str:
        self.position(e, start, history)
        e.send(f"query {question}")
        lines, _ = e.until(lambda s: len(s.split()) == 2 and s.split()[0] == "response")
        return lines[-1].split()[1]

    def go(self, e: EngineProcess, command: str) -> tuple[str, float]:
        sent = e.send(command)
        lines, stamp = e.until(lambda s: len(s.split()) == 2 and s.split()[0] == "bestmove", 30)
        return lines[-1].split()[1], stamp - sent

    def play(self, start: str, tc: dict[str, int], ref: Ref) -> dict:
        e1, e2 = self.engines
        for e in self.engines:
            self.is_ready(e)
        for e in self.engines:
            e.send("uginewgame")
        history: list[str] = []
        clock = dict(tc)
        out_of_time: Optional[str] = None
        assert self.response(e1, start, history, "p1turn") == ("true" if ref.turn == "x" else "false")
        while True:
            p1 = self.response(e1, start, history, "p1turn") == "true"
            assert p1 == (ref.turn == "x")
            us = e1 if p1 else e2
            self.is_ready(us)
            self.position(us, start, history)
            if self.response(us, start, history, "gameover") == "true":
                break
            if "p1time" in clock:
                command = (f"go p1time {clock['p1time']} p2time {clock['p2time']} "
                           f"p1inc {clock['p1inc']} p2inc {clock['p2inc']}")
            else:
                command = "go " + " ".join(f"{k} {v}" for k, v in clock.items())
            move, dt = self.go(us, command)
            if "p1time" in clock:
                side = "p1" if p1 else "p2"
                clock[side + "time"] -= int(dt * 1000)
                if clock[side + "time"] <= 0:
                    out_of_time = side
                    break
                clock[side + "time"] += clock[side + "inc"]
            assert move in (ref.moves() or (["0000"] if ref.must_pass() else [])), (move, history)
            ref.play(move)
            history.append(move)
        results = []
        for e in self.engines:
            self.is_ready(e)
            self.position(e, start, history)
            results.append((self.response(e, start, history, "gameover"),
                            self.response(e, start, history, "result")))
        return {"history": history, "results": results, "clock": clock, "out_of_time": out_of_time}


@pytest.fixture(scope="module")
def runner():
    e1, e2 = EngineProcess(), EngineProcess()
    yield Runner(e1, e2)
    for e in (e1, e2):
        assert e.close() == 0
        assert not any(s.startswith("info string error") for s in e.seen), \
            [s for s in e.seen if "error" in s]
        assert b"Traceback" not in e.stderr, e.stderr.decode()


def test_clock_game_to_the_end(runner):
    """go p1time/p2time/p1inc/p2inc from startpos to game end: no time loss, the clock is used,
    both engines agree on gameover and result, and the result is the reference's."""
    ref = Ref()
    t = time.monotonic()
    game = runner.play("startpos", {"p1time": 2500, "p2time": 2500, "p1inc": 20, "p2inc": 20}, ref)
    assert game["out_of_time"] is None
    assert ref.game_over()
    assert game["results"] == [("true", ref.result())] * 2
    assert time.monotonic() - t < 15
    used = [2500 + 20 * 30 - game["clock"][k] for k in ("p1time", "p2time")]
    assert all(u > 500 for u in used), game["clock"]   # it thinks: at least 20% of its clock


@pytest.mark.parametrize("tc", [{"movetime": 20}, {"depth": 2}, {"nodes": 500}])
def test_fen_openings_and_fixed_limits(runner, tc):
    ref = Ref(6)
    for k in (0, 1, 0):  # a 6x6 opening, given as a FEN the way cutegames sends openings
        ref.play(ref.moves()[k])
    game = runner.play(ref.fen(), tc, ref)
    assert ref.game_over() and game["results"] == [("true", ref.result())] * 2


def test_passes_are_0000_both_ways(runner):
    """A 4x4 game has forced passes; the engines write them as 0000 and read them back."""
    for _ in range(2):
        ref = Ref(4)
        game = runner.play(Ref(4).fen(), {"movetime": 5}, ref)
        assert game["results"] == [("true", ref.result())] * 2
    # and always one explicit case: white to move on this 4x4 board has no move, black has
    pos = Ref.from_cells("XXXX" "XXXX" "XXOO" "----", "o")
    assert pos.must_pass()
    e = runner.engines[0]
    runner.position(e, pos.fen(), [])
    assert runner.go(e, "go depth 3")[0] == "0000"
    runner.position(e, pos.fen(), ["0000", "c4"])
    e.send("query p1turn")
    assert e.until(lambda s: s.startswith("response"))[0][-1] == "response false"
