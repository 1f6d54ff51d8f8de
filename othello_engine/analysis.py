"""othello-analyze: positions in (OBF, board strings, FEN, move lists, GGF games), analysis out.

The API under the command: :func:`parse_line` reads one input line into positions,
:func:`analyse_lines` runs them through engine processes (in parallel, output in input order)
and yields :class:`Record` values; :func:`main` is the command line.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import os
import queue
import re
import shlex
import signal
import stat
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Generator, Iterable, Iterator, Mapping, Optional, Sequence

from othello_engine.board import (BLACK, MAX_SIZE, MIN_SIZE, PASS, STANDARD_SIZES, Board, OthelloError,
                                  Square, square_name)
from othello_engine.ggf import parse_ggf
from othello_engine.notation import MoveListError, parse_moves, parse_obf
from othello_engine.client import (EngineClient, EngineError, EngineTerminatedError, EngineTimeoutError,
                                   Info, Limit, PlayResult)
from othello_engine.textnum import float_arg, int_arg

FORMATS = ("obf", "board", "fen", "moves", "ggf")
DEFAULT_DEPTH = 12
DEFAULT_ENGINE = [sys.executable, "-m", "othello_engine"]
MAX_ECHO = 200
"""Characters of an input line an error record repeats; the rest is cut (see clip_input)."""
MAX_LINE = 1 << 20
"""Longest input line read (bytes), as in the engine: a longer one is an error record and its
rest is read and dropped without being held in memory."""
READ_AHEAD = 512
"""Positions read ahead of the output at most (the input is not read further until the output
catches up), so that an endless or huge input takes bounded memory."""


def clip_input(text: str) -> str:
    """The input line as an error record repeats it: whole up to MAX_ECHO characters, else its
    start, an ellipsis and the original length (a 100 KB line must not give a 100 KB record).

    >>> clip_input("f5 d6")
    'f5 d6'
    >>> clip_input("x" * 1000) == "x" * 200 + "... (1000 characters)"
    True
    """
    return text if len(text) <= MAX_ECHO else f"{text[:MAX_ECHO]}... ({len(text)} characters)"


class InputError(ValueError):
    """An input line that cannot be read as a position or game."""


class ResumeError(ValueError):
    """An output file to resume that does not belong to this input."""


# --- input ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Position:
    """One position to analyse, with where it came from. ``known`` holds OBF move scores (discs,
    side to move); ``ply``/``played`` the number (1-based) and move of a game's next move."""

    board: Board
    known: tuple[tuple[Square, int], ...] = ()
    ply: Optional[int] = None
    played: Optional[Square] = None


_CELLS = re.compile(r"^[-.xXoObBwW*]+$")
_MOVES = re.compile(r"^(?:\s*(?:[a-hA-H][1-8]|pass|PA|pa|@@))+\s*$")
_WIDE_MOVES = re.compile(r"^(?:\s*(?:[a-zA-Z][0-9]{1,2}|pass|PA|pa|@@))+\s*$")


def _is_cells(token: str) -> bool:
    n = len(token)
    return bool(_CELLS.match(token)) and any(n == k * k for k in range(MIN_SIZE, MAX_SIZE + 1))


def detect_format(text: str, size: int = 8) -> str:
    """Guess the format of an input line (see :data:`FORMATS`).

    >>> detect_format("(;GM[Othello]BO[8 ...];)"), detect_format("f5 d6 c3"), detect_format("f5d6")
    ('ggf', 'moves', 'moves')
    >>> detect_format("8/8/8/3ox3/3xo3/8/8/8 x"), detect_format("-" * 64 + " X; G8:+18;")
    ('fen', 'obf')
    >>> detect_format("-" * 64 + " X"), detect_format("hello")
    ('board', 'unknown')
    """
    t = text.strip()
    if t.startswith("(;"):
        return "ggf"
    first = t.split()[0] if t.split() else ""
    if "/" in first:
        return "fen"
    if ";" in t:
        return "obf"
    fields = t.split()
    # a wrong length still counts as a board string, so the error says what is wrong with it
    if len(fields) == 2 and _CELLS.match(fields[0]) and len(fields[0]) >= 9 and fields[1].lower() in (
            "x", "o", "b", "w", "*", "black", "white"):
        return "board"
    if len(fields) == 1 and len(t) > 9 and _is_cells(t[:-1]) and t[-1].lower() in "xobw*":
        return "board"
    if (_MOVES if size <= 8 else _WIDE_MOVES).match(t):
        return "moves"
    return "unknown"


def _moves_board(text: str, size: int = 8) -> Board:
    try:
        return parse_moves(text, size)
    except MoveListError as exc:
        raise InputError(str(exc)) from None


