"""What a match is: its engines and their time controls, its openings and settings, and its error.

A match plays every pairing of its engines (round robin, or a gauntlet: the first engine against
each other one) from each opening twice, colours swapped; the referee's margins and an optional
SPRT complete it. :func:`parse_engine` reads an engine from ``key=value`` settings.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import shlex
from dataclasses import dataclass
from typing import Iterable, Optional

from othello_engine.board import PASS, Board, square_name
from othello_engine.client import PROTOCOLS, EngineSpec, TimeControl
from othello_engine.match.stats import SprtParams
from othello_engine.textnum import ascii_float, int_arg


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

# --- the match -----------------------------------------------------------------------------------

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


Job = tuple[int, int, int, Opening]
"""A scheduled game: (game number, black engine index, white engine index, opening)."""


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
    sprt: Optional[SprtParams] = None
    allow_eval_fallback: bool = False

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

    def pair_of(self, number: int) -> int:
        """The game pair of game ``number`` within its pairing: :meth:`schedule` plays each
        opening twice in a row for every pairing, the colours swapped."""
        return (number - 1) // len(self.pairings()) // 2

    def schedule(self) -> list[Job]:
        """(game number, black index, white index, opening), round by round over the pairings."""
        out: list[Job] = []
        number = 0
        for g in range(self.games):
            opening = self.openings[(g // 2) % len(self.openings)]
            for i, j in self.pairings():
                number += 1
                out.append((number, i, j, opening) if g % 2 == 0 else (number, j, i, opening))
        return out
