"""One game of the web page: the board and its history, who plays each side, evaluations and analysis.

All the rules go through :class:`~othello_engine.board.Board`; reading a pasted game goes through
:mod:`othello_engine.notation` and :mod:`othello_engine.ggf`. This module starts no process and
does no I/O: the session (:mod:`othello_engine.web.session`) feeds it moves and search results.

>>> game = WebGame.new(8, "human", "engine", movetime_ms=100)
>>> game.play_human(parse_square("f5"))
>>> game.engine_to_move()
True
>>> game.state()["status"]
'White to move'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from othello_engine.board import (BLACK, PASS, WHITE, Board, Color, IllegalMoveError, InvalidBoardError,
                                  OthelloError, Square, parse_square, square_name)
from othello_engine.engine import Limit
from othello_engine.ggf import GameRecord, format_ggf, parse_ggf_games
from othello_engine.notation import parse_moves, parse_position

COLOR_NAMES = {BLACK: "Black", WHITE: "White"}
PLAYER_KINDS = ("human", "engine")


class GameError(ValueError):
    """A request the game cannot carry out (an illegal move, nothing to undo, text that is no game)."""


@dataclass
class Strength:
    """How long the engine searches: a time per move (milliseconds) or a depth."""

    movetime_ms: Optional[int] = 1000
    depth: Optional[int] = None

    def limit(self) -> Limit:
        if self.depth is not None:
            return Limit(depth=self.depth)
        return Limit(time=(self.movetime_ms or 1000) / 1000)

    def label(self) -> str:
        """The opponent's name in the results file and in saved games."""
        if self.depth is not None:
            return f"engine depth {self.depth}"
        return f"engine {self.movetime_ms} ms"


