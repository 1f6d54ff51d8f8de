"""Tests of the compiled search: exact endgame scores, legal answers, limits, multi-PV, small boards."""

from __future__ import annotations

import contextlib
import random
import subprocess
import sys

import pytest

from othello_engine import _core
from othello_engine.board import PASS, Board, square_name
from othello_engine.notation import parse_obf
from othello_engine.engine import Engine, Limit, SearchResult

import reference_rules as ref
from ffo_data import ffo_line, needs_ffo


def solve(board: Board) -> int:
    """Exact final disc difference for the side to move, from the reference rules (the oracle)."""
    return ref.solve_text(board.cells(), "XO"[board.turn])


def random_board(size: int, plies: int, rng: random.Random) -> Board:
    b = Board(size)
    for _ in range(plies):
        if b.is_game_over():
            break
        moves = b.legal_moves()
        b.push(rng.choice(moves) if moves else PASS)
    return b


@contextlib.contextmanager
def tuned(**knobs: int):
    """The core's tuning knobs set for the block, then put back to exactly what they were
    (_set_tuning returns the value it replaced)."""
    before = []
    try:
        for name, value in knobs.items():
            before.append((name, _core._set_tuning(name, value)))
        yield
    finally:
        for name, value in reversed(before):
            _core._set_tuning(name, value)


def test_a_tuning_knob_is_put_back_as_it_was() -> None:
    """The setter returns the value it replaced, for the solver's knobs and the midgame's alike,
    so setting that back restores the knob; an unknown name is refused."""
    old = _core._set_tuning("stab_min", 99)
    assert _core._set_tuning("stab_min", old) == 99
    assert _core._set_tuning("stab_min", old) == old
    old = _core._set_tuning("eg_steps", 7)
    assert _core._set_tuning("eg_steps", old) == 7
    with tuned(eg_steps=2, stab_sh=50):
        assert _core._set_tuning("eg_steps", 2) == 2
        assert _core._set_tuning("stab_sh", 50) == 50
    assert _core._set_tuning("eg_steps", old) == old
    with pytest.raises(ValueError):
        _core._set_tuning("no_such_knob", 1)


def fresh_searches(boards: list[Board], limit: Limit) -> list[SearchResult]:
    """Each board searched to limit by a fresh engine with a 4 MiB table (so that node counts
    compare between runs)."""
    return [Engine(hash_mb=4).search(b, limit) for b in boards]


def exact_solves(boards: list[Board]) -> list[tuple[int, int]]:
    """(score, nodes) of an exact solve of each board (fresh_searches)."""
    results = fresh_searches(boards, Limit(exact=True))
    assert all(r.exact for r in results)
    return [(r.score, r.nodes) for r in results]


def changes_nodes_not_scores(boards: list[Board], **knobs: int) -> bool:
    """Whether exact solves of boards with the knobs set visit other numbers of nodes than with
    the shipped settings (the scores must be the same either way)."""
    shipped = exact_solves(boards)
    with tuned(**knobs):
        other = exact_solves(boards)
    assert [s for s, _ in other] == [s for s, _ in shipped]
    return other != shipped


