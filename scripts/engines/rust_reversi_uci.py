"""A UCI/UGI engine process around rust-reversi's alpha-beta search (square-table evaluation).

rust-reversi (MIT, on PyPI) is a Rust Othello library with Python bindings and no engine process
of its own; this script gives it one, so ``othello-match`` and ``scripts/strength.py`` can referee
it like any other engine. It speaks the subset of protocol_spec.md sections 2-3 a match needs:

  uci | ugi                     id lines, the Move Overhead option, uciok / ugiok
  isready                       readyok
  setoption name Move Overhead value <ms>
  ucinewgame | uginewgame       back to the standard start
  position startpos | fen <ranks> <side> | board <cells> <side>  [moves <m1> ...]
  go [movetime <ms>] [depth <n>] [wtime/btime/winc/binc | p1time/p2time/p1inc/p2inc <ms>]
     [movestogo <n>] [infinite]
  stop, quit

Moves and passes follow section 1 (a pass is written ``pass``, ``0000`` in the UGI dialect; a
forced pass may be left out of a move list). Errors get an ``info string error: ...`` line and
change nothing. rust-reversi's search cannot be interrupted: a timed search returns within its
own time, ``go infinite`` (or a ``go`` without limits) searches INFINITE_MS and its ``bestmove``
waits for ``stop``, and ``stop`` ends nothing else. ``nodes`` and ``exact`` are not supported (ignored, with an
``info string``). The process needs ``pip install rust-reversi``; the board rules are
othello_engine's.
"""

from __future__ import annotations

import importlib.metadata
import sys
import time
from typing import Optional

import rust_reversi as rr

from othello_engine.board import (BLACK, PASS, Board, OthelloError, parse_square, square_name)

# the classic square table of rust-reversi's own examples for its MatrixEvaluator
SQUARE_TABLE = [
    [100, -20, 10, 5, 5, 10, -20, 100],
    [-20, -50, -2, -2, -2, -2, -50, -20],
    [10, -2, -1, -1, -1, -1, -2, 10],
    [5, -2, -1, -1, -1, -1, -2, 5],
    [5, -2, -1, -1, -1, -1, -2, 5],
    [10, -2, -1, -1, -1, -1, -2, 10],
    [-20, -50, -2, -2, -2, -2, -50, -20],
    [100, -20, 10, 5, 5, 10, -20, 100],
]
MAX_DEPTH = 60
WIN_SCORE = 1 << 20          # the score of a won final position: above any square-table sum
INFINITE_MS = 1000           # how long `go infinite` (or a go with no limit) searches
DEFAULT_OVERHEAD_MS = 10     # as othello_engine's own Move Overhead default
MIN_TIMED_MS = 10            # below ~5 ms rust-reversi's timed search panics or returns no move


def _version() -> str:
    try:
        return importlib.metadata.version("rust-reversi")
    except importlib.metadata.PackageNotFoundError:
        return "(unknown version)"


class ProtocolError(ValueError):
    """A command this engine cannot accept; the text names the input."""


def out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def parse_position(words: list[str]) -> Board:
    """The board of a ``position`` command's arguments (the words after ``position``)."""
    lower = [w.lower() for w in words]
    cut = lower.index("moves") if "moves" in lower else len(words)
    head, moves = words[:cut], words[cut + 1:]
    if not head:
        raise ProtocolError("position: missing startpos, fen or board")
    kind = head[0].lower()
    try:
        if kind == "startpos":
            if head[1:] not in ([], ["8"]):
                raise ProtocolError(f"position: only the 8x8 board is supported, not {' '.join(head)!r}")
            board = Board()
        elif kind == "fen":
            board = Board.from_fen(" ".join(head[1:3]))
        elif kind == "board":
            if len(head) == 2:                          # cells and side in one token (OBF form)
                board = Board.from_cells(head[1][:-1], head[1][-1])
            else:
                board = Board.from_cells("".join(head[1:-1]), head[-1])
        else:
            raise ProtocolError(f"position: unknown start {head[0]!r}")
    except OthelloError as exc:
        raise ProtocolError(f"position: {exc}") from None
    if board.size != 8:
        raise ProtocolError(f"position: only the 8x8 board is supported, not {board.size}x{board.size}")
    for token in moves:
        try:
            move = parse_square(token)
        except OthelloError as exc:
            raise ProtocolError(f"position: bad move {token!r}: {exc}") from None
        if move != PASS and not board.is_legal(move) and board.must_pass():
            board.push(PASS)                            # a forced pass left out of the list
        if not board.is_legal(move):
            raise ProtocolError(f"position: illegal move {token!r} in {board.fen()!r}")
        board.push(move)
    return board


