"""Benchmark: solve FFO endgame positions exactly and check the scores against the suite."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from othello_engine import _core, weights
from othello_engine.board import square_name
from othello_engine.notation import parse_obf


def default_dir() -> Path:
    """$OTHELLO_FFO_DIR, else the first shared/data/ffo found above this script."""
    if "OTHELLO_FFO_DIR" in os.environ:
        return Path(os.environ["OTHELLO_FFO_DIR"])
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "data" / "ffo").is_dir():
            return parent / "shared" / "data" / "ffo"
    return Path("shared/data/ffo")


DEFAULT_DIR = default_dir()
FILES = ((1, "fforum-1-19.obf"), (20, "fforum-20-39.obf"), (40, "fforum-40-59.obf"))


def load_suite(directory: Path) -> dict[int, str]:
    """Position number -> OBF line, for every FFO file found in directory."""
    suite: dict[int, str] = {}
    for first, name in FILES:
        path = directory / name
        if not path.exists():
            continue
        for i, line in enumerate(path.read_text().splitlines()):
            if line.strip():
                suite[first + i] = line
    return suite


def parse_range(text: str) -> list[int]:
    """'1-19' or '40' or '1-5,20-22' -> position numbers."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("positions", nargs="*", default=["1-19"], help="e.g. 1-19 20-39 40-49")
    ap.add_argument("--hash", type=int, default=64, help="transposition table MiB (default 64)")
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="folder of the .obf files")
    ap.add_argument("--limit", type=float, default=0.0, metavar="SECONDS",
                    help="give up a position after this much time (reported as not solved, not as "
                         "wrong; default: no limit)")
    ap.add_argument("--threads", default="1", metavar="N[,M...]",
                    help="search threads; a list such as 1,2 solves every position with each "
                         "count in turn and ends with the time ratios to the first (default 1)")
    ap.add_argument("--eval", dest="evaluation", choices=("pattern", "classic"), default="pattern",
                    help="evaluation of the solve's preparation and ordering (default pattern)")
    ap.add_argument("--weights", help="pattern weights file (default: the shipped one)")
    ap.add_argument("--zebra", metavar="PATH",
                    help="also time Zebra's exact solve of each position, right after ours, through "
                         "scripts/engines/zebra_ugi.py (PATH: the zebra binary, coeffs2.bin beside "
                         "it); wall seconds, as the two run in the same conditions")
    ap.add_argument("--tune", action="append", default=[], metavar="NAME=VALUE",
                    help="experiments: set a core tuning parameter (_core._set_tuning), "
                         "e.g. sort_eval=14")
    args = ap.parse_args(argv)
    pattern = args.evaluation == "pattern"
    why = weights.use(args.weights) if pattern else None
    if why:
        print(why, file=sys.stderr)
        return 2
    for item in args.tune:
        name, _, value = item.partition("=")
        _core._set_tuning(name, int(value))
    print(f"evaluation {args.evaluation}" + "".join(f"; {t}" for t in args.tune)
          + f"; load {os.getloadavg()[0]:.1f}")
    suite = load_suite(args.dir)
    numbers = [n for text in args.positions for n in parse_range(text)]
    counts = [int(t) for t in args.threads.split(",")]
    if args.zebra:
        return against_zebra(suite, numbers, args)
    if len(counts) == 1:
        return solve_all(suite, numbers, args, counts[0])[0]
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_search import parallel_capacity
    print(f"control: {max(counts)} independent perft threads run x{parallel_capacity(max(counts)):.2f} "
          f"as fast as one (the cores this process gets now)")
    walls: dict[int, list[float]] = {t: [] for t in counts}
    wrong = 0
    for n in numbers:
        for t in counts:
            status, times = solve_all(suite, [n], args, t, header=n == numbers[0] and t == counts[0],
                                      label=f"{t}t", summary=False)
            wrong += status
            walls[t] += times
    base = counts[0]
    for t in counts:
        total = sum(walls[t])
        print(f"threads {t}: {total:.2f} s wall" + (
            "" if t == base else f", speed-up x{sum(walls[base]) / total:.2f} over {base} "
            f"(per position: median x{sorted(a / b for a, b in zip(walls[base], walls[t]))[len(walls[t]) // 2]:.2f})"))
    return 1 if wrong else 0


