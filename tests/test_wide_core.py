"""The compiled core on every board size 3..26 (the *_n functions) against the reference rules."""

from __future__ import annotations

import random

import pytest

import reference_rules as ref
from othello_engine import _core

WIDE_SIZES = list(range(9, 27))


def frame_bit(size: int, r: int, c: int) -> int:
    """The core's bit of square (r, c): the 8x8 frame up to 8x8, dense row * size + col beyond."""
    return 1 << (r * (8 if size <= 8 else size) + c)


def square(size: int, r: int, c: int) -> int:
    return r * (8 if size <= 8 else size) + c


def sides(grid: ref.Grid, color: str) -> tuple[int, int]:
    """(P, O) of grid with color to move, in the core's numbering for the grid's size."""
    size = len(grid)
    black = white = 0
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell == ref.BLACK:
                black |= frame_bit(size, r, c)
            elif cell == ref.WHITE:
                white |= frame_bit(size, r, c)
    return (black, white) if color == ref.BLACK else (white, black)


def bits(size: int, squares: list[tuple[int, int]]) -> int:
    out = 0
    for r, c in squares:
        out |= frame_bit(size, r, c)
    return out


def check_position(grid: ref.Grid, color: str, all_flips: bool, every_move: bool = True) -> None:
    size = len(grid)
    P, O = sides(grid, color)
    moves = ref.legal_moves(grid, color)
    text = ref.grid_text(grid)
    assert _core.legal_moves_n(P, O, size) == bits(size, moves), text
    if all_flips:
        for r in range(size):
            for c in range(size):
                if grid[r][c] == ref.EMPTY:
                    assert (_core.flipped_discs_n(P, O, square(size, r, c), size)
                            == bits(size, ref.flips(grid, color, r, c))), (text, r, c)
    for move in (moves if every_move else moves[::7]):
        after = ref.play(grid, color, move)
        assert _core.make_move_n(P, O, square(size, *move), size) == sides(after, ref.other(color))
    state = {"move": 0, "pass": 1, "over": 2}[ref.status(grid, color)]
    assert _core.game_state_n(P, O, size) == state, text
    if state == 1:
        assert _core.make_move_n(P, O, _core.pass_code(size), size) == (O, P)
    if state == 2:
        score = ref.final_score(grid) * (1 if color == ref.BLACK else -1)
        assert _core.final_disc_difference_n(P, O, size) == score


@pytest.mark.parametrize("size", WIDE_SIZES)
def test_random_games_match_reference(size: int) -> None:
    rng = random.Random(2600 + size)
    for i, (grid, color, _move) in enumerate(ref.random_game(size, rng)):
        # every flip of every empty square on some positions (it is the slow part), moves and
        # the moves' results on all of them
        check_position(grid, color, all_flips=(i % 17 == 0), every_move=(i % 5 == 0))


@pytest.mark.parametrize("size", [9, 10, 11, 12, 13, 16, 17, 26])
def test_random_grids_match_reference(size: int) -> None:
    """Arrangements no game reaches (long runs, discs on every edge) exercise the wrap masks."""
    rng = random.Random(size)
    for density in (0.5, 0.8, 0.95):
        for _ in range(3):
            grid = ref.random_grid(size, rng, density)
            check_position(grid, ref.BLACK, all_flips=True)


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7, 8])
def test_small_sizes_forward_to_the_frame(size: int) -> None:
    rng = random.Random(size)
    for grid, color, _move in ref.random_game(size, rng)[::3]:
        check_position(grid, color, all_flips=True)


# perft from the start of each even size: the reference count to depth 3 (4 on 10x10), and the
# core's bulk and non-bulk counts agree to depth 5
@pytest.mark.parametrize("size", list(range(10, 27, 2)))
def test_perft_from_start_matches_reference(size: int) -> None:
    grid = ref.start_grid(size)
    P, O = sides(grid, ref.BLACK)
    for depth in range(0, 4 if size != 10 else 5):
        assert _core.perft_n(P, O, depth, size) == ref.perft(grid, ref.BLACK, depth), depth
    assert _core.perft_n(P, O, 5, size) == _core.perft_n(P, O, 5, size, bulk=True)


