"""NBoard protocol: real GUI conversations replayed against the engine process over pipes."""

from __future__ import annotations

import os
import queue
import random
import re
import subprocess
import sys
import threading
import time
from typing import Callable, Optional

import pytest

from othello_engine.board import BLACK, PASS, WHITE, Board, parse_square, square_name
from othello_engine.ggf import format_ggf
from othello_engine.book import BOOK_ENV, Book
from othello_engine.protocol.nboard import NBoardSession, depth_token, format_eval

import reference_rules as ref

# The example session of the NBoard protocol documentation (GUI side).
EXAMPLE_GGF = ("(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]"
               "TY[8]BO[8 ---------------------------O*------*O--------------------------- *]"
               "B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)")
EXAMPLE_MOVES = ["f5", "f6", "d3", "c5", "e6", "f7", "e7", "f4"]

EVAL = r"-?\d+\.\d\d"
MOVE = r"(?:[A-H][1-8]|PA)"
LINE_FORMS = {
    "set": re.compile(r"set myname \S+"),
    "pong": re.compile(r"pong -?\d+"),
    "status": re.compile(r"status( .*)?"),
    "nodestats": re.compile(r"nodestats \d+ \d+\.\d{6}"),
    "===": re.compile(rf"=== {MOVE}(/{EVAL}(/\d+\.\d\d)?)?"),
    "search": re.compile(rf"search {MOVE}(-{MOVE})* {EVAL} 0 (\d+|100%)"),
    "book": re.compile(rf"book {MOVE}(-{MOVE})* {EVAL} \d+ (\d+|100%)( .*)?"),
    "analysis": re.compile(rf"analysis \d+ {EVAL}"),
    "learned": re.compile(r"learned"),
}