def random_endgames(count: int, fewest: int, most: int, seed: int, size: int = 8) -> list[Board]:
    """count random positions on the size x size board, game not over, with fewest to most
    empties."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        b = random_board(size, size * size - 4 - rng.randint(fewest, most), rng)
        if not b.is_game_over():
            boards.append(b)
    return boards


# --- exact solving ----------------------------------------------------------------------------
@needs_ffo
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_ffo_exact_score_and_best_move(n: int) -> None:
    board, scored = parse_obf(ffo_line(n))
    expected = max(s for _, s in scored)
    best = {m for m, s in scored if s == expected}
    result = Engine(hash_mb=16).search(board, Limit(exact=True))
    assert result.exact
    assert result.score == 100 * expected
    assert result.best_move in best, square_name(result.best_move)


@needs_ffo
def test_ffo_multipv_exact_scores_match_the_suite() -> None:
    board, scored = parse_obf(ffo_line(1))          # every move is scored in the file
    result = Engine(hash_mb=16).search(board, Limit(exact=True), multipv=4)
    got = [(line.move, line.score) for line in result.lines]
    truth = dict(scored)
    assert len(got) == 4 and len({m for m, _ in got}) == 4
    for move, score in got:
        assert score == 100 * truth[move]
    assert [s for _, s in got] == [100 * s for s in sorted(truth.values(), reverse=True)[:4]]


@needs_ffo
def test_wld_solve_gives_the_sign() -> None:
    for n in (1, 4, 9):
        board, scored = parse_obf(ffo_line(n))
        expected = max(s for _, s in scored)
        result = Engine(hash_mb=16).search(board, Limit(wld=True))
        sign = (expected > 0) - (expected < 0)
        assert result.score == 100 * sign and not result.exact
        move_score = dict(scored)[result.best_move]
        assert (move_score > 0) - (move_score < 0) == sign


def test_4x4_perfect_play_against_an_independent_solver() -> None:
    b = Board(4)
    truth = solve(b)
    result = Engine(hash_mb=4).search(b, Limit(exact=True))
    assert result.exact
    assert result.score == 100 * truth
    # white wins: 3-11 with two squares left empty, which go to the winner: -10 for black
    assert truth == -10
    end = b.copy()
    for move in result.pv:
        end.push(move)
    assert end.is_game_over() and end.disc_difference() == truth


@pytest.mark.parametrize("seed", range(6))
def test_small_endgames_against_an_independent_solver(seed: int) -> None:
    rng = random.Random(seed)
    size = (6, 8, 8, 6, 8, 8)[seed]
    b = random_board(size, size * size - 4 - rng.randint(5, 9), rng)
    if b.is_game_over():
        pytest.skip("random game ended early")
    truth = solve(b)
    result = Engine(hash_mb=4).search(b, Limit(exact=True))
    assert result.exact and result.score == 100 * truth
    # the best move really achieves the score (checked with the reference)
    after = b.copy()
    after.push(result.best_move)
    if result.best_move != PASS:
        assert -solve(after) == truth


@pytest.mark.parametrize("seed", range(12))
def test_endgames_with_stable_discs_against_an_independent_solver(seed: int) -> None:
    """Lopsided positions with a corner taken (6-9 empties), where the stability cut-offs act: the
    solver's score, and the win/loss/draw solve's sign, agree with the reference, and so does the
    score of each of the first two lines' moves."""
    rng = random.Random(1000 + seed)
    for _ in range(500):
        b = random_board(8, 60 - rng.randint(6, 9), rng)
        corners = [b.cells()[i] for i in (0, 7, 56, 63)]
        if not b.is_game_over() and any(c != "-" for c in corners) and abs(b.disc_difference()) >= 16:
            break
    else:
        pytest.skip("no lopsided position with a corner taken")
    truth = solve(b)
    engine = Engine(hash_mb=4)
    result = engine.search(b, Limit(exact=True))
    assert result.exact and result.score == 100 * truth
    wld = engine.search(b, Limit(wld=True))
    assert (wld.score > 0) == (truth > 0) and (wld.score < 0) == (truth < 0)
    lines = Engine(hash_mb=4, multipv=2).search(b, Limit(exact=True)).lines
    for line in lines:
        after = b.copy()
        after.push(line.pv[0])
        assert -solve(after) == line.score // 100


def test_stability_cut_offs_change_no_exact_score() -> None:
    """The solver with its stability cut-offs (eg_search and the shallow solver) gives every exact
    score that it gives without them, on 300 random positions of 6-12 empties (the solver without
    them is checked against the reference above). A shallow-solver cut-off that claimed up to four
    discs too much got about one score in twenty-five wrong on such positions, and sent some exact
    searches into endless re-searches."""
    boards = random_endgames(300, 6, 12, seed=77)
    with_cuts = [Engine(hash_mb=1).search(b, Limit(exact=True)).score for b in boards]
    with tuned(stab_min=99, stab_sh=99):
        without = [Engine(hash_mb=1).search(b, Limit(exact=True)).score for b in boards]
    assert with_cuts == without


