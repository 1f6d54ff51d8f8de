"""The terminal game, played whole through the real program on a pseudo-terminal (pexpect), every
screen checked against the reference rules in othello_engine.board."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import pexpect
import pytest

from othello_engine.board import BLACK, PASS, WHITE, Board, parse_square, square_name, squares
from othello_engine.ggf import format_ggf, parse_ggf
from uci_support import default_sigint

PROMPT = "\r\n> "
ANSI = re.compile(r"\x1b\[[0-9;]*m")
EVENT = re.compile(r"^(?:Engine \((?P<eng>[XO])\) (?:plays (?P<move>[a-h][1-8])|has no legal move and "
                   r"passes)|You \((?P<you>[XO])\) have no legal move and pass)", re.M)


def env(**extra: str) -> dict[str, str]:
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    e["TERM"] = "dumb"
    e.update(extra)
    return e


class Player:
    """Drives ``othello-engine play`` on a pty and mirrors the game on an oracle Board."""

    def __init__(self, args: list[str], board: Optional[Board] = None, **envs: str) -> None:
        self.child = pexpect.spawn(sys.executable, ["-m", "othello_engine", "play", *args],
                                   env=env(**envs), encoding="utf-8", timeout=30,
                                   dimensions=(60, 120), preexec_fn=default_sigint)
        self.board = board if board is not None else Board()
        self.human = WHITE if "--side" in args and args[args.index("--side") + 1] == "white" else BLACK
        self.transcript = ""
        self.screen = self.until_prompt()

    def until_prompt(self) -> str:
        self.child.expect_exact(PROMPT)
        text = self.child.before.replace("\r\n", "\n").replace("\r", "\n")  # spinner lines
        self.transcript += text + "\n> "
        self.apply_events(text)
        return text

    def apply_events(self, text: str) -> None:
        for m in EVENT.finditer(text):
            if m.group("you"):
                assert self.board.turn == self.human and self.board.must_pass(), text
                self.board.push(PASS)
            elif m.group("move"):
                assert self.board.turn != self.human, text
                self.board.push_str(m.group("move"))  # raises if the engine played an illegal move
            else:
                assert self.board.turn != self.human and self.board.must_pass(), text
                self.board.push(PASS)

    def send(self, line: str) -> str:
        self.child.sendline(line)
        self.screen = self.until_prompt()
        return self.screen

    def move(self, sq: int) -> str:
        self.board.push(sq)
        return self.send(square_name(sq))

    def quit(self) -> None:
        self.child.sendline("quit")
        self.child.expect_exact("Bye.")
        self.child.expect(pexpect.EOF)
        self.child.close()
        assert self.child.exitstatus == 0


def drawn_board(screen: str, size: int) -> list[str]:
    """The last board drawn on the screen, as rows of glyphs (``X O * .``), with the framed square."""
    lines = screen.split("\n")
    header = "    " + " ".join("abcdefgh"[:size])
    starts = [i for i, line in enumerate(lines) if line == header]
    assert len(starts) >= 2, screen
    rows = lines[starts[-2] + 1: starts[-1]]
    assert len(rows) == size, screen
    return rows


def expected_rows(board: Board, last: Optional[int], show_legal: bool) -> list[str]:
    n = board.size
    legal = set(board.legal_moves()) if show_legal else set()
    out = []
    for r in range(n):
        s = ""
        for c in range(n):
            sq = r * 8 + c
            glyph = ("X" if board.black >> sq & 1 else "O" if board.white >> sq & 1
                     else "*" if sq in legal else ".")
            sep = "[" if sq == last else "]" if c > 0 and sq - 1 == last else " "
            s += sep + glyph
        s += "]" if last is not None and last == r * 8 + n - 1 else " "
        out.append(f"{r + 1:>2} {s} {r + 1}")
    return out


def check_screen(p: Player) -> None:
    """The board on the screen, the disc counts and the legal moves are those of the oracle."""
    b = p.board
    last = next((m for m in reversed(b.move_stack) if m != PASS), None)
    screen = p.transcript
    assert drawn_board(screen, b.size) == expected_rows(b, last, b.turn == p.human), screen
    tail = screen[screen.rindex("    " + " ".join("abcdefgh"[:b.size])):]
    you = "X" if p.human == BLACK else "O"
    assert f"({you}, you) {b.count(p.human)}" in tail
    if not b.is_game_over():
        legal = " ".join(square_name(m) for m in b.legal_moves())
        assert f"Legal: {legal}" in tail


def play_out(p: Player, rng: random.Random) -> None:
    """Play random legal moves until the game is over, checking every screen."""
    while not p.board.is_game_over():
        assert p.board.turn == p.human
        check_screen(p)
        p.move(rng.choice(p.board.legal_moves()))
    check_screen(p)
    final_check(p)


def final_check(p: Player) -> None:
    b = p.board
    d = b.disc_difference()
    m = re.search(r"Game over: Black (\d+), White (\d+)(?:, (\d+) empty)?\. (.*)", p.screen)
    assert m, p.screen
    assert (int(m.group(1)), int(m.group(2))) == (b.count(BLACK), b.count(WHITE))
    if d == 0:
        assert "A draw." in m.group(4)
    else:
        winner = "Black" if d > 0 else "White"
        assert m.group(4).startswith(f"{winner} wins by {abs(d)}")
        assert ("You win!" in m.group(4)) == ((d > 0) == (p.human == BLACK))


def find_position(size: int, seed: int, want) -> Board:
    """A position reached by random play from the standard start for which want(board) holds."""
    rng = random.Random(seed)
    for _ in range(2000):
        b = Board(size)
        while not b.is_game_over():
            if want(b):
                return Board.from_discs(size, b.black, b.white, b.turn)
            moves = b.legal_moves()
            b.push(rng.choice(moves) if moves else PASS)
    raise AssertionError("no such position found")


def test_whole_game_8x8_with_bad_entries() -> None:
    rng = random.Random(1)
    p = Player(["--no-color", "--depth", "1"])
    check_screen(p)
    # an occupied square, a square that flips nothing, a typo, and a pass that is not forced
    b = p.board
    legal = " ".join(square_name(m) for m in b.legal_moves())
    screen = p.send("d4")
    assert f"Illegal move d4: the square is occupied. Legal moves: {legal}" in screen
    empty_not_legal = next(s for s in squares(b.mask & ~(b.black | b.white)) if not b.is_legal(s))
    screen = p.send(square_name(empty_not_legal).upper())
    assert f"Illegal move {square_name(empty_not_legal)}: it flips no disc. Legal moves: {legal}" in screen
    screen = p.send("z9")
    assert "'z9' is not a move or a command" in screen and f"Legal moves: {legal}" in screen
    screen = p.send("pass")
    assert f"You cannot pass: you have a legal move. Legal moves: {legal}" in screen
    assert p.board == Board() and not p.board.move_stack
    play_out(p, rng)
    p.quit()


def test_engine_moves_first_when_you_play_white() -> None:
    p = Player(["--no-color", "--depth", "1", "--side", "white", "--size", "6"], Board(6))
    assert len(p.board.move_stack) == 1 and p.board.turn == WHITE
    play_out(p, random.Random(2))
    p.quit()


def test_forced_pass_for_you_from_a_board_string() -> None:
    start = find_position(4, 3, lambda b: b.turn == BLACK and b.must_pass())
    arg = start.cells() + " b"
    p = Player(["--no-color", "--depth", "1", "--board", arg], start.copy())
    assert "You (X) have no legal move and pass." in p.transcript
    assert p.board.move_stack[0] == PASS
    play_out(p, random.Random(3))
    p.quit()


def test_forced_pass_for_the_engine() -> None:
    def engine_must_pass_after_a_move(b: Board) -> bool:
        if b.turn != BLACK:
            return False
        for m in b.legal_moves():
            c = b.copy()
            c.push(m)
            if c.must_pass():
                return True
        return False

    start = find_position(4, 4, engine_must_pass_after_a_move)
    p = Player(["--no-color", "--depth", "1", "--board", start.cells() + " b"], start.copy())
    move = next(m for m in start.legal_moves() if (lambda c: (c.push(m), c.must_pass())[1])(start.copy()))
    screen = p.move(move)
    assert "Engine (O) has no legal move and passes." in screen
    assert PASS in p.board.move_stack
    play_out(p, random.Random(4))
    p.quit()


def test_undo_save_load(tmp_path: Path) -> None:
    rng = random.Random(5)
    p = Player(["--no-color", "--depth", "2", "--size", "6"], Board(6))
    screen = p.send("undo")
    assert "Nothing to undo" in screen
    for _ in range(3):
        p.move(rng.choice(p.board.legal_moves()))
    saved = p.board.copy()
    path = tmp_path / "game.ggf"
    screen = p.send(f"save {path}")
    assert f"Saved the game ({len(saved.move_stack)} moves)" in screen
    record = parse_ggf(path.read_text())
    assert record.board.move_stack == saved.move_stack and record.board == saved
    # undo takes back the person's move and the engine's reply
    screen = p.send("undo")
    p.board.pop()
    p.board.pop()
    check_screen(p)
    assert p.board.turn == BLACK and len(p.board.move_stack) == 4
    # a missing file and a file that is not GGF leave the game as it is
    before = p.board.copy()
    screen = p.send(f"load {tmp_path / 'missing.ggf'}")
    assert "Could not load" in screen and "The current game goes on." in screen
    bad = tmp_path / "bad.ggf"
    bad.write_text("(;GM[Othello]BO[6 garbage *]B[Z9];)")
    screen = p.send(f"load {bad}")
    assert "Could not load" in screen
    screen = p.send("board")
    check_screen(p)
    assert p.board == before
    # loading the saved game brings back the position at the save
    p.board = saved.copy()
    screen = p.send(f"load {path}")
    assert f"Loaded {path}: 6x6, {len(saved.move_stack)} moves" in screen
    check_screen(p)
    # hint gives a legal move
    screen = p.send("hint")
    m = re.search(r"Hint: ([a-f][1-6]) \(", screen)
    assert m and p.board.is_legal(parse_square(m.group(1), 6))
    play_out(p, rng)
    # after the end: undo reopens the game
    screen = p.send("undo")
    assert "Took back your move" in screen
    p.quit()


def test_load_at_start_and_game_over_file(tmp_path: Path) -> None:
    # a finished 4x4 game saved by the reference module: loading it announces the end at once
    b = Board(4)
    rng = random.Random(6)
    while not b.is_game_over():
        moves = b.legal_moves()
        b.push(rng.choice(moves) if moves else PASS)
    path = tmp_path / "done.ggf"
    path.write_text(format_ggf(b, "a", "b"))
    p = Player(["--no-color", "--depth", "1", "--load", str(path)], b.copy())
    check_screen(p)
    final_check(p)
    p.quit()


def test_colors_follow_the_terminal() -> None:
    p = Player(["--depth", "1", "--size", "4"], Board(4), TERM="xterm-256color")
    assert ANSI.search(p.screen)
    p.quit()
    p = Player(["--depth", "1", "--size", "4"], Board(4), TERM="xterm-256color", NO_COLOR="1")
    assert not ANSI.search(p.screen)
    check_screen(p)
    p.quit()


def test_thinking_indicator() -> None:
    p = Player(["--no-color", "--time", "0.4"])
    p.move(p.board.legal_moves()[0])
    assert "thinking..." in p.screen
    p.quit()


def test_bad_options_give_one_line() -> None:
    r = subprocess.run([sys.executable, "-m", "othello_engine", "play", "--board", "XXQ b"],
                       capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "--board" in r.stderr and "Traceback" not in r.stderr


def test_ctrl_c_makes_the_engine_move_now() -> None:
    p = Player(["--no-color", "--time", "60"])
    p.board.push(p.board.legal_moves()[0])
    p.child.sendline(square_name(p.board.move_stack[-1]))
    p.child.expect_exact("thinking", timeout=10)
    started = time.monotonic()
    p.child.sendintr()
    p.screen = p.until_prompt()
    assert time.monotonic() - started < 5.0
    assert len(p.board.move_stack) == 2  # the engine moved (checked against the rules)
    check_screen(p)
    p.quit()


@pytest.mark.parametrize("form", ["two args", "one arg", "equals", "fen two args"])
def test_board_cells_starting_with_a_dash(form: str) -> None:
    """``--board CELLS SIDE`` as the help says, with an empty a1 (cells start with '-'): argparse
    used to take the cells for an option ("expected one argument"). Over pipes."""
    start = Board()
    start.push_str("f5")
    start = Board.from_cells(start.cells(), "w")      # white to move, no move history
    cells = start.cells()
    assert cells.startswith("-")
    board_args = {"two args": ["--board", cells, "w"], "one arg": ["--board", cells + " w"],
                  "equals": [f"--board={cells} w"],
                  "fen two args": ["--board", start.fen().split()[0], "o"]}[form]
    r = subprocess.run([sys.executable, "-m", "othello_engine", "play", "--no-color", "--depth", "1",
                        *board_args, "--side", "white"],
                       input="quit\n", capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "you play White (O)" in r.stdout and "Legal: f4 d6 f6" in r.stdout
    assert drawn_board(r.stdout, 8) == expected_rows(start, None, True), r.stdout
