"""Step 4, evaluate: exact test sets solved from the games, and the static evaluations' error on them."""

from __future__ import annotations

from typing import Callable, Optional

from othello_engine import _core
from othello_engine.filelock import held
from othello_engine.train.records import (board_of, cells_of, check_position_line, game_lines, game_positions,
                                          open_text, parse_cells, parse_game, position_line, settle_output)
from othello_engine.train.runner import process_engine, run_ordered


def _solve_item(item: tuple[str, int, int]) -> str:
    from othello_engine.engine import Limit
    cells, size, depth = item
    board = board_of(*parse_cells(cells, size), size)
    if depth:
        # the shipped pattern evaluation's search to that depth, rounded to whole discs
        engine = process_engine("pattern", None, size)
        engine.new_game()
        r = engine.search(board, Limit(depth=depth))
        score = (r.score + 50) // 100 if r.score >= 0 else -((50 - r.score) // 100)
    else:
        engine = process_engine("classic", None)
        engine.new_game()
        score = engine.search(board, Limit(exact=True)).score // 100
    return position_line(cells, score, None, size)


def testset(games_path: str, out_path: str, empties: int, count: int, jobs: int = 1,
            quiet: bool = False, cluster: Optional[str] = None,
            errors: Optional[Callable[[str], None]] = None, size: int = 8, depth: int = 0) -> int:
    """Solve exactly the positions with `empties` empties of the games (one per game, up to count;
    resumable); a position file whose result column is the exact score. A WTHOR database is read
    too (its bad games go to ``errors``). ``size``: the games' board size. ``depth`` > 0: instead
    of the exact score, the score of a search to that depth with the shipped pattern evaluation
    (for positions too far from the end to solve: a deep-search test set of the midgame)."""
    cells_list = []
    for line in game_lines(games_path, errors):
        moves, _, _ = parse_game(line, size)
        for P, O, _sign in game_positions(moves, size):
            if size * size - bin(P | O).count("1") == empties and _core.legal_moves_n(P, O, size):
                cells_list.append(cells_of(P, O, size))
                break
        if len(cells_list) >= count:
            break
    with held(out_path):     # one run at a time appends to a file (FileInUse for a second one)
        done = settle_output(out_path, "position", size)
        items = [(c, size, depth) for c in cells_list[done:]]
        with open_text(out_path, "at") as out:
            return run_ordered(_solve_item, items, out, jobs, "search" if depth else "solve", done,
                               len(cells_list), quiet, chunksize=1, cluster=cluster)


def evaluate(path: str, weights_path: Optional[str] = None,
             report: Callable[[str], None] = print, size: int = 8) -> dict[str, float]:
    """Mean absolute error (discs) of the static evaluations against the exact scores of a test set
    (a position file whose result column is exact), classic and pattern, on a size x size board."""
    from othello_engine import weights as weights_mod
    if weights_path:
        weights_mod.load(weights_path, size)
    else:
        weights_mod.ensure_loaded_size(size)
    err_c = err_p = 0.0
    n = 0
    cells_n = size * size
    with open_text(path) as f:
        for number, line in enumerate(f, 1):
            check_position_line(line, path, number, size)
            cells, exact = line[:cells_n], int(line[cells_n + 1:].split()[0])
            P, O = parse_cells(cells, size)
            terms = (_core.evaluation_terms(P, O, _core.FULL_MASK, True) if size == 8
                     else _core.evaluation_terms_n(P, O, size, True))
            err_c += abs(terms.get("classic", terms["total"]) / 100.0 - exact)
            err_p += abs(terms["total"] / 100.0 - exact) if "pattern" in terms else float("nan")
            n += 1
    out = {"positions": n, "classic": err_c / max(1, n), "pattern": err_p / max(1, n)}
    report(f"evaluate: {n} positions of {path}: mean absolute error classic "
           f"{out['classic']:.2f} discs, pattern {out['pattern']:.2f} discs")
    return out
