"""Finished games as GGF records: the GameResult value, its one GGF line, and reading them back.

Every game the match records is written by :func:`game_ggf` through :func:`othello_engine.ggf.format_ggf`
(so a forfeit reason holding ``]``, ``\\`` or any other text parses back as it was), and read back
for ``--resume`` by :func:`read_finished_games`.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Optional

from othello_engine.board import BLACK, WHITE, Board, OthelloError
from othello_engine.ggf import GameRecord, format_ggf, parse_ggf
from othello_engine.match.config import Job, MatchConfig, MatchError
from othello_engine.resumable import whole_lines

_LINE_BREAKS = re.compile("[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
"""What ``str.splitlines`` splits at."""
FORFEITS_ON_TIME = ("time", "hang")
"""Faults that lose on time (GGF result ``:t``); every other fault loses by resignation (``:r``)."""


@dataclass(frozen=True)
class GameResult:
    """One refereed game. ``winner`` is BLACK, WHITE or None (draw); ``discs`` black's final disc
    difference (None when the game was forfeited); ``termination`` is ``normal`` or the fault
    (``illegal``, ``unparsable``, ``crash``, ``hang``, ``time``, ``protocol``, ``start``) of
    ``culprit``, explained in ``reason``."""

    number: int
    black: str
    white: str
    opening: str
    winner: Optional[int]
    discs: Optional[int]
    termination: str
    reason: str
    culprit: Optional[str]
    moves: int
    ggf: str

    @property
    def result_text(self) -> str:
        return {BLACK: "1-0", WHITE: "0-1", None: "1/2-1/2"}[self.winner]

    def score_for(self, name: str) -> float:
        """1, 1/2 or 0 for the engine called name."""
        if self.winner is None:
            return 0.5
        return 1.0 if (self.black if self.winner == BLACK else self.white) == name else 0.0


def game_ggf(board: Board, black: str, white: str, evals: list[Optional[float]],
             times: list[Optional[float]], time_control: str, fault: str = "", reason: str = "",
             culprit: Optional[int] = None) -> str:
    """The GGF line of a refereed game: board holds its start and moves; ``fault`` and ``reason``
    (the comment ``C[fault: reason]``) say how a forfeited or aborted game ended, and ``culprit``
    (a colour) who lost it. A finished game's result is black's disc difference.

    >>> b = Board(); _ = b.push_str('f5')
    >>> line = game_ggf(b, 'a', 'b', [None], [0.5], '', 'crash', 'stderr: boom ] \\\\', BLACK)
    >>> rec = parse_ggf(line)
    >>> rec.result, rec.tags['C']
    ('-64.00:r', 'crash: stderr: boom ] \\\\')
    """
    if fault and culprit is not None:
        # a forfeit scores every square of the board to the winner (64 up to 8x8, as GGF servers do)
        whole = max(64, board.size * board.size)
        result = (("+" if culprit == WHITE else "-") + f"{whole}.00:"
                  + ("t" if fault in FORFEITS_ON_TIME else "r"))
    elif fault:  # aborted
        result = ""
    else:
        discs = board.disc_difference()
        result = f"{discs:+d}.00" if discs else "0.00"
    # the comment carries engine output (a stderr tail), which may hold any character
    return format_ggf(board, black=black, white=white, result=result, evals=evals, times=times,
                      place="othello-match", date=time.strftime("%Y.%m.%d_%H:%M:%S", time.gmtime()),
                      time_control=_one_line(time_control),
                      comment=_one_line(f"{fault}: {reason}") if fault else "")


def _one_line(text: str) -> str:
    """text with every line break made a space: the match file holds one game per line, and its
    readers (``str.splitlines``, text-mode files) split at any of them, not only at ``\\n``.

    >>> _one_line('a\\rb\\u2028c\\x85d\\n')
    'a b c d '
    """
    return _LINE_BREAKS.sub(" ", text)


# --- resuming -------------------------------------------------------------------------------------

def ends_record(line: bytes) -> bool:
    """Whether a last line without its newline is a whole GGF record all the same."""
    return line.strip().endswith(b";)")


def begins_record(text: bytes) -> bool:
    """Whether the text of a GGF file with no whole line could begin a record (one cut short by
    a kill), as against a file of something else.

    >>> begins_record(b"(;GM[Othello]PC[othello-m"), begins_record(b"my notes")
    (True, False)
    """
    return text.lstrip()[:2] == b"(;"[:len(text.lstrip()[:2])]


def read_finished_games(config: MatchConfig, path: str) -> list[GameResult]:
    """The games of an earlier run of this match in the GGF file at path, given back their game
    numbers. A last line cut short by a kill is not a game (the caller settles the file,
    :func:`othello_engine.resumable.settle` with :func:`ends_record`, before it appends, and the
    game is played again). A record gets the first game number of the schedule with its players,
    colours and opening not taken yet (such games are interchangeable). MatchError for a record
    that is unreadable or not in this match, or a file that cannot be read."""
    free: dict[tuple[str, str], list[Job]] = {}
    for job in config.schedule():
        free.setdefault((config.engines[job[1]].name, config.engines[job[2]].name), []).append(job)
    games: list[GameResult] = []
    try:
        text = [raw.decode("utf-8", errors="replace") for raw in whole_lines(path, ends_record)]
    except OSError as exc:
        raise MatchError(f"cannot resume from {path!r}: {exc.strerror or exc}") from None
    for n, raw in enumerate((line for chunk in text for line in chunk.splitlines()), 1):
        if not raw.strip():
            continue
        try:
            rec = parse_ggf(raw)
        except OthelloError as exc:
            raise MatchError(f"cannot resume from {path!r}: line {n}: {exc}") from None
        start, moves = rec.board.replay().fen(), rec.board.move_stack
        matches = [job for job in free.get((rec.black, rec.white), [])
                   if job[3].board.replay().fen() == start
                   and moves[:len(job[3].board.move_stack)] == job[3].board.move_stack]
        if not matches:
            raise MatchError(f"cannot resume from {path!r}: line {n} ({rec.black} vs {rec.white}) is "
                             f"not a game of this match (other engines, names or openings?)")
        job = max(matches, key=lambda j: (len(j[3].board.move_stack), -j[0]))
        free[(rec.black, rec.white)].remove(job)
        games.append(_game_of_record(job, rec, raw))
    return games


def _game_of_record(job: Job, rec: GameRecord, ggf: str) -> GameResult:
    """The GameResult a GGF record of play_game stands for."""
    number, _, _, opening = job
    board = rec.board
    moves = len(board.move_stack) - len(opening.board.move_stack)
    kind, _, reason = rec.tags.get("C", "").partition(": ")
    winner: Optional[int]
    if rec.result.endswith((":t", ":r")) and kind:
        winner = BLACK if rec.result.startswith("+") else WHITE
        culprit = rec.white if winner == BLACK else rec.black
        return GameResult(number, rec.black, rec.white, opening.text, winner, None, kind, reason,
                          culprit, moves, ggf)
    discs = board.disc_difference()
    winner = BLACK if discs > 0 else WHITE if discs < 0 else None
    return GameResult(number, rec.black, rec.white, opening.text, winner, discs, "normal", "", None,
                      moves, ggf)
