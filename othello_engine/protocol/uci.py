"""The UCI-like protocol and its UGI dialect: a line in, an Engine call, a formatted line out."""

from __future__ import annotations

import random
import re
import threading
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Optional

from othello_engine import __version__, notation
from othello_engine.board import (BLACK, MAX_SIZE, PASS, STANDARD_SIZES, Board, OthelloError,
                                  Square, clip_text, parse_square, square_name)
from othello_engine.engine import (MAX_THREADS, MOVE_OVERHEAD_MS, Engine, Limit, SearchInfo,
                                   SearchResult, default_threads, max_search_depth)
from othello_engine.perft import PerftResult, perft
from othello_engine.protocol.session import ProtocolError, Writer, guard

if TYPE_CHECKING:
    from othello_engine.book import BookMove, BookOptions

ENGINE_NAME = f"othello_engine {__version__}"
ENGINE_AUTHOR = "the othello_engine developers"

MAX_QUOTE = 40
"""Characters of an offending input token quoted in an error line."""
MAX_ERROR = 300
"""Longest error text (characters); longer ones (quoting huge input) are clipped."""
MAX_MS = 10 ** 12
"""Largest time in milliseconds `go` accepts (about 31 years)."""


def quote(text: str) -> str:
    """The offending input as it appears in an error line: clipped, printable ASCII, in quotes.

    >>> quote("e9"), quote("\\x00" + "x" * 50)
    ("'e9'", "'?xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'")
    """
    return "'" + "".join(ch if " " <= ch <= "~" else "?" for ch in clip_text(text, MAX_QUOTE)) + "'"


# --- options ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Option:
    """One engine option: how `uci` announces it and how `setoption` reads and applies it.

    ``kind`` is a UCI option type: ``spin`` (integer in min..max), ``check`` (true/false),
    ``button`` (no value), ``string`` or ``combo`` (one of ``choices``). ``apply(session, value)``
    makes the value take effect; the session also keeps every value in ``session.settings``."""

    name: str
    kind: str
    default: Any = None
    min: Optional[int] = None
    max: Optional[int] = None
    choices: tuple[str, ...] = ()
    apply: Callable[["UciSession", Any], None] = field(default=lambda session, value: None)

    def declaration(self) -> str:
        """The ``option name ... type ...`` line of the handshake."""
        text = f"option name {self.name} type {self.kind}"
        if self.kind == "check":
            text += f" default {'true' if self.default else 'false'}"
        elif self.kind == "spin":
            text += f" default {self.default} min {self.min} max {self.max}"
        elif self.kind == "combo":
            text += f" default {self.default}" + "".join(f" var {c}" for c in self.choices)
        elif self.kind == "string":
            text += f" default {self.default if self.default else '<empty>'}"
        return text

    def parse(self, text: Optional[str]) -> Any:
        """The typed value of ``setoption ... value <text>``; ProtocolError if it does not fit."""
        if self.kind == "button":
            return None
        if text is None:
            raise ProtocolError(f"setoption: option {self.name!r} needs 'value <{self.kind}>'")
        if self.kind == "spin":
            if not re.fullmatch(r"[+-]?[0-9]{1,18}", text, re.ASCII):
                raise ProtocolError(f"setoption: bad value {quote(text)} for {self.name!r}: "
                                    f"expected an integer in {self.min}..{self.max}")
            number = int(text)
            if not (self.min is None or self.min <= number) or not (self.max is None or number <= self.max):
                raise ProtocolError(f"setoption: value {number} for {self.name!r} is out of range "
                                    f"{self.min}..{self.max}")
            return number
        if self.kind == "check":
            if text.lower() not in ("true", "false"):
                raise ProtocolError(f"setoption: bad value {quote(text)} for {self.name!r}: "
                                    "expected true or false")
            return text.lower() == "true"
        if self.kind == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise ProtocolError(f"setoption: bad value {quote(text)} for {self.name!r}: expected "
                                + " or ".join(self.choices))
        return "" if text == "<empty>" else text


def _set_hash(session: "UciSession", mb: int) -> None:
    try:
        session.engine.set_hash(mb)
    except MemoryError:
        # The core freed the old table first and, failing, took its size back (cleared; the
        # least size if even that could not be had): the engine never searches without a table.
        kept = session.engine.hash_mb
        session.settings["Hash"] = kept
        raise ProtocolError(f"setoption: Hash {mb} MiB cannot be allocated; "
                            f"keeping {kept} MiB") from None


