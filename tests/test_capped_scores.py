"""A crushed position (score at the evaluation's cap) searches no more nodes than an even one."""

from __future__ import annotations

import pytest

from uci_support import EngineProcess

# Black to move, far ahead: every line scores at the +63 cap (found by self-play against a random
# player). Before the fix, depth 13 here took 83 M nodes where an even position takes ~100 k.
CRUSHED = "xxxxxxx1/1ooxooo1/2ooxo2/1xooooo1/1oooooo1/3oooo1/4ooo1/8 x"
CRUSHED_WHITE = "ooooooo1/1xxoxxx1/2xxox2/1oxxxxx1/1xxxxxx1/3xxxx1/4xxx1/8 o"
EVEN = "8/8/2xxo3/2oxxx2/2oxo3/2o5/8/8 x"


def nodes_at_depth(e: EngineProcess, fen: str, depth: int) -> tuple[int, int]:
    e.send("ucinewgame")
    e.send(f"position fen {fen}")
    e.send(f"go depth {depth}")
    lines, _ = e.until(lambda line: line.startswith("bestmove"), timeout=120)
    last = [line.split() for line in lines if line.startswith("info depth")][-1]
    return int(last[last.index("nodes") + 1]), int(last[last.index("cp") + 1])


@pytest.mark.parametrize("crushed", [CRUSHED, CRUSHED_WHITE])
def test_a_lopsided_position_is_no_slower_than_an_even_one(crushed: str) -> None:
    e = EngineProcess()
    try:
        e.ask("uci", lambda line: line == "uciok")
        even, _ = nodes_at_depth(e, EVEN, 12)
        lopsided, score = nodes_at_depth(e, crushed, 12)
    finally:
        e.close()
    assert score >= 6000, "the position is meant to be won at the cap for the side to move"
    assert lopsided <= even, (lopsided, even)


# Black wipes white out with f5 (a proven +64 beyond the cap), and a lopsided position where
# proven wipeouts and capped evaluations meet in one tree: the root's windows used to bounce
# between the cap and the wipeout until their width overflowed (an internal error in a GTP game).
WIPEOUT_IN_ONE = "8/8/8/3xo3/8/8/8/8 x"


@pytest.mark.parametrize("fen", [WIPEOUT_IN_ONE, CRUSHED, CRUSHED_WHITE])
def test_every_depth_ends_with_a_move(fen: str) -> None:
    e = EngineProcess()
    try:
        e.ask("uci", lambda line: line == "uciok")
        e.send(f"position fen {fen}")
        for depth in range(1, 15):
            e.send(f"go depth {depth}")
            lines, _ = e.until(lambda line: line.startswith("bestmove"), timeout=120)
            assert not any("error" in line for line in lines), lines
            assert lines[-1] != "bestmove (none)"
    finally:
        e.close()


# Black to move at 36 empties, about 58 discs ahead (a position of a WTHOR game of 2020): the
# searches' windows lie near the evaluation's cap. Probcut used to stop at windows beyond +-60
# discs, and the subtrees there were searched full width: depth 21 took over 300 s and depth 22
# 5.6 G nodes, where an even position takes a few million.
NEAR_THE_CAP = "x2x4/1xoxoo2/2oxoo2/1ooxoo2/ooxxxo2/1ooxoo2/3o4/8 x"


def test_a_won_position_near_the_cap_searches_deep_quickly() -> None:
    e = EngineProcess()
    try:
        e.ask("uci", lambda line: line == "uciok")
        nodes, score = nodes_at_depth(e, NEAR_THE_CAP, 22)
    finally:
        e.close()
    assert 5000 <= score < 6300, score
    assert nodes < 50_000_000, nodes