def test_the_endgame_sorts_potential_mobility_term_changes_orders_not_scores() -> None:
    """From 16 empties the solver sorts its moves by the pattern evaluation less the opponent's
    replies and, since 2026-11-30, less the opponent's potential mobility (the knob sort_pot).
    Solved with and without that term, random positions of 16-18 empties get the same exact
    scores, and the term does act: the searches visit other numbers of nodes."""
    from othello_engine import weights
    assert weights.ensure_loaded()
    assert changes_nodes_not_scores(random_endgames(12, 16, 18, seed=91), sort_pot=0)


def test_the_endgame_sorts_potential_mobility_term_stays_off_the_smaller_boards() -> None:
    """The potential-mobility term of the solver's order acts on 8x8 only (on 6x6 it doubled the
    start's solve): 6x6 positions of 20-22 empties take the same nodes with and without it."""
    assert not changes_nodes_not_scores(random_endgames(4, 20, 22, seed=93, size=6), sort_pot=0)


def test_the_endgame_sorts_by_the_evaluation_from_12_empties_on_8x8() -> None:
    """On 8x8 the solver sorts its moves by the pattern evaluation from 12 empties (the knob
    sort_eval; 16 until 2026-11-30). Random positions of 12-15 empties get the same exact scores
    sorted either way, and the threshold does act there: other numbers of nodes."""
    from othello_engine import weights
    assert weights.ensure_loaded()
    assert changes_nodes_not_scores(random_endgames(16, 12, 15, seed=95), sort_eval=16)


def test_a_fail_low_keeps_the_tables_move_and_the_scores() -> None:
    """A search result that failed low keeps the move an earlier search stored for the position
    (the knob tt_keep; until 2026-12-01 its own best guess replaced it). Random positions of
    14-18 empties get the same exact scores either way, and the rule does act: other numbers of
    nodes."""
    assert changes_nodes_not_scores(random_endgames(12, 14, 18, seed=99), tt_keep=0)


def midgame_trees(boards: list[Board], depth: int) -> list[tuple[int, int, int | None]]:
    """(score, nodes, best move) of a selective search of each board to depth (fresh_searches)."""
    return [(r.score, r.nodes, r.best_move) for r in fresh_searches(boards, Limit(depth=depth))]


def test_multi_probcut_margins_by_the_fit_and_its_clamps() -> None:
    """Multi-ProbCut (the knob mpc_fit) cuts by a margin from the fitted spread of the empties and
    depth; clamped to 3 discs from both sides (mpc_floor, mpc_ceil) it is the one margin of 3
    discs, node for node, and unclamped it searches other trees; the fit's terms are knobs."""
    boards = random_endgames(6, 30, 48, seed=2026)
    base = midgame_trees(boards, 9)
    with tuned(mpc_fit=1, mpc_floor=300, mpc_ceil=300):
        assert midgame_trees(boards, 9) == base
    with tuned(mpc_fit=1):
        fitted = midgame_trees(boards, 9)
    assert fitted != base
    # a spread of 3 discs at every depth and stage, one sigma: the one margin again
    with tuned(mpc_fit=1, mpc_a=30000, mpc_b=0, mpc_c=0, mpc_t=100):
        assert midgame_trees(boards, 9) == base
    assert midgame_trees(boards, 9) == base


def test_the_endgame_sorts_8x8_threshold_leaves_the_smaller_boards() -> None:
    """The other sizes keep their own threshold (sort_eval_n, 16: from 12 empties the 6x6
    start's solve took 81.5 s against 68.6 s): 6x6 positions of 13-15 empties take the same
    nodes whatever the 8x8 threshold, and do take others when their own threshold moves."""
    boards = random_endgames(6, 13, 15, seed=97, size=6)
    assert not changes_nodes_not_scores(boards, sort_eval=16)
    assert changes_nodes_not_scores(boards, sort_eval_n=12)


