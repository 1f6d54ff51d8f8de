"""Engine drivers for the match runner: one player interface over UCI/UGI, GTP and NBoard engines.

A :class:`Player` runs one engine process and answers one question: given the game so far and a
time control, which move? It never judges the move (the referee in :mod:`othello_engine.match`
does) and never keeps time for the referee (the referee measures the clock itself). Failures
come out as :class:`EngineFailure` subclasses carrying a short reason.
"""

from __future__ import annotations

import os
import queue
import re
import shlex
import shutil
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import IO, Optional

from othello_engine.board import BLACK, PASS, Board, OthelloError, format_ggf, parse_square, square_name

PROTOCOLS = ("uci", "ugi", "gtp", "nboard")


class DriverError(ValueError):
    """A driver that cannot be built: unknown protocol, empty or missing command."""


class EngineFailure(Exception):
    """An engine misbehaved; ``kind`` is one of crash, timeout, protocol, start."""

    kind = "protocol"

    def __init__(self, engine: str, message: str) -> None:
        super().__init__(f"engine {engine!r}: {message}")
        self.engine = engine
        self.message = message


class EngineCrashed(EngineFailure):
    """The process exited or closed its output."""

    kind = "crash"


class EngineTimeout(EngineFailure):
    """No awaited reply before the deadline."""

    kind = "timeout"


class EngineProtocolError(EngineFailure):
    """A reply that breaks the protocol (an error answer, a garbled line)."""

    kind = "protocol"


class EngineStartError(EngineFailure):
    """The process could not be started or did not finish its handshake."""

    kind = "start"


@dataclass(frozen=True)
class TimeControl:
    """How long one engine may think: a game clock (``base`` seconds + ``inc`` per move), a
    fixed ``movetime`` per move (seconds), or a ``depth`` / ``nodes`` limit. Fields may combine
    (e.g. depth with a clock); ``None`` is no limit of that kind."""

    base: Optional[float] = None
    inc: float = 0.0
    movetime: Optional[float] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None

    def __str__(self) -> str:
        parts = []
        if self.base is not None:
            parts.append(f"clock {_num(self.base)}+{_num(self.inc)}s")
        if self.movetime is not None:
            parts.append(f"movetime {_num(self.movetime)}s")
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        if self.nodes is not None:
            parts.append(f"nodes {self.nodes}")
        return ", ".join(parts) or "unlimited"


