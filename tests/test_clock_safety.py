"""Clock safety: whole games on short clocks, the engine process driven over pipes as a controller
drives it, the clocks kept by the test from its own wall-clock measurements; no side runs out and
no clock falls below the safety margin's reach."""

from __future__ import annotations

import math
import random

import pytest

from uci_support import EngineProcess, Ref


def whole_seconds(clock: float, rounding: str) -> int:
    """A clock as a whole-second GTP controller reports it: Quarry rounds to nearest
    (``floor(seconds_left + 0.5)``), othello-match and gogui drop the fraction."""
    return max(0, math.floor(clock + 0.5) if rounding == "nearest" else math.floor(clock))


def ref_moves(seed: int, plies: int) -> list[str]:
    """A random opening of `plies` moves (the reference rules pick them)."""
    rng = random.Random(seed)
    ref, out = Ref(), []
    for _ in range(plies):
        move = rng.choice(ref.moves())
        ref.play(move)
        out.append(move)
    return out


def gtp_answer(engine: EngineProcess, command: str, timeout: float) -> tuple[float, float, str]:
    """(when sent, when the answer arrived, its text) of a GTP command that must succeed."""
    sent = engine.send(command)
    lines, stamp = engine.until(lambda s: s.startswith("=") or s.startswith("?"), timeout)
    assert lines[-1].startswith("="), (command, lines[-1])
    engine.until(lambda s: s == "", timeout)
    return sent, stamp, lines[-1][1:].strip()


def play_gtp_game(base: int, rounding: str, seed: int) -> dict[str, float]:
    """One game of the engine against itself in GTP with ``time_settings base 0 0``; before each
    ``genmove`` the controller sends ``time_left`` of its own clock in whole seconds. Returns the
    lowest each side's clock fell to (when the move's answer arrived)."""
    engine = EngineProcess(["--gtp"])
    try:
        gtp_answer(engine, f"time_settings {base} 0 0", 10)
        ref = Ref()
        for move in ref_moves(seed, 4):
            gtp_answer(engine, f"play {'b' if ref.turn == 'x' else 'w'} {move}", 10)
            ref.play(move)
        clocks = {"x": float(base), "o": float(base)}
        lowest = dict(clocks)
        while not ref.game_over():
            side, colour = ref.turn, "b" if ref.turn == "x" else "w"
            gtp_answer(engine, f"time_left {colour} {whole_seconds(clocks[side], rounding)} 0", 10)
            sent, arrived, answer = gtp_answer(engine, f"genmove {colour}", base + 10)
            clocks[side] -= arrived - sent
            lowest[side] = min(lowest[side], clocks[side])
            assert clocks[side] > 0, f"{colour} lost on time: {clocks}"
            if answer.lower() == "pass":
                assert ref.must_pass()
                ref.play("pass")
            else:
                assert answer.lower() in ref.moves(), answer
                ref.play(answer)
        assert engine.close() == 0
        return lowest
    finally:
        if engine.proc.poll() is None:
            engine.proc.kill()


@pytest.mark.parametrize("rounding, seed", [("nearest", 1), ("nearest", 2), ("floor", 3)])
def test_a_gtp_game_on_a_whole_second_clock_is_never_lost_on_time(rounding: str, seed: int) -> None:
    """4 s each; Quarry's rounding reports up to half a second more than is left: the engine reads
    a whole-second report as what is surely left (timeman.reported_clock), so its clock never
    nears zero."""
    lowest = play_gtp_game(4, rounding, seed)
    assert min(lowest.values()) > 0.1, lowest


def play_uci_game(base: float, inc: float, seed: int) -> dict[str, float]:
    """One game of the engine against itself in the UCI-like protocol at base + inc; the clocks
    are the test's (from ``go`` sent to ``bestmove`` arrived). Returns the lowest each side's clock
    fell to, before the move's increment."""
    engine = EngineProcess()
    try:
        engine.ask("uci", lambda s: s == "uciok")
        engine.send("ucinewgame")
        engine.sync()
        ref, moves = Ref(), ref_moves(seed, 4)
        for move in moves:
            ref.play(move)
        clocks = {"x": base, "o": base}
        lowest = dict(clocks)
        while not ref.game_over():
            side = ref.turn
            engine.send("position startpos moves " + " ".join(moves))
            sent = engine.send(f"go btime {int(clocks['x'] * 1000)} wtime {int(clocks['o'] * 1000)} "
                               f"binc {int(inc * 1000)} winc {int(inc * 1000)}")
            lines, arrived = engine.until(lambda s: s.startswith("bestmove"), base + 10)
            clocks[side] -= arrived - sent
            lowest[side] = min(lowest[side], clocks[side])
            assert clocks[side] > 0, f"{side} lost on time after {len(moves)} plies"
            clocks[side] += inc
            move = lines[-1].split()[1]
            ref.play(move)
            moves.append(move)
        assert engine.close() == 0
        return lowest
    finally:
        if engine.proc.poll() is None:
            engine.proc.kill()


@pytest.mark.parametrize("seed", [1, 2])
def test_a_uci_game_at_one_second_and_20_ms_keeps_the_margin(seed: int) -> None:
    """1 s + 20 ms: the plan keeps a 0.1 s margin on the clock through every hard limit, the exact
    solve's too (plies 40-49), so the clock stays well above 50 ms (before: a third of the sides
    dipped below it)."""
    lowest = play_uci_game(1.0, 0.02, seed)
    assert min(lowest.values()) > 0.05, lowest
