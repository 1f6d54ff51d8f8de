"""The UCI/UGI client: an engine process spoken to in the UCI-like protocol or its UGI dialect.

:class:`EngineClient` does the handshake, sets options, and searches (``play``, ``analyse``,
or a streaming :class:`AnalysisStream`) on an :class:`~othello_engine.client.process.EngineProcess`:

>>> from othello_engine.client import python_command
>>> from othello_engine.board import Board, square_name
>>> with EngineClient.popen(python_command()) as engine:
...     result = engine.play(Board(), Limit(depth=2))
...     square_name(result.move) in ("d3", "c4", "f5", "e6")
True
"""

from __future__ import annotations

import threading
import time
from typing import IO, Any, Iterator, Mapping, Optional, Sequence, Union, overload

from othello_engine.board import BLACK, Board, OthelloError, Square, parse_square
from othello_engine.client.errors import (EngineError, EngineTerminatedError, EngineTimeoutError,
                                          IllegalEngineMoveError)
from othello_engine.client.process import Command, EngineProcess, LogCallback, ProtocolEngine
from othello_engine.client.wire import (Info, Option, PlayResult, go_command, parse_info,
                                        parse_option, position_command)
from othello_engine.engine import Limit
from othello_engine.textnum import ascii_int

__all__ = ["EngineClient", "AnalysisStream", "STOP_WAIT"]

STOP_WAIT = 0.5
"""Seconds an engine gets to answer ``stop`` with ``bestmove`` after a search timed out, before
it is killed (engines answer within milliseconds; one that does not is hung)."""