def _set_threads(session: "UciSession", n: int) -> None:
    try:
        session.engine.set_threads(n)
    except MemoryError:
        raise ProtocolError(f"setoption: {n} threads cannot be started; keeping "
                            f"{session.engine.threads}") from None


def _set_multipv(session: "UciSession", n: int) -> None:
    session.engine.multipv = n


def _set_overhead(session: "UciSession", ms: int) -> None:
    session.engine.move_overhead = ms / 1000


def _clear_hash(session: "UciSession", value: None) -> None:
    session.engine.new_game()


def _book_option(name: str) -> Callable[["UciSession", Any], None]:
    def apply(session: "UciSession", value: Any) -> None:
        from othello_engine.book import BookError
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        try:
            lines = session.book.set_option(name, text)
        except BookError as exc:
            raise ProtocolError(f"setoption: {exc}") from None
        for line in lines:
            session.out(line)
    return apply


def _set_evaluation(session: "UciSession", name: str) -> None:
    session.engine.evaluation_kind = name
    if session.engine.evaluation_unavailable:
        session.out(f"info string {session.engine.evaluation_unavailable}")


def _set_book_seed(session: "UciSession", seed: int) -> None:
    session.book.seed = seed or None
    session.reseed_book()


OPTIONS: list[Option] = [
    Option("Hash", "spin", 16, 1, 4096, apply=_set_hash),
    Option("Threads", "spin", 1, 1, MAX_THREADS, apply=_set_threads),
    Option("MultiPV", "spin", 1, 1, 64, apply=_set_multipv),
    Option("Move Overhead", "spin", MOVE_OVERHEAD_MS, 0, 5000, apply=_set_overhead),
    Option("Clear Hash", "button", apply=_clear_hash),
    Option("OwnBook", "check", False, apply=_book_option("OwnBook")),
    Option("BookFile", "string", "", apply=_book_option("BookFile")),
    Option("BookSeed", "spin", 0, 0, 2 ** 31 - 1, apply=_set_book_seed),
    Option("Evaluation", "combo", "pattern", choices=("pattern", "classic"), apply=_set_evaluation),
]
"""Every option, in handshake order. To add one, append an Option here (its apply() does the rest)."""


# --- parsing ------------------------------------------------------------------------------------------

def play_moves(board: Board, tokens: list[str]) -> Board:
    """The board after the move list of a ``position`` command (the package's one move-list
    grammar: :mod:`othello_engine.notation`); raises ProtocolError naming the first bad move."""
    try:
        return notation.play_moves(board, tokens)
    except notation.MoveListError as exc:
        raise ProtocolError(f"position: move {exc.index} {quote(exc.token)}: {exc.reason}") from None


def parse_position(args: list[str]) -> Board:
    """The board of ``position startpos [N] | board <cells> <side> | fen <ranks> <side>
    [moves ...]``; raises ProtocolError (the caller keeps its previous position)."""
    if not args:
        raise ProtocolError("position: expected startpos, board or fen")
    lowered = [a.lower() for a in args]
    if "moves" in lowered:
        i = lowered.index("moves")
        head, moves = args[:i], args[i + 1:]
    else:
        head, moves = args, []
    if not head:
        raise ProtocolError("position: expected startpos, board or fen before 'moves'")
    kind, rest = head[0].lower(), head[1:]
    try:
        if kind == "startpos":
            if len(rest) > 1 or (rest and rest[0] not in _STARTPOS_SIZES):
                raise ProtocolError(f"position: bad startpos size {quote(' '.join(rest))}: "
                                    f"expected an even size 4..{MAX_SIZE}")
            board = Board(int(rest[0]) if rest else 8)
        elif kind == "board":
            board = _board_from_tokens(rest)
        elif kind == "fen":
            # extra numeric fields (move counters some tools add) are ignored
            if len(rest) < 2 or not all(re.fullmatch(r"[0-9]+", t, re.ASCII) for t in rest[2:]):
                raise ProtocolError(f"position: bad fen {quote(' '.join(rest))}: "
                                    "expected '<ranks> <x|o>'")
            board = Board.from_fen(rest[0] + " " + rest[1])
        else:
            raise ProtocolError(f"position: unknown kind {quote(head[0])}: expected startpos, board or fen")
    except OthelloError as exc:
        raise ProtocolError(f"position: {exc}") from None
    return play_moves(board, moves)


_STARTPOS_SIZES = frozenset(str(n) for n in STANDARD_SIZES)


