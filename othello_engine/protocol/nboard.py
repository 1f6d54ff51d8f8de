"""The NBoard protocol (version 2): a line in, an Engine call, a formatted line out."""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
import traceback
from typing import TYPE_CHECKING, Callable, Final, Optional

from othello_engine.board import (BLACK, PASS, Board, OthelloError, Square, clip_text, parse_square,
                                  square_name)
from othello_engine.book import BOOK_ENV, nboard_learn, options_from_environment
from othello_engine.engine import Engine, Limit, SearchInfo, SearchResult
from othello_engine.ggf import parse_ggf
from othello_engine.notation import push_move
from othello_engine.protocol.session import ProtocolError, Writer, guard
from othello_engine.textnum import ascii_float, ascii_int

if TYPE_CHECKING:
    from othello_engine.book import Book, BookOptions

ENGINE_NAME: Final = "othello_engine"
"""The name sent with ``set myname``; one token, since GUIs read the name up to the first space."""
PROTOCOL_VERSION: Final = 2
DEFAULT_DEPTH: Final = 8
"""Midgame depth until the GUI sends ``set depth`` (GUIs always do before ``go`` or ``hint``)."""
MAX_DEPTH: Final = 60
ENDGAME_EXTRA: Final = 6
"""Positions with at most depth + ENDGAME_EXTRA empties are solved exactly (the protocol leaves the
endgame depth to the engine)."""
EXACT_DEPTH: Final = "100%"
"""The depth token of an exact solve: NBoard reads ``100%`` as "proven final score"."""


def format_eval(centi_discs: int) -> str:
    """An evaluation in discs with two decimals, from centi-discs (never ``-0.00``, never NaN).

    >>> format_eval(-100), format_eval(2350), format_eval(0)
    ('-1.00', '23.50', '0.00')
    """
    text = f"{int(centi_discs) / 100:.2f}"
    return "0.00" if text == "-0.00" else text


def move_text(move: Square) -> str:
    """A move as NBoard writes it: ``F5``, or ``PA`` for a pass."""
    return "PA" if move == PASS else square_name(move).upper()


def pv_text(pv: tuple[Square, ...] | list[Square]) -> str:
    """A principal variation as one token (``F5-D6-C3``); NBoard reads the move from its first two
    characters."""
    return "-".join(move_text(m) for m in pv)


def format_seconds(seconds: float) -> str:
    """Seconds for ``nodestats``, to the microsecond: NBoard divides the nodes by them for its
    nodes-per-second display, which stays blank when the time reads zero (a 4 ms search).

    >>> format_seconds(0.0041234), format_seconds(12.5)
    ('0.004123', '12.500000')
    """
    return f"{max(0.0, seconds):.6f}"


def depth_token(depth: int, exact: bool) -> str:
    """The depth column of a ``search`` line: the depth in plies, or ``100%`` for an exact solve."""
    return EXACT_DEPTH if exact else str(depth)


# --- book replies ------------------------------------------------------------------------------------

def book_lines(book: Optional[Book], board: Board, count: int = 1) -> list[str]:
    """The ``book <move> <eval> <games> <depth> from the book`` lines of ``hint``: up to count
    scored book moves, eval in discs for the side to move (none when the book cannot be read)."""
    if book is None:
        return []
    try:
        moves = [m for m in book.lookup(board) if m.score is not None]
    except sqlite3.Error:
        return []
    legal = set(board.legal_moves()) or {PASS}
    lines = []
    for m in [m for m in moves if m.move in legal][:max(1, count)]:
        assert m.score is not None
        lines.append(f"book {move_text(m.move)} {format_eval(m.score)} {m.games} "
                     f"{depth_token(m.depth, m.exact)} from the book")
    return lines


def hint_book_lines(options: BookOptions, board: Board, count: int = 1) -> list[str]:
    """For ``hint n``: the ``book`` lines of the book's moves (none when the book is off or does
    not know the position); they go before (or instead of) the ``search`` lines."""
    if not options.enabled:
        return []
    options.probe(board)  # opens the book on first use
    return book_lines(options.book, board, count)


def _shown(text: str, n: int = 60) -> str:
    """Text as a status line quotes it: on one line, whitespace runs made one space, clipped."""
    return clip_text(" ".join(text.split()), n)


def _split_word(text: str) -> tuple[str, str]:
    """The first word of text and the rest (stripped); words are split on any whitespace."""
    parts = text.split(None, 1)
    if not parts:
        return "", ""
    return parts[0], parts[1].strip() if len(parts) > 1 else ""