def test_perft_through_passes_and_game_ends_matches_reference() -> None:
    rng = random.Random(7)
    for size in (9, 10, 13):
        game = ref.random_game(size, rng)
        for grid, color, _move in game[-12:]:
            P, O = sides(grid, color)
            for depth in (1, 2, 3):
                assert _core.perft_n(P, O, depth, size) == ref.perft(grid, color, depth)


def test_perft_stop_buffer() -> None:
    grid = ref.start_grid(12)
    P, O = sides(grid, ref.BLACK)
    stop = bytearray(1)
    stop[0] = 1
    assert _core.perft_n(P, O, 8, 12, stop=stop) == 0
    stop[0] = 0
    assert _core.perft_n(P, O, 3, 12, stop=stop) == 56
    with pytest.raises(ValueError):
        _core.perft_n(P, O, -1, 12)


def image(grid: ref.Grid, k: int) -> ref.Grid:
    """Symmetry k of grid: bit 0 mirrors left-right, bit 1 top-bottom, bit 2 transposes."""
    size = len(grid)
    out = [[ref.EMPTY] * size for _ in range(size)]
    for r in range(size):
        for c in range(size):
            rr, cc = r, c
            if k & 1:
                cc = size - 1 - cc
            if k & 2:
                rr = size - 1 - rr
            if k & 4:
                rr, cc = cc, rr
            out[rr][cc] = grid[r][c]
    return out


@pytest.mark.parametrize("size", [5, 8, 9, 10, 11, 12, 17, 26])
def test_symmetries_and_canonical_form(size: int) -> None:
    rng = random.Random(size)
    for _ in range(4):
        grid = ref.random_grid(size, rng, 0.4)
        P, O = sides(grid, ref.BLACK)
        images = []
        for k in range(8):
            ip, io = sides(image(grid, k), ref.BLACK)
            assert _core.symmetry_n(P, k, size) == ip
            assert _core.symmetry_n(O, k, size) == io
            images.append((ip, io, k))
        best = min(images)
        assert _core.canonical_n(P, O, size) == best
        # the legal moves of an image are the image of the legal moves
        for k in range(8):
            ip, io, _ = images[k]
            assert _core.legal_moves_n(ip, io, size) == _core.symmetry_n(
                _core.legal_moves_n(P, O, size), k, size)


def test_bad_input_raises() -> None:
    with pytest.raises(ValueError):
        _core.legal_moves_n(0, 0, 27)
    with pytest.raises(ValueError):
        _core.legal_moves_n(0, 0, 2)
    with pytest.raises(ValueError):
        _core.legal_moves_n(1 << 100, 0, 10)
    with pytest.raises(ValueError):
        _core.flipped_discs_n(0, 0, 100, 10)
    with pytest.raises(ValueError):
        _core.symmetry_n(0, 8, 10)
    assert _core.pass_code(8) == 64 and _core.pass_code(10) == 100 and _core.pass_code(26) == 676


# --- the search on wide boards --------------------------------------------------------------------

