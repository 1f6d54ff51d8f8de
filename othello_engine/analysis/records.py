"""Analysis results: the Record of one position and its output formats (table, JSON lines, CSV).

:func:`make_record` turns an engine's answer into a :class:`Record`; :class:`TableWriter`,
:class:`JsonWriter` and :class:`CsvWriter` write records; :func:`written_records` reads back how
far an earlier run's output got (for ``--resume``).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from typing import IO, Any, Callable, Optional

from othello_engine.analysis.inputs import Position
from othello_engine.board import BLACK, Square, square_name
from othello_engine.client import Info, PlayResult
from othello_engine.resumable import whole_lines


class ResumeError(ValueError):
    """An output file to resume that does not belong to this input."""


def _discs(score: Optional[int], exact: bool) -> Optional[float]:
    """A centi-disc score as discs: an int when exact, two decimals otherwise.

    >>> _discs(1800, True), _discs(-1234, False)
    (18, -12.34)
    """
    if score is None:
        return None
    return score // 100 if exact else round(score / 100, 2)


def _move_name(move: Optional[Square], size: int = 8) -> Optional[str]:
    return None if move is None else square_name(move, size)


@dataclass(frozen=True)
class Line:
    """One multi-PV line: its move, score (discs, side to move), exactness and PV."""

    move: Optional[str]
    score: Optional[float]
    exact: bool
    depth: Optional[int]
    pv: tuple[str, ...]
    known: Optional[int] = None


@dataclass(frozen=True)
class Record:
    """The analysis of one position, or an error for one input line (then ``error`` is set).
    Scores are in discs for the side to move; ``black_score`` is the same from black's side."""

    file: str
    line: int
    input: str
    format: Optional[str] = None
    error: Optional[str] = None
    ply: Optional[int] = None
    played: Optional[str] = None
    fen: Optional[str] = None
    side: Optional[str] = None
    empties: Optional[int] = None
    best: Optional[str] = None
    score: Optional[float] = None
    exact: bool = False
    depth: Optional[int] = None
    nodes: Optional[int] = None
    time: Optional[float] = None
    pv: tuple[str, ...] = ()
    lines: tuple[Line, ...] = ()
    known_best: tuple[str, ...] = ()
    known_score: Optional[int] = None
    agrees: Optional[bool] = None

    @property
    def black_score(self) -> Optional[float]:
        if self.score is None or self.side is None:
            return None
        return self.score if self.side == "black" else -self.score

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this record: fields that do not apply to its kind are left out."""
        out: dict[str, Any] = {"file": self.file, "line": self.line, "input": self.input,
                               "format": self.format}
        if self.ply is not None:
            out["ply"], out["played"] = self.ply, self.played
        if self.error is not None:
            out["error"] = self.error
            return out
        out.update(fen=self.fen, side=self.side, empties=self.empties, best=self.best,
                   score=self.score, exact=self.exact, depth=self.depth, nodes=self.nodes,
                   time=self.time, pv=list(self.pv))
        if self.ply is not None:
            out["black_score"] = self.black_score
        if len(self.lines) > 1:
            out["lines"] = [{"move": ln.move, "score": ln.score, "exact": ln.exact,
                             "depth": ln.depth, "pv": list(ln.pv),
                             **({"known": ln.known} if self.known_score is not None else {})}
                            for ln in self.lines]
        if self.known_score is not None:
            out.update(known_best=list(self.known_best), known_score=self.known_score,
                       agrees=self.agrees)
        return out


def make_record(file: str, line: int, text: str, fmt: str, pos: Position, result: PlayResult,
                elapsed: float, flip: bool = False) -> Record:
    """Turn an engine's answer into a record. flip: the engine searched the position after a
    forced pass, so its scores are negated and the pass is put in front."""
    board = pos.board
    sign = -1 if flip else 1

    def line_of(info: Info) -> Line:
        pv = tuple(square_name(m, board.size) for m in info.pv)
        move = _move_name(info.move, board.size)
        if flip:
            pv, move = ("pass",) + pv, "pass"
        score = None if info.score is None else sign * info.score
        return Line(move, _discs(score, info.exact), info.exact, info.depth, pv,
                    known.get(info.move) if info.move is not None and not flip else None)

    known = dict(pos.known)
    main = line_of(result.info)
    lines = tuple(line_of(i) for i in result.lines) or (main,)
    best = "pass" if flip else _move_name(result.move, board.size)
    known_score = max(known.values()) if known else None
    known_best = tuple(square_name(m, board.size) for m, s in pos.known if s == known_score)
    agrees = None
    if known_score is not None:
        agrees = best in known_best and (not main.exact or main.score == known_score)
    return Record(
        file=file, line=line, input=text, format=fmt, ply=pos.ply,
        played=None if pos.played is None else square_name(pos.played, board.size), fen=board.fen(),
        side="black" if board.turn == BLACK else "white", empties=board.empties, best=best,
        score=main.score, exact=main.exact, depth=result.info.depth, nodes=result.info.nodes,
        time=round(elapsed, 3), pv=main.pv or ((best,) if best else ()), lines=lines,
        known_best=known_best, known_score=known_score, agrees=agrees)


def final_record(file: str, line: int, text: str, fmt: str, pos: Position) -> Record:
    """A game-over position needs no engine: its score is the final disc difference."""
    board = pos.board
    d = board.disc_difference() * (1 if board.turn == BLACK else -1)
    known = dict(pos.known)
    known_score = max(known.values()) if known else None
    return Record(file=file, line=line, input=text, format=fmt, ply=pos.ply, fen=board.fen(),
                  side="black" if board.turn == BLACK else "white", empties=board.empties,
                  best=None, score=d, exact=True, depth=0, nodes=0, time=0.0,
                  known_score=known_score, agrees=None if known_score is None else d == known_score)


# --- output formats --------------------------------------------------------------------------------

def _fmt_score(score: Optional[float], exact: bool) -> str:
    """
    >>> _fmt_score(4, True), _fmt_score(-1.5, False), _fmt_score(None, False)
    ('+4', '-1.50', '?')
    """
    if score is None:
        return "?"
    return f"{score:+d}" if exact and isinstance(score, int) else f"{score:+.2f}"


def _fmt_count(n: Optional[int]) -> str:
    """
    >>> _fmt_count(950), _fmt_count(12_345), _fmt_count(None)
    ('950', '12.3k', '-')
    """
    if n is None:
        return "-"
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


class TableWriter:
    """The readable table: one row per position, extra rows for multi-PV lines."""

    header = (f"{'line':>8} {'ply':>3} {'empt':>4} {'side':5} {'best':4} {'score':>6} {'exact':5} "
              f"{'depth':>5} {'nodes':>7} {'time':>7}  pv")

    def __init__(self, out: IO[str], show_file: bool = False, header: bool = True) -> None:
        self.out = out
        self.show_file = show_file
        if header:
            self.out.write(self.header + "\n")

    def write(self, r: Record) -> None:
        where = f"{r.file}:{r.line}" if self.show_file else str(r.line)
        ply = "-" if r.ply is None else str(r.ply)
        if r.error is not None:
            self.out.write(f"{where:>8} {ply:>3} error: {r.error}\n")
            return
        pv = " ".join(r.pv[:12]) + (" ..." if len(r.pv) > 12 else "")
        row = (f"{where:>8} {ply:>3} {r.empties:>4} {r.side or '':5} {r.best or '--':4} "
               f"{_fmt_score(r.score, r.exact):>6} {'yes' if r.exact else 'no':5} "
               f"{r.depth if r.depth is not None else '-':>5} {_fmt_count(r.nodes):>7} "
               f"{r.time if r.time is not None else 0:>6.2f}s  {pv}")
        if r.played is not None:
            row += f"   (played {r.played})"
        if r.known_score is not None:
            verdict = "agrees" if r.agrees else "DISAGREES"
            row += f"   [known {r.known_score:+d} {'/'.join(r.known_best)}: {verdict}]"
        self.out.write(row + "\n")
        for k, ln in enumerate(r.lines[1:], 2):
            known = f"   [known {ln.known:+d}]" if ln.known is not None else ""
            self.out.write(f"{'':>8} {'':>3} {'':>4} {k:>4}. {ln.move or '--':4} "
                           f"{_fmt_score(ln.score, ln.exact):>6} {'yes' if ln.exact else 'no':5} "
                           f"{ln.depth if ln.depth is not None else '-':>5} {'':>7} {'':>7}  "
                           f"{' '.join(ln.pv[:12])}{known}\n")
        self.out.flush()


class JsonWriter:
    """One JSON object per line (see :meth:`Record.to_json`)."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def write(self, r: Record) -> None:
        self.out.write(json.dumps(r.to_json()) + "\n")
        self.out.flush()