def test_the_midgame_search_solves_its_nodes_of_few_empties_exactly() -> None:
    """A midgame search (probcut on, no hand-over to the solver) one ply short of the end of a
    position of 7-12 empties scores it exactly: every child has at most 12 empties and no more
    than 4 beyond its plies left, so the solver scores it, through windows converted from
    centi-discs to discs. Without those solves the same search ends on evaluated positions and
    is off on most of them. The exact scores are the solver's (and the reference's up to 9
    empties)."""
    from othello_engine import weights
    assert weights.ensure_loaded()
    boards = random_endgames(40, 7, 12, seed=83)

    def midgame(b: Board) -> int:
        s = _core.Search(1)
        lines, depth, _, exact = s.run(b.player, b.opponent, _core.FULL_MASK, b.empties - 1,
                                       solve_lead=0, pattern=True)
        assert depth == b.empties - 1 and not exact
        return lines[0][1]

    exact = [Engine(hash_mb=1).search(b, Limit(exact=True)).score for b in boards]
    assert [midgame(b) for b in boards] == exact
    for b, score in zip(boards, exact):
        if b.empties <= 9:
            assert score // 100 == solve(b)
    with tuned(mid_solve=0):
        evaluated = [midgame(b) for b in boards]
    assert sum(a != b for a, b in zip(evaluated, exact)) > len(boards) // 2


def test_the_midgame_solves_score_a_draw_as_the_contempt() -> None:
    """With a contempt of at most 100 centi-discs (NBoard's draws to Black, to White or to
    neither) the midgame search still solves its nodes of few empties: one ply short of the end,
    a position whose exact result is a draw scores the contempt, any other its disc difference,
    through windows whose ends the draw's worth moves (37 and -1 fall between whole discs, 100 and
    -100 on them). Draws are a good share of the positions tested."""
    from othello_engine import weights
    assert weights.ensure_loaded()
    boards = random_endgames(400, 7, 11, seed=91)
    exact = [Engine(hash_mb=1).search(b, Limit(exact=True)).score for b in boards]
    draws = [b for b, e in zip(boards, exact) if e == 0]
    others = [(b, e) for b, e in zip(boards, exact) if e != 0][:24]
    assert len(draws) >= 6
    for contempt in (100, 37, -1, -100):
        for b, e in [(b, 0) for b in draws] + others:
            s = _core.Search(1)
            lines, depth, _, done = s.run(b.player, b.opponent, _core.FULL_MASK, b.empties - 1,
                                          solve_lead=0, pattern=True, contempt=contempt)
            assert depth == b.empties - 1 and not done
            assert lines[0][1] == (contempt if e == 0 else e), (contempt, b.cells(), e)


def test_the_solve_windows_give_the_exact_score_however_they_step() -> None:
    """A solve's first window is centred on the midgame estimate; when it fails, the next windows
    test one score each (up to a number of steps, the core's eg_steps) before opening on that
    side. The exact score is the same whether the windows step 0, 1, 4 or 60 times, and equals the
    reference solver's on those of 9 empties or fewer, on random positions of 8-14 empties
    whose estimates are often off by several discs."""
    boards = random_endgames(60, 8, 14, seed=79)
    scores = {}
    for steps in (0, 1, 4, 60):
        with tuned(eg_steps=steps):
            scores[steps] = [Engine(hash_mb=1).search(b, Limit(exact=True)).score for b in boards]
    assert scores[0] == scores[1] == scores[4] == scores[60]
    small = [(b, score) for b, score in zip(boards, scores[4]) if b.empties <= 9]
    assert small
    for b, score in small:
        assert score == 100 * solve(b)