def _num(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class MoveRequest:
    """What the referee tells a player before a move: its time control and both clocks (seconds
    left, already measured by the referee; None without a clock)."""

    tc: TimeControl
    black_clock: Optional[float] = None
    white_clock: Optional[float] = None


@dataclass(frozen=True)
class Reply:
    """An engine's answer: the move token as sent, and what it said about it (score in discs from
    the mover's view, depth, nodes) where it said anything."""

    move: str
    score: Optional[float] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None


@dataclass(frozen=True)
class EngineSpec:
    """One engine of a match: its command line, protocol, name, setoptions and time control."""

    name: str
    command: tuple[str, ...]
    protocol: str = "uci"
    options: tuple[tuple[str, str], ...] = ()
    tc: TimeControl = field(default_factory=lambda: TimeControl(depth=4))
    cwd: Optional[str] = None

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise DriverError(f"engine {self.name!r}: unknown protocol {self.protocol!r}; "
                              f"expected one of {', '.join(PROTOCOLS)}")
        if not self.command:
            raise DriverError(f"engine {self.name!r}: empty command")

    def check_command(self) -> None:
        """Raise DriverError if the program of the command cannot be found."""
        prog = self.command[0]
        where = os.path.join(self.cwd, prog) if self.cwd and os.sep in prog else prog
        if os.sep in prog:
            if not os.access(where, os.X_OK):
                raise DriverError(f"engine {self.name!r}: command {prog!r} is not an executable file")
        elif shutil.which(prog) is None:
            raise DriverError(f"engine {self.name!r}: command {prog!r} not found on PATH")


# --- the process ---------------------------------------------------------------------------------

class EngineProcess:
    """A child process spoken to by lines: a reader thread queues stdout lines, the last stderr
    lines are kept for error messages, and every wait has a deadline (time.monotonic())."""

    def __init__(self, name: str, command: tuple[str, ...], cwd: Optional[str] = None) -> None:
        self.name = name
        self.command = command
        self.cwd = cwd
        self.lines: queue.Queue[Optional[str]] = queue.Queue()
        self.stderr_tail: deque[str] = deque(maxlen=5)
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.eof = False

    def start(self) -> None:
        try:
            self.proc = subprocess.Popen(list(self.command), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         cwd=self.cwd, start_new_session=True)
        except OSError as exc:
            raise EngineStartError(self.name, f"cannot start {shlex.join(self.command)!r}: "
                                   f"{exc.strerror or exc}") from None
        assert self.proc.stdout is not None and self.proc.stderr is not None
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()
        threading.Thread(target=self._read_err, args=(self.proc.stderr,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self.lines.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        self.lines.put(None)

    def _read_err(self, stream: IO[bytes]) -> None:
        for raw in stream:
            text = raw.decode("utf-8", errors="replace").rstrip()
            if text:
                self.stderr_tail.append(text)

    def send(self, line: str) -> None:
        if self.proc is None or self.proc.stdin is None:
            raise EngineCrashed(self.name, "not running")
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineCrashed(self.name, f"died before {line!r} ({self.exit_text()})") from None

    def read_line(self, deadline: float, waiting_for: str) -> str:
        """The next line, or EngineTimeout at the deadline, or EngineCrashed at end of output."""
        if self.eof:
            raise EngineCrashed(self.name, f"exited while we waited for {waiting_for} "
                                           f"({self.exit_text()})")
        try:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise EngineTimeout(self.name, f"no {waiting_for}") from None
        if line is None:
            self.eof = True
            return self.read_line(deadline, waiting_for)
        return line

    def exit_text(self) -> str:
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                code = None
        text = "still running" if code is None else f"exit status {code}"
        if self.stderr_tail:
            text += "; stderr: " + " | ".join(self.stderr_tail)
        return text

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and not self.eof

    def close(self, quit_line: Optional[str] = "quit", grace: float = 0.5) -> None:
        """Ask the engine to quit, then terminate, then kill; always reaps the process."""
        proc = self.proc
        if proc is None:
            return
        if quit_line and proc.poll() is None:
            try:
                self.send(quit_line)
            except EngineFailure:
                pass
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, 15)
                proc.wait(timeout=grace)
            except (subprocess.TimeoutExpired, ProcessLookupError, PermissionError):
                try:
                    os.killpg(proc.pid, 9)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
                proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


# --- the player interface ------------------------------------------------------------------------

class Player:
    """One engine behind one protocol. Use: ``start(timeout)``, then per game
    ``new_game(board, deadline)``, per move ``send_go(board, request)`` and
    ``read_move(deadline)`` (``stop()`` to ask for a move now), and ``close()``."""

    quit_line: Optional[str] = "quit"

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self.engine_id = ""  # the name the engine gives itself
        self.process = EngineProcess(spec.name, spec.command, spec.cwd)

    @property
    def alive(self) -> bool:
        return self.process.alive

    def start(self, timeout: float) -> None:
        """Launch the process and finish the handshake within ``timeout`` seconds."""
        self.process.start()
        deadline = time.monotonic() + timeout
        try:
            self.handshake(deadline)
        except EngineFailure as exc:
            self.close()
            why = "did not finish the handshake" if isinstance(exc, EngineTimeout) else "failed at start-up"
            raise EngineStartError(self.name, f"{why} within {timeout:g} s: {exc.message}") from None

    def handshake(self, deadline: float) -> None:
        raise NotImplementedError

    def new_game(self, board: Board, deadline: float) -> None:
        raise NotImplementedError

    def send_go(self, board: Board, request: MoveRequest) -> None:
        raise NotImplementedError

    def read_move(self, deadline: float) -> Reply:
        raise NotImplementedError

    def stop(self) -> None:
        """Ask for the move now, where the protocol can."""

    def close(self) -> None:
        self.process.close(self.quit_line)

    def expect(self, deadline: float, waiting_for: str, pattern: str) -> str:
        """Read lines until one matches ``pattern`` (a regex, matched at the start)."""
        rx = re.compile(pattern)
        while True:
            line = self.process.read_line(deadline, waiting_for)
            if rx.match(line.strip()):
                return line.strip()


def make_player(spec: EngineSpec) -> Player:
    """The player for the spec's protocol."""
    if spec.protocol in ("uci", "ugi"):
        return UciPlayer(spec)
    if spec.protocol == "gtp":
        return GtpPlayer(spec)
    return NBoardPlayer(spec)


_SCORE = re.compile(r"\bscore (cp|disc) (-?\d+)")
_DEPTH = re.compile(r"\bdepth (\d+)")
_NODES = re.compile(r"\bnodes (\d+)")


class UciPlayer(Player):
    """Our UCI-like protocol or its UGI dialect (``protocol`` ``uci`` / ``ugi``)."""

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__(spec)
        self.ugi = spec.protocol == "ugi"

    def handshake(self, deadline: float) -> None:
        hello, ok = ("ugi", "ugiok") if self.ugi else ("uci", "uciok")
        self.process.send(hello)
        while True:
            line = self.process.read_line(deadline, f"{ok!r} after {hello!r}").strip()
            if line.startswith("id name "):
                self.engine_id = line[8:].strip()
            if line == ok:
                break
        for name, value in self.spec.options:
            self.process.send(f"setoption name {name} value {value}")
        self.sync(deadline)

    def sync(self, deadline: float) -> None:
        self.process.send("isready")
        while True:
            line = self.process.read_line(deadline, "'readyok' after 'isready'").strip()
            if line == "readyok":
                return
            if line.startswith("info string error"):
                raise EngineProtocolError(self.name, f"refused a command: {line}")

    def new_game(self, board: Board, deadline: float) -> None:
        self.process.send("uginewgame" if self.ugi else "ucinewgame")
        self.sync(deadline)

    def move_token(self, move: int) -> str:
        if move == PASS:
            return "0000" if self.ugi else "pass"
        return square_name(move)

    def send_go(self, board: Board, request: MoveRequest) -> None:
        start = board.replay()
        head = "startpos" if start == Board(start.size) and start.size == 8 else f"fen {start.fen()}"
        moves = " ".join(self.move_token(m) for m in board.move_stack)
        self.process.send(f"position {head}" + (f" moves {moves}" if moves else ""))
        tc = request.tc
        words = ["go"]
        if tc.depth is not None:
            words += ["depth", str(tc.depth)]
        if tc.nodes is not None:
            words += ["nodes", str(tc.nodes)]
        if tc.movetime is not None:
            words += ["movetime", str(max(1, int(tc.movetime * 1000)))]
        if tc.base is not None and request.black_clock is not None and request.white_clock is not None:
            b, w, inc = (max(0, int(request.black_clock * 1000)), max(0, int(request.white_clock * 1000)),
                         int(tc.inc * 1000))
            if self.ugi:
                words += ["p1time", str(b), "p2time", str(w), "p1inc", str(inc), "p2inc", str(inc)]
            else:
                words += ["btime", str(b), "wtime", str(w), "binc", str(inc), "winc", str(inc)]
        self.process.send(" ".join(words))
        self.score: Optional[float] = None
        self.depth: Optional[int] = None
        self.nodes: Optional[int] = None

    def read_move(self, deadline: float) -> Reply:
        while True:
            line = self.process.read_line(deadline, "'bestmove'").strip()
            if line.startswith("info "):
                m = _SCORE.search(line)
                if m:
                    self.score = int(m.group(2)) / (100.0 if m.group(1) == "cp" else 1.0)
                m = _DEPTH.search(line)
                if m:
                    self.depth = int(m.group(1))
                m = _NODES.search(line)
                if m:
                    self.nodes = int(m.group(1))
            elif line.startswith("bestmove"):
                words = line.split()
                return Reply(words[1] if len(words) > 1 else "", self.score, self.depth, self.nodes)

    def stop(self) -> None:
        try:
            self.process.send("stop")
        except EngineFailure:
            pass


class GtpPlayer(Player):
    """An Othello engine speaking GTP (as gtp-rhino does): ``boardsize 8``, ``clear_board``,
    ``play b d3``, ``play w pass``, ``genmove b``. GTP sets up no position, so every game
    starts from the standard start and the opening's moves are played into it."""

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__(spec)
        self.sent: list[int] = []
        self.next_id = 1

    def command(self, line: str, deadline: float, tolerate_error: bool = False) -> str:
        """Send one GTP command and return its answer text (without ``=``)."""
        self.process.send(line)
        first = ""
        while True:
            text = self.process.read_line(deadline, f"the answer to {line!r}").strip()
            if not first:
                if not text:
                    continue
                first = text
                if not (first.startswith("=") or first.startswith("?")):
                    raise EngineProtocolError(self.name, f"answered {first!r} to {line!r}")
            elif not text:
                break
        if first.startswith("?"):
            if tolerate_error:
                return ""
            raise EngineProtocolError(self.name, f"refused {line!r}: {first[1:].strip()!r}")
        return first[1:].strip()

    def handshake(self, deadline: float) -> None:
        self.command("protocol_version", deadline)
        self.engine_id = self.command("name", deadline, tolerate_error=True)
        self.command("boardsize 8", deadline)
        for name, value in self.spec.options:
            self.command(f"{name} {value}".strip(), deadline)

    def new_game(self, board: Board, deadline: float) -> None:
        start = board.replay()
        if start != Board(8):
            raise EngineProtocolError(self.name, "GTP can only start from the standard 8x8 position")
        self.command("clear_board", deadline)
        self.sent = []
        tc = self.spec.tc
        if tc.base is not None:
            self.command(f"time_settings {int(tc.base)} 0 0", deadline, tolerate_error=True)
        elif tc.movetime is not None:
            self.command(f"time_settings 0 {max(1, round(tc.movetime))} 1", deadline, tolerate_error=True)

    def send_go(self, board: Board, request: MoveRequest) -> None:
        deadline = time.monotonic() + 10.0
        moves = board.move_stack
        if moves[:len(self.sent)] != self.sent:
            self.command("clear_board", deadline)
            self.sent = []
        turn = board.replay().turn
        for i, m in enumerate(moves):
            color = "b" if (turn ^ (i % 2)) == BLACK else "w"
            if i >= len(self.sent):
                if m == PASS:  # some engines (gtp-rhino) pass by themselves and refuse 'play b pass'
                    self.command(f"play {color} pass", deadline, tolerate_error=True)
                else:
                    self.command(f"play {color} {square_name(m)}", deadline)
                self.sent.append(m)
        me = "b" if board.turn == BLACK else "w"
        clock = request.black_clock if board.turn == BLACK else request.white_clock
        if request.tc.base is not None and clock is not None:
            self.command(f"time_left {me} {max(0, int(clock))} 0", deadline, tolerate_error=True)
        self.process.send(f"genmove {me}")
        self.genmove_color = me

    def read_move(self, deadline: float) -> Reply:
        first = ""
        while True:
            text = self.process.read_line(deadline, "the answer to 'genmove'").strip()
            if not first:
                if text:
                    first = text
                continue
            if not text:
                break
        if first.startswith("?"):
            raise EngineProtocolError(self.name, f"refused 'genmove': {first[1:].strip()!r}")
        if not first.startswith("="):
            raise EngineProtocolError(self.name, f"answered {first!r} to 'genmove'")
        move = first[1:].strip().split()[0] if first[1:].strip() else ""
        try:  # genmove has put the move on the engine's own board
            self.sent.append(parse_square(move))
        except OthelloError:
            pass  # the referee rejects it and the game ends
        return Reply(move)


class NBoardPlayer(Player):
    """An engine speaking the NBoard protocol: ``nboard 2``, ``set depth``, ``set game <GGF>``,
    ``go`` answered by ``=== move[/eval[/time]]``, and ``ping n`` / ``pong n`` to synchronise."""

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__(spec)
        self.ping_id = 0

    def ping(self, deadline: float) -> None:
        self.ping_id += 1
        self.process.send(f"ping {self.ping_id}")
        while True:
            line = self.process.read_line(deadline, f"'pong {self.ping_id}'").strip()
            if line.startswith("set myname "):
                self.engine_id = line[11:].strip()
            if line == f"pong {self.ping_id}":
                return

    def handshake(self, deadline: float) -> None:
        self.process.send("nboard 2")
        depth = self.spec.tc.depth if self.spec.tc.depth is not None else 60
        self.process.send(f"set depth {depth}")
        for name, value in self.spec.options:
            self.process.send(f"set {name} {value}".strip())
        self.ping(deadline)

    def new_game(self, board: Board, deadline: float) -> None:
        self.ping(deadline)

    def send_go(self, board: Board, request: MoveRequest) -> None:
        tc = request.tc
        ti = ""
        if tc.base is not None:
            clock = request.black_clock if board.turn == BLACK else request.white_clock
            ti = f"{max(0.0, clock or 0.0):.1f}//{tc.inc:g}"
        elif tc.movetime is not None:
            ti = f"{tc.movetime:g}"
        self.ping(time.monotonic() + 10.0)
        self.process.send("set game " + format_ggf(board, time_control=ti))
        self.process.send("go")

    def read_move(self, deadline: float) -> Reply:
        while True:
            line = self.process.read_line(deadline, "'=== move'").strip()
            if line.startswith("set myname "):
                self.engine_id = line[11:].strip()
            if line.startswith("==="):
                parts = line[3:].strip().split("/")
                score = None
                if len(parts) > 1:
                    try:
                        score = float(parts[1])
                    except ValueError:
                        score = None
                return Reply(parts[0].strip(), score)
