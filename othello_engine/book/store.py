"""The opening book's SQLite store: positions keyed by their canonical player-relative image.

Every position is stored once for its 8 symmetric images: the key is the least image of the
(player, opponent) bitboards (``board.canonical``) plus the board size, and the moves are stored in
that canonical frame; a lookup maps them back through the inverse symmetry. Up to 8x8 a bitboard is
stored as a signed 64-bit INTEGER and a pass as 64 (as ever: such books read and write unchanged);
a bigger board's bitboard (up to 676 bits) is stored as a big-endian BLOB in the same columns and
its pass as ``size * size`` (the core's pass code). Per move the book keeps
a score (centi-discs, for the side to move of the position, ``None`` until searched), the depth of
the search behind it, whether it is exact, and how many games played it.

The file is SQLite in WAL mode; every change is one transaction, so a process killed while writing
leaves the book as of its last commit. A book is only ever written when opened for writing.

>>> book = Book.memory()
>>> b = Board(); _ = b.push_str('f5'); _ = b.push_str('d6')
>>> book.add_game(b)
2
>>> [square_name(m.move) for m in book.lookup(Board())]
['f5']
"""

from __future__ import annotations

import contextlib
import importlib.resources
import os
import random
import sqlite3
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Optional, TextIO

from othello_engine.board import (BLACK, PASS, SYMMETRY_INVERSE, Bitboard, Board, Square, canonical, from_core,
                                  legal_moves_of, parse_square, play_move, square_count, square_index,
                                  square_name, to_core, transform_square)
from othello_engine.textnum import ascii_int

FORMAT = "othello_engine book"
VERSION = 1
TEXT_HEADER = f"# {FORMAT} {VERSION}"
SQLITE_MAGIC = b"SQLite format 3\x00"
DEFAULT_MARGIN = 100
"""Book moves whose score is within this many centi-discs of the best are played at random."""
BUSY_WAIT = 60.0
"""Seconds a writer waits while another process writes the book, before it gives up."""
BUSY_STEP = 0.5
"""SQLite's own busy timeout per attempt (seconds); the wait goes on in steps of it."""

if TYPE_CHECKING:
    from othello_engine.engine import Engine

ProgressCallback = Callable[[int, int, float], None]


class BookError(ValueError):
    """A book file that cannot be used (missing, corrupt, or not a book), or bad book text."""


@dataclass(frozen=True)
class BookMove:
    """A move known to the book, in the frame of the position it was asked for. ``score`` is in
    centi-discs for the side to move (None: not searched yet); ``exact`` means a proven result."""

    move: Square
    score: Optional[int]
    depth: int
    exact: bool
    games: int


@dataclass(frozen=True)
class BookStats:
    """Counts of a book: positions, moves, moves with a score, and games through its positions."""

    positions: int
    moves: int
    scored: int
    games: int