# --- always a legal answer ----------------------------------------------------------------------
@pytest.mark.parametrize("size", [4, 6, 8])
def test_search_answers_legally_in_random_positions(size: int) -> None:
    rng = random.Random(size)
    engine = Engine(hash_mb=4)
    for game in range(4):
        b = Board(size)
        while True:
            limit = rng.choice([Limit(depth=1), Limit(depth=3), Limit(nodes=500), Limit(depth=6)])
            r = engine.search(b, limit)
            if b.is_game_over():
                assert r.best_move is None
                break
            legal = b.legal_moves()
            if legal:
                assert r.best_move in legal
            else:
                assert r.best_move == PASS
            # the principal variation is a legal sequence from here
            pv_board = b.copy()
            for move in r.pv:
                pv_board.push(move)           # raises IllegalMoveError if not
            b.push(r.best_move)


def test_forced_pass_is_reported_with_the_opponents_line() -> None:
    rng = random.Random(7)
    found = 0
    for _ in range(400):
        b = random_board(6, rng.randint(10, 30), rng)
        if not b.must_pass():
            continue
        r = Engine(hash_mb=4).search(b, Limit(depth=4))
        assert r.best_move == PASS and r.pv[0] == PASS
        found += 1
        if found >= 3:
            break
    assert found


# --- limits and control -------------------------------------------------------------------------
def test_node_limit_holds() -> None:
    b = random_board(8, 20, random.Random(3))
    for nodes in (1, 100, 5000, 40000):
        r = Engine(hash_mb=4).search(b, Limit(nodes=nodes))
        assert r.nodes <= nodes
        assert r.best_move in b.legal_moves()


def test_depth_limit_and_reported_iterations() -> None:
    b = random_board(8, 16, random.Random(5))
    infos = []
    r = Engine(hash_mb=4).search(b, Limit(depth=5), on_info=infos.append)
    assert r.depth == 5
    assert [i.depth for i in infos] == [1, 2, 3, 4, 5]
    assert all(i.nodes <= j.nodes for i, j in zip(infos, infos[1:]))
    assert infos[-1].pv == r.pv and not r.exact


def test_root_move_subset() -> None:
    b = random_board(8, 14, random.Random(11))
    legal = b.legal_moves()
    subset = legal[-1:]
    r = Engine(hash_mb=4).search(b, Limit(depth=4), root_moves=subset)
    assert r.best_move == subset[0]


def test_multipv_lines_are_distinct_legal_and_ordered() -> None:
    b = random_board(8, 18, random.Random(2))
    legal = b.legal_moves()
    k = min(4, len(legal))
    engine = Engine(hash_mb=4)
    engine.selective = False          # probcut's cuts depend on the window: compare plain searches
    r = engine.search(b, Limit(depth=5), multipv=k)
    moves = [line.move for line in r.lines]
    scores = [line.score for line in r.lines]
    assert len(moves) == k and len(set(moves)) == k and set(moves) <= set(legal)
    assert scores == sorted(scores, reverse=True)
    # each line's score is what a single-line search restricted to that move finds
    for line in r.lines:
        single = Engine(hash_mb=4)
        single.selective = False
        alone = single.search(b, Limit(depth=5), root_moves=[line.move])
        assert alone.score == line.score


@needs_ffo
def test_contempt_scores_a_proven_draw() -> None:
    board, scored = parse_obf(ffo_line(4))
    assert max(s for _, s in scored) == 0
    engine = Engine(hash_mb=8, contempt=37)
    r = engine.search(board, Limit(exact=True))
    assert r.exact and r.score == 37


def test_table_resize_and_clear() -> None:
    s = _core.Search(2)
    assert s.hash_mb == 2
    s.resize(3)
    assert s.hash_mb == 3
    s.clear()
    b = Board()
    lines, depth, nodes, exact = s.run(b.player, b.opponent, b.mask, 4)
    assert depth == 4 and lines[0][0] in b.legal_moves() and nodes > 0 and not exact
    with pytest.raises(ValueError):
        s.resize(0)


