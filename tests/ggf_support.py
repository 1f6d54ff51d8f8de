"""Test support: replay a GGF game record with the reference rules (the oracle, not the engine)."""

from __future__ import annotations

import reference_rules as ref
from othello_engine.board import PASS, Board
from othello_engine.ggf import parse_ggf


def replay_with_reference(ggf_line: str) -> int:
    """Replay a GGF game with the reference rules (every move must be legal, every pass forced);
    return black's final disc difference if the game ended, else raise."""
    rec = parse_ggf(ggf_line)
    start = rec.board.replay()
    assert start == Board()
    grid, color = ref.start_grid(8), ref.BLACK
    for move in rec.board.move_stack:
        if move == PASS:
            assert ref.status(grid, color) == "pass"
            grid = ref.play(grid, color, None)
        else:
            assert (move // 8, move % 8) in ref.legal_moves(grid, color)
            grid = ref.play(grid, color, (move // 8, move % 8))
        color = ref.other(color)
    assert ref.status(grid, color) == "over", "a normal game must be played to the end"
    return ref.final_score(grid)
