"""The referee: one game between two engine players, judged by the rules and the clock.

The referee owns the board. It asks each engine for a move, measures the time itself, and judges
the answer: an unparsable or illegal move, a crash, a hang past the limit plus a margin, or a loss
on time loses the game for that engine, with the reason recorded. Forced passes are played by the
referee (the engine sees them in the move list of its next position). :func:`play_job` plays one
scheduled game with an engine slot's players, restarting the ones that died, locally (a thread)
or on a cluster (an actor of :mod:`othello_engine.match.remote`).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Optional

from othello_engine.board import BLACK, PASS, WHITE, OthelloError, parse_square, square_name
from othello_engine.client import (DriverError, EngineFailure, EngineSpec, EngineStartError, EngineTimeout,
                                   MoveRequest, Player, TimeControl, make_player)
from othello_engine.match.config import Job, MatchConfig, MatchError, Opening
from othello_engine.match.records import GameResult, game_ggf


@dataclass(frozen=True)
class Fault:
    """Why a game ended before its end: the kind of fault (see :class:`GameResult`) and the text."""

    kind: str
    reason: str


def referee_limits(tc: TimeControl, clock: Optional[float], margin: float,
                   move_timeout: float) -> tuple[Optional[float], float]:
    """(the time this move may take before it loses, when the referee stops waiting), seconds,
    from the mover's time control and remaining clock."""
    limits = []
    if clock is not None:
        limits.append(clock)
    if tc.movetime is not None:
        limits.append(tc.movetime)
    allowed = min(limits) + margin if limits else None
    wait = allowed if allowed is not None else move_timeout
    return allowed, wait


def play_game(number: int, black: Player, white: Player, opening: Opening, margin: float = 0.5,
              move_timeout: float = 60.0, grace: float = 1.0,
              stop: Optional[threading.Event] = None) -> GameResult:
    """Referee one game between two started players; never raises for engine faults."""
    board = opening.board.copy()
    players = {BLACK: black, WHITE: white}
    n_open = len(board.move_stack)
    evals: list[Optional[float]] = [None] * n_open
    times: list[Optional[float]] = [None] * n_open
    clocks: dict[int, Optional[float]] = {c: players[c].spec.tc.base for c in (BLACK, WHITE)}
    fault: Optional[Fault] = None
    culprit_color: Optional[int] = None
    for color in (BLACK, WHITE):
        try:
            players[color].new_game(board, time.monotonic() + 10.0)
        except EngineFailure as exc:
            fault, culprit_color = Fault("start" if isinstance(exc, EngineStartError) else exc.kind,
                                         f"new game: {exc.message}"), color
            break
    while fault is None and not board.is_game_over():
        if stop is not None and stop.is_set():
            fault = Fault("aborted", "match stopped")
            break
        if board.must_pass():
            board.push(PASS)
            evals.append(None)
            times.append(None)
            continue
        color = board.turn
        player = players[color]
        tc = player.spec.tc
        allowed, wait = referee_limits(tc, clocks[color], margin, move_timeout)
        request = MoveRequest(tc, clocks[BLACK], clocks[WHITE])
        try:
            player.send_go(board, request)
        except EngineFailure as exc:
            fault, culprit_color = Fault(_kind(exc), exc.message), color
            break
        t0 = time.monotonic()
        try:
            reply = player.read_move(t0 + wait)
        except EngineTimeout:
            player.stop()
            try:
                reply = player.read_move(time.monotonic() + grace)
            except EngineFailure:
                fault = Fault("hang", f"no move within {wait:.2f} s (nor {grace:g} s after stop)")
                culprit_color = color
                break
        except EngineFailure as exc:
            fault, culprit_color = Fault(_kind(exc), exc.message), color
            break
        # the move's time ends when its line arrived, however long reading the lines before it took
        elapsed = max(0.0, (time.monotonic() if reply.arrived is None else reply.arrived) - t0)
        if allowed is not None and elapsed > allowed:
            what = "clock" if clocks[color] is not None and (tc.movetime is None or clocks[color] <= tc.movetime) \
                else "movetime"
            fault = Fault("time", f"move took {elapsed:.3f} s; {what} allowed {allowed - margin:.3f} s "
                                  f"(+{margin:g} s margin)")
            culprit_color = color
            break
        if clocks[color] is not None:
            clocks[color] = clocks[color] - elapsed + tc.inc  # type: ignore[operator]
        try:
            move = parse_square(reply.move, board.size)
        except OthelloError:
            fault, culprit_color = Fault("unparsable", f"unparsable move {reply.move!r}"), color
            break
        if not board.is_legal(move):
            legal = " ".join(square_name(m, board.size) for m in board.legal_moves()) or "pass"
            fault = Fault("illegal", f"illegal move {reply.move!r} in {board.fen()!r} (legal: {legal})")
            culprit_color = color
            break
        board.push(move)
        evals.append(reply.score)
        times.append(elapsed)
    if fault is not None and culprit_color is not None:
        winner: Optional[int] = culprit_color ^ 1
        discs = None
        culprit: Optional[str] = players[culprit_color].name
    elif fault is not None:  # aborted
        winner, discs, culprit = None, None, None
    else:
        discs = board.disc_difference()
        winner = BLACK if discs > 0 else WHITE if discs < 0 else None
        culprit = None
    ti = "; ".join(f"{players[c].name}: {players[c].spec.tc}" for c in (BLACK, WHITE))
    ggf = game_ggf(board, black.name, white.name, evals, times, ti, fault.kind if fault else "",
                   fault.reason if fault else "", culprit_color)
    return GameResult(number=number, black=black.name, white=white.name, opening=opening.text,
                      winner=winner, discs=discs, termination=fault.kind if fault else "normal",
                      reason=fault.reason if fault else "", culprit=culprit,
                      moves=len(board.move_stack) - n_open, ggf=ggf)


