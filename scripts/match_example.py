"""Example match through the Python API: our engine at depth 6 against itself at depth 4.

Plays 16 games (8 openings of the shipped set, colours swapped), 2 at a time, in well under a
minute, then prints the report and where the games went:

    python scripts/match_example.py [--games 16] [--ggf example.ggf]
"""

from __future__ import annotations

import argparse
import sys
import time

from othello_engine.client import EngineSpec, TimeControl
from othello_engine.match import GameResult, MatchConfig, MatchResult, format_report, load_openings, run_match


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=16)
    ap.add_argument("--ggf", default="example.ggf")
    args = ap.parse_args()
    engine = (sys.executable, "-P", "-m", "othello_engine")
    openings, _ = load_openings()
    config = MatchConfig(
        engines=(EngineSpec("depth6", engine, tc=TimeControl(depth=6), options=(("Hash", "16"),)),
                 EngineSpec("depth4", engine, tc=TimeControl(depth=4))),
        openings=tuple(openings), games=args.games, concurrency=2)
    started = time.monotonic()
    with open(args.ggf, "w") as ggf:
        def on_game(game: GameResult, state: MatchResult) -> None:
            ggf.write(game.ggf + "\n")
            print(f"game {game.number}: {game.black} vs {game.white} {game.result_text} "
                  f"({game.discs:+d} discs for black)" if game.discs is not None else
                  f"game {game.number}: {game.black} vs {game.white} {game.result_text} ({game.reason})",
                  file=sys.stderr)
        result = run_match(config, on_game=on_game)
    print(format_report(result))
    print(f"{len(result.games)} games in {time.monotonic() - started:.1f} s; records in {args.ggf}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
