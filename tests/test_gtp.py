"""GTP mode: Quarry's Reversi conversation replayed, every command and error over pipes, the time
system, and refereed matches of the engine in GTP mode (against itself and gtp-rhino)."""

from __future__ import annotations

import json
import queue
import random
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional

import pytest

import reference_rules as ref
from ggf_support import replay_with_reference
from othello_engine.protocol.gtp import COMMANDS, Clock, TimeSettings, clean_line

PY = sys.executable
OURS_GTP = shlex.join([PY, "-m", "othello_engine", "--gtp"])
RHINO = shutil.which("gtp-rhino") or shutil.which("/usr/games/gtp-rhino")
FILES = "ABCDEFGH"


class GtpProcess:
    """The engine process driven as a GTP controller drives it: one command, one framed response."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([PY, "-m", "othello_engine", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self.lines: queue.Queue[Optional[str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def send(self, text: str | bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((text.encode() if isinstance(text, str) else text) + b"\n")
        self.proc.stdin.flush()

    def response(self, timeout: float = 30.0) -> tuple[str, str, list[str]]:
        """The next response: its status character, its id, and its text lines. Checks GTP's
        framing: ``=`` or ``?``, the id, a space before any text, no empty line inside, one empty
        line after."""
        first = self._line(timeout)
        m = re.fullmatch(r"([=?])(\d*)(?: (.*))?", first)
        assert m, f"bad first response line {first!r}"
        text = [m.group(3) or ""]
        while (line := self._line(timeout)) != "":
            assert line.strip(), f"a response line of blanks {line!r}"
            text.append(line)
        return m.group(1), m.group(2), text

    def _line(self, timeout: float) -> str:
        line = self.lines.get(timeout=timeout)
        assert line is not None, "the engine closed its output"
        assert "Traceback" not in line
        return line

    def ask(self, command: str, timeout: float = 30.0) -> str:
        """Send a command that must succeed; return its one-line answer."""
        self.send(command)
        status, _, text = self.response(timeout)
        assert status == "=", (command, text)
        return "\n".join(text)

    def fails(self, command: str, why: str) -> None:
        """Send a command that must fail with a reply starting with why."""
        self.send(command)
        status, _, text = self.response()
        assert status == "?" and text[0].startswith(why), (command, text)

    def quit(self) -> None:
        self.send("quit")
        assert self.response()[0] == "="
        assert self.proc.wait(10) == 0
        assert self.lines.get(timeout=5) is None, "nothing after the answer to quit"
        assert self.proc.stderr is not None
        assert "Traceback" not in self.proc.stderr.read().decode()


@pytest.fixture
def gtp():
    proc = GtpProcess("--gtp")
    yield proc
    if proc.proc.poll() is None:
        proc.proc.kill()


# --- the reference game -------------------------------------------------------------------------

def vertex(move: tuple[int, int]) -> str:
    """A move as Quarry writes it: the column letter in capitals, the row from 1 at the top."""
    return f"{FILES[move[1]]}{move[0] + 1}"


def quarry_parse(text: str, size: int = 8) -> Optional[tuple[int, int]]:
    """A genmove answer read as Quarry reads a Reversi point: a letter, a row number, nothing
    after; None when Quarry would not read it as a move."""
    m = re.fullmatch(r"([A-Za-z])(\d+)", text)
    if not m:
        return None
    col, row = ord(m.group(1).upper()) - ord("A"), int(m.group(2)) - 1
    return (row, col) if 0 <= col < size and 0 <= row < size else None


def showboard_grid(text: list[str]) -> list[str]:
    """The rows of a showboard answer as reference-rules rows ('X', 'O', '.')."""
    rows = [line.split()[1:] for line in text if re.match(r"\d+ ", line)]
    return ["".join("X" if c == "X" else "O" if c == "O" else "." for c in row) for row in rows]


PASS_SEED = 952
"""A random game (reference rules, seed 952) where white must pass at move 44 and black at move 61."""


def game_with_passes_of_both_sides() -> list[tuple[list[list[str]], str, Optional[tuple[int, int]]]]:
    """The game of PASS_SEED as (grid, side to move, move) entries; checked to have a white pass
    with moves after it, then a black pass with a white move after it."""
    game = ref.random_game(8, random.Random(PASS_SEED))
    passes = [(i, c) for i, (_, c, m) in enumerate(game[:-1]) if m is None]
    assert [c for _, c in passes] == [ref.WHITE, ref.BLACK], passes
    assert passes[0][0] < len(game) - 10 and passes[1][0] < len(game) - 2
    return game


def quarry_session(resume: list[tuple[list[list[str]], str, Optional[tuple[int, int]]]]) -> int:
    """One Quarry game against the engine (white), with Quarry's commands: the engine query, the
    set-up, the moves of a resumed game, then the game to its end, black played by the test (its
    first legal move). Returns the number of engine moves."""
    engine = GtpProcess()  # no flag: the first line, protocol_version, selects GTP
    try:
        assert engine.ask("protocol_version") == "2"
        assert engine.ask("name") == "othello_engine"
        assert re.fullmatch(r"\d+\.\d+\.\d+", engine.ask("version"))
        commands = engine.ask("list_commands").split("\n")
        assert all(c and " " not in c for c in commands) and {"list_games", "set_game"} <= set(commands)
        assert engine.ask("list_games") == "Othello"
        engine.ask("set_game Othello")
        engine.ask("boardsize 8")
        engine.ask("clear_board")
        engine.ask("time_settings 0 3 25")
        grid, color = ref.start_grid(8), ref.BLACK
        for grid, color, move in resume:  # Quarry sends a resumed game's moves, passes left out
            if move is not None:
                engine.ask(f"play {'black' if color == ref.BLACK else 'white'} {vertex(move)}")
            grid, color = ref.play(grid, color, move), ref.other(color)
        period, stones = 3.0, 25
        engine_moves = 0
        while True:
            st = ref.status(grid, color)
            if st == "over":
                break
            if st == "pass":  # Quarry asks the same colour again; the engine puts the pass in
                color = ref.other(color)
                continue
            if color == ref.WHITE:
                engine.ask(f"time_left white {int(period)} {stones}")
                started = time.monotonic()
                answer = engine.ask("genmove white")
                period -= time.monotonic() - started
                stones -= 1
                assert period > 0, "the engine overstepped its byo-yomi period"
                if stones == 0:
                    period, stones = 3.0, 25
                move = quarry_parse(answer)
                assert move in ref.legal_moves(grid, ref.WHITE), (answer, ref.grid_text(grid))
                engine_moves += 1
            else:
                move = ref.legal_moves(grid, ref.BLACK)[0]
                engine.ask(f"play black {vertex(move)}")
            grid = ref.play(grid, color, move)
            color = ref.other(color)
        # not sent by Quarry (it scores Reversi itself), but the engine agrees with it
        score = ref.final_score(grid)
        assert engine.ask("final_score") == (f"B+{score}" if score > 0 else f"W+{-score}" if score < 0 else "0")
        assert showboard_grid(engine.ask("showboard").split("\n")) == ["".join(r) for r in grid]
        engine.quit()
        return engine_moves
    finally:
        if engine.proc.poll() is None:
            engine.proc.kill()


# --- Quarry --------------------------------------------------------------------------------------

def test_quarry_reversi_conversation() -> None:
    """What Quarry 0.2 sends a GTP engine for a Reversi game, and reads back (src/gtp/gtp-client.c
    and gtk-goban-window.c): the engine query (protocol_version, name, version, list_commands, and
    list_games because it is listed; a single game "Othello" makes it a Reversi engine), then
    ``set_game Othello``, ``boardsize 8``, ``clear_board``, ``time_settings`` (Canadian overtime:
    main, period, moves per period), a resumed game's moves as ``play <colour> <E6>`` (full colour
    names, capital letters; no pass is ever sent: after a forced pass the same colour plays
    again), and for each engine move ``time_left white <s> <moves>`` then ``genmove white``. The
    answer must be a point Quarry can read (letter, row number, nothing else). At the end:
    ``quit``. A new game, then a resumed one with passes of both sides."""
    assert quarry_session([]) >= 10
    game = game_with_passes_of_both_sides()
    black_pass = max(i for i, (_, c, m) in enumerate(game[:-1]) if m is None)
    assert quarry_session(game[:black_pass]) >= 1  # white's pass inside, black's pass next


# --- every command -----------------------------------------------------------------------------------

def test_administrative_commands_ids_comments_and_framing(gtp: GtpProcess) -> None:
    gtp.send("7 protocol_version")
    assert gtp.response() == ("=", "7", ["2"])
    gtp.send("\t8\tname   # a comment is no part of the command")
    assert gtp.response() == ("=", "8", ["othello_engine"])
    gtp.send("")
    gtp.send("   ")
    gtp.send("# only a comment")
    gtp.send("9 list_commands")
    status, ident, lines = gtp.response()
    assert (status, ident) == ("=", "9") and lines == list(COMMANDS)
    for name in COMMANDS:
        assert gtp.ask(f"known_command {name}") == "true"
    assert gtp.ask("known_command set_free_handicap") == "false"
    gtp.send("10 frobnicate")
    assert gtp.response() == ("?", "10", ["unknown command"])
    gtp.send("11 known_command")
    status, ident, text = gtp.response()
    assert (status, ident) == ("?", "11") and text[0].startswith("syntax error")
    gtp.send(b"ver\x01sion\r")  # control characters are dropped
    assert gtp.response()[0] == "="
    gtp.send("12")
    assert gtp.response()[:2] == ("?", "12")
    assert gtp.ask("list_games") == "Othello"
    gtp.ask("set_game Othello")
    gtp.ask("set_game reversi")
    gtp.fails("set_game Go", "unsupported game")
    gtp.ask("komi 6.5")  # accepted, and it changes nothing
    gtp.fails("komi lots", "syntax error")
    gtp.send("13 quit")
    assert gtp.response() == ("=", "13", [""])
    assert gtp.proc.wait(10) == 0


def test_play_undo_and_errors_that_keep_the_position(gtp: GtpProcess) -> None:
    start = showboard_grid(gtp.ask("showboard").split("\n"))
    assert start == ["".join(r) for r in ref.start_grid(8)]
    gtp.ask("play b d3")
    gtp.ask("play WHITE C3")
    after = gtp.ask("showboard").split("\n")
    grid = ref.play(ref.play(ref.start_grid(8), ref.BLACK, (2, 3)), ref.WHITE, (2, 2))
    assert showboard_grid(after) == ["".join(r) for r in grid] and after[0] == "black to move"
    for command, why in [
        ("play b d3", "illegal move"),          # occupied
        ("play b a1", "illegal move"),          # flips nothing
        ("play w e6", "illegal move"),          # not white's turn (black has moves)
        ("play b pass", "illegal move"),        # black has moves
        ("play b i9", "syntax error"),
        ("play b", "syntax error"),
        ("play red d3", "syntax error"),
        ("genmove w", "illegal move"),          # not white's turn
        ("boardsize 9", "unacceptable size"),
        ("boardsize 5", "unacceptable size"),   # odd sizes have no standard start
        ("boardsize 2", "unacceptable size"),
        ("boardsize eight", "syntax error"),
        ("final_score", "cannot score"),
        ("time_settings 1 2", "syntax error"),
        ("time_settings -1 0 0", "syntax error"),
        ("time_settings 60 0 x", "syntax error"),
        ("time_left b nan 0", "syntax error"),
        ("time_left green 10 0", "syntax error"),
    ]:
        gtp.fails(command, why)
        assert gtp.ask("showboard").split("\n") == after, command
    gtp.ask("undo")
    gtp.ask("undo")
    assert showboard_grid(gtp.ask("showboard").split("\n")) == start
    gtp.fails("undo", "cannot undo")
    gtp.quit()


def test_boardsize_clear_board_and_small_boards(gtp: GtpProcess) -> None:
    gtp.ask("play b d3")
    gtp.ask("boardsize 6")
    assert showboard_grid(gtp.ask("showboard").split("\n")) == ["".join(r) for r in ref.start_grid(6)]
    gtp.fails("play b e6", "illegal move")  # e6 is on the board, but flips nothing
    gtp.fails("play b g1", "syntax error")   # g is off a 6x6 board
    gtp.ask("boardsize 4")
    gtp.ask("time_settings 5 0 0")
    grid, color = ref.start_grid(4), ref.BLACK
    while (st := ref.status(grid, color)) != "over":  # the engine plays a whole 4x4 game by itself
        name = "b" if color == ref.BLACK else "w"
        answer = gtp.ask(f"genmove {name}")
        if st == "pass":
            assert answer == "pass"
        else:
            move = quarry_parse(answer, 4)
            assert move in ref.legal_moves(grid, color), answer
            grid = ref.play(grid, color, move)
        color = ref.other(color)
    assert gtp.ask("genmove b") == "pass"  # the game is over: nothing is played
    score = ref.final_score(grid)
    assert gtp.ask("final_score") == (f"B+{score}" if score > 0 else f"W+{-score}" if score < 0 else "0")
    assert gtp.ask("showboard").split("\n")[0].startswith("game over")
    gtp.ask("clear_board")
    assert showboard_grid(gtp.ask("showboard").split("\n")) == ["".join(r) for r in ref.start_grid(4)]
    gtp.quit()


def test_passes_put_in_for_a_colour_that_plays_again_and_undo_takes_them_back(gtp: GtpProcess) -> None:
    """Quarry never sends a pass: after white's forced pass it sends black's next move. The engine
    puts the pass in, and one undo takes back the move with it; an explicit pass is a move too."""
    game = game_with_passes_of_both_sides()
    white_pass = next(i for i, (_, c, m) in enumerate(game[:-1]) if m is None and c == ref.WHITE)
    for grid, color, move in game[:white_pass]:
        gtp.ask(f"play {'b' if color == ref.BLACK else 'w'} {vertex(move)}")
    before = gtp.ask("showboard").split("\n")
    assert before[0] == "white to move (must pass)"
    gtp.fails("play w " + vertex(ref.legal_moves(game[white_pass + 1][0], ref.BLACK)[0]), "illegal move")
    grid, _, move = game[white_pass + 1]
    gtp.ask(f"play black {vertex(move)}")
    assert showboard_grid(gtp.ask("showboard").split("\n")) == ["".join(r) for r in ref.play(grid, ref.BLACK, move)]
    gtp.ask("undo")
    assert gtp.ask("showboard").split("\n") == before
    gtp.ask("play w pass")  # the explicit form, as the match runner sends it
    gtp.ask("play b " + vertex(move))
    gtp.ask("undo")
    gtp.ask("undo")
    assert gtp.ask("showboard").split("\n") == before
    # genmove for the colour after a forced pass: the pass goes in first
    assert quarry_parse(gtp.ask("reg_genmove b")) in ref.legal_moves(grid, ref.BLACK)
    assert gtp.ask("showboard").split("\n") == before, "reg_genmove plays nothing"
    assert quarry_parse(gtp.ask("genmove b")) in ref.legal_moves(grid, ref.BLACK)
    gtp.ask("undo")
    assert gtp.ask("showboard").split("\n") == before
    gtp.quit()


def test_first_line_selects_gtp_without_the_flag() -> None:
    for first in ("list_commands", "1 name", "boardsize 8"):
        engine = GtpProcess()
        try:
            engine.send(first)
            assert engine.response()[0] == "="
            assert engine.ask("protocol_version") == "2"
            engine.quit()
        finally:
            if engine.proc.poll() is None:
                engine.proc.kill()


def test_end_of_input_and_flag_errors() -> None:
    proc = subprocess.run([PY, "-m", "othello_engine", "--gtp"], input="name\nplay b d3\n",
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0 and proc.stdout == "= othello_engine\n\n=\n\n"
    proc = subprocess.run([PY, "-m", "othello_engine", "--gtp", "--nboard"], input="",
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and proc.stdout == "" and "exclude" in proc.stderr


def test_clean_line() -> None:
    assert clean_line("genmove\tb # why") == "genmove b "
    assert clean_line("pl\x00ay b d3") == "play b d3"


# --- time ------------------------------------------------------------------------------------------

def test_clock_through_main_time_and_canadian_periods() -> None:
    canadian = TimeSettings(main=10, byo=30, stones=5)
    clock = Clock(10.0)
    limit = clock.limit(canadian)
    assert limit.black_clock == limit.white_clock == 16.0 and limit.black_inc == 6.0
    assert limit.moves_to_go is None
    clock = clock.after(canadian, 4.0)
    assert clock == Clock(6.0)
    clock = clock.after(canadian, 8.0)  # ran 2 s into the first period, and counts as its first move
    assert clock == Clock(0.0, 28.0, 4)
    limit = clock.limit(canadian)
    assert (limit.black_clock, limit.moves_to_go) == (28.0, 4)
    for _ in range(3):
        clock = clock.after(canadian, 1.0)
    assert clock == Clock(0.0, 25.0, 1)
    assert clock.after(canadian, 1.0) == Clock(0.0, 30.0, 5)  # the period is over: a new one
    # byo-yomi from the start (main time 0), as the match runner sends a time per move
    per_move = TimeSettings(main=0, byo=2, stones=1)
    limit = Clock(0.0).limit(per_move)
    assert (limit.black_clock, limit.moves_to_go) == (2.0, 1)
    assert Clock(0.0).after(per_move, 1.5) == Clock(0.0, 2.0, 1)
    # absolute time
    absolute = TimeSettings(main=60, byo=0, stones=0)
    assert Clock(60.0).after(absolute, 70.0) == Clock(0.0)
    assert Clock(5.0).limit(absolute).black_inc == 0.0


def test_a_whole_game_on_an_absolute_clock_stays_within_it(gtp: GtpProcess) -> None:
    """``time_settings 3 0 0``: each side has 3 s for the game. The engine plays both sides and
    keeps its own clocks (no time_left); each side's total thinking stays within 3 s."""
    gtp.ask("time_settings 3 0 0")
    grid, color = ref.start_grid(8), ref.BLACK
    spent = {ref.BLACK: 0.0, ref.WHITE: 0.0}
    moves = 0
    while (st := ref.status(grid, color)) != "over":
        started = time.monotonic()
        answer = gtp.ask(f"genmove {'b' if color == ref.BLACK else 'w'}")
        spent[color] += time.monotonic() - started
        if st == "move":
            move = quarry_parse(answer)
            assert move in ref.legal_moves(grid, color), answer
            grid = ref.play(grid, color, move)
            moves += 1
        else:
            assert answer == "pass"
        color = ref.other(color)
    assert moves >= 40
    assert max(spent.values()) < 3.0, spent
    assert min(spent.values()) > 0.3, f"the clock was there to be used: {spent}"
    gtp.quit()