def endgame_positions(size: int, empties: int, count: int, seed: int) -> list[tuple[ref.Grid, str]]:
    """Positions of random games with `empties` empty squares and the side to move able to move."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        for grid, color, _move in ref.random_game(size, rng):
            if sum(row.count(ref.EMPTY) for row in grid) == empties:
                if ref.status(grid, color) == "move":
                    out.append((grid, color))
                break
    return out


def legal_squares(grid: ref.Grid, color: str) -> set[int]:
    size = len(grid)
    return {square(size, r, c) for r, c in ref.legal_moves(grid, color)}


@pytest.mark.parametrize("size", [10, 12])
def test_exact_solves_match_the_reference_solver(size: int) -> None:
    search = _core.Search(8)
    for grid, color in endgame_positions(size, 8, 3, seed=size):
        P, O = sides(grid, color)
        expected = ref.solve(grid, color)
        lines, depth, nodes, exact = search.run_n(P, O, size, solve=1)
        assert exact and lines[0][1] == 100 * expected
        best = lines[0][0]
        r, c = divmod(best, size)
        assert -ref.solve(ref.play(grid, color, (r, c)), ref.other(color)) == expected
        # win/loss/draw
        lines, _, _, _ = search.run_n(P, O, size, solve=2)
        assert lines[0][1] == (100 if expected > 0 else -100 if expected < 0 else 0)


def test_multipv_solve_scores_every_move_exactly() -> None:
    (grid, color), = endgame_positions(10, 8, 1, seed=3)
    P, O = sides(grid, color)
    moves = legal_squares(grid, color)
    lines, _, _, exact = _core.Search(8).run_n(P, O, 10, solve=1, multipv=len(moves))
    assert exact and {m for m, _, _ in lines} == moves
    for move, score, pv in lines:
        r, c = divmod(move, 10)
        assert score == -100 * ref.solve(ref.play(grid, color, (r, c)), ref.other(color))
        assert pv[0] == move
    assert [s for _, s, _ in lines] == sorted((s for _, s, _ in lines), reverse=True)


def test_midgame_exact_depth_matches_the_solver() -> None:
    """A midgame search to the end (depth = empties, no probcut) is a solve too."""
    (grid, color), = endgame_positions(11, 7, 1, seed=11)
    P, O = sides(grid, color)
    lines, _, _, exact = _core.Search(8).run_n(P, O, 11, max_depth=7, solve_lead=0,
                                               selective=False)
    assert exact and lines[0][1] == 100 * ref.solve(grid, color)


def pv_is_playable(grid: ref.Grid, color: str, pv: tuple[int, ...]) -> bool:
    size = len(grid)
    for sq in pv:
        if sq == _core.pass_code(size):
            if ref.status(grid, color) != "pass":
                return False
            color = ref.other(color)
            continue
        r, c = divmod(sq, size)
        if (r, c) not in ref.legal_moves(grid, color):
            return False
        grid = ref.play(grid, color, (r, c))
        color = ref.other(color)
    return True


@pytest.mark.parametrize("size", [9, 10, 13, 16, 26])
def test_midgame_search_plays_legal_lines(size: int) -> None:
    rng = random.Random(size)
    game = ref.random_game(size, rng)
    search = _core.Search(8)
    seen = []
    for grid, color, _move in game[len(game) // 3::max(1, len(game) // 4)][:3]:
        if ref.status(grid, color) != "move":
            continue
        P, O = sides(grid, color)
        depths = []
        lines, depth, nodes, exact = search.run_n(
            P, O, size, max_depth=4, multipv=2,
            callback=lambda d, sd, ex, n, t, ls: depths.append((d, len(ls))))
        assert depth == 4 and nodes > 0 and not exact
        assert [d for d, _ in depths] == [1, 2, 3, 4]
        assert lines[0][0] in legal_squares(grid, color)
        assert len(lines) == min(2, len(legal_squares(grid, color)))
        for move, _score, pv in lines:
            assert pv[0] == move and pv_is_playable(grid, color, pv)
        seen.append(lines[0][0])
    assert seen


def position_to_move(size: int, seed: int, ply: int):
    """The grid after `ply` plies of a seeded random game, with a side that has a move in it."""
    grid = ref.random_game(size, random.Random(seed))[ply][0]
    color = ref.BLACK if sum(r.count(ref.EMPTY) for r in grid) % 2 == 0 else ref.WHITE
    if ref.status(grid, color) != "move":
        color = ref.other(color)
    return grid, color


def test_search_limits_and_root_moves() -> None:
    grid, color = position_to_move(12, seed=4, ply=30)
    P, O = sides(grid, color)
    search = _core.Search(8)
    _, _, nodes, _ = search.run_n(P, O, 12, max_depth=30, max_nodes=5000)
    assert 0 < nodes <= 5000 + 64
    legal = sorted(legal_squares(grid, color))
    only = legal[-1]
    lines, _, _, _ = search.run_n(P, O, 12, max_depth=3, root_moves=1 << only)
    assert [m for m, _, _ in lines] == [only]
    search.stop()
    lines, depth, _, _ = search.run_n(P, O, 12, max_depth=10)
    assert depth <= 1 and lines and lines[0][0] in legal     # stopped at once (as run does)
    search.reset_stop()


def test_switching_sizes_keeps_results() -> None:
    """A table shared by boards of different sizes is cleared between them: each search gives what
    a fresh one gives."""
    b8 = (0x0000000810000000, 0x0000001008000000)
    grid = ref.start_grid(10)
    P, O = sides(grid, ref.BLACK)
    fresh8 = _core.Search(8).run(*b8, _core.FULL_MASK, 8)[:3]
    fresh10 = _core.Search(8).run_n(P, O, 10, max_depth=6)[:3]
    s = _core.Search(8)
    assert s.run_n(P, O, 10, max_depth=6)[:3] == fresh10
    assert s.run(*b8, _core.FULL_MASK, 8)[:3] == fresh8
    assert s.run_n(P, O, 10, max_depth=6)[:3] == fresh10
    assert s.run_n(*b8, 8, max_depth=8)[:3] == fresh8


@pytest.mark.parametrize("size", [10, 14, 26])
def test_evaluation_terms_are_symmetric(size: int) -> None:
    """Every term but parity changes sign when the sides swap, and no term changes under the
    board's symmetries (even sizes: the quadrants map onto each other)."""
    rng = random.Random(size)
    for grid, color, _move in ref.random_game(size, rng)[::size * 3]:
        P, O = sides(grid, color)
        terms = _core.evaluation_terms_n(P, O, size)
        swapped = _core.evaluation_terms_n(O, P, size)
        assert set(terms) == set(_core.FEATURE_NAMES) | {"total"}
        for name in _core.FEATURE_NAMES:
            if name != "parity":
                assert terms[name] == -swapped[name], name
        for k in range(1, 8):
            assert _core.evaluation_terms_n(_core.symmetry_n(P, k, size),
                                            _core.symmetry_n(O, k, size), size) == terms
        assert _core.evaluate_position_n(P, O, size) == terms["total"]


