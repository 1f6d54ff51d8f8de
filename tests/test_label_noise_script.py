"""scripts/label_noise.py on position files made by othello-train label: the distances it prints
checked against the files' own columns, and its refusal of files of other games."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")

from othello_engine import train  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "label_noise.py"
SETTINGS = train.GenerateSettings(seed=7, depth=1, random_min=2, random_max=8, epsilon=0.2,
                                  solve=8, evaluation="classic")


def test_label_noise_by_empties(tmp_path: Path) -> None:
    games = str(tmp_path / "g.txt")
    assert train.generate(games, 20, SETTINGS, jobs=1, quiet=True) == 20
    labels, exact = str(tmp_path / "l.txt"), str(tmp_path / "e.txt")
    train.label(games, labels, train.LabelSettings(depth=train.parse_schedule("14:1,0", "--depth", whole=True),
                                                   evaluation="classic"), jobs=1, quiet=True)
    train.label(games, exact, train.LabelSettings(depth=train.parse_schedule("0", "--depth", whole=True),
                                                  exact=12), jobs=1, quiet=True)
    proc = subprocess.run([sys.executable, "-P", str(SCRIPT), labels, exact], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = {int(line.split()[0]): line.split() for line in proc.stdout.splitlines()[1:]}
    # exact scores from 9 to 12 empties (the games were solved from 8 on: no score there)
    assert sorted(rows) == [9, 10, 11, 12]
    # the same figures from the files directly
    with open(labels) as fl, open(exact) as fe:
        pairs = [(a.split(), b.split()) for a, b in zip(fl, fe) if b.split()[-1] != "-"]
    for empties, row in rows.items():
        mine = [(a, b) for a, b in pairs if a[0].count("-") == empties]
        assert int(row[1]) == int(row[2]) == len(mine)       # depth-1 scores up to 14 empties
        res = sum(abs(int(a[1]) - int(b[2]) / 100) for a, b in mine) / len(mine)
        sc = sum(abs(int(a[2]) / 100 - int(b[2]) / 100) for a, b in mine) / len(mine)
        bl = sum(abs((int(a[2]) / 100 + int(a[1])) / 2 - int(b[2]) / 100) for a, b in mine) / len(mine)
        assert (row[3], row[4], row[5]) == (f"{res:.2f}", f"{sc:.2f}", f"{bl:.2f}")
    assert any(float(row[3]) > 0 for row in rows.values())   # depth-1 games lose discs
    # files of other games are refused
    other = str(tmp_path / "o.txt")
    with open(exact) as f:
        lines = f.readlines()
    with open(other, "w") as f:
        f.writelines(lines[61:] + lines[:61])
    proc = subprocess.run([sys.executable, "-P", str(SCRIPT), labels, other], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1 and "the files hold other positions" in proc.stderr
