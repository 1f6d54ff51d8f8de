"""Benchmark: the static evaluation's error against exact scores, ours beside Zebra's.

For each test set (a position file whose result column is exact, such as
training/test20_round7.txt.gz) this prints the mean absolute error in discs of our classic and
pattern evaluations and of Zebra's pattern evaluation (coeffs2.bin) on the same positions. It is
the yardstick for the issue's target of 4 discs at 20 empties: what a strong engine's learned
evaluation scores on the very same positions.

Zebra has no command that prints its static evaluation, so the script compiles a small C
program of ours (below) against the object files of a Zebra build (GitHub lk16/zebra, built as
docs/development.md ("Zebra as an opponent") says: its `make` leaves the .o files in its directory) and
runs it there, where coeffs2.bin is. The program sets up each position as Zebra's own game
files do and calls Zebra's `pattern_evaluation`, the function its search calls at the leaves
(in 1/128 disc). Needs gcc and zlib's development files, as building Zebra does.

    python scripts/zebra_eval_error.py --zebra-src /path/to/zebra training/test20*.txt.gz

With --results, the yardstick is instead the final results of the games of a WTHOR database (one
position a game at each number of empties of --empties, the side to move having a move; games
that end unfinished are left out): the results of people's games favour neither engine's
evaluation, and they reach into the midgame, where no exact score can. They are noisy labels (a
game's later mistakes move them), so each line also gives the mean per-position difference of the
two evaluations' squared errors with its 95% interval: the noise adds the same to both errors,
and a difference outside the interval is one evaluation's, not the labels'.

    python scripts/zebra_eval_error.py --zebra-src /path/to/zebra --results WTH_2020.wtb --empties 44,36,28,20
"""

from __future__ import annotations

import argparse
import glob
import math
import os
import subprocess
import sys
import tempfile

from othello_engine import _core, train, weights
from othello_engine.train.records import game_positions
from othello_engine.wthor import BadRecord, WthorGame, read_wthor, replay_game

HARNESS = r"""
#include <stdio.h>
#include "constant.h"
#include "game.h"
#include "getcoeff.h"
#include "globals.h"
#include "moves.h"
#include "search.h"

int quiet = 1;                       /* defined by zebra.c, which is not linked */

int main(int argc, char **argv) {
  char line[256], tmp[4096];
  int side;
  snprintf(tmp, sizeof tmp, "%s/pos.txt", argv[1]);
  global_setup(0, 10);
  while (fgets(line, sizeof line, stdin)) {
    FILE *t = fopen(tmp, "w");
    fwrite(line, 1, 64, t);          /* side to move is X: our files put it first */
    fputs("\nBlack\n", t);
    fclose(t);
    game_init(tmp, &side);
    piece_count[BLACKSQ][disks_played] = disc_count(BLACKSQ);
    piece_count[WHITESQ][disks_played] = disc_count(WHITESQ);
    printf("%d\n", pattern_evaluation(side));
  }
  return 0;
}
"""

# Object files of a Zebra build that are programs of their own (their main()).
NOT_LINKED = {"zebra.o", "scrzebra.o", "booktool.o", "practice.o", "enddev.o"}


def build(src: str, workdir: str) -> str:
    """Compile the harness against the Zebra build in `src`; the path of the program."""
    objs = sorted(p for p in glob.glob(os.path.join(src, "*.o"))
                  if os.path.basename(p) not in NOT_LINKED)
    if not objs:
        raise SystemExit(f"no object files in {src}: build Zebra there first (its make)")
    c_file = os.path.join(workdir, "zebra_static_eval.c")
    with open(c_file, "w") as f:
        f.write(HARNESS)
    exe = os.path.join(workdir, "zebra_static_eval")
    cmd = ["gcc", "-O2", "-fwrapv", "-w", "-I", src, "-o", exe, c_file, *objs, "-lm", "-lz"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit("could not build the harness:\n" + done.stderr[-2000:])
    return exe


def zebra_scores(exe: str, src: str, workdir: str, lines: list[str]) -> list[float]:
    """Zebra's static evaluation (discs, side to move) of each position line."""
    done = subprocess.run([exe, workdir], input="".join(lines), capture_output=True, text=True,
                          cwd=src)
    if done.returncode:
        raise SystemExit(f"the harness failed (exit {done.returncode}):\n"
                         + (done.stderr or done.stdout)[-2000:])
    values = [int(v) / 128.0 for v in done.stdout.split()]
    if len(values) != len(lines):
        raise SystemExit(f"the harness answered {len(values)} of {len(lines)} positions")
    return values


def result_positions(games: list[WthorGame], empties: list[int]) -> dict[int, list[tuple[int, int, int]]]:
    """For each number of `empties`, (P, O, result) from each finished game of `games` (one
    replay a game): the position before the move at that many empty squares (P to move, with a
    legal move), and the game's final disc difference from P's side (empties to the winner).
    Games that never reach such a position are left out at that number (a game passes each
    number of empties at most once: a pass yields no position of its own)."""
    out: dict[int, list[tuple[int, int, int]]] = {e: [] for e in empties}
    for game in games:
        try:
            moves, black_diff = replay_game(game)
        except BadRecord:
            continue
        if black_diff is None:
            continue
        for P, O, sign in game_positions(moves):
            e = 64 - (P | O).bit_count()
            if e in out and _core.legal_moves(P, O):
                out[e].append((P, O, black_diff * sign))
    return out


def position_line(P: int, O: int) -> str:
    """A test-set line's board: 64 cells, X the side to move, O the opponent."""
    return "".join("X" if P >> i & 1 else "O" if O >> i & 1 else "-" for i in range(64)) + "\n"


def compare(ours: list[float], zebra: list[float], results: list[int]) -> tuple[float, float, float, float]:
    """(our mean absolute error, Zebra's, the mean of our squared error less Zebra's per position,
    the half-width of that mean's 95% interval)."""
    n = len(results)
    mae_ours = sum(abs(v - t) for v, t in zip(ours, results)) / n
    mae_zebra = sum(abs(v - t) for v, t in zip(zebra, results)) / n
    d = [(o - t) ** 2 - (z - t) ** 2 for o, z, t in zip(ours, zebra, results)]
    mean = sum(d) / n
    half = 1.96 * math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1) / n) if n > 1 else math.inf
    return mae_ours, mae_zebra, mean, half