def _board_from_tokens(rest: list[str]) -> Board:
    if not rest:
        raise ProtocolError("position: board needs '<cells> <side>'")
    if len(rest) == 1:
        text = rest[0]
        n = int(round((len(text) - 1) ** 0.5)) if len(text) > 1 else 0
        if n * n + 1 != len(text):
            raise ProtocolError(f"position: board {quote(text)} needs a side to move (b or w)")
        return Board.from_cells(text[:-1], text[-1])
    return Board.from_cells("".join(rest[:-1]), rest[-1])


@dataclass(frozen=True)
class GoRequest:
    """A parsed ``go``: the search limit, the root moves to consider (empty: all), or a perft depth."""

    limit: Limit
    root_moves: tuple[Square, ...] = ()
    perft: Optional[int] = None


_GO_NUMBERS: dict[str, tuple[int, int]] = {
    "depth": (1, 10 ** 6), "nodes": (1, 2 ** 63 - 1), "movetime": (0, MAX_MS),
    "wtime": (-MAX_MS, MAX_MS), "btime": (-MAX_MS, MAX_MS), "winc": (0, MAX_MS), "binc": (0, MAX_MS),
    "p1time": (-MAX_MS, MAX_MS), "p2time": (-MAX_MS, MAX_MS), "p1inc": (0, MAX_MS), "p2inc": (0, MAX_MS),
    "movestogo": (1, 10 ** 6), "perft": (0, 64),
}
_GO_ALIASES = {"p1time": "btime", "p2time": "wtime", "p1inc": "binc", "p2inc": "winc"}
_GO_FLAGS = ("infinite", "exact", "wld")


def parse_go(args: list[str], board: Board) -> GoRequest:
    """Read the arguments of ``go``; raises ProtocolError naming the first bad token."""
    numbers: dict[str, int] = {}
    flags: set[str] = set()
    root: list[Square] = []
    i = 0
    while i < len(args):
        key = args[i].lower()
        if key in _GO_FLAGS:
            flags.add(key)
            i += 1
        elif key == "searchmoves":
            i += 1
            while i < len(args) and args[i].lower() not in _GO_NUMBERS and args[i].lower() not in _GO_FLAGS:
                try:
                    tokens = notation.move_tokens(args[i], board.size)
                except OthelloError as exc:
                    raise ProtocolError(f"go: searchmoves: {exc}") from None
                for tok in tokens:
                    try:
                        move = parse_square(tok, board.size)
                    except OthelloError as exc:
                        raise ProtocolError(f"go: searchmoves: {exc}") from None
                    if not board.is_legal(move):
                        raise ProtocolError(f"go: searchmoves: {quote(tok)} is not a legal move here")
                    root.append(move)
                i += 1
        elif key in _GO_NUMBERS:
            if i + 1 >= len(args):
                raise ProtocolError(f"go: {key!r} needs a number")
            text = args[i + 1]
            lo, hi = _GO_NUMBERS[key]
            if not re.fullmatch(r"[+-]?[0-9]{1,20}", text, re.ASCII):
                raise ProtocolError(f"go: bad number {quote(text)} for {key!r}: expected an integer")
            value = int(text)
            if not lo <= value <= hi:
                raise ProtocolError(f"go: {key} {value} is out of range {lo}..{hi}")
            numbers[_GO_ALIASES.get(key, key)] = value
            i += 2
        elif key == "ponder":
            raise ProtocolError("go: pondering is not supported")
        else:
            raise ProtocolError(f"go: unknown token {quote(args[i])}")
    if "perft" in numbers:
        return GoRequest(Limit(), perft=numbers["perft"])
    black, white = numbers.get("btime"), numbers.get("wtime")
    mover, mover_key = (black, "btime/p1time") if board.turn == BLACK else (white, "wtime/p2time")
    if (black is not None or white is not None) and mover is None:
        raise ProtocolError(f"go: no clock for the side to move: give {mover_key}")

    def seconds(ms: Optional[int]) -> Optional[float]:
        return None if ms is None else max(0, ms) / 1000

    depth = numbers.get("depth")
    limit = Limit(depth=None if depth is None else min(depth, max_search_depth(board.size)), nodes=numbers.get("nodes"),
                  time=seconds(numbers.get("movetime")), black_clock=seconds(black),
                  white_clock=seconds(white), black_inc=numbers.get("binc", 0) / 1000,
                  white_inc=numbers.get("winc", 0) / 1000, moves_to_go=numbers.get("movestogo"),
                  exact="exact" in flags, infinite="infinite" in flags, wld="wld" in flags)
    return GoRequest(limit, tuple(root))


