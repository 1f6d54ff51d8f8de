"""A UCI/UGI engine process around Zebra, Gunnar Andersson's Othello program, one Zebra run per move.

Zebra (GPL; public source: GitHub lk16/zebra, built by the user, see docs/development.md, "Zebra
as an opponent") has a pattern evaluation, selective search and a fast endgame solver, but no engine
protocol. This script gives it one, so ``othello-match`` and ``scripts/strength.py`` can referee it
like any other engine. It speaks the subset of protocol_spec.md sections 2-3 a match needs:

  uci | ugi                     id lines, the Move Overhead option, uciok / ugiok
  isready                       readyok (also while Zebra searches)
  setoption name Move Overhead value <ms>
  ucinewgame | uginewgame       back to the standard start
  position startpos | fen <ranks> <side> | board <cells> <side>  [moves <m1> ...]
  go [movetime <ms>] [depth <n>] [wtime/btime/winc/binc | p1time/p2time/p1inc/p2inc <ms>]
     [movestogo <n>] [infinite] [exact] [wld]
  stop, query p1turn|gameover|result, quit

How a move is found. Zebra has no way to keep a position between moves or to take one on its
standard input, so each ``go`` writes the position as a Zebra game file (64 cells and the side to
move) in a private temporary directory and starts ``zebra -test -evalone -g <file>`` there: it
loads its evaluation (``coeffs2.bin``, linked into that directory), searches that one position
and exits. Its output goes to a pseudo-terminal, so that C's stdio flushes every line: Zebra
prints the last completed iteration (``-->  12  +0.90  538558  d2 f3 ...``) about every 100 000
nodes, which the wrapper turns into ``info`` lines. Then:

- ``depth N`` (or no limit: ``--depth``): Zebra's fixed-depth mode, ``-l N E W``: N plies in the
  midgame, an exact solve from E empties, win/loss/draw from W (``--exact``, ``--wld``; default
  min(2N, 18) both). The bestmove is Zebra's own answer when it exits.
- ``movetime`` or a clock: Zebra's timed mode with a clock far beyond the budget (so it never
  stops on its own first; the clock still ends a Zebra run the wrapper lost track of, after about
  20 budgets), and the wrapper ends the run at the budget, playing the move of the last iteration
  Zebra reported. movetime M gives a budget of M - Move Overhead; a clock is divided as
  othello_engine's own time manager divides it (the middle of its soft and hard limits). If
  Zebra has reported nothing by then (its first report comes after its start-up and ~100 000
  nodes), the wrapper waits for it at most ``--grace`` ms longer, then plays the first legal
  move unsearched (saying so in an ``info string``). ``depth`` given too caps the plies.
- ``infinite``: timed mode until ``stop``. ``stop`` ends any search at once with the last
  reported move (the first legal move if there is none yet, without a grace).
- ``exact`` / ``wld``: Zebra solves the position now (``-l N 60 60`` / ``-l N 0 60``); a time
  limit still applies.
- One legal move, a pass, or a finished game are answered without Zebra.

``nodes`` is ignored (an ``info string`` says so); ``searchmoves``, ``perft`` and ``ponder`` are
refused. Errors get an ``info string error: ...`` line and change nothing, as in protocol_spec.md
section 6. Zebra needs a board with at least 4 discs (its move counter starts there); an 8x8
board only. Each ``go`` pays Zebra's start-up (its evaluation tables are unpacked at every start):
about 20 ms on an idle machine, see docs/benchmarks.md.

    python scripts/engines/zebra_ugi.py --zebra /path/to/zebra [--data DIR] [--depth 10]

``--zebra`` defaults to $ZEBRA_BIN, ``--data`` (the directory holding coeffs2.bin) to $ZEBRA_DATA,
else the binary's own directory. Unix only (it needs a pseudo-terminal).
"""

from __future__ import annotations