class CsvWriter:
    """CSV with a header; one row per position, or per line with multi-PV (column ``multipv``)."""

    columns = ("file", "line", "ply", "played", "format", "fen", "side", "empties", "multipv",
               "move", "score", "exact", "depth", "nodes", "time", "pv", "known_score", "agrees",
               "error")

    def __init__(self, out: IO[str], header: bool = True) -> None:
        self.out = out
        self.writer = csv.writer(out, lineterminator="\n")
        if header:
            self.writer.writerow(self.columns)

    def write(self, r: Record) -> None:
        base = {"file": r.file, "line": r.line, "ply": r.ply, "played": r.played,
                "format": r.format, "error": r.error}
        if r.error is not None:
            self.writer.writerow([base.get(c) for c in self.columns])
        else:
            for k, ln in enumerate(r.lines or (Line(r.best, r.score, r.exact, r.depth, r.pv),), 1):
                row = dict(base, fen=r.fen, side=r.side, empties=r.empties, multipv=k,
                           move=ln.move, score=ln.score, exact=int(ln.exact), depth=ln.depth,
                           nodes=r.nodes, time=r.time, pv=" ".join(ln.pv),
                           known_score=(ln.known if k > 1 else r.known_score),
                           agrees=None if r.agrees is None or k > 1 else int(r.agrees))
                self.writer.writerow(["" if row.get(c) is None else row.get(c)
                                      for c in self.columns])
        self.out.flush()


