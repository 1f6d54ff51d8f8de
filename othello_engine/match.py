"""The match runner: engine-vs-engine games refereed by the rules of Othello, with statistics.

The referee owns the board. It asks each engine for a move, measures the time itself, and judges
the answer: an unparsable or illegal move, a crash, a hang past the limit plus a margin, or a loss
on time loses the game for that engine, with the reason recorded; the engine is restarted for its
next game and the match goes on. Forced passes are played by the referee (the engine sees them in
the move list of its next position). Every game can be written as GGF, every result summed up per
pairing (W-L-D, Elo with its 95% margin, LOS, draw ratio, mean disc difference, optional SPRT).

API: :func:`parse_engine`, :func:`load_openings`, :class:`MatchConfig`, :func:`run_match`;
``othello-match`` / ``othello-engine match`` is the command line over it (``--help``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import queue
import shlex
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from importlib import resources
from typing import Callable, Iterable, Optional, TextIO

from othello_engine import matchstats
from othello_engine.board import (BLACK, MAX_SIZE, MIN_SIZE, PASS, WHITE, Board, OthelloError, canonical,
                                  clip_text, parse_square, square_name)
from othello_engine.ggf import GameRecord, format_ggf, parse_ggf
from othello_engine.notation import MoveListError, play_moves
from othello_engine.client import (PROTOCOLS, DriverError, EngineFailure, EngineSpec,
                                   EngineStartError, EngineTimeout, MoveRequest, Player, TimeControl,
                                   make_player)
from othello_engine.textnum import ascii_float, float_arg, int_arg


class MatchError(ValueError):
    """Bad match input (engine, time control, openings, settings); the text names the culprit."""


# --- time controls and engines -------------------------------------------------------------------

def parse_time_control(key: str, value: str, engine: str = "") -> TimeControl:
    """One time-control setting of an engine: ``tc=BASE[+INC]`` (seconds), ``movetime=S``,
    ``depth=N`` or ``nodes=N``.

    >>> parse_time_control('tc', '10+0.1')
    TimeControl(base=10.0, inc=0.1, movetime=None, depth=None, nodes=None)
    """
    who = f"engine {engine!r}: " if engine else ""
    try:
        if key == "tc":
            base, _, inc = value.partition("+")
            tc = TimeControl(base=_real(base), inc=_real(inc) if inc else 0.0)
            if not (tc.base and tc.base > 0 and math.isfinite(tc.base)) or not 0 <= tc.inc < math.inf:
                raise ValueError
            return tc
        if key == "movetime":
            t = _real(value)
            if not 0 < t < math.inf:
                raise ValueError
            return TimeControl(movetime=t)
        if key in ("depth", "nodes"):
            n = int_arg(value)
            if n < 1:
                raise ValueError
            return TimeControl(depth=n) if key == "depth" else TimeControl(nodes=n)
    except (ValueError, argparse.ArgumentTypeError):
        pass
    forms = {"tc": "BASE[+INC] in seconds, e.g. 10+0.1", "movetime": "seconds > 0",
             "depth": "an integer >= 1", "nodes": "an integer >= 1"}
    if key not in forms:
        raise MatchError(f"{who}unknown time control {key!r}")
    raise MatchError(f"{who}bad time control {key}={value!r}: expected {forms[key]}")


def _real(text: str) -> float:
    """A number in ASCII digits; ValueError otherwise (``float()`` also reads ``'٣'``)."""
    value = ascii_float(text.strip())
    if value is None:
        raise ValueError(text)
    return value


def _merge_tc(a: TimeControl, b: TimeControl) -> TimeControl:
    """b's fields where set, else a's."""
    return TimeControl(base=b.base if b.base is not None else a.base,
                       inc=b.inc if b.base is not None else a.inc,
                       movetime=b.movetime if b.movetime is not None else a.movetime,
                       depth=b.depth if b.depth is not None else a.depth,
                       nodes=b.nodes if b.nodes is not None else a.nodes)


def parse_engine(settings: Iterable[str], index: int = 1) -> EngineSpec:
    """An engine from ``key=value`` settings: ``cmd=`` (shell-quoted command line, required),
    ``name=``, ``proto=`` (uci, ugi, gtp, nboard), ``dir=`` (working directory), ``option.NAME=V``
    (setoption / GTP command / NBoard ``set``), and a time control (``tc=``, ``movetime=``,
    ``depth=``, ``nodes=``; the default is depth 4).

    >>> spec = parse_engine(['cmd=othello-engine', 'name=a', 'depth=3', 'option.Hash=8'])
    >>> spec.name, spec.command, spec.tc.depth, spec.options
    ('a', ('othello-engine',), 3, (('Hash', '8'),))
    """
    items = list(settings)
    values: dict[str, str] = {}
    options: list[tuple[str, str]] = []
    tc = TimeControl()
    label = f"#{index}"
    for item in items:
        if item.startswith("name="):
            label = item[5:]
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise MatchError(f"engine {label!r}: bad setting {item!r}: expected key=value")
        if key.startswith("option."):
            options.append((key[7:], value))
        elif key in ("tc", "movetime", "depth", "nodes"):
            tc = _merge_tc(tc, parse_time_control(key, value, label))
        elif key in ("cmd", "name", "proto", "dir"):
            values[key] = value
        else:
            raise MatchError(f"engine {label!r}: unknown setting {key!r}")
    if "cmd" not in values or not values["cmd"].strip():
        raise MatchError(f"engine {label!r}: no command (cmd=...)")
    try:
        command = tuple(shlex.split(values["cmd"]))
    except ValueError as exc:
        raise MatchError(f"engine {label!r}: bad command {values['cmd']!r}: {exc}") from None
    name = values.get("name") or os.path.basename(command[0])
    if tc == TimeControl():
        tc = TimeControl(depth=4)
    proto = values.get("proto", "uci").lower()
    if proto not in PROTOCOLS:
        raise MatchError(f"engine {name!r}: unknown protocol {proto!r}; expected one of {', '.join(PROTOCOLS)}")
    return EngineSpec(name=name, command=command, protocol=proto, options=tuple(options), tc=tc,
                      cwd=values.get("dir"))


# --- openings ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Opening:
    """A start position: a board whose move stack holds the opening's moves (from the standard
    start) or none (a board/FEN position), and where it came from."""

    board: Board
    source: str

    @property
    def text(self) -> str:
        if self.board.move_stack:
            size = self.board.size
            return "".join("pass" if m == PASS else square_name(m, size) for m in self.board.move_stack)
        return self.board.fen()


@dataclass(frozen=True)
class SkippedLine:
    """An opening line that could not be read, and why."""

    source: str
    text: str
    reason: str


def parse_opening_line(text: str, size: int = 8) -> Board:
    """One opening: a move line from the standard start of a size x size board (``f5d6c4d3``,
    ``f5 d6 c4``, ``F5-D6``; ``e4d5j10`` on 10x10), a UGI FEN (``8/8/8/3ox3/3xo3/8/8/8 x``) or a
    board string (size*size cells ``X``/``O``/``-`` and the side, OBF-style, anything after ``;``
    ignored). A FEN or board string of another size than ``size`` is an error. Raises
    OthelloError naming the problem.

    >>> [square_name(m) for m in parse_opening_line('f5d6c3').move_stack]
    ['f5', 'd6', 'c3']
    >>> [square_name(m, 10) for m in parse_opening_line('e4 d4', 10).move_stack]
    ['e4', 'd4']
    """
    board = _opening_board(text, size)
    if board.size != size:
        raise OthelloError(f"bad opening {text.strip()[:60]!r}: a {board.size}x{board.size} position in "
                           f"a match on {size}x{size}")
    return board


def _opening_board(text: str, size: int) -> Board:
    line = text.split(";")[0].strip()
    fields = line.split()
    if not fields:
        raise OthelloError("empty opening line")
    if "/" in fields[0]:
        return Board.from_fen(" ".join(fields))
    n = size * size
    if len(fields) <= 2 and len(fields[0]) in (n, n + 1) and set(fields[0][:n]) <= set("XxOo-.*"):
        cells = fields[0][:n].replace("*", "X").replace(".", "-")
        side = fields[1] if len(fields) == 2 else fields[0][n:]
        return Board.from_cells(cells, side)
    try:
        return play_moves(Board(size), fields)
    except MoveListError as exc:
        raise OthelloError(f"bad move line {clip_text(line)!r}: {exc}") from None


def start_openings(size: int, plies: int = 4) -> list[Opening]:
    """The distinct positions (up to symmetry) after ``plies`` moves from the standard start of a
    size x size board, in the order of their first move line: the openings of a match on a size
    with no opening file.

    >>> len(start_openings(10, 2)), start_openings(10, 2)[0].text
    (3, 'e4d4')
    """
    found: dict[tuple[int, int], Opening] = {}

    def walk(board: Board, depth: int) -> None:
        if depth == 0 or board.is_game_over():
            key = canonical(board.player, board.opponent, size)[:2]
            if key not in found and not board.is_game_over():
                found[key] = Opening(board.copy(), f"start+{plies} plies ({size}x{size})")
            return
        for move in board.legal_moves() or [PASS]:
            board.push(move)
            walk(board, depth - 1)
            board.pop()

    walk(Board(size), plies)
    return list(found.values())


def load_openings(path: Optional[str] = None, size: int = 8) -> tuple[list[Opening], list[SkippedLine]]:
    """The openings of a file (one per line; ``#`` comments and blank lines ignored), or the
    shipped balanced set when path is None (8x8; on other even sizes the distinct positions 4
    plies from the start, :func:`start_openings`). Unreadable lines are skipped and returned; a
    file with no usable line, or none at all, is a MatchError.

    >>> ops, bad = load_openings()
    >>> len(ops) >= 20, bad
    (True, [])
    """
    if path is None and size != 8:
        if size % 2:
            raise MatchError(f"a {size}x{size} board has no standard start: give --openings")
        return start_openings(size), []
    if path is None:
        name = "openings (shipped)"
        text = resources.files("othello_engine").joinpath("data/openings.txt").read_text()
    else:
        name = path
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as exc:
            raise MatchError(f"openings file {path!r}: {exc.strerror or exc}") from None
    openings: list[Opening] = []
    skipped: list[SkippedLine] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#")[0].strip()
        if not line:
            continue
        source = f"{name}:{n}"
        try:
            board = parse_opening_line(line, size)
        except OthelloError as exc:
            skipped.append(SkippedLine(source, line, str(exc)))
            continue
        if board.is_game_over():
            skipped.append(SkippedLine(source, line, "the game is already over"))
            continue
        openings.append(Opening(board, source))
    if not openings:
        raise MatchError(f"openings file {name!r}: no usable opening"
                         + (f" ({len(skipped)} bad lines, first: {skipped[0].reason})" if skipped else ""))
    return openings, skipped


# --- one game ------------------------------------------------------------------------------------

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


@dataclass(frozen=True)
class Fault:
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
        # a forfeit scores every square of the board to the winner (64 up to 8x8, as GGF servers do)
        whole = max(64, board.size * board.size)
        result = (("+" if winner == BLACK else "-") + f"{whole}.00:"
                  + ("t" if fault.kind in ("time", "hang") else "r"))
    elif fault is not None:  # aborted
        winner, discs, culprit, result = None, None, None, ""
    else:
        discs = board.disc_difference()
        winner = BLACK if discs > 0 else WHITE if discs < 0 else None
        culprit = None
        result = f"{discs:+d}.00" if discs else "0.00"
    ti = "; ".join(f"{players[c].name}: {players[c].spec.tc}" for c in (BLACK, WHITE))
    ggf = format_ggf(board, black=black.name, white=white.name, result=result, evals=evals,
                     times=times, place="othello-match",
                     date=time.strftime("%Y.%m.%d_%H:%M:%S", time.gmtime()), time_control=ti)
    if fault is not None:
        ggf = ggf[:-2] + "C[" + f"{fault.kind}: {fault.reason}".replace("]", ")") + "];)"
    return GameResult(number=number, black=black.name, white=white.name, opening=opening.text,
                      winner=winner, discs=discs, termination=fault.kind if fault else "normal",
                      reason=fault.reason if fault else "", culprit=culprit,
                      moves=len(board.move_stack) - n_open, ggf=ggf)


def _kind(exc: EngineFailure) -> str:
    return "hang" if isinstance(exc, EngineTimeout) else exc.kind


# --- the match -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class MatchConfig:
    """A match: engines, games per pairing (each opening played twice, colours swapped),
    openings, parallel games, pairing scheme (round robin, or gauntlet: the first engine against
    each other), referee margins (seconds) and an optional SPRT (two engines only)."""

    engines: tuple[EngineSpec, ...]
    openings: tuple[Opening, ...]
    games: int = 2
    concurrency: int = 1
    gauntlet: bool = False
    margin: float = 0.5
    move_timeout: float = 60.0
    handshake_timeout: float = 10.0
    sprt: Optional[matchstats.SprtParams] = None

    def __post_init__(self) -> None:
        if len(self.engines) < 2:
            raise MatchError(f"a match needs at least two engines, got {len(self.engines)}")
        names = [e.name for e in self.engines]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise MatchError(f"engine name {dup[0]!r} is used twice; give each engine a name=")
        if self.games < 1:
            raise MatchError(f"games = {self.games}: need at least 1")
        if self.concurrency < 1:
            raise MatchError(f"concurrency = {self.concurrency}: need at least 1")
        if not self.openings:
            raise MatchError("no openings")
        if self.sprt is not None and len(self.engines) != 2:
            raise MatchError("SPRT needs exactly two engines")

    def pairings(self) -> list[tuple[int, int]]:
        n = len(self.engines)
        if self.gauntlet:
            return [(0, j) for j in range(1, n)]
        return list(itertools.combinations(range(n), 2))

    def schedule(self) -> list[tuple[int, int, int, Opening]]:
        """(game number, black index, white index, opening), round by round over the pairings."""
        out = []
        number = 0
        for g in range(self.games):
            opening = self.openings[(g // 2) % len(self.openings)]
            for i, j in self.pairings():
                number += 1
                out.append((number, i, j, opening) if g % 2 == 0 else (number, j, i, opening))
        return out


@dataclass
class PairingStats:
    """Results of one pairing from the first engine's point of view."""

    first: str
    second: str
    wins: int = 0
    losses: int = 0
    draws: int = 0
    disc_sum: int = 0
    disc_games: int = 0
    forfeits: dict[str, int] = field(default_factory=dict)

    def add(self, game: GameResult) -> None:
        s = game.score_for(self.first)
        if s == 1.0:
            self.wins += 1
        elif s == 0.0:
            self.losses += 1
        else:
            self.draws += 1
        if game.discs is not None:
            self.disc_sum += game.discs if game.black == self.first else -game.discs
            self.disc_games += 1
        if game.culprit is not None:
            self.forfeits[game.culprit] = self.forfeits.get(game.culprit, 0) + 1

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    def elo(self) -> matchstats.EloEstimate:
        return matchstats.elo_estimate(self.wins, self.losses, self.draws)

    def summary(self) -> dict[str, object]:
        est = self.elo()
        return {"first": self.first, "second": self.second, "games": self.games, "wins": self.wins,
                "losses": self.losses, "draws": self.draws,
                "score": matchstats.score_of(self.wins, self.losses, self.draws),
                "elo": _json_float(est.elo), "elo_margin95": _json_float(est.margin),
                "los": matchstats.los(self.wins, self.losses),
                "draw_ratio": matchstats.draw_ratio(self.wins, self.losses, self.draws),
                "disc_mean": self.disc_sum / self.disc_games if self.disc_games else None,
                "forfeits": dict(self.forfeits)}


def _json_float(x: float) -> Optional[float]:
    return None if math.isinf(x) or math.isnan(x) else round(x, 2)


@dataclass
class MatchResult:
    """All finished games, per-pairing statistics, the SPRT state, and whether the match stopped
    before its schedule ended (SPRT verdict or interruption)."""

    config: MatchConfig
    games: list[GameResult] = field(default_factory=list)
    pairings: list[PairingStats] = field(default_factory=list)
    sprt: Optional[matchstats.SprtResult] = None
    stopped_early: str = ""
    engine_ids: dict[str, str] = field(default_factory=dict)

    def pairing_of(self, a: str, b: str) -> PairingStats:
        for p in self.pairings:
            if {p.first, p.second} == {a, b}:
                return p
        raise KeyError((a, b))

    def to_json(self) -> dict[str, object]:
        cfg = self.config
        return {
            "engines": [{"name": e.name, "command": list(e.command), "protocol": e.protocol,
                         "id": self.engine_ids.get(e.name, ""), "time_control": str(e.tc),
                         "options": dict(e.options)} for e in cfg.engines],
            "settings": {"games_per_pairing": cfg.games, "openings": len(cfg.openings),
                         "concurrency": cfg.concurrency, "scheme": "gauntlet" if cfg.gauntlet else "round-robin",
                         "margin": cfg.margin, "move_timeout": cfg.move_timeout},
            "games_scheduled": len(cfg.schedule()), "games_played": len(self.games),
            "stopped_early": self.stopped_early or None,
            "pairings": [p.summary() for p in self.pairings],
            "sprt": None if self.sprt is None else {
                "elo0": cfg.sprt.elo0, "elo1": cfg.sprt.elo1, "alpha": cfg.sprt.alpha,  # type: ignore[union-attr]
                "beta": cfg.sprt.beta, "llr": round(self.sprt.llr, 4),  # type: ignore[union-attr]
                "lower": round(self.sprt.lower, 4), "upper": round(self.sprt.upper, 4),
                "verdict": self.sprt.verdict},
            "games": [{k: v for k, v in asdict(g).items() if k != "ggf"} | {"result": g.result_text}
                      for g in self.games],
        }


def start_player(spec: EngineSpec, timeout: float) -> Player:
    """A started player, or EngineStartError / DriverError naming the engine."""
    spec.check_command()
    player = make_player(spec)
    player.start(timeout)
    return player


Job = tuple[int, int, int, Opening]
"""A scheduled game: (game number, black engine index, white engine index, opening)."""


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


def run_match(config: MatchConfig, on_game: Optional[Callable[[GameResult, MatchResult], None]] = None,
              stop: Optional[threading.Event] = None, *, done: Iterable[GameResult] = (),
              cluster: Optional[str] = None) -> MatchResult:
    """Play the match. Every engine is started once first: one that cannot start or finish its
    handshake raises MatchError before any game. ``on_game`` is called (under a lock) after each
    game. An SPRT verdict starts no new game (those in progress finish and count); setting
    ``stop`` aborts the games in progress after their current move (they are not counted).
    ``done``: games of an earlier run (see :func:`read_finished_games`), counted and not played
    again. ``cluster``: a Ray address (see :mod:`othello_engine.cluster`); the games are then
    played by its workers, ``config.concurrency`` of them at once (0 or 1: one per CPU)."""
    stop = stop or threading.Event()
    result = MatchResult(config=config)
    result.pairings = [PairingStats(config.engines[i].name, config.engines[j].name)
                       for i, j in config.pairings()]
    lock = threading.Lock()
    no_more = threading.Event()

    def record(game: GameResult, old: bool = False) -> None:
        with lock:
            if game.termination == "aborted":
                return
            result.games.append(game)
            result.pairing_of(game.black, game.white).add(game)
            if config.sprt is not None and not no_more.is_set():  # the SPRT ends at its crossing
                p = result.pairings[0]
                result.sprt = matchstats.sprt(p.wins, p.losses, p.draws, config.sprt)
                if result.sprt.verdict and not no_more.is_set():
                    result.stopped_early = f"SPRT: {result.sprt.verdict} accepted"
                    no_more.set()  # games in progress still finish and count
            if on_game is not None and not old:
                on_game(game, result)

    for game in sorted(done, key=lambda g: g.number):
        record(game, old=True)
    finished = {g.number for g in result.games}
    todo = [job for job in config.schedule() if job[0] not in finished]
    if cluster is not None:
        from othello_engine import cluster as ray_cluster  # Ray is imported only on request
        try:
            ray_cluster.play_match(config, todo, address=cluster, record=record, stop=stop,
                                   no_more=no_more, engine_ids=result.engine_ids)
        except KeyboardInterrupt:
            result.stopped_early = "interrupted"
            stop.set()
        return _finish(result, stop)
    first_pool: dict[str, Player] = {}
    try:
        for spec in config.engines:
            first_pool[spec.name] = start_player(spec, config.handshake_timeout)
            result.engine_ids[spec.name] = first_pool[spec.name].engine_id
    except (EngineFailure, DriverError) as exc:
        for p in first_pool.values():
            p.close()
        raise MatchError(str(exc)) from None
    jobs: queue.Queue[Job] = queue.Queue()
    for job in todo:
        jobs.put(job)
    n_workers = min(config.concurrency, jobs.qsize())

    def worker(pool: dict[str, Player]) -> None:
        try:
            while not stop.is_set() and not no_more.is_set():
                try:
                    job = jobs.get_nowait()
                except queue.Empty:
                    return
                record(play_job(config, pool, job, stop))
        finally:
            for p in pool.values():
                p.close()

    pools: list[dict[str, Player]] = [first_pool] + [{} for _ in range(max(0, n_workers - 1))]
    threads = [threading.Thread(target=worker, args=(pool,), daemon=True) for pool in pools]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.2)
    except KeyboardInterrupt:
        result.stopped_early = "interrupted"
        stop.set()
        for t in threads:
            t.join(10.0)
    return _finish(result, stop)