import argparse
import atexit
import ctypes
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from othello_engine.board import BLACK, PASS, Board, OthelloError, parse_square, square_name
from othello_engine.protocol.session import ProtocolError
from othello_engine.protocol.uci import parse_go, parse_position, quote
from othello_engine.timeman import clock_budget

DEFAULT_DEPTH = 10           # plies for a go with no limit at all
DEFAULT_OVERHEAD_MS = 10     # as othello_engine's own Move Overhead default
DEFAULT_GRACE_MS = 250       # how long past its budget the wrapper waits for Zebra's first report
DEFAULT_HASH_BITS = 18       # Zebra's own default: 2^18 table entries
MAX_ERROR = 320
POLL = 0.01                  # how often a search checks for stop (seconds)
COEFFS = "coeffs2.bin"
TIMED_SKILL = 60             # Zebra searches by its clock when the depth is 60 or more

_STATUS = re.compile(r"^-->\s*(\*?)\s*(\d+)\s+(.*)$")
_SQUARE = re.compile(r"^[a-h][1-8]$")
_NODES = re.compile(r"^(\d+)([kMG]?)$")


class ZebraError(RuntimeError):
    """Zebra could not be started or failed; the text says how."""


@dataclass(frozen=True)
class Config:
    """Where Zebra is and how it searches when a go does not say."""

    binary: Path
    data_dir: Path
    depth: int = DEFAULT_DEPTH
    exact: Optional[int] = None        # None: min(2 * depth, 18)
    wld: Optional[int] = None          # None: the exact depth
    hash_bits: int = DEFAULT_HASH_BITS
    grace_ms: int = DEFAULT_GRACE_MS

    def solve_depths(self, depth: int) -> tuple[int, int]:
        """Zebra's exact and win/loss/draw solve depths (empties) for a midgame depth."""
        exact = self.exact if self.exact is not None else min(2 * depth, 18)
        return exact, self.wld if self.wld is not None else exact


@dataclass(frozen=True)
class Report:
    """One line of Zebra's progress: the depth (plies, or the empties for a solve), the score,
    the nodes and the principal variation's moves as Zebra wrote them (forced passes left out)."""

    depth: int
    score: Optional[str]        # "cp 159", "disc -20", "wld win" or None
    nodes: Optional[int]
    pv: tuple[str, ...]


def parse_status(line: str) -> Optional[Report]:
    """A Zebra status line (``-->  18  +9.37  1556481  f6 f7 d3 c5 f5  0.3 s  5068938 nps``) as a
    Report, or None for any other line. The score is a midgame guess in discs (``+9.37``), a
    selective solve (``-18 @ 38%``), an exact result (``-20``) or a win/draw/loss (``Win``).

    >>> parse_status("-->  22  -18 @ 38%     406993  c1                 0.1 s  3117597 nps")
    Report(depth=22, score='cp -1800', nodes=406993, pv=('c1',))
    >>> parse_status("-->  26  +0.99        115476k  c5 b4 f3 d2 e2    14.4 s  8011727 nps").nodes
    115476000
    >>> parse_status("[-inf,inf]:    c5=0.23 f6 f5") is None
    True
    """
    m = _STATUS.match(line.strip())
    if m is None:
        return None
    depth = int(m.group(2))
    tokens = m.group(3).split()
    # the score: the tokens before the node count
    i = 0
    while i < len(tokens) and _NODES.match(tokens[i]) is None:
        i += 1
    score_words, rest = tokens[:i], tokens[i:]
    nodes = None
    counted = _NODES.match(rest[0]) if rest else None
    if counted is not None:
        count, unit = counted.groups()
        nodes = int(count) * {"": 1, "k": 10 ** 3, "M": 10 ** 6, "G": 10 ** 9}[unit]
        rest = rest[1:]
    pv: list[str] = []
    for tok in rest:
        if not _SQUARE.match(tok):
            break
        pv.append(tok)
    return Report(depth, _score_text(score_words), nodes, tuple(pv))


