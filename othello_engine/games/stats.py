"""What a collection of games holds (players, tournaments, years, results, openings) and which of
its games match a filter."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Optional

from othello_engine.board import Board, OthelloError, canonical
from othello_engine.games.files import Game, opening_text
from othello_engine.notation import parse_moves


@dataclass
class GameStats:
    """Counts over games: how many, bad ones, names, years, results (Black's view), openings."""

    games: int = 0
    bad: int = 0
    players: Counter = field(default_factory=Counter)
    tournaments: Counter = field(default_factory=Counter)
    years: Counter = field(default_factory=Counter)
    black_wins: int = 0
    white_wins: int = 0
    draws: int = 0
    no_result: int = 0
    unfinished: int = 0
    result_sum: int = 0
    openings: Counter = field(default_factory=Counter)
    opening_plies: int = 6

    def add(self, game: Game, opening_plies: int) -> None:
        self.games += 1
        for name in (game.black, game.white):
            if name:
                self.players[name] += 1
        if game.tournament:
            self.tournaments[game.tournament] += 1
        if game.year is not None:
            self.years[game.year] += 1
        result = game.result if game.result is not None else game.final
        if result is None:
            self.no_result += 1
        else:
            self.result_sum += result
            if result > 0:
                self.black_wins += 1
            elif result < 0:
                self.white_wins += 1
            else:
                self.draws += 1
        if game.final is None:
            self.unfinished += 1
        opening = opening_text(game, opening_plies)
        if opening is not None:
            self.openings[opening] += 1

    def lines(self, top: int = 10) -> list[str]:
        """The report, a line each."""
        decided = self.black_wins + self.white_wins + self.draws
        out = [f"games: {self.games}" + (f" ({self.bad} bad, not counted)" if self.bad else ""),
               f"players: {len(self.players)}", f"tournaments: {len(self.tournaments)}"]
        if self.years:
            first, last = min(self.years), max(self.years)
            out.append(f"years: {first}..{last} ({len(self.years)} with games)" if first != last
                       else f"years: {first}")
        if decided:
            out.append(f"results: black wins {self.black_wins} ({100 * self.black_wins / decided:.1f}%), "
                       f"white wins {self.white_wins} ({100 * self.white_wins / decided:.1f}%), "
                       f"draws {self.draws} ({100 * self.draws / decided:.1f}%); mean black disc "
                       f"difference {self.result_sum / decided:+.2f}")
        if self.no_result:
            out.append(f"games with no result: {self.no_result}")
        out.append(f"games whose moves stop before the end: {self.unfinished}")
        if self.players:
            out.append("most games: " + ", ".join(f"{n} {c}" for n, c in self.players.most_common(min(top, 5))))
        if self.openings:
            out.append(f"most frequent openings ({self.opening_plies} plies):")
            width = len(str(self.openings.most_common(1)[0][1]))
            out += [f"  {count:>{width}}  {text}" for text, count in self.openings.most_common(top)]
        return out


def game_stats(games: Iterable[Game], opening_plies: int = 6) -> GameStats:
    """The counts over games (opening: the first opening_plies moves, as played)."""
    stats = GameStats(opening_plies=opening_plies)
    for game in games:
        stats.add(game, opening_plies)
    return stats


@dataclass(frozen=True)
class GameFilter:
    """Which games to keep: a name part of either player (``player``), of black or white, of the
    tournament (case ignored); years first..last; an opening (a move list) reached by the game's
    first moves up to symmetry. Every condition given must hold."""

    player: Optional[str] = None
    black: Optional[str] = None
    white: Optional[str] = None
    tournament: Optional[str] = None
    years: Optional[tuple[int, int]] = None
    opening: Optional[str] = None

    def matcher(self):
        """A function game -> bool (the opening is read once: OthelloError if it cannot be)."""
        target = None
        plies = 0
        if self.opening:
            board = parse_moves(self.opening)
            plies = len(board.move_stack)
            target = canonical(board.player, board.opponent, board.size)[:2], board.size

        def part(text: Optional[str], name: str) -> bool:
            return text is None or text.casefold() in name.casefold()

        def keep(game: Game) -> bool:
            if not (part(self.black, game.black) and part(self.white, game.white)
                    and part(self.tournament, game.tournament)):
                return False
            if self.player is not None and not (part(self.player, game.black) or part(self.player, game.white)):
                return False
            if self.years is not None and (game.year is None or not self.years[0] <= game.year <= self.years[1]):
                return False
            if target is not None:
                if game.size != target[1] or len(game.moves) < plies:
                    return False
                board = Board(game.size)
                for move in game.moves[:plies]:
                    board.push(move)
                if canonical(board.player, board.opponent, board.size)[:2] != target[0]:
                    return False
            return True
        return keep


def parse_years(text: str) -> tuple[int, int]:
    """``1990`` or ``1990-1999``; OthelloError otherwise.

    >>> parse_years('1990'), parse_years('1990-1995')
    ((1990, 1990), (1990, 1995))
    """
    first, _, last = text.partition("-")
    if not first.strip().isdigit() or not (last or first).strip().isdigit():
        raise OthelloError(f"bad years {text!r}: expected YEAR or FIRST-LAST")
    a, b = int(first), int(last or first)
    if a > b:
        raise OthelloError(f"bad years {text!r}: the first is after the last")
    return a, b


__all__ = ["GameFilter", "GameStats", "game_stats", "parse_years"]