def parse_line(text: str, fmt: str = "auto", size: int = 8) -> tuple[str, list[Position]]:
    """Read one input line in the given format (``auto``: detect it); return the format and the
    positions to analyse: one, or for a GGF game every position before a move. A move list
    starts from the standard start of a size x size board (the other formats say their size).
    InputError says why a line cannot be read.

    >>> fmt, positions = parse_line("f5 d6 c3")
    >>> fmt, positions[0].board.empties
    ('moves', 57)
    """
    if fmt == "auto":
        fmt = detect_format(text, size)
        if fmt == "unknown":
            raise InputError("not a position: expected OBF, a board string with its side, a UGI "
                             "FEN, a move list or a GGF game")
    elif fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}")
    try:
        if fmt == "obf":
            board, known = parse_obf(text)
            return fmt, [Position(board, tuple(known))]
        if fmt == "board":
            fields = text.split()
            if len(fields) == 1:
                fields = [fields[0][:-1], fields[0][-1]]
            if len(fields) != 2:
                raise InputError("a board string is '<cells> <side>'")
            return fmt, [Position(Board.from_cells(fields[0], fields[1]))]
        if fmt == "fen":
            return fmt, [Position(Board.from_fen(text.strip()))]
        if fmt == "moves":
            return fmt, [Position(_moves_board(text, size))]
        record = parse_ggf(text)
        game = record.board
        board = game.replay()
        positions = []
        for ply, move in enumerate(game.move_stack, 1):
            positions.append(Position(board.copy(), ply=ply, played=move))
            board.push(move)
        if not positions:
            raise InputError("the game has no moves")
        return fmt, positions
    except OthelloError as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(str(exc)) from None
    except (ValueError, OverflowError) as exc:  # a number no reader should have let through
        raise InputError(f"unreadable: {exc}") from None


# --- output records --------------------------------------------------------------------------------

def _discs(score: Optional[int], exact: bool) -> Optional[float]:
    """A centi-disc score as discs: an int when exact, two decimals otherwise."""
    if score is None:
        return None
    return score // 100 if exact else round(score / 100, 2)


def _move_name(move: Optional[Square], size: int = 8) -> Optional[str]:
    return None if move is None else square_name(move, size)


@dataclass(frozen=True)
class Line:
    """One multi-PV line: its move, score (discs, side to move), exactness and PV."""

    move: Optional[str]
    score: Optional[float]
    exact: bool
    depth: Optional[int]
    pv: tuple[str, ...]
    known: Optional[int] = None