def _score_text(words: list[str]) -> Optional[str]:
    """Zebra's short evaluation text as our protocol's score, or None when it has no number."""
    if not words:
        return None
    head = words[0]
    selective = "@" in words
    if head in ("Win", "Draw", "Loss"):
        return None if selective else "wld " + head.lower()
    try:
        value = float(head)
    except ValueError:
        return None
    if "." in head or selective:
        return f"cp {round(100 * value)}"
    return f"disc {int(value):+d}"


def position_file_text(board: Board) -> str:
    """The board as a Zebra game file: 64 cells row by row from a1 (``X``, ``O``, ``-``), then
    ``B`` or ``W`` for the side to move."""
    return board.cells() + "\n" + ("B" if board.turn == BLACK else "W") + "\n"


def pv_moves(board: Board, pv: tuple[str, ...]) -> list[int]:
    """Zebra's PV as moves from board, with the forced passes it leaves out put back; it ends at
    the first move that is not legal (a PV cut short or stale)."""
    b = board.copy()
    moves: list[int] = []
    for tok in pv:
        move = parse_square(tok)
        if not b.is_legal(move) and b.must_pass() and not b.is_game_over():
            b.push(PASS)
            moves.append(PASS)
        if not b.is_legal(move):
            break
        b.push(move)
        moves.append(move)
    while moves and moves[-1] == PASS:
        moves.pop()
    return moves


@dataclass
class Request:
    """What one go asks of Zebra: a fixed depth (None: timed), its solve depths, and when the
    wrapper ends the run (a monotonic time, or None: when Zebra exits or at stop)."""

    depth: Optional[int]
    exact: int
    wld: int
    deadline: Optional[float]
    infinite: bool = False
    budget: float = 0.0                # seconds, for the safety clock of a timed run