class EngineClient(ProtocolEngine):
    """An engine process speaking the UCI-like protocol (``protocol="uci"``) or its UGI dialect
    (``protocol="ugi"``). Start one with :meth:`popen`; use it as a context manager, or call
    :meth:`close`. One search at a time; calls are not meant to be made from several threads,
    except :meth:`AnalysisStream.stop`.

    ``timeout`` bounds every reply that should come at once (handshake, ``isready``); a search
    with a time limit or clock is given its time plus ``search_slack`` seconds before
    EngineTimeoutError. Depth- and node-limited searches wait as long as they take unless the
    call passes ``timeout``.
    """

    search_slack: float = 5.0

    def __init__(self, process: EngineProcess, protocol: str = "uci", timeout: float = 10.0) -> None:
        if protocol not in ("uci", "ugi"):
            raise ValueError(f"unknown protocol {protocol!r}: expected 'uci' or 'ugi'")
        super().__init__(process)
        self.protocol = protocol
        self.timeout = timeout
        self.id: dict[str, str] = {}
        self.options: dict[str, Option] = {}
        self.strings: list[str] = []
        """``info string`` texts seen outside searches (most recent last, at most 100)."""
        self._multipv = 1
        self._busy = False
        self._named = False  # the caller chose the name: keep it over the engine's id name

    @classmethod
    def popen(cls, command: Command, protocol: str = "uci", *, timeout: float = 10.0,
              options: Optional[Mapping[str, Any]] = None, cwd: Optional[str] = None,
              env: Optional[Mapping[str, str]] = None, stderr: Optional[IO[str]] = None,
              log: Optional[LogCallback] = None, name: Optional[str] = None) -> EngineClient:
        """Start the command, do the handshake (``uci``/``ugi`` ... ``uciok``/``ugiok``, then
        ``isready``) and apply options. The process is killed if any of that fails."""
        process = EngineProcess(command, cwd=cwd, env=env, stderr=stderr, log=log, name=name)
        engine = cls(process, protocol, timeout)
        engine._named = name is not None
        try:
            engine._handshake()
            if options:
                engine.configure(options)
        except BaseException:
            # no quit for an engine that failed its handshake: terminate it, then kill it
            engine.process.close(None, timeout=0.5)
            raise
        return engine

    # --- set-up --------------------------------------------------------------------------------
    def _handshake(self) -> None:
        ok = "ugiok" if self.protocol == "ugi" else "uciok"
        self.process.send(self.protocol)
        lines = self.process.read_until(lambda s: s.strip() == ok, self.timeout, f"waiting for {ok}")
        self._note_strings(lines)  # e.g. that the engine's evaluation is unavailable
        for line in lines:
            tokens = line.split()
            if len(tokens) >= 3 and tokens[0] == "id":
                self.id[tokens[1]] = " ".join(tokens[2:])
            elif tokens[:1] == ["option"]:
                option = parse_option(line)
                if option is not None:
                    self.options[option.name.lower()] = option
        if "name" in self.id and not self._named:
            self.process.name = self.id["name"]
        self.ping()

    def ping(self, timeout: Optional[float] = None) -> None:
        """``isready`` and wait for ``readyok``; EngineError if the engine reported an error
        (``info string error: ...``) for a command sent before."""
        self.process.send("isready")
        lines = self.process.read_until(lambda s: s.strip() == "readyok",
                                        self.timeout if timeout is None else timeout,
                                        "waiting for readyok")
        errors = self._note_strings(lines)
        if errors:
            raise EngineError(f"engine {self.name!r} reported: {'; '.join(errors)}")

    def _note_strings(self, lines: Sequence[str]) -> list[str]:
        """Remember info strings; return the error texts among them."""
        errors = []
        for line in lines:
            if line.startswith("info string "):
                text = line[len("info string "):].strip()
                self.strings = (self.strings + [text])[-100:]
                if text.lower().startswith("error"):
                    errors.append(text)
        return errors

    def configure(self, options: Mapping[str, Any]) -> None:
        """Set options (``setoption name <n> value <v>``); names are checked against what the
        engine declared (case-insensitive), spin values against their range. ``MultiPV`` is
        managed by :meth:`analyse`. Booleans go as ``true``/``false``; a ``button`` takes None.
        EngineError if the engine rejects one."""
        self._check_idle()
        commands: list[str] = []
        for name, value in options.items():
            option = self.options.get(name.lower())
            if option is None:
                known = ", ".join(o.name for o in self.options.values()) or "none"
                raise EngineError(f"engine {self.name!r} has no option {name!r} (it has: {known})")
            if option.name.lower() == "multipv":
                raise EngineError("MultiPV is set per call: use analyse(..., multipv=k)")
            if option.type == "button" or value is None:
                commands.append(f"setoption name {option.name}")
                continue
            if isinstance(value, bool):
                text = "true" if value else "false"
            else:
                text = str(value)
            if option.type == "spin":
                parsed = ascii_int(text.strip())
                if parsed is None:
                    raise EngineError(f"option {option.name!r} needs an integer, not {value!r}")
                number = parsed
                if ((option.min is not None and number < option.min)
                        or (option.max is not None and number > option.max)):
                    raise EngineError(f"value {number} for option {option.name!r} is out of range "
                                      f"{option.min}..{option.max}")
            if option.type == "combo" and option.var and text not in option.var:
                raise EngineError(f"value {text!r} for option {option.name!r} is not one of "
                                  f"{', '.join(option.var)}")
            commands.append(f"setoption name {option.name} value {text}")
        self._send_checked(commands)

    def new_game(self) -> None:
        """Tell the engine a new game starts (``ucinewgame``/``uginewgame``)."""
        self._check_idle()
        self._send_checked(["uginewgame" if self.protocol == "ugi" else "ucinewgame"])

    # --- searching -----------------------------------------------------------------------------
    def _check_idle(self) -> None:
        if self._busy:
            raise EngineError(f"engine {self.name!r} is busy with a search; stop it first")
        if not self.process.alive:
            raise self.process._terminated("idle")

    def _multipv_commands(self, k: int) -> list[str]:
        if k < 1:
            raise ValueError(f"multipv must be at least 1, not {k}")
        if k == self._multipv:
            return []
        option = self.options.get("multipv")
        if option is None:
            if k > 1:
                raise EngineError(f"engine {self.name!r} has no MultiPV option")
            return []
        return [f"setoption name {option.name} value {k}"]

    def _search_timeout(self, board: Board, limit: Optional[Limit],
                        timeout: Optional[float]) -> Optional[float]:
        if timeout is not None:
            return timeout
        if limit is None or limit.infinite:
            return None
        if limit.time is not None:
            return limit.time + self.search_slack
        clock = limit.black_clock if board.turn == BLACK else limit.white_clock
        if clock is not None:
            return clock + self.search_slack
        return None

    def _start(self, board: Board, limit: Optional[Limit], multipv: int) -> AnalysisStream:
        self._check_idle()
        commands = self._multipv_commands(multipv)
        self._send_checked(commands + [position_command(board, self.protocol)])
        self._multipv = multipv
        started = time.monotonic()
        self.process.send(go_command(limit, self.protocol))
        # answered at once even while searching; an error before it means go was rejected
        self.process.send("isready")
        self._busy = True
        return AnalysisStream(self, board, started)

    def _send_checked(self, commands: Sequence[str]) -> None:
        """Send commands, then ``isready``; EngineError naming them if the engine reported an
        error (a rejected position must not be searched as the previous one). An engine that
        sends ``bestmove`` a moment before it accepts new commands ("busy"/"searching") gets
        them again, for up to a second."""
        deadline = time.monotonic() + 1.0
        while True:
            for command in commands:
                self.process.send(command)
            try:
                self.ping()
                return
            except EngineError as exc:
                text = str(exc).lower()
                if ("searching" not in text and "busy" not in text) or time.monotonic() > deadline:
                    raise EngineError(f"{exc} (after {'; '.join(commands)!r})") from None
                time.sleep(0.02)

    def play(self, board: Board, limit: Limit, *, multipv: int = 1,
             timeout: Optional[float] = None) -> PlayResult:
        """Search the position (its game's moves are sent too) and return the engine's move
        with its last info (and, with ``multipv=k``, the last info of each of k lines).

        IllegalEngineMoveError if the move is not legal; EngineTimeoutError if no ``bestmove``
        comes within the timeout (see the class); EngineTerminatedError if the engine dies.
        """
        stream = self._start(board, limit, multipv)
        with stream:
            result = stream.wait(self._search_timeout(board, limit, timeout))
        return result

    @overload
    def analyse(self, board: Board, limit: Limit, multipv: None = None, *,
                timeout: Optional[float] = None) -> Info: ...

    @overload
    def analyse(self, board: Board, limit: Limit, multipv: int, *,
                timeout: Optional[float] = None) -> list[Info]: ...

    def analyse(self, board: Board, limit: Limit, multipv: Optional[int] = None, *,
                timeout: Optional[float] = None) -> Union[Info, list[Info]]:
        """Search and return the final info: one :class:`Info` (the main line), or with
        ``multipv=k`` a list of up to k, best first (fewer when there are fewer moves)."""
        stream = self._start(board, limit, multipv or 1)
        with stream:
            result = stream.wait(self._search_timeout(board, limit, timeout))
        if multipv is None:
            return result.info
        return list(result.lines)

    def analysis(self, board: Board, limit: Optional[Limit] = None,
                 multipv: Optional[int] = None) -> AnalysisStream:
        """Start a search and return a stream of its infos (iterate it; it ends at ``bestmove``).
        With no limit it runs until :meth:`AnalysisStream.stop`. Use it as a context manager:
        leaving the block stops the search and waits for the engine to finish it.

        >>> from othello_engine.client import python_command
        >>> with EngineClient.popen(python_command()) as engine:
        ...     with engine.analysis(Board()) as stream:
        ...         for info in stream:
        ...             if info.depth and info.depth >= 3:
        ...                 stream.stop()
        ...     stream.result.move in Board().legal_moves()
        True
        """
        return self._start(board, limit, multipv or 1)

    def __repr__(self) -> str:
        return f"<EngineClient {self.name!r} {self.protocol} pid={self.pid}>"