def _signed(x: int, size: int = 8) -> int | bytes:
    """A bitboard as the book stores it: SQLite's signed INTEGER up to 8x8, a big-endian BLOB of
    ``ceil(size * size / 8)`` bytes beyond (too wide for an INTEGER)."""
    if size > 8:
        return x.to_bytes((size * size + 7) // 8, "big")
    return x - (1 << 64) if x >= 1 << 63 else x


def _unsigned(x: int | bytes) -> int:
    if isinstance(x, bytes):
        return int.from_bytes(x, "big")
    return x + (1 << 64) if x < 0 else x


def position_key(player: Bitboard, opponent: Bitboard, size: int) -> tuple[int, int, int, int]:
    """(size, canonical player, canonical opponent, k) of a side-relative position."""
    p, o, k = canonical(player, opponent, size)
    return size, p, o, k


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS positions (
    size INTEGER NOT NULL, player INTEGER NOT NULL, opponent INTEGER NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (size, player, opponent)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS moves (
    size INTEGER NOT NULL, player INTEGER NOT NULL, opponent INTEGER NOT NULL,
    move INTEGER NOT NULL, score INTEGER, depth INTEGER NOT NULL DEFAULT 0,
    exact INTEGER NOT NULL DEFAULT 0, games INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (size, player, opponent, move)) WITHOUT ROWID;
"""


class Book:
    """An opening book over one SQLite connection; use :meth:`open`, :meth:`memory` or
    :meth:`shipped`. Thread-safe (one lock around the connection)."""

    def __init__(self, conn: sqlite3.Connection, path: str, writable: bool,
                 seed: Optional[int] = None) -> None:
        self._conn = conn
        self.path = path
        self.writable = writable
        self.rng = random.Random(seed)
        self._lock = threading.RLock()
        self.busy_wait: float = BUSY_WAIT
        self.on_busy: Optional[Callable[[str], None]] = None

    # --- opening ------------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike[str], write: bool = False,
             seed: Optional[int] = None, busy_wait: Optional[float] = None,
             on_busy: Optional[Callable[[str], None]] = None) -> Book:
        """Open a book file. Read-only by default: a missing file, an empty one, one that is not a
        regular file (a directory, FIFO or device is never opened, so nothing blocks), a corrupt
        one or one of another format raises BookError and nothing is touched. With ``write=True``
        a missing (or empty) file is created as a new book; an existing file must already be a
        book, writable, and the path no dangling symbolic link. ``busy_wait``: seconds a writer
        waits for another writer to finish (default :data:`BUSY_WAIT`); on_busy(text) is told
        once when it starts waiting."""
        name = os.fspath(path)
        p = Path(name)
        if "\x00" in name:
            raise BookError(f"book {name!r} is not a file name (it holds a NUL character)")
        try:
            st: Optional[os.stat_result] = os.stat(name)
        except FileNotFoundError:
            st = None
            if os.path.islink(name):
                raise BookError(f"book {name!r} is a symbolic link to a missing file") from None
        except OSError as exc:
            raise BookError(f"book {name!r} cannot be read: {exc.strerror or exc}") from None
        if st is None and not write:
            raise BookError(f"book {name!r} does not exist")
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise BookError(f"book {name!r} is a directory, not a book file")
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise BookError(f"book {name!r} is not a regular file (a pipe or device is not a book)")
        if st is not None and st.st_size == 0 and not write:
            raise BookError(f"book {name!r} is empty, not an {FORMAT}")
        if st is not None and st.st_size > 0:
            try:  # O_NONBLOCK: the file may have been swapped for a FIFO since the stat
                fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
                try:
                    if not stat.S_ISREG(os.fstat(fd).st_mode):
                        raise BookError(f"book {name!r} is not a regular file")
                    head = os.read(fd, len(SQLITE_MAGIC))
                finally:
                    os.close(fd)
            except OSError as exc:
                raise BookError(f"book {name!r} cannot be read: {exc.strerror or exc}") from None
            if head != SQLITE_MAGIC:
                raise BookError(f"book {name!r} is not an {FORMAT} (not an SQLite file)")
        if write and st is not None and (not os.access(name, os.W_OK) or not st.st_mode & 0o222):
            raise BookError(f"book {name!r} is read-only: it cannot be written")
        if write and st is None and not os.access(os.path.dirname(os.path.abspath(name)), os.W_OK):
            raise BookError(f"book {name!r} cannot be created: its folder is not writable")
        fresh = st is None or st.st_size == 0
        wait = BUSY_WAIT if busy_wait is None else busy_wait
        try:
            if write:
                conn = sqlite3.connect(name, timeout=min(wait, BUSY_STEP), isolation_level=None,
                                       check_same_thread=False)
            else:
                uri = "file:" + _uri_path(p.resolve()) + "?mode=ro"
                conn = sqlite3.connect(uri, uri=True, timeout=10.0, isolation_level=None,
                                       check_same_thread=False)
        except sqlite3.Error as exc:
            raise BookError(f"book {name!r} cannot be opened: {exc}") from None
        book = cls(conn, name, write, seed)
        book.busy_wait, book.on_busy = wait, on_busy
        try:
            if not fresh:
                _check_format(conn, name)
            if write:
                book._retry_busy(lambda: conn.execute("PRAGMA journal_mode=WAL"))
                conn.execute("PRAGMA synchronous=NORMAL")
                if fresh:
                    book._retry_busy(lambda: _create(conn))
        except sqlite3.DatabaseError as exc:
            conn.close()
            if _is_busy(exc):
                raise BookError(book._busy_text()) from None
            if "readonly" in str(exc).replace(" ", "").lower():
                raise BookError(f"book {name!r} is read-only: it cannot be written") from None
            raise BookError(f"book {name!r} is corrupt or not an {FORMAT}: {exc}") from None
        except BookError:
            conn.close()
            raise
        return book

    def _busy_text(self) -> str:
        return (f"book {self.path!r} is busy: another process has been writing it for "
                f"{self.busy_wait:g} s; try again when it is done")

    def _retry_busy(self, action: Callable[[], object]) -> object:
        """Run action, retrying while another writer holds the book, for up to busy_wait
        seconds (on_busy is told once); then BookError saying the book is busy."""
        started = time.monotonic()
        told = False
        while True:
            try:
                return action()
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc):
                    raise
                if time.monotonic() - started >= self.busy_wait:
                    raise BookError(self._busy_text()) from None
                if not told and self.on_busy is not None:
                    told = True
                    self.on_busy(f"book {self.path!r} is busy (another process is writing it); "
                                 f"waiting up to {self.busy_wait:g} s")

    @classmethod
    def memory(cls, seed: Optional[int] = None) -> Book:
        """A new empty book in memory (written nowhere)."""
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        _create(conn)
        return cls(conn, ":memory:", True, seed)

    @classmethod
    def shipped(cls, seed: Optional[int] = None) -> Book:
        """The small book that ships with the package, loaded into memory."""
        book = cls.memory(seed)
        text = importlib.resources.files("othello_engine").joinpath("data/book.txt")
        with text.open("r", encoding="utf-8") as f:
            book.import_text(f)
        book.path = "<shipped book>"
        book.writable = False
        return book

    def close(self) -> None:
        """Close the book. A writer that is the last user of the file folds the WAL back in and
        leaves a single self-contained file (readers then need no side files)."""
        with self._lock:
            if self.writable and self.path != ":memory:":
                try:
                    self._conn.execute("PRAGMA busy_timeout=50")  # readers present: do not wait
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    self._conn.execute("PRAGMA journal_mode=DELETE")
                except sqlite3.Error:
                    pass  # other connections still use the file; WAL mode stays, which is safe
            self._conn.close()

    def __enter__(self) -> Book:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        if not self.writable:
            raise BookError(f"book {self.path!r} is open read-only")
        with self._lock:
            self._retry_busy(lambda: self._conn.execute("BEGIN IMMEDIATE"))
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    # --- reading ------------------------------------------------------------------------------
    def _rows(self, size: int, p: Bitboard, o: Bitboard) -> list[tuple[int, Optional[int], int, int, int]]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT move, score, depth, exact, games FROM moves WHERE size=? AND player=? AND "
                "opponent=?", (size, _signed(p, size), _signed(o, size))).fetchall()
        # a pass is stored as the core's pass code of the size (64 up to 8x8, as books always had)
        return [(from_core(m, size) if isinstance(m, int) else m, s, d, e, g) for m, s, d, e, g in rows]

    def _node(self, size: int, p: Bitboard, o: Bitboard) -> Optional[int]:
        with self._lock:
            row = self._conn.execute("SELECT games FROM positions WHERE size=? AND player=? AND "
                                     "opponent=?", (size, _signed(p, size), _signed(o, size))).fetchone()
        return None if row is None else row[0]

    def contains(self, board: Board) -> bool:
        """True when the position is a node of the book."""
        size, p, o, _ = position_key(board.player, board.opponent, board.size)
        return self._node(size, p, o) is not None

    def lookup(self, board: Board) -> list[BookMove]:
        """The moves the book knows in this position, mapped to its frame: scored moves best first
        (deeper first among equals), then unscored ones by games."""
        size, p, o, k = position_key(board.player, board.opponent, board.size)
        inverse = SYMMETRY_INVERSE[k]
        out = [BookMove(transform_square(m, inverse, size), s, d, bool(e), g)
               for m, s, d, e, g in self._rows(size, p, o)
               if isinstance(m, int) and (m == PASS or 0 <= m < square_count(size))
               and (s is None or isinstance(s, int))]
        out.sort(key=lambda b: (b.score is None, -(b.score or 0), -b.depth, -b.games, b.move))
        return out

    def probe(self, board: Board, margin: int = DEFAULT_MARGIN, min_depth: int = 1,
              rng: Optional[random.Random] = None) -> Optional[BookMove]:
        """A book move for this position, or None when the book has no good enough one: among the
        searched moves (depth >= min_depth) those within margin of the best, one picked at random
        with the book's seeded generator (or rng), so matches get variety."""
        if board.is_game_over():
            return None
        scored = [m for m in self.lookup(board) if m.score is not None and m.depth >= min_depth]
        legal = set(board.legal_moves()) or {PASS}
        scored = [m for m in scored if m.move in legal]
        if not scored:
            return None
        best = max(m.score for m in scored if m.score is not None)
        near = [m for m in scored if m.score is not None and m.score >= best - max(0, margin)]
        return (rng or self.rng).choice(near)

    def stats(self) -> BookStats:
        with self._lock:
            positions, games = self._conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(games), 0) FROM positions").fetchone()
            moves, scored = self._conn.execute(
                "SELECT COUNT(*), COUNT(score) FROM moves").fetchone()
        return BookStats(positions, moves, scored, games)

    # --- writing ------------------------------------------------------------------------------
    def _ensure_node(self, conn: sqlite3.Connection, size: int, p: Bitboard, o: Bitboard,
                     games: int = 0) -> bool:
        cur = conn.execute("INSERT OR IGNORE INTO positions VALUES (?, ?, ?, ?)",
                           (size, _signed(p, size), _signed(o, size), games))
        if cur.rowcount == 0 and games:
            conn.execute("UPDATE positions SET games = games + ? WHERE size=? AND player=? AND "
                         "opponent=?", (games, size, _signed(p, size), _signed(o, size)))
        return cur.rowcount > 0

    def _store(self, conn: sqlite3.Connection, size: int, p: Bitboard, o: Bitboard, move: Square,
               score: Optional[int], depth: int, exact: bool, games: int = 0,
               replace: bool = False) -> None:
        """Upsert an edge; a score replaces the stored one when it is exact, or when it is at least
        as deep and the stored one is not exact (or always with replace)."""
        key = (size, _signed(p, size), _signed(o, size), to_core(move, size))
        row = conn.execute("SELECT score, depth, exact FROM moves WHERE size=? AND player=? AND "
                           "opponent=? AND move=?", key).fetchone()
        if row is None:
            conn.execute("INSERT INTO moves VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (*key, score, depth if score is not None else 0, int(exact), games))
            return
        if games:
            conn.execute("UPDATE moves SET games = games + ? WHERE size=? AND player=? AND "
                         "opponent=? AND move=?", (games, *key))
        old_score, old_depth, old_exact = row
        better = score is not None and (replace or old_score is None or exact or
                                        (not old_exact and depth >= old_depth))
        if better:
            conn.execute("UPDATE moves SET score=?, depth=?, exact=? WHERE size=? AND player=? "
                         "AND opponent=? AND move=?", (score, depth, int(exact), *key))

    def add_position(self, board: Board) -> bool:
        """Make the position a node of the book; True if it was new."""
        size, p, o, _ = position_key(board.player, board.opponent, board.size)
        with self._transaction() as conn:
            return self._ensure_node(conn, size, p, o)

    def set_move(self, board: Board, move: Square, score: Optional[int], depth: int,
                 exact: bool = False, games: int = 0) -> None:
        """Record what is known about one move of a position (the position becomes a node)."""
        if not board.is_legal(move):
            raise BookError(f"move {square_name(move, board.size)} is not legal in {board.fen()!r}")
        size, p, o, k = position_key(board.player, board.opponent, board.size)
        with self._transaction() as conn:
            self._ensure_node(conn, size, p, o)
            self._store(conn, size, p, o, transform_square(move, k, size), score, depth, exact,
                        games)

    def add_game(self, game: Board, plies: Optional[int] = None) -> int:
        """Add the game that led to ``game`` (its start position and moves): every position before
        one of its first ``plies`` moves becomes a node and the move played is counted. One
        transaction. Returns the number of positions that were new."""
        board = game.replay()
        moves = game.move_stack if plies is None else game.move_stack[:max(0, plies)]
        added = 0
        with self._transaction() as conn:
            for move in moves:
                size, p, o, k = position_key(board.player, board.opponent, board.size)
                added += self._ensure_node(conn, size, p, o, games=1)
                self._store(conn, size, p, o, transform_square(move, k, size), None, 0, False,
                            games=1)
                board.push(move)
        return added

    # --- searching ----------------------------------------------------------------------------
    def _children(self, size: int, p: Bitboard, o: Bitboard) -> list[tuple[Square, Bitboard, Bitboard]]:
        moves = legal_moves_of(p, o, size)
        if moves == 0:
            if legal_moves_of(o, p, size) == 0:
                return []
            return [(PASS, o, p)]
        out = []
        x = moves
        while x:
            low = x & -x
            sq = low.bit_length() - 1
            x ^= low
            np, no = play_move(p, o, sq, size)
            out.append((sq, np, no))
        return out

    def _nodes(self) -> list[tuple[int, Bitboard, Bitboard]]:
        with self._lock:
            rows = self._conn.execute("SELECT size, player, opponent FROM positions").fetchall()
        nodes = [(s, _unsigned(p), _unsigned(o)) for s, p, o in rows]
        # deepest positions first, so that children are valued before their parents
        nodes.sort(key=lambda n: -(n[1] | n[2]).bit_count())
        return nodes

    def evaluate_moves(self, board: Board, engine: "Engine", depth: int) -> list[BookMove]:
        """Search every legal move of the position whose child is not a book node (to depth - 1
        after the move) and store the scores; returns the book's moves for the position."""
        size, p, o, k = position_key(board.player, board.opponent, board.size)
        self._evaluate_node(engine, size, p, o, depth)
        return self.lookup(board)

    def _evaluate_node(self, engine: "Engine", size: int, p: Bitboard, o: Bitboard,
                       depth: int) -> int:
        from othello_engine.engine import Limit
        rows = {m: (s, d, e) for m, s, d, e, _ in self._rows(size, p, o)}
        results = []
        for move, cp, co in self._children(size, p, o):
            c_size, c_p, c_o, _ = position_key(cp, co, size)
            if self._node(c_size, c_p, c_o) is not None:
                continue  # valued by propagation from its own moves
            known = rows.get(move)
            if known is not None and known[0] is not None and (known[2] or known[1] >= depth):
                continue
            child = Board.from_discs(size, cp, co, BLACK)  # "black" = the side to move there
            if child.is_game_over():
                score, exact, d = -100 * child.disc_difference(), True, 60
            else:
                sign = -1
                if child.must_pass():  # search on from our own turn again
                    child.push(PASS)
                    sign = 1
                r = engine.search(child, Limit(depth=max(1, depth - 1)))
                score, exact, d = sign * r.score, r.exact, (60 if r.exact else max(1, depth - 1) + 1)
            results.append((move, score, d, exact))
        if results:
            with self._transaction() as conn:
                self._ensure_node(conn, size, p, o)
                for move, score, d, exact in results:
                    self._store(conn, size, p, o, move, score, d, exact)
        return len(results)

    def propagate(self) -> int:
        """Negamax the book: each move leading to a book node gets minus that node's best score
        (depth + 1, exact when the node's best is exact). Returns the number of moves updated."""
        changed = 0
        values: dict[tuple[int, int, int], tuple[int, int, bool]] = {}
        nodes = self._nodes()
        for _ in range(2):  # a second sweep settles passes (a pass keeps the disc count)
            updates = []
            for size, p, o in nodes:
                rows = {m: (s, d, bool(e)) for m, s, d, e, _ in self._rows(size, p, o)}
                for move, cp, co in self._children(size, p, o):
                    c_size, c_p, c_o, _ = position_key(cp, co, size)
                    value = values.get((c_size, c_p, c_o))
                    if value is None:
                        continue
                    score, depth, exact = -value[0], value[1] + 1, value[2]
                    if rows.get(move) != (score, depth, exact):
                        rows[move] = (score, depth, exact)
                        updates.append((size, p, o, move, score, depth, exact))
                scored = [(s, d, e) for s, d, e in rows.values() if s is not None]
                if scored:
                    values[(size, p, o)] = max(scored, key=lambda v: (v[0], v[1]))
            if updates:
                with self._transaction() as conn:
                    for size, p, o, move, score, depth, exact in updates:
                        self._ensure_node(conn, size, p, o)
                        self._store(conn, size, p, o, move, score, depth, exact, replace=True)
                changed += len(updates)
        return changed

    def deepen(self, engine: "Engine", depth: int, progress: Optional[ProgressCallback] = None,
               ) -> int:
        """Search every move of every book node that leads out of the book to ``depth`` (skipping
        moves already known that deep), one transaction per node, then negamax the values back
        up. Returns the number of moves searched. BookError if depth is not in 1..60."""
        if not 1 <= depth <= 60:
            raise BookError(f"deepen: depth {depth} is out of range 1..60")
        nodes = self._nodes()
        started = time.monotonic()
        searched = 0
        for i, (size, p, o) in enumerate(nodes, 1):
            searched += self._evaluate_node(engine, size, p, o, depth)
            if progress is not None:
                progress(i, len(nodes), time.monotonic() - started)
        self.propagate()
        return searched

    # --- text form ----------------------------------------------------------------------------
    def export_text(self, out: TextIO) -> int:
        """Write the book as text: a header line, then one line per position: the size, the
        canonical position in the player-relative form (``P`` side to move, ``O``, ``-``), its games,
        and ``move:score:depth:exact:games`` per move (``?`` for no score). Returns the lines."""
        out.write(TEXT_HEADER + "\n")
        with self._lock:
            nodes = self._conn.execute(
                "SELECT size, player, opponent, games FROM positions "
                "ORDER BY size, player, opponent").fetchall()
        for size, sp, so, games in nodes:
            p, o = _unsigned(sp), _unsigned(so)
            cells = "".join("P" if p >> square_index(r, c, size) & 1 else
                            "O" if o >> square_index(r, c, size) & 1 else "-"
                            for r in range(size) for c in range(size))
            moves = sorted(self._rows(size, p, o))
            items = " ".join(f"{square_name(m, size)}:{'?' if s is None else s}:{d}:{'x' if e else 'a'}:{g}"
                             for m, s, d, e, g in moves)
            out.write(f"{size} {cells} {games}" + (f" {items}" if items else "") + "\n")
        return len(nodes)

    def import_text(self, lines: Iterable[str]) -> int:
        """Read the text form (see :meth:`export_text`) in one transaction, keeping the deeper of
        two scores and the larger of two game counts. Positions need not be canonical. Returns the
        number of positions read; raises BookError (and changes nothing) on a bad line."""
        it = iter(lines)
        first = next(it, "").strip()
        if first != TEXT_HEADER:
            raise BookError(f"not an {FORMAT} text: the first line should be {TEXT_HEADER!r}, "
                            f"not {first[:60]!r}")
        count = 0
        with self._transaction() as conn:
            for n, line in enumerate(it, 2):
                text = line.strip()
                if not text or text.startswith("#"):
                    continue
                try:
                    self._import_line(conn, text)
                except (ValueError, IndexError) as exc:
                    raise BookError(f"bad book line {n}: {exc}") from None
                count += 1
        return count

    def _import_line(self, conn: sqlite3.Connection, text: str) -> None:
        fields = text.split()
        size, cells, games = _count(fields[0]), fields[1], _count(fields[2])
        if len(cells) != size * size:
            raise ValueError(f"{len(cells)} cells for size {size}")
        board = Board.from_relative(cells)
        if board.size != size:
            raise ValueError(f"cells do not make a {size}x{size} board")
        key_size, p, o, k = position_key(board.player, board.opponent, size)
        row = conn.execute("SELECT games FROM positions WHERE size=? AND player=? AND opponent=?",
                           (size, _signed(p, size), _signed(o, size))).fetchone()
        if row is None:
            conn.execute("INSERT INTO positions VALUES (?, ?, ?, ?)",
                         (size, _signed(p, size), _signed(o, size), games))
        elif games > row[0]:
            conn.execute("UPDATE positions SET games=? WHERE size=? AND player=? AND opponent=?",
                         (games, size, _signed(p, size), _signed(o, size)))
        for item in fields[3:]:
            name, score, depth, exact, mgames = item.split(":")
            move = parse_square(name, size)
            if not board.is_legal(move):
                raise ValueError(f"move {name} is not legal in the position")
            cm = transform_square(move, k, size)
            s = None if score == "?" else _count(score, signed=True)
            if exact not in ("x", "a"):
                raise ValueError(f"bad exact flag {exact!r} in {item!r}")
            self._store(conn, size, p, o, cm, s, _count(depth), exact == "x")
            conn.execute("UPDATE moves SET games = MAX(games, ?) WHERE size=? AND player=? AND "
                         "opponent=? AND move=?", (_count(mgames), size, _signed(p, size), _signed(o, size),
                                                   to_core(cm, size)))


def _count(text: str, signed: bool = False) -> int:
    """A number of the text form: ASCII digits that fit SQLite's 64-bit integers; ValueError."""
    value = ascii_int(text, signed=signed)
    if value is None or not -(1 << 62) < value < 1 << 62:
        raise ValueError(f"bad number {text[:30]!r}")
    return value


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _uri_path(p: Path) -> str:
    from urllib.parse import quote
    return quote(str(p))


def _check_format(conn: sqlite3.Connection, name: str) -> None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='format'").fetchone()
        version = conn.execute("SELECT value FROM meta WHERE key='version'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise BookError(f"book {name!r} is corrupt or not an {FORMAT}: {exc}") from None
    if row is None or row[0] != FORMAT:
        raise BookError(f"book {name!r} is an SQLite file but not an {FORMAT}")
    if version is None or version[0] != str(VERSION):
        raise BookError(f"book {name!r} has version {version[0] if version else '?'}, "
                        f"expected {VERSION}")


def _create(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    for statement in _SCHEMA.strip().split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (FORMAT,))
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(VERSION),))
    conn.execute("COMMIT")
