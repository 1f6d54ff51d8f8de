"""scripts/zebra_eval_error.py, our static evaluation's error beside Zebra's: its refusal without a
Zebra build, and with one ($ZEBRA_BIN in the directory of a Zebra build, its .o files and
coeffs2.bin beside it) Zebra's evaluation of lopsided positions, where a wrong sign or scale
could not hide."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "zebra_eval_error.py"
TEST20 = ROOT / "training" / "test20_round7.txt.gz"


def zebra_build() -> Path | None:
    path = os.environ.get("ZEBRA_BIN")
    if not path:
        return None
    src = Path(path).resolve().parent
    if (src / "coeffs2.bin").is_file() and (src / "getcoeff.o").is_file():
        return src
    return None


ZEBRA_SRC = zebra_build()


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=300)


def test_refuses_a_directory_without_zebra(tmp_path):
    done = run(str(TEST20), "--zebra-src", str(tmp_path))
    assert done.returncode == 2
    assert "coeffs2.bin" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.skipif(ZEBRA_SRC is None,
                    reason="no Zebra build: set ZEBRA_BIN to the zebra binary in its build directory")
def test_zebra_error_on_lopsided_positions(tmp_path):
    # positions won or lost by 30 discs or more: evaluations of the wrong sign, or in units other
    # than discs, would be about 30 discs or more off on average
    with gzip.open(TEST20, "rt") as f:
        lines = [line for line in f if abs(int(line[65:68])) >= 30][:40]
    assert len(lines) >= 10
    test = tmp_path / "lopsided.txt"
    test.write_text("".join(lines))
    done = run(str(test), "--zebra-src", str(ZEBRA_SRC))
    assert done.returncode == 0, done.stderr
    row = done.stdout.splitlines()[-1].split()
    assert row[0] == "lopsided.txt" and int(row[1]) == len(lines)
    classic, pattern, zebra = (float(x) for x in row[2:5])
    assert zebra < 15 and pattern < 15
    assert classic > 0