def test_evaluation_of_corners_and_finished_games() -> None:
    size = 12
    corner = 0
    # P holds a1 and the whole first row: corners, stability and the edge all count for P
    P = (1 << size) - 1
    O = 1 << (size + 3)
    terms = _core.evaluation_terms_n(P, O, size)
    assert terms["corners"] > 0 and terms["stability"] > 0
    full = (1 << size * size) - 1
    P = full & ~(1 << corner)
    assert _core.evaluation_terms_n(P, 0, size)["total"] == 100 * size * size


def test_a_solve_of_a_big_board_is_refused_safely() -> None:
    """An exact solve of hundreds of empties can not finish (and would run past the search's ply
    limit): the wide search falls back to midgame iterations within the limits given."""
    grid = ref.start_grid(26)
    P, O = sides(grid, ref.BLACK)
    lines, depth, nodes, exact = _core.Search(8).run_n(P, O, 26, solve=1, max_nodes=3000)
    assert lines and not exact and nodes <= 3000 + 64
    lines, depth, nodes, exact = _core.Search(8).run_n(P, O, 26, max_depth=200, max_nodes=3000)
    assert lines and not exact


@pytest.mark.parametrize("size", [10, 13])
def test_stable_discs_are_never_flipped(size: int) -> None:
    """The discs the wide evaluation counts as stable keep their colour in every random
    continuation played by the reference rules."""
    rng = random.Random(size)
    checked = 0
    for _ in range(6):
        game = ref.random_game(size, rng)
        for grid, color, _move in game[len(game) * 2 // 3::5]:
            P, O = sides(grid, color)
            for mover, (mine, theirs) in ((color, (P, O)), (ref.other(color), (O, P))):
                stable = _core._stable_discs_n(mine, theirs, size)
                if not stable:
                    continue
                squares = [divmod(i, size) for i in range(size * size) if (stable >> i) & 1]
                for _ in range(2):
                    for later, _c, _m in ref.random_game(size, rng, ref.copy_grid(grid), color):
                        assert all(later[r][c] == mover for r, c in squares)
                checked += len(squares)
    assert checked > 0


# --- threads on wide boards -------------------------------------------------------------------------

@pytest.mark.parametrize("threads", [1, 2, 4])
def test_exact_wide_scores_with_any_thread_count(threads: int) -> None:
    """Exact solves with helper threads (lazy SMP with deferred moves, as on 8x8): at 8 empties the
    reference solver's score and a best move; at 12 to 14 empties, where the threads defer moves to
    one another, the score of the one-thread solve (itself checked against the reference above)
    and a best move that scores it."""
    search = _core.Search(8, threads)
    for size in (10, 12, 16):
        for grid, color in endgame_positions(size, 8, 1, seed=size):
            P, O = sides(grid, color)
            lines, _, nodes, exact = search.run_n(P, O, size, solve=1)
            expected = ref.solve(grid, color)
            assert exact and lines[0][1] == 100 * expected and nodes > 0, (size, threads)
            r, c = divmod(lines[0][0], size)
            assert -ref.solve(ref.play(grid, color, (r, c)), ref.other(color)) == expected
    one = _core.Search(8)
    for size, empties in ((10, 14), (12, 13), (16, 12)):
        for grid, color in endgame_positions(size, empties, 2, seed=size):
            P, O = sides(grid, color)
            expected = one.run_n(P, O, size, solve=1)[0][0][1]
            search.clear()
            lines, _, _, exact = search.run_n(P, O, size, solve=1)
            assert exact and lines[0][1] == expected, (size, empties, threads)
            child = _core.make_move_n(P, O, lines[0][0], size)
            assert -one.run_n(*child, size, solve=1)[0][0][1] == expected
            # win/loss/draw too
            lines, _, _, _ = search.run_n(P, O, size, solve=2)
            assert lines[0][1] == (100 if expected > 0 else -100 if expected < 0 else 0)


def test_midgame_search_with_two_threads_on_wide_boards() -> None:
    """A midgame search with 2 threads reaches its depth with legal lines, as with one; its node
    count adds up the helper's, so on some position it differs from the one-thread count."""
    differs = []
    for size in (10, 12, 16):
        game = ref.random_game(size, random.Random(size))
        grid, color, _ = game[len(game) // 3]
        if ref.status(grid, color) != "move":
            grid, color, _ = game[len(game) // 3 + 1]
        P, O = sides(grid, color)
        depth = 8 if size == 10 else 6
        _, _, one_nodes, _ = _core.Search(8).run_n(P, O, size, max_depth=depth)
        depths = []
        lines, reached, nodes, exact = _core.Search(8, 2).run_n(
            P, O, size, max_depth=depth, multipv=2,
            callback=lambda d, sd, ex, n, t, ls: depths.append(d))
        assert reached == depth and not exact and depths == list(range(1, depth + 1))
        assert len(lines) == min(2, len(legal_squares(grid, color)))
        for move, _score, pv in lines:
            assert move in legal_squares(grid, color) and pv[0] == move
            assert pv_is_playable(grid, color, pv)
        lines, reached, nodes, _ = _core.Search(8, 2).run_n(P, O, size, max_depth=depth)
        assert reached == depth and lines[0][0] in legal_squares(grid, color)
        differs.append(nodes != one_nodes)
    assert any(differs)


def test_node_limit_and_stop_with_threads_on_a_wide_board() -> None:
    grid, color = position_to_move(12, seed=4, ply=30)
    P, O = sides(grid, color)
    for threads in (2, 3):
        search = _core.Search(8, threads)
        lines, depth, nodes, exact = search.run_n(P, O, 12, max_depth=30, max_nodes=60000)
        # each thread polls every 1024 nodes at most, and less often as the budget runs out
        assert 60000 <= nodes <= 60000 + threads * 1024, (threads, nodes)
        assert lines[0][0] in legal_squares(grid, color) and not exact
        search.stop()
        lines, depth, _, _ = search.run_n(P, O, 12, max_depth=10)
        assert depth <= 1 and lines[0][0] in legal_squares(grid, color)
        search.reset_stop()
