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
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile

from othello_engine import train

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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tests", nargs="+", help="position files with exact scores (.txt or .txt.gz)")
    ap.add_argument("--zebra-src", required=True,
                    help="directory of a Zebra build: its .o files and coeffs2.bin")
    ap.add_argument("--weights", help="our pattern weights (default: the shipped file)")
    args = ap.parse_args(argv)
    if not os.path.exists(os.path.join(args.zebra_src, "coeffs2.bin")):
        print(f"no coeffs2.bin in {args.zebra_src}", file=sys.stderr)
        return 2
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
