"""The Go Text Protocol (version 2) as Othello engines speak it: a line in, an Engine call, a reply out."""

from __future__ import annotations

import math
import re
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable, Final, Optional

from othello_engine import __version__, timeman
from othello_engine.board import (BLACK, PASS, WHITE, Board, Color, OthelloError, Square, check_size,
                                  clip_text, parse_square, square_name)
from othello_engine.engine import Engine, Limit
from othello_engine.protocol.session import ProtocolError, Writer, guard
from othello_engine.textnum import ascii_float

ENGINE_NAME: Final = "othello_engine"
GAME_NAME: Final = "Othello"
"""The game ``list_games`` names: GTP tools (Quarry, gtp-rhino) call Othello "Othello"."""
GAME_NAMES: Final = ("othello", "reversi")
"""The names ``set_game`` accepts (any case)."""
DEFAULT_MOVE_TIME: Final = 1.0
"""Seconds a move takes while no time limit is known (no ``time_settings``, or "no limits")."""
MAX_SECONDS: Final = 10.0 ** 9
MAX_STONES: Final = 10 ** 6
QUOTE: Final = 30
"""Characters of an offending input token quoted in an error reply."""

COMMANDS: Final = (
    "protocol_version", "name", "version", "known_command", "list_commands", "quit",
    "boardsize", "clear_board", "komi", "play", "genmove", "reg_genmove", "undo",
    "time_settings", "time_left", "final_score", "showboard", "list_games", "set_game",
)
"""Every command, in ``list_commands`` order."""

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_ID = re.compile(r"[0-9]{1,18}")


class GtpError(ProtocolError):
    """A command that fails; its text follows the ``?`` of the reply."""


def clean_line(line: str) -> str:
    """A command line as GTP reads it: control characters dropped, tabs made spaces, the comment
    after ``#`` cut off.

    >>> clean_line("1 play\\tb e6  # the first move\\r")
    '1 play b e6  '
    """
    return _CONTROL.sub("", line.replace("\t", " ")).split("#", 1)[0]


def parse_color(text: str) -> Color:
    """``b``/``black`` or ``w``/``white`` (any case)."""
    word = text.lower()
    if word in ("b", "black"):
        return BLACK
    if word in ("w", "white"):
        return WHITE
    raise GtpError(f"syntax error: bad color {clip_text(text, QUOTE)!r}: expected black, white, b or w")


def color_name(color: Color) -> str:
    return "black" if color == BLACK else "white"


def vertex_text(move: Square, size: int = 8) -> str:
    """A move as the engine answers it: ``E6`` (GTP writes vertices in capitals; ``J10`` on a
    bigger board), or ``pass``."""
    return "pass" if move == PASS else square_name(move, size).upper()


def _seconds(text: str, what: str, overdrawn: bool = False) -> float:
    """Seconds >= 0 from text; with ``overdrawn``, a negative time reads as 0."""
    number = ascii_float(text)  # ASCII digits only: float() also reads '٣'
    value = math.nan if number is None else number
    if overdrawn and -MAX_SECONDS <= value < 0:
        value = 0.0
    if not (math.isfinite(value) and 0 <= value <= MAX_SECONDS):
        raise GtpError(f"syntax error: bad {what} {clip_text(text, QUOTE)!r}: expected seconds >= 0")
    return value


def clock_resolution(text: str) -> float:
    """The step of a controller's time token: 1 s for whole seconds (GTP's unit: Quarry and gogui
    send them), 0.1 s for ``12.5``, 0.01 s for ``12.50``; 1 s for an exponent form.

    >>> clock_resolution("57"), clock_resolution("12.5"), clock_resolution("0.125"), clock_resolution("1e2")
    (1.0, 0.1, 0.001, 1.0)
    """
    _, _, fraction = text.partition(".")
    if not fraction or not fraction.isdigit():
        return 1.0
    return 10.0 ** -len(fraction)


def _stones(text: str) -> int:
    if not re.fullmatch(r"\+?[0-9]{1,7}", text, re.ASCII) or int(text) > MAX_STONES:
        raise GtpError(f"syntax error: bad stone count {clip_text(text, QUOTE)!r}: "
                       "expected a whole number >= 0")
    return int(text)


