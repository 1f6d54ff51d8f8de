"""The compiled core against the reference rules: moves, flips, passes, game end on every size."""

from __future__ import annotations

import doctest
import random

import pytest

import reference_rules as ref
from othello_engine import _core

SIZES = [3, 4, 5, 6, 7, 8]
# random games per size: small boards give short games, so they get more of them
GAMES = {3: 400, 4: 150, 5: 60, 6: 40, 7: 30, 8: 25}


def side_bitboards(grid: ref.Grid, color: str) -> tuple[int, int]:
    black, white = ref.bitboards(grid)
    return (black, white) if color == ref.BLACK else (white, black)


def bits(squares: list[tuple[int, int]]) -> int:
    out = 0
    for sq in squares:
        out |= 1 << ref.square_index(sq)
    return out


def check_position(grid: ref.Grid, color: str) -> None:
    """Every rule the core implements, on one position, against the reference."""
    size = len(grid)
    mask = _core.board_mask(size)
    P, O = side_bitboards(grid, color)
    moves = ref.legal_moves(grid, color)
    assert _core.legal_moves(P, O, mask) == bits(moves), ref.grid_text(grid)
    assert _core._legal_moves_scalar(P, O, mask) == bits(moves), ref.grid_text(grid)
    for r in range(size):
        for c in range(size):
            if grid[r][c] == ref.EMPTY:
                sq = r * 8 + c
                expected = bits(ref.flips(grid, color, r, c))
                assert _core.flipped_discs(P, O, sq) == expected, (ref.grid_text(grid), color, sq)
                assert _core._flipped_discs_scalar(P, O, sq) == expected, (ref.grid_text(grid), sq)
    for move in moves:
        after = ref.play(grid, color, move)
        assert _core.make_move(P, O, ref.square_index(move)) == side_bitboards(after, ref.other(color))
    state = {"move": 0, "pass": 1, "over": 2}[ref.status(grid, color)]
    assert _core.game_state(P, O, mask) == state
    if state == 1:
        assert _core.make_move(P, O, _core.PASS) == (O, P)


@pytest.mark.parametrize("size", SIZES)
def test_random_games_match_reference(size: int) -> None:
    rng = random.Random(1000 + size)
    positions = 0
    for _ in range(GAMES[size]):
        for grid, color, _move in ref.random_game(size, rng):
            check_position(grid, color)
            positions += 1
    assert positions >= 1000


@pytest.mark.parametrize("size", SIZES)
def test_arbitrary_positions_match_reference(size: int) -> None:
    """Positions no game reaches (random discs everywhere) test runs that touch every edge."""
    rng = random.Random(2000 + size)
    for i in range(600 if size < 7 else 300):
        grid = ref.random_grid(size, rng, density=0.3 + 0.65 * (i % 10) / 10)
        check_position(grid, rng.choice((ref.BLACK, ref.WHITE)))


def test_kernels_agree_on_dense_random_bitboards() -> None:
    """The vector kernels (when built) and the scalar ones on many arbitrary 8x8 positions."""
    rng = random.Random(77)
    for _ in range(20000):
        occupied = rng.getrandbits(64) | rng.getrandbits(64)
        P = occupied & rng.getrandbits(64)
        O = occupied & ~P
        assert _core.legal_moves(P, O) == _core._legal_moves_scalar(P, O)
        empty = ~occupied & ((1 << 64) - 1)
        if empty:
            sq = rng.choice([s for s in range(64) if empty >> s & 1])
            assert _core.flipped_discs(P, O, sq) == _core._flipped_discs_scalar(P, O, sq)


def test_last_empty_flip_count_agrees_with_the_flips() -> None:
    """The solver's count for the last empty square (gathered lines and a table, where built with
    BMI2) equals the number of discs the move flips, for either side, on every square."""
    if _core._last_flip_count(0, 0) is None:
        pytest.skip("this build does without pext: the solver counts the flips themselves")
    rng = random.Random(78)
    full = (1 << 64) - 1
    for i in range(6000):
        sq = i % 64
        P = rng.getrandbits(64) & ~(1 << sq)
        if i % 3 == 0:                      # lines of one colour and long runs
            P = (full if rng.random() < 0.5 else 0) ^ (rng.getrandbits(64) & rng.getrandbits(64))
            P &= ~(1 << sq)
        O = full & ~P & ~(1 << sq)
        assert _core._last_flip_count(P, sq) == bin(_core.flipped_discs(P, O, sq)).count("1"), (hex(P), sq)


def test_core_doctests() -> None:
    result = doctest.testmod(_core)
    assert result.attempted > 0 and result.failed == 0


def test_board_mask() -> None:
    assert _core.board_mask(8) == (1 << 64) - 1
    assert _core.board_mask(3) == 0b111 | 0b111 << 8 | 0b111 << 16
    for size in SIZES:
        assert _core.popcount(_core.board_mask(size)) == size * size
    for bad in (2, 9, -1):
        with pytest.raises(ValueError, match=str(bad)):
            _core.board_mask(bad)


def test_full_lines_flip_across_the_whole_board() -> None:
    """Longest runs: P at one end of each full line, O between, the move at the other end."""
    for line in ([(0, c) for c in range(8)], [(r, 0) for r in range(8)], [(i, i) for i in range(8)],
                 [(i, 7 - i) for i in range(8)]):
        for first, last in ((line[0], line[-1]), (line[-1], line[0])):
            grid = [[ref.EMPTY] * 8 for _ in range(8)]
            for r, c in line:
                grid[r][c] = ref.WHITE
            grid[first[0]][first[1]] = ref.BLACK
            grid[last[0]][last[1]] = ref.EMPTY
            P, O = side_bitboards(grid, ref.BLACK)
            assert _core.flipped_discs(P, O, ref.square_index(last)) == bits(line[1:-1])
            check_position(grid, ref.BLACK)


def test_bad_square_arguments() -> None:
    for bad in (-1, 65, 100):
        with pytest.raises(ValueError, match="out of range"):
            _core.flipped_discs(0, 0, bad)
    with pytest.raises(ValueError, match="out of range"):
        _core.make_move(0, 0, 70)
    with pytest.raises(ValueError):
        _core.perft(0, 0, -1)
