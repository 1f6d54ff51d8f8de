"""Score graphs of analysed games, drawn with matplotlib (an optional extra, imported only here)."""

from __future__ import annotations

import os
from typing import Mapping

from othello_engine.analysis.records import Record
from othello_engine.board import OthelloError
from othello_engine.ggf import parse_ggf


def plot_games(games: Mapping[tuple[str, int], list[Record]], path: str) -> list[str]:
    """Draw each game's score graph: the score (discs, black's view) of the position after each
    move, exact scores marked, the final result last. One game goes to path, several to
    ``<stem>-<line><ext>``. Returns the files written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    written = []
    stem, ext = os.path.splitext(path)
    for (name, line), records in games.items():
        target = path if len(games) == 1 else f"{stem}-{line}{ext or '.png'}"
        points = [(r.ply - 1, float(r.black_score), r.exact) for r in records
                  if r.error is None and r.ply is not None and r.black_score is not None]
        title = f"{'stdin' if name == '-' else os.path.basename(name)}, line {line}"
        try:
            game = parse_ggf(records[0].input)
            if game.board.is_game_over():
                points.append((len(game.board.move_stack), float(game.board.disc_difference()),
                               True))
            if game.black or game.white:
                title = f"{game.black or '?'} (black) vs {game.white or '?'} (white) - {title}"
        except OthelloError:
            pass
        fig, ax = plt.subplots(figsize=(9, 3.6), dpi=100)
        if points:
            xs = [p[0] for p in points]
            ys = [p[1] for p in points]
            ax.fill_between(xs, ys, 0, where=[y >= 0 for y in ys], color="#333333", alpha=0.35,
                            interpolate=True, label="black ahead")
            ax.fill_between(xs, ys, 0, where=[y <= 0 for y in ys], color="#bbbbbb", alpha=0.6,
                            interpolate=True, label="white ahead")
            ax.plot(xs, ys, color="black", linewidth=1.2, marker="o", markersize=2.5)
            exact = [(x, y) for x, y, e in points if e]
            if exact:
                ax.plot([p[0] for p in exact], [p[1] for p in exact], "s", color="tab:red",
                        markersize=3.5, label="exact")
            ax.legend(loc="best", fontsize=8, framealpha=0.8)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("moves played")
        ax.set_ylabel("score for black (discs)")
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        fig.savefig(target)
        plt.close(fig)
        written.append(target)
    return written
