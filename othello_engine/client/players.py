"""The match's players: one interface over UCI/UGI, GTP and NBoard engines, their specs and failures.

A :class:`Player` runs one engine process and answers one question: given the game so far and a
time control, which move? It never judges the move (the referee in :mod:`othello_engine.match`
does) and never keeps time for the referee (the referee measures the clock itself). Failures
come out as :class:`EngineFailure` subclasses carrying a short reason.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from typing import Optional

from othello_engine.board import BLACK, PASS, Board, OthelloError, parse_square, square_name
from othello_engine.client.errors import (EngineError, EngineTerminatedError, EngineTimeoutError,
                                          IllegalEngineMoveError)
from othello_engine.client.process import EngineProcess, ProtocolEngine
from othello_engine.client.uci import AnalysisStream, EngineClient
from othello_engine.engine import Limit
from othello_engine.ggf import format_ggf
from othello_engine.textnum import ascii_float

PROTOCOLS = ("uci", "ugi", "gtp", "nboard")

NBOARD_DEFAULT_DEPTH = 12
"""The ``set depth`` an NBoard engine gets when its time control has no depth."""


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
    arrived: Optional[float] = None
    """When the move's line arrived (``time.monotonic()``), where the driver knows it: the
    referee times the move by it, not by when it finished reading the engine's chatter."""


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


# --- the player interface ------------------------------------------------------------------------

def _failure(name: str, exc: EngineError) -> EngineFailure:
    """The referee's view of a client error."""
    text = str(exc)
    if isinstance(exc, EngineTerminatedError):
        return EngineCrashed(name, text)
    if isinstance(exc, EngineTimeoutError):
        return EngineTimeout(name, text)
    return EngineProtocolError(name, text)


class Player:
    """One engine behind one protocol, on an :class:`~othello_engine.client.process.EngineProcess`.
    Use: ``start(timeout)``, then per game ``new_game(board, deadline)``, per move
    ``send_go(board, request)`` and ``read_move(deadline)`` (``stop()`` asks for the move now),
    and ``close()``. Deadlines are ``time.monotonic()`` values."""

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self.engine_id = ""  # the name the engine gives itself
        self.evaluation = ""
        """The evaluation the engine plays with, when it says (its ``Evaluation`` option), or
        ``classic (fallback)`` once it has said that the one chosen is unavailable (at start-up,
        or at its first search on a board size without weights)."""
        self.evaluation_problem = ""
        """What the engine said at start-up about an evaluation it cannot use (else empty)."""
        self.engine: Optional[ProtocolEngine] = None

    @property
    def alive(self) -> bool:
        return self.engine is not None and self.engine.alive

    @property
    def process(self) -> EngineProcess:
        if self.engine is None:
            raise EngineCrashed(self.name, "not started")
        return self.engine.process

    def start(self, timeout: float) -> None:
        """Launch the process and finish the handshake within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        try:
            self.launch(timeout)
            self.handshake(deadline)
        except (EngineFailure, EngineError, ValueError) as exc:
            self.close()
            message = exc.message if isinstance(exc, EngineFailure) else str(exc)
            timed_out = isinstance(exc, (EngineTimeout, EngineTimeoutError))
            why = "did not finish the handshake" if timed_out else "failed at start-up"
            raise EngineStartError(self.name, f"{why} within {timeout:g} s: {message}") from None

    def launch(self, timeout: float) -> None:
        process = EngineProcess(list(self.spec.command), cwd=self.spec.cwd, name=self.spec.name)
        self.engine = ProtocolEngine(process)
        self.engine.quit_timeout = 0.5

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
        if self.engine is not None:
            self.engine.close()

    def read_line(self, deadline: float, waiting_for: str) -> str:
        """The next line; EngineTimeout at the deadline, EngineCrashed when the process is gone."""
        try:
            return self.process.readline(max(0.0, deadline - time.monotonic()), f"waiting for {waiting_for}",
                                         arrived_by=deadline)
        except EngineError as exc:
            raise _failure(self.name, exc) from None

    def send(self, line: str) -> None:
        try:
            self.process.send(line)
        except EngineError as exc:
            raise _failure(self.name, exc) from None


def make_player(spec: EngineSpec) -> Player:
    """The player for the spec's protocol."""
    if spec.protocol in ("uci", "ugi"):
        return UciPlayer(spec)
    if spec.protocol == "gtp":
        return GtpPlayer(spec)
    return NBoardPlayer(spec)


