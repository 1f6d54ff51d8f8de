"""Games files as data: reading and writing every format (WTHOR, GGF, move lists), their statistics
and filters, and checking them.

``files`` reads any games file as :class:`Game` values (:class:`BadGame` in the place of a bad one)
and writes them, ``stats`` counts and filters them, ``check`` replays them and compares WTHOR's
theoretical scores with an exact solve. The ``othello-games`` command is
:mod:`othello_engine.cli.games`.
"""

from othello_engine.games.check import CheckReport, Disagreement, check_games, score_position
from othello_engine.games.files import (FORMATS, BadGame, Entry, Game, format_for, game_line, opening_text,
                                        read_games, text_games, write_text, write_wthor)
from othello_engine.games.stats import GameFilter, GameStats, game_stats, parse_years

__all__ = ["FORMATS", "BadGame", "CheckReport", "Disagreement", "Entry", "Game", "GameFilter", "GameStats",
           "check_games", "format_for", "game_line", "game_stats", "opening_text", "parse_years", "read_games",
           "score_position", "text_games", "write_text", "write_wthor"]
