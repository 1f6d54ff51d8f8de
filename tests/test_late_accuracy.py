"""scripts/late_accuracy.py: the exact move values it writes (checked with the reference rules) and
the loss it reports for the engine's moves, over real processes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import reference_rules as ref
from othello_engine.board import Board
from uci_support import command

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "late_accuracy.py"


def test_move_values_are_exact_and_the_loss_is_reported(tmp_path: Path) -> None:
    games = tmp_path / "games.ggf"
    engine = command("othello-engine")
    subprocess.run([command("othello-match"), "--engine", f"cmd={engine}", "name=a", "depth=1",
                    "--engine", f"cmd={engine}", "name=b", "depth=2", "--games", "4", "--quiet",
                    "--ggf", str(games)], check=True, cwd=tmp_path, capture_output=True, timeout=300)
    out = tmp_path / "late.txt"
    made = subprocess.run([sys.executable, "-P", str(SCRIPT), "make", str(games), str(out),
                           "--empties", "8-9", "--count", "3"],
                          check=True, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert made.stdout.strip() == f"3 positions written to {out}"
    lines = out.read_text().splitlines()
    assert len(lines) == 3
    for line in lines:
        cells, side, *moves = line.split()
        board = Board.from_cells(cells, side)
        assert board.empties in (8, 9)
        values = dict(item.split(":") for item in moves)
        assert sorted(int(m) for m in values) == sorted(board.legal_moves())
        for move, value in values.items():
            child = board.copy()
            child.push(int(move))
            assert int(value) == -ref.solve_text(child.cells(), "XO"[child.turn])
    ran = subprocess.run([sys.executable, "-P", str(SCRIPT), "run", str(out), "--time", "0.02"],
                         check=True, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    found = re.fullmatch(r"3 positions at 0.02 s a move: mean loss (\d+\.\d{3}) discs, (\d) results "
                         r"changed\n", ran.stdout)
    assert found, ran.stdout
    # with a whole second for 8-9 empties the engine solves: its moves lose nothing
    ran = subprocess.run([sys.executable, "-P", str(SCRIPT), "run", str(out), "--time", "1",
                          "--by-empties"],
                         check=True, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    head, *rows = ran.stdout.splitlines()
    assert "mean loss 0.000 discs, 0 results changed" in head
    # a line for each number of empties, the positions adding up, every search exact
    counts = {}
    for row in rows:
        found = re.fullmatch(r"(\d+) empties: (\d) positions, mean loss 0.000 discs, 0 results "
                             r"changed, (\d) exact", row)
        assert found, row
        assert found.group(2) == found.group(3)
        counts[int(found.group(1))] = int(found.group(2))
    assert set(counts) <= {8, 9} and sum(counts.values()) == 3


def test_the_shipped_set_is_found_from_anywhere_and_bad_input_gets_one_line(tmp_path: Path) -> None:
    """`run` without a set reads the repository's set whatever the working directory; a missing
    file or an unknown knob is one line on standard error and exit status 2, no traceback."""
    ran = subprocess.run([sys.executable, "-P", str(SCRIPT), "run", "--time", "0.001",
                          "--hash", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("800 positions at 0.001 s a move: mean loss ")
    for args, where in ((["run", str(tmp_path / "none.txt")], "none.txt"),
                        (["run", "--tune", "no_such_knob=1"], "--tune no_such_knob=1"),
                        (["make", str(tmp_path / "none.ggf"), str(tmp_path / "o.txt")], "none.ggf")):
        bad = subprocess.run([sys.executable, "-P", str(SCRIPT), *args], cwd=tmp_path,
                             capture_output=True, text=True, timeout=300)
        assert bad.returncode == 2
        assert bad.stdout == ""
        assert len(bad.stderr.splitlines()) == 1 and where in bad.stderr, bad.stderr
        assert "Traceback" not in bad.stderr
    assert not (tmp_path / "o.txt").exists()