@dataclass(frozen=True)
class TimeSettings:
    """GTP's time system: ``main`` seconds, then Canadian byo-yomi periods of ``byo`` seconds for
    ``stones`` moves each (``byo`` 0: absolute time, no byo-yomi)."""

    main: float
    byo: float
    stones: int


@dataclass(frozen=True)
class Clock:
    """One side's clock as the engine knows it: ``main`` seconds of main time left, or, when
    ``stones`` > 0, ``period`` seconds left for the next ``stones`` moves of a byo-yomi period."""

    main: float
    period: float = 0.0
    stones: int = 0

    def limit(self, settings: TimeSettings) -> Limit:
        """The search limit of a move on this clock (both colours get it: the mover's counts)."""
        if self.stones > 0:
            clock, inc, to_go = self.period, 0.0, self.stones
        elif self.main <= 0 and settings.byo > 0 and settings.stones > 0:
            clock, inc, to_go = settings.byo, 0.0, settings.stones  # main time is over: a period starts
        else:
            # main time, with byo-yomi to follow: a period's share per move is what every later move
            # adds, and this move may run into the first period by that much
            share = settings.byo / settings.stones if settings.byo > 0 and settings.stones > 0 else 0.0
            clock, inc, to_go = self.main + share, share, None
        return Limit(black_clock=clock, white_clock=clock, black_inc=inc, white_inc=inc,
                     moves_to_go=to_go)

    def after(self, settings: TimeSettings, spent: float) -> Clock:
        """This clock after a move that took ``spent`` seconds."""
        byo_yomi = settings.byo > 0 and settings.stones > 0
        if self.stones == 0:
            if self.main > 0 or not byo_yomi:
                left = self.main - spent
                if left >= 0 or not byo_yomi:
                    return Clock(max(0.0, left))
                spent = -left  # the move ran into the first byo-yomi period
            period, stones = settings.byo, settings.stones
        else:
            period, stones = self.period, self.stones
        period, stones = period - spent, stones - 1
        if stones <= 0:
            return Clock(0.0, settings.byo, settings.stones)  # the period is done: a new one starts
        return Clock(0.0, max(0.0, period), stones)


