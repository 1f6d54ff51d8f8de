"""The protocol fuzzer (scripts/fuzz_protocol.py) in its quick form: a few seconds of hostile lines
per protocol against the real engine process, with every check of the long run."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "fuzz_protocol.py"


def _fuzzer():
    spec = importlib.util.spec_from_file_location("fuzz_protocol", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_protocol"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("protocol", ["uci", "ugi", "nboard"])
def test_quick_fuzz_finds_nothing(protocol: str) -> None:
    figures = _fuzzer().fuzz(protocol, seconds=2.0, max_lines=3000, seed=14)
    assert figures.lines >= 100, figures.report()
    assert figures.errors_answered > 0  # the hostile lines were refused, one error line each
    assert figures.failures == [], figures.report() + "\n" + "\n".join(figures.failures[:5])


def test_fuzzer_finds_a_planted_fault(tmp_path: Path) -> None:
    """The checks can fail: an engine that answers isready late and writes a traceback is caught."""
    fake = tmp_path / "fake.py"
    fake.write_text(
        "import sys, time\n"
        "for line in sys.stdin:\n"
        "    w = line.split()\n"
        "    if w[:1] == ['isready']:\n"
        "        print('readyok', flush=True)\n"
        "    elif w[:1] == ['d']:\n"
        "        print('fen x', flush=True); print('moves', flush=True)\n"
        "    elif w and w[0] not in ('uci', 'stop'):\n"
        "        print('Traceback (most recent call last):', flush=True)\n")
    figures = _fuzzer().fuzz("uci", seconds=1.0, max_lines=50, seed=1, command=[sys.executable, str(fake)])
    assert any("Traceback" in f for f in figures.failures)


def test_script_prints_figures() -> None:
    r = subprocess.run([sys.executable, str(SCRIPT), "--protocol", "nboard", "--lines", "50"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "nboard" in r.stdout and "50 lines" in r.stdout and "0 failures" in r.stdout
