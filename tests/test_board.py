"""Board against the reference rules: moves, passes, game end, scores, undo, and errors that change nothing."""

from __future__ import annotations

import doctest
import random

import pytest

import reference_rules as ref
from othello_engine import board as board_module
from othello_engine import perft as perft_module
from othello_engine.board import (BLACK, PASS, WHITE, Board, IllegalMoveError, InvalidBoardError,
                                  InvalidSquareError, OthelloError, canonical, parse_square, square_name)

SIZES = [3, 4, 5, 6, 7, 8]


def start_board(size: int) -> Board:
    """The standard start for even sizes, the reference's hand-made start for odd ones."""
    if size % 2 == 0:
        return Board(size)
    return Board.from_cells(ref.grid_text(ref.start_grid(size)), "X")


def snapshot(b: Board) -> tuple:
    return (b.size, b.black, b.white, b.turn, list(b.move_stack), b.fen())


def test_doctests_of_board_and_perft() -> None:
    for module in (board_module, perft_module):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_standard_starts() -> None:
    for size in (4, 6, 8):
        assert start_board(size).cells() == ref.grid_text(ref.start_grid(size))
        assert Board(size).turn == BLACK
    assert Board() == Board(8)
    b = Board()
    assert b.white == (1 << parse_square("d4")) | (1 << parse_square("e5"))


@pytest.mark.parametrize("size", SIZES)
def test_random_games_match_reference(size: int) -> None:
    rng = random.Random(4000 + size)
    for _ in range(40 if size < 6 else 12):
        board = start_board(size)
        start = board.copy()
        game = ref.random_game(size, rng, ref.start_grid(size))
        history = []
        for grid, color, move in game:
            assert board.cells() == ref.grid_text(grid)
            assert board.turn == (BLACK if color == ref.BLACK else WHITE)
            assert board.legal_moves() == [ref.square_index(m) for m in ref.legal_moves(grid, color)]
            st = ref.status(grid, color)
            assert board.must_pass() == (st == "pass")
            assert board.is_game_over() == (st == "over")
            assert board.count(BLACK) == ref.count(grid, ref.BLACK)
            assert board.count(WHITE) == ref.count(grid, ref.WHITE)
            assert board.empties == size * size - ref.count(grid, ref.BLACK) - ref.count(grid, ref.WHITE)
            if st == "over":
                score = ref.final_score(grid)
                assert board.disc_difference() == score
                assert board.winner() == (BLACK if score > 0 else WHITE if score < 0 else None)
                assert board.legal_moves() == [] and not board.is_legal(PASS)
                break
            assert board.winner() is None
            history.append(snapshot(board))
            board.push(PASS if move is None else ref.square_index(move))
        # undo the whole game, position by position
        while history:
            board.pop()
            assert snapshot(board) == history.pop()
        assert board == start and board.replay() == start


def test_replay_copy_and_equality() -> None:
    b = Board(6)
    for _ in range(3):
        b.push(b.legal_moves()[-1])
    c = b.copy()
    c.pop()
    assert len(b.move_stack) == 3 and len(c.move_stack) == 2 and b != c
    r = b.replay()
    assert r == Board(6) and r.move_stack == []
    for m in b.move_stack:
        r.push(m)
    assert r == b and hash(r) == hash(b)


def test_disc_difference_before_the_end_is_plain() -> None:
    b = Board()
    b.push_str("f5")
    assert b.disc_difference() == 4 - 1 and b.winner() is None


