"""Boards of 9x9 to 26x26: the rules, notation and formats through Board, checked against the
reference rules (tests/reference_rules.py), and the engine process driven over pipes on 10x10 and
26x26 as a GUI would."""

from __future__ import annotations

import random

import pytest

import reference_rules as rr
from othello_engine import _core
from othello_engine.board import (BLACK, FILES, PASS, SYMMETRY_INVERSE, WHITE, Board, IllegalMoveError,
                                  InvalidBoardError, InvalidSquareError, canonical, parse_square, perft_count,
                                  square_name, transform_square)
from othello_engine.ggf import format_ggf, parse_ggf
from othello_engine.notation import format_obf, parse_obf, parse_position
from othello_engine.perft import perft
from uci_support import EngineProcess, Ref

WIDE = list(range(9, 27))


def ref_moves(grid: rr.Grid, color: str, size: int) -> list[int]:
    return [r * size + c for r, c in rr.legal_moves(grid, color)]


def ref_discs(grid: rr.Grid) -> tuple[int, int]:
    """(black, white) bitboards of a grid in the dense numbering of boards beyond 8x8."""
    size = len(grid)
    black = white = 0
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell == rr.BLACK:
                black |= 1 << (r * size + c)
            elif cell == rr.WHITE:
                white |= 1 << (r * size + c)
    return black, white


def to_ref(board: Board) -> tuple[rr.Grid, str]:
    return rr.grid_from_text(board.cells()), rr.BLACK if board.turn == BLACK else rr.WHITE


# --- the rules, move by move against the reference ----------------------------------------------------

@pytest.mark.parametrize("size", WIDE)
def test_random_game_matches_the_reference_move_by_move(size: int) -> None:
    rng = random.Random(size)
    # odd sizes have no standard start: the reference's centre start (just above-left of the middle)
    grid = rr.start_grid(size)
    board = Board(size) if size % 2 == 0 else Board.from_cells(rr.grid_text(grid), "X")
    color = rr.BLACK
    assert board.cells() == rr.grid_text(grid)
    plies = 0
    while True:
        expected = ref_moves(grid, color, size)
        assert board.legal_moves() == expected, (size, plies)
        status = rr.status(grid, color)
        assert board.is_game_over() == (status == "over")
        assert board.must_pass() == (status == "pass")
        if status == "over":
            break
        if status == "pass":
            move, sq = None, PASS
        else:
            move = rng.choice(rr.legal_moves(grid, color))
            sq = move[0] * size + move[1]
            flips = rr.flips(grid, color, *move)
            p, o = board.player, board.opponent
            assert _core.flipped_discs_n(p, o, sq, size) == sum(1 << (r * size + c) for r, c in flips)
        board.push(sq)
        grid, color = rr.play(grid, color, move), rr.other(color)
        assert (board.black, board.white) == ref_discs(grid)
        assert board.turn == (BLACK if color == rr.BLACK else WHITE)
        plies += 1
    assert board.disc_difference() == rr.final_score(grid)
    assert _core.final_disc_difference_n(board.player, board.opponent, size) == (
        rr.final_score(grid) * (1 if board.turn == BLACK else -1))
    assert plies >= size * size // 3       # a real game, not a stalled one
    # the whole game undoes to the start
    while board.move_stack:
        board.pop()
    assert board.cells() == rr.grid_text(rr.start_grid(size))


@pytest.mark.parametrize("size", [9, 10, 13, 16, 21, 26])
def test_random_positions_legal_moves_and_flips_match_the_reference(size: int) -> None:
    rng = random.Random(1000 + size)
    for _ in range(6):
        grid = rr.random_grid(size, rng, rng.choice((0.3, 0.6, 0.9)))
        black, white = ref_discs(grid)
        for color, p, o in ((rr.BLACK, black, white), (rr.WHITE, white, black)):
            moves = ref_moves(grid, color, size)
            assert _core.legal_moves_n(p, o, size) == sum(1 << m for m in moves)
            state = {"move": 0, "pass": 1, "over": 2}[rr.status(grid, color)]
            assert _core.game_state_n(p, o, size) == state
            for m in moves[:5]:
                after = rr.play(grid, color, divmod(m, size))
                b2, w2 = ref_discs(after)
                np_, no = _core.make_move_n(p, o, m, size)
                assert (no, np_) == ((b2, w2) if color == rr.BLACK else (w2, b2))


