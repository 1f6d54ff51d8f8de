"""The UCI/UGI lines on the client's side: the values read from replies and the commands sent.

:func:`position_command` and :func:`go_command` write what the client sends;
:func:`parse_info` and :func:`parse_option` read what the engine answers, into the frozen
values :class:`Info`, :class:`Option` and :class:`PlayResult`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from othello_engine.board import BLACK, PASS, Board, OthelloError, Square, parse_square, square_name
from othello_engine.engine import Limit
from othello_engine.textnum import ascii_float, ascii_int

__all__ = ["EXACT_DEPTH", "Option", "Info", "PlayResult", "move_token", "position_command",
           "go_command", "parse_info", "parse_option"]

EXACT_DEPTH = 60
"""Depth sent with an exact solve: deeper than any game can go."""

@dataclass(frozen=True)
class Option:
    """An option the engine declared: ``option name <name> type <type> [default ..] [min ..]
    [max ..] [var ..]*``."""

    name: str
    type: str
    default: Optional[str] = None
    min: Optional[int] = None
    max: Optional[int] = None
    var: tuple[str, ...] = ()


@dataclass(frozen=True)
class Info:
    """One ``info`` line. ``score`` is in centi-discs for the side to move; ``exact`` means it
    is a proven final disc difference (then ``score == 100 * discs``). ``bound`` is ``"lower"``
    or ``"upper"`` for a fail-high/-low score. ``time`` is in seconds. Fields the line did not
    carry are None (``pv`` empty)."""

    depth: Optional[int] = None
    seldepth: Optional[int] = None
    multipv: int = 1
    score: Optional[int] = None
    exact: bool = False
    bound: Optional[str] = None
    nodes: Optional[int] = None
    nps: Optional[int] = None
    time: Optional[float] = None
    pv: tuple[Square, ...] = ()
    hashfull: Optional[int] = None
    string: Optional[str] = None

    @property
    def move(self) -> Optional[Square]:
        """The first move of the PV."""
        return self.pv[0] if self.pv else None

    @property
    def discs(self) -> Optional[int]:
        """The proven disc difference when the score is exact, else None."""
        return self.score // 100 if self.exact and self.score is not None else None


@dataclass(frozen=True)
class PlayResult:
    """What a search ended with: ``move`` is a square, :data:`PASS`, or None when the engine
    said the game is over; ``info`` the last main-line info; ``lines`` the last info of every
    multi-PV line, best first; ``elapsed`` the wall time the client waited (seconds)."""

    move: Optional[Square]
    info: Info = field(default_factory=Info)
    lines: tuple[Info, ...] = ()
    elapsed: float = 0.0
    token: str = ""
    arrived: Optional[float] = None
    """When the ``bestmove`` line arrived (``time.monotonic()``); ``elapsed`` ends then too."""


# --- the wire -------------------------------------------------------------------------------------

def move_token(move: Square, protocol: str = "uci", size: int = 8) -> str:
    """A move of a size x size board as sent to an engine: ``f5`` (``j10``); pass is ``pass``
    (UCI-like) or ``0000`` (UGI)."""
    if move == PASS:
        return "0000" if protocol == "ugi" else "pass"
    return square_name(move, size)


def _standard_start(board: Board) -> bool:
    return board.size % 2 == 0 and board == Board(board.size)


def position_command(board: Board, protocol: str = "uci") -> str:
    """The ``position`` line for a board: its game's start position plus the moves played, so
    the engine sees the history.

    >>> b = Board(); _ = b.push_str("f5")
    >>> position_command(b)
    'position startpos moves f5'
    >>> position_command(Board.from_fen("8/8/8/3ox3/3xx3/8/8/8 o"))
    'position board ---------------------------OX------XX--------------------------- w'
    >>> position_command(Board.from_fen("8/8/8/3ox3/3xx3/8/8/8 o"), "ugi")
    'position fen 8/8/8/3ox3/3xx3/8/8/8 o'
    """
    start = board.replay()
    if _standard_start(start) and (start.size == 8 or protocol == "uci"):
        head = "position startpos" + ("" if start.size == 8 else f" {start.size}")
    elif protocol == "ugi":
        head = f"position fen {start.fen()}"
    else:
        head = f"position board {start.cells()} {'b' if start.turn == BLACK else 'w'}"
    if board.move_stack:
        head += " moves " + " ".join(move_token(m, protocol, board.size) for m in board.move_stack)
    return head


def _ms(seconds: float) -> int:
    return max(0, int(round(seconds * 1000)))


def go_command(limit: Optional[Limit], protocol: str = "uci") -> str:
    """The ``go`` line for a limit. Clocks are ``btime``/``wtime``/``binc``/``winc`` in the
    UCI-like protocol and ``p1time``/``p2time``/``p1inc``/``p2inc`` in UGI (player 1 is black).
    An exact solve is ``exact`` (this package's engine solves to the end) with a full depth,
    so an engine that ignores the flag still searches to the end of the game.

    >>> go_command(Limit(depth=8, nodes=10000))
    'go depth 8 nodes 10000'
    >>> go_command(Limit(black_clock=60, white_clock=55.5, black_inc=1), "ugi")
    'go p1time 60000 p2time 55500 p1inc 1000 p2inc 0'
    """
    if limit is None:
        return "go infinite"
    parts = ["go"]
    if limit.infinite:
        parts.append("infinite")
    if limit.exact:
        parts += ["depth", str(EXACT_DEPTH), "exact"]
    elif limit.depth is not None:
        parts += ["depth", str(limit.depth)]
    if limit.nodes is not None:
        parts += ["nodes", str(limit.nodes)]
    if limit.time is not None:
        parts += ["movetime", str(max(1, _ms(limit.time)))]
    if limit.black_clock is not None or limit.white_clock is not None:
        b, w = ("p1", "p2") if protocol == "ugi" else ("b", "w")
        if limit.black_clock is not None:
            parts += [f"{b}time", str(_ms(limit.black_clock))]
        if limit.white_clock is not None:
            parts += [f"{w}time", str(_ms(limit.white_clock))]
        parts += [f"{b}inc", str(_ms(limit.black_inc)), f"{w}inc", str(_ms(limit.white_inc))]
        if limit.moves_to_go is not None:
            parts += ["movestogo", str(limit.moves_to_go)]
    return " ".join(parts)


_INT_FIELDS = {"depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "tbhits",
               "currmovenumber"}


def parse_info(line: str, size: int = 8) -> Info:
    """Read an ``info`` line; unknown fields are skipped, unreadable moves end the PV.

    >>> i = parse_info("info depth 3 multipv 2 score disc -4 nodes 120 time 15 pv d3 c3 pass")
    >>> i.depth, i.multipv, i.score, i.exact, i.time, i.pv == (19, 18, PASS)
    (3, 2, -400, True, 0.015, True)
    """
    tokens = line.split()
    values: dict[str, Any] = {}
    i = 1 if tokens and tokens[0] == "info" else 0
    while i < len(tokens):
        key = tokens[i]
        i += 1
        if key == "string":
            values["string"] = " ".join(tokens[i:])
            break
        if key == "pv":
            pv = []
            while i < len(tokens):
                try:
                    pv.append(parse_square(tokens[i], size))
                except OthelloError:
                    break
                i += 1
            values["pv"] = tuple(pv)
            continue
        if key == "score":
            while i < len(tokens):
                kind = tokens[i]
                if kind in ("cp", "disc", "discs", "mate") and i + 1 < len(tokens):
                    value = ascii_float(tokens[i + 1])
                    if value is None or abs(value) > 1e15:
                        break
                    n = int(value)
                    if kind == "cp":
                        values["score"] = n
                    elif kind == "mate":  # no mates in Othello; keep a huge score of that sign
                        values["score"] = 100 * 64 if n > 0 else -100 * 64
                    else:
                        values["score"], values["exact"] = 100 * n, True
                    i += 2
                elif kind in ("lowerbound", "upperbound"):
                    values["bound"] = kind[:-5]
                    i += 1
                elif kind == "exact":
                    values["exact"] = True
                    i += 1
                elif kind == "wdl":
                    i += 4
                else:
                    break
            continue
        if key in _INT_FIELDS or key == "time":
            if i < len(tokens):
                number = ascii_int(tokens[i])
                if number is None:
                    continue
                n = number
                i += 1
                if key == "time":
                    values["time"] = n / 1000
                elif key in ("depth", "seldepth", "multipv", "nodes", "nps", "hashfull"):
                    values[key] = n
            continue
        # currmove <m>, refutation, currline and unknown keys: skip the key only
    return Info(**values)


def parse_option(line: str) -> Optional[Option]:
    """Read an ``option name ... type ...`` line (names may hold spaces); None if unreadable.

    >>> parse_option("option name Move Overhead type spin default 30 min 0 max 5000")
    Option(name='Move Overhead', type='spin', default='30', min=0, max=5000, var=())
    """
    tokens = line.split()
    if len(tokens) < 4 or tokens[:2] != ["option", "name"] or "type" not in tokens[2:]:
        return None
    keys = {"type", "default", "min", "max", "var"}
    t = tokens.index("type", 2)
    name = " ".join(tokens[2:t])
    fields: dict[str, list[str]] = {}
    current = None
    vars_: list[str] = []
    for tok in tokens[t:]:
        if tok in keys and (current != "default" or tok != "default"):
            current = tok
            if tok == "var":
                vars_.append("")
            fields.setdefault(tok, [])
            continue
        if current == "var":
            vars_[-1] = (vars_[-1] + " " + tok).strip()
        elif current is not None:
            fields[current].append(tok)

    def number(key: str) -> Optional[int]:
        return ascii_int(fields[key][0]) if fields.get(key) else None

    default = " ".join(fields["default"]) if "default" in fields else None
    return Option(name, " ".join(fields.get("type", [])), default, number("min"), number("max"),
                  tuple(vars_))
