"""Speed of the Python Board layer: random games played through Board (legal_moves, push, the
pass and game-over checks), plies per second per board size; with ``--compare REF`` the same
games through the board.py of another git revision (e.g. ``main``) on the same compiled core.

    python scripts/bench_board.py                     # sizes 8, 10 and 26
    python scripts/bench_board.py --sizes 8 --compare main --rounds 5
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import subprocess
import sys
import tempfile
import time
from types import ModuleType

from othello_engine import board as current


def board_module_at(ref: str) -> ModuleType:
    """othello_engine/board.py as it is at git revision ref, loaded as a module of its own."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    text = subprocess.run(["git", "-C", root, "show", f"{ref}:othello_engine/board.py"],
                          check=True, capture_output=True, text=True).stdout
    path = os.path.join(tempfile.mkdtemp(), f"board_{ref.replace('/', '_')}.py")
    with open(path, "w") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location(f"board_at_{abs(hash(ref))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module     # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def plies_per_second(module: ModuleType, size: int, plies: int, seed: int) -> float:
    """Random games on a size x size board through module's Board until `plies` plies are played."""
    rng = random.Random(seed)
    played = 0
    started = time.perf_counter()
    while played < plies:
        board = module.Board(size) if size != 8 else module.Board()
        while not board.is_game_over():
            moves = board.legal_moves()
            board.push(rng.choice(moves) if moves else module.PASS)
            played += 1
    return played / (time.perf_counter() - started)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[8, 10, 26])
    ap.add_argument("--plies", type=int, default=20000, help="plies per measurement (default 20000)")
    ap.add_argument("--rounds", type=int, default=3, help="measurements per size; the best is shown")
    ap.add_argument("--compare", metavar="REF", help="also time board.py of this git revision")
    args = ap.parse_args()
    modules = [("current", current)]
    if args.compare:
        modules.append((args.compare, board_module_at(args.compare)))
    print(f"load {os.getloadavg()[0]:.2f}")
    for size in args.sizes:
        for name, module in modules:
            if size > getattr(module, "MAX_SIZE", 8):
                continue
            best = max(plies_per_second(module, size, args.plies, seed) for seed in range(args.rounds))
            print(f"{size}x{size}  {name:>10}  {best:>10,.0f} plies/s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
