"""The match runner: engine-vs-engine games refereed by the rules of Othello, with statistics.

The referee owns the board. It asks each engine for a move, measures the time itself, and judges
the answer: an unparsable or illegal move, a crash, a hang past the limit plus a margin, or a loss
on time loses the game for that engine, with the reason recorded; the engine is restarted for its
next game and the match goes on. Forced passes are played by the referee (the engine sees them in
the move list of its next position). Every game can be written as GGF, every result summed up per
pairing (W-L-D, Elo with its 95% margin, LOS, draw ratio, mean disc difference, optional SPRT).

Modules, in the order data flows: :mod:`~othello_engine.match.stats` (Elo, LOS, SPRT as pure
functions), :mod:`~othello_engine.match.config` (engines, time controls, the match),
:mod:`~othello_engine.match.openings`, :mod:`~othello_engine.match.settings` (a match from
plain settings: :func:`config_from_settings`), :mod:`~othello_engine.match.records` (a game as GGF
and back), :mod:`~othello_engine.match.referee` (one game), :mod:`~othello_engine.match.report`,
:mod:`~othello_engine.match.runner` (the whole match), :mod:`~othello_engine.match.remote` (the
same on a Ray cluster). ``othello-match`` / ``othello-engine match`` is the command line over it
(:mod:`othello_engine.cli.match`, ``--help``).
"""

from othello_engine.match.config import (Job, MatchConfig, MatchError, Opening, parse_engine,
                                         parse_time_control)
from othello_engine.match.openings import SkippedLine, load_openings, parse_opening_line, start_openings
from othello_engine.match.records import (GameResult, begins_record, ends_record, game_ggf,
                                          read_finished_games)
from othello_engine.match.referee import Fault, play_game, play_job, referee_limits, start_player
from othello_engine.match.report import MatchResult, PairingStats, format_report, game_line
from othello_engine.match.runner import run_match
from othello_engine.match.settings import config_from_settings

__all__ = ["Fault", "GameResult", "Job", "MatchConfig", "MatchError", "MatchResult", "Opening",
           "PairingStats", "SkippedLine", "begins_record", "config_from_settings", "ends_record",
           "format_report", "game_ggf",
           "game_line", "load_openings", "parse_engine", "parse_opening_line", "parse_time_control",
           "play_game", "play_job", "read_finished_games", "referee_limits", "run_match",
           "start_openings", "start_player"]