def limit_of(request: MoveRequest) -> Limit:
    """The client's search limit for a move request."""
    tc = request.tc
    black, white = request.black_clock, request.white_clock
    if tc.base is None or (black is None and white is None):
        return Limit(depth=tc.depth, nodes=tc.nodes, time=tc.movetime)
    # an opponent without a clock is shown the mover's own, so the engine sees a full go line
    black = white if black is None else black
    white = black if white is None else white
    return Limit(depth=tc.depth, nodes=tc.nodes, time=tc.movetime, black_clock=max(0.0, black or 0.0),
                 white_clock=max(0.0, white or 0.0), black_inc=tc.inc, white_inc=tc.inc)


class UciPlayer(Player):
    """Our UCI-like protocol or its UGI dialect (``protocol`` ``uci`` / ``ugi``), driven by the
    client's :class:`~othello_engine.client.uci.EngineClient`; options go through its ``configure`` (so
    an option the engine does not declare is a start-up error)."""

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__(spec)
        self.stream: Optional[AnalysisStream] = None

    def launch(self, timeout: float) -> None:
        pass  # EngineClient.popen starts the process and does the handshake

    def handshake(self, deadline: float) -> None:
        timeout = max(0.0, deadline - time.monotonic())
        engine = EngineClient.popen(list(self.spec.command), self.spec.protocol, timeout=timeout,
                                     options=dict(self.spec.options) or None, cwd=self.spec.cwd,
                                     name=self.spec.name)
        engine.quit_timeout = 0.5
        self.engine = engine
        self.engine_id = engine.id.get("name", "")
        self.evaluation_problem = next((s for s in engine.strings if "evaluation unavailable" in s), "")
        chosen = {str(k).lower(): str(v) for k, v in dict(self.spec.options).items()}.get("evaluation")
        declared = engine.options.get("evaluation")
        self.evaluation = chosen or (str(declared.default) if declared is not None else "")
        if self.evaluation_problem and self.evaluation != "classic":
            self.evaluation = "classic (fallback)"

    @property
    def uci(self) -> EngineClient:
        assert isinstance(self.engine, EngineClient)
        return self.engine

    def new_game(self, board: Board, deadline: float) -> None:
        try:
            self.uci.new_game()
        except EngineError as exc:
            raise _failure(self.name, exc) from None

    def send_go(self, board: Board, request: MoveRequest) -> None:
        try:
            self.stream = self.uci.analysis(board, limit_of(request))
        except EngineError as exc:
            raise _failure(self.name, exc) from None

    def read_move(self, deadline: float) -> Reply:
        stream = self.stream
        assert stream is not None
        try:
            stream.read_to_end(max(0.0, deadline - time.monotonic()))
        except IllegalEngineMoveError:
            pass  # the referee judges the token itself
        except EngineError as exc:
            raise _failure(self.name, exc) from None
        result = stream.result
        assert result is not None
        if self.evaluation not in ("", "classic") and any("evaluation unavailable" in s
                                                           for s in stream.strings):
            # said at the first search on a board size without weights: for good, as it is
            # said only once
            self.evaluation = "classic (fallback)"
        info = result.info
        score = None if info.score is None else info.score / 100.0
        return Reply(result.token, score, info.depth, info.nodes, result.arrived)

    def stop(self) -> None:
        if self.stream is not None:
            self.stream.stop()