class GtpSession:
    """One conversation in GTP version 2. Commands are answered in order, one reply each; a
    ``genmove`` searches on the reading thread (GTP controllers wait for its answer)."""

    def __init__(self, out: Writer, engine: Optional[Engine] = None) -> None:
        self.out = out
        self.engine = engine or Engine()
        self.board = Board()
        self.history: list[int] = []
        """Board moves per GTP move played, so that ``undo`` also takes back a pass put in for it."""
        self.komi = 0.0
        self.settings: Optional[TimeSettings] = None
        """None: no time limits (each move takes DEFAULT_MOVE_TIME)."""
        self.clocks: dict[Color, Optional[Clock]] = {BLACK: None, WHITE: None}
        self.input_closed = threading.Event()
        """Set when the controller closed our input: no one waits for a long answer any more."""
        self._commands: dict[str, Callable[[list[str]], str]] = {
            name: getattr(self, "cmd_" + name) for name in COMMANDS if name != "quit"}
        if self.engine.evaluation_unavailable:
            # GTP has no unsolicited output: GTP GUIs show the engine's standard error in their log
            sys.stderr.write(f"{ENGINE_NAME}: {self.engine.evaluation_unavailable}\n")
            sys.stderr.flush()

    # --- plumbing ---------------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Deal with one input line; False means quit (after its reply)."""
        tokens = clean_line(line).split()
        if not tokens:
            return True
        ident = ""
        if _ID.fullmatch(tokens[0]):
            ident, tokens = tokens[0], tokens[1:]
            if not tokens:
                self.reply(ident, error="syntax error: an id with no command")
                return True
        name, args = tokens[0].lower(), tokens[1:]
        if name == "quit":
            self.reply(ident, "")
            return False
        handler = self._commands.get(name)
        if handler is None:
            self.reply(ident, error="unknown command")
        else:
            # only GtpError is bad input here: any other error (an OthelloError too) is internal
            guard(lambda: self.reply(ident, handler(args)), lambda text: self.reply(ident, error=text),
                  expected=(GtpError,))
        return True

    def reply(self, ident: str, text: str = "", error: Optional[str] = None) -> None:
        """One response: ``=id text`` or ``?id error``, then the empty line that ends it."""
        head = ("?" if error is not None else "=") + ident
        body = error if error is not None else text
        lines = [line for line in body.split("\n") if line.strip()] or [""]
        lines[0] = f"{head} {lines[0]}".rstrip()
        self.out("\n".join(lines) + "\n")

    def close(self) -> None:
        self.engine.stop()
        self.engine.wait()

    def end_of_input(self) -> None:
        """The input is closed (called from the reading thread): stop a running search at once
        and make the rest short, as UCI stops ``go`` at the end of its input."""
        self.input_closed.set()
        self.engine.stop()

    def _need(self, args: list[str], n: int, usage: str) -> None:
        if len(args) < n:
            raise GtpError(f"syntax error: expected '{usage}'")

    # --- administrative commands ------------------------------------------------------------------
    def cmd_protocol_version(self, args: list[str]) -> str:
        return "2"

    def cmd_name(self, args: list[str]) -> str:
        return ENGINE_NAME

    def cmd_version(self, args: list[str]) -> str:
        return __version__

    def cmd_known_command(self, args: list[str]) -> str:
        self._need(args, 1, "known_command <name>")
        return "true" if args[0].lower() in COMMANDS else "false"

    def cmd_list_commands(self, args: list[str]) -> str:
        return "\n".join(COMMANDS)

    def cmd_list_games(self, args: list[str]) -> str:
        return GAME_NAME

    def cmd_set_game(self, args: list[str]) -> str:
        self._need(args, 1, "set_game <game>")
        if " ".join(args).lower() not in GAME_NAMES:
            raise GtpError("unsupported game")
        return ""

    # --- setting up -------------------------------------------------------------------------------
    def cmd_boardsize(self, args: list[str]) -> str:
        self._need(args, 1, "boardsize <size>")
        if not re.fullmatch(r"\+?[0-9]{1,3}", args[0], re.ASCII):
            raise GtpError(f"syntax error: bad size {clip_text(args[0], QUOTE)!r}: expected a whole number")
        size = int(args[0])
        try:
            check_size(size)
            board = Board(size)  # only sizes with a standard start: GTP sets up no position
        except OthelloError:
            raise GtpError("unacceptable size") from None
        self._new_game(board)
        return ""

    def cmd_clear_board(self, args: list[str]) -> str:
        self._new_game(Board(self.board.size))
        return ""

    def _new_game(self, board: Board) -> None:
        self.engine.new_game()
        self.board = board
        self.history = []
        self._reset_clocks()

    def cmd_komi(self, args: list[str]) -> str:
        self._need(args, 1, "komi <float>")
        number = ascii_float(args[0])
        komi = math.nan if number is None else number
        if not math.isfinite(komi):
            raise GtpError(f"syntax error: bad komi {clip_text(args[0], QUOTE)!r}: expected a number")
        self.komi = komi  # accepted and kept; Othello has no komi, so it changes nothing
        return ""

    # --- moves ------------------------------------------------------------------------------------
    def _turn_of(self, board: Board, color: Color) -> int:
        """Make it color's turn on board: put in the pass of the other side when it must pass;
        return the number of passes put in. GtpError when the other side has a move."""
        if board.turn == color:
            return 0
        if board.must_pass():
            board.push(PASS)
            return 1
        if board.is_game_over():
            raise GtpError("illegal move")
        raise GtpError(f"illegal move: it is {color_name(board.turn)}'s turn")

    def cmd_play(self, args: list[str]) -> str:
        self._need(args, 2, "play <color> <vertex|pass>")
        color = parse_color(args[0])
        try:
            move = parse_square(args[1], self.board.size)
        except OthelloError:
            raise GtpError(f"syntax error: bad vertex {clip_text(args[1], QUOTE)!r}") from None
        board = self.board.copy()
        if self.board.is_game_over():
            raise GtpError("illegal move")
        pushes = 0 if move == PASS else self._turn_of(board, color)
        if board.turn != color:
            raise GtpError("illegal move")
        try:
            board.push(move)
        except OthelloError:
            raise GtpError("illegal move") from None
        self.board = board
        self.history.append(pushes + 1)
        return ""

    def cmd_genmove(self, args: list[str]) -> str:
        return self._generate(args, play=True)

    def cmd_reg_genmove(self, args: list[str]) -> str:
        return self._generate(args, play=False)

    def _generate(self, args: list[str], play: bool) -> str:
        started = time.monotonic()
        self._need(args, 1, "genmove <color>")
        color = parse_color(args[0])
        board = self.board.copy()
        if board.is_game_over():
            return "pass"  # nothing to play; the position stays as it is
        pushes = self._turn_of(board, color)
        if board.must_pass():
            move = PASS
        else:
            limit = Limit(depth=1) if self.input_closed.is_set() else self.limit_for(color)
            notice = self.engine.evaluation_notice(board.size)
            if notice:
                sys.stderr.write(f"{ENGINE_NAME}: {notice}\n")
                sys.stderr.flush()
            result = self.engine.search(board, limit)
            move = result.best_move if result.best_move in board.legal_moves() else board.legal_moves()[0]
        if play:
            board.push(move)
            self.board = board
            self.history.append(pushes + 1)
            # the controller also counts the time outside this command: the Move Overhead's worth
            self._charge(color, time.monotonic() - started + self.engine.move_overhead)
        return vertex_text(move, board.size)

    def cmd_undo(self, args: list[str]) -> str:
        if not self.history:
            raise GtpError("cannot undo")
        for _ in range(self.history.pop()):
            self.board.pop()
        return ""

    # --- time -------------------------------------------------------------------------------------
    def cmd_time_settings(self, args: list[str]) -> str:
        self._need(args, 3, "time_settings <main> <byo_yomi_time> <byo_yomi_stones>")
        main, byo, stones = _seconds(args[0], "main time"), _seconds(args[1], "byo-yomi time"), _stones(args[2])
        if byo > 0 and stones == 0:
            self.settings = None  # GTP's way of saying "no time limits"
        else:
            self.settings = TimeSettings(main, byo, stones)
        self._reset_clocks()
        return ""

    def cmd_time_left(self, args: list[str]) -> str:
        self._need(args, 3, "time_left <color> <time> <stones>")
        # an overdrawn clock (a negative time) is an empty one, as UCI reads wtime/btime
        color, left, stones = parse_color(args[0]), _seconds(args[1], "time", overdrawn=True), _stones(args[2])
        # a report in whole seconds may be rounded up (Quarry rounds to nearest): plan on what is
        # surely left, with the fraction from the engine's own account of the clock
        left = timeman.reported_clock(left, clock_resolution(args[1]), self._own_clock(color, stones))
        if self.settings is None:
            # a clock the controller keeps although no time limits were set: honour it
            self.settings = TimeSettings(left, 0.0, 0) if stones == 0 else TimeSettings(0.0, left, stones)
        self.clocks[color] = Clock(left) if stones == 0 else Clock(0.0, left, stones)
        return ""

    def _own_clock(self, color: Color, stones: int) -> Optional[float]:
        """The engine's own account of the clock a ``time_left`` with ``stones`` reports: the main
        time left, or the time left in the period with that many moves to go (None: it keeps
        no such clock)."""
        clock = self.clocks[color]
        if self.settings is None or clock is None or clock.stones != stones:
            return None
        return clock.main if stones == 0 else clock.period

    def _reset_clocks(self) -> None:
        s = self.settings
        start = None if s is None else Clock(s.main)
        self.clocks = {BLACK: start, WHITE: start}

    def limit_for(self, color: Color) -> Limit:
        """The search limit of color's move: from its clock, or DEFAULT_MOVE_TIME without one."""
        clock = self.clocks[color]
        if self.settings is None or clock is None:
            return Limit(time=DEFAULT_MOVE_TIME)
        return clock.limit(self.settings)

    def _charge(self, color: Color, spent: float) -> None:
        clock = self.clocks[color]
        if self.settings is not None and clock is not None:
            self.clocks[color] = clock.after(self.settings, spent)

    # --- the end ----------------------------------------------------------------------------------
    def cmd_final_score(self, args: list[str]) -> str:
        if not self.board.is_game_over():
            raise GtpError("cannot score")
        diff = self.board.disc_difference()
        return f"B+{diff}" if diff > 0 else f"W+{-diff}" if diff < 0 else "0"

    def cmd_showboard(self, args: list[str]) -> str:
        b = self.board
        if b.is_game_over():
            head = f"game over: {self.cmd_final_score([])}"
        else:
            head = f"{color_name(b.turn)} to move" + (" (must pass)" if b.must_pass() else "")
        rows = str(b).splitlines()
        return "\n".join([head] + rows + [f"black {b.count(BLACK)} white {b.count(WHITE)} discs"])