# --- book replies ------------------------------------------------------------------------------------

def book_score_text(score: Optional[int], exact: bool) -> str:
    """A book move's score as ``info string book move`` shows it: discs, or ``?`` when unscored.

    >>> book_score_text(250, False), book_score_text(-400, True), book_score_text(None, False)
    ('+2.50', '-4 (exact)', '?')
    """
    if score is None:
        return "?"
    return f"{score // 100:+d} (exact)" if exact else f"{score / 100:+.2f}"


def book_info_lines(hit: BookMove, move_text: Callable[[Square], str]) -> list[str]:
    """The lines sent for a move taken from the book, before its bestmove."""
    score = f"disc {hit.score // 100:+d}" if hit.exact and hit.score is not None else f"cp {hit.score}"
    mv = move_text(hit.move)
    return [f"info string book move {mv} score {book_score_text(hit.score, hit.exact)} "
            f"depth {hit.depth} games {hit.games}",
            f"info depth {hit.depth} score {score} nodes 0 time 0 pv {mv}"]


def book_reply(options: BookOptions, board: Board, out: Writer,
               move_text: Callable[[Square], str]) -> bool:
    """For ``go``: when the book is on and has a move for board, send the book's info lines and
    the bestmove and return True (no search is started); else False."""
    hit = options.probe(board, warn=lambda line: out(line if line.startswith("info string")
                                                     else f"info string {line}"))
    if hit is None:
        return False
    for line in book_info_lines(hit, move_text):
        out(line)
    out(f"bestmove {move_text(hit.move)}")
    return True


# --- the session -----------------------------------------------------------------------------------------

