"""6x6 solved exactly: endgames of 14 to 16 empties through the engine process (`go exact`, `go
wld`) and scripts/solve_6x6.py, checked against an exact solver over the reference rules."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

import reference_rules as ref
from uci_support import EngineProcess

ROOT = Path(__file__).resolve().parent.parent
SOLVE_6X6 = ROOT / "scripts" / "solve_6x6.py"
FILES = "abcdef"


def move_name(move: Optional[tuple[int, int]]) -> str:
    return "pass" if move is None else f"{FILES[move[1]]}{move[0] + 1}"


def endgame(empties: int, seed: int) -> tuple[list[str], ref.Grid, str]:
    """The moves of a seeded random 6x6 game up to a position with `empties` empty squares and a
    legal move for the side to move, and that position."""
    rng = random.Random(seed)
    while True:
        moves: list[str] = []
        for grid, color, move in ref.random_game(6, rng):
            if sum(row.count(ref.EMPTY) for row in grid) == empties:
                if ref.status(grid, color) == "move":
                    return moves, grid, color
                break
            moves.append(move_name(move))


def at_least(grid: ref.Grid, color: str, bound: int, memo: dict, passed: bool = False) -> bool:
    """Whether color's exact final disc difference (empties to the winner) under perfect play is
    at least `bound`: a null-window alpha-beta over the reference rules, with the known bounds of
    each position in memo and the replies that leave the opponent fewest moves tried first."""
    key = (ref.grid_text(grid), color)
    low, high = memo.get(key, (-36, 36))
    if low >= bound:
        return True
    if high < bound:
        return False
    moves = ref.legal_moves(grid, color)
    opponent = ref.other(color)
    if not moves:
        if passed:
            sign = 1 if color == ref.BLACK else -1
            holds = sign * ref.final_score(grid) >= bound
        else:
            holds = not at_least(grid, opponent, 1 - bound, memo, True)
    else:
        children = [ref.play(grid, color, m) for m in moves]
        if len(children) > 1 and sum(row.count(ref.EMPTY) for row in grid) > 5:
            children.sort(key=lambda g: len(ref.legal_moves(g, opponent)))
        holds = any(not at_least(g, opponent, 1 - bound, memo) for g in children)
    memo[key] = (max(low, bound), high) if holds else (low, min(high, bound - 1))
    return holds


def exact_score_is(grid: ref.Grid, color: str, score: int, memo: dict) -> bool:
    return at_least(grid, color, score, memo) and not at_least(grid, color, score + 1, memo)


def square_of(name: str) -> tuple[int, int]:
    return int(name[1:]) - 1, FILES.index(name[0])


# 14, 15 and 16 empties (the last a draw); the reference solve of each takes a few seconds
POSITIONS = [(14, 14), (15, 15), (16, 106)]


@pytest.mark.parametrize("empties, seed", POSITIONS)
def test_exact_6x6_endgame_matches_the_reference_solver(empties: int, seed: int) -> None:
    moves, grid, color = endgame(empties, seed)
    eng = EngineProcess()
    try:
        eng.ask("uci", lambda s: s == "uciok")
        eng.send("position startpos 6 moves " + " ".join(moves))
        got = eng.ask("go exact", lambda s: s.startswith("bestmove"), timeout=60)
        score = int([s for s in got if " score disc " in s][-1].split(" score disc ")[1].split()[0])
        best = got[-1].split()[1]
        got = eng.ask("go wld", lambda s: s.startswith("bestmove"), timeout=60)
        wld = [s for s in got if " score wld " in s][-1].split(" score wld ")[1].split()[0]
    finally:
        assert eng.close() == 0
    memo: dict = {}
    assert exact_score_is(grid, color, score, memo), (moves, score)
    # the best move keeps that score: the opponent can not get more than -score after it
    assert square_of(best) in ref.legal_moves(grid, color)
    after = ref.play(grid, color, square_of(best))
    assert not at_least(after, ref.other(color), 1 - score, memo), (moves, best)
    assert wld == ("win" if score > 0 else "loss" if score < 0 else "draw")


def test_solve_6x6_script_prints_the_exact_score_and_a_legal_line(tmp_path: Path) -> None:
    moves, grid, color = endgame(14, 14)
    proc = subprocess.run([sys.executable, str(SOLVE_6X6), "--moves", " ".join(moves),
                           "--threads", "2", "--hash", "8"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    side = "black" if color == ref.BLACK else "white"
    assert out[0] == f"6x6, 14 empties, {side} to move; 2 thread(s), 8 MiB table, pattern evaluation"
    score_line, pv_line, nodes_line = out[-3:]
    assert score_line.startswith("score ") and score_line.endswith(f" for {side}")
    score = int(score_line.split()[1])
    assert exact_score_is(grid, color, score, {})
    # the principal variation is a legal line of play
    g, c = grid, color
    for name in pv_line.split()[1:]:
        if name == "pass":
            assert ref.status(g, c) == "pass"
            g, c = g, ref.other(c)
            continue
        assert square_of(name) in ref.legal_moves(g, c), pv_line
        g, c = ref.play(g, c, square_of(name)), ref.other(c)
    assert nodes_line.startswith("nodes ") and int(nodes_line.split()[1]) > 0


def test_solve_6x6_script_refuses_a_bad_move_list_in_one_line(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(SOLVE_6X6), "--moves", "d5 z9"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("solve_6x6: ")
    assert "Traceback" not in proc.stderr
