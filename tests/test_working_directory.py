"""No tool runs code from the user's working directory: a planted ``othello_engine/`` package
there is never imported, whether by the tool, the engines it starts or its cluster workers."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from uci_support import command

HAVE_RAY = importlib.util.find_spec("ray") is not None


def plant(folder: Path) -> Path:
    """An ``othello_engine`` package in ``folder`` that leaves a mark when imported, then fails."""
    package = folder / "othello_engine"
    package.mkdir()
    mark = folder / "planted-package-was-imported"
    for name in ("__init__.py", "__main__.py"):
        (package / name).write_text(f"open({str(mark)!r}, 'a').write('imported\\n')\n"
                                    "raise SystemExit('the planted package ran')\n")
    return mark


def run(args: list[str], cwd: Path, stdin: str = "", timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=timeout)


def test_the_engine_command(tmp_path: Path) -> None:
    mark = plant(tmp_path)
    out = run([command("othello-engine")], tmp_path, "uci\nisready\nquit\n")
    assert "readyok" in out.stdout and not mark.exists()


def test_analyze_starts_its_engines_off_the_working_directory(tmp_path: Path) -> None:
    mark = plant(tmp_path)
    (tmp_path / "positions.txt").write_text("f5d6\n")
    out = run([command("othello-analyze"), "--depth", "2", "--json", "positions.txt"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert '"best"' in out.stdout or "best" in out.stdout
    assert not mark.exists()


def test_match_with_engines_from_this_python(tmp_path: Path) -> None:
    mark = plant(tmp_path)
    engine = f"cmd={command('othello-engine')}"
    out = run([command("othello-match"), "--engine", engine, "name=a", "depth=1", "--engine", engine,
               "name=b", "depth=1", "--games", "2", "--quiet"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert not mark.exists()


def test_the_library_command_of_this_python(tmp_path: Path) -> None:
    from othello_engine.client import python_command
    mark = plant(tmp_path)
    out = run(python_command(), tmp_path, "uci\nisready\nquit\n")
    assert "readyok" in out.stdout and not mark.exists()
    # the plain form would have run the planted package: the test plants a real trap
    bad = run([sys.executable, "-m", "othello_engine"], tmp_path, "uci\nquit\n")
    assert mark.exists() and "planted" in bad.stderr


@pytest.mark.cluster
@pytest.mark.skipif(not HAVE_RAY, reason="Ray is not installed (pip install 'othello_engine[cluster]')")
def test_cluster_workers_do_not_import_the_working_directory(tmp_path: Path) -> None:
    mark = plant(tmp_path)
    (tmp_path / "positions.txt").write_text("f5d6\nf5f6\n")
    out = run([command("othello-analyze"), "--depth", "2", "--json", "--cluster", "local", "positions.txt"],
              tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    assert not mark.exists()