def _finish(result: MatchResult, stop: threading.Event) -> MatchResult:
    if stop.is_set() and not result.stopped_early:
        result.stopped_early = "stopped"
    result.games.sort(key=lambda g: g.number)
    return result


# --- resuming -------------------------------------------------------------------------------------

def read_finished_games(config: MatchConfig, path: str) -> tuple[list[GameResult], int]:
    """The games of an earlier run of this match in the GGF file at path, given back their game
    numbers, and the length in bytes of the file's complete part (a last line cut short by a
    kill is not a game; the caller truncates it). A record gets the first game number of the
    schedule with its players, colours and opening not taken yet (such games are interchangeable).
    MatchError for a record that is unreadable or not in this match."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise MatchError(f"cannot resume from {path!r}: {exc.strerror or exc}") from None
    complete = data.rfind(b"\n") + 1
    if data[complete:].strip().endswith(b";)"):
        complete = len(data)  # a last game without its newline is still whole
    free: dict[tuple[str, str], list[Job]] = {}
    for job in config.schedule():
        free.setdefault((config.engines[job[1]].name, config.engines[job[2]].name), []).append(job)
    games: list[GameResult] = []
    for n, raw in enumerate(data[:complete].decode("utf-8", errors="replace").splitlines(), 1):
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
    return games, complete


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


# --- the command line ----------------------------------------------------------------------------

def _size_arg(text: str) -> int:
    size = int_arg(text)
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise argparse.ArgumentTypeError(f"board size {size} is out of range {MIN_SIZE}..{MAX_SIZE}")
    return size


def _build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="othello-match",
        description="Play refereed Othello matches between engines and report W-L-D, Elo, LOS and SPRT.",
        epilog="example: othello-match --engine cmd=othello-engine name=d4 depth=4 "
               "--engine cmd=othello-engine name=d2 depth=2 --games 20")
    ap.add_argument("--engine", nargs="+", action="append", metavar="KEY=VALUE", default=[],
                    help="an engine: cmd='COMMAND' [name=N] [proto=uci|ugi|gtp|nboard] [dir=D] "
                         "[tc=BASE+INC | movetime=S | depth=N | nodes=N] [option.NAME=VALUE]")
    ap.add_argument("--each", nargs="+", metavar="KEY=VALUE", default=[],
                    help="settings for every engine (an engine's own settings win)")
    ap.add_argument("--games", type=int_arg, default=2, help="games per pairing (default 2)")
    ap.add_argument("--size", type=_size_arg, default=8, metavar="N",
                    help="board size of the match, 3..26 (default 8); without --openings an even size "
                         "plays the distinct positions 4 plies from its start")
    ap.add_argument("--openings", metavar="FILE",
                    help="openings: move lines (f5d6c4...), FEN or board lines; default: the shipped set")
    ap.add_argument("--concurrency", type=int_arg, default=1, help="games played at once (default 1)")
    ap.add_argument("--gauntlet", action="store_true", help="the first engine against each other one "
                    "(default: round robin)")
    ap.add_argument("--sprt", nargs="+", metavar="KEY=VALUE",
                    help="stop early on a verdict: elo0=0 elo1=10 alpha=0.05 beta=0.05")
    ap.add_argument("--margin", type=float_arg, default=0.5,
                    help="seconds an engine may exceed its time before it loses (default 0.5)")
    ap.add_argument("--move-timeout", type=float_arg, default=60.0,
                    help="seconds to wait for a move without a clock or movetime (default 60)")
    ap.add_argument("--handshake-timeout", type=float_arg, default=10.0,
                    help="seconds an engine has to start and answer its handshake (default 10)")
    ap.add_argument("--ggf", default="othello-match.ggf", metavar="FILE",
                    help="write every game here, one GGF line each (default othello-match.ggf; '' for none)")
    ap.add_argument("--json", metavar="FILE",
                    help="write a JSON summary here ('-' for stdout; the report then goes to stderr)")
    ap.add_argument("--resume", action="store_true",
                    help="keep the games already in the --ggf file (from an interrupted run of the same "
                         "match) and play only the missing ones")
    ap.add_argument("--cluster", metavar="ADDRESS",
                    help="play the games on Ray: 'local' (a Ray instance on this machine), 'auto' or "
                         "ray://HOST:PORT (an existing cluster); --concurrency then counts games at once "
                         "over the cluster (default: one per CPU). Needs 'othello_engine[cluster]'")
    ap.add_argument("--quiet", action="store_true", help="no progress or per-game lines on stderr")
    return ap


def config_from_args(args: argparse.Namespace) -> tuple[MatchConfig, list[SkippedLine]]:
    """The match configuration of parsed command-line arguments (MatchError on bad input)."""
    if len(args.engine) < 2:
        raise MatchError(f"a match needs at least two --engine, got {len(args.engine)}")
    engines = []
    for k, settings in enumerate(args.engine, 1):
        own_keys = {s.partition("=")[0] for s in settings}
        own_tc = own_keys & {"tc", "movetime", "depth", "nodes"}
        each = [s for s in args.each if s.partition("=")[0] not in own_keys
                and not (own_tc and s.partition("=")[0] in ("tc", "movetime", "depth", "nodes"))]
        engines.append(parse_engine(each + list(settings), k))
    openings, skipped = load_openings(args.openings, args.size)
    sprt = None
    if args.sprt:
        try:
            sprt = matchstats.SprtParams.parse(" ".join(args.sprt))
        except matchstats.StatsError as exc:
            raise MatchError(str(exc)) from None
    for flag, value in (("--margin", args.margin), ("--move-timeout", args.move_timeout),
                        ("--handshake-timeout", args.handshake_timeout)):
        if not value >= 0:
            raise MatchError(f"{flag} = {value}: must be >= 0")
    config = MatchConfig(engines=tuple(engines), openings=tuple(openings), games=args.games,
                         concurrency=args.concurrency, gauntlet=args.gauntlet, margin=args.margin,
                         move_timeout=args.move_timeout, handshake_timeout=args.handshake_timeout,
                         sprt=sprt)
    return config, skipped


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def format_report(result: MatchResult) -> str:
    """The end-of-match table: per pairing W-L-D, score, Elo +/- 95% margin, LOS, draws, discs."""
    cfg = result.config
    lines = [f"{len(result.games)} of {len(cfg.schedule())} games played"
             + (f" (stopped early: {result.stopped_early})" if result.stopped_early else "")]
    for e in cfg.engines:
        ident = result.engine_ids.get(e.name)
        lines.append(f"  {e.name}: {e.protocol} {shlex.join(e.command)}; {e.tc}"
                     + (f"; id {ident!r}" if ident else ""))
    rows = [("pairing", "W-L-D", "score", "Elo +/- 95%", "LOS", "draws", "discs")]
    for p in result.pairings:
        sm = p.summary()
        disc = f"{sm['disc_mean']:+.1f}" if sm["disc_mean"] is not None else "-"
        rows.append((f"{p.first} vs {p.second}", f"{p.wins}-{p.losses}-{p.draws}", _pct(float(sm["score"])),
                     str(p.elo()), _pct(float(sm["los"])), _pct(float(sm["draw_ratio"])), disc))
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    for r in rows:
        lines.append("  ".join(r[0].ljust(widths[0]) if k == 0 else r[k].rjust(widths[k])
                               for k in range(len(r))).rstrip())
    faults = [g for g in result.games if g.culprit]
    if faults:
        lines.append("forfeits:")
        for g in faults:
            lines.append(f"  game {g.number} ({g.black} vs {g.white}): {g.culprit} lost by {g.termination}: "
                         f"{g.reason}")
    if result.sprt is not None and cfg.sprt is not None:
        lines.append(f"SPRT elo0={cfg.sprt.elo0:g} elo1={cfg.sprt.elo1:g} alpha={cfg.sprt.alpha:g} "
                     f"beta={cfg.sprt.beta:g}: {result.sprt}")
    return "\n".join(lines)


def game_line(game: GameResult, total: int, with_opening: bool = False) -> str:
    """One finished game as a progress line: number, players, result and how it ended (with the
    opening it started from, if asked)."""
    if game.culprit:
        tail = f"{game.culprit} loses by {game.termination}: {game.reason}"
    else:
        tail = f"{game.discs:+d} discs for black" if game.discs else "draw"
    opening = f" {game.opening}" if with_opening else ""
    return (f"game {game.number}/{total}{opening}: {game.black} vs {game.white} {game.result_text} "
            f"({tail})")


def main(argv: Optional[list[str]] = None) -> int:
    """``othello-match``: run a match from the command line; 0 when it ran, 2 on bad input,
    130 when interrupted (the games so far are reported)."""
    args = _build_parser().parse_args(argv)
    err: TextIO = sys.stderr
    try:
        config, skipped = config_from_args(args)
    except (MatchError, DriverError) as exc:
        print(f"othello-match: error: {exc}", file=err)
        return 2
    for s in skipped:
        print(f"othello-match: skipped opening {s.source} {s.text!r}: {s.reason}", file=err)
    total = len(config.schedule())
    live = err.isatty() and not args.quiet
    if args.ggf:
        folder = os.path.dirname(os.path.abspath(args.ggf))
        if not os.access(folder, os.W_OK) or os.path.isdir(args.ggf):
            print(f"othello-match: error: cannot write the GGF file {args.ggf!r}", file=err)
            return 2
    refused: tuple[type[Exception], ...] = (MatchError,)
    if args.cluster is not None:
        from othello_engine.cluster import ClusterError, check_available
        try:
            check_available()
        except ClusterError as exc:
            print(f"othello-match: error: {exc}", file=err)
            return 2
        refused += (ClusterError,)
    done: list[GameResult] = []
    if args.resume:
        if not args.ggf:
            print("othello-match: error: --resume needs the --ggf file of the earlier run", file=err)
            return 2
        if os.path.exists(args.ggf):
            try:
                done, complete = read_finished_games(config, args.ggf)
            except MatchError as exc:
                print(f"othello-match: error: {exc}", file=err)
                return 2
            with open(args.ggf, "r+b") as cut:
                cut.truncate(complete)  # a record cut short by a kill is played again
            if not args.quiet:
                print(f"othello-match: resuming: {len(done)} of {total} games already in {args.ggf}",
                      file=err)
    ggf_file: Optional[TextIO] = None
    write_failed: list[str] = []  # what could not be written; the match goes on without it

    def on_game(game: GameResult, state: MatchResult) -> None:
        nonlocal ggf_file
        if args.ggf and game.ggf and not write_failed:
            try:
                if ggf_file is None:  # created with the first game, so a match that never starts leaves none
                    ggf_file = open(args.ggf, "a" if args.resume else "w", encoding="utf-8")
                ggf_file.write(game.ggf + "\n")
                ggf_file.flush()
            except OSError as exc:
                write_failed.append(f"the GGF file {args.ggf!r}")
                print(f"othello-match: error: cannot write the GGF file {args.ggf!r}: "
                      f"{exc.strerror or exc}; the match goes on without it", file=err, flush=True)
        if args.quiet:
            return
        if live:
            p = state.pairings[0]
            extra = f"  {p.first} vs {p.second} {p.wins}-{p.losses}-{p.draws}  Elo {p.elo()}"
            if state.sprt is not None:
                extra += f"  LLR {state.sprt.llr:.2f}"
            err.write(f"\rgames {len(state.games)}/{total}{extra}\x1b[K")
            if game.culprit:
                err.write("\n" + game_line(game, total) + "\n")
            err.flush()
        else:
            print(game_line(game, total), file=err, flush=True)

    try:
        result = run_match(config, on_game=on_game, done=done, cluster=args.cluster)
    except refused as exc:
        print(f"othello-match: error: {exc}", file=err)
        return 2
    finally:
        if ggf_file is not None:
            try:
                ggf_file.close()
            except OSError:  # the last flush failed: already reported, or reported now
                if not write_failed:
                    write_failed.append(f"the GGF file {args.ggf!r}")
                    print(f"othello-match: error: cannot write the GGF file {args.ggf!r}", file=err)
    if live:
        err.write("\n")
    # with --json - stdout carries the JSON alone (for pipes), so the report goes to stderr
    report = format_report(result)
    try:
        print(report, file=err if args.json == "-" else sys.stdout, flush=True)
    except OSError as exc:  # stdout is full or gone: the results still reach the user
        write_failed.append("the report on standard output")
        print(f"othello-match: error: cannot write the report: {exc.strerror or exc}\n{report}", file=err)
    if args.json:
        data = result.to_json()
        data["skipped_openings"] = [asdict(s) for s in skipped]
        text = json.dumps(data, indent=2)
        try:
            if args.json == "-":
                print(text, flush=True)
            else:
                with open(args.json, "w", encoding="utf-8") as f:
                    f.write(text + "\n")
        except OSError as exc:
            write_failed.append(f"the JSON summary {args.json!r}")
            print(f"othello-match: error: cannot write the JSON summary {args.json!r}: "
                  f"{exc.strerror or exc}", file=err)
    if result.stopped_early == "interrupted":
        return 130
    if write_failed:
        print(f"othello-match: {' and '.join(write_failed)} could not be written (the report above "
              "has every game)", file=err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