def _parent_death_signal() -> Optional[Callable[[], None]]:
    """On Linux, a function for Popen's preexec_fn that has the kernel kill Zebra when the thread
    that started it dies (the wrapper killed with SIGKILL), so no Zebra run outlives its wrapper;
    None elsewhere. It only calls prctl, so it is safe in the forked child of a threaded process."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def set_signal() -> None:
        prctl(pr_set_pdeathsig, int(signal.SIGKILL))

    return set_signal


_DIE_WITH_PARENT = _parent_death_signal()


def zebra_command(config: Config, game_file: str, req: Request) -> list[str]:
    """Zebra's command line for one search. ``-quiet`` must come first (Zebra reads it before the
    other flags to drop its banner)."""
    cmd = [str(config.binary), "-quiet", "-b", "0", "-r", "0", "-h", str(config.hash_bits),
           "-test", "-evalone", "-g", game_file]
    if req.depth is None:
        skill = [str(TIMED_SKILL), str(req.exact), str(req.wld)]
        # Zebra's clock (whole seconds, 10 s of which it never touches) is made so large that it
        # plans more than the budget for any move: the wrapper ends the run, not Zebra
        clock = 10 ** 7 if req.infinite else 11 + int(40 * req.budget)
        cmd += ["-l", *skill, *skill, "-time", str(clock), "0", str(clock), "0"]
    else:
        skill = [str(req.depth), str(req.exact), str(req.wld)]
        cmd += ["-l", *skill, *skill]
    return cmd


@dataclass
class Outcome:
    """How a Zebra run ended: the move it gave (None: none), the last report, whether the wrapper
    had to cut it short, and any error text."""

    move: Optional[str] = None
    report: Optional[Report] = None
    cut: bool = False
    error: str = ""


def run_zebra(config: Config, workdir: Path, board: Board, req: Request, stop: threading.Event,
              on_report: Callable[[Report], None]) -> Outcome:
    """Run Zebra on board until it exits, the deadline or stop (then it is killed), calling
    on_report for each progress line. Past the deadline without any report, it waits up to the
    grace time for the first one; stop ends the run at once."""
    game_file = workdir / "position.txt"
    game_file.write_text(position_file_text(board), encoding="ascii")
    cmd = zebra_command(config, game_file.name, req)
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE,
                                cwd=workdir, close_fds=True, preexec_fn=_DIE_WITH_PARENT)
    except OSError as exc:
        os.close(master)
        os.close(slave)
        return Outcome(error=f"cannot start {cmd[0]}: {exc}")
    os.close(slave)
    outcome = Outcome()
    pending = b""
    pv_line: Optional[str] = None
    grace = config.grace_ms / 1000
    try:
        while True:
            now = time.monotonic()
            if stop.is_set() or (req.deadline is not None and now >= req.deadline
                                 and (outcome.report is not None or now >= req.deadline + grace)):
                outcome.cut = True
                break
            ready, _, _ = select.select([master], [], [], POLL)
            if not ready:
                continue
            try:
                data = os.read(master, 65536)
            except OSError:            # EIO: Zebra has exited and its output is all read
                data = b""
            if not data:
                break
            pending += data
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                line = raw.decode("ascii", errors="replace").rstrip("\r")
                if line.startswith("PV:"):
                    pv_line = line
                report = parse_status(line)
                if report is not None and report.pv:
                    outcome.report = report
                    on_report(report)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
        try:
            _, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            err = b""
    if not outcome.cut and proc.returncode != 0:
        text = err.decode("utf-8", errors="replace").strip().replace("\n", " ")
        outcome.error = f"Zebra exited with status {proc.returncode}: {text[:200] or '(no message)'}"
    if pv_line is not None and not outcome.cut:
        words = pv_line.split()[1:]
        if words and _SQUARE.match(words[0]):
            outcome.move = words[0]
    if outcome.move is None and outcome.report is not None:
        outcome.move = outcome.report.pv[0]
    return outcome


class Session:
    """One protocol session: the board, the Move Overhead, and at most one search thread."""

    def __init__(self, config: Config, workdir: Path, write_line: Callable[[str], None]) -> None:
        self.config = config
        self.workdir = workdir
        self.write_line = write_line
        self.out_lock = threading.Lock()
        self.board = Board()
        self.ugi = False
        self.overhead_ms = DEFAULT_OVERHEAD_MS
        self.thread: Optional[threading.Thread] = None
        self.stop_event = threading.Event()
        self.idle = threading.Event()      # set while no go waits for its bestmove
        self.idle.set()
        self.quitting = False

    # --- plumbing ---------------------------------------------------------------------------------
    def write(self, line: str) -> None:
        """Write one whole line (from either thread)."""
        with self.out_lock:
            self.write_line(line)

    def error(self, text: str) -> None:
        if len(text) > MAX_ERROR:
            text = text[: MAX_ERROR - 3] + "..."
        self.write("info string error: " + "".join(ch if " " <= ch <= "~" else "?" for ch in text))

    def move_text(self, move: int) -> str:
        if move == PASS:
            return "0000" if self.ugi else "pass"
        return square_name(move)

    def require_idle(self, what: str) -> None:
        """Return when no search runs (waiting for one that was stopped); else ProtocolError."""
        if self.idle.is_set():
            return
        if self.stop_event.is_set() and self.idle.wait(2.0):
            return
        raise ProtocolError(f"{what} while a search runs: send stop first")

    def handle(self, line: str) -> bool:
        """Answer one line; False on quit."""
        words = line.split()
        if not words:
            return True
        cmd, args = words[0].lower(), words[1:]
        try:
            if cmd in ("uci", "ugi"):
                self.ugi = cmd == "ugi"
                self.write("id name Zebra (zebra_ugi wrapper)")
                self.write("id author Gunnar Andersson (wrapper: othello_engine scripts)")
                self.write(f"option name Move Overhead type spin default {DEFAULT_OVERHEAD_MS} min 0 max 5000")
                self.write("ugiok" if self.ugi else "uciok")
            elif cmd == "isready":
                self.write("readyok")
            elif cmd == "quit":
                self.quitting = True
                self.stop_event.set()
                return False
            elif cmd == "stop":
                self.stop_event.set()
            elif cmd in ("debug", "register"):
                pass
            elif cmd == "query":
                self.query(args)
            elif cmd in ("ucinewgame", "uginewgame"):
                self.require_idle(cmd)
                self.board = Board()
            elif cmd == "position":
                self.require_idle("position")
                board = parse_position(args)
                self.check_board(board)
                self.board = board
            elif cmd == "setoption":
                self.require_idle("setoption")
                self.set_option(args)
            elif cmd == "go":
                self.require_idle("go")
                self.go(args)
            else:
                raise ProtocolError(f"unknown command {quote(words[0])}")
        except ProtocolError as exc:
            self.error(str(exc))
        return True

    @staticmethod
    def check_board(board: Board) -> None:
        if board.size != 8:
            raise ProtocolError(f"position: Zebra plays 8x8 only, not {board.size}x{board.size}")
        if board.empties > 60:
            raise ProtocolError(f"position: Zebra needs at least 4 discs on the board, not {64 - board.empties}")

    def query(self, args: list[str]) -> None:
        what = args[0].lower() if args else ""
        b = self.board
        if what == "p1turn":
            self.write("response " + ("true" if b.turn == BLACK else "false"))
        elif what == "gameover":
            self.write("response " + ("true" if b.is_game_over() else "false"))
        elif what == "result":
            d = b.disc_difference()
            self.write("response " + ("none" if not b.is_game_over()
                                      else "p1win" if d > 0 else "p2win" if d < 0 else "draw"))
        else:
            raise ProtocolError(f"query: unknown question {quote(args[0]) if args else '(none)'}: "
                                "expected p1turn, gameover or result")

    def set_option(self, args: list[str]) -> None:
        text = " ".join(args)
        lower = text.lower()
        if not lower.startswith("name ") or " value " not in lower:
            raise ProtocolError("setoption: expected 'setoption name <Name> value <v>'")
        cut = lower.index(" value ")
        name, value = text[5:cut].strip(), text[cut + 7:].strip()
        if name.lower() != "move overhead":
            raise ProtocolError(f"setoption: unknown option {quote(name)}; options are Move Overhead")
        if not re.fullmatch(r"\d{1,9}", value):
            raise ProtocolError(f"setoption: bad value {quote(value)} for 'Move Overhead': "
                                "expected an integer in 0..5000")
        if not 0 <= int(value) <= 5000:
            raise ProtocolError(f"setoption: value {value} for 'Move Overhead' is out of range 0..5000")
        self.overhead_ms = int(value)

    # --- the search ---------------------------------------------------------------------------------
    def request(self, args: list[str], board: Board, start: float) -> Request:
        """The Zebra run a go asks for (ProtocolError for what Zebra cannot do)."""
        lowered = [a.lower() for a in args]
        for word in ("searchmoves", "perft"):
            if word in lowered:
                raise ProtocolError(f"go: {word} is not supported by the Zebra wrapper")
        limit = parse_go(args, board).limit
        if limit.nodes is not None:
            self.write("info string go nodes is not supported by Zebra; ignored")
        overhead = self.overhead_ms / 1000
        clock = limit.black_clock if board.turn == BLACK else limit.white_clock
        budget: Optional[float] = None
        if limit.infinite:
            budget = None
        elif limit.time is not None:
            budget = max(0.001, limit.time - overhead)
        elif clock is not None:
            inc = limit.black_inc if board.turn == BLACK else limit.white_inc
            plan = clock_budget(clock, inc, limit.moves_to_go, board.empties, overhead)
            assert plan.soft is not None and plan.hard is not None
            budget = (plan.soft + plan.hard) / 2
        # exact and wld need Zebra's depth mode: in its timed mode Zebra decides itself when to solve
        timed = (limit.infinite or budget is not None) and not (limit.exact or limit.wld)
        depth = limit.depth if limit.depth is not None else (None if timed else self.config.depth)
        if depth is not None:
            depth = min(depth, 60)
        exact, wld = self.config.solve_depths(depth if depth is not None else self.config.depth)
        if depth is None:                 # timed: Zebra chooses when to solve
            exact = wld = 60
        if limit.exact:
            exact = wld = 60
        elif limit.wld:
            exact, wld = 0, 60
        return Request(depth=depth, exact=exact, wld=wld,
                       deadline=None if budget is None else start + budget,
                       infinite=limit.infinite, budget=budget or 0.0)

    def go(self, args: list[str]) -> None:
        start = time.monotonic()
        board = self.board.copy()
        req = self.request(args, board, start)
        self.stop_event = threading.Event()
        self.idle.clear()
        self.thread = threading.Thread(target=self.search, args=(board, req, start, self.stop_event),
                                       daemon=True)
        self.thread.start()

    def search(self, board: Board, req: Request, start: float, stop: threading.Event) -> None:
        """The search thread: exactly one bestmove (after stop for go infinite; none after quit)."""
        try:
            move_text = self.find_move(board, req, start, stop)
        except Exception as exc:           # never a traceback on stdout; still one legal bestmove
            print(f"zebra_ugi: internal error in {board.fen()!r}: {exc!r}", file=sys.stderr, flush=True)
            moves = board.legal_moves()
            move_text = self.move_text(moves[0]) if moves else ("(none)" if board.is_game_over()
                                                                else self.move_text(PASS))
        if req.infinite:
            stop.wait()
        # idle before the bestmove is out (a GUI may send its next go the moment it reads it),
        # and nothing of that next go written before it
        with self.out_lock:
            self.idle.set()
            if not self.quitting:
                self.write_line(f"bestmove {move_text}")

    def find_move(self, board: Board, req: Request, start: float, stop: threading.Event) -> str:
        def elapsed_ms() -> int:
            return int(1000 * (time.monotonic() - start))

        if board.is_game_over():
            diff = board.disc_difference() * (1 if board.turn == BLACK else -1)
            self.write(f"info depth 0 score disc {diff:+d}")
            return "(none)"
        moves = board.legal_moves()
        if not moves:
            self.write(f"info time {elapsed_ms()} pv {self.move_text(PASS)}")
            return self.move_text(PASS)
        if len(moves) == 1:
            self.write(f"info time {elapsed_ms()} pv {self.move_text(moves[0])}")
            return self.move_text(moves[0])

        def on_report(r: Report) -> None:
            pv = " ".join(self.move_text(m) for m in pv_moves(board, r.pv))
            parts = [f"info depth {r.depth}"]
            if r.score:
                parts.append(f"score {r.score}")
            if r.nodes is not None:
                parts.append(f"nodes {r.nodes}")
            parts.append(f"time {elapsed_ms()}")
            if pv:
                parts.append(f"pv {pv}")
            self.write(" ".join(parts))

        outcome = run_zebra(self.config, self.workdir, board, req, stop, on_report)
        if outcome.error:
            print(f"zebra_ugi: {outcome.error} (position {board.fen()!r})", file=sys.stderr, flush=True)
            self.write(f"info string zebra failed: {outcome.error[:200]}")
        move: Optional[int] = None
        if outcome.move is not None:
            try:
                move = parse_square(outcome.move)
            except OthelloError:
                move = None
            if move is not None and not board.is_legal(move):
                print(f"zebra_ugi: Zebra answered the illegal move {outcome.move} in {board.fen()!r}",
                      file=sys.stderr, flush=True)
                move = None
        if move is None:
            move = moves[0]
            if not self.quitting:
                self.write(f"info string zebra gave no move in time; playing {square_name(move)} unsearched")
        return self.move_text(move)

    def close(self) -> None:
        """Stop a running search (quit or end of input) and wait for Zebra to be gone."""
        self.quitting = True
        self.stop_event.set()
        if self.thread is not None:
            self.thread.join(2.0 + self.config.grace_ms / 1000)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zebra", metavar="PATH", default=os.environ.get("ZEBRA_BIN"),
                    help="the Zebra binary (default: $ZEBRA_BIN)")
    ap.add_argument("--data", metavar="DIR", default=os.environ.get("ZEBRA_DATA"),
                    help="the directory holding coeffs2.bin (default: $ZEBRA_DATA, else the binary's directory)")
    ap.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                    help=f"midgame plies for a go without any limit (default {DEFAULT_DEPTH})")
    ap.add_argument("--exact", type=int, help="exact solve from this many empties in depth mode "
                                              "(default min(2 x depth, 18))")
    ap.add_argument("--wld", type=int, help="win/loss/draw solve from this many empties in depth mode "
                                            "(default: the exact depth)")
    ap.add_argument("--hash-bits", type=int, default=DEFAULT_HASH_BITS,
                    help=f"Zebra's table has 2^bits entries (default {DEFAULT_HASH_BITS})")
    ap.add_argument("--grace", type=int, default=DEFAULT_GRACE_MS, metavar="MS",
                    help=f"wait this long past the budget for Zebra's first report (default {DEFAULT_GRACE_MS})")
    return ap


def make_config(args: argparse.Namespace) -> Config:
    """The checked configuration; ZebraError names what is missing."""
    if not args.zebra:
        raise ZebraError("no Zebra binary: give --zebra PATH or set ZEBRA_BIN")
    binary = Path(args.zebra).expanduser()
    if not binary.is_file() or not os.access(binary, os.X_OK):
        found = shutil.which(args.zebra)
        if found is None:
            raise ZebraError(f"Zebra binary {args.zebra!r} is not an executable file")
        binary = Path(found)
    binary = binary.resolve()
    data = Path(args.data).expanduser() if args.data else binary.parent
    if not (data / COEFFS).is_file():
        raise ZebraError(f"no {COEFFS} in {str(data)!r}: give --data DIR or set ZEBRA_DATA")
    for name, value, lo, hi in (("--depth", args.depth, 1, 60), ("--hash-bits", args.hash_bits, 1, 30),
                                ("--grace", args.grace, 0, 60000), ("--exact", args.exact, 0, 60),
                                ("--wld", args.wld, 0, 60)):
        if value is not None and not lo <= value <= hi:
            raise ZebraError(f"{name} {value} is out of range {lo}..{hi}")
    return Config(binary=binary, data_dir=data.resolve(), depth=args.depth, exact=args.exact, wld=args.wld,
                  hash_bits=args.hash_bits, grace_ms=args.grace)


def make_workdir(config: Config) -> Path:
    """A private directory for Zebra's files (its game file, zebra.log, current.gam) holding a
    link to its evaluation, removed at exit."""
    workdir = Path(tempfile.mkdtemp(prefix="zebra_ugi_"))
    atexit.register(shutil.rmtree, workdir, True)
    target = workdir / COEFFS
    try:
        target.symlink_to(config.data_dir / COEFFS)
    except OSError:
        shutil.copyfile(config.data_dir / COEFFS, target)
    return workdir


def main(argv: Optional[list[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        config = make_config(args)
    except ZebraError as exc:
        print(f"zebra_ugi: error: {exc}", file=sys.stderr)
        return 2
    workdir = make_workdir(config)

    def write_line(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    session = Session(config, workdir, write_line)
    # SIGTERM ends the session like quit, so no Zebra run is left behind
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    try:
        for raw in sys.stdin.buffer:
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            try:
                if not session.handle(line):
                    break
            except Exception as exc:           # no traceback on stdout, the loop goes on
                print(f"zebra_ugi: internal error on {line!r}: {exc!r}", file=sys.stderr, flush=True)
                session.error(f"internal error: {type(exc).__name__}")
    finally:
        session.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