FAILED_RESIZE_CHILD = """
import resource, sys
from othello_engine import _core
from othello_engine.board import Board
s = _core.Search(8)
b = Board()
first = s.run(b.player, b.opponent, b.mask, 7)
# cap the address space a little above what the process holds now, so 4 GiB can not be had
with open("/proc/self/status") as status:
    vm = next(int(line.split()[1]) for line in status if line.startswith("VmSize:")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + (64 << 20), resource.getrlimit(resource.RLIMIT_AS)[1]))
try:
    s.resize(4096)
except MemoryError:
    pass
else:
    sys.exit("resize(4096) did not fail under the address-space limit")
assert s.hash_mb == 8, s.hash_mb
again = s.run(b.player, b.opponent, b.mask, 7)
assert again[0][0][0] in b.legal_moves() and again[1] == 7
# the old table is freed before the new one is tried (the two never take memory at once), so the
# size is kept but the table is cleared: the same search again takes the same nodes
assert again[2] == first[2], (again[2], first[2])
print("ok")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs RLIMIT_AS and /proc")
def test_failed_resize_keeps_the_old_size() -> None:
    # in a child process: a capped address space makes the allocation fail without risk here
    proc = subprocess.run([sys.executable, "-c", FAILED_RESIZE_CHILD], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


# --- evaluation -------------------------------------------------------------------------------
def test_evaluation_breakdown_sums_and_is_symmetric() -> None:
    classic = Engine(hash_mb=1, evaluation_kind="classic")
    pattern = Engine(hash_mb=1)
    families = [name for name, _, _ in _core.PATTERN_FAMILIES]
    scalars = ["pattern_" + name for name in _core.PATTERN_SCALARS]
    rng = random.Random(9)
    for _ in range(30):
        b = random_board(8, rng.randint(4, 50), rng)
        if b.is_game_over():
            continue
        terms = classic.evaluation(b)
        total = terms.pop("total")
        assert set(terms) == {"discs", "mobility", "potential_mobility", "corners", "x_squares",
                              "c_squares", "position", "stability", "parity"}
        assert total == max(-6300, min(6300, sum(terms.values())))
        for k in range(1, 8):
            p = _core.symmetry(b.player, k)
            o = _core.symmetry(b.opponent, k)
            assert _core.evaluate_position(p, o) == total
        # the pattern breakdown: the same named features, their sum, then the pattern's parts
        full = pattern.evaluation(b)
        assert {k: full[k] for k in terms} == terms and full["classic"] == total
        assert full["pattern"] == sum(full[k] for k in families + scalars)
        assert full["total"] == max(-6300, min(6300, full["pattern"]))
    start = Board()
    assert classic.evaluation(start)["total"] == 0


# --- best-move stability (on by default) --------------------------------------------------------
def test_best_move_stability_is_on_by_default() -> None:
    """Clock games share their time by the best move's stability unless the knob is set off."""
    before = _core._set_tuning("tm_stability", 0)
    _core._set_tuning("tm_stability", before)
    assert before == 1


def test_settled_best_move_shortens_a_clock_search_never_a_movetime() -> None:
    """With tm_stability on, a best move that has stood for three iterations scales the soft
    limit (here to 1%): a clock search (soft < hard) stops far earlier than without; a movetime
    search (soft == hard) is not shortened."""
    board = Board()
    for m in ("f5", "d6", "c3", "d3", "c4"):
        board.push_str(m)

    def depth(soft: float, hard: float) -> int:
        s = _core.Search(16)
        return s.run(board.player, board.opponent, _core.FULL_MASK, 60, 0, soft, hard)[1]

    with tuned(tm_stability=0):
        base_clock = depth(0.5, 2.0)
    with tuned(tm_stability=1, tm_settled=1):
        settled_clock = depth(0.5, 2.0)
        settled_movetime = depth(0.3, 0.3)
    assert settled_clock < base_clock - 3
    assert settled_movetime > settled_clock