def parse_go(words: list[str]) -> dict[str, int]:
    """The ``go`` parameters as integers (``infinite``/``exact`` as 1)."""
    params: dict[str, int] = {}
    aliases = {"p1time": "btime", "p2time": "wtime", "p1inc": "binc", "p2inc": "winc"}
    i = 0
    while i < len(words):
        key = words[i].lower()
        key = aliases.get(key, key)
        if key in ("infinite", "exact"):
            params[key] = 1
            i += 1
            continue
        if key not in ("movetime", "depth", "nodes", "wtime", "btime", "winc", "binc", "movestogo"):
            raise ProtocolError(f"go: unknown parameter {words[i]!r}")
        if i + 1 >= len(words):
            raise ProtocolError(f"go: {words[i]} needs a value")
        try:
            params[key] = int(words[i + 1])
        except ValueError:
            raise ProtocolError(f"go: {words[i]} needs an integer, not {words[i + 1]!r}") from None
        i += 2
    if "depth" in params and params["depth"] < 1:
        raise ProtocolError(f"go: depth {params['depth']}: need at least 1")
    return params


def time_budget_ms(board: Board, params: dict[str, int], overhead_ms: int) -> Optional[int]:
    """Milliseconds to search, or None for a depth-only search."""
    if "infinite" in params:
        return INFINITE_MS
    if "movetime" in params:
        return max(1, params["movetime"] - overhead_ms)
    clock_key, inc_key = ("btime", "binc") if board.turn == BLACK else ("wtime", "winc")
    if clock_key in params:
        left = max(0, params[clock_key] - overhead_ms)
        moves_left = params.get("movestogo") or max(1, (board.empties + 1) // 2)
        share = left // moves_left + params.get(inc_key, 0)
        return max(1, min(share, left // 2 if left > 1 else 1))
    if "depth" in params:
        return None
    return INFINITE_MS


class Session:
    """One protocol session: the board, the options, and the bestmove a ``go infinite`` holds.

    rust-reversi keeps the interpreter lock while it searches, so a search thread would answer
    nothing sooner: the search runs in the input loop, and commands sent meanwhile are read (and
    answered in order) once its ``bestmove`` is out.
    """

    def __init__(self) -> None:
        self.board = Board()
        self.ugi = False
        self.overhead_ms = DEFAULT_OVERHEAD_MS
        self.evaluator = rr.MatrixEvaluator(SQUARE_TABLE)
        self.held: Optional[str] = None      # the bestmove of a `go infinite`, written at `stop`

    def move_text(self, move: int) -> str:
        if move == PASS:
            return "0000" if self.ugi else "pass"
        return square_name(move)

    def handle(self, line: str) -> bool:
        """Answer one line; False on quit."""
        words = line.split()
        if not words:
            return True
        cmd, args = words[0].lower(), words[1:]
        if cmd in ("uci", "ugi"):
            self.ugi = cmd == "ugi"
            out(f"id name rust-reversi {_version()} alphabeta")
            out("id author rust-reversi's authors (UCI wrapper: othello_engine scripts)")
            out(f"option name Move Overhead type spin default {DEFAULT_OVERHEAD_MS} min 0 max 5000")
            out("ugiok" if self.ugi else "uciok")
        elif cmd == "isready":
            out("readyok")
        elif cmd == "quit":
            return False
        elif cmd == "stop":
            if self.held is not None:
                out(f"bestmove {self.held}")
                self.held = None
        elif cmd in ("position", "go", "ucinewgame", "uginewgame", "setoption"):
            if self.held is not None:
                out(f"info string error: {cmd}: a search is running (go infinite waits for stop)")
                return True
            try:
                if cmd == "position":
                    self.board = parse_position(args)
                elif cmd in ("ucinewgame", "uginewgame"):
                    self.board = Board()
                elif cmd == "setoption":
                    self.set_option(args)
                else:
                    self.go(parse_go(args))
            except ProtocolError as exc:
                out(f"info string error: {exc}")
        else:
            out(f"info string error: unknown command {words[0]!r}")
        return True

    def set_option(self, args: list[str]) -> None:
        text = " ".join(args)
        lower = text.lower()
        if not lower.startswith("name ") or " value " not in lower:
            raise ProtocolError(f"setoption: expected 'name <Name> value <v>', got {text!r}")
        cut = lower.index(" value ")
        name, value = text[5:cut].strip(), text[cut + 7:].strip()
        if name.lower() != "move overhead":
            raise ProtocolError(f"setoption: unknown option {name!r}")
        try:
            ms = int(value)
        except ValueError:
            raise ProtocolError(f"setoption: Move Overhead needs an integer, not {value!r}") from None
        if not 0 <= ms <= 5000:
            raise ProtocolError(f"setoption: Move Overhead {ms} is out of range 0..5000")
        self.overhead_ms = ms

    def go(self, params: dict[str, int]) -> None:
        """Search and write exactly one bestmove (held until ``stop`` after ``go infinite``)."""
        for unsupported in ("nodes", "exact"):
            if unsupported in params:
                out(f"info string go {unsupported} is not supported; ignored")
        board = self.board
        t0 = time.monotonic()
        move_text = "(none)"
        if board.is_game_over():
            diff = board.disc_difference() * (1 if board.turn == BLACK else -1)
            out(f"info depth 0 score disc {diff:+d}")
        else:
            moves = board.legal_moves()
            if not moves:
                move = PASS
            elif len(moves) == 1:
                move = moves[0]
            else:
                budget = time_budget_ms(board, params, self.overhead_ms)
                try:
                    move = self.best_move(board, params.get("depth", MAX_DEPTH), budget)
                except BaseException as exc:           # a Rust panic is a BaseException
                    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                        raise
                    print(f"search failed in {board.fen()!r}: {exc!r}", file=sys.stderr, flush=True)
                    move = moves[0]
            move_text = self.move_text(move)
            out(f"info time {int(1000 * (time.monotonic() - t0))} pv {move_text}")
        if "infinite" in params:
            self.held = move_text
        else:
            out(f"bestmove {move_text}")

    def best_move(self, board: Board, depth: int, budget: Optional[int]) -> int:
        rb = rr.Board()
        rb.set_board_str(board.cells(), rr.Turn.BLACK if board.turn == BLACK else rr.Turn.WHITE)
        move: Optional[int] = None
        if budget is None or budget >= MIN_TIMED_MS:
            search = rr.AlphaBetaSearch(self.evaluator, min(depth, MAX_DEPTH), WIN_SCORE)
            move = search.get_move(rb) if budget is None else search.get_move_with_timeout(rb, budget)
        if move is None or not board.is_legal(move):  # no time for the timed search: one ply
            move = rr.AlphaBetaSearch(self.evaluator, 1, WIN_SCORE).get_move(rb)
        if move is None or not board.is_legal(move):  # never answer an illegal move
            print(f"rust-reversi returned {move} in {board.fen()!r}; playing the first legal move",
                  file=sys.stderr, flush=True)
            move = board.legal_moves()[0]
        return int(move)


def main() -> int:
    session = Session()
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        try:
            if not session.handle(line):
                break
        except Exception as exc:                       # no traceback on stdout, the loop goes on
            print(f"internal error on {line!r}: {exc!r}", file=sys.stderr, flush=True)
            out(f"info string error: internal error: {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