@pytest.mark.parametrize("size,depth", [(10, 4), (12, 4), (14, 3), (16, 3), (18, 3), (20, 3),
                                        (22, 3), (24, 3), (26, 3)])
def test_perft_from_the_start_matches_the_reference(size: int, depth: int) -> None:
    board = Board(size)
    expected = rr.perft(rr.start_grid(size), rr.BLACK, depth)
    assert perft_count(board.player, board.opponent, depth, size) == expected
    result = perft(board, depth)
    assert result.total == expected
    assert [square_name(m, size) for m, _ in result.per_move] == Ref(size).moves()


def test_symmetries_and_canonical_form_on_a_wide_board() -> None:
    rng = random.Random(7)
    size = 11
    grid = rr.random_grid(size, rng, 0.5)
    black, white = ref_discs(grid)
    images = set()
    for k in range(8):
        image = 0
        for r in range(size):
            for c in range(size):
                if black >> (r * size + c) & 1:
                    image |= 1 << transform_square(r * size + c, k, size)
        assert image == _core.symmetry_n(black, k, size)
        # k then its inverse is the identity, square by square
        assert all(transform_square(transform_square(sq, k, size), SYMMETRY_INVERSE[k], size) == sq
                   for sq in range(size * size))
        images.add((_core.symmetry_n(black, k, size), _core.symmetry_n(white, k, size)))
    p, o, k = canonical(black, white, size)
    assert (p, o) == min(images)
    assert (_core.symmetry_n(black, k, size), _core.symmetry_n(white, k, size)) == (p, o)
    # the corners are the images of a1 under the 8 symmetries
    corners = {transform_square(0, k, size) for k in range(8)}
    assert corners == {0, size - 1, size * (size - 1), size * size - 1}


# --- notation and formats --------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [9, 10, 26])
def test_square_names_round_trip(size: int) -> None:
    names = [square_name(sq, size) for sq in range(size * size)]
    assert len(set(names)) == size * size
    assert names[0] == "a1" and names[-1] == f"{FILES[size - 1]}{size}"
    assert all(parse_square(n, size) == sq and parse_square(n.upper(), size) == sq
               for sq, n in enumerate(names))
    assert parse_square(f"{size - 1},{size - 1}", size) == size * size - 1
    assert square_name(PASS, size) == "pass" and parse_square("pass", size) == PASS


def test_two_digit_rows_and_squares_off_the_board() -> None:
    assert parse_square("j10", 10) == 99 and square_name(99, 10) == "j10"
    assert parse_square("z26", 26) == 675 and parse_square("a10", 26) == 9 * 26
    for text, size in (("k1", 10), ("a11", 10), ("j10", 9), ("a27", 26), ("a100", 26)):
        with pytest.raises(InvalidSquareError):
            parse_square(text, size)
    with pytest.raises(InvalidSquareError):
        square_name(100, 10)
    # a square of a wide board is not the 8x8 frame's: b2 is 11 on 10x10, 9 on 8x8
    assert parse_square("b2", 10) == 11 and parse_square("b2", 8) == 9


def test_the_start_of_every_even_size() -> None:
    for size in range(4, 27, 2):
        board = Board(size)
        ref = Ref(size)
        assert board.cells() == rr.grid_text(rr.start_grid(size))
        assert board.fen() == ref.fen()
        assert [square_name(m, size) for m in board.legal_moves()] == ref.moves()
        assert Board.from_fen(board.fen()) == board
    assert Board(10).fen() == "10/10/10/10/4ox4/4xo4/10/10/10/10 x"
    for bad in (9, 27, 28, 2):
        with pytest.raises(InvalidBoardError):
            Board(bad)