class UciSession:
    """One conversation in the UCI-like protocol (or, after ``ugi``, its UGI dialect).

    Commands run on the reading thread and return at once; a search (or perft) runs in a
    background thread and writes its ``info`` lines and its single ``bestmove`` from there."""

    def __init__(self, out: Writer, engine: Optional[Engine] = None) -> None:
        self.out = out
        self.settings: dict[str, Any] = {opt.name: opt.default for opt in OPTIONS}
        self.engine = engine or Engine(hash_mb=self.settings["Hash"], multipv=self.settings["MultiPV"],
                                       move_overhead=self.settings["Move Overhead"] / 1000)
        # the engine process's --threads N is the start value (and the announced default)
        self.settings["Threads"] = self.engine.threads
        self.board = Board()
        self.ugi = False
        self._book: Optional[BookOptions] = None
        self._lock = threading.Lock()
        self._active = False          # a go is running and its bestmove is not written yet
        self._infinite = False
        self._stopping = False
        self._held: Optional[SearchResult] = None   # a finished `go infinite` result awaiting stop
        self._go_board: Board = self.board
        self._idle = threading.Event()
        self._idle.set()
        self._perft_stop = bytearray(1)   # the compiled perft polls it: stop sets it to 1
        self.commands: dict[str, Callable[[list[str]], None]] = {
            "uci": self.cmd_uci, "ugi": self.cmd_ugi, "isready": self.cmd_isready,
            "ucinewgame": self.cmd_newgame, "uginewgame": self.cmd_newgame,
            "setoption": self.cmd_setoption, "position": self.cmd_position, "go": self.cmd_go,
            "stop": self.cmd_stop, "query": self.cmd_query, "d": self.cmd_d, "eval": self.cmd_eval,
            "help": self.cmd_help, "debug": self.cmd_ignored, "register": self.cmd_ignored,
        }

    # --- plumbing ---------------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Deal with one input line; False means quit."""
        tokens = line.split()
        if not tokens:
            return True
        cmd, args = tokens[0].lower(), tokens[1:]
        if cmd == "quit":
            return False
        handler = self.commands.get(cmd)
        if handler is None:
            self.error(f"unknown command {quote(tokens[0])} (try 'help')")
        else:
            guard(lambda: handler(args), self.error)
        return True

    def error(self, text: str) -> None:
        """Send an error line: one line of printable ASCII, clipped to MAX_ERROR characters."""
        self.out("info string error: " + "".join(ch if " " <= ch <= "~" else "?"
                                                 for ch in clip_text(text, MAX_ERROR)))

    def close(self) -> None:
        """End the session: stop any search (its bestmove may still be written) and wait briefly."""
        self.cmd_stop([])
        self._idle.wait(1.0)

    @property
    def book(self) -> BookOptions:
        """The opening book options, made when first needed."""
        if self._book is None:
            from othello_engine.book import BookOptions
            self._book = BookOptions()
        return self._book

    def reseed_book(self) -> None:
        """Restart the book's choices from BookSeed (a new game, or the seed just set): with a
        seed, the same game gets the same book moves; with 0 they are drawn afresh."""
        if self._book is None:
            return
        book = self._book.book
        if book is not None:
            book.rng = random.Random(self._book.seed)

    def move_text(self, move: Optional[int]) -> str:
        if move is None:
            return "(none)"
        if move == PASS:
            return "0000" if self.ugi else "pass"
        return square_name(move, self.board.size)

    def require_idle(self, what: str) -> None:
        """Return when no search runs; wait for one being stopped; else ProtocolError."""
        if not self._active:
            return
        if self._stopping and self._idle.wait(2.0):
            return
        raise ProtocolError(f"{what} while a search runs: send stop first")

    # --- handshake and options -------------------------------------------------------------------
    def cmd_uci(self, args: list[str]) -> None:
        self.ugi = False
        self.handshake("uciok")

    def cmd_ugi(self, args: list[str]) -> None:
        self.ugi = True
        self.handshake("ugiok")

    def handshake(self, ok: str) -> None:
        self.out(f"id name {ENGINE_NAME}")
        self.out(f"id author {ENGINE_AUTHOR}")
        for opt in OPTIONS:
            if opt.name == "Threads":
                opt = replace(opt, default=default_threads())
            self.out(opt.declaration())
        if self.engine.evaluation_unavailable:
            self.out(f"info string {self.engine.evaluation_unavailable}")
        self.out(ok)

    def cmd_isready(self, args: list[str]) -> None:
        self.out("readyok")

    def cmd_ignored(self, args: list[str]) -> None:
        """UCI commands with nothing to do here (debug, register)."""

    def cmd_newgame(self, args: list[str]) -> None:
        self.require_idle("ucinewgame")
        self.engine.new_game()
        self.reseed_book()
        self.board = Board(self.board.size if self.board.size % 2 == 0 else 8)

    def cmd_setoption(self, args: list[str]) -> None:
        lowered = [a.lower() for a in args]
        if not args or lowered[0] != "name" or len(args) < 2:
            raise ProtocolError("setoption: expected 'setoption name <Name> [value <v>]'")
        if "value" in lowered[1:]:
            j = lowered.index("value", 1)
            name, value = " ".join(args[1:j]), " ".join(args[j + 1:])
        else:
            name, value = " ".join(args[1:]), None
        opt = next((o for o in OPTIONS if o.name.lower() == name.lower()), None)
        if opt is None:
            raise ProtocolError(f"setoption: unknown option {quote(name)}; options are "
                                + ", ".join(o.name for o in OPTIONS))
        parsed = opt.parse(value)
        self.require_idle("setoption")
        opt.apply(self, parsed)
        if opt.kind != "button":
            self.settings[opt.name] = parsed

    # --- position and queries --------------------------------------------------------------------
    def cmd_position(self, args: list[str]) -> None:
        self.require_idle("position")
        self.board = parse_position(args)

    def cmd_query(self, args: list[str]) -> None:
        what = args[0].lower() if args else ""
        b = self.board
        if what == "p1turn":
            self.out("response " + ("true" if b.turn == BLACK else "false"))
        elif what == "gameover":
            self.out("response " + ("true" if b.is_game_over() else "false"))
        elif what == "result":
            if not b.is_game_over():
                self.out("response none")
            else:
                d = b.disc_difference()
                self.out("response " + ("p1win" if d > 0 else "p2win" if d < 0 else "draw"))
        else:
            raise ProtocolError(f"query: unknown question {quote(args[0]) if args else '(none)'}: "
                                "expected p1turn, gameover or result")

    def cmd_d(self, args: list[str]) -> None:
        b = self.board
        for row in str(b).splitlines():
            self.out(row)
        self.out(f"fen {b.fen()}")
        self.out(f"board {b.cells()} {'b' if b.turn == BLACK else 'w'}")
        self.out(f"side {'black' if b.turn == BLACK else 'white'}")
        self.out(f"discs black {b.count(0)} white {b.count(1)} empties {b.empties}")
        legal = b.legal_moves()
        if legal:
            self.out("legal " + " ".join(square_name(m, b.size) for m in legal))
        else:
            self.out("legal " + (self.move_text(PASS) if b.must_pass() else "none"))
        self.out("moves " + " ".join(self.move_text(m) for m in b.move_stack))

    def cmd_eval(self, args: list[str]) -> None:
        for key, value in self.engine.evaluation(self.board).items():
            shown = f"{value:.3f}" if isinstance(value, float) else str(value)
            self.out(f"eval {str(key).replace(' ', '_')} {shown}")

    def cmd_help(self, args: list[str]) -> None:
        self.out("info string commands: uci ugi isready setoption ucinewgame uginewgame position go "
                 "stop quit query d eval help; see protocol_spec.md")

    # --- searching ----------------------------------------------------------------------------------
    def cmd_go(self, args: list[str]) -> None:
        self.require_idle("go")
        request = parse_go(args, self.board)
        notice = None if request.perft is not None else self.engine.evaluation_notice(self.board.size)
        if notice:
            self.out(f"info string {notice}")
        limit = request.limit
        if (self.settings["OwnBook"] and request.perft is None and not request.root_moves
                and not limit.infinite and not limit.exact and not limit.wld):
            if book_reply(self.book, self.board, self.out, self.move_text):
                return  # the book wrote its info lines and the one bestmove
        with self._lock:
            self._active = True
            self._stopping = False
            self._held = None
            self._infinite = request.limit.infinite
            self._go_board = self.board.copy()
            self._idle.clear()
        if request.perft is not None:
            self._perft_stop = bytearray(1)   # a fresh flag: a late stop of an old perft cannot hit it
            threading.Thread(target=self._run_perft, args=(self._go_board, request.perft, self._perft_stop),
                             name="perft", daemon=True).start()
            return
        self.engine.start(self._go_board, request.limit, on_info=self.send_info,
                          on_done=self.search_done, root_moves=list(request.root_moves) or None)

    def cmd_stop(self, args: list[str]) -> None:
        with self._lock:
            if not self._active:
                return
            self._stopping = True
            held, self._held = self._held, None
            if held is not None:
                self._finish(held)
                return
        self._perft_stop[0] = 1
        self.engine.stop()

    def send_info(self, info: SearchInfo) -> None:
        if info.progress:
            self.out(f"info depth {info.depth} nodes {info.nodes} nps {info.nps} time {int(info.time * 1000)}")
            return
        for k, line in enumerate(info.lines, 1):
            pv = " ".join(self.move_text(m) for m in line.pv)
            self.out(f"info depth {info.depth} seldepth {info.seldepth} multipv {k} "
                     f"score {self.score_text(line.score, info.exact, info.wld)} nodes {info.nodes} "
                     f"nps {info.nps} time {int(info.time * 1000)} pv {pv}")

    @staticmethod
    def score_text(score: int, exact: bool, wld: bool = False) -> str:
        """``cp <centi-discs>`` for a heuristic score, ``disc <+-n>`` for a proven final result,
        ``wld win|draw|loss`` for a proven result of a ``go wld`` search."""
        if wld:
            return "wld " + ("win" if score >= 100 else "loss" if score <= -100 else "draw")
        return f"disc {round(score / 100):+d}" if exact else f"cp {score}"

    def search_done(self, result: SearchResult) -> None:
        """Engine callback (search thread): write the bestmove, or hold it for `go infinite`."""
        with self._lock:
            if self._infinite and not self._stopping:
                self._held = result
                return
            self._finish(result)

    def _finish(self, result: SearchResult) -> None:
        """Write the single bestmove of the current go (call with the lock held)."""
        if not self._active:
            return
        self._active = False
        if result.best_move is None:
            self.out(f"info depth 0 score {self.score_text(result.score, True)}")
        self.out(f"bestmove {self.move_text(result.best_move)}")
        self._idle.set()

    def _run_perft(self, board: Board, depth: int, stop: bytearray) -> None:
        """go perft: one line per root move, then the total (perft thread). stop ends the count
        within microseconds: the root move being counted gets no line (its count is partial)."""
        result: Optional[PerftResult] = None

        def count() -> None:
            nonlocal result
            result = perft(board, depth, bulk=True, stop=stop,
                           on_move=lambda move, n: self.out(f"{self.move_text(move)}: {n}"))

        # the position was checked by go: any error here is an internal one
        guard(count, self.error, expected=(),
              internal=lambda exc: f"internal error in perft: {type(exc).__name__}")
        with self._lock:
            self._active = False
            if result is not None and result.stopped:
                self.out("info string perft stopped")
            else:
                total = 0 if result is None else result.total
                seconds = 0.0 if result is None else result.seconds
                self.out(f"nodes {total} time {int(seconds * 1000)} nps {int(total / max(seconds, 1e-6))}")
            self._idle.set()
