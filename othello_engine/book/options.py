"""Using a book from the engine's front ends: loading it, probing it safely, the book options."""

from __future__ import annotations

import os
import sqlite3
from typing import Callable, Optional

from othello_engine.board import PASS, Board, Square, square_name
from othello_engine.book.store import DEFAULT_MARGIN, FORMAT, Book, BookError, BookMove

LEARN_WAIT = 5.0
"""Seconds NBoard's ``learn`` waits for a busy book (the GUI waits for its answer meanwhile)."""


def load_book(path: Optional[str], seed: Optional[int] = None,
              warn: Optional[Callable[[str], None]] = None) -> Optional[Book]:
    """The book to play from: the file at path (read-only), or the shipped book when path is None
    or empty. A book that cannot be used is reported in one line through warn; None is returned
    and the caller plays on without a book."""
    try:
        book = Book.open(path, seed=seed) if path else Book.shipped(seed=seed)
    except (BookError, OSError, sqlite3.Error) as exc:
        if warn is not None:
            warn(f"book not used: {exc}")
        return None
    try:
        book.stats()  # reads every table: a damaged file is refused here, in the same one line
    except sqlite3.Error as exc:
        book.close()
        if warn is not None:
            warn(f"book not used: book {path!r} is corrupt or not an {FORMAT}: {exc}")
        return None
    return book


def safe_probe(book: Optional[Book], board: Board, margin: int = DEFAULT_MARGIN,
               warn: Optional[Callable[[str], None]] = None) -> Optional[BookMove]:
    """book.probe that never raises: a read error is reported through warn and gives None."""
    if book is None:
        return None
    try:
        return book.probe(board, margin=margin)
    except (sqlite3.Error, ValueError, OverflowError, TypeError) as exc:  # a damaged book
        if warn is not None:
            warn(f"book not used: {exc}")
        return None


def probe_function(path: Optional[str], seed: Optional[int] = None,
                   warn: Optional[Callable[[str], None]] = None) -> Callable[[Board], Optional[Square]]:
    """A function board -> book move or None, for front ends that only need the move."""
    book = load_book(path, seed, warn)

    def probe(board: Board) -> Optional[Square]:
        hit = safe_probe(book, board, warn=warn)
        return None if hit is None else hit.move

    return probe


def format_score(score: Optional[int], exact: bool) -> str:
    if score is None:
        return "?"
    return f"{score // 100:+d} (exact)" if exact else f"{score / 100:+.2f}"


def uci_book_lines(hit: BookMove, move_text: Callable[[Square], str]) -> list[str]:
    """The lines a UCI-like session sends for a move taken from the book, before its bestmove."""
    score = f"disc {hit.score // 100:+d}" if hit.exact and hit.score is not None else f"cp {hit.score}"
    mv = move_text(hit.move)
    return [f"info string book move {mv} score {format_score(hit.score, hit.exact)} "
            f"depth {hit.depth} games {hit.games}",
            f"info depth {hit.depth} score {score} nodes 0 time 0 pv {mv}"]


def nboard_book_lines(book: Optional[Book], board: Board, count: int = 1) -> list[str]:
    """NBoard ``book`` lines for the hint command: ``book <move> <eval> <games> <depth>`` for up
    to count scored book moves, eval in discs for the side to move."""
    if book is None:
        return []
    try:
        moves = [m for m in book.lookup(board) if m.score is not None]
    except sqlite3.Error:
        return []
    legal = set(board.legal_moves()) or {PASS}
    out = []
    for m in [m for m in moves if m.move in legal][:max(1, count)]:
        name = "PA" if m.move == PASS else square_name(m.move, board.size).upper()
        assert m.score is not None
        depth = "100%" if m.exact else str(m.depth)
        value = f"{m.score / 100:.2f}"
        value = "0.00" if value == "-0.00" else value
        out.append(f"book {name} {value} {m.games} {depth} from the book")
    return out