class GtpPlayer(Player):
    """An Othello engine speaking GTP (as gtp-rhino does): ``boardsize 8``, ``clear_board``,
    ``play b d3``, ``play w pass``, ``genmove b``. GTP sets up no position, so every game
    starts from the standard start and the opening's moves are played into it."""

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__(spec)
        self.size = 8   # the board size the engine was last told
        self.sent: list[int] = []
        self.next_id = 1

    def command(self, line: str, deadline: float, tolerate_error: bool = False) -> str:
        """Send one GTP command and return its answer text (without ``=``)."""
        self.send(line)
        first = ""
        while True:
            text = self.read_line(deadline, f"the answer to {line!r}").strip()
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
        self.size = 8
        for name, value in self.spec.options:
            self.command(f"{name} {value}".strip(), deadline)

    def new_game(self, board: Board, deadline: float) -> None:
        start = board.replay()
        if start.size % 2 or start != Board(start.size):
            raise EngineProtocolError(self.name, "GTP can only start from the standard start of a board "
                                                 "(it sets up no position)")
        if start.size != self.size:
            self.command(f"boardsize {start.size}", deadline)
            self.size = start.size
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
                    self.command(f"play {color} {square_name(m, board.size)}", deadline)
                self.sent.append(m)
        me = "b" if board.turn == BLACK else "w"
        clock = request.black_clock if board.turn == BLACK else request.white_clock
        if request.tc.base is not None and clock is not None:
            self.command(f"time_left {me} {max(0, int(clock))} 0", deadline, tolerate_error=True)
        self.send(f"genmove {me}")
        self.genmove_color = me

    def read_move(self, deadline: float) -> Reply:
        first = ""
        while True:
            text = self.read_line(deadline, "the answer to 'genmove'").strip()
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
            self.sent.append(parse_square(move, self.size))
        except OthelloError:
            pass  # the referee rejects it and the game ends
        return Reply(move, arrived=self.process.arrived)


class NBoardPlayer(Player):
    """An engine speaking the NBoard protocol: ``nboard 2``, ``set depth``, ``set game <GGF>``,
    ``go`` answered by ``=== move[/eval[/time]]``, and ``ping n`` / ``pong n`` to synchronise."""

    def __init__(self, spec: EngineSpec) -> None:
        super().__init__(spec)
        self.ping_id = 0

    def ping(self, deadline: float) -> None:
        self.ping_id += 1
        self.send(f"ping {self.ping_id}")
        while True:
            line = self.read_line(deadline, f"'pong {self.ping_id}'").strip()
            if line.startswith("set myname "):
                self.engine_id = line[11:].strip()
            if line == f"pong {self.ping_id}":
                return

    def handshake(self, deadline: float) -> None:
        self.send("nboard 2")
        # NBoard has no per-move time limit: without a depth the engine gets a modest one
        # (the clock still goes to it in the game's TI, and the referee enforces it)
        depth = self.spec.tc.depth if self.spec.tc.depth is not None else NBOARD_DEFAULT_DEPTH
        self.send(f"set depth {depth}")
        for name, value in self.spec.options:
            self.send(f"set {name} {value}".strip())
        self.ping(deadline)

    def new_game(self, board: Board, deadline: float) -> None:
        if board.size > 8:
            raise EngineProtocolError(self.name, f"NBoard plays boards up to 8x8, not {board.size}x{board.size}")
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
        self.send("set game " + format_ggf(board, time_control=ti))
        self.send("go")

    def read_move(self, deadline: float) -> Reply:
        while True:
            line = self.read_line(deadline, "'=== move'").strip()
            if line.startswith("set myname "):
                self.engine_id = line[11:].strip()
            if line.startswith("==="):
                parts = line[3:].strip().split("/")
                score = None
                if len(parts) > 1:
                    score = ascii_float(parts[1].strip())
                return Reply(parts[0].strip(), score, arrived=self.process.arrived)