def solve_all(suite: dict[int, str], numbers: list[int], args: argparse.Namespace, threads: int,
              header: bool = True, label: str = "", summary: bool = True) -> tuple[int, list[float]]:
    """Solve the positions on threads threads; (1 if any was wrong else 0, wall seconds each)."""
    search = _core.Search(args.hash, threads)
    walls: list[float] = []
    wrong = 0
    unfinished = 0
    total_nodes = 0
    total_time = 0.0
    total_cpu = 0.0
    if header:
        print(f"{'#':>3} {'emp':>3} {'move':>4} {'score':>5} {'expect':>6} {'nodes':>12} {'wall s':>8} "
              f"{'cpu s':>8} {'Mnps':>6}")
    for n in numbers:
        if n not in suite:
            print(f"{n:>3} missing from {args.dir}", file=sys.stderr)
            wrong += 1
            continue
        board, scored = parse_obf(suite[n])
        expected = max(score for _, score in scored)
        best_moves = {move for move, score in scored if score == expected}
        search.clear()
        t0 = time.perf_counter()
        c0 = time.process_time()
        lines, _depth, nodes, exact = search.run(board.player, board.opponent, board.mask,
                                                 60, 0, 0.0, args.limit, 0, 1, None, solve=1,
                                                 pattern=args.evaluation == "pattern")
        dt = time.perf_counter() - t0
        cpu = time.process_time() - c0
        walls.append(dt)
        move, score, _pv = lines[0]
        discs = score // 100
        ok = exact and discs == expected and move in best_moves
        stopped = not exact and args.limit > 0 and dt >= args.limit
        unfinished += stopped
        wrong += not ok and not stopped
        total_nodes += nodes
        total_time += dt
        total_cpu += cpu
        # nodes per second of CPU time: wall time on a shared machine counts other processes
        print(f"{n:>3} {board.empties:>3} {square_name(move):>4} {discs:>+5} {expected:>+6} "
              f"{nodes:>12} {dt:>8.2f} {cpu:>8.2f} {nodes / cpu / 1e6 if cpu else 0:>6.2f}"
              + (f" {label}" if label else "")
              + ("" if ok else f"  not solved within {args.limit:g} s" if stopped else "  WRONG"),
              flush=True)
    if not summary:
        return (1 if wrong else 0), walls
    print(f"total: {len(numbers)} positions, {wrong} wrong, "
          + (f"{unfinished} not solved within the limit, " if args.limit > 0 else "")
          + f"{total_nodes} nodes, "
          f"{total_time:.2f} s wall, {total_cpu:.2f} s cpu, "
          f"{total_nodes / total_cpu / 1e6 if total_cpu else 0:.2f} Mnps (cpu)")
    return (1 if wrong else 0), walls


def against_zebra(suite: dict[int, str], numbers: list[int], args: argparse.Namespace) -> int:
    """Solve each position with ours (one thread), then with Zebra; print both wall times."""
    from othello_engine.client import EngineClient
    from othello_engine.engine import Limit
    wrapper = Path(__file__).resolve().parent / "engines" / "zebra_ugi.py"
    zebra = EngineClient.popen([sys.executable, "-P", str(wrapper), "--zebra", args.zebra], "uci")
    search = _core.Search(args.hash, 1)
    ours_total = zebra_total = 0.0
    wrong = 0
    print(f"{'#':>3} {'emp':>3} {'expect':>6} {'ours':>5} {'ours s':>8} {'zebra':>5} {'zebra s':>8} {'ratio':>6}")
    try:
        for n in numbers:
            board, scored = parse_obf(suite[n])
            expected = max(score for _, score in scored)
            search.clear()
            t0 = time.perf_counter()
            lines, _d, _nodes, exact = search.run(board.player, board.opponent, board.mask, 60, 0,
                                                  0.0, 0.0, 0, 1, None, solve=1,
                                                  pattern=args.evaluation == "pattern")
            ours = time.perf_counter() - t0
            ours_score = lines[0][1] // 100
            zebra.new_game()
            t0 = time.perf_counter()
            result = zebra.analyse(board, Limit(exact=True))
            theirs = time.perf_counter() - t0
            zebra_score = result.score // 100 if result.score is not None else None
            wrong += (ours_score != expected) + (zebra_score != expected)
            ours_total += ours
            zebra_total += theirs
            print(f"{n:>3} {board.empties:>3} {expected:>+6} {ours_score:>+5} {ours:>8.2f} "
                  f"{zebra_score if zebra_score is not None else '?':>5} {theirs:>8.2f} {ours / theirs:>6.2f}",
                  flush=True)
    finally:
        zebra.close()
    print(f"total: ours {ours_total:.2f} s, zebra {zebra_total:.2f} s, ratio {ours_total / zebra_total:.2f}"
          f"; {wrong} wrong scores")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
