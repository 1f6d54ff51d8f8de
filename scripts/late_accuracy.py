"""Benchmark: how much the moves of the late midgame lose, against their exact values.

`make` takes positions from games (GGF, one a game, at a chosen number of empties) and solves every
legal move exactly: one line a position, its board string, the side to move and `move:score` for
each move (the exact final disc difference after it, for the side that moved). `run` lets the
engine choose a move in each position at a fixed time and prints the mean number of discs its moves
lose against the best one, and how many of them turn a win into a draw or a loss, or a draw into a
loss. The shipped set, `training/late18_23.txt.gz`, holds 800 positions of 18-23 empties from
matches between this engine and its release.

    python scripts/late_accuracy.py make games.ggf late.txt --empties 18-23 --count 400
    python scripts/late_accuracy.py run training/late18_23.txt.gz --time 0.1 [--tune mid_solve=0]
    python scripts/late_accuracy.py run --by-empties      # the shipped set, a line per empties
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import Iterator

from othello_engine import _core
from othello_engine.board import Board
from othello_engine.engine import Engine, Limit
from othello_engine.ggf import parse_ggf_games
from othello_engine.train.records import open_text

DEFAULT_SET = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "training",
                           "late18_23.txt.gz")
"""The shipped set, found from the script's own place (not the working directory)."""


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def move_values(engine: Engine, board: Board) -> dict[int, int]:
    """The exact final disc difference after each legal move, for the side that moves."""
    values = {}
    for move in board.legal_moves():
        child = board.copy()
        child.push(move)
        if child.is_game_over():
            values[move] = -_core.final_disc_difference(child.player, child.opponent)
        else:
            values[move] = -(engine.search(child, Limit(exact=True)).score // 100)
    return values


def make(games_path: str, out_path: str, fewest: int, most: int, count: int, seed: int) -> int:
    """Append up to count positions (one a game, at a random number of empties in fewest..most,
    with two moves or more) with their moves' exact values; returns how many were written."""
    with open(games_path, encoding="utf-8") as f:
        games = parse_ggf_games(f.read())
    rng = random.Random(seed)
    rng.shuffle(games)
    engine = Engine(hash_mb=64)
    written = 0
    with open_text(out_path, "a") as out:
        for game in games:
            if written >= count:
                break
            want = rng.randint(fewest, most)
            board = game.board.replay()
            for move in game.board.move_stack:
                if board.empties == want and not board.is_game_over() and len(board.legal_moves()) > 1:
                    values = move_values(engine, board)
                    out.write(f"{board.cells()} {'XO'[board.turn]} "
                              + " ".join(f"{m}:{v}" for m, v in values.items()) + "\n")
                    out.flush()
                    written += 1
                    break
                board.push(move)
    return written


def positions(path: str) -> Iterator[tuple[Board, dict[int, int]]]:
    with open_text(path) as f:
        for line in f:
            cells, side, *moves = line.split()
            yield Board.from_cells(cells, side), {int(m): int(v) for m, v in (x.split(":") for x in moves)}


def run(path: str, seconds: float, hash_mb: int,
        by_empties: dict[int, list[int]] | None = None) -> tuple[int, float, int]:
    """(positions, mean disc loss of the engine's moves, result changes) at seconds a move;
    by_empties, if given, gets [positions, discs lost, results changed, searches that ended
    exact] for each number of empties."""
    engine = Engine(hash_mb=hash_mb)
    n = lost = changed = 0
    for board, values in positions(path):
        best = max(values.values())
        result = engine.search(board, Limit(time=seconds))
        got = values[result.best_move]
        flip = sign(got) < sign(best)
        n += 1
        lost += best - got
        changed += flip
        if by_empties is not None:
            row = by_empties.setdefault(board.empties, [0, 0, 0, 0])
            row[0] += 1
            row[1] += best - got
            row[2] += flip
            row[3] += result.exact
    return n, lost / max(1, n), changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="step", required=True)
    mk = sub.add_parser("make", help="solve every move of positions taken from games")
    mk.add_argument("games", help="GGF games, one a line")
    mk.add_argument("out", help="the set to append to (.gz: compressed)")
    mk.add_argument("--empties", default="18-23", help="FEWEST-MOST empties (default 18-23)")
    mk.add_argument("--count", type=int, default=400)
    mk.add_argument("--seed", type=int, default=5)
    rn = sub.add_parser("run", help="the engine's moves at a fixed time, against the exact values")
    rn.add_argument("set", nargs="?", default=DEFAULT_SET)
    rn.add_argument("--time", type=float, default=0.1, help="seconds a move (default 0.1)")
    rn.add_argument("--hash", type=int, default=16, help="table MiB (default 16)")
    rn.add_argument("--by-empties", action="store_true",
                    help="also a line for each number of empties (with the searches that ended exact)")
    rn.add_argument("--tune", action="append", default=[], metavar="NAME=VALUE",
                    help="experiments: set a search tuning knob (_core._set_tuning)")
    args = ap.parse_args(argv)
    if args.step == "make":
        fewest, _, most = args.empties.partition("-")
        try:
            n = make(args.games, args.out, int(fewest), int(most or fewest), args.count, args.seed)
        except OSError as exc:
            print(f"late_accuracy: {exc.filename or args.games}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
        except ValueError:
            print(f"late_accuracy: --empties {args.empties} or {args.games}: cannot be read",
                  file=sys.stderr)
            return 2
        print(f"{n} positions written to {args.out}")
        return 0
    for item in args.tune:
        name, _, value = item.partition("=")
        try:
            _core._set_tuning(name, int(value))
        except ValueError:
            print(f"late_accuracy: --tune {item}: not a knob name and a whole number", file=sys.stderr)
            return 2
    rows: dict[int, list[int]] | None = {} if args.by_empties else None
    try:
        n, loss, changed = run(args.set, args.time, args.hash, rows)
    except OSError as exc:
        print(f"late_accuracy: {args.set}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except (ValueError, KeyError):
        print(f"late_accuracy: {args.set}: not a set of positions with their moves' values",
              file=sys.stderr)
        return 2
    print(f"{n} positions at {args.time:g} s a move{''.join('; ' + t for t in args.tune)}: "
          f"mean loss {loss:.3f} discs, {changed} results changed")
    for empties, (count, discs, flips, exact) in sorted((rows or {}).items()):
        print(f"{empties} empties: {count} positions, mean loss {discs / count:.3f} discs, "
              f"{flips} results changed, {exact} exact")
    return 0


if __name__ == "__main__":
    sys.exit(main())
