"""Step 4, evaluate: exact test sets solved from the games, and the static evaluations' error on them."""

from __future__ import annotations

from typing import Callable, Optional

from othello_engine import _core
from othello_engine.train.records import (NO_SCORE, board_of, cells_of, check_position_line, complete_lines,
                                          game_lines, game_positions, open_text, parse_cells, parse_game)
from othello_engine.train.runner import process_engine, run_ordered


def _solve_item(item: tuple[str]) -> str:
    from othello_engine.engine import Limit
    cells = item[0]
    engine = process_engine("classic", None)
    engine.new_game()
    r = engine.search(board_of(*parse_cells(cells)), Limit(exact=True))
    return f"{cells} {r.score // 100:+03d} {NO_SCORE}\n"


def testset(games_path: str, out_path: str, empties: int, count: int, jobs: int = 1,
            quiet: bool = False, cluster: Optional[str] = None,
            errors: Optional[Callable[[str], None]] = None) -> int:
    """Solve exactly the positions with `empties` empties of the games (one per game, up to count;
    resumable); a position file whose result column is the exact score. A WTHOR database is read
    too (its bad games go to ``errors``)."""
    cells_list = []
    for line in game_lines(games_path, errors):
        moves, _, _ = parse_game(line)
        for P, O, _sign in game_positions(moves):
            if 64 - _core.popcount(P | O) == empties and _core.legal_moves(P, O):
                cells_list.append(cells_of(P, O))
                break
        if len(cells_list) >= count:
            break
    done = complete_lines(out_path)
    items = [(c,) for c in cells_list[done:]]
    with open_text(out_path, "at") as out:
        return run_ordered(_solve_item, items, out, jobs, "solve", done, len(cells_list), quiet,
                           chunksize=1, cluster=cluster)


def evaluate(path: str, weights_path: Optional[str] = None,
             report: Callable[[str], None] = print) -> dict[str, float]:
    """Mean absolute error (discs) of the static evaluations against the exact scores of a test set
    (a position file whose result column is exact), classic and pattern."""
    from othello_engine import weights as weights_mod
    if weights_path:
        weights_mod.load(weights_path)
    else:
        weights_mod.ensure_loaded()
    err_c = err_p = 0.0
    n = 0
    with open_text(path) as f:
        for number, line in enumerate(f, 1):
            check_position_line(line, path, number)
            cells, exact = line[:64], int(line[65:68])
            P, O = parse_cells(cells)
            terms = _core.evaluation_terms(P, O, _core.FULL_MASK, True)
            err_c += abs(terms.get("classic", terms["total"]) / 100.0 - exact)
            err_p += abs(terms["total"] / 100.0 - exact) if "pattern" in terms else float("nan")
            n += 1
    out = {"positions": n, "classic": err_c / max(1, n), "pattern": err_p / max(1, n)}
    report(f"evaluate: {n} positions of {path}: mean absolute error classic "
           f"{out['classic']:.2f} discs, pattern {out['pattern']:.2f} discs")
    return out