@dataclass(frozen=True)
class Record:
    """The analysis of one position, or an error for one input line (then ``error`` is set).
    Scores are in discs for the side to move; ``black_score`` is the same from black's side."""

    file: str
    line: int
    input: str
    format: Optional[str] = None
    error: Optional[str] = None
    ply: Optional[int] = None
    played: Optional[str] = None
    fen: Optional[str] = None
    side: Optional[str] = None
    empties: Optional[int] = None
    best: Optional[str] = None
    score: Optional[float] = None
    exact: bool = False
    depth: Optional[int] = None
    nodes: Optional[int] = None
    time: Optional[float] = None
    pv: tuple[str, ...] = ()
    lines: tuple[Line, ...] = ()
    known_best: tuple[str, ...] = ()
    known_score: Optional[int] = None
    agrees: Optional[bool] = None

    @property
    def black_score(self) -> Optional[float]:
        if self.score is None or self.side is None:
            return None
        return self.score if self.side == "black" else -self.score

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this record: fields that do not apply to its kind are left out."""
        out: dict[str, Any] = {"file": self.file, "line": self.line, "input": self.input,
                               "format": self.format}
        if self.ply is not None:
            out["ply"], out["played"] = self.ply, self.played
        if self.error is not None:
            out["error"] = self.error
            return out
        out.update(fen=self.fen, side=self.side, empties=self.empties, best=self.best,
                   score=self.score, exact=self.exact, depth=self.depth, nodes=self.nodes,
                   time=self.time, pv=list(self.pv))
        if self.ply is not None:
            out["black_score"] = self.black_score
        if len(self.lines) > 1:
            out["lines"] = [{"move": ln.move, "score": ln.score, "exact": ln.exact,
                             "depth": ln.depth, "pv": list(ln.pv),
                             **({"known": ln.known} if self.known_score is not None else {})}
                            for ln in self.lines]
        if self.known_score is not None:
            out.update(known_best=list(self.known_best), known_score=self.known_score,
                       agrees=self.agrees)
        return out


def make_record(file: str, line: int, text: str, fmt: str, pos: Position, result: PlayResult,
                elapsed: float, flip: bool = False) -> Record:
    """Turn an engine's answer into a record. flip: the engine searched the position after a
    forced pass, so its scores are negated and the pass is put in front."""
    board = pos.board
    sign = -1 if flip else 1

    def line_of(info: Info) -> Line:
        pv = tuple(square_name(m, board.size) for m in info.pv)
        move = _move_name(info.move, board.size)
        if flip:
            pv, move = ("pass",) + pv, "pass"
        score = None if info.score is None else sign * info.score
        return Line(move, _discs(score, info.exact), info.exact, info.depth, pv,
                    known.get(info.move) if info.move is not None and not flip else None)

    known = dict(pos.known)
    main = line_of(result.info)
    lines = tuple(line_of(i) for i in result.lines) or (main,)
    best = "pass" if flip else _move_name(result.move, board.size)
    known_score = max(known.values()) if known else None
    known_best = tuple(square_name(m, board.size) for m, s in pos.known if s == known_score)
    agrees = None
    if known_score is not None:
        agrees = best in known_best and (not main.exact or main.score == known_score)
    return Record(
        file=file, line=line, input=text, format=fmt, ply=pos.ply,
        played=None if pos.played is None else square_name(pos.played, board.size), fen=board.fen(),
        side="black" if board.turn == BLACK else "white", empties=board.empties, best=best,
        score=main.score, exact=main.exact, depth=result.info.depth, nodes=result.info.nodes,
        time=round(elapsed, 3), pv=main.pv or ((best,) if best else ()), lines=lines,
        known_best=known_best, known_score=known_score, agrees=agrees)


def final_record(file: str, line: int, text: str, fmt: str, pos: Position) -> Record:
    """A game-over position needs no engine: its score is the final disc difference."""
    board = pos.board
    d = board.disc_difference() * (1 if board.turn == BLACK else -1)
    known = dict(pos.known)
    known_score = max(known.values()) if known else None
    return Record(file=file, line=line, input=text, format=fmt, ply=pos.ply, fen=board.fen(),
                  side="black" if board.turn == BLACK else "white", empties=board.empties,
                  best=None, score=d, exact=True, depth=0, nodes=0, time=0.0,
                  known_score=known_score, agrees=None if known_score is None else d == known_score)


# --- running engines -------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Task:
    index: int
    file: str
    line: int
    text: str
    fmt: str
    pos: Position


@dataclass
class EngineSpec:
    """How to start an analysis engine."""

    command: Sequence[str] = field(default_factory=lambda: list(DEFAULT_ENGINE))
    protocol: str = "uci"
    options: Mapping[str, Any] = field(default_factory=dict)
    stderr: Optional[IO[str]] = None

    def start(self) -> EngineClient:
        return EngineClient.popen(self.command, self.protocol, options=self.options, stderr=self.stderr)


class _Worker:
    """One engine process and the retry policy around it."""

    def __init__(self, spec: EngineSpec, engine: EngineClient) -> None:
        self.spec = spec
        self.engine: Optional[EngineClient] = engine
        self.closed = False

    def restart(self) -> None:
        if self.engine is not None:
            self.engine.close()
        self.engine = None
        if self.closed:
            raise EngineTerminatedError("the analysis was stopped")
        self.engine = self.spec.start()

    def close(self) -> None:
        self.closed = True
        if self.engine is not None:
            self.engine.close()
            self.engine = None

    def analyse(self, task: _Task, limit: Limit, multipv: int, timeout: Optional[float]) -> Record:
        pos = task.pos
        board = pos.board
        if board.is_game_over():
            return final_record(task.file, task.line, task.text, task.fmt, pos)
        flip = board.must_pass()
        if flip:
            board = board.copy()
            board.push(PASS)
        last_error: Optional[Exception] = None
        for attempt in (1, 2):
            try:
                if self.engine is None:
                    self.restart()
                assert self.engine is not None
                started = time.monotonic()
                result = self.engine.play(board, limit, multipv=multipv, timeout=timeout)
                return make_record(task.file, task.line, task.text, task.fmt, pos, result,
                                   time.monotonic() - started, flip)
            except EngineTerminatedError as exc:
                last_error = exc
                try:
                    self.restart()
                except EngineError as again:
                    return self.error(task, f"engine died ({exc}) and could not be restarted: "
                                             f"{again}")
            except EngineTimeoutError as exc:
                self._drop_if_hung()
                return self.error(task, str(exc))
            except EngineError as exc:
                return self.error(task, str(exc))
        return self.error(task, f"engine died twice on this position: {last_error}")

    def _drop_if_hung(self) -> None:
        """After a timeout: keep the engine only if it still answers; the next position gets a
        new one otherwise."""
        engine = self.engine
        if engine is None:
            return
        try:
            if engine.alive:
                engine.ping(timeout=2.0)
                return
        except EngineError:
            pass
        engine.process.kill()
        self.engine = None

    @staticmethod
    def error(task: _Task, why: str) -> Record:
        return Record(file=task.file, line=task.line, input=clip_input(task.text), format=task.fmt,
                      ply=task.pos.ply, played=None if task.pos.played is None
                      else square_name(task.pos.played, task.pos.board.size), error=why)


Source = tuple[str, Iterable[str]]
"""An input: its name (a path, ``-`` for stdin) and its lines."""


def analyse_lines(sources: Sequence[Source], limit: Limit, *, spec: Optional[EngineSpec] = None,
                  multipv: int = 1, jobs: int = 1, fmt: str = "auto",
                  timeout: Optional[float] = None,
                  on_progress: Optional[Callable[[int, Optional[int]], None]] = None,
                  skip: int = 0, last_line: Optional[int] = None,
                  cluster: Optional[str] = None, size: int = 8) -> Generator[Record, None, None]:
    """Analyse every position of the input lines with ``jobs`` engine processes and yield the
    records in input order (a GGF game gives one record per move). Blank lines and lines
    starting with ``#`` are skipped. on_progress(done, total) is called as positions finish
    (total is None until all input is read). Engines are started first: EngineError if that
    fails (before any record is yielded). ``skip``: the first records are already written (an
    earlier run); they are neither analysed nor yielded; ``last_line``: the input line of the
    last of them, checked (ResumeError from the reader if the input differs). ``cluster``: a Ray address (see
    :mod:`othello_engine.cluster`); the positions then go to its workers in batches, ``jobs``
    engines at once (1: one per CPU of the cluster). ``size``: the board of move-list lines (the
    other formats say their own size)."""
    spec = spec or EngineSpec()
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    if cluster is not None:
        from othello_engine import cluster as ray_cluster  # Ray is imported only on request
        remote = EngineSpec(spec.command, spec.protocol, dict(spec.options))  # no local stderr
        runner = ray_cluster.AnalysisRunner(remote, limit, multipv, timeout, address=cluster,
                                            slots=None if jobs == 1 else jobs)
        return _run(sources, [runner.consume], [], fmt, on_progress, skip, last_line, size)
    workers = _start_workers(spec, jobs)

    def consumer(worker: _Worker) -> _Consumer:
        def work(tasks: queue.Queue[Optional[_Task]], publish: Callable[[int, Record], None],
                 halt: Callable[[], bool]) -> None:
            while True:
                task = tasks.get()
                if task is None or halt():
                    return
                publish(task.index, analyse_task(worker, task, limit, multipv, timeout))
        return work

    return _run(sources, [consumer(w) for w in workers], [w.close for w in workers], fmt,
                on_progress, skip, last_line, size)


def analyse_task(worker: _Worker, task: _Task, limit: Limit, multipv: int,
                 timeout: Optional[float]) -> Record:
    """One position's record from worker's engine; never raises (a bug gives an error record,
    so the position is not lost and the run does not hang). The work of one engine slot,
    locally (a thread) or on a cluster (an actor)."""
    try:
        return worker.analyse(task, limit, multipv, timeout)
    except Exception as exc:
        return _Worker.error(task, f"internal error: {exc!r}")


_Consumer = Callable[["queue.Queue[Optional[_Task]]", Callable[[int, "Record"], None],
                      Callable[[], bool]], None]
"""A consumer of positions: takes tasks off the queue until None (or halt()), publishes each
record under its index."""


def _run(sources: Sequence[Source], consumers: list[_Consumer], closers: list[Callable[[], None]],
         fmt: str, on_progress: Optional[Callable[[int, Optional[int]], None]], skip: int = 0,
         last_line: Optional[int] = None, size: int = 8) -> Generator[Record, None, None]:
    tasks: queue.Queue[Optional[_Task]] = queue.Queue()
    board = _ResultBoard(skip, max(READ_AHEAD, 32 * len(consumers)))  # room for every slot

    def check_resume(index: int, number: int) -> None:
        if index == skip - 1 and last_line is not None and number != last_line:
            raise ResumeError(f"the output does not match the input: its record {skip} is of line "
                              f"{last_line}, the input gives line {number}")

    def feed() -> None:
        index = 0
        try:
            for name, lines in sources:
                for number, raw in enumerate(lines, 1):
                    if not board.wait_room(index):  # read ahead only so far: memory stays bounded
                        return
                    text = raw.rstrip("\r\n")
                    if not text.strip() or text.lstrip().startswith("#"):
                        continue
                    try:
                        length = getattr(raw, "length", len(text))
                        if length > MAX_LINE:
                            raise InputError(f"line of {length} bytes is longer than the "
                                             f"{MAX_LINE} bytes a line may have: not read")
                        found, positions = parse_line(text, fmt, size)
                    except Exception as exc:  # a bad line is one error record, never the end
                        detected = detect_format(text[:MAX_ECHO]) if fmt == "auto" else fmt
                        why = str(exc) if isinstance(exc, InputError) else f"internal error: {exc!r}"
                        check_resume(index, number)
                        if index >= skip:
                            board.publish(index, Record(
                                file=name, line=number, input=clip_input(text),
                                format=None if detected == "unknown" else detected, error=why))
                        index += 1
                        continue
                    for pos in positions:
                        check_resume(index, number)
                        if index >= skip:
                            tasks.put(_Task(index, name, number, text, found, pos))
                        index += 1
        except (OSError, UnicodeError) as exc:
            board.publish(index, Record(file="?", line=0, input="",
                                        error=f"cannot read input: {exc}"))
            index += 1
        except ResumeError as exc:
            board.fail(exc)
        finally:
            if 0 < index < skip and last_line is not None:  # the input is shorter than the output
                board.fail(ResumeError(f"the output does not match the input: it holds {skip} "
                                       f"records, the input gives {index}"))
            board.finish(index)
            for _ in consumers:
                tasks.put(None)

    def consume(consumer: _Consumer) -> None:
        try:
            consumer(tasks, board.publish, lambda: board.stopped)
        except BaseException as exc:  # e.g. a cluster that fails: the reader raises it
            board.fail(exc)

    threads = [threading.Thread(target=feed, name="analyze-input", daemon=True)]
    threads += [threading.Thread(target=consume, args=(c,), name=f"analyze-{i}", daemon=True)
                for i, c in enumerate(consumers)]
    for t in threads:
        t.start()
    try:
        for index in itertools.count(skip):
            record = board.take(index, on_progress)
            if record is None:
                return
            yield record
    finally:
        board.stopped = True
        for close in closers:
            close()  # also ends a search in progress: its process is gone
        for _ in consumers:
            tasks.put(None)
        for t in threads[1:]:
            t.join(timeout=5)


class _ResultBoard:
    """Where workers leave records and the reader takes them in input order (from index skip)."""

    def __init__(self, skip: int = 0, window: int = READ_AHEAD) -> None:
        self.cond = threading.Condition()
        self.results: dict[int, Record] = {}
        self.done = skip
        self.total: Optional[int] = None
        self.stopped = False
        self.taken = skip           # the read-ahead window counts from the first record not yet written
        self.window = window
        self.error: Optional[BaseException] = None

    def wait_room(self, index: int) -> bool:
        """Block the reader while index is window positions ahead of the consumer; False once
        the run is stopped."""
        with self.cond:
            while not self.stopped and index - self.taken >= self.window:
                self.cond.wait(0.2)
            return not self.stopped

    def fail(self, exc: BaseException) -> None:
        with self.cond:
            self.error = exc
            self.cond.notify_all()

    def publish(self, index: int, record: Record) -> None:
        with self.cond:
            self.results[index] = record
            self.done += 1
            self.cond.notify_all()

    def finish(self, total: int) -> None:
        with self.cond:
            self.total = total
            self.cond.notify_all()

    def take(self, index: int, on_progress: Optional[Callable[[int, Optional[int]], None]]
             ) -> Optional[Record]:
        """The record at index, waiting for it; None after the last one."""
        with self.cond:
            while True:
                if self.error is not None:
                    raise self.error
                if index in self.results or (self.total is not None and index >= self.total):
                    break
                self.cond.wait(0.2)
                if on_progress is not None:
                    on_progress(self.done, self.total)
            record = self.results.pop(index, None)
            self.taken = index + 1
            self.cond.notify_all()
            done, total = self.done, self.total
        if on_progress is not None:
            on_progress(done, total)
        return record


def _start_workers(spec: EngineSpec, jobs: int) -> list[_Worker]:
    engines: list[Optional[EngineClient]] = [None] * jobs
    errors: list[Exception] = []

    def start(i: int) -> None:
        try:
            engines[i] = spec.start()
        except (EngineError, OSError, ValueError) as exc:
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(i,)) for i in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        for e in engines:
            if e is not None:
                e.close()
        raise EngineError(str(errors[0])) if not isinstance(errors[0], EngineError) else errors[0]
    return [_Worker(spec, e) for e in engines if e is not None]


# --- output formats --------------------------------------------------------------------------------

def _fmt_score(score: Optional[float], exact: bool) -> str:
    if score is None:
        return "?"
    return f"{score:+d}" if exact and isinstance(score, int) else f"{score:+.2f}"


def _fmt_count(n: Optional[int]) -> str:
    if n is None:
        return "-"
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


class TableWriter:
    """The readable table: one row per position, extra rows for multi-PV lines."""

    header = (f"{'line':>8} {'ply':>3} {'empt':>4} {'side':5} {'best':4} {'score':>6} {'exact':5} "
              f"{'depth':>5} {'nodes':>7} {'time':>7}  pv")

    def __init__(self, out: IO[str], show_file: bool = False, header: bool = True) -> None:
        self.out = out
        self.show_file = show_file
        if header:
            self.out.write(self.header + "\n")

    def write(self, r: Record) -> None:
        where = f"{r.file}:{r.line}" if self.show_file else str(r.line)
        ply = "-" if r.ply is None else str(r.ply)
        if r.error is not None:
            self.out.write(f"{where:>8} {ply:>3} error: {r.error}\n")
            return
        pv = " ".join(r.pv[:12]) + (" ..." if len(r.pv) > 12 else "")
        row = (f"{where:>8} {ply:>3} {r.empties:>4} {r.side or '':5} {r.best or '--':4} "
               f"{_fmt_score(r.score, r.exact):>6} {'yes' if r.exact else 'no':5} "
               f"{r.depth if r.depth is not None else '-':>5} {_fmt_count(r.nodes):>7} "
               f"{r.time if r.time is not None else 0:>6.2f}s  {pv}")
        if r.played is not None:
            row += f"   (played {r.played})"
        if r.known_score is not None:
            verdict = "agrees" if r.agrees else "DISAGREES"
            row += f"   [known {r.known_score:+d} {'/'.join(r.known_best)}: {verdict}]"
        self.out.write(row + "\n")
        for k, ln in enumerate(r.lines[1:], 2):
            known = f"   [known {ln.known:+d}]" if ln.known is not None else ""
            self.out.write(f"{'':>8} {'':>3} {'':>4} {k:>4}. {ln.move or '--':4} "
                           f"{_fmt_score(ln.score, ln.exact):>6} {'yes' if ln.exact else 'no':5} "
                           f"{ln.depth if ln.depth is not None else '-':>5} {'':>7} {'':>7}  "
                           f"{' '.join(ln.pv[:12])}{known}\n")
        self.out.flush()


class JsonWriter:
    """One JSON object per line (see :meth:`Record.to_json`)."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def write(self, r: Record) -> None:
        self.out.write(json.dumps(r.to_json()) + "\n")
        self.out.flush()


