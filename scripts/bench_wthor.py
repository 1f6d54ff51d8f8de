"""WTHOR speed: parsing the game files (records read) and replaying every game under the rules
with the compiled core (moves checked, passes found, final score); prints games a second of each.

    python scripts/bench_wthor.py /work/wthor/wthor-database/WTH_*.wtb
"""

from __future__ import annotations

import sys
import time

from othello_engine import wthor


def main(paths: list[str]) -> int:
    if not paths:
        print("usage: python scripts/bench_wthor.py FILE.wtb...", file=sys.stderr)
        return 2
    data = []
    for path in paths:
        with open(path, "rb") as f:
            data.append(f.read())
    t = time.perf_counter()
    files = [wthor.parse_wthor(d) for d in data]
    parse = time.perf_counter() - t
    games = sum(len(f.games) for f in files)
    t = time.perf_counter()
    bad = unfinished = 0
    for wf in files:
        for _, item in wthor.played_games(wf):
            if isinstance(item, wthor.BadGame):
                bad += 1
            elif item[2] is None:
                unfinished += 1
    replay = time.perf_counter() - t
    print(f"files: {len(files)}, games: {games}, bad: {bad}, moves stop before the end: {unfinished}")
    print(f"parse:  {games / parse:,.0f} games/s ({parse:.3f} s)")
    print(f"replay and validate: {games / replay:,.0f} games/s ({replay:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
