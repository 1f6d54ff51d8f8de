"""A page's session: its game, its engine worker, the messages it takes and those it sends; the cap.

A :class:`Session` lives on the server's event loop: it reads a checked message
(:mod:`othello_engine.web.messages`), changes its :class:`~othello_engine.web.game.WebGame`, and
puts the replies in :attr:`Session.outbox` (the websocket handler sends them). Searches run in the
session's :class:`~othello_engine.web.engines.EngineWorker`; what they find comes back to the
event loop and is applied only if the game is still where it was. The
:class:`SessionManager` holds the sessions and refuses one more than its cap.
"""

from __future__ import annotations

import asyncio
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from othello_engine.board import BLACK, PASS, WHITE, Board, OthelloError, parse_square
from othello_engine.engine import Limit
from othello_engine.web.engines import EngineWorker, Job, Outcome
from othello_engine.web.game import GameError, Strength, WebGame
from othello_engine.web.messages import MessageError, read_message
from othello_engine.web.store import DataStore, StoreError

DEFAULT_ANALYSIS_MS = 200
"""Time per position of a whole-game analysis unless the page asks for another."""


@dataclass(frozen=True)
class ServerSettings:
    """What every session of a server shares."""

    max_sessions: int = 20
    engine_idle: float = 300.0
    session_idle: float = 3600.0
    engine_command: Optional[Sequence[str]] = None
    engine_options: Optional[dict[str, Any]] = None


