"""othello-match shows each engine's evaluation, and refuses an engine that says its evaluation
is unavailable (it would play the whole match on a fallback) unless asked to play on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from uci_support import command


def match(tmp_path: Path, *extra: str, weights: str = "") -> subprocess.CompletedProcess[str]:
    engine = command("othello-engine")
    first = f"cmd=env OTHELLO_ENGINE_WEIGHTS={weights} {engine}" if weights else f"cmd={engine}"
    return subprocess.run([command("othello-match"), "--engine", first, "name=a", "depth=1",
                           "--engine", f"cmd={engine}", "name=b", "depth=1", "--games", "2", "--quiet",
                           "--ggf", "", "--json", str(tmp_path / "m.json"), *extra],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)


def test_the_report_names_each_engines_evaluation(tmp_path: Path) -> None:
    out = match(tmp_path)
    assert out.returncode == 0, out.stderr
    assert "; evaluation pattern" in out.stdout
    data = json.loads((tmp_path / "m.json").read_text())
    assert [e["evaluation"] for e in data["engines"]] == ["pattern", "pattern"]


def test_an_engine_without_its_evaluation_is_refused(tmp_path: Path) -> None:
    out = match(tmp_path, weights=str(tmp_path / "missing.weights"))
    assert out.returncode != 0
    message = out.stderr + out.stdout
    assert "'a'" in message and "evaluation unavailable" in message and "--allow-eval-fallback" in message
    assert "Traceback" not in message


def test_asked_to_play_on_the_fallback_shows_in_the_report(tmp_path: Path) -> None:
    out = match(tmp_path, "--allow-eval-fallback", weights=str(tmp_path / "missing.weights"))
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "m.json").read_text())
    assert [e["evaluation"] for e in data["engines"]] == ["classic (fallback)", "pattern"]
    assert "evaluation classic (fallback)" in out.stdout


def test_a_chosen_classic_evaluation_is_shown_as_such(tmp_path: Path) -> None:
    engine = command("othello-engine")
    out = subprocess.run([command("othello-match"), "--engine", f"cmd={engine}", "name=a", "depth=1",
                          "option.Evaluation=classic", "--engine", f"cmd={engine}", "name=b", "depth=1",
                          "--games", "2", "--quiet", "--ggf", ""], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "a: uci" in out.stdout and "; evaluation classic" in out.stdout


def test_a_board_size_without_weights_shows_the_fallback(tmp_path: Path) -> None:
    # the engine says so at its first search on the size (4x4 has no pattern evaluation), not at
    # the handshake, and the report follows what it said
    out = match(tmp_path, "--size", "4")
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "m.json").read_text())
    assert [e["evaluation"] for e in data["engines"]] == ["classic (fallback)"] * 2
    assert "evaluation classic (fallback)" in out.stdout and "evaluation pattern" not in out.stdout


@pytest.mark.parametrize("size", ["10", "14"])  # its own weights, and 12x12's borrowed
def test_a_board_size_with_weights_keeps_its_pattern_evaluation(tmp_path: Path, size: str) -> None:
    out = match(tmp_path, "--size", size)
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "m.json").read_text())
    assert [e["evaluation"] for e in data["engines"]] == ["pattern", "pattern"]