@pytest.mark.parametrize("size", [10, 26])
def test_board_strings_fen_and_ggf_round_trip(size: int) -> None:
    rng = random.Random(size)
    board = Board(size)
    for _ in range(size * 3):
        if board.is_game_over():
            break
        board.push(rng.choice(board.legal_moves() or [PASS]))
    side = "b" if board.turn == BLACK else "w"
    assert Board.from_cells(board.cells(), side) == board
    assert parse_position(f"{board.cells()} {side}") == board
    assert Board.from_fen(board.fen()) == board and parse_position(board.fen()) == board
    assert Board.from_relative(board.relative_cells(), board.turn) == board
    ranks = board.fen().split()[0].split("/")
    assert len(ranks) == size
    assert any(len(run) == 2 for rank in ranks for run in __import__("re").findall(r"[0-9]+", rank))
    ggf = format_ggf(board, "a", "b")
    assert f"TY[{size}]BO[{size} " in ggf
    assert f"[{square_name(board.move_stack[-1], size).upper()}]" in ggf
    back = parse_ggf(ggf).board
    assert back == board and back.move_stack == board.move_stack
    # TY alone sets up the standard start of that size (no pass can come in the first 6 plies)
    opening = board.move_stack[:6]
    text = f"(;GM[Othello]TY[{size}]" + "".join(
        f"{'B' if i % 2 == 0 else 'W'}[{square_name(m, size)}]" for i, m in enumerate(opening)) + ";)"
    assert parse_ggf(text).board.move_stack == opening


def test_bad_wide_fens_and_board_strings() -> None:
    start = "10/10/10/10/4ox4/4xo4/10/10/10/10"
    for fen, why in ((start.replace("4ox4", "4ox5") + " x", "rank 5"),
                     (start.replace("4ox4", "4ox04") + " x", "'0'"),
                     (start.replace("4ox4", "11") + " x", "rank 5"),
                     ("/".join(["27"] * 27) + " x", "27 ranks")):
        with pytest.raises(InvalidBoardError, match=why):
            Board.from_fen(fen)
    with pytest.raises(InvalidBoardError):
        Board.from_cells("-" * 101, "b")
    with pytest.raises(InvalidBoardError, match="2\\*\\*100"):
        Board.from_discs(10, 1 << 100, 0, BLACK)


def test_obf_stays_8x8() -> None:
    with pytest.raises(InvalidBoardError, match="OBF"):
        parse_obf("-" * 44 + "OX--------XO" + "-" * 44 + " X;")
    with pytest.raises(InvalidBoardError, match="OBF"):
        format_obf(Board(10))


def test_pass_is_no_square_and_old_pass_still_reads_on_8x8() -> None:
    assert PASS == 1024 and all(PASS >= n * n for n in range(3, 27))
    board = Board.from_cells("XO-" "---" "---", "O")   # white must pass
    board.push(64)                                     # the pass of files written before
    assert board.move_stack == [PASS]
    ten = Board(10)
    with pytest.raises(IllegalMoveError):
        ten.push(PASS)
    with pytest.raises(IllegalMoveError):
        ten.push(64)          # g7 on 10x10: a square, and not a legal move at the start


def test_d_drawing_of_a_wide_board_has_two_digit_row_labels() -> None:
    text = str(Board(26)).splitlines()
    assert text[0].split() == list(FILES)
    assert text[1].startswith(" 1 ") and text[26].startswith("26 ")
    assert all(len(row) == len(text[1]) for row in text[1:])


# --- the engine process over pipes ---------------------------------------------------------------------

