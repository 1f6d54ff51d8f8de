"""Rebuild a weights file from the repository by a recipe of ``othello-train`` steps, and compare it with its target.

    python scripts/rebuild_weights.py training/recipe.txt [--scratch DIR]

A recipe is a text file; ``#`` starts a comment. Its lines:

    target PATH           the file the result must reproduce (relative to the repository root)
    tolerance N           accept a result whose entries differ from the target's by at most N
                          centi-discs (default 0: the same entries)
    othello-train STEP ...  one step, run from the repository root: inputs are repository files
                          (``training/round7_games.txt.gz``, ``training/round7.weights``) or
                          earlier steps' outputs; ``{scratch}`` names the scratch directory, where
                          every output goes. A step's output is its ``--out`` (fit, average),
                          else its second file (``label GAMES OUT``; ``generate OUT``: its first).

The last step's output is the result. Steps run in order, each as its own process on one BLAS
thread (so that a sum is added in the same order on every machine). After a step the runner
records its output's sha256 in ``{scratch}/checksums.txt``; a rerun skips a step whose output
still has the recorded checksum and whose earlier steps were skipped or remade the same, removes
the output of a step whose inputs changed, and lets an interrupted step resume (``label`` and
``generate`` append to their file). Per step it prints the time, the peak memory of its largest
process and the disk the scratch directory uses. At the end it prints the result's sha256 and
whether it is bit-identical to the target, has the same entries (the file's zlib stream can
differ across zlib versions), or the largest difference of an entry in centi-discs.

Exit status: 0 when the result matches the target (within the tolerance), 1 when not, 2 for a bad
recipe or a step that failed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parent.parent
PINNED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""One BLAS thread in every step: a dot product split over threads adds in another order."""


class RecipeError(ValueError):
    """A recipe line that cannot be run; the text names the line."""


@dataclass
class Recipe:
    target: Optional[Path] = None
    tolerance: int = 0
    steps: list[list[str]] = field(default_factory=list)
    """Each step's othello-train arguments, ``{scratch}`` not yet replaced."""


def parse_recipe(text: str, name: str = "recipe") -> Recipe:
    recipe = Recipe()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise RecipeError(f"{name}:{number}: {exc}") from None
        if words[0] == "target" and len(words) == 2:
            recipe.target = REPO / words[1]
        elif words[0] == "tolerance" and len(words) == 2 and words[1].isdigit():
            recipe.tolerance = int(words[1])
        elif words[0] == "othello-train" and len(words) >= 2:
            recipe.steps.append(words[1:])
            step_output(words[1:], Path("."))   # a step with no output is an error now, not later
        else:
            raise RecipeError(f"{name}:{number}: expected 'target PATH', 'tolerance N' or "
                              f"'othello-train STEP ...', got {line!r}")
    if not recipe.steps:
        raise RecipeError(f"{name}: no step")
    return recipe


def expand(args: list[str], scratch: Path) -> list[str]:
    return [a.replace("{scratch}", str(scratch)) for a in args]


def step_output(args: list[str], scratch: Path) -> Path:
    """The file a step writes: its --out (fit, average), generate's first file, the other steps'
    second."""
    words = expand(args, scratch)
    files: list[str] = []
    i = 1
    while i < len(words):
        w = words[i]
        if w == "--out" and i + 1 < len(words):
            return REPO / words[i + 1]
        if w.startswith("-"):
            i += 1 if w in ("-q", "--quiet") or "=" in w else 2
            continue
        files.append(w)
        i += 1
    wanted = 1 if words[0] == "generate" else 2
    if words[0] == "evaluate" or len(files) < wanted:
        raise RecipeError(f"step {' '.join(args)!r}: it names no output file")
    return REPO / files[wanted - 1]


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_records(path: Path) -> dict[str, str]:
    """step text -> the sha256 its output had when the step ended."""
    records: dict[str, str] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            digest, _, step = line.partition("  ")
            if step:
                records[step] = digest
    return records