class BookOptions:
    """The book options of a protocol session: ``OwnBook`` (play from the book, default off) and
    ``BookFile`` (a book file; empty for the shipped book). The file is opened read-only, once,
    when first needed; a book that cannot be used is reported once and the session plays on."""

    NAMES = ("ownbook", "bookfile")

    def __init__(self, seed: Optional[int] = None) -> None:
        self.enabled = False
        self.path = ""
        self.seed = seed
        self._book: Optional[Book] = None
        self._loaded = False

    def option_lines(self) -> list[str]:
        """The ``option`` lines of the UCI-like handshake."""
        return ["option name OwnBook type check default false",
                "option name BookFile type string default <empty>"]

    def set_option(self, name: str, value: str) -> list[str]:
        """Apply ``setoption name <name> value <value>`` for a book option; returns the lines to
        send (``info string ...``). Raises BookError for a bad value."""
        key = name.strip().lower()
        if key == "ownbook":
            v = value.strip().lower()
            if v not in ("true", "false"):
                raise BookError(f"bad value {value!r} for option OwnBook: expected true or false")
            self.enabled = v == "true"
            return self._load() if self.enabled else []
        if key == "bookfile":
            v = value.strip()
            self.path = "" if v in ("", "<empty>") else v
            self.close()
            return self._load() if self.enabled else []
        raise BookError(f"unknown option {name!r}")

    def _load(self) -> list[str]:
        if self._loaded:
            return []
        self._loaded = True
        warnings: list[str] = []
        self._book = load_book(self.path or None, self.seed, warn=warnings.append)
        if self._book is not None:
            try:
                st = self._book.stats()
            except sqlite3.Error as exc:
                self._book.close()
                self._book = None
                return [f"info string book not used: {exc}"]
            return [f"info string book {self._book.path}: {st.positions} positions"]
        return [f"info string {w}" for w in warnings]

    @property
    def book(self) -> Optional[Book]:
        return self._book

    def probe(self, board: Board, warn: Optional[Callable[[str], None]] = None) -> Optional[BookMove]:
        """The book move to play now, or None (book off, unusable, or position not in it)."""
        if not self.enabled:
            return None
        for line in self._load():
            if warn is not None and "not used" in line:
                warn(line)
        hit = safe_probe(self._book, board, warn=warn)
        return hit

    def close(self) -> None:
        if self._book is not None:
            self._book.close()
        self._book = None
        self._loaded = False


BOOK_ENV = "OTHELLO_ENGINE_BOOK"
"""Environment variable that turns the book on for sessions without options (NBoard): a book file,
or ``shipped`` for the book that ships with the package."""


def options_from_environment(env: Optional[dict[str, str]] = None,
                             seed: Optional[int] = None) -> BookOptions:
    """BookOptions set from :data:`BOOK_ENV` (book off when it is unset or empty)."""
    value = (os.environ if env is None else env).get(BOOK_ENV, "").strip()
    opts = BookOptions(seed)
    if value:
        opts.path = "" if value.lower() == "shipped" else value
        opts.enabled = True
    return opts


def uci_book_reply(options: BookOptions, board: Board, out: Callable[[str], None],
                   move_text: Callable[[Square], str]) -> bool:
    """For ``go`` in the UCI-like protocol: when the book is on and has a move for board, send the
    book's info lines and the bestmove and return True (no search is started); else False."""
    hit = options.probe(board, warn=lambda line: out(line if line.startswith("info string")
                                                     else f"info string {line}"))
    if hit is None:
        return False
    for line in uci_book_lines(hit, move_text):
        out(line)
    out(f"bestmove {move_text(hit.move)}")
    return True


def nboard_hint_lines(options: BookOptions, board: Board, count: int = 1) -> list[str]:
    """For NBoard ``hint n``: the ``book`` lines of the book's moves (empty when the book is off or
    does not know the position); send them before (or instead of) the ``search`` lines."""
    if not options.enabled:
        return []
    options.probe(board)  # opens the book on first use
    return nboard_book_lines(options.book, board, count)


def nboard_learn(options: BookOptions, game: Board) -> list[str]:
    """For NBoard ``learn``: add the game to the book file when one is set (the shipped book is
    never written); the required ``learned`` reply, then a ``status`` line saying what was done
    (NBoard clears its status bar when ``learned`` arrives, so the status comes after it). A book
    that cannot be written is reported in the ``status`` line and the session goes on."""
    lines = ["learned"]
    if options.enabled and options.path:
        try:
            lines.append(f"status {learn_game(options.path, game)}")
            options.close()  # reopened on next use: the file may have just been created
        except (BookError, sqlite3.Error, OSError) as exc:
            lines.append(f"status book not written: {exc}")
    return lines


def learn_game(path: str, game: Board, plies: Optional[int] = None) -> str:
    """Add a game to the book file at path (opened for writing only for this); returns a one-line
    report. Raises BookError when the file cannot be used."""
    with Book.open(path, write=True, busy_wait=LEARN_WAIT) as book:
        added = book.add_game(game, plies)
    return f"learned: {added} new positions ({len(game.move_stack)} moves into {path})"