def d_fields(lines: list[str]) -> dict[str, str]:
    out = {}
    for line in lines:
        key, _, rest = line.partition(" ")
        if key in ("fen", "board", "side", "discs", "legal", "moves"):
            out[key] = rest
    return out


@pytest.fixture
def engine():
    proc = EngineProcess()
    proc.ask("uci", lambda s: s == "uciok")
    yield proc
    proc.close()


def play_ref(size: int, moves: list[str]) -> Ref:
    ref = Ref(size)
    for m in moves:
        ref.play(m)
    return ref


@pytest.mark.parametrize("size", [10, 26])
def test_process_position_d_perft_and_queries(engine, size: int) -> None:
    rng = random.Random(size)
    ref, moves = Ref(size), []
    for _ in range(12):
        m = rng.choice(ref.moves())
        ref.play(m)
        moves.append(m)
    engine.send(f"position startpos {size} moves " + " ".join(moves))
    lines = engine.sync()
    fields = d_fields(lines + engine.ask("d", lambda s: s.startswith("moves")))
    assert fields["fen"] == ref.fen()
    assert fields["legal"].split() == ref.moves()
    assert fields["moves"].split() == moves
    empties = size * size - ref.count("x") - ref.count("o")
    assert fields["discs"] == f"black {ref.count('x')} white {ref.count('o')} empties {empties}"
    # the same position from its FEN and from its board string
    engine.send(f"position fen {ref.fen()}")
    assert engine.sync() == []
    assert d_fields(engine.ask("d", lambda s: s.startswith("moves")))["fen"] == ref.fen()
    engine.send(f"position board {fields['board']}")
    assert engine.sync() == []
    # go perft: one line per root move with the reference's counts, then the total
    engine.send(f"position startpos {size} moves " + " ".join(moves))
    got = engine.ask("go perft 2", lambda s: s.startswith("nodes "), timeout=60)
    per_move = {}
    for line in got[:-1]:
        move, _, n = line.partition(": ")
        per_move[move] = int(n)
    assert list(per_move) == ref.moves()
    for move, n in per_move.items():
        child = ref.copy()
        child.play(move)
        assert n == child.perft(1)
    assert got[-1].startswith(f"nodes {ref.perft(2)} ")
    engine.send("query p1turn")
    assert engine.until(lambda s: s.startswith("response"))[0] == [
        "response " + ("true" if ref.turn == "x" else "false")]
    engine.send("query gameover")
    assert engine.until(lambda s: s.startswith("response"))[0] == ["response false"]


def test_process_bad_input_on_a_wide_board_gets_one_error_line_and_keeps_the_position(engine) -> None:
    engine.send("position startpos 10 moves e4")
    assert engine.sync() == []
    before = d_fields(engine.ask("d", lambda s: s.startswith("moves")))
    for bad, why in (("position startpos 10 moves e4 k11", "k11"),
                     ("position startpos 10 moves e4 j10", "illegal"),
                     ("position startpos 11", "even size"),
                     ("position startpos 28", "even size"),
                     ("position fen 10/10/10/10/4ox4/4xo4/10/10/10/9 x", "rank 10"),
                     ("position board " + "-" * 99 + " b", "99 cells"),
                     ("go searchmoves a1", "searchmoves")):
        engine.send(bad)
        replies = engine.sync()
        assert len(replies) == 1 and replies[0].startswith("info string error: ") and why in replies[0], (
            bad, replies)
    assert d_fields(engine.ask("d", lambda s: s.startswith("moves"))) == before


