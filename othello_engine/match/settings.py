"""A match from plain settings (engines as ``key=value`` lists, openings file, SPRT text): what
``othello-match``'s arguments amount to, for the command line, tests and scripts alike."""

from __future__ import annotations

from typing import Optional, Sequence

from othello_engine.match.config import MatchConfig, MatchError, parse_engine
from othello_engine.match.openings import DEFAULT_OPENING_PLIES, SkippedLine, load_openings
from othello_engine.match.stats import SprtParams, StatsError

TIME_CONTROL_KEYS = ("tc", "movetime", "depth", "nodes")


def config_from_settings(engines: Sequence[Sequence[str]], *, each: Sequence[str] = (), games: int = 2,
                         size: int = 8, openings: Optional[str] = None, concurrency: int = 1,
                         gauntlet: bool = False, sprt: Optional[str] = None, margin: float = 0.5,
                         move_timeout: float = 60.0, handshake_timeout: float = 10.0,
                         allow_eval_fallback: bool = False,
                         opening_plies: int = DEFAULT_OPENING_PLIES) -> tuple[MatchConfig, list[SkippedLine]]:
    """The match of these settings, and the opening lines it skipped; MatchError (DriverError
    for an engine that cannot be driven) on bad input, named as ``othello-match`` names it.

    ``engines``: each engine's ``key=value`` settings (see :func:`parse_engine`); ``each``:
    settings for every engine, an engine's own winning (its own time control replaces every
    time-control setting of ``each``); ``openings``: a file (None: the shipped set, or on another
    size the positions 4 plies from the start; a WTHOR database: the first ``opening_plies`` moves
    of its games, each position once up to symmetry); ``sprt``: ``elo0=0 elo1=10 [alpha=.. beta=..]``.
    The keywords are ``othello-match``'s options of the same names.

    >>> config, skipped = config_from_settings([['cmd=othello-engine', 'name=a', 'depth=1'],
    ...                                         ['cmd=othello-engine', 'name=b']], games=4)
    >>> [(e.name, e.tc.depth) for e in config.engines], len(config.schedule()), skipped
    ([('a', 1), ('b', 4)], 4, [])
    """
    if len(engines) < 2:
        raise MatchError(f"a match needs at least two --engine, got {len(engines)}")
    specs = []
    for k, settings in enumerate(engines, 1):
        own_keys = {s.partition("=")[0] for s in settings}
        own_tc = own_keys & set(TIME_CONTROL_KEYS)
        common = [s for s in each if s.partition("=")[0] not in own_keys
                  and not (own_tc and s.partition("=")[0] in TIME_CONTROL_KEYS)]
        specs.append(parse_engine(common + list(settings), k))
    opening_list, skipped = load_openings(openings, size, opening_plies)
    sprt_params = None
    if sprt:
        try:
            sprt_params = SprtParams.parse(sprt)
        except StatsError as exc:
            raise MatchError(str(exc)) from None
    for flag, value in (("--margin", margin), ("--move-timeout", move_timeout),
                        ("--handshake-timeout", handshake_timeout)):
        if not value >= 0:
            raise MatchError(f"{flag} = {value}: must be >= 0")
    config = MatchConfig(engines=tuple(specs), openings=tuple(opening_list), games=games,
                         concurrency=concurrency, gauntlet=gauntlet, margin=margin,
                         move_timeout=move_timeout, handshake_timeout=handshake_timeout,
                         sprt=sprt_params, allow_eval_fallback=allow_eval_fallback)
    return config, skipped
