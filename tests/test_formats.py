"""Text forms: squares, passes, board strings, relative form, OBF (the FFO suite), UGI FEN, GGF, symmetries."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import reference_rules as ref
from othello_engine import _core
from othello_engine.board import (BLACK, PASS, SYMMETRY_INVERSE, WHITE, Board, IllegalMoveError,
                                  InvalidBoardError, InvalidSquareError, OthelloError, canonical, parse_side,
                                  parse_square, square_name, transform_square)
from othello_engine.ggf import format_ggf, parse_ggf, parse_ggf_games
from othello_engine.notation import format_obf, parse_obf, parse_position

SIZES = [3, 4, 5, 6, 7, 8]
FFO = Path("/work/shared/data/ffo")
FFO_FILES = ["fforum-1-19.obf", "fforum-20-39.obf", "fforum-40-59.obf"]


def random_positions(size: int, seed: int, games: int = 6) -> list[tuple[ref.Grid, str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        out += [(grid, color) for grid, color, _ in ref.random_game(size, rng)]
    return out


def board_of(grid: ref.Grid, color: str) -> Board:
    black, white = ref.bitboards(grid)
    return Board.from_discs(len(grid), black, white, BLACK if color == ref.BLACK else WHITE)


def fen_of(grid: ref.Grid, color: str) -> str:
    """The UGI FEN written the simple way: rank 1 (row 0) first, runs of '.' as digits."""
    ranks = []
    for row in grid:
        text = "".join(row).replace("X", "x").replace("O", "o")
        for n in range(len(row), 0, -1):
            text = text.replace("." * n, str(n))
        ranks.append(text)
    return "/".join(ranks) + " " + ("x" if color == ref.BLACK else "o")


# --- squares and passes -------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_every_square_round_trips(size: int) -> None:
    for r in range(size):
        for c in range(size):
            sq = r * 8 + c
            name = "abcdefgh"[c] + str(r + 1)
            assert square_name(sq) == name
            assert parse_square(name, size) == parse_square(name.upper(), size) == sq
            assert parse_square(f"{r},{c}", size) == parse_square(f" {r}, {c} ", size) == sq


def test_pass_tokens() -> None:
    for token in ("pass", "PASS", "PA", "pa", "0000", "@@"):
        assert parse_square(token) == PASS
    assert square_name(PASS) == "pass"


@pytest.mark.parametrize("text,size", [("i1", 8), ("a9", 8), ("a0", 8), ("e1", 4), ("a5", 4),
                                       ("", 8), ("z", 8), ("a1x", 8), ("8,0", 8), ("3,3", 3),
                                       ("1,2,3", 8), ("a\u00b2", 8), ("\u0661,\u0662", 8), ("-1,0", 8)])
def test_bad_squares(text: str, size: int) -> None:
    with pytest.raises(InvalidSquareError) as info:
        parse_square(text, size)
    assert repr(text) in str(info.value)


def test_bad_square_index() -> None:
    for bad in (-1, 65, 99, "d3", None):
        with pytest.raises(InvalidSquareError, match=repr(bad)):
            square_name(bad)  # type: ignore[arg-type]


# --- board strings ------------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_board_strings_round_trip(size: int) -> None:
    for grid, color in random_positions(size, 6000 + size):
        b = board_of(grid, color)
        text = ref.grid_text(grid)
        assert b.cells() == text
        side = "X" if color == ref.BLACK else "O"
        assert Board.from_cells(text, side) == b
        # the other spellings of the same board
        other = text.replace("X", "b").replace("O", "W").replace("-", ".")
        spaced = " ".join(other[i:i + size] for i in range(0, size * size, size))
        assert Board.from_cells(spaced, {"X": "black", "O": "white"}[side]) == b
        assert Board.from_cells(text.replace("X", "*"), side.lower()) == b
        # the player-relative form
        rel = b.relative_cells()
        assert rel == text.replace("X", "P" if side == "X" else "o").replace(
            "O", "o" if side == "X" else "P").replace("o", "O")
        assert Board.from_relative(rel, b.turn) == b


@pytest.mark.parametrize("cells,side,why", [
    ("-" * 10, "X", "10 cells"), ("-" * 729, "X", "729 cells"), ("-" * 82, "X", "82 cells"), ("-" * 4, "X", "4 cells"),
    ("-" * 15 + "Z", "X", "'Z'"), ("-" * 16, "Q", "'Q'"), ("-" * 16, "", "''")])
def test_bad_board_strings(cells: str, side: str, why: str) -> None:
    with pytest.raises(InvalidBoardError) as info:
        Board.from_cells(cells, side)
    assert why in str(info.value)


def test_non_strings_are_typed_errors() -> None:
    for call in (lambda: Board.from_cells(None, "X"), lambda: Board.from_cells("-" * 9, None),
                 lambda: Board.from_relative(42), lambda: Board.from_fen(None), lambda: parse_obf(3),
                 lambda: parse_square(None), lambda: parse_position(None)):
        with pytest.raises(OthelloError):
            call()


def test_bad_relative_board() -> None:
    with pytest.raises(InvalidBoardError, match="'X'"):
        Board.from_relative("-" * 15 + "X")
    assert parse_side(" w ") == WHITE
    with pytest.raises(InvalidBoardError, match="'wh'"):
        parse_side("wh")
    with pytest.raises(InvalidBoardError, match="side to move"):
        Board.from_relative("-" * 16, 3)


# --- UGI FEN ------------------------------------------------------------------------------------

def test_fen_of_the_start() -> None:
    assert Board().fen() == "8/8/8/3ox3/3xo3/8/8/8 x"
    assert Board(6).fen() == "6/6/2ox2/2xo2/6/6 x"
    assert Board(4).fen() == "4/1ox1/1xo1/4 x"
    assert Board.from_fen("8/8/8/3ox3/3xo3/8/8/8 x 0 1") == Board()


@pytest.mark.parametrize("size", SIZES)
def test_fen_round_trip(size: int) -> None:
    for grid, color in random_positions(size, 7000 + size):
        b = board_of(grid, color)
        fen = fen_of(grid, color)
        assert b.fen() == fen
        assert Board.from_fen(fen) == b
        assert Board.from_fen(fen.upper()) == b


@pytest.mark.parametrize("fen,why", [
    ("8/8/8/3ox3/3xo3/8/8/8", "expected"), ("8/8/8/3ox3/3xo3/8/8/8 z", "side"),
    ("8/8/8/3ox3/3xo3/8/8/8/8 x", "rank 1 has 8 squares, expected 9"), ("/".join(["8"] * 27) + " x", "27 ranks"), ("8/8 x", "2 ranks"),
    ("8/8/8/3ox4/3xo3/8/8/8 x", "rank 4"), ("8/8/8/3ox2/3xo3/8/8/8 x", "rank 4"),
    ("8/8/8/3oxxxxx/3xo3/8/8/8 x", "rank 4"), ("8/8/8/3oy3/3xo3/8/8/8 x", "'y'"),
    ("8/8/8/3ox3/3xo3/8/8/8 x foo", "expected"), ("", "expected"), ("8/8/8/3ox3/3xo3/8/8/0 x", "'0'")])
def test_bad_fens(fen: str, why: str) -> None:
    with pytest.raises(InvalidBoardError) as info:
        Board.from_fen(fen)
    assert repr(fen) in str(info.value) and why in str(info.value)


def test_parse_position_reads_fen_and_board_strings() -> None:
    b = Board(6)
    b.push(b.legal_moves()[0])
    side = "O" if b.turn == WHITE else "X"
    assert parse_position(b.fen()) == b
    assert parse_position(f"{b.cells()} {side}") == b
    assert parse_position(format_obf(b, [(b.legal_moves()[0], 3)])) == b
    for bad in ("", "--------", "x/y z"):
        with pytest.raises(InvalidBoardError) as info:
            parse_position(bad)
        assert repr(bad) in str(info.value)


# --- OBF ----------------------------------------------------------------------------------------

def ffo_lines() -> list[str]:
    return [line for name in FFO_FILES for line in (FFO / name).read_text().splitlines() if line.strip()]


def test_ffo_suite_parses_with_legal_annotations() -> None:
    lines = ffo_lines()
    assert len(lines) == 59
    for line in lines:
        board, scores = parse_obf(line)
        cells, side = line.split(";")[0].split()
        grid = [list(cells[r * 8:(r + 1) * 8].replace("-", ".")) for r in range(8)]
        assert board.cells() == cells
        assert board.turn == (BLACK if side == "X" else WHITE)
        legal = {ref.square_index(m) for m in ref.legal_moves(grid, side)}
        assert scores and {m for m, _ in scores} <= legal
        assert [v for _, v in scores] == sorted((v for _, v in scores), reverse=True)
        assert parse_obf(format_obf(board, scores)) == (board, scores)
        assert format_obf(board, scores) == line.strip()


@pytest.mark.parametrize("size", SIZES)
def test_obf_round_trip_every_size(size: int) -> None:
    for grid, color in random_positions(size, 8000 + size, games=2):
        b = board_of(grid, color)
        scores = [(m, i - 3) for i, m in enumerate(b.legal_moves())]
        assert parse_obf(format_obf(b, scores)) == (b, scores)


@pytest.mark.parametrize("line,why", [
    ("-" * 63 + " X;", "63 cells"), ("-" * 64 + " Y;", "'Y'"), ("-" * 64, "expected"),
    ("-" * 27 + "OX------XO" + "-" * 27 + " X; Z9:+1;", "'Z9:+1'"),
    ("-" * 27 + "OX------XO" + "-" * 27 + " X; A1:+1;", "not a legal move"),
    ("-" * 27 + "OX------XO" + "-" * 27 + " X; F5;", "'F5'"),
    ("-" * 27 + "OX------XO" + "-" * 27 + " X; F5:x;", "'F5:x'")])
def test_bad_obf(line: str, why: str) -> None:
    with pytest.raises(InvalidBoardError) as info:
        parse_obf(line)
    assert why in str(info.value)


# --- GGF ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_ggf_round_trip_random_games(size: int) -> None:
    rng = random.Random(9000 + size)
    for _ in range(5):
        start = ref.start_grid(size)
        b = board_of(start, ref.BLACK)
        for _grid, _color, move in ref.random_game(size, rng, start)[:-1]:
            b.push(PASS if move is None else ref.square_index(move))
        n = len(b.move_stack)
        evals = [None if i % 3 == 0 else round(rng.uniform(-64, 64), 2) for i in range(n)]
        times = [None if i % 4 == 0 else round(rng.uniform(0, 9), 2) for i in range(n)]
        text = format_ggf(b, "alice", "bob", result="+2", evals=evals, times=times, date="2026.11.22")
        rec = parse_ggf(text)
        assert rec.board == b and rec.board.move_stack == b.move_stack
        assert rec.board.replay() == b.replay()
        assert (rec.black, rec.white, rec.result, rec.date) == ("alice", "bob", "+2", "2026.11.22")
        assert rec.evals == evals and rec.times == times
        assert rec.ggf() == text


def test_ggf_implicit_pass_and_several_games() -> None:
    # 3x3: white cannot move after black's first move here, so black moves twice in a row
    start = Board.from_cells("XO-" "---" "---", "O")
    text = f"(;GM[Othello]TY[3]BO[3 {start.cells().replace('X', '*')} O]B[c1];)"
    rec = parse_ggf(text)
    assert rec.board.move_stack == [PASS, 2]
    assert "W[PA]B[C1]" in rec.ggf()
    two = parse_ggf_games(text + "\n" + format_ggf(Board()) + "\n")
    assert [len(r.board.move_stack) for r in two] == [2, 0]


def test_ggf_without_board_uses_the_standard_start() -> None:
    rec = parse_ggf("(;GM[Othello]PC[x]TY[8r]B[f5]W[f6];)")
    assert [square_name(m) for m in rec.board.move_stack] == ["f5", "f6"]
    assert rec.tags == {"GM": "Othello", "TY": "8r"} and rec.place == "x"


@pytest.mark.parametrize("text,why", [
    ("GM[Othello]", "(;"), ("(;GM[Chess];)", "'Chess'"), ("(;GM[Othello]B[z9];)", "'z9'"),
    ("(;GM[Othello]B[a1];)", "a1"), ("(;GM[Othello]W[f5];)", "side not to move"),
    ("(;GM[Othello]BO[8 ---- *];)", "4 cells"), ("(;GM[Othello]BO[8];)", "expected"),
    ("(;GM[Othello] junk B[f5];)", "junk")])
def test_bad_ggf(text: str, why: str) -> None:
    with pytest.raises(InvalidBoardError) as info:
        parse_ggf(text)
    assert why in str(info.value)


def test_illegal_ggf_move_is_an_othello_error() -> None:
    with pytest.raises(OthelloError):
        parse_ggf("(;GM[Othello]B[f5]W[f5];)")
    assert issubclass(IllegalMoveError, ValueError) and issubclass(InvalidBoardError, ValueError)


# --- symmetries ---------------------------------------------------------------------------------

def image_square(r: int, c: int, k: int, size: int) -> tuple[int, int]:
    """Symmetry k as its definition says: mirror columns, then rows, then transpose."""
    if k & 1:
        c = size - 1 - c
    if k & 2:
        r = size - 1 - r
    if k & 4:
        r, c = c, r
    return r, c


@pytest.mark.parametrize("size", SIZES)
def test_symmetries_of_squares_and_bitboards(size: int) -> None:
    perms = set()
    for k in range(8):
        perm = []
        for r in range(size):
            for c in range(size):
                ir, ic = image_square(r, c, k, size)
                assert transform_square(r * 8 + c, k, size) == ir * 8 + ic
                assert transform_square(ir * 8 + ic, SYMMETRY_INVERSE[k], size) == r * 8 + c
                assert _core.symmetry(1 << (r * 8 + c), k, size) == 1 << (ir * 8 + ic)
                perm.append(ir * 8 + ic)
        perms.add(tuple(perm))
        assert transform_square(PASS, k, size) == PASS
        assert _core.symmetry(_core.board_mask(size), k, size) == _core.board_mask(size)
    assert len(perms) == 8


@pytest.mark.parametrize("size", SIZES)
def test_canonical_is_shared_by_all_images_and_maps_moves_back(size: int) -> None:
    for grid, color in random_positions(size, 10000 + size, games=3):
        b = board_of(grid, color)
        P, O, mask = b.player, b.opponent, b.mask
        cp, co, k = canonical(P, O, size)
        assert (cp, co) == (_core.symmetry(P, k, size), _core.symmetry(O, k, size))
        assert (cp, co) == min((_core.symmetry(P, j, size), _core.symmetry(O, j, size)) for j in range(8))
        for j in range(8):
            assert canonical(_core.symmetry(P, j, size), _core.symmetry(O, j, size), size)[:2] == (cp, co)
        for mc in squares_of(_core.legal_moves(cp, co, mask)):
            mo = transform_square(mc, SYMMETRY_INVERSE[k], size)
            assert b.is_legal(mo)
            assert _core.symmetry(_core.flipped_discs(P, O, mo), k, size) == _core.flipped_discs(cp, co, mc)
        assert len(b.legal_moves()) == _core.popcount(_core.legal_moves(cp, co, mask))


def squares_of(bb: int) -> list[int]:
    return [sq for sq in range(64) if bb >> sq & 1]


def test_bad_symmetry_arguments() -> None:
    with pytest.raises(InvalidSquareError, match="'?36'?"):
        transform_square(36, 1, 4)
    with pytest.raises(ValueError, match="8"):
        transform_square(0, 8)
    with pytest.raises(InvalidBoardError, match="27"):
        canonical(0, 0, 27)


def test_ggf_text_fields_with_brackets_stay_readable() -> None:
    """A player name or place with ']' (an engine called 'v2[beta]') must not end its property early."""
    board = Board()
    board.push_str("f5")
    text = format_ggf(board, black="v2[beta]", white="a]b", place="lab]1", date="x]", time_control="1]0")
    record = parse_ggf(text)
    assert record.board == board and record.black == "v2[beta]" and record.white == "a]b"
    assert record.place == "lab]1" and record.date == "x]" and record.time_control == "1]0"
    assert parse_ggf(format_ggf(board, result="+64.00:r]")).result == "+64.00:r]"