class CsvWriter:
    """CSV with a header; one row per position, or per line with multi-PV (column ``multipv``)."""

    columns = ("file", "line", "ply", "played", "format", "fen", "side", "empties", "multipv",
               "move", "score", "exact", "depth", "nodes", "time", "pv", "known_score", "agrees",
               "error")

    def __init__(self, out: IO[str], header: bool = True) -> None:
        self.out = out
        self.writer = csv.writer(out, lineterminator="\n")
        if header:
            self.writer.writerow(self.columns)

    def write(self, r: Record) -> None:
        base = {"file": r.file, "line": r.line, "ply": r.ply, "played": r.played,
                "format": r.format, "error": r.error}
        if r.error is not None:
            self.writer.writerow([base.get(c) for c in self.columns])
        else:
            for k, ln in enumerate(r.lines or (Line(r.best, r.score, r.exact, r.depth, r.pv),), 1):
                row = dict(base, fen=r.fen, side=r.side, empties=r.empties, multipv=k,
                           move=ln.move, score=ln.score, exact=int(ln.exact), depth=ln.depth,
                           nodes=r.nodes, time=r.time, pv=" ".join(ln.pv),
                           known_score=(ln.known if k > 1 else r.known_score),
                           agrees=None if r.agrees is None or k > 1 else int(r.agrees))
                self.writer.writerow(["" if row.get(c) is None else row.get(c)
                                      for c in self.columns])
        self.out.flush()


