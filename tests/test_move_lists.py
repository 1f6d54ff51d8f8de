"""The one move-list grammar (othello_engine.notation), in the library and in every tool that reads
move lists: a forced pass may be left out, an explicit pass is accepted where it is legal, and every
reader gives the position the reference rules give."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from uci_support import command

import reference_rules as rr
from othello_engine.board import Board, square_name
from othello_engine.notation import MoveListError, move_tokens, parse_moves, play_moves

# Black has no move after white's h1, so white plays c2 at once: the pass is left out.
IMPLICIT = "e6d6c4d3c7b5d2e2f2f1b3d7d8g2h2h3a6h1c2"
EXPLICIT = "e6d6c4d3c7b5d2e2f2f1b3d7d8g2h2h3a6h1 pass c2"


def reference_cells(moves: str, size: int = 8) -> tuple[str, str]:
    """Cells and side to move after a move list, by the reference rules (passes played when forced)."""
    grid, color = rr.start_grid(size), rr.BLACK
    for tok in move_tokens(moves, size):
        if tok.lower() in ("pass", "pa", "ps", "0000", "@@"):
            assert rr.status(grid, color) == "pass"
            color = rr.other(color)
            continue
        if rr.status(grid, color) == "pass":
            color = rr.other(color)
        move = (int(tok[1:]) - 1, "abcdefghijklmnopqrstuvwxyz".index(tok[0].lower()))
        assert move in rr.legal_moves(grid, color)
        grid, color = rr.play(grid, color, move), rr.other(color)
    return rr.grid_text(grid), ("X" if color == rr.BLACK else "O")


def test_the_opening_needs_a_pass():
    cells, side = reference_cells(IMPLICIT)
    board = parse_moves(IMPLICIT)
    assert (board.cells(), "XO"[board.turn]) == (cells, side)
    assert [square_name(m) for m in board.move_stack[-3:]] == ["h1", "pass", "c2"]


@pytest.mark.parametrize("text", [EXPLICIT, EXPLICIT.replace("pass", "PA"), EXPLICIT.replace(" pass ", "@@"),
                                  "E6-D6-C4-D3-C7-B5-D2-E2-F2-F1-B3-D7-D8-G2-H2-H3-A6-H1-C2",
                                  "e6 d6, c4 d3 c7 b5 d2 e2 f2 f1 b3 d7 d8 g2 h2 h3 a6 h1 c2"])
def test_spellings_agree(text):
    assert parse_moves(text) == parse_moves(IMPLICIT)


def test_a_pass_that_is_not_forced_is_refused():
    with pytest.raises(MoveListError) as err:
        parse_moves("f5 pass d6")
    assert (err.value.index, err.value.token) == (2, "pass")


@pytest.mark.parametrize("text, index, token", [("f5d6x9", 3, "x9"), ("f5 d6 c3 c3", 4, "c3"), ("f5 ?", 2, "?")])
def test_errors_name_the_move(text, index, token):
    with pytest.raises(MoveListError) as err:
        parse_moves(text)
    assert (err.value.index, err.value.token) == (index, token)


def test_the_board_is_never_changed_by_a_bad_list():
    board = parse_moves("f5")
    with pytest.raises(MoveListError):
        play_moves(board, "d6 c3 c3")
    assert board == parse_moves("f5")


@pytest.mark.parametrize("size", [4, 6, 10, 12, 26])
def test_random_games_with_passes_left_out_match_the_reference(size):
    rng = random.Random(size)
    for _ in range(20 if size < 12 else 3):
        board, names = Board(size), []
        while not board.is_game_over():
            move = rng.choice(board.legal_moves() or [1024])
            board.push(move)
            if move != 1024:
                names.append(square_name(move, size))
        text = "".join(names)       # every pass left out, moves run together (j10k9 on wide boards)
        assert parse_moves(text, size) == board
        assert (board.cells(), "XO"[board.turn]) == reference_cells(text, size)


# --- the tools, each through its real entry point ------------------------------------------------

def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "othello_engine", *args], input=stdin, text=True,
                          capture_output=True, timeout=120)


def expected_fen() -> str:
    return parse_moves(IMPLICIT).fen()


def test_uci_position():
    out = run(stdin=f"uci\nposition startpos moves {IMPLICIT}\nd\nposition startpos moves {EXPLICIT}\nd\nquit\n")
    assert "error" not in out.stdout
    fens = [line.split(" ", 1)[1] for line in out.stdout.splitlines() if line.startswith("fen ")]
    assert fens == [expected_fen()] * 2


def test_nboard_move_leaves_out_the_pass():
    moves = "\n".join(f"move {m}" for m in move_tokens(IMPLICIT))
    out = run(stdin=f"nboard 2\nset depth 2\nset game (;GM[Othello]PB[a]PW[b]TY[8];)\n{moves}\nping 1\n")
    assert "pong 1" in out.stdout and "error" not in out.stdout.lower()


def test_gtp_play_leaves_out_the_pass():
    colours = "bw" * 9
    plays = "".join(f"play {c} {m}\n" for c, m in zip(colours, move_tokens(IMPLICIT)[:18]))
    out = run(stdin=f"1 name\n{plays}play w c2\nshowboard\nquit\n")
    assert "?" not in out.stdout, out.stdout


def test_analyze_reads_the_list(tmp_path):
    path = tmp_path / "games.txt"
    path.write_text(IMPLICIT + "\n")
    out = subprocess.run([command("othello-analyze"), "--depth", "2", "--json", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout.splitlines()[0])
    assert record["fen"] == expected_fen() and record["format"] == "moves"
    assert "error" not in record


def test_book_add_reads_the_list(tmp_path):
    games = tmp_path / "games.txt"
    games.write_text(IMPLICIT + "\n")
    book = tmp_path / "b.book"
    out = subprocess.run([command("othello-book"), "--book", str(book), "add", str(games)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr + out.stdout


def test_match_openings_read_the_list(tmp_path):
    openings = tmp_path / "open.txt"
    openings.write_text(IMPLICIT + "\n")
    engine = f"cmd={sys.executable} -P -m othello_engine"
    out = subprocess.run([command("othello-match"), "--engine", engine, "name=a", "depth=1", "--engine", engine, "name=b",
                          "depth=1", "--openings", str(openings), "--games", "2"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr + out.stdout
    assert "skipped" not in (out.stdout + out.stderr).lower()