# --- the match runner -------------------------------------------------------------------------------

def run_match(tmp_path: Path, *args: str, timeout: float = 120) -> tuple[subprocess.CompletedProcess[str],
                                                                          dict, list[str]]:
    js, ggf = tmp_path / "out.json", tmp_path / "out.ggf"
    proc = subprocess.run([PY, "-m", "othello_engine", "match", *args, "--json", str(js), "--ggf", str(ggf)],
                          capture_output=True, text=True, timeout=timeout)
    data = json.loads(js.read_text()) if js.exists() else {}
    games = ggf.read_text().splitlines() if ggf.exists() else []
    return proc, data, games


def check_games(proc: subprocess.CompletedProcess[str], data: dict, ggf: list[str], n: int) -> None:
    assert proc.returncode == 0, proc.stderr
    assert data["games_played"] == n and len(ggf) == n
    for g, line in zip(data["games"], ggf):
        assert g["termination"] == "normal", g  # no forfeit: no illegal move, crash or loss on time
        assert replay_with_reference(line) == g["discs"]


def test_match_our_engine_in_gtp_mode_against_itself(tmp_path: Path) -> None:
    proc, data, ggf = run_match(tmp_path, "--engine", f"cmd={OURS_GTP}", "name=gtp-a", "proto=gtp",
                                "tc=3+0", "--engine", f"cmd={OURS_GTP}", "name=gtp-b", "proto=gtp",
                                "tc=3+0", "--games", "2")
    check_games(proc, data, ggf, 2)
    assert "id 'othello_engine'" in proc.stdout


@pytest.mark.skipif(RHINO is None, reason="gtp-rhino (Debian package grhino) is not installed")
def test_match_our_engine_in_gtp_mode_against_gtp_rhino(tmp_path: Path) -> None:
    proc, data, ggf = run_match(tmp_path, "--engine", f"cmd={OURS_GTP}", "name=ours", "proto=gtp",
                                "tc=3+0", "--engine", f"cmd={RHINO}", "name=rhino", "proto=gtp",
                                "movetime=1", "--games", "2")
    check_games(proc, data, ggf, 2)