# --- progress and plots -------------------------------------------------------------------------

def _clock(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour on)."""
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    """A one-line progress bar on a terminal: positions done, rate, time left."""

    def __init__(self, stream: IO[str], enabled: bool) -> None:
        self.stream = stream
        self.enabled = enabled
        self.started = time.monotonic()
        self.last = 0.0
        self.shown = False
        self.done, self.total = 0, None  # type: tuple[int, Optional[int]]

    def update(self, done: int, total: Optional[int]) -> None:
        self.done, self.total = done, total
        now = time.monotonic()
        if self.enabled and now - self.last >= 0.1:
            self.last = now
            self.draw()

    def draw(self) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        if self.total:
            width = 24
            filled = int(width * self.done / self.total)
            bar = "[" + "#" * filled + "." * (width - filled) + "]"
            left = (self.total - self.done) / rate if rate > 0 else None
            eta = "?" if left is None else _clock(left)
            text = f"{bar} {self.done}/{self.total}  {rate:.2f}/s  left {eta}"
        else:
            text = f"{self.done} done  {rate:.2f}/s  (reading input)"
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.enabled and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def plot_games(games: Mapping[tuple[str, int], list[Record]], path: str) -> list[str]:
    """Draw each game's score graph: the score (discs, black's view) of the position after each
    move, exact scores marked, the final result last. One game goes to path, several to
    ``<stem>-<line><ext>``. Returns the files written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    written = []
    stem, ext = os.path.splitext(path)
    for (name, line), records in games.items():
        target = path if len(games) == 1 else f"{stem}-{line}{ext or '.png'}"
        points = [(r.ply - 1, float(r.black_score), r.exact) for r in records
                  if r.error is None and r.ply is not None and r.black_score is not None]
        title = f"{'stdin' if name == '-' else os.path.basename(name)}, line {line}"
        try:
            game = parse_ggf(records[0].input)
            if game.board.is_game_over():
                points.append((len(game.board.move_stack), float(game.board.disc_difference()),
                               True))
            if game.black or game.white:
                title = f"{game.black or '?'} (black) vs {game.white or '?'} (white) - {title}"
        except OthelloError:
            pass
        fig, ax = plt.subplots(figsize=(9, 3.6), dpi=100)
        if points:
            xs = [p[0] for p in points]
            ys = [p[1] for p in points]
            ax.fill_between(xs, ys, 0, where=[y >= 0 for y in ys], color="#333333", alpha=0.35,
                            interpolate=True, label="black ahead")
            ax.fill_between(xs, ys, 0, where=[y <= 0 for y in ys], color="#bbbbbb", alpha=0.6,
                            interpolate=True, label="white ahead")
            ax.plot(xs, ys, color="black", linewidth=1.2, marker="o", markersize=2.5)
            exact = [(x, y) for x, y, e in points if e]
            if exact:
                ax.plot([p[0] for p in exact], [p[1] for p in exact], "s", color="tab:red",
                        markersize=3.5, label="exact")
            ax.legend(loc="best", fontsize=8, framealpha=0.8)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("moves played")
        ax.set_ylabel("score for black (discs)")
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        fig.savefig(target)
        plt.close(fig)
        written.append(target)
    return written