@dataclass
class WebGame:
    """A game on the page: ``board`` holds the start position and the moves played, ``redo`` the
    moves taken back (the next one last), ``evals`` the engine's scores of positions met in play
    (ply -> discs for Black), ``analysis`` the scores of a whole-game analysis (one per position,
    ``None`` where not yet searched), ``hints`` the scores of the legal moves now (square name ->
    discs for the side to move)."""

    board: Board
    players: dict[Color, str]
    strength: Strength = field(default_factory=Strength)
    redo: list[Square] = field(default_factory=list)
    evals: dict[int, float] = field(default_factory=dict)
    analysis: list[Optional[float]] = field(default_factory=list)
    hints: dict[str, float] = field(default_factory=dict)
    hint_ply: int = -1
    paused: bool = False
    rated: bool = True
    recorded: bool = False
    version: int = 0
    notes: list[str] = field(default_factory=list)

    @classmethod
    def new(cls, size: int, black: str = "human", white: str = "engine",
            movetime_ms: Optional[int] = 1000, depth: Optional[int] = None) -> WebGame:
        """A game from the standard start of an even size 4..26."""
        try:
            board = Board(size)
        except OthelloError as exc:
            raise GameError(str(exc)) from None
        return cls(board, {BLACK: black, WHITE: white}, Strength(movetime_ms, depth))

    # --- the flow of play ---------------------------------------------------------------------
    def changed(self) -> None:
        """A new state: results of searches started before it are stale."""
        self.version += 1

    def engine_to_move(self) -> bool:
        """True when the engine should search now (its turn, not paused, game on)."""
        b = self.board
        return (not self.paused and not b.is_game_over() and self.players[b.turn] == "engine")

    def human_to_move(self) -> bool:
        b = self.board
        return not b.is_game_over() and self.players[b.turn] == "human"

    def _push(self, move: Square) -> None:
        """Play a move and the forced passes after it, announced in notes."""
        if self.redo and self.redo[-1] == move:
            self.redo.pop()
        else:
            self.redo.clear()
            self._forget_after(len(self.board.move_stack))
        self.board.push(move)
        self.hints, self.hint_ply = {}, -1
        self._pass_if_forced()
        self.changed()

    def _pass_if_forced(self) -> None:
        b = self.board
        if b.must_pass():
            self.notes.append(f"{COLOR_NAMES[b.turn]} has no legal move and passes.")
            if self.redo and self.redo[-1] == PASS:
                self.redo.pop()
            b.push(PASS)

    def _forget_after(self, ply: int) -> None:
        """A new move at ply: scores of the positions after it belonged to another line."""
        self.evals = {k: v for k, v in self.evals.items() if k <= ply}
        self.analysis = self.analysis[:ply + 1]

    def play_human(self, move: Square) -> None:
        """A person's move (a square) for the side to move."""
        b = self.board
        if b.is_game_over():
            raise GameError("the game is over")
        if self.players[b.turn] != "human":
            raise GameError(f"it is the engine's turn ({COLOR_NAMES[b.turn]})")
        if not b.is_legal(move):
            raise GameError(f"{square_name(move, b.size)} is not a legal move for "
                            f"{COLOR_NAMES[b.turn]}")
        self._push(move)
        self.paused = False

    def play_engine(self, move: Optional[Square], score: Optional[float], version: int) -> bool:
        """The engine's move for the position of ``version``; False (nothing done) if the game
        changed since the search started or the move is not legal."""
        if version != self.version or not self.engine_to_move():
            return False
        ply = len(self.board.move_stack)
        if score is not None:
            self.evals[ply] = score
        if move is None or not self.board.is_legal(move):
            return False
        self._push(move)
        return True

    def undo(self) -> None:
        """Take back moves: to the last position where a person was to move (so the engine's reply
        goes too); in a game of engines only, one move (and play pauses)."""
        b = self.board
        if not self._undoable():
            raise GameError("nothing to undo")
        humans = "human" in self.players.values()
        while b.move_stack:
            popped = b.pop()
            self.redo.append(popped)
            if popped == PASS:
                continue
            if not humans or self.players[b.turn] == "human":
                break
        self._after_jump()

    def _undoable(self) -> bool:
        stack = self.board.move_stack
        return any(m != PASS for m in stack)

    def redo_move(self) -> None:
        """Play again what undo took back: to the next position where a person is to move."""
        b = self.board
        if not self.redo:
            raise GameError("nothing to redo")
        humans = "human" in self.players.values()
        while self.redo:
            b.push(self.redo.pop())
            if self.redo and self.redo[-1] == PASS:
                continue  # the forced pass after it goes with it
            if not humans or b.is_game_over() or self.players[b.turn] == "human":
                break
        self._after_jump()

    def goto(self, ply: int) -> None:
        """Go back or forward in the game's moves (undo and redo to ply)."""
        b = self.board
        total = len(b.move_stack) + len(self.redo)
        if not 0 <= ply <= total:
            raise GameError(f"ply {ply} is outside the game (0..{total})")
        while len(b.move_stack) > ply:
            self.redo.append(b.pop())
        while len(b.move_stack) < ply:
            b.push(self.redo.pop())
        if b.must_pass() and self.redo and self.redo[-1] == PASS:
            b.push(self.redo.pop())   # a forced pass is no place to stop: nobody can move there
        self._after_jump()

    def _after_jump(self) -> None:
        self.hints, self.hint_ply = {}, -1
        self.paused = self.players[self.board.turn] == "engine" and not self.board.is_game_over()
        self.changed()

    def resume(self) -> None:
        """Let the engine play again after a pause (or pause it)."""
        self.paused = not self.paused
        self.changed()

    def set_players(self, black: str, white: str, strength: Strength) -> None:
        """New settings mid-game; the game no longer counts in the results file."""
        if {BLACK: black, WHITE: white} != self.players or strength != self.strength:
            self.rated = False
        self.players = {BLACK: black, WHITE: white}
        self.strength = strength
        self.paused = False
        self.changed()

    # --- scores ---------------------------------------------------------------------------------
    def set_hints(self, scores: dict[str, float], version: int) -> bool:
        """The MultiPV scores of the legal moves of the position of ``version``."""
        if version != self.version:
            return False
        self.hints, self.hint_ply = dict(scores), len(self.board.move_stack)
        if scores:
            best = max(scores.values())
            ply = len(self.board.move_stack)
            self.evals[ply] = best if self.board.turn == BLACK else -best
        return True

    def analysis_targets(self) -> list[tuple[int, Board]]:
        """The positions of the game (to its last move, redo included) still to analyse, as
        (ply, board); the final and forced-pass positions are scored here without a search."""
        line = self.board.replay()
        moves = list(self.board.move_stack) + list(reversed(self.redo))
        if len(self.analysis) != len(moves) + 1:
            self.analysis = (self.analysis + [None] * (len(moves) + 1))[:len(moves) + 1]
        boards = [line.copy()]
        for m in moves:
            line.push(m)
            boards.append(line.copy())
        targets = []
        for ply, b in enumerate(boards):
            if self.analysis[ply] is not None:
                continue
            if b.is_game_over():
                self.analysis[ply] = float(b.disc_difference())
            elif not b.must_pass():
                targets.append((ply, b))
        return targets

    def set_analysis(self, ply: int, score_black: float) -> None:
        if 0 <= ply < len(self.analysis):
            self.analysis[ply] = score_black
            self._fill_passes()

    def _fill_passes(self) -> None:
        # a forced pass changes nothing: its position scores as the one after it
        moves = list(self.board.move_stack) + list(reversed(self.redo))
        for ply in range(len(moves) - 1, -1, -1):
            if moves[ply] == PASS and ply + 1 < len(self.analysis) and self.analysis[ply] is None:
                self.analysis[ply] = self.analysis[ply + 1]

    def disc_losses(self) -> list[Optional[float]]:
        """Per move of the game: the discs the mover lost against the best move, by the analysis
        (None where either position is not analysed; 0 for a pass)."""
        moves = list(self.board.move_stack) + list(reversed(self.redo))
        start = self.board.replay().turn
        out: list[Optional[float]] = []
        for ply, m in enumerate(moves):
            before = self.analysis[ply] if ply < len(self.analysis) else None
            after = self.analysis[ply + 1] if ply + 1 < len(self.analysis) else None
            if m == PASS:
                out.append(0.0)
                continue
            if before is None or after is None:
                out.append(None)
                continue
            mover = start ^ (ply & 1)
            loss = (before - after) if mover == BLACK else (after - before)
            out.append(round(max(0.0, loss), 1))
        return out

    # --- files ------------------------------------------------------------------------------------
    def ggf(self, names: tuple[str, str] = ("", ""), date: str = "") -> str:
        """The game (the moves played, not those taken back) as one GGF record."""
        b = self.board
        result = ""
        if b.is_game_over():
            result = f"{b.disc_difference():+d}"
        return format_ggf(b, names[0] or self._name(BLACK), names[1] or self._name(WHITE), result,
                          place="othello_engine web", date=date)

    def _name(self, color: Color) -> str:
        return "human" if self.players[color] == "human" else self.strength.label()

    def load_text(self, text: str, size: int) -> None:
        """Load a pasted or uploaded game: GGF (its first game), a FEN, a board string with the
        side to move, or a move list (played from the standard start of ``size``, or of 8x8)."""
        board = read_game_text(text, size)
        self.board = board
        self.redo, self.evals, self.analysis = [], {}, []
        self.hints, self.hint_ply = {}, -1
        self.rated = False
        self.recorded = False
        self._pass_if_forced()
        self._after_jump()

    def set_position(self, cells: str, turn: str) -> None:
        """The board editor's position: cells row by row from a1 (``X`` black, ``O`` white, ``-``)."""
        try:
            board = Board.from_cells(cells, turn)
        except OthelloError as exc:
            raise GameError(str(exc)) from None
        self.board = board
        self.redo, self.evals, self.analysis = [], {}, []
        self.hints, self.hint_ply = {}, -1
        self.rated, self.recorded = False, False
        self._pass_if_forced()
        self._after_jump()

    # --- what the page shows ------------------------------------------------------------------
    def status(self) -> str:
        """``Black to move``, ``White to move`` or ``Game over: <result>``."""
        b = self.board
        if b.is_game_over():
            return "Game over: " + result_text(b)
        return f"{COLOR_NAMES[b.turn]} to move"

    def outcome_for(self, color: Color) -> str:
        """``win``, ``loss`` or ``draw`` for color in a finished game."""
        d = self.board.disc_difference()
        if d == 0:
            return "draw"
        return "win" if (d > 0) == (color == BLACK) else "loss"

    def state(self) -> dict[str, Any]:
        """Everything the page draws, as JSON-ready values."""
        b = self.board
        size = b.size
        moves = list(b.move_stack)
        future = list(reversed(self.redo))
        last = next((m for m in reversed(moves) if m != PASS), None)
        losses = self.disc_losses()
        history = []
        for ply, m in enumerate(moves + future):
            history.append({"ply": ply, "move": square_name(m, size),
                            "played": ply < len(moves),
                            "loss": losses[ply] if ply < len(losses) else None})
        total = len(moves) + len(future)
        return {
            "type": "state",
            "version": self.version,
            "size": size,
            "cells": b.cells(),
            "turn": "black" if b.turn == BLACK else "white",
            "legal": [square_name(m, size) for m in b.legal_moves()],
            "last": square_name(last, size) if last is not None else None,
            "count": {"black": b.count(BLACK), "white": b.count(WHITE)},
            "status": self.status(),
            "over": b.is_game_over(),
            "players": {"black": self.players[BLACK], "white": self.players[WHITE]},
            "movetime": self.strength.movetime_ms,
            "depth": self.strength.depth,
            "paused": self.paused,
            "ply": len(moves),
            "history": history,
            "can_undo": self._undoable(),
            "can_redo": bool(self.redo),
            "evals": [self.evals.get(p) for p in range(total + 1)],
            "analysis": [self.analysis[p] if p < len(self.analysis) else None
                         for p in range(total + 1)] if self.analysis else [],
            "hints": self.hints if self.hint_ply == len(moves) else {},
            "fen": b.fen(),
            "notes": list(self.notes),
        }