def output_start(kind: str) -> Callable[[bytes], bool]:
    """Whether the text of an output file with no whole line could begin one in the given kind
    (the header of a table or CSV, a JSON object): a first line cut short by a kill, which a
    resumed run drops, as against a file of something else, which it must leave alone.

    >>> output_start("json")(b'{"file": "a.txt", "li'), output_start("table")(b"my notes")
    (True, False)
    """
    if kind == "json":
        return lambda head: head.lstrip().startswith(b"{")
    header = (",".join(CsvWriter.columns) if kind == "csv" else TableWriter.header).encode()
    return lambda head: header.startswith(head)


def written_records(path: str, kind: str) -> tuple[int, Optional[int]]:
    """(records, line) of an output file of an earlier run in the given kind (``table``, ``json``,
    ``csv``): how many records its whole lines hold (a last line cut short by a kill does not
    count; :func:`othello_engine.resumable.settle` drops it before the run appends, and its record
    is analysed again) and the input line of its last record. A multi-PV record's extra rows do not
    count. ResumeError if it cannot be read as such a file; OSError if it cannot be read at all."""
    lines = [raw.decode("utf-8", errors="replace").rstrip("\n") for raw in whole_lines(path)]
    try:
        if kind == "json":
            objects = [json.loads(ln) for ln in lines if ln.strip()]
            return len(objects), int(objects[-1]["line"]) if objects else None
        if kind == "csv":
            if lines and next(csv.reader(lines[:1])) != list(CsvWriter.columns):
                raise ValueError("its first line is not the header of the CSV records")
            at, line_at = CsvWriter.columns.index("multipv"), CsvWriter.columns.index("line")
            cells = [r for r in list(csv.reader(lines))[1:] if len(r) > at and r[at] in ("", "1")]
            return len(cells), int(cells[-1][line_at]) if cells else None
        if lines and lines[0] != TableWriter.header:
            raise ValueError("its first line is not the header of the table")
        rows = [ln for ln in lines[1:] if ln[:8].strip()]
        return len(rows), int(rows[-1].split()[0].rsplit(":", 1)[-1]) if rows else None
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ResumeError(f"not an output of othello-analyze in this format ({kind}): {exc}") from None