def test_process_eval_on_a_wide_board(engine) -> None:
    engine.send("position startpos 14 moves g6")
    lines = [s for s in engine.sync()]
    assert lines == []
    got = engine.ask("eval", lambda s: s.startswith("eval total"))
    terms = dict(line.split()[1:3] for line in got)
    assert "total" in terms and "discs" in terms
    # 14x14 has no weights of its own and borrows 12x12's: the learned terms explain it too
    assert {"classic", "edge", "pattern"} <= set(terms)
    # 12x12 has its learned evaluation: the classic terms, then its families and total
    engine.send("position startpos 12 moves f5")
    assert engine.sync() == []
    got = engine.ask("eval", lambda s: s.startswith("eval total"))
    terms = dict(line.split()[1:3] for line in got)
    assert {"classic", "edge", "corner2x5", "pattern_discs", "pattern"} <= set(terms)
    assert terms["total"] == str(max(-6300, min(6300, int(terms["pattern"]))))


@pytest.mark.parametrize("size,go", [(10, "go depth 3"), (10, "go movetime 300"), (26, "go depth 2"),
                                     (26, "go movetime 300")])
def test_process_go_answers_a_legal_move_on_a_wide_board(engine, size: int, go: str) -> None:
    rng = random.Random(size)
    ref, moves = Ref(size), []
    for _ in range(10):
        m = rng.choice(ref.moves())
        ref.play(m)
        moves.append(m)
    engine.send(f"position startpos {size} moves " + " ".join(moves))
    got = engine.ask(go, lambda s: s.startswith("bestmove") or s.startswith("info string error"),
                     timeout=60)
    assert got[-1].startswith("bestmove"), got[-3:]
    best = got[-1].split()[1]
    assert best in ref.moves()
    pvs = [line.split(" pv ")[1].split() for line in got if " pv " in line]
    assert pvs
    for pv in pvs:          # every PV is a legal line of play on that board
        child = ref.copy()
        for m in pv:
            child.play(m)
    assert engine.sync() == []


def test_process_clock_on_26x26_answers_within_its_share(engine) -> None:
    """A 26x26 game has 672 moves: a 60 s clock must not be spent as if 30 moves remained."""
    engine.send("position startpos 26")
    sent = engine.send("go btime 60000 wtime 60000")
    got, stamp = engine.until(lambda s: s.startswith("bestmove"), timeout=30)
    assert got[-1].split()[1] in Ref(26).moves()
    assert stamp - sent < 2.0      # about 60 s / 336 moves each (and far from 60 s / 30)


@pytest.mark.parametrize("threads", [1, 2])
def test_process_exact_solve_on_10x10_matches_the_reference_solver(engine, threads: int) -> None:
    engine.send(f"setoption name Threads value {threads}")
    rng = random.Random(3)
    grid, color = rr.start_grid(10), rr.BLACK
    while sum(row.count(rr.EMPTY) for row in grid) > 9 or rr.status(grid, color) != "move":
        st = rr.status(grid, color)
        if st == "over":      # restart the game: this one ended with too many empties
            grid, color = rr.start_grid(10), rr.BLACK
            continue
        move = rng.choice(rr.legal_moves(grid, color)) if st == "move" else None
        grid, color = rr.play(grid, color, move), rr.other(color)
    cells = rr.grid_text(grid)
    engine.send(f"position board {cells} {'b' if color == rr.BLACK else 'w'}")
    got = engine.ask("go exact", lambda s: s.startswith("bestmove"), timeout=60)
    expected = rr.solve(grid, color)
    last = [line for line in got if " score disc " in line][-1]
    assert int(last.split(" score disc ")[1].split()[0]) == expected
    best = got[-1].split()[1]
    r, c = int(best[1:]) - 1, FILES.index(best[0])
    assert -rr.solve(rr.play(grid, color, (r, c)), rr.other(color)) == expected


def test_python_client_on_10x10() -> None:
    from othello_engine.client import EngineClient
    from othello_engine.engine import Limit
    import sys
    board = Board(10)
    with EngineClient.popen([sys.executable, "-m", "othello_engine"]) as client:
        for _ in range(6):
            result = client.play(board, Limit(depth=2))
            assert result.move in board.legal_moves()
            assert all(0 <= m < 100 for m in result.info.pv)
            board.push(result.move)
    assert len(board.move_stack) == 6 and board.size == 10