# --- the command -------------------------------------------------------------------------------

def _size_arg(text: str) -> int:
    size = int_arg(text)
    if size not in STANDARD_SIZES:
        raise argparse.ArgumentTypeError(f"board size {size}: expected an even size 4..{MAX_SIZE}")
    return size


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="othello-analyze",
        description="Analyse Othello positions with an engine: one position or game per input "
                    "line (OBF, '<cells> <side>' board strings, UGI FEN, move lists from the start "
                    "such as 'f5d6c3' or 'f5 d6 c3', or GGF games analysed move by move). Blank "
                    "lines and lines starting with '#' are skipped.",
        epilog="Exit status: 0 when every line was analysed, 1 when some lines got an error "
               "record, 2 for bad arguments or an engine that cannot start.")
    p.add_argument("files", nargs="*", help="input files or pipes such as <(...) ('-' or none: "
                                           "standard input)")
    p.add_argument("--format", choices=("auto",) + FORMATS, default="auto",
                   help="input format (default: detect per line)")
    lim = p.add_argument_group("limits (per position)")
    lim.add_argument("--depth", type=int_arg, help=f"search depth (default {DEFAULT_DEPTH} when no "
                                                "other limit is given)")
    lim.add_argument("--time", type=float_arg, help="seconds per position")
    lim.add_argument("--nodes", type=int_arg, help="nodes per position")
    lim.add_argument("--exact", action="store_true", help="solve to the exact final score")
    lim.add_argument("--timeout", type=float_arg,
                     help="give up on a position after this many seconds (default: none, or "
                          "--time plus 5 s)")
    p.add_argument("--multipv", type=int_arg, default=1, metavar="K", help="analyse the K best moves")
    p.add_argument("--size", type=_size_arg, default=8, metavar="N",
                   help="the board of move-list lines, an even size 4..26 (default 8; FEN, board "
                        "strings and GGF say their own size)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="one JSON object per line")
    out.add_argument("--csv", action="store_true", help="CSV with a header row")
    p.add_argument("--jobs", "-j", type=int_arg, default=1, metavar="N",
                   help="engine processes in parallel (output stays in input order)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the records to FILE (default: "
                                                          "standard output)")
    p.add_argument("--resume", action="store_true",
                   help="keep the records already in --output (an interrupted run over the same "
                        "input and settings) and analyse only the positions after them")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="analyse on Ray: 'local' (a Ray instance on this machine), 'auto' or "
                        "ray://HOST:PORT (an existing cluster); --jobs then counts engines over the "
                        "cluster (default: one per CPU). Needs 'othello_engine[cluster]'")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--plot", metavar="FILE.png",
                   help="draw the score graph of each GGF game (needs matplotlib: "
                        "pip install 'othello_engine[plot]')")
    eng = p.add_argument_group("engine")
    eng.add_argument("--engine", metavar="CMD",
                     help="engine command line (default: this package's engine)")
    eng.add_argument("--protocol", choices=("uci", "ugi"), default="uci",
                     help="the engine's protocol: the UCI-like one (default) or its UGI dialect")
    eng.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                     help="set an engine option (repeatable)")
    eng.add_argument("--hash", type=int_arg, metavar="MB", help="transposition table size")
    eng.add_argument("--threads", type=int_arg, metavar="N",
                     help="search threads of each engine (its Threads option); --jobs x --threads "
                          "should not exceed the cores")
    return p


