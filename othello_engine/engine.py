"""The Engine: owns the position's search, the transposition table and the search thread; never prints."""

from __future__ import annotations

import math
import os
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable, Final, Optional

from othello_engine import _core, timeman, weights
from othello_engine.board import (BLACK, FRAME_SIZE, PASS, Board, Square, from_core, legal_moves_of,
                                  play_move, square_count)


MOVE_OVERHEAD_MS: Final = 10
"""Default Move Overhead (ms): time a move costs outside the search (reading the command, writing
the reply, the GUI's lag), kept back from every time budget. One default for every protocol."""


class InvalidLimitError(ValueError):
    """A Limit field out of range (a negative node count, a NaN time, depth 0...)."""


def max_search_depth(size: int) -> int:
    """The deepest a search of a size x size board goes: the squares of its frame beyond the four
    of the start (60 on every board up to 8x8, 96 on 10x10)."""
    return square_count(size) - 4


@dataclass(frozen=True)
class Limit:
    """When a search stops. Every field left at None is no limit; with no limit at all the search
    runs until it has solved the position or is stopped.

    ``time`` is a fixed time for this move (seconds). The clock fields are the remaining times and
    increments of each side (seconds); ``moves_to_go`` the moves to the next time control.
    ``exact`` asks for a proven final score (the solver runs to the end, whatever ``depth``
    says; a time or node limit given as well can still cut it short, and then the result is not
    exact); ``wld`` asks only for a proven win, loss or draw (score +100, the contempt or -100);
    ``infinite`` searches until stop()."""

    depth: Optional[int] = None
    nodes: Optional[int] = None
    time: Optional[float] = None
    black_clock: Optional[float] = None
    white_clock: Optional[float] = None
    black_inc: float = 0.0
    white_inc: float = 0.0
    moves_to_go: Optional[int] = None
    exact: bool = False
    infinite: bool = False
    wld: bool = False

    def __post_init__(self) -> None:
        def whole(name: str, lo: int, hi: int) -> None:
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi):
                raise InvalidLimitError(f"Limit {name}={v!r}: expected a whole number in {lo}..{hi}")

        def seconds(name: str) -> None:
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                                  or not math.isfinite(v) or v < 0):
                raise InvalidLimitError(f"Limit {name}={v!r}: expected a finite number of seconds >= 0")

        whole("depth", 1, 10 ** 6)
        whole("nodes", 1, 2 ** 63 - 1)
        whole("moves_to_go", 1, 10 ** 6)
        for name in ("time", "black_clock", "white_clock", "black_inc", "white_inc"):
            seconds(name)


@dataclass(frozen=True)
class PVLine:
    """One root move with its score (centi-discs, side to move) and principal variation."""

    move: Square
    score: int
    pv: tuple[Square, ...]


@dataclass(frozen=True)
class SearchInfo:
    """What the search knows after one iteration. ``exact`` means the scores are proven final
    disc differences (score = 100 * discs); ``wld`` that they are a proven win (+100), draw (the
    contempt) or loss (-100) (a ``Limit(wld=True)`` search that reached the end); ``lines`` are
    best first (multi-PV)."""

    depth: int
    seldepth: int
    exact: bool
    nodes: int
    time: float
    lines: tuple[PVLine, ...]
    wld: bool = False
    progress: bool = False
    """A progress report while an iteration runs (no iteration finished for a second): ``depth``
    is the iteration under way (the empties of a solve), ``nodes`` and ``time`` so far, and
    there are no lines."""

    @property
    def score(self) -> int:
        return self.lines[0].score if self.lines else 0

    @property
    def pv(self) -> tuple[Square, ...]:
        return self.lines[0].pv if self.lines else ()

    @property
    def nps(self) -> int:
        return int(self.nodes / self.time) if self.time > 0 else 0


@dataclass(frozen=True)
class SearchResult:
    """The outcome of a search. ``best_move`` is a legal move, :data:`PASS` when the side to move
    must pass, or None when the game is over."""

    best_move: Optional[Square]
    score: int = 0
    exact: bool = False
    depth: int = 0
    nodes: int = 0
    time: float = 0.0
    lines: tuple[PVLine, ...] = field(default_factory=tuple)
    wld: bool = False
    """The score is a proven win (+100), draw (the contempt) or loss (-100), not a disc count."""

    @property
    def pv(self) -> tuple[Square, ...]:
        return self.lines[0].pv if self.lines else ()


