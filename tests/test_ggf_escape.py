"""parse_ggf reads GGF's backslash escapes: ``\\]`` inside a property value does not end it."""

from __future__ import annotations

import pytest

from othello_engine.board import InvalidBoardError, square_name
from othello_engine.ggf import parse_ggf, parse_ggf_games

import reference_rules as ref

START = "BO[8 " + "-" * 27 + "O*------*O" + "-" * 27 + " *]"


def test_an_escaped_bracket_stays_in_the_value() -> None:
    rec = parse_ggf(r"(;GM[Othello]PC[GGS\]os]PB[a\]b]PW[c\\]RE[+2]C[x\]y\]z]TY[8]" + START
                    + "B[F5//1.5]W[d6/-1];)")
    assert (rec.place, rec.black, rec.white, rec.result) == ("GGS]os", "a]b", "c\\", "+2")
    assert rec.tags["C"] == "x]y]z"
    assert [square_name(m) for m in rec.board.move_stack] == ["f5", "d6"]
    assert rec.times == [1.5, None] and rec.evals == [None, -1.0]
    # the position after them is the one the reference rules give (f5 = row 4 col 5, d6 = row 5 col 3)
    grid = ref.play(ref.play(ref.start_grid(8), ref.BLACK, (4, 5)), ref.WHITE, (5, 3))
    assert rec.board.cells() == ref.grid_text(grid)


def test_an_escaped_bracket_inside_a_game_list() -> None:
    games = parse_ggf_games(r"(;GM[Othello]PB[x\]y]" + START + "B[F5];)\n" + r"(;GM[Othello]PW[p\\]" + START
                            + "B[D3];)")
    assert [g.black for g in games] == ["x]y", ""]
    assert [g.white for g in games] == ["", "p\\"]
    assert [[square_name(m) for m in g.board.move_stack] for g in games] == [["f5"], ["d3"]]


def test_an_unescaped_bracket_still_ends_the_value() -> None:
    with pytest.raises(InvalidBoardError, match="unreadable"):
        parse_ggf("(;GM[Othello]PB[a]b]" + START + ";)")


def test_format_ggf_escapes_what_parse_ggf_reads_back() -> None:
    from othello_engine.board import Board
    from othello_engine.ggf import format_ggf
    board = Board()
    for move in ("f5", "d6", "c3"):
        board.push_str(move)
    text = format_ggf(board, black="a]b\\c", white="x;)y", place="p[q]", result="+4")
    rec = parse_ggf(text)
    assert (rec.black, rec.white, rec.place, rec.result) == ("a]b\\c", "x;)y", "p[q]", "+4")
    assert rec.board.move_stack == board.move_stack


def test_a_game_end_inside_a_value_does_not_split_the_game() -> None:
    games = parse_ggf_games("(;GM[Othello]PB[a;)b]" + START + "B[F5];)\n(;GM[Othello]PB[c]"
                            + START + "B[D3];)")
    assert [g.black for g in games] == ["a;)b", "c"]
    assert [[square_name(m) for m in g.board.move_stack] for g in games] == [["f5"], ["d3"]]