def _unreadable(path: str) -> Optional[str]:
    """Why path cannot be an input (None: it can). Regular files, pipes (such as the shell's
    ``<(...)``, a /dev/fd path) and character devices (/dev/stdin) are read as streams."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISDIR(mode):
        return "is a directory"
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        return "not a regular file or pipe"
    return None


class _LongLine(str):
    """The start of an over-long input line; ``length`` is the whole line's length in bytes."""

    length: int


def _bounded_lines(stream: IO[bytes], limit: int = MAX_LINE) -> Iterator[str]:
    """The decoded lines of a byte stream, none longer than limit bytes held in memory: a longer
    line gives its first 200 characters as a _LongLine carrying its full length."""
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        if len(raw) > limit and not raw.endswith(b"\n"):
            length = len(raw)
            while True:  # drop the rest of the line
                more = stream.readline(limit)
                length += len(more)
                if not more or more.endswith(b"\n"):
                    break
            line = _LongLine(raw[:MAX_ECHO].decode("utf-8", errors="replace"))
            line.length = length
            yield line
            continue
        yield raw.decode("utf-8", errors="replace")


def _open_sources(paths: Sequence[str], stdin: IO[bytes]) -> list[Source]:
    def lines_of(stream: IO[bytes]) -> Iterator[str]:
        return _bounded_lines(stream)

    def file_lines(path: str) -> Iterator[str]:
        with open(path, "rb") as f:
            yield from lines_of(f)

    if not paths:
        return [("-", lines_of(stdin))]
    return [(p, lines_of(stdin) if p == "-" else file_lines(p)) for p in paths]


def written_records(path: str, kind: str) -> tuple[int, int, Optional[int]]:
    """(records, bytes, line) of an output file of an earlier run in the given kind (``table``,
    ``json``, ``csv``): how many records it holds, the length of its complete part (a last line
    cut short by a kill is dropped and its record analysed again) and the input line of its last
    record. A multi-PV record's extra rows do not count. ResumeError if it cannot be read."""
    with open(path, "rb") as f:
        data = f.read()
    complete = data.rfind(b"\n") + 1
    lines = data[:complete].decode("utf-8", errors="replace").splitlines()
    try:
        if kind == "json":
            objects = [json.loads(ln) for ln in lines if ln.strip()]
            return len(objects), complete, int(objects[-1]["line"]) if objects else None
        if kind == "csv":
            at, line_at = CsvWriter.columns.index("multipv"), CsvWriter.columns.index("line")
            cells = [r for r in list(csv.reader(lines))[1:] if len(r) > at and r[at] in ("", "1")]
            return len(cells), complete, int(cells[-1][line_at]) if cells else None
        rows = [ln for ln in lines[1:] if ln[:8].strip()]
        return len(rows), complete, int(rows[-1].split()[0].rsplit(":", 1)[-1]) if rows else None
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ResumeError(f"not an output of othello-analyze in this format ({kind}): {exc}") from None