def parse_empties(text: str) -> list[int]:
    """The --empties list ("44,36,28"); ValueError with the reason when it is not one."""
    try:
        empties = [int(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"--empties {text!r}: expected numbers such as 44,36,28") from None
    if any(not 1 <= e <= 59 for e in empties):
        raise ValueError(f"--empties {text!r}: each number must lie in 1..59")
    return empties


def by_results(args: argparse.Namespace, games: list[WthorGame], empties: list[int], exe: str,
               workdir: str) -> int:
    """The --results table: each engine's static evaluation against the games' final results."""
    if args.weights:
        try:
            weights.load(args.weights)
        except OSError as exc:
            print(f"--weights {args.weights}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        except ValueError as exc:
            print(f"--weights {args.weights}: {exc}", file=sys.stderr)
            return 2
    elif not weights.ensure_loaded():
        print(f"our pattern weights could not be loaded: {weights.load_error}", file=sys.stderr)
        return 2
    print(f"{'empties':>7} {'positions':>9} {'ours':>7} {'zebra':>7}   ours - zebra, squared error (95%)")
    positions = result_positions(games, empties)
    for e in empties:
        pos = positions[e]
        if len(pos) < 2:
            print(f"{e:>7} {len(pos):>9}   too few games reach {e} empties", flush=True)
            continue
        ours = [_core.evaluation_terms(P, O, pattern=True)["total"] / 100.0 for P, O, _ in pos]
        zebra = zebra_scores(exe, args.zebra_src, workdir, [position_line(P, O) for P, O, _ in pos])
        mae_ours, mae_zebra, mean, half = compare(ours, zebra, [t for _, _, t in pos])
        print(f"{e:>7} {len(pos):>9} {mae_ours:>7.2f} {mae_zebra:>7.2f}   {mean:+.1f} +- {half:.1f}",
              flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tests", nargs="*", help="position files with exact scores (.txt or .txt.gz)")
    ap.add_argument("--zebra-src", required=True,
                    help="directory of a Zebra build: its .o files and coeffs2.bin")
    ap.add_argument("--weights", help="our pattern weights (default: the shipped file)")
    ap.add_argument("--results", metavar="WTB",
                    help="instead of test sets: the final results of this WTHOR file's games")
    ap.add_argument("--empties", default="44,36,28,20",
                    help="with --results: the numbers of empties to compare at (default 44,36,28,20)")
    args = ap.parse_args(argv)
    if bool(args.results) == bool(args.tests):
        ap.error("give test sets, or --results with a WTHOR file (not both)")
    empties: list[int] = []
    games: list[WthorGame] = []
    if args.results:
        try:
            empties = parse_empties(args.empties)
            games = read_wthor(args.results).games
        except OSError as exc:
            print(f"--results {args.results}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        except ValueError as exc:
            print(str(exc), file=sys.stderr)
            return 2
    if not os.path.exists(os.path.join(args.zebra_src, "coeffs2.bin")):
        print(f"no coeffs2.bin in {args.zebra_src}", file=sys.stderr)
        return 2
    if args.results:
        with tempfile.TemporaryDirectory() as workdir:
            return by_results(args, games, empties, build(args.zebra_src, workdir), workdir)
    print(f"{'test set':<40} {'positions':>9} {'classic':>8} {'pattern':>8} {'zebra':>8}")
    with tempfile.TemporaryDirectory() as workdir:
        exe = build(args.zebra_src, workdir)
        for path in args.tests:
            with train.open_text(path) as f:
                lines = [line for line in f if line.strip()]
            ours = train.evaluate(path, args.weights, report=lambda _line: None)
            zebra = zebra_scores(exe, args.zebra_src, workdir, lines)
            err = sum(abs(z - int(line[65:68])) for z, line in zip(zebra, lines)) / len(lines)
            print(f"{os.path.basename(path):<40} {len(lines):>9} {ours['classic']:>8.2f} "
                  f"{ours['pattern']:>8.2f} {err:>8.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