@pytest.mark.parametrize("size", SIZES)
def test_illegal_moves_raise_and_change_nothing(size: int) -> None:
    rng = random.Random(5000 + size)
    b = start_board(size)
    for _ in range(3):
        if b.legal_moves():
            b.push(rng.choice(b.legal_moves()))
    before = snapshot(b)
    occupied = next(sq for sq in range(64) if (b.black | b.white) >> sq & 1)
    empty_illegal = [sq for sq in range(64) if b.mask >> sq & 1 and not (b.black | b.white) >> sq & 1
                     and sq not in b.legal_moves()]
    bad = [occupied, *empty_illegal[:3]]
    if size < 8:
        bad.append(size)            # row 0, column `size`: just off the board
    if b.legal_moves():
        bad.append(PASS)            # a pass while a move exists
    for move in bad:
        with pytest.raises(IllegalMoveError) as info:
            b.push(move)
        assert (square_name(move) if move != PASS else "pass") in str(info.value)
        assert snapshot(b) == before
    for move in (-1, 65, 200, "d3", None, True):
        with pytest.raises(OthelloError):
            b.push(move)  # type: ignore[arg-type]
        assert snapshot(b) == before
    with pytest.raises(InvalidSquareError, match="'z9'"):
        b.push_str("z9")
    assert snapshot(b) == before


def test_moves_after_the_game_is_over_are_refused() -> None:
    b = Board.from_cells("XXX" "XXX" "XX-", "O")     # no white disc left: nobody can move
    assert b.is_game_over()
    before = snapshot(b)
    for move in (8 * 2 + 2, PASS):
        with pytest.raises(IllegalMoveError, match="game is over"):
            b.push(move)
    assert snapshot(b) == before
    assert b.disc_difference() == 9 and b.winner() == BLACK


def test_pass_is_played_when_forced() -> None:
    b = Board.from_cells("XO-" "---" "---", "O")     # white cannot move, black can
    assert b.must_pass() and b.is_legal(PASS) and not b.is_legal(2)
    with pytest.raises(IllegalMoveError, match="must pass"):
        b.push(2)
    b.push_str("PA")
    assert b.turn == BLACK and b.move_stack == [PASS] and b.legal_moves() == [2]
    assert b.pop() == PASS and b.turn == WHITE


def test_pop_on_a_fresh_board() -> None:
    with pytest.raises(IndexError):
        Board().pop()


@pytest.mark.parametrize("size", [2, 9, 0, -4, 8.0, "8", True])
def test_bad_sizes(size: object) -> None:
    with pytest.raises(InvalidBoardError, match=repr(size).replace(".", r"\.")):
        Board(size)  # type: ignore[arg-type]


def test_odd_sizes_have_no_standard_start() -> None:
    for size in (3, 5, 7):
        with pytest.raises(InvalidBoardError, match=f"{size}x{size}"):
            Board(size)


def test_from_discs_checks_everything() -> None:
    with pytest.raises(InvalidBoardError, match="both"):
        Board.from_discs(8, 1, 1, BLACK)
    with pytest.raises(InvalidBoardError, match="outside"):
        Board.from_discs(4, 1 << 4, 0, BLACK)
    with pytest.raises(InvalidBoardError, match="side to move"):
        Board.from_discs(8, 1, 2, 2)
    with pytest.raises(InvalidBoardError, match="-1"):
        Board.from_discs(8, -1, 0, BLACK)
    with pytest.raises(InvalidBoardError, match=str(1 << 64)):
        Board.from_discs(8, 1 << 64, 0, BLACK)
    b = Board.from_discs(5, 1, 2, WHITE)
    assert b.player == 2 and b.opponent == 1 and b.size == 5


def test_count_and_canonical_refuse_what_is_not_on_the_board() -> None:
    board = Board()
    assert board.count(BLACK) == board.count(WHITE) == 2
    for colour in (2, -1, "black"):
        with pytest.raises(OthelloError, match="colour"):
            board.count(colour)  # type: ignore[arg-type]
    with pytest.raises(InvalidBoardError, match="4x4"):
        canonical(1 << 63, 1 << 40, 4)  # discs off the 4x4 board are not silently dropped
    with pytest.raises(InvalidBoardError, match="overlap"):
        canonical(1 << 9, 1 << 9, 8)
    with pytest.raises(InvalidBoardError):
        canonical(-1, 0, 8)