class NBoardProcess:
    """The engine process driven like a GUI: lines in over a pipe, every reply kept and checked."""

    def __init__(self, *args: str, book: Optional[str] = None) -> None:
        env = {k: v for k, v in os.environ.items() if k != BOOK_ENV}
        if book is not None:
            env[BOOK_ENV] = book
        self.proc = subprocess.Popen([sys.executable, "-m", "othello_engine", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=0, env=env)
        self.queue: queue.Queue[Optional[str]] = queue.Queue()
        self.received: list[str] = []
        self.pings = 100
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.queue.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        self.queue.put(None)

    def send(self, *lines: str | bytes) -> None:
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write((line.encode() if isinstance(line, str) else line) + b"\n")
        self.proc.stdin.flush()

    def next_line(self, timeout: float) -> Optional[str]:
        try:
            line = self.queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is None:
            raise AssertionError(f"the engine exited; received so far: {self.received[-10:]}")
        self.received.append(line)
        return line

    def until(self, done: Callable[[str], bool], timeout: float = 30.0) -> list[str]:
        """Lines up to and including the first one for which done() is true."""
        deadline = time.monotonic() + timeout
        lines: list[str] = []
        while True:
            left = deadline - time.monotonic()
            line = self.next_line(max(left, 0.0)) if left > 0 else None
            if line is None:
                raise AssertionError(f"timed out after {timeout} s; last lines: {lines[-10:]}")
            lines.append(line)
            if done(line):
                return lines

    def sync(self, timeout: float = 30.0) -> list[str]:
        """Send a ping and return every line before its pong."""
        self.pings += 1
        self.send(f"ping {self.pings}")
        lines = self.until(lambda l: l == f"pong {self.pings}", timeout)
        return lines[:-1]

    def quiet(self, seconds: float) -> list[str]:
        """The lines that arrive within the next few seconds (there should be none while idle)."""
        deadline = time.monotonic() + seconds
        lines = []
        while (left := deadline - time.monotonic()) > 0:
            line = self.next_line(left)
            if line is not None:
                lines.append(line)
        return lines

    def hints(self, n: int) -> list[str]:
        """Ask for n hints and return the lines up to the final (empty) status."""
        self.sync()
        self.send(f"hint {n}")
        return self.until(lambda l: l == "status")

    def close(self) -> None:
        self.send("quit")
        try:
            self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        while (line := self.queue.get(timeout=5)) is not None:
            self.received.append(line)
        assert self.proc.returncode == 0
        for line in self.received:
            kind = line.split(" ", 1)[0]
            assert kind in LINE_FORMS and LINE_FORMS[kind].fullmatch(line), f"bad reply line {line!r}"
            assert "Traceback" not in line


@pytest.fixture
def engine():
    proc = NBoardProcess()
    yield proc
    proc.close()


# --- oracles -----------------------------------------------------------------------------------

def board_after(moves: list[str]) -> Board:
    board = Board()
    for m in moves:
        board.push(parse_square(m))
    return board


def negamax(board: Board, memo: dict) -> int:
    """Exact final disc difference for the side to move (empties to the winner), from the
    reference rules (the oracle)."""
    return ref.solve_text(board.cells(), "XO"[board.turn], memo)


def random_game(seed: int) -> Board:
    rng = random.Random(seed)
    board = Board()
    while not board.is_game_over():
        moves = board.legal_moves()
        board.push(rng.choice(moves) if moves else PASS)
    return board


def pass_position(max_empties: int = 9) -> Board:
    """A real game position where the side to move must pass, with few enough empties to solve."""
    for seed in range(500):
        game = random_game(seed)
        board = game.replay()
        for move in game.move_stack:
            if move == PASS and 4 <= board.empties <= max_empties:
                return board
            board.push(move)
    raise AssertionError("no pass position found")


def moves_of(lines: list[str], kind: str = "search") -> list[tuple[str, str, str]]:
    """(move, eval, depth) of the search lines of the deepest iteration."""
    rows = [l.split() for l in lines if l.startswith(kind + " ")]
    if not rows:
        return []
    last_depth = rows[-1][4]
    tail = []
    for row in reversed(rows):
        if row[4] != last_depth:
            break
        tail.append((row[1][:2], row[2], row[4]))
    return tail[::-1]


def legal_names(board: Board) -> set[str]:
    return {square_name(m).upper() for m in board.legal_moves()}


# --- conversations -----------------------------------------------------------------------------

def test_example_session_of_the_protocol_document(engine):
    """The documented session: nboard 2, set game, set depth 6, ping 1, go."""
    engine.send("nboard 2", f"set game {EXAMPLE_GGF}", "set depth 6", "ping 1", "go")
    lines = engine.until(lambda l: l.startswith("=== "))
    assert lines[0].startswith("set myname ")
    assert lines.index("pong 1") < len(lines) - 1
    assert all(l.startswith(("status", "nodestats")) for l in lines[lines.index("pong 1") + 1:-1])
    move, ev, seconds = lines[-1][4:].split("/")
    position = board_after(EXAMPLE_MOVES)
    assert position.is_legal(parse_square(move)), move
    assert re.fullmatch(EVAL, ev) and float(seconds) >= 0
    assert engine.until(lambda l: l.startswith("status")) == ["status"]
    # go does not play its move: the engine still evaluates the same position.
    found = moves_of(engine.hints(64))
    assert {m for m, _, _ in found} == legal_names(position)
    assert len(found) == len(position.legal_moves())


def test_start_up_clears_the_guis_loading_message(engine):
    """NBoard shows "Loading <engine>" until a status line comes: the engine sends an empty one
    (idle) right after its name, before any request."""
    engine.send("nboard 2")
    assert engine.until(lambda l: l == "status", timeout=10) == ["set myname othello_engine", "status"]
    assert engine.sync() == []


def test_nodestats_of_a_fast_search_give_a_time_nboard_can_divide_by(engine):
    """A search of a few milliseconds gets a non-zero time (to the microsecond), so that NBoard
    shows its nodes per second."""
    engine.send("nboard 2", "set depth 1", f"set game {EXAMPLE_GGF}")
    lines = engine.hints(1)
    stats = [l.split() for l in lines if l.startswith("nodestats ")]
    assert stats and all(float(t) > 0 for _, _, t in stats), stats
    assert all(float(t) < 0.5 for _, _, t in stats), "a depth-1 search takes milliseconds"


def test_gui_rewinds_with_set_game_and_plays_on_with_move(engine):
    position = board_after(EXAMPLE_MOVES)
    black = square_name(position.legal_moves()[0])
    position.push_str(black)
    white = square_name(position.legal_moves()[-1])
    position.push_str(white)
    engine.send("nboard 2", "set depth 2")
    engine.sync()
    engine.send(f"set game {EXAMPLE_GGF}")
    engine.sync()
    engine.send(f"move {black.upper()}/-1.00/0.5")
    engine.sync()
    engine.send(f"move {white.upper()}//1.25")
    assert {m for m, _, _ in moves_of(engine.hints(64))} == legal_names(position)
    # The user steps back four moves: the GUI sends the shorter game.
    rewound = board_after(EXAMPLE_MOVES[:4])
    short = EXAMPLE_GGF.replace("B[E6]W[F7]B[E7]W[F4]", "")
    engine.sync()
    engine.send(f"set game {short}")
    assert {m for m, _, _ in moves_of(engine.hints(64))} == legal_names(rewound)
    engine.sync()
    engine.send("go")
    reply = engine.until(lambda l: l.startswith("=== "))[-1]
    assert rewound.is_legal(parse_square(reply[4:6]))


def test_ping_during_a_hint_stops_it_before_pong(engine):
    engine.send("nboard 2", "set depth 60", f"set game {EXAMPLE_GGF}", "hint 2")
    engine.until(lambda l: l.startswith("search "))
    time.sleep(0.3)
    started = time.monotonic()
    before = engine.sync(timeout=5)
    assert time.monotonic() - started < 2.0
    assert before[-1] == "status", "the search says it is done before pong"
    assert engine.quiet(0.7) == [], "nothing may follow pong from the stopped search"


def test_ping_during_go_answers_the_move_then_pong(engine):
    engine.send("nboard 2", "set depth 60", f"set game {EXAMPLE_GGF}", "go")
    engine.until(lambda l: l.startswith("nodestats"))
    time.sleep(0.3)
    before = engine.sync(timeout=5)
    moves = [l for l in before if l.startswith("=== ")]
    assert len(moves) == 1, before
    assert board_after(EXAMPLE_MOVES).is_legal(parse_square(moves[0][4:6]))
    assert engine.quiet(0.7) == []


def test_ping_during_analyze_stops_it(engine):
    engine.send("nboard 2", "set depth 60", f"set game {EXAMPLE_GGF}", "analyze")
    engine.until(lambda l: l.startswith("status"))
    time.sleep(0.3)
    before = engine.sync(timeout=5)
    assert before[-1] == "status"
    assert engine.quiet(0.7) == []


def test_hints_when_the_side_to_move_must_pass(engine):
    position = pass_position()
    assert position.must_pass() and not position.is_game_over()
    memo: dict = {}
    engine.send("nboard 2", "set depth 4", f"set game {format_ggf(position)}")
    lines = engine.hints(3)
    searches = [l for l in lines if l.startswith("search ")]
    assert searches and all(l.split()[1].startswith("PA") for l in searches)
    (move, ev, depth), = moves_of(lines)
    assert (move, depth) == ("PA", "100%")
    assert ev == format_eval(100 * negamax(position.copy(), memo))
    engine.sync()
    engine.send("go")
    assert engine.until(lambda l: l.startswith("=== "))[-1] == "=== PA"
    # The GUI plays the pass; the opponent's moves are valued exactly.
    engine.sync()
    engine.send("move PA")
    after = position.copy()
    after.push(PASS)
    found = moves_of(engine.hints(64))
    assert {m for m, _, _ in found} == legal_names(after)
    for move, ev, depth in found:
        child = after.copy()
        child.push(parse_square(move))
        assert depth == "100%" and ev == format_eval(-100 * negamax(child, memo)), move


def test_a_gui_that_leaves_out_the_pass(engine):
    position = pass_position()
    reply = position.copy()
    reply.push(PASS)
    answer = square_name(reply.legal_moves()[0])
    reply.push_str(answer)
    engine.send("nboard 2", "set depth 2", f"set game {format_ggf(position)}")
    engine.sync()
    engine.send(f"move {answer.upper()}")
    if reply.is_game_over():
        engine.send("hint 64")
        assert not any(l.startswith("search ") for l in engine.sync())
    else:
        expected = legal_names(reply) or {"PA"}
        assert {m for m, _, _ in moves_of(engine.hints(64))} == expected


def finished_game_with_a_pass() -> Board:
    for seed in range(200):
        game = random_game(seed)
        if PASS in game.move_stack:
            return game
    raise AssertionError("no game with a pass")


def test_finished_game_and_its_analysis(engine):
    game = finished_game_with_a_pass()
    assert game.is_game_over()
    engine.send("nboard 2", "set depth 2", f"set game {format_ggf(game)}")
    engine.sync()
    engine.send("go")
    before = engine.sync()
    assert not any(l.startswith("=== ") for l in before), "no move exists once the game is over"
    assert any("over" in l for l in before if l.startswith("status"))
    engine.send("hint 3")
    assert not any(l.startswith("search ") for l in engine.sync())
    engine.sync()
    engine.send("analyze")
    lines = engine.until(lambda l: l == "status", timeout=60)
    values = {}
    for l in lines:
        if l.startswith("analysis "):
            _, number, ev = l.split()
            assert int(number) not in values, "one line per position"
            values[int(number)] = ev
    # Passes count as moves: one value for each of the len(move_stack) + 1 positions.
    assert sorted(values) == list(range(len(game.move_stack) + 1))
    assert len(game.move_stack) > sum(1 for m in game.move_stack if m != PASS)
    # Every value is Black's (NBoard graphs them as they come, up = Black ahead), for positions with
    # either side to move: the exactly solved ones are checked against the reference rules.
    memo: dict = {}
    position = game.replay()
    turns = set()
    for number in range(len(game.move_stack) + 1):
        if position.empties <= 8:  # solved exactly at depth 2 (depth + 6 empties): check them all
            black_value = negamax(position.copy(), memo) * (1 if position.turn == BLACK else -1)
            assert values[number] == format_eval(100 * black_value), number
            turns.add(position.turn)
        if number < len(game.move_stack):
            position.push(game.move_stack[number])
    assert turns == {BLACK, WHITE}
    assert values[len(game.move_stack)] == format_eval(100 * game.disc_difference())


def test_bad_input_keeps_the_game_and_says_why(engine):
    position = board_after(EXAMPLE_MOVES[:4])
    short = EXAMPLE_GGF.replace("B[E6]W[F7]B[E7]W[F4]", "")
    engine.send("nboard 2", "set depth 1", f"set game {short}")
    engine.sync()
    bad = [
        ("set game (;GM[Othello]BO[8 garbage *];)", "unchanged"),
        ("set game (;GM[Othello]TY[10];)", "unchanged"),
        ("set game (;GM[Chess]TY[8];)", "unchanged"),
        ("set game (;GM[Othello]TY[8]B[A1];)", "unchanged"),
        ("set game not a game at all", "unchanged"),
        ("set game", "unchanged"),
        ("move A1", "illegal"),
        ("move Z9", "bad move"),
        ("move F5/abc", "evaluation"),
        ("move", "unchanged"),
        ("frobnicate 1 2", "frobnicate"),
        (b"\xff\xfe\x00garbage", "unknown command"),
        ("set depth banana", "depth"),
        ("set depth 0", "depth"),
        ("set colour red", "colour"),
        ("set", "setting"),
        ("set contempt lots", "contempt"),
        ("hint -1", "hint"),
    ]
    for line, why in bad:
        engine.send(line)
        replies = engine.sync()
        assert len(replies) == 1 and replies[0].startswith("status ") and why in replies[0], (line, replies)
    engine.send("ping\t77")  # any whitespace separates words
    assert engine.until(lambda l: l.startswith("pong")) == ["pong 77"]
    found = moves_of(engine.hints(64))
    assert {m for m, _, _ in found} == legal_names(position)
    engine.sync()
    engine.send("learn")
    replies = engine.sync()
    # "learned" first: NBoard clears its status bar when it comes; the short reason stays after it
    assert replies == ["learned", "status not learned: no book file (set OTHELLO_ENGINE_BOOK to one)"]


def test_book_hints_and_book_moves_with_the_shipped_book():
    proc = NBoardProcess(book="shipped")
    try:
        proc.send("nboard 2", "set depth 2", "set game (;GM[Othello]TY[8];)")
        lines = proc.hints(6)
        booked = [l.split()[1] for l in lines if l.startswith("book ")]
        assert booked and set(booked) <= legal_names(Board())
        searched = {m for m, _, _ in moves_of(lines)}
        assert not searched & set(booked), "the search values only moves the book does not give"
        proc.sync()
        proc.send("go")
        reply = proc.until(lambda l: l.startswith("=== "))[-1]
        move, ev, seconds = reply[4:].split("/")
        assert move in booked and float(seconds) == 0.0
    finally:
        proc.close()


def test_learn_adds_the_game_to_the_book_file(tmp_path):
    path = tmp_path / "games.book"
    game = finished_game_with_a_pass()
    proc = NBoardProcess(book=str(path))
    try:
        proc.send("nboard 2", f"set game {format_ggf(game)}", "learn")
        replies = proc.sync()
        replies = replies[replies.index("learned"):]
        assert len(replies) == 2, replies
        assert replies[1].startswith("status learned: ") and replies[1].endswith(f"moves into {path})")
    finally:
        proc.close()
    with Book.open(path) as book:
        position = game.replay()
        for move in game.move_stack[:20]:
            assert book.contains(position), position
            position.push(move)


def test_nboard_flag_starts_in_nboard_mode():
    proc = NBoardProcess("--nboard")
    try:
        proc.send("set depth 1", f"set game {EXAMPLE_GGF}")
        found = moves_of(proc.hints(1))
        assert len(found) == 1 and found[0][0] in legal_names(board_after(EXAMPLE_MOVES))
    finally:
        proc.close()


# --- the session object ------------------------------------------------------------------------

def test_set_contempt_sets_the_engines_contempt_for_the_side_to_move():
    lines: list[str] = []
    session = NBoardSession(lines.append)
    try:
        session.handle("set contempt 100")  # NBoard's "Draws to Black"
        assert session.engine.contempt == 100  # black is to move
        session.handle(f"set game {EXAMPLE_GGF.replace('W[F4]', '')}")  # white to move
        assert session.engine.contempt == -100
        session.handle("set contempt -250.0")
        assert session.engine.contempt == 250
        assert lines == []
    finally:
        session.close()


def test_formats():
    assert [format_eval(v) for v in (0, -1, -100, 6400, -50)] == ["0.00", "-0.01", "-1.00", "64.00", "-0.50"]
    assert depth_token(12, False) == "12" and depth_token(12, True) == "100%"


def test_version_1_bare_moves_and_version_2_unknown_words():
    lines: list[str] = []
    session = NBoardSession(lines.append)
    try:
        session.handle("nboard 2")
        session.handle("F5")
        assert session.board == Board() and lines[-1] == "status unknown command 'f5' ignored"
        session.handle("nboard 1")
        session.handle("F5")
        assert session.board == board_after(["f5"])
        assert lines.count("set myname othello_engine") == 2
    finally:
        session.close()


@pytest.mark.parametrize("first", ["hint 1", "go"])
def test_an_unusable_book_is_reported_once_in_nboard_words(tmp_path, first):
    """OTHELLO_ENGINE_BOOK naming a missing file: the GUI's status bar says so once, whichever
    command comes first (GUIs hint before they ask for a move), as a plain status line."""
    proc = NBoardProcess(book=str(tmp_path / "missing.book"))
    try:
        proc.send("nboard 2", "set depth 1")
        proc.sync()
        replies = []
        for command in (first, "hint 1" if first == "go" else "go", "hint 2"):
            proc.send(command)
            replies += proc.sync()
        warnings = [l for l in replies if "missing.book" in l]
        assert len(warnings) == 1 and warnings[0].startswith("status book not used"), replies
        assert not any("info string" in l for l in replies)
    finally:
        proc.close()
