"""scripts/zebra_eval_error.py, our static evaluation's error beside Zebra's: its refusal without a
Zebra build, and with one ($ZEBRA_BIN in the directory of a Zebra build, its .o files and
coeffs2.bin beside it) Zebra's evaluation of lopsided positions, where a wrong sign or scale
could not hide. --results (the games' final results as the labels): its positions and labels
against the reference rules, its statistics by hand, its refusals, and a run with Zebra."""

from __future__ import annotations

import gzip
import importlib.util
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import reference_rules as ref

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "zebra_eval_error.py"
TEST20 = ROOT / "training" / "test20_round7.txt.gz"
WTB = Path(__file__).resolve().parent / "data" / "WTH_2021.wtb"


def load_script():
    spec = importlib.util.spec_from_file_location("zebra_eval_error", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def reference_positions(empties: int) -> list[tuple[int, int, int]]:
    """What --results should take from the fixture, by the reference rules alone: in each finished
    game, the position before the move at `empties` empties whose side to move has a move (bit
    boards of that side and the other), and the final result from that side's view."""
    from othello_engine import wthor
    out = []
    for game in wthor.read_wthor(str(WTB)).games:
        grid, color, found = ref.start_grid(8), ref.BLACK, None
        for byte in game.moves:
            if byte == 0:
                break
            if ref.status(grid, color) == "pass":
                grid, color = ref.play(grid, color, None), ref.other(color)
            black, white = ref.bitboards(grid)
            if found is None and 64 - bin(black | white).count("1") == empties:
                found = (black, white) if color == ref.BLACK else (white, black), color
            grid, color = ref.play(grid, color, (byte // 10 - 1, byte % 10 - 1)), ref.other(color)
        if ref.status(grid, color) != "over" or found is None:
            continue
        (P, O), mover = found
        score = ref.final_score(grid)
        out.append((P, O, score if mover == ref.BLACK else -score))
    return out


@pytest.mark.parametrize("empties", [44, 30, 12])
def test_result_positions_follow_the_reference_rules(empties: int) -> None:
    from othello_engine import wthor
    got = load_script().result_positions(wthor.read_wthor(str(WTB)).games, [empties, 20])[empties]
    assert len(got) > 200
    assert got == reference_positions(empties)
    assert any(t > 0 for _, _, t in got) and any(t < 0 for _, _, t in got)


def test_comparison_statistics_by_hand() -> None:
    mae_ours, mae_zebra, mean, half = load_script().compare([1.0, -2.0, 4.0], [0.0, 2.0, 1.0], [2, 0, 0])
    assert mae_ours == pytest.approx(7 / 3) and mae_zebra == pytest.approx(5 / 3)
    d = [1 - 4, 4 - 4, 16 - 1]          # squared errors, ours less Zebra's
    m = sum(d) / 3
    assert mean == pytest.approx(m)
    assert half == pytest.approx(1.96 * math.sqrt(sum((x - m) ** 2 for x in d) / 2 / 3))


@pytest.mark.parametrize("args, message", [
    (["--results", str(WTB), "--empties", "44,x"], "--empties '44,x': expected numbers"),
    (["--results", str(WTB), "--empties", "60"], "each number must lie in 1..59"),
    (["--results", "no-such.wtb"], "--results no-such.wtb: No such file or directory"),
    (["--results", str(TEST20)], "WTH"),
])
def test_results_mode_refuses_bad_input(tmp_path, args, message) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--zebra-src", str(tmp_path), *args],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stdout == ""
    if message != "WTH":
        assert message in done.stderr
    else:
        assert len(done.stderr.strip().splitlines()) == 1


def test_results_and_test_sets_exclude_each_other(tmp_path) -> None:
    done = run(str(TEST20), "--results", str(WTB), "--zebra-src", str(tmp_path))
    assert done.returncode == 2 and "not both" in done.stderr
    done = run("--zebra-src", str(tmp_path))
    assert done.returncode == 2 and "not both" in done.stderr


@pytest.mark.skipif(ZEBRA_SRC is None,
                    reason="no Zebra build: set ZEBRA_BIN to the zebra binary in its build directory")
def test_results_mode_with_zebra() -> None:
    done = run("--results", str(WTB), "--empties", "40,16", "--zebra-src", str(ZEBRA_SRC))
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[1:]]
    assert [r[0] for r in rows] == ["40", "16"]
    for r in rows:
        n, ours, zebra = int(r[1]), float(r[2]), float(r[3])
        assert n > 200
        # people's results lie 10-25 discs from any evaluation on average, nearer at 16 empties
        assert 5 < ours < 30 and 5 < zebra < 30
    assert float(rows[1][2]) < float(rows[0][2])