def _exit_on_sigterm() -> Any:
    """Make SIGTERM end the run like Ctrl-C does, so the engines are closed; returns the old
    handler (None when signals cannot be set here, outside the main thread)."""
    def handler(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)
    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:
        return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``othello-analyze``: see ``othello-analyze --help``."""
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    err = sys.stderr

    def fail(text: str) -> int:
        err.write(f"othello-analyze: {text}\n")
        return 2

    for name in ("depth", "nodes", "jobs", "multipv", "hash", "threads"):
        value = getattr(args, name)
        if value is not None and value < 1:
            return fail(f"--{name} must be at least 1, not {value}")
    for name in ("time", "timeout"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            return fail(f"--{name} must be positive, not {value}")
    for path in args.files:
        why = None if path == "-" else _unreadable(path)
        if why is not None:
            return fail(f"cannot read {path!r}: {why}")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return fail("--plot needs matplotlib, an optional extra: "
                        "pip install 'othello_engine[plot]'")
    options: dict[str, Any] = {}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            return fail(f"bad --option {item!r}: expected NAME=VALUE")
        options[name.strip()] = value.strip()
    if args.hash is not None:
        options["Hash"] = args.hash
    if args.threads is not None:
        options["Threads"] = args.threads
    if args.cluster is not None:
        from othello_engine.cluster import ClusterError, check_available
        try:
            check_available()
        except ClusterError as exc:
            return fail(str(exc))
    kind = "json" if args.json else "csv" if args.csv else "table"
    skip, last_line = 0, None
    if args.resume and not args.output:
        return fail("--resume needs the --output file of the earlier run")
    if args.output:
        if os.path.isdir(args.output) or not os.access(
                os.path.dirname(os.path.abspath(args.output)), os.W_OK):
            return fail(f"cannot write the output file {args.output!r}")
        if args.resume and os.path.exists(args.output):
            try:
                skip, complete, last_line = written_records(args.output, kind)
                with open(args.output, "r+b") as f:
                    f.truncate(complete)
            except OSError as exc:
                return fail(f"cannot resume from {args.output!r}: {exc.strerror or exc}")
            except ResumeError as exc:
                return fail(f"cannot resume from {args.output!r}: {exc}")
            if not args.quiet:
                err.write(f"othello-analyze: resuming after the {skip} records in {args.output}\n")

    depth = args.depth
    if depth is None and args.time is None and args.nodes is None and not args.exact:
        depth = DEFAULT_DEPTH
    limit = Limit(depth=depth, time=args.time, nodes=args.nodes, exact=args.exact)
    command = shlex.split(args.engine) if args.engine else list(DEFAULT_ENGINE)
    spec = EngineSpec(command, args.protocol, options, stderr=err)

    progress = Progress(err, enabled=not args.quiet and err.isatty())
    games: dict[tuple[str, int], list[Record]] = {}
    failures = 0
    records: Optional[Generator[Record, None, None]] = None
    out_file: Optional[IO[str]] = None
    refused: tuple[type[Exception], ...] = (EngineError, ResumeError)
    if args.cluster is not None:
        refused += (ClusterError,)
    previous = _exit_on_sigterm()
    try:
        records = analyse_lines(_open_sources(args.files, sys.stdin.buffer), limit, spec=spec,
                                multipv=args.multipv, jobs=args.jobs, fmt=args.format,
                                timeout=args.timeout, on_progress=progress.update, skip=skip,
                                last_line=last_line, cluster=args.cluster, size=args.size)
        out: IO[str] = sys.stdout
        if args.output:
            out_file = out = open(args.output, "a" if skip else "w", encoding="utf-8")
        if args.json:
            writer: Any = JsonWriter(out)
        elif args.csv:
            writer = CsvWriter(out, header=not skip)
        else:
            writer = TableWriter(out, show_file=len(args.files) > 1, header=not skip)
        shared = out.isatty()  # the bar and the rows share the terminal: move the bar down
        for record in records:
            if shared:
                progress.clear()
            writer.write(record)
            if shared:
                progress.draw()
            if record.error is not None:
                failures += 1
            if args.plot and record.format == "ggf" and record.ply is not None:
                games.setdefault((record.file, record.line), []).append(record)
    except refused as exc:
        progress.clear()
        if isinstance(exc, ResumeError):
            return fail(f"cannot resume from {args.output!r}: {exc}")
        if not isinstance(exc, EngineError):
            return fail(str(exc))
        return fail(f"engine {shlex.join(command)!r}: {exc}")
    except KeyboardInterrupt:
        progress.clear()
        err.write("othello-analyze: interrupted\n")
        return 130
    except BrokenPipeError:
        # the reader left (| head): stop quietly, and keep Python from complaining at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1 if failures else 0
    finally:
        if records is not None:
            records.close()  # stops the engines
        if out_file is not None:
            out_file.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    progress.clear()
    if args.plot:
        if not games:
            err.write("othello-analyze: --plot: no GGF game in the input, nothing drawn\n")
        else:
            for path in plot_games(games, args.plot):
                err.write(f"othello-analyze: wrote {path}\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
