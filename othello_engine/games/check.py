"""Checking games files: every game replayed under the rules, recorded results against the final
positions, and WTHOR's theoretical scores against our own exact solve (as Edax's ``-wtest``)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from othello_engine.board import PASS, BLACK, Board
from othello_engine.games.files import BadGame, Entry, Game


@dataclass
class Disagreement:
    """A game whose theoretical score is not our exact score (Black's disc differences)."""

    game: Game
    theoretical: int
    ours: int


@dataclass
class CheckReport:
    """What a check found: games played, bad ones, games whose moves stop before the end, recorded
    results that disagree with the final position, and the theoretical scores solved, agreeing or
    not, or with no position at their depth (the game is shorter)."""

    games: int = 0
    bad: list[BadGame] = field(default_factory=list)
    unfinished: int = 0
    result_mismatches: list[tuple[Game, int, int]] = field(default_factory=list)
    solved: int = 0
    agree: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)
    too_short: int = 0
    no_score: int = 0
    solve_seconds: float = 0.0
    seconds: float = 0.0

    def lines(self) -> list[str]:
        """The summary, a line each."""
        out = [f"games: {self.games} played under the rules, {len(self.bad)} bad",
               f"moves stop before the end of the game: {self.unfinished}",
               f"recorded result differs from the final position: {len(self.result_mismatches)}"]
        if self.solved or self.too_short:
            rate = f" ({100 * self.agree / self.solved:.1f}%)" if self.solved else ""
            per = f", {self.solve_seconds / self.solved:.2f} s a game" if self.solved else ""
            out.append(f"theoretical scores: {self.agree} of {self.solved} agree with our exact solve{rate}; "
                       f"{self.too_short} games end before the score's position; solving took "
                       f"{self.solve_seconds:.1f} s{per}")
        out.append(f"time: {self.seconds:.1f} s")
        return out


def score_position(game: Game) -> Optional[Board]:
    """The position of a game with ``game.depth`` empties, the side to move having a move (a pass
    there is made), or None when the game stops before it."""
    if game.depth is None:
        return None
    board = Board(game.size)
    for move in game.moves:
        if board.empties == game.depth:
            break
        board.push(move)
    if board.empties != game.depth:
        return None
    if board.must_pass():
        board.push(PASS)
    return None if board.is_game_over() else board


def check_games(entries: Iterable[Entry], solve: bool = True, limit: Optional[int] = None,
                hash_mb: int = 64, threads: Optional[int] = None,
                on_line: Optional[Callable[[str], None]] = None) -> CheckReport:
    """Check the games (the reading replays them; bad ones arrive as BadGame): at most limit games
    played, each game's recorded result against its final position, and with ``solve`` each
    theoretical score against an exact solve of the position at its depth. ``on_line`` gets a
    line for each finding as it is made."""
    report = CheckReport()
    say = on_line or (lambda text: None)
    engine = None
    start = time.monotonic()
    for entry in entries:
        if isinstance(entry, BadGame):
            report.bad.append(entry)
            say(f"bad: {entry}")
            continue
        if limit is not None and report.games >= limit:
            continue        # read on: bad records further on are still reported
        game = entry
        report.games += 1
        if game.final is None:
            report.unfinished += 1
        elif game.result is not None and game.result != game.final:
            report.result_mismatches.append((game, game.result, game.final))
            say(f"result: {game.source}: game {game.number}: recorded {game.result:+d}, the final "
                f"position gives {game.final:+d}")
        if not solve or game.theoretical is None:
            report.no_score += 1
            continue
        board = score_position(game)
        if board is None:
            report.too_short += 1
            continue
        if engine is None:
            from othello_engine.engine import Engine
            engine = Engine(hash_mb=hash_mb, threads=threads)
        from othello_engine.engine import Limit
        t = time.monotonic()
        result = engine.search(board, Limit(exact=True))
        report.solve_seconds += time.monotonic() - t
        ours = result.score // 100 * (1 if board.turn == BLACK else -1)
        report.solved += 1
        if ours == game.theoretical:
            report.agree += 1
        else:
            report.disagreements.append(Disagreement(game, game.theoretical, ours))
            say(f"theoretical: {game.source}: game {game.number}: the file says {game.theoretical:+d}, "
                f"our exact solve at {game.depth} empties {ours:+d}")
    report.seconds = time.monotonic() - start
    return report