class AnalysisStream:
    """A running search: iterate for :class:`Info` values as they arrive (score-less lines such
    as ``info string`` are kept in :attr:`strings`, not yielded); the iteration ends at
    ``bestmove``. :meth:`stop` may be called from any thread."""

    def __init__(self, engine: EngineClient, board: Board, started: Optional[float] = None) -> None:
        self.engine = engine
        self.board = board
        self.started = time.monotonic() if started is None else started
        self.info = Info()
        """The latest main-line info (multipv 1) with a score or PV."""
        self.multipv: dict[int, Info] = {}
        self.strings: list[str] = []
        self.result: Optional[PlayResult] = None
        self._stopped = False
        self._ready = False
        self._stop_lock = threading.Lock()
        self._unparsed: dict[int, str] = {}  # the last info line per multipv, read by read_to_end

    @property
    def done(self) -> bool:
        return self.result is not None

    def stop(self) -> None:
        """Ask the engine to end the search now (it still answers with ``bestmove``)."""
        with self._stop_lock:
            if self._stopped or self.result is not None:
                return
            self._stopped = True
        try:
            self.engine.process.send("stop")
        except EngineTerminatedError:
            pass  # the next read reports it

    def next(self, timeout: Optional[float] = None) -> Optional[Info]:
        """The next info, or None once the search has ended (then :attr:`result` is set). Lines
        that arrived within the timeout are read even if reading them takes longer."""
        return self._next(timeout, parse=True)

    def read_to_end(self, timeout: Optional[float] = None) -> PlayResult:
        """Read to the ``bestmove`` and return the result, parsing only the last info line of
        each multi-PV line (fast with an engine that floods info lines); EngineTimeoutError if
        no ``bestmove`` arrived within the timeout (the search is left running)."""
        self._next(timeout, parse=False)
        assert self.result is not None
        return self.result

    def _next(self, timeout: Optional[float], parse: bool) -> Optional[Info]:
        process = self.engine.process
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.result is None:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                line = process.readline(left, "searching", arrived_by=deadline)
            except EngineTimeoutError:
                raise EngineTimeoutError(f"engine {self.engine.name!r} did not finish its "
                                         f"search within {timeout:g} s") from None
            except EngineTerminatedError:
                self.engine._busy = False
                raise
            tokens = line.split()
            if not tokens:
                continue
            if tokens[0] == "readyok" and not self._ready:
                self._ready = True
                continue
            if tokens[0] == "bestmove":
                self._finish(tokens[1] if len(tokens) > 1 else "")
                return None
            if tokens[0] != "info":
                continue
            if len(tokens) > 1 and tokens[1] == "string":
                text = line.split(None, 2)[2] if len(tokens) > 2 else ""
                self.strings.append(text)
                if not self._ready and text.lower().startswith("error"):
                    self._recover_from_rejected_go()
                    raise EngineError(f"engine {self.engine.name!r} rejected the search: {text}")
                continue
            if not parse:
                if "score" in tokens or "pv" in tokens:
                    k = 1
                    if "multipv" in tokens:
                        at = tokens.index("multipv") + 1
                        k = ascii_int(tokens[at]) or 1 if at < len(tokens) else 1
                    self._unparsed[k] = line
                continue
            info = parse_info(line, self.board.size)
            if info.score is None and not info.pv:
                continue  # currmove / hashfull chatter
            self.multipv[info.multipv] = info
            if info.multipv == 1:
                self.info = info
            return info
        return None

    def _recover_from_rejected_go(self) -> None:
        # the engine never started searching; swallow its readyok so the next command is clean
        try:
            self.engine.process.read_until(lambda s: s.strip() == "readyok", self.engine.timeout,
                                           "waiting for readyok")
        finally:
            self.engine._busy = False
            self.result = PlayResult(None)

    def _finish(self, token: str) -> None:
        arrived = self.engine.process.arrived
        elapsed = max(0.0, arrived - self.started)
        self.engine._busy = False
        for k in sorted(self._unparsed):  # the infos read_to_end skipped: only the last counts
            info = parse_info(self._unparsed[k], self.board.size)
            if info.score is not None or info.pv:
                self.multipv[info.multipv] = info
                if info.multipv == 1:
                    self.info = info
        self._unparsed.clear()
        if not self._ready:
            # the isready sent after go may still be answered; drain it so replies stay in step
            try:
                self.engine.process.read_until(lambda s: s.strip() == "readyok",
                                               self.engine.timeout, "waiting for readyok")
            except EngineTimeoutError:
                pass
            self._ready = True
        lines = tuple(self.multipv[k] for k in sorted(self.multipv))
        if token in ("", "(none)", "none"):
            move: Optional[Square] = None
        else:
            try:
                move = parse_square(token, self.board.size)
            except OthelloError:
                self.result = PlayResult(None, self.info, lines, elapsed, token, arrived)
                raise IllegalEngineMoveError(f"engine {self.engine.name!r} sent an unreadable move "
                                             f"{token!r}", token) from None
        self.result = PlayResult(move, self.info, lines, elapsed, token, arrived)
        if move is None:
            if not self.board.is_game_over():
                raise IllegalEngineMoveError(f"engine {self.engine.name!r} sent no move in a game "
                                             "that is not over", token)
        elif not self.board.is_legal(move):
            raise IllegalEngineMoveError(f"engine {self.engine.name!r} played {token!r}, which is "
                                         f"illegal in {self.board.fen()!r}", token)

    def wait(self, timeout: Optional[float] = None) -> PlayResult:
        """Read to the end of the search and return its result. On timeout the search is
        stopped; if the engine then still does not answer it is killed. Either way
        EngineTimeoutError is raised."""
        try:
            self.read_to_end(timeout)
        except EngineTimeoutError:
            self._abandon()
            raise EngineTimeoutError(f"engine {self.engine.name!r} did not finish its search "
                                     f"within {timeout:g} s") from None
        assert self.result is not None
        return self.result

    def _abandon(self) -> None:
        """After a timeout: stop the search and wait briefly for bestmove, else kill the engine."""
        self.stop()
        deadline = time.monotonic() + min(STOP_WAIT, self.engine.timeout)
        try:
            while self.next(max(0.0, deadline - time.monotonic())) is not None:
                pass   # one deadline for all: an engine that chatters but never answers is hung too
        except IllegalEngineMoveError:
            pass  # it did answer; the search is over
        except EngineError:
            self.engine._busy = False
            self.engine.process.kill()

    def __iter__(self) -> Iterator[Info]:
        while True:
            info = self.next()
            if info is None:
                return
            yield info

    def __enter__(self) -> AnalysisStream:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if self.result is None and self.engine.process.alive:
            self.stop()
            try:
                self.wait(self.engine.timeout)
            except EngineError:
                if exc_type is None:
                    raise
