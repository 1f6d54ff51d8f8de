"""End to end: the engine process driven over pipes the way users and tools drive it, every reply
checked against the reference rules (tests/reference_rules.py), never against the engine itself."""

from __future__ import annotations

import queue
import random
import subprocess
import sys
import threading
import time
from typing import Optional

import pytest

import reference_rules as ref

ENGINE = [sys.executable, "-m", "othello_engine"]


from ffo_data import ffo_file, needs_ffo  # noqa: E402


class Proc:
    """The engine process with a reader thread: send lines, wait for replies with a deadline."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([*ENGINE, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines: str | bytes) -> None:
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write(line if isinstance(line, bytes) else line.encode() + b"\n")
        self.proc.stdin.flush()

    def until(self, *prefixes: str, timeout: float = 20) -> list[str]:
        """Replies up to and including the first that starts with one of prefixes."""
        got: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            if line is None:
                raise AssertionError(f"engine ended while waiting for {prefixes}: {got[-5:]}")
            got.append(line)
            self.seen.append(line)
            if line.startswith(prefixes):
                return got

    def finish(self, timeout: float = 10) -> tuple[int, list[str], str]:
        """Close stdin; return the exit status, the remaining replies and stderr."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        rc = self.proc.wait(timeout)
        rest: list[str] = []
        while (line := self.lines.get(timeout=5)) is not None:
            rest.append(line)
        self.seen += rest
        return rc, rest, self.proc.stderr.read().decode("utf-8", "replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def engine():
    procs: list[Proc] = []

    def start(*args: str) -> Proc:
        procs.append(Proc(*args))
        return procs[-1]

    yield start
    for p in procs:
        p.kill()


def square(move: tuple[int, int]) -> str:
    return "abcdefgh"[move[1]] + str(move[0] + 1)


def parse_move(token: str) -> tuple[int, int]:
    return int(token[1:]) - 1, "abcdefgh".index(token[0])


def check_bestmove(lines: list[str], grid: ref.Grid, color: str, pass_token: str) -> None:
    """One bestmove, last, of two tokens: legal, the pass token exactly when forced, (none) when over."""
    assert [x for x in lines if x.startswith("bestmove")] == [lines[-1]], lines
    tokens = lines[-1].split()
    assert len(tokens) == 2, lines[-1]
    status = ref.status(grid, color)
    if status == "over":
        assert tokens[1] == "(none)"
    elif status == "pass":
        assert tokens[1] == pass_token
    else:
        assert parse_move(tokens[1]) in ref.legal_moves(grid, color), (ref.grid_text(grid), color, lines[-1])
    assert not any("Traceback" in x for x in lines)


def random_position(rng: random.Random) -> tuple[ref.Grid, str]:
    """A position from a random game on a random size 3..8 (odd sizes from a random set-up)."""
    size = rng.randint(3, 8)
    if size in (4, 6, 8) and rng.random() < 0.7:
        game = ref.random_game(size, rng)
    else:
        game = ref.random_game(size, rng, ref.random_grid(size, rng, rng.choice([0.3, 0.6])),
                               rng.choice([ref.BLACK, ref.WHITE]))
    grid, color, _ = rng.choice(game)
    return grid, color


@pytest.mark.parametrize("dialect", ["uci", "ugi"])
def test_random_positions_every_go_one_legal_bestmove_and_true_exact_scores(engine, dialect: str) -> None:
    """Random positions of every size, with passes and finished games among them, under every kind of
    limit and multi-PV: one legal bestmove per go, legal PVs, and proven scores equal to a brute-force
    solve wherever that is cheap."""
    rng = random.Random(20261122 + len(dialect))
    eng = engine()
    pass_token = "0000" if dialect == "ugi" else "pass"
    eng.send(dialect)
    eng.until(dialect + "ok")
    seen = {"move": 0, "pass": 0, "over": 0, "proven": 0, "odd size": 0}
    for _ in range(60):
        grid, color = random_position(rng)
        seen[ref.status(grid, color)] += 1
        seen["odd size"] += len(grid) % 2
        side = "b" if color == ref.BLACK else "w"
        empties = ref.grid_text(grid).count("-")
        limits = ["depth 1", "depth 5", "nodes 400", "movetime 15", "btime 300 wtime 300",
                  "p1time 300 p2time 300 p1inc 10 p2inc 10"]
        if empties <= 14:  # a proven result is cheap here
            limits += ["exact", "depth 60", ""] * 2
        limit = rng.choice(limits)
        eng.send(f"setoption name MultiPV value {rng.choice([1, 1, 3])}",
                 f"position board {ref.grid_text(grid)} {side}", f"go {limit}".strip())
        lines = eng.until("bestmove", "info string error")
        assert lines[-1].startswith("bestmove"), lines
        check_bestmove(lines, grid, color, pass_token)
        for line in lines[:-1]:
            tokens = line.split()
            if line.startswith(("info string pattern evaluation unavailable on ",
                                "info string pattern evaluation on ")):
                continue   # said once per size without weights of its own (protocol_spec.md)
            assert tokens[:2] == ["info", "depth"], line
            if tokens[2] == "0":  # the game is over: the final result, then bestmove (none)
                assert tokens[3:5] == ["score", "disc"] and int(tokens[5]) == ref.solve(grid, color)
                continue
            pv = tokens[tokens.index("pv") + 1:]
            g, c = grid, color
            for token in pv:
                if token == pass_token:
                    assert ref.status(g, c) == "pass", line
                    c = ref.other(c)
                    continue
                assert parse_move(token) in ref.legal_moves(g, c), line
                g, c = ref.play(g, c, parse_move(token)), ref.other(c)
            if "disc" in tokens and "multipv 1" in line and empties <= 9:
                assert int(tokens[tokens.index("disc") + 1]) == ref.solve(grid, color), line
                seen["proven"] += 1
    assert min(seen.values()) >= 2, seen  # the sample covers every case
    rc, _, err = eng.finish()
    assert rc == 0 and "Traceback" not in err


@needs_ffo
@pytest.mark.parametrize("dialect", ["uci", "nboard"])
def test_ffo_exact_scores_through_the_process(engine, dialect: str) -> None:
    """FFO #1-#8 (14-15 empties) solved through the protocol: the best move is one of the
    published best moves and the proven score is the published one, as each protocol writes it."""
    path = ffo_file("fforum-1-19.obf")
    eng = engine()
    eng.send("uci" if dialect == "uci" else "nboard 2")
    eng.until("uciok" if dialect == "uci" else "set myname")
    for number, line in enumerate(path.read_text().splitlines()[:8], 1):
        board, _, notes = line.partition(";")
        cells, side = board.split()
        scores = [(n.split(":")[0].strip().lower(), int(n.split(":")[1])) for n in notes.split(";") if ":" in n]
        best = max(score for _, score in scores)
        best_moves = {move for move, score in scores if score == best}
        if dialect == "uci":
            eng.send(f"position board {cells} {side.lower()}", "go exact")
            lines = eng.until("bestmove")
            proven = [x.split() for x in lines if " score disc " in x]
            assert proven and int(proven[-1][proven[-1].index("disc") + 1]) == best, (number, lines[-2:])
            assert lines[-1].split()[1] in best_moves, (number, lines[-1])
        else:
            ggf_cells = cells.replace("X", "*")
            eng.send("set depth 10", f"set game (;GM[Othello]BO[8 {ggf_cells} {'*' if side == 'X' else 'O'}];)",
                     "go")
            answer = eng.until("===")[-1]
            move, value = answer.split()[1].split("/")[:2]
            assert move.lower() in best_moves and float(value) == best, (number, answer)
    rc, _, err = eng.finish()
    assert rc == 0 and "Traceback" not in err


def test_stop_quit_and_end_of_input_in_the_middle_of_searches(engine) -> None:
    """go + stop at once, stop spam, go on a finished game and on a forced pass, go infinite held
    until stop; then quit and end of input during a search end the process at once with status 0."""
    eng = engine()
    eng.send("uci")
    eng.until("uciok")
    start = ref.start_grid(8)
    eng.send("position startpos", "go depth 30", "stop", "stop", "stop")
    check_bestmove(eng.until("bestmove"), start, ref.BLACK, "pass")
    eng.send("go infinite")
    eng.until("info depth 3")
    eng.send("isready")
    assert not any(x.startswith("bestmove") for x in eng.until("readyok"))
    eng.send("stop")
    check_bestmove(eng.until("bestmove"), start, ref.BLACK, "pass")
    over = [list("XXX"), list("XXX"), list("OO.")]          # neither side can move
    must_pass = [list("XXXO."), *[list(".....")] * 4]        # white has no move, black has e1
    for grid, side in ((over, "b"), (must_pass, "w")):
        color = ref.BLACK if side == "b" else ref.WHITE
        assert ref.status(grid, color) == ("over" if grid is over else "pass")
        for go in ("go depth 4", "go infinite", "go movetime 10"):
            eng.send(f"position board {ref.grid_text(grid)} {side}", go)
            if go == "go infinite":
                time.sleep(0.2)
                eng.send("stop")
            check_bestmove(eng.until("bestmove"), grid, color, "pass")
    # a stop with no search, and stop spam between searches, write nothing
    eng.send("stop", "stop", "isready")
    assert eng.until("readyok") == ["readyok"]
    # quit mid-search
    eng.send("position startpos", "go infinite")
    eng.until("info depth 2")
    started = time.monotonic()
    eng.send("quit")
    rc, rest, err = eng.finish()
    assert rc == 0 and time.monotonic() - started < 3
    assert len([x for x in rest if x.startswith("bestmove")]) <= 1 and "Traceback" not in err
    # end of input mid-search
    eof = engine()
    eof.send("uci", "position startpos moves f5 d6", "go infinite")
    eof.until("info depth 2")
    started = time.monotonic()
    rc, rest, err = eof.finish()
    assert rc == 0 and time.monotonic() - started < 3 and "Traceback" not in err


def test_bad_input_never_loses_the_position(engine) -> None:
    """Binary garbage, a 100 KB line, Windows line endings, illegal moves and malformed commands: one
    error line each, the process goes on, and the position is still the one last set."""
    eng = engine()
    eng.send("uci")
    eng.until("uciok")
    eng.send(b"position startpos moves f5 d6\r\n")
    bad: list[bytes] = [
        b"\x00\xff\xfe\x80garbage\x1b[31m\n",
        b"position startpos moves " + b"f5 " * 35000 + b"\n",           # ~100 KB, illegal 2nd move
        b"x" * 100_000 + b"\n",
        b"position startpos moves f5 f5\r\n",
        b"position fen 8/8/8/3ox3/3xo3/8/8 x\n",
        b"position board ---XO--- b\n",
        b"position startpos 5\n",
        b"go depth banana\n",
        b"go movetime -5\n",
        b"setoption name Hash value 0\n",
        b"setoption name Nope value 1\n",
        b"query colour\n",
    ]
    for line in bad:
        eng.send(line, "isready")
        replies = eng.until("readyok")
        errors = [x for x in replies if x.startswith("info string error")]
        assert len(errors) == 1 and len(replies) == 2, (line[:60], replies)
        assert len(errors[0]) <= 400 and errors[0].isascii(), errors[0][:100]
    eng.send(b"d\r\n")
    shown = eng.until("moves")
    assert "fen 8/8/8/3ox3/3oxx2/3o4/8/8 x" in shown and shown[-1] == "moves f5 d6"
    after = ref.play(ref.play(ref.start_grid(8), ref.BLACK, (4, 5)), ref.WHITE, (5, 3))
    eng.send("go depth 3")
    check_bestmove(eng.until("bestmove"), after, ref.BLACK, "pass")
    rc, _, err = eng.finish()
    assert rc == 0 and "Traceback" not in "\n".join(eng.seen)


def test_nboard_ping_during_go_and_hint_gets_every_line_before_pong(engine) -> None:
    """A GUI pings before each change: the stopped go still sends its one legal '===' line and
    the stopped searches their closing status, all before the pong, nothing after it."""
    eng = engine()
    eng.send("nboard 2", "set depth 30", "set game (;GM[Othello]BO[8 " + "-" * 27 + "O*------*O" + "-" * 27
             + " *]B[F5]W[D6];)", "ping 1")
    eng.until("pong 1")
    grid = ref.play(ref.play(ref.start_grid(8), ref.BLACK, (4, 5)), ref.WHITE, (5, 3))
    for k in range(2, 8):
        eng.send("go" if k % 2 else "hint 3")
        if k > 3:
            eng.until("nodestats")
        eng.send(f"ping {k}")
        lines = eng.until(f"pong {k}")
        answers = [x for x in lines if x.startswith("===")]
        if k % 2:
            assert len(answers) == 1, lines
            move = answers[0].split()[1].split("/")[0]
            assert parse_move(move.lower()) in ref.legal_moves(grid, ref.BLACK)
        else:
            assert not answers
        assert lines[-2] == "status", lines  # the search's closing status comes before the pong
    eng.send("ping 99")
    assert eng.until("pong 99") == ["pong 99"]
    eng.send("quit")
    rc, rest, err = eng.finish()
    assert rc == 0 and rest == [] and "Traceback" not in err


def test_help_flag_prints_usage_and_exits() -> None:
    """``othello-engine --help`` is what a user types first."""
    proc = subprocess.run([*ENGINE, "--help"], input="", capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0 and "usage" in proc.stdout.lower()
    for sub in ("perft", "match", "analyze", "book", "play", "--nboard"):
        assert sub in proc.stdout


def test_unknown_command_line_argument_is_refused() -> None:
    """A misspelt subcommand (``othello-engine analyse``) must not start the protocol loop silently."""
    proc = subprocess.run([*ENGINE, "analyse"], input="isready\n", capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "analyse" in proc.stderr and "readyok" not in proc.stdout


def test_utf8_byte_order_mark_before_the_first_command() -> None:
    """Windows tools (PowerShell pipes, Notepad files) put a BOM before the first line."""
    proc = subprocess.run(ENGINE, input=b"\xef\xbb\xbfuci\nisready\n", capture_output=True, timeout=30)
    out = proc.stdout.decode().splitlines()
    assert "uciok" in out and "readyok" in out and not any("error" in x for x in out)