def _kind(exc: EngineFailure) -> str:
    return "hang" if isinstance(exc, EngineTimeout) else exc.kind


# --- a scheduled game ----------------------------------------------------------------------------

def start_player(spec: EngineSpec, timeout: float) -> Player:
    """A started player, or EngineStartError / DriverError naming the engine."""
    spec.check_command()
    player = make_player(spec)
    player.start(timeout)
    return player


def start_first(spec: EngineSpec, config: MatchConfig) -> Player:
    """An engine's first start in a match: :func:`start_player`, then MatchError if the engine
    says its evaluation is unavailable (it would play the whole match on a fallback) unless the
    match allows that."""
    player = start_player(spec, config.handshake_timeout)
    if player.evaluation_problem and not config.allow_eval_fallback:
        player.close()
        raise MatchError(f"engine {spec.name!r} says: {player.evaluation_problem} "
                         "(--allow-eval-fallback plays on with it)")
    return player


def play_job(config: MatchConfig, pool: dict[str, Player], job: Job,
             stop: Optional[threading.Event] = None) -> GameResult:
    """Play one scheduled game with the players of pool (engine name -> player), starting or
    restarting the ones that are missing or dead; the culprit of a forfeit is closed and dropped,
    so its next game gets a new process. A player that cannot start loses the game by ``start``.
    This is one engine slot's work, locally (a thread) or on a cluster (an actor)."""
    number, bi, wi, opening = job
    specs = (config.engines[bi], config.engines[wi])
    players: list[Optional[Player]] = []
    failed: Optional[tuple[str, str]] = None
    for spec in specs:
        p = pool.get(spec.name)
        if p is None or not p.alive:
            if p is not None:
                p.close()
            try:
                p = start_player(spec, config.handshake_timeout)
            except (EngineFailure, DriverError) as exc:
                failed = failed or (spec.name, f"restart failed: {exc}")
                p = None
            if p is not None:
                pool[spec.name] = p
        players.append(p)
    if failed is not None or players[0] is None or players[1] is None:
        culprit, reason = failed or ("", "")
        winner = WHITE if culprit == specs[0].name else BLACK
        return GameResult(number, specs[0].name, specs[1].name, opening.text, winner, None,
                          "start", reason, culprit, 0, "")
    game = play_game(number, players[0], players[1], opening, config.margin,
                     config.move_timeout, stop=stop)
    if game.culprit is not None:  # restart it for its next game
        bad = pool.pop(game.culprit, None)
        if bad is not None:
            bad.close()
    return game