def disk_use(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_step(args: list[str]) -> tuple[int, float, int]:
    """(exit status, seconds, peak resident memory in bytes of its largest process)."""
    env = dict(os.environ, **PINNED)
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-P", "-m", "othello_engine", "train", *args], cwd=REPO, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, time.monotonic() - started, usage.ru_maxrss * 1024


def compare(result: Path, target: Path, tolerance: int) -> tuple[bool, str]:
    from othello_engine import weights
    if sha256(result) == sha256(target):
        return True, f"bit-identical to {target.relative_to(REPO)}"
    with open(target, "rb") as f:       # the board size the target's header names
        size = weights.HEADER.unpack(f.read(weights.HEADER.size))[3]
    a, b = weights.read(str(result), size), weights.read(str(target), size)
    if len(a) != len(b):
        return False, f"{len(a)} entries, the target {len(b)}: not the same layout"
    diff = max((abs(x - y) for x, y in zip(a, b)), default=0)
    differing = sum(x != y for x, y in zip(a, b))
    if diff == 0:
        return True, "the same entries as the target (the files' zlib streams differ)"
    verdict = "within" if diff <= tolerance else "beyond"
    return diff <= tolerance, (f"{differing} of {len(a)} entries differ, by at most {diff} centi-discs "
                               f"({verdict} the tolerance of {tolerance})")


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("recipe", help="recipe file (e.g. training/recipe.txt)")
    ap.add_argument("--scratch", default="rebuild-scratch",
                    help="directory for the steps' outputs (default ./rebuild-scratch)")
    args = ap.parse_args(argv)
    try:
        recipe = parse_recipe(Path(args.recipe).read_text(), args.recipe)
    except (OSError, UnicodeDecodeError, RecipeError) as exc:
        print(f"rebuild_weights: {exc}", file=sys.stderr)
        return 2
    scratch = Path(args.scratch).resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    log = scratch / "checksums.txt"
    records = read_records(log)
    kept: dict[str, str] = {}
    same_so_far = True   # every earlier step was skipped or remade its recorded output
    total = time.monotonic()
    out = Path()
    for n, step in enumerate(recipe.steps, 1):
        text = shlex.join(step)
        out = step_output(step, scratch)
        old = records.get(text)
        if same_so_far and old is not None and out.exists() and sha256(out) == old:
            kept[text] = old
            print(f"step {n}: skipped, {out.name} has its recorded checksum", flush=True)
            continue
        if out.exists() and (old is not None or not same_so_far):
            out.unlink()   # made from other inputs, or changed since: make it anew
        print(f"step {n}: othello-train {shlex.join(expand(step, scratch))}", flush=True)
        status, seconds, peak = run_step(expand(step, scratch))
        if status != 0 or not out.exists():
            print(f"rebuild_weights: step {n} failed (exit status {status})", file=sys.stderr)
            return 2
        digest = sha256(out)
        same_so_far = same_so_far and digest == old
        kept[text] = digest
        log.write_text("".join(f"{d}  {s}\n" for s, d in kept.items()))
        print(f"step {n}: {seconds:.1f} s, peak memory {peak / 2**20:.0f} MB, output "
              f"{out.stat().st_size / 2**20:.1f} MB, scratch {disk_use(scratch) / 2**20:.1f} MB",
              flush=True)
    print(f"result {out.relative_to(REPO) if out.is_relative_to(REPO) else out}: sha256 {sha256(out)} "
          f"({time.monotonic() - total:.1f} s)")
    if recipe.target is None:
        print("no target to compare with")
        return 0
    try:
        ok, what = compare(out, recipe.target, recipe.tolerance)
    except (OSError, ValueError) as exc:
        print(f"rebuild_weights: {exc}", file=sys.stderr)
        return 2
    print(("matches: " if ok else "DIFFERS: ") + what)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
