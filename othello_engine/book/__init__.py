"""Opening books: the SQLite store, the games read into it, and its use from the engine's front ends.

``store`` keeps positions and moves (:class:`Book`), ``readers`` reads games to add (GGF records,
move sequences), ``options`` loads and probes a book for a protocol session (``OwnBook``,
``BookFile``). The ``othello-book`` command is :mod:`othello_engine.cli.book`.
"""

from othello_engine.book.options import (BOOK_ENV, LEARN_WAIT, BookOptions, format_score, learn_game,
                                         load_book, nboard_book_lines, nboard_hint_lines, nboard_learn,
                                         options_from_environment, probe_function, safe_probe,
                                         uci_book_lines, uci_book_reply)
from othello_engine.book.readers import read_games
from othello_engine.book.store import (BUSY_STEP, BUSY_WAIT, DEFAULT_MARGIN, FORMAT, SQLITE_MAGIC,
                                       TEXT_HEADER, VERSION, Book, BookError, BookMove, BookStats,
                                       ProgressCallback, position_key)

__all__ = [
    "BOOK_ENV", "BUSY_STEP", "BUSY_WAIT", "DEFAULT_MARGIN", "FORMAT", "LEARN_WAIT", "SQLITE_MAGIC",
    "TEXT_HEADER", "VERSION", "Book", "BookError", "BookMove", "BookOptions", "BookStats",
    "ProgressCallback", "format_score", "learn_game", "load_book", "nboard_book_lines",
    "nboard_hint_lines", "nboard_learn", "options_from_environment", "position_key", "probe_function",
    "read_games", "safe_probe", "uci_book_lines", "uci_book_reply",
]