PROGRESS_SECONDS = 1.0
"""A search reports at least this often (a progress report when no iteration finished), so that
a long solve is never mistaken for a hang."""

MAX_THREADS = 256
"""Most search threads an Engine takes."""
_default_threads = 1


def set_default_threads(threads: int) -> None:
    """The thread count of every Engine made from now on without ``threads=`` (the engine
    process's ``--threads N`` sets it for all its protocols)."""
    global _default_threads
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"threads={threads!r}: expected a whole number in 1..{MAX_THREADS}")
    _default_threads = threads


def usable_cpus() -> int:
    """The number of CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def default_threads() -> int:
    """The thread count an Engine gets when none is given (1 unless set_default_threads)."""
    return _default_threads


InfoCallback = Callable[[SearchInfo], None]
DoneCallback = Callable[[SearchResult], None]


class Engine:
    """Searches positions; one search at a time, in a background thread or blocking.

    >>> engine = Engine(hash_mb=4)
    >>> result = engine.search(Board(), Limit(depth=4))
    >>> result.best_move in Board().legal_moves()
    True
    """

    def __init__(self, hash_mb: int = 16, multipv: int = 1, move_overhead: float = MOVE_OVERHEAD_MS / 1000,
                 contempt: int = 0, evaluation_kind: str = "pattern",
                 threads: Optional[int] = None) -> None:
        self._search = _core.Search(hash_mb)
        weights.ensure_loaded()
        #: "pattern" (the learned evaluation, 8x8, when its weights loaded) or "classic"
        self.evaluation_kind = evaluation_kind
        self._noticed: set[int] = set()      # the sizes whose evaluation_notice was given
        self.multipv = multipv
        self.move_overhead = move_overhead
        #: how late (s) searches with a hard limit have been ending past it, fading (the machine's
        #: load as the clock sees it): it raises the safety margin of clock budgets
        self.lateness = 0.0
        #: centi-discs a proven draw is worth to the side to move at the root (NBoard's contempt)
        self.contempt = contempt
        #: forward pruning (probcut) in the midgame; never used where a score is to be proven
        self.selective = True
        self._thread: Optional[threading.Thread] = None
        self._result: Optional[SearchResult] = None
        self._lock = threading.Lock()
        self.set_threads(default_threads() if threads is None else threads)

    # --- options --------------------------------------------------------------------------
    @property
    def evaluation_unavailable(self) -> Optional[str]:
        """Why the pattern evaluation asked for is not in use (its weights file could not be
        loaded; the classic one searches instead), as the protocols say it; else None."""
        return weights.load_error if self.evaluation_kind == "pattern" else None

    def evaluation_notice(self, size: int) -> Optional[str]:
        """Why the pattern evaluation asked for is not in use on a size x size board (its weights
        are loaded here on first use), or which size's weights it borrows, the first time this
        engine is asked about that size; else None (8x8's reason is evaluation_unavailable, said
        at the handshake)."""
        if size == 8 or self.evaluation_kind != "pattern" or size in self._noticed:
            return None
        self._noticed.add(size)
        if weights.ensure_loaded_size(size):
            return weights.size_note(size)
        return weights.size_error(size)

    @property
    def hash_mb(self) -> int:
        return self._search.hash_mb

    def set_hash(self, hash_mb: int) -> None:
        """Resize the transposition table (it is cleared)."""
        self.wait()
        self._search.resize(hash_mb)

    @property
    def threads(self) -> int:
        """Search threads asked for (1..MAX_THREADS); they share the transposition table. At
        most one per CPU the process may use runs (see set_threads)."""
        return self._threads

    def set_threads(self, threads: int) -> None:
        """Search with this many threads from the next search on (waits for a running one).
        More threads than the CPUs this process may use search with one per CPU: extra threads
        only take turns on the same cores, and a thread waiting for its turn would hold up
        stop and the time limits. ValueError outside 1..MAX_THREADS, MemoryError when their
        state cannot be had (the previous count stays)."""
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads={threads!r}: expected a whole number in 1..{MAX_THREADS}")
        self.wait()
        self._search.set_threads(min(threads, usable_cpus()))
        self._threads = threads

    def new_game(self) -> None:
        """Forget what earlier searches learned."""
        self.wait()
        self._search.clear()

    # --- searching ------------------------------------------------------------------------
    def budget(self, board: Board, limit: Limit) -> timeman.Budget:
        """Soft and hard time limits for this search (seconds, None = none)."""
        if limit.infinite:
            return timeman.Budget(None, None)
        if limit.time is not None:
            return timeman.movetime_budget(limit.time, self.move_overhead + self.lateness)
        clock = limit.black_clock if board.turn == BLACK else limit.white_clock
        if clock is not None:
            inc = limit.black_inc if board.turn == BLACK else limit.white_inc
            # searches that end late cost every later move that much more, as the overhead does
            return timeman.clock_budget(clock, inc, limit.moves_to_go, board.empties,
                                        self.move_overhead + self.lateness,
                                        timeman.solve_model(board.size),
                                        timeman.safety_margin(self.lateness))
        return timeman.Budget(None, None)

    def search(self, board: Board, limit: Limit, on_info: Optional[InfoCallback] = None,
               root_moves: Optional[list[Square]] = None, multipv: Optional[int] = None) -> SearchResult:
        """Search board within limit and return the result (blocking)."""
        self._search.reset_stop()
        return self._run(board, limit, on_info, root_moves, multipv)

    def start(self, board: Board, limit: Limit, on_info: Optional[InfoCallback] = None,
              on_done: Optional[DoneCallback] = None, root_moves: Optional[list[Square]] = None,
              multipv: Optional[int] = None) -> None:
        """Start a search in the background and return at once. on_done gets the result exactly
        once, also when the search is stopped. The board is copied; it may change meanwhile."""
        self.wait()
        board = board.copy()
        self._search.reset_stop()
        self._result = None

        def work() -> None:
            try:
                result = self._run(board, limit, on_info, root_moves, multipv)
            except Exception:  # never leave the caller without its one result
                traceback.print_exc(file=sys.stderr)
                result = self._fallback(board)
            self._result = result
            if on_done is not None:
                on_done(result)

        self._thread = threading.Thread(target=work, name="search", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Make the running search (if any) return as soon as it can."""
        self._search.stop()

    def wait(self, timeout: Optional[float] = None) -> Optional[SearchResult]:
        """Wait for the background search to end; return its result (None if none ran)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                return None
            self._thread = None
        return self._result

    @property
    def is_searching(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @staticmethod
    def _fallback(board: Board) -> SearchResult:
        """A legal answer without searching (used when the search itself failed)."""
        if board.is_game_over():
            return SearchResult(best_move=None, exact=True)
        moves = board.legal_moves()
        return SearchResult(best_move=moves[0] if moves else PASS)

    def _run(self, board: Board, limit: Limit, on_info: Optional[InfoCallback],
             root_moves: Optional[list[Square]], multipv: Optional[int]) -> SearchResult:
        started = time.monotonic()
        if board.is_game_over():
            diff = board.disc_difference() * (1 if board.turn == BLACK else -1)
            return SearchResult(best_move=None, score=100 * diff if diff else self.contempt,
                                exact=True)
        player, opponent, prefix, sign = board.player, board.opponent, (), 1
        if board.must_pass():
            # search the opponent's reply and report it from our side, behind the pass
            player, opponent, prefix, sign = opponent, player, (PASS,), -1
            root_moves = None
            multipv = 1
        budget = self.budget(board, limit)
        size = board.size
        pattern = self.evaluation_kind == "pattern"
        if pattern and size != 8:
            weights.ensure_loaded_size(size)     # another size's weights: loaded on first use
        subset = 0
        for sq in root_moves or ():
            if 0 <= sq < square_count(size):
                subset |= 1 << sq
        max_depth = max_search_depth(size) if limit.depth is None or limit.exact or limit.wld else max(1, limit.depth)
        want = max(1, multipv if multipv is not None else self.multipv)
        solve = 1 if limit.exact else 2 if limit.wld else 0

        def convert(lines: list) -> tuple[PVLine, ...]:
            out = []
            for move, score, pv in lines:
                pv = prefix + _legal_prefix(player, opponent, size, tuple(from_core(m, size) for m in pv))
                out.append(PVLine(pv[0], sign * score, pv))
            return tuple(out)

        empties = board.empties
        lock = threading.Lock()  # one report at a time: the search's and the ticker's
        last = [time.monotonic()]
        running = threading.Event()

        def report(depth: int, seldepth: int, exact: bool, nodes: int, seconds: float,
                   lines: list) -> None:
            if on_info is not None:
                # a win/loss/draw search's iteration that reached the end of the game is proven
                info = SearchInfo(depth, seldepth, bool(exact), nodes, seconds, convert(lines),
                                  wld=solve == 2 and not exact and depth >= empties)
                with lock:
                    last[0] = time.monotonic()
                    on_info(info)

        def tick() -> None:
            while not running.wait(0.1):
                now = time.monotonic()
                if now - last[0] >= PROGRESS_SECONDS:
                    info = SearchInfo(self._search.depth_now, 0, False, self._search.nodes_now(),
                                      now - started, (), progress=True)
                    with lock:
                        if running.is_set():
                            return
                        last[0] = now
                        on_info(info)

        ticker = None
        if on_info is not None:
            ticker = threading.Thread(target=tick, name="search-progress", daemon=True)
            ticker.start()

        try:
            if size <= FRAME_SIZE:
                lines, depth, nodes, exact = self._search.run(
                    player, opponent, board.mask, max_depth, limit.nodes or 0,
                    budget.soft or 0.0, budget.hard or 0.0, subset, want, report,
                    contempt=sign * self.contempt, solve=solve, selective=self.selective,
                    pattern=pattern)
            else:
                lines, depth, nodes, exact = self._search.run_n(
                    player, opponent, size, max_depth, limit.nodes or 0,
                    budget.soft or 0.0, budget.hard or 0.0, subset, want, report,
                    contempt=sign * self.contempt, solve=solve, selective=self.selective,
                    pattern=pattern)
        finally:
            with lock:
                running.set()  # no progress report after the search is over
            if ticker is not None:
                ticker.join()
        if budget.hard is not None:
            self.lateness = timeman.next_lateness(self.lateness, time.monotonic() - started - budget.hard)
        pv_lines = convert(lines)
        legal = board.legal_moves() or [PASS]
        if not pv_lines or pv_lines[0].move not in legal:
            pv_lines = (PVLine(legal[0], 0, (legal[0],)),)
        return SearchResult(best_move=pv_lines[0].move, score=pv_lines[0].score,
                            exact=bool(exact), depth=depth, nodes=nodes,
                            time=time.monotonic() - started, lines=pv_lines,
                            wld=solve == 2 and not exact and depth >= empties)

    def evaluation(self, board: Board) -> dict[str, int]:
        """The static evaluation of the side to move, term by term (centi-discs), with the one the
        search uses under ``total``. The classic features come first: discs, mobility,
        potential_mobility, corners, x_squares, c_squares, position, stability, parity. With the
        pattern evaluation in use (8x8, weights loaded) they are followed by ``classic`` (their
        sum), the pattern families (edge2x, corner2x5, corner3x3, row2, row3, row4, diag8..diag4),
        its scalar terms (mobility, potential_mobility, parity, bias: prefixed ``pattern_``) and
        ``pattern`` (the pattern total). A finished game scores its final disc difference (times
        100) as ``total`` and 0 for every feature (see the README)."""
        if board.size != 8:
            # another size's learned evaluation (layout 2: edge, corner3x3, corner2x5, line2,
            # line3, diag and pattern_mobility, ..., pattern_discs) where it has weights
            pattern = self.evaluation_kind == "pattern" and weights.ensure_loaded_size(board.size)
            return dict(_core.evaluation_terms_n(board.player, board.opponent, board.size, pattern))
        return dict(_core.evaluation_terms(board.player, board.opponent, board.mask,
                                           self.evaluation_kind == "pattern"))


def _legal_prefix(player: int, opponent: int, size: int, pv: tuple[Square, ...]) -> tuple[Square, ...]:
    """The longest start of pv (moves of a size x size board, PASS for a pass) that is a legal
    sequence of moves (a pass only when forced)."""
    out: list[Square] = []
    for move in pv:
        moves = legal_moves_of(player, opponent, size)
        if move == PASS:
            if moves or not legal_moves_of(opponent, player, size):
                break
        elif not 0 <= move < square_count(size) or not (moves >> move) & 1:
            break
        out.append(move)
        player, opponent = play_move(player, opponent, move, size)
    return tuple(out)
