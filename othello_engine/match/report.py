"""What a match amounts to: per-pairing statistics, the match result, its report, lines and JSON.

Per pairing: W-L-D, Elo with its 95% margin, LOS, draw ratio, mean disc difference and the
forfeits; for two engines, the SPRT state (see :mod:`othello_engine.match.stats`).
"""

from __future__ import annotations

import math
import shlex
from dataclasses import asdict, dataclass, field
from typing import Optional

from othello_engine.match.stats import (EloEstimate, SprtResult, draw_ratio, elo_estimate, los, pair_outcome,
                                        score_of)
from othello_engine.match.config import MatchConfig
from othello_engine.match.records import GameResult


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
    pentanomial: list[int] = field(default_factory=lambda: [0] * 5)
    _half_pairs: dict[int, float] = field(default_factory=dict, repr=False)

    def add(self, game: GameResult, pair: Optional[int] = None) -> None:
        """Count ``game``; ``pair`` identifies its game pair (the same opening with the colours
        swapped), whose pentanomial outcome is counted when both its games are in."""
        s = game.score_for(self.first)
        if pair is not None:
            other = self._half_pairs.pop(pair, None)
            if other is None:
                self._half_pairs[pair] = s
            else:
                self.pentanomial[pair_outcome(s, other)] += 1
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

    def elo(self) -> EloEstimate:
        return elo_estimate(self.wins, self.losses, self.draws)

    def summary(self) -> dict[str, object]:
        est = self.elo()
        return {"first": self.first, "second": self.second, "games": self.games, "wins": self.wins,
                "losses": self.losses, "draws": self.draws,
                "score": score_of(self.wins, self.losses, self.draws),
                "elo": _json_float(est.elo), "elo_margin95": _json_float(est.margin),
                "los": los(self.wins, self.losses),
                "draw_ratio": draw_ratio(self.wins, self.losses, self.draws),
                "disc_mean": self.disc_sum / self.disc_games if self.disc_games else None,
                "forfeits": dict(self.forfeits), "pentanomial": list(self.pentanomial)}


def _json_float(x: float) -> Optional[float]:
    return None if math.isinf(x) or math.isnan(x) else round(x, 2)


@dataclass
class MatchResult:
    """All finished games, per-pairing statistics, the SPRT state, and whether the match stopped
    before its schedule ended (SPRT verdict or interruption)."""

    config: MatchConfig
    games: list[GameResult] = field(default_factory=list)
    pairings: list[PairingStats] = field(default_factory=list)
    sprt: Optional[SprtResult] = None
    stopped_early: str = ""
    engine_ids: dict[str, str] = field(default_factory=dict)
    engine_evals: dict[str, str] = field(default_factory=dict)

    def pairing_of(self, a: str, b: str) -> PairingStats:
        for p in self.pairings:
            if {p.first, p.second} == {a, b}:
                return p
        raise KeyError((a, b))

    def to_json(self) -> dict[str, object]:
        cfg = self.config
        return {
            "engines": [{"name": e.name, "command": list(e.command), "protocol": e.protocol,
                         "id": self.engine_ids.get(e.name, ""),
                         "evaluation": self.engine_evals.get(e.name, ""), "time_control": str(e.tc),
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
                "verdict": self.sprt.verdict, "model": self.sprt.model},
            "games": [{k: v for k, v in asdict(g).items() if k != "ggf"} | {"result": g.result_text}
                      for g in self.games],
        }

def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def format_report(result: MatchResult) -> str:
    """The end-of-match table: per pairing W-L-D, score, Elo +/- 95% margin, LOS, draws, discs."""
    cfg = result.config
    lines = [f"{len(result.games)} of {len(cfg.schedule())} games played"
             + (f" (stopped early: {result.stopped_early})" if result.stopped_early else "")]
    for e in cfg.engines:
        ident = result.engine_ids.get(e.name)
        evaluation = result.engine_evals.get(e.name)
        lines.append(f"  {e.name}: {e.protocol} {shlex.join(e.command)}; {e.tc}"
                     + (f"; id {ident!r}" if ident else "")
                     + (f"; evaluation {evaluation}" if evaluation else ""))
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
                     f"beta={cfg.sprt.beta:g}: {result.sprt} ({result.sprt.model}: "
                     f"{sum(result.pairings[0].pentanomial)} game pairs)")
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