class Session:
    """One page: a game and an engine worker. Call :meth:`handle` with each message text (on the
    event loop) and :meth:`close` when the page goes."""

    def __init__(self, number: int, store: DataStore, settings: ServerSettings,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.number = number
        self.store = store
        self.settings = settings
        self.loop = loop
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.game = WebGame.new(8, "human", "engine")
        self.searching: Optional[str] = None
        self.analysis_line: Optional[tuple[Board, tuple[int, ...]]] = None
        self.last_seen = time.monotonic()
        self.closed = False
        self.worker = EngineWorker(self._post, idle=settings.engine_idle,
                                   command=settings.engine_command,
                                   options=settings.engine_options)

    # --- replies ----------------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        if not self.closed:
            self.outbox.put_nowait(message)

    def error(self, text: str) -> None:
        self.send({"type": "error", "message": text})

    def send_state(self) -> None:
        state = self.game.state()
        state["thinking"] = self.searching
        self.game.notes.clear()
        self.send(state)

    def hello(self) -> None:
        """What a new page gets: the state, the saved games and the results."""
        self.send({"type": "hello", "session": self.number,
                   "max_sessions": self.settings.max_sessions})
        self.send_state()
        self.send_games()
        self.send_results()

    def send_games(self) -> None:
        self.send({"type": "games", "games": self.store.list_games()})

    def send_results(self) -> None:
        self.send({"type": "results", "results": self.store.results()})

    # --- messages ---------------------------------------------------------------------------------
    def handle(self, text: Any) -> None:
        """Carry out one message from the page; a bad one gets an ``error`` reply, nothing else."""
        self.last_seen = time.monotonic()
        try:
            message = read_message(text)
            getattr(self, "_on_" + message["type"])(message)
        except (MessageError, GameError, StoreError, OthelloError) as exc:
            self.error(str(exc))
        except Exception:  # noqa: BLE001 - a bug must not end the page's session
            traceback.print_exc(file=sys.stderr)
            self.error("internal error: the request was not carried out (the server's log has "
                       "the details)")

    def _strength(self, message: dict[str, Any], default: Strength) -> Strength:
        if "depth" in message:
            return Strength(None, message["depth"])
        if "movetime" in message:
            return Strength(message["movetime"], None)
        return default

    def _on_new(self, m: dict[str, Any]) -> None:
        old = self.game
        strength = self._strength(m, old.strength)
        self.game = WebGame.new(m.get("size", old.board.size), m.get("black", old.players[BLACK]),
                                m.get("white", old.players[WHITE]),
                                strength.movetime_ms, strength.depth)
        self.game.version = old.version + 1
        self._changed()

    def _on_settings(self, m: dict[str, Any]) -> None:
        self.game.set_players(m["black"], m["white"], self._strength(m, self.game.strength))
        self._changed(keep_analysis=True)

    def _on_move(self, m: dict[str, Any]) -> None:
        board = self.game.board
        try:
            move = parse_square(m["square"], board.size)
        except OthelloError as exc:
            raise GameError(f"move: {exc}") from None
        if move == PASS:
            raise GameError("move: passes are played for you when forced")
        self.game.play_human(move)
        self._changed()

    def _on_undo(self, m: dict[str, Any]) -> None:
        self.game.undo()
        self._changed(keep_analysis=True)

    def _on_redo(self, m: dict[str, Any]) -> None:
        self.game.redo_move()
        self._changed(keep_analysis=True)

    def _on_goto(self, m: dict[str, Any]) -> None:
        self.game.goto(m["ply"])
        self._changed(keep_analysis=True)

    def _on_resume(self, m: dict[str, Any]) -> None:
        self.game.resume()
        self._changed(keep_analysis=True)

    def _on_stop(self, m: dict[str, Any]) -> None:
        self.worker.cancel()
        if self.searching == "move":
            self.game.paused = True
            self.game.changed()
        self.searching = None
        self.analysis_line = None
        self.send_state()

    def _on_hint(self, m: dict[str, Any]) -> None:
        game = self.game
        if game.board.is_game_over():
            raise GameError("hint: the game is over")
        if self.searching == "move":
            raise GameError("hint: the engine is thinking of its move")
        if game.board.must_pass():
            raise GameError("hint: the side to move must pass")
        self.analysis_line = None
        self._submit(Job("hint", [game.board.copy()], game.strength.limit(), game.version))
        self.send_state()

    def _on_analyze(self, m: dict[str, Any]) -> None:
        game = self.game
        if self.searching == "move":
            raise GameError("analyze: the engine is thinking of its move; stop it or wait")
        targets = game.analysis_targets()
        limit = Limit(time=m.get("movetime", DEFAULT_ANALYSIS_MS) / 1000)
        self.analysis_line = self._line()
        if not targets:
            self.searching = None
            self.send_state()
            return
        plies = [ply for ply, _ in targets]
        self._submit(Job("analyze", [b for _, b in targets], limit, game.version, plies))
        self.send_state()

    def _on_load(self, m: dict[str, Any]) -> None:
        self.game.load_text(m["text"], self.game.board.size)
        self._changed()

    def _on_open(self, m: dict[str, Any]) -> None:
        self.game.load_text(self.store.read_game(m["name"]), self.game.board.size)
        self._changed()

    def _on_save(self, m: dict[str, Any]) -> None:
        ggf = self.game.ggf(date=time.strftime("%Y.%m.%d_%H:%M:%S"))
        try:
            name = self.store.save_game(ggf, m.get("name"), self.game.board.size)
        except OSError as exc:
            raise StoreError(f"save: cannot write the game ({exc.__class__.__name__})") from None
        self.send({"type": "saved", "name": name, "ggf": ggf})
        self.send_games()

    def _on_games(self, m: dict[str, Any]) -> None:
        self.send_games()

    def _on_results(self, m: dict[str, Any]) -> None:
        self.send_results()

    def _on_edit(self, m: dict[str, Any]) -> None:
        self.game.set_position(m["cells"], m["turn"])
        self._changed()

    # --- searches ---------------------------------------------------------------------------------
    def _line(self) -> tuple[Board, tuple[int, ...]]:
        b = self.game.board
        return b.replay(), tuple(b.move_stack) + tuple(reversed(self.game.redo))

    def _submit(self, job: Job) -> None:
        self.searching = job.kind
        self.worker.submit(job)

    def _changed(self, keep_analysis: bool = False) -> None:
        """After any change: record a finished game, send the state, start the engine's move or
        stop a search that no longer fits (an analysis goes on while its line stays)."""
        game = self.game
        if game.engine_to_move():
            self.analysis_line = None
            self._submit(Job("move", [game.board.copy()], game.strength.limit(), game.version))
        elif self.searching == "analyze" and keep_analysis and self.analysis_line == self._line():
            pass
        elif self.searching is not None:
            self.worker.cancel()
            self.searching = None
            self.analysis_line = None
        self.send_state()
        self._record_if_over()

    def _record_if_over(self) -> None:
        game = self.game
        if not game.board.is_game_over() or game.recorded or not game.rated:
            return
        humans = [c for c in (BLACK, WHITE) if game.players[c] == "human"]
        if len(humans) != 1:
            return
        game.recorded = True
        try:
            self.store.record_result(game.board.size, game.strength.label(),
                                     game.outcome_for(humans[0]))
        except OSError as exc:
            self.error(f"the results file cannot be written ({exc.__class__.__name__})")
            return
        self.send_results()

    def _post(self, outcome: Outcome) -> None:
        """From the worker's thread: hand the outcome to the event loop."""
        try:
            self.loop.call_soon_threadsafe(self._on_outcome, outcome)
        except RuntimeError:
            pass  # the loop is closed: the server is going down

    def _on_outcome(self, outcome: Outcome) -> None:
        if self.closed:
            return
        job, game = outcome.job, self.game
        if outcome.error is not None:
            if job.version == game.version or job.kind == "analyze":
                self.searching = None
                if job.kind == "move":
                    game.paused = True
                    game.changed()
                self.error(outcome.error + "; it starts again on the next request")
                self.send_state()
            return
        if job.kind == "move":
            if job.version != game.version:
                return
            self.searching = None
            if outcome.move is None or not game.play_engine(outcome.move, outcome.score, job.version):
                game.paused = True
                game.changed()
                self.error("the engine gave no legal move; play is paused")
            self._changed()
        elif job.kind == "hint":
            if job.version != game.version:
                return
            self.searching = None
            game.set_hints(outcome.hints, job.version)
            self.send_state()
        elif job.kind == "analyze":
            if self.analysis_line != self._line():
                return
            if outcome.score is not None:
                game.set_analysis(outcome.ply, outcome.score)
            if outcome.done:
                self.searching = None
                self.analysis_line = None
            self.send_state()

    def close(self) -> None:
        """The page went: stop searching and end the engine process."""
        self.closed = True
        self.worker.close()


class SessionManager:
    """The server's sessions, at most ``settings.max_sessions`` at once."""

    def __init__(self, store: DataStore, settings: ServerSettings) -> None:
        self.store = store
        self.settings = settings
        self.sessions: dict[int, Session] = {}
        self._next = 1

    def full_message(self) -> str:
        n = self.settings.max_sessions
        return (f"The server is full: {n} game{'s' if n != 1 else ''} already open (the limit "
                "set by --max-sessions). Close another tab of this page, or try again later.")

    def open(self, loop: asyncio.AbstractEventLoop) -> Optional[Session]:
        """A new session, or None when the cap is reached."""
        if len(self.sessions) >= self.settings.max_sessions:
            return None
        session = Session(self._next, self.store, self.settings, loop)
        self.sessions[self._next] = session
        self._next += 1
        return session

    def close(self, session: Session) -> None:
        session.close()
        self.sessions.pop(session.number, None)

    def close_all(self, wait: float = 2.0) -> None:
        """End every session and wait (up to ``wait`` seconds in all) for their engines to end."""
        sessions = list(self.sessions.values())
        for s in sessions:
            self.close(s)
        deadline = time.monotonic() + wait
        for s in sessions:
            s.worker.join(max(0.0, deadline - time.monotonic()))

    def engines_running(self) -> int:
        return sum(1 for s in self.sessions.values() if s.worker.running)

    def engine_pids(self) -> list[int]:
        """The process ids of the engines up now."""
        pids = []
        for s in self.sessions.values():
            engine = s.worker.engine
            if engine is not None and engine.alive:
                pids.append(engine.pid)
        return pids
