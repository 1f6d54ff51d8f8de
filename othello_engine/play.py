"""A game against the engine in a terminal: drawing the board and carrying out every in-game command.

The ``othello-play`` command line (``othello-engine play``) is :mod:`othello_engine.cli.play`.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from othello_engine import atomicfile
from othello_engine.board import (BLACK, FILES, PASS, WHITE, Board, Color, IllegalMoveError, OthelloError,
                                  Square, parse_square, square_name, stride)
from othello_engine.engine import Engine, Limit, SearchResult
from othello_engine.ggf import format_ggf, parse_ggf

COLOR_NAMES = {BLACK: "Black", WHITE: "White"}
DISC_LETTERS = {BLACK: "X", WHITE: "O"}
SPINNER = "|/-\\"

HELP = """Commands:
  d3            play a move (file letter, rank number; case does not matter)
  pass          pass (only legal when you have no move; the game also passes for you)
  undo          take back your last move and the engine's reply
  hint          ask the engine for your best move and its score
  eval          the engine's evaluation of the position
  board         draw the board again
  save <file>   save the game as a GGF record
  load <file>   load a game from a GGF record (you keep your colour)
  help          this text
  quit          leave the game"""


@dataclass(frozen=True)
class Style:
    """How the board is drawn: ANSI colours or plain text, and which disc glyphs."""

    color: bool
    unicode: bool

    def paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text


def render_board(board: Board, style: Style, last: Optional[Square] = None,
                 show_legal: bool = True) -> str:
    """The board with coordinates on all four sides; ``X`` black, ``O`` white, ``*`` a legal move of
    the side to move, ``.`` empty; the last move is framed by ``[ ]``."""
    n = board.size
    legal = board.legal_moves_mask() if show_legal else 0
    step = stride(n)
    last_col = last % step if last is not None and last != PASS else -1
    last_row = last // step if last is not None and last != PASS else -1
    files = "    " + " ".join(FILES[:n])
    out = [files]
    bg = "42"  # green felt
    for r in range(n):
        parts = []
        for c in range(n):
            bit = 1 << (r * step + c)
            if board.black & bit:
                glyph = style.paint("●" if style.unicode else "X", f"1;30;{bg}")
            elif board.white & bit:
                glyph = style.paint("●" if style.unicode else "O", f"1;97;{bg}")
            elif legal & bit:
                glyph = style.paint("*", f"1;33;{bg}")
            else:
                glyph = style.paint(".", f"32;{bg}")
            sep = "[" if r == last_row and c == last_col else (
                "]" if r == last_row and c - 1 == last_col else " ")
            parts.append(style.paint(sep, f"1;31;{bg}") + glyph)
        tail = "]" if r == last_row and last_col == n - 1 else " "
        out.append(f"{r + 1:>2} " + "".join(parts) + style.paint(tail, f"1;31;{bg}") + f" {r + 1}")
    out.append(files)
    return "\n".join(out)


def format_score(centi: int, exact: bool) -> str:
    """A score in discs for the side it belongs to: ``+1.25 discs`` or, exact, ``wins by 4``."""
    if exact:
        d = centi // 100
        return f"wins by {d}" if d > 0 else f"loses by {-d}" if d < 0 else "draws"
    return f"{centi / 100:+.2f} discs"


def final_announcement(board: Board, human: Color) -> str:
    """The end of the game: disc counts, the margin (empties to the winner) and who won."""
    b, w = board.count(BLACK), board.count(WHITE)
    empties = board.size * board.size - b - w
    d = board.disc_difference()
    counts = f"Black {b}, White {w}" + (f", {empties} empty" if empties else "")
    if d == 0:
        return f"Game over: {counts}. A draw."
    winner = BLACK if d > 0 else WHITE
    verdict = "You win!" if winner == human else "The engine wins."
    note = " (empties to the winner)" if empties else ""
    return f"Game over: {counts}. {COLOR_NAMES[winner]} wins by {abs(d)}{note}. {verdict}"


class Game:
    """One game between a person at the terminal and the engine: the state and every command."""

    def __init__(self, board: Board, human: Color, limit: Limit, engine: Engine, style: Style,
                 write: Callable[[str], None], interactive: bool,
                 book_probe: Optional[Callable[[Board], Optional[Square]]] = None) -> None:
        self.board = board
        self.human = human
        self.limit = limit
        self.engine = engine
        self.style = style
        self.write = write
        self.interactive = interactive
        self.book_probe = book_probe
        self.announced_end = False

    # --- showing ------------------------------------------------------------------------------
    def last_move(self) -> Optional[Square]:
        for move in reversed(self.board.move_stack):
            if move != PASS:
                return move
        return None

    def show(self) -> None:
        b = self.board
        you, eng = self.human, self.human ^ 1
        self.write("")
        self.write(render_board(b, self.style, self.last_move(),
                                show_legal=b.turn == self.human))
        self.write(f"   {COLOR_NAMES[you]} ({DISC_LETTERS[you]}, you) {b.count(you)}   "
                   f"{COLOR_NAMES[eng]} ({DISC_LETTERS[eng]}, engine) {b.count(eng)}   "
                   f"empty {b.empties}")
        if not b.is_game_over() and b.turn == self.human:
            self.write(f"Your move ({DISC_LETTERS[you]}). Legal: {self.legal_text()}")

    def legal_text(self) -> str:
        return " ".join(square_name(m, self.board.size) for m in self.board.legal_moves()) or "none"

    # --- the engine ---------------------------------------------------------------------------
    def think(self, label: str) -> SearchResult:
        """Search the current position in the background while showing that the engine thinks;
        Ctrl-C stops the search early (its best move so far is used)."""
        done = threading.Event()
        box: list[SearchResult] = []

        def on_done(result: SearchResult) -> None:
            box.append(result)
            done.set()

        started = time.monotonic()
        self.engine.start(self.board, self.limit, on_done=on_done)
        if not self.interactive:
            self.write(label)
        i = 0
        try:
            while not done.wait(0.1):
                i += 1
                if self.interactive:
                    sys.stdout.write(f"\r{label} {SPINNER[i % 4]} {time.monotonic() - started:4.1f} s")
                    sys.stdout.flush()
        except KeyboardInterrupt:
            self.engine.stop()
            done.wait()
        if self.interactive and i:
            sys.stdout.write("\r" + " " * (len(label) + 10) + "\r")
            sys.stdout.flush()
        return box[0]

    def engine_move(self) -> None:
        """The engine plays (or passes) in the current position."""
        me = f"Engine ({DISC_LETTERS[self.human ^ 1]})"
        if self.board.must_pass():
            self.board.push(PASS)
            self.write(f"{me} has no legal move and passes.")
            return
        move = self.book_probe(self.board) if self.book_probe is not None else None
        if move is not None and self.board.is_legal(move):
            self.board.push(move)
            self.write(f"{me} plays {square_name(move, self.board.size)} (from the book).")
            return
        result = self.think(f"{me} is thinking...")
        move = result.best_move
        if move is None or not self.board.is_legal(move):  # defensive: never play an illegal move
            move = self.board.legal_moves()[0]
        self.board.push(move)
        self.write(f"{me} plays {square_name(move, self.board.size)}.")

    def advance(self) -> None:
        """Let the engine move and pass for the person as long as it is not the person's turn to
        choose; announce the end of the game once."""
        while not self.board.is_game_over():
            if self.board.turn != self.human:
                self.engine_move()
            elif self.board.must_pass():
                self.board.push(PASS)
                self.write(f"You ({DISC_LETTERS[self.human]}) have no legal move and pass.")
            else:
                break
        self.show()
        if self.board.is_game_over() and not self.announced_end:
            self.announced_end = True
            self.write(final_announcement(self.board, self.human))
            self.write("Type undo, save <file>, load <file> or quit.")

    # --- commands -----------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Carry out one command line; False means quit."""
        words = line.split()
        if not words:
            return True
        cmd, rest = words[0].lower(), line.strip()[len(words[0]):].strip()
        if cmd in ("quit", "exit", "q"):
            return False
        if cmd in ("help", "?", "h"):
            self.write(HELP)
        elif cmd == "undo":
            self.undo()
        elif cmd == "hint":
            self.hint()
        elif cmd == "eval":
            self.evaluate()
        elif cmd == "board":
            self.show()
        elif cmd == "save":
            self.save(rest)
        elif cmd == "load":
            self.load(rest)
        elif len(words) == 1:
            self.play(words[0])
        else:
            self.write(f"Unknown command {line.strip()!r}; type help for the commands.")
        return True

    def play(self, text: str) -> None:
        b = self.board
        if b.is_game_over():
            self.write("The game is over. Type undo, save <file>, load <file> or quit.")
            return
        try:
            move = parse_square(text, b.size)
        except OthelloError:
            last = FILES[b.size - 1] + str(b.size)
            self.write(f"{text!r} is not a move or a command: a move is a square a1..{last} "
                       f"(type help for the commands). Legal moves: {self.legal_text()}")
            return
        if move == PASS and not b.must_pass():
            self.write(f"You cannot pass: you have a legal move. Legal moves: {self.legal_text()}")
            return
        try:
            b.push(move)
        except IllegalMoveError as exc:  # "illegal move e3: it flips no disc"
            text = str(exc)
            self.write(f"{text[:1].upper()}{text[1:]}. Legal moves: {self.legal_text()}")
            return
        self.advance()

    def undo(self) -> None:
        """Take back the person's last move and everything after it (the engine's reply, passes)."""
        trial = self.board.copy()
        while trial.move_stack:
            move = trial.pop()
            if trial.turn == self.human and move != PASS:
                self.board = trial
                self.announced_end = False
                self.write(f"Took back your move {square_name(move, self.board.size)} and what followed.")
                self.show()
                return
        self.write("Nothing to undo: you have not moved yet in this game.")

    def hint(self) -> None:
        b = self.board
        if b.is_game_over():
            self.write("The game is over.")
            return
        if b.turn != self.human:
            self.write("It is not your turn.")
            return
        result = self.think("thinking about a hint...")
        if result.best_move is None:
            self.write("No hint: the game is over.")
            return
        self.write(f"Hint: {square_name(result.best_move, self.board.size)} "
                   f"({format_score(result.score, result.exact)} for you, depth {result.depth}"
                   f"{', exact' if result.exact else ''}).")

    def evaluate(self) -> None:
        b = self.board
        if b.is_game_over():
            self.write(final_announcement(b, self.human))
            return
        result = self.think("evaluating...")
        score = result.score if b.turn == self.human else -result.score
        best = square_name(result.best_move, self.board.size) if result.best_move is not None else "none"
        self.write(f"Evaluation: {format_score(score, result.exact)} for you "
                   f"(depth {result.depth}{', exact' if result.exact else ''}; best move {best}); "
                   f"static evaluation {self.engine.evaluation(b)['total'] / 100:+.2f} "
                   f"for the side to move.")

    def save(self, name: str) -> None:
        if not name:
            self.write("save needs a file name: save <file>")
            return
        b = self.board
        you, eng = "you", "othello_engine"
        result = f"{b.disc_difference():+d}" if b.is_game_over() else ""
        text = format_ggf(b, black=you if self.human == BLACK else eng,
                          white=eng if self.human == BLACK else you, result=result,
                          date=time.strftime("%Y-%m-%d %H:%M:%S GMT", time.gmtime())) + "\n"
        try:
            atomicfile.write_text(Path(name).expanduser(), text)
        except OSError as exc:
            self.write(f"Could not save to {name!r}: {exc.strerror or exc}.")
            return
        self.write(f"Saved the game ({len(b.move_stack)} moves) to {name}.")

    def load(self, name: str) -> None:
        if not name:
            self.write("load needs a file name: load <file>")
            return
        try:
            board = load_game(name)
        except (OSError, OthelloError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self.write(f"Could not load {name!r}: {why}. The current game goes on.")
            return
        self.board = board
        self.announced_end = False
        self.write(f"Loaded {name}: {board.size}x{board.size}, {len(board.move_stack)} moves; "
                   f"you play {COLOR_NAMES[self.human]}.")
        self.advance()


def load_game(name: str) -> Board:
    """The game in a GGF file (its first game when it holds several)."""
    text = Path(name).expanduser().read_text(encoding="utf-8", errors="replace").strip()
    if "(;" in text:
        start = text.index("(;")
        end = text.find(";)", start)
        if end >= 0:
            text = text[start:end + 2]
    return parse_ggf(text).board