def result_text(board: Board) -> str:
    """``Black wins 36-28``, ``White wins 40-24``, ``Draw 32-32`` (empties go to the winner)."""
    b, w = board.count(BLACK), board.count(WHITE)
    d = board.disc_difference()
    empties = board.size * board.size - b - w
    if d > 0:
        return f"Black wins {b + empties}-{w}"
    if d < 0:
        return f"White wins {w + empties}-{b}"
    return f"Draw {b}-{w}"


def read_game_text(text: str, size: int = 8) -> Board:
    """A game or position from text: GGF (the first game of the text), a FEN, a board string with
    the side to move, or a move list from the standard start of ``size``. GameError says why
    none of them fits.

    >>> read_game_text("f5d6c3", 8).move_stack
    [37, 43, 18]
    >>> read_game_text("8/8/8/3ox3/3xo3/8/8/8 o").turn
    1
    """
    text = text.strip()
    if not text:
        raise GameError("nothing to load: paste a GGF record, a move list, a FEN or a board string")
    try:
        if text.startswith("(;"):
            games = parse_ggf_games(text)
            if not games:
                raise GameError("no GGF game in the text")
            return games[0].board
        if "/" in text or (len(text.split()) == 2 and len(text.split()[0]) >= 16):
            return parse_position(text)
        try:
            return parse_moves(text, size)
        except OthelloError as first:
            if size != 8:
                try:
                    return parse_moves(text, 8)
                except OthelloError:
                    pass
            raise first
    except GameError:
        raise
    except OthelloError as exc:
        raise GameError(str(exc)) from None


def game_summary(record: GameRecord) -> dict[str, Any]:
    """A saved game as the list shows it: size, players, result, number of moves."""
    b = record.board
    return {"size": b.size, "black": record.black, "white": record.white,
            "result": record.result, "moves": len(b.move_stack)}


__all__ = ["WebGame", "GameError", "Strength", "read_game_text", "result_text", "game_summary",
           "PLAYER_KINDS", "COLOR_NAMES", "InvalidBoardError", "IllegalMoveError", "parse_square"]