def _number(text: str, what: str) -> float:
    value = ascii_float(text)  # ASCII digits only: float() also reads '٣' and '1_0'
    if value is None:
        raise ProtocolError(f"bad {what} {_shown(text)!r}: expected a finite number")
    return value


class NBoardSession:
    """One conversation in the NBoard protocol.

    Searches run in the Engine's background thread (``go``, ``hint``) or in a worker thread of the
    session (``analyze``), so ``ping`` is read while they run: it stops them, waits until their last
    line is out, then answers ``pong``.
    """

    def __init__(self, out: Writer) -> None:
        self.out = out
        self.engine = Engine()
        self.board = Board()
        self.depth = DEFAULT_DEPTH
        self.contempt = 0
        """NBoard's contempt: what a proven draw is worth to Black, in centi-discs (the GUI's
        "Draws to Black" sends +100, "Draws to White" -100)."""
        self.version = PROTOCOL_VERSION
        self.book = options_from_environment()
        """The opening book, on when OTHELLO_ENGINE_BOOK names a book file (or ``shipped``)."""
        self._worker: Optional[threading.Thread] = None
        self._cancel = threading.Event()
        self._sync_contempt(self.board)
        self._commands: dict[str, Callable[[str], None]] = {
            "nboard": self.cmd_nboard, "set": self.cmd_set, "move": self.cmd_move,
            "hint": self.cmd_hint, "go": self.cmd_go, "ping": self.cmd_ping,
            "learn": self.cmd_learn, "analyze": self.cmd_analyze,
        }

    # --- plumbing ---------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Deal with one input line; False means quit."""
        text = line.strip()
        if not text:
            return True
        cmd, rest = _split_word(text)
        cmd = cmd.lower()
        if cmd == "quit":
            self.stop_thinking()
            return False

        def run() -> None:
            method = self._commands.get(cmd)
            if method is not None:
                method(rest)
            elif self.version == 1 and not rest and self._looks_like_move(cmd):
                self.cmd_move(cmd)  # version 1 GUIs send a bare "F5" for "move F5"
            else:
                raise ProtocolError(f"unknown command {_shown(cmd, 30)!r} ignored")

        guard(run, self.status, internal=lambda exc: f"internal error: {_shown(str(exc))}")
        return True

    def close(self) -> None:
        self.stop_thinking()
        self.book.close()

    def status(self, text: str) -> None:
        """Send a ``status`` line (empty text clears the GUI's status: the engine is idle)."""
        text = _shown(text, 200)
        self.out(f"status {text}" if text else "status")

    def _book_warning(self, line: str) -> None:
        """A book problem as a status line (the book module words it for the UCI-like protocol)."""
        self.status(line[len("info string "):] if line.startswith("info string ") else line)

    def stop_thinking(self) -> None:
        """Stop any search or analysis and wait until its last line has been written."""
        self._cancel.set()
        worker = self._worker
        while worker is not None and worker.is_alive():
            # Engine.search clears the stop flag when it starts, so keep asking until the worker ends.
            self.engine.stop()
            worker.join(0.05)
        self._worker = None
        self.engine.stop()
        self.engine.wait()
        self._cancel.clear()

    def _looks_like_move(self, token: str) -> bool:
        try:
            parse_square(token, self.board.size)
        except OthelloError:
            return False
        return True

    def _sync_contempt(self, board: Board) -> None:
        # The Engine scores a proven draw from the side to move; NBoard's contempt is Black's.
        self.engine.contempt = self.contempt if board.turn == BLACK else -self.contempt

    def limit_for(self, board: Board) -> Limit:
        """The search limit for board: the midgame depth, or an exact solve near the end."""
        if board.empties <= self.depth + ENDGAME_EXTRA:
            return Limit(exact=True)
        return Limit(depth=self.depth)

    # --- commands -----------------------------------------------------------------------------
    def cmd_nboard(self, rest: str) -> None:
        token = rest.split()[0] if rest.split() else ""
        version = ascii_int(token, signed=False)
        if version is None:
            raise ProtocolError(f"bad nboard command: version {_shown(token) or '(none)'!r} is not a number")
        self.version = version
        self.out(f"set myname {ENGINE_NAME}")
        if self.version != PROTOCOL_VERSION:
            self.status(f"protocol version {self.version} requested; this engine speaks version "
                        f"{PROTOCOL_VERSION}")
        if self.engine.evaluation_unavailable:
            self.status(self.engine.evaluation_unavailable)
        elif self.version == PROTOCOL_VERSION:
            self.status("")  # ready: NBoard shows "Loading <engine>" until a status line comes

    def cmd_set(self, rest: str) -> None:
        name, value = _split_word(rest)
        name = name.lower()
        if not name:
            raise ProtocolError("set needs a setting: depth, contempt or game")
        if name == "depth":
            depth = _number(value, "depth")
            if depth != int(depth) or not 1 <= depth <= MAX_DEPTH:
                raise ProtocolError(f"bad depth {_shown(value)!r}: "
                                    f"expected a whole number in 1..{MAX_DEPTH}; "
                                    f"depth stays {self.depth}")
            self.depth = int(depth)
        elif name == "contempt":
            contempt = _number(value, "contempt")
            if abs(contempt) > 6400:
                raise ProtocolError(f"bad contempt {_shown(value)!r}: expected centi-discs in -6400..6400")
            self.contempt = int(round(contempt))
            self._sync_contempt(self.board)
        elif name == "game":
            self.set_game(value)
        else:
            raise ProtocolError(f"unknown setting {_shown(name, 30)!r} ignored")

    def set_game(self, ggf: str) -> None:
        if not ggf:
            raise ProtocolError("set game needs a GGF game; the game is unchanged")
        try:
            record = parse_ggf(ggf)
        except ValueError as exc:  # every parse_ggf error is a ValueError (OthelloError or plain)
            raise ProtocolError(f"set game rejected ({_shown(str(exc), 120)}); "
                                "the game is unchanged") from None
        if record.board.size > 8:
            # NBoard draws and numbers 8x8 boards only (its moves are two characters)
            raise ProtocolError(f"set game rejected (a {record.board.size}x{record.board.size} board: "
                                "NBoard plays boards up to 8x8); the game is unchanged")
        self.stop_thinking()
        self.board = record.board
        self._sync_contempt(self.board)

    def cmd_move(self, rest: str) -> None:
        fields = rest.split()
        if not fields:
            raise ProtocolError("move needs a move (e.g. 'move F5' or 'move PA'); the game is unchanged")
        token = fields[0]
        parts = token.split("/")
        for part, what in zip(parts[1:3], ("evaluation", "time")):
            try:
                if part.strip():
                    _number(part, what)
            except ProtocolError:
                raise ProtocolError(f"bad {what} {_shown(part)!r} in move {_shown(token)!r}: expected a "
                                    "number; the game is unchanged") from None
        try:
            move = parse_square(parts[0], self.board.size)
        except OthelloError as exc:
            raise ProtocolError(f"bad move {_shown(token)!r}: {exc}; the game is unchanged") from None
        board = self.board.copy()
        try:
            push_move(board, move)   # a forced pass may be left out, as in every move list
        except OthelloError as exc:
            raise ProtocolError(f"{exc}; the game is unchanged") from None
        self.stop_thinking()
        self.board = board
        self._sync_contempt(self.board)

    def cmd_ping(self, rest: str) -> None:
        token = rest.split()[0] if rest.split() else "0"
        self.stop_thinking()
        number = ascii_int(token)
        if number is not None:
            self.out(f"pong {number}")
        else:
            self.status(f"bad ping {_shown(token)!r}: expected a number; answering pong 0")
            self.out("pong 0")

    def cmd_learn(self, rest: str) -> None:
        # "learned" first: NBoard clears its status bar when it arrives, so the status comes after
        lines = nboard_learn(self.book, self.board.copy())
        for line in lines:
            self.out(line)
        if len(lines) == 1:  # only "learned": there is no book file to write to
            self.status(f"not learned: no book file (set {BOOK_ENV} to one)")

    def cmd_go(self, rest: str) -> None:
        self.stop_thinking()
        board = self.board.copy()
        notice = self.engine.evaluation_notice(board.size)
        if notice:
            self.status(notice)
        if board.is_game_over():
            self.status("game over: no move to make")
            return
        if board.must_pass():
            self.out("=== PA")
            return
        hit = self.book.probe(board, warn=self._book_warning)
        if hit is not None and board.is_legal(hit.move):
            text = move_text(hit.move) if hit.score is None else f"{move_text(hit.move)}/{format_eval(hit.score)}"
            self.out(f"=== {text}/0.00")
            return
        self.status(f"{ENGINE_NAME} is thinking")
        self._sync_contempt(board)
        started = time.monotonic()

        def on_info(info: SearchInfo) -> None:
            self.out(f"nodestats {info.nodes} {format_seconds(info.time)}")

        def on_done(result: SearchResult) -> None:
            move = result.best_move
            try:
                if move is None or not board.is_legal(move):
                    print(f"nboard: search returned {move!r}, not a legal move; playing the first legal move",
                          file=sys.stderr)
                    move = board.legal_moves()[0]
                    text = move_text(move)
                else:
                    text = f"{move_text(move)}/{format_eval(result.score)}"
                self.out(f"nodestats {result.nodes} {format_seconds(result.time)}")
                self.out(f"=== {text}/{time.monotonic() - started:.2f}")
            except Exception:
                traceback.print_exc(file=sys.stderr)
                self.out(f"=== {move_text(board.legal_moves()[0])}")
            self.status("")

        self.engine.start(board, self.limit_for(board), on_info=on_info, on_done=on_done)

    def cmd_hint(self, rest: str) -> None:
        token = rest.split()[0] if rest.split() else "1"
        count = ascii_int(token, signed=False)
        if count is None or count < 1:
            raise ProtocolError(f"bad hint count {_shown(token)!r}: expected a whole number of moves >= 1")
        wanted = min(count, 64)
        self.stop_thinking()
        board = self.board.copy()
        if board.is_game_over():
            self.status("game over: no moves to evaluate")
            return
        self.status(f"{ENGINE_NAME} is analyzing")
        # Opens the book on first use, so that a book that cannot be used is reported here too
        # (hint_book_lines would open it without a word).
        self.book.probe(board, warn=self._book_warning)
        # Book moves first, as "book" lines; the search values the best of the other moves.
        booked = hint_book_lines(self.book, board, wanted)
        for line in booked:
            self.out(line)
        in_book = {parse_square(line.split()[1], board.size) for line in booked}
        others = [m for m in board.legal_moves() if m not in in_book]
        wanted -= len(booked)
        if wanted <= 0 or (in_book and not others):
            self.status("")
            return
        self._sync_contempt(board)

        def on_info(info: SearchInfo) -> None:
            token = depth_token(info.depth, info.exact)
            for line in info.lines[:wanted]:
                self.out(f"search {pv_text(line.pv)} {format_eval(line.score)} 0 {token}")
            self.out(f"nodestats {info.nodes} {format_seconds(info.time)}")

        def on_done(result: SearchResult) -> None:
            self.status("")

        # A side that must pass gets one line: the pass, valued behind it by the Engine.
        self.engine.start(board, self.limit_for(board), on_info=on_info, on_done=on_done,
                          root_moves=others if in_book else None, multipv=wanted)

    def cmd_analyze(self, rest: str) -> None:
        self.stop_thinking()
        game = self.board.copy()
        self.status(f"{ENGINE_NAME} is analyzing the game")
        self._worker = threading.Thread(target=self._analyze, args=(game,), name="nboard-analyze",
                                        daemon=True)
        self._worker.start()

    def _analyze(self, game: Board) -> None:
        """The analysis thread: any error in it is an internal one (the game was checked)."""
        try:
            guard(lambda: self._analyze_game(game), self.status, expected=(),
                  internal=lambda exc: f"internal error in analyze: {_shown(str(exc))}")
        finally:
            self.status("")

    def _analyze_game(self, game: Board) -> None:
        """Retrograde analysis: ``analysis <moves played> <eval>`` for every position of the game,
        from the last to the first (passes count as moves), each from Black's point of view: NBoard
        plots these values as they come on its graph, where up means Black is ahead."""
        started = time.monotonic()
        nodes = 0
        positions = [game.replay()]
        for move in game.move_stack:
            nxt = positions[-1].copy()
            nxt.push(move)
            positions.append(nxt)
        later: Optional[int] = None  # the value of the position after this one
        for i in range(len(positions) - 1, -1, -1):
            if self._cancel.is_set():
                return
            board = positions[i]
            if board.is_game_over():
                value = 100 * board.disc_difference() * (1 if board.turn == BLACK else -1)
            elif board.must_pass() and later is not None:
                value = -later  # the pass changes nothing but the side to move
            else:
                self._sync_contempt(board)
                result = self.engine.search(board, self.limit_for(board))
                nodes += result.nodes
                if self._cancel.is_set():
                    return
                value = result.score
            black_value = value if board.turn == BLACK else -value
            self.out(f"analysis {i} {format_eval(black_value)}")
            later = value
        self.out(f"nodestats {nodes} {format_seconds(time.monotonic() - started)}")
