"""Rebuilding weights from the repository: the recipe runner (scripts/rebuild_weights.py) on a
scaled-down recipe, and the determinism of the steps it relies on (label, fit)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from uci_support import command

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "rebuild_weights.py"
CI_RECIPE = REPO / "tests" / "rebuild" / "recipe.txt"
GAMES = REPO / "training" / "round7_games.txt.gz"


def rebuild(tmp_path: Path, recipe: Path = CI_RECIPE) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", str(SCRIPT), str(recipe), "--scratch", "scratch"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)


def runner() -> ModuleType:
    """scripts/rebuild_weights.py as a module (its recipe parser)."""
    if "rebuild_weights" in sys.modules:
        return sys.modules["rebuild_weights"]
    spec = importlib.util.spec_from_file_location("rebuild_weights", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_scaled_down_recipe_rebuilds_its_committed_weights(tmp_path: Path) -> None:
    """Labels of 40 committed games and a short fit reproduce tests/rebuild/expected.weights.
    Bit for bit is what this machine gives; the recipe's tolerance (2 centi-discs) also passes,
    because another numpy build may add a sum in another order and move an entry by one: the
    runner then says so, and the test accepts it rather than fail on a BLAS or numpy upgrade."""
    proc = rebuild(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "step 1: othello-train label" in proc.stdout and "step 2: othello-train fit" in proc.stdout
    assert "peak memory" in proc.stdout and "scratch" in proc.stdout
    verdict = proc.stdout.strip().splitlines()[-1]
    assert verdict.startswith("matches: ") and ("bit-identical" in verdict or "same entries" in verdict
                                                or "within the tolerance" in verdict), verdict
    if "bit-identical" in verdict:
        assert sha256(tmp_path / "scratch" / "ci.weights") == sha256(REPO / "tests" / "rebuild" / "expected.weights")

    # a rerun skips every step whose output still has its recorded checksum
    again = rebuild(tmp_path)
    assert again.returncode == 0
    assert "step 1: skipped" in again.stdout and "step 2: skipped" in again.stdout

    # a changed intermediate file is made anew; it comes out the same, so the fit is not redone
    with open(tmp_path / "scratch" / "r7.pos", "a") as f:
        f.write("garbage\n")
    third = rebuild(tmp_path)
    assert third.returncode == 0, third.stderr
    assert "step 1: othello-train label" in third.stdout and "step 2: skipped" in third.stdout


def test_a_result_that_differs_from_its_target_is_reported_with_the_largest_difference(tmp_path: Path) -> None:
    recipe = tmp_path / "recipe.txt"
    recipe.write_text(CI_RECIPE.read_text().replace("target tests/rebuild/expected.weights",
                                                    "target training/round7.weights"))
    proc = rebuild(tmp_path, recipe)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "DIFFERS: " in proc.stdout and "centi-discs (beyond the tolerance of 2)" in proc.stdout


def test_a_bad_recipe_line_is_named(tmp_path: Path) -> None:
    recipe = tmp_path / "recipe.txt"
    recipe.write_text("target training/round7.weights\nmake everything\n")
    proc = rebuild(tmp_path, recipe)
    assert proc.returncode == 2
    assert "recipe.txt:2: expected 'target PATH'" in proc.stderr and "Traceback" not in proc.stderr


def train(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> None:
    subprocess.run([command("othello-train"), *args, "--quiet"], cwd=tmp_path, check=True,
                   capture_output=True, timeout=300, env=None if env is None else dict(os.environ, **env))


def test_labels_do_not_depend_on_the_number_of_jobs(tmp_path: Path) -> None:
    for jobs in ("1", "2"):
        train(tmp_path, "label", str(GAMES), f"j{jobs}.pos", "--weights", str(REPO / "training" / "round7.weights"),
              "--depth", "3", "--limit", "16", "--jobs", jobs)
    assert (tmp_path / "j1.pos").read_bytes() == (tmp_path / "j2.pos").read_bytes()


def test_the_fit_does_not_depend_on_the_blas_thread_count(tmp_path: Path) -> None:
    """A BLAS dot product over tens of thousands of positions adds in an order set by its thread
    count (before, one thread and two gave other weights); the fit sums with numpy instead."""
    train(tmp_path, "label", str(GAMES), "r.pos", "--limit", "400", "--jobs", "1")
    for threads in ("1", "2"):
        train(tmp_path, "fit", "r.pos", "--out", f"t{threads}.weights", "--phases", "7",
              env={"OPENBLAS_NUM_THREADS": threads, "OMP_NUM_THREADS": threads})
    assert (tmp_path / "t1.weights").read_bytes() == (tmp_path / "t2.weights").read_bytes()


def test_the_shipped_recipe_names_committed_files_and_docs_show_it_as_it_is() -> None:
    """training/recipe.txt reads only files of the repository (besides its scratch outputs), and
    docs/training.md lists its lines as they are (the page keeps a copy for readers)."""
    text = (REPO / "training" / "recipe.txt").read_text()
    recipe = runner().parse_recipe(text, "training/recipe.txt")
    inputs = {word for step in recipe.steps for word in step if word.startswith(("training/", "othello_engine/"))}
    assert "training/round11.weights" in inputs
    assert recipe.target is not None and recipe.target.is_file()
    assert all((REPO / name).is_file() for name in inputs), sorted(inputs)
    lines = [line for line in text.splitlines(keepends=True) if not line.startswith("#")]
    page = (REPO / "docs" / "training.md").read_text()
    listing = page.split("`training/recipe.txt`:\n\n```text\n", 1)[1].split("```", 1)[0]
    assert listing == "".join(lines)
