"""othello-train average: the entry-by-entry mean of weights files, checked against exact fractions,
read by the engine process, and refused with one clear line on bad input."""

from __future__ import annotations

import array
import os
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

from othello_engine import train, weights
from uci_support import command

SIZE = 6      # layout 2's smallest tables: 15 x 83,111 entries, quick to write and read


def table(seed: int, size: int = SIZE, low: int = -32000, high: int = 32000) -> "array.array[int]":
    rng = random.Random(seed)
    _, phases, entries = weights.shape(size)
    return array.array("h", (rng.randint(low, high) for _ in range(phases * entries)))


def saved(tmp_path: Path, name: str, w: "array.array[int]", size: int = SIZE) -> str:
    path = str(tmp_path / name)
    weights.write(path, w, size)
    return path


def test_the_mean_of_each_entry_rounds_to_the_nearest_and_a_half_to_even(tmp_path: Path) -> None:
    a, b, c = tables = [table(1), table(2), table(3, low=-5, high=5)]
    files = [saved(tmp_path, f"{k}.w", w) for k, w in enumerate(tables)]
    out = str(tmp_path / "mean.w")
    for members in ([0, 1], [0, 1, 2], [0, 2]):
        group = [tables[k] for k in members]
        lines: list[str] = []
        got = train.average([files[k] for k in members], out, SIZE, report=lines.append)
        want = array.array("h", (round(Fraction(sum(column), len(group))) for column in zip(*group)))
        assert got == want and weights.read(out, SIZE) == want
        assert f"average: {len(group)} files, {len(want)} entries" in lines[0]
    assert sum(1 for x, y in zip(a, b) if (x + y) % 2) > 1000    # many ties, each checked above
    # a file with itself is itself; extreme entries do not overflow
    extreme = array.array("h", [32767, -32768] * (len(a) // 2) + [0] * (len(a) % 2))
    e = saved(tmp_path, "e.w", extreme)
    assert train.average([e, e, e], out, SIZE, report=lambda _: None) == extreme


def test_ties_go_to_the_even_neighbour(tmp_path: Path) -> None:
    n = len(table(0))
    first = array.array("h", [-3, 1, 5, -1] + [0] * (n - 4))
    second = array.array("h", [0, 4, 2, 0] + [0] * (n - 4))
    got = train.average([saved(tmp_path, "f.w", first), saved(tmp_path, "s.w", second)],
                        str(tmp_path / "m.w"), SIZE, report=lambda _: None)
    assert list(got[:4]) == [-2, 2, 4, 0]     # -1.5, 2.5, 3.5, -0.5


def _pattern_eval(weights_file: str) -> int:
    """The engine process's static pattern evaluation of a midgame position with that weights file."""
    env = dict(os.environ, OTHELLO_ENGINE_WEIGHTS=weights_file)
    proc = subprocess.run([sys.executable, "-P", "-m", "othello_engine"], capture_output=True, env=env,
                          input=b"uci\nposition startpos moves f5 d6 c3 d3 c4 f4 f6 f3 e6 e7\neval\nquit\n",
                          timeout=60)
    out = proc.stdout.decode()
    assert proc.returncode == 0 and "Traceback" not in out + proc.stderr.decode(), out
    assert "classic evaluation" not in out, out        # the file was used
    [value] = [line.split()[2] for line in out.splitlines() if line.startswith("eval pattern ")]
    return int(value)


def test_the_engine_plays_with_the_mean_of_the_shipped_weights_and_their_negation(tmp_path: Path) -> None:
    shipped = weights.read(weights.DEFAULT_PATH)
    negated = saved(tmp_path, "neg.w", array.array("h", (-x for x in shipped)), 8)
    zeros = saved(tmp_path, "zero.w", array.array("h", bytes(2 * len(shipped))), 8)
    own = _pattern_eval(weights.DEFAULT_PATH)
    assert own != 0 and _pattern_eval(negated) == -own
    opposite = str(tmp_path / "opposite.w")
    proc = subprocess.run([command("othello-train"), "average", weights.DEFAULT_PATH, negated, "--out",
                           opposite], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _pattern_eval(opposite) == 0
    mean = str(tmp_path / "half.w")
    train.average([weights.DEFAULT_PATH, zeros], mean, report=lambda _: None)
    # each entry is rounded by at most half a centi-disc; a position sums a few dozen of them
    assert abs(_pattern_eval(mean) - own / 2) <= 30


def refused(tmp_path: Path, *args: str) -> str:
    proc = subprocess.run([command("othello-train"), "average", *args], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == "", (proc.returncode, proc.stdout)
    assert "Traceback" not in proc.stderr and "Errno" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("othello-train average: "), lines
    return lines[0]


def test_bad_input_gets_one_line_and_leaves_the_output_file_as_it_was(tmp_path: Path) -> None:
    a = saved(tmp_path, "a.w", table(5))
    b = saved(tmp_path, "b.w", table(6))
    out = tmp_path / "out.w"
    out.write_bytes(b"the user's file")
    (tmp_path / "text.w").write_text("these are not the weights you are looking for\n")
    assert "name at least two weights files" in refused(tmp_path, a, "--out", "out.w", "--size", "6")
    assert "text.w: not a weights file" in refused(tmp_path, a, "text.w", "--out", "out.w", "--size", "6")
    assert "missing.w: No such file" in refused(tmp_path, a, "missing.w", "--out", "out.w", "--size", "6")
    # a 6x6 file among 8x8 ones: the layout is named, nothing is written
    assert "layout 2 for 6x6" in refused(tmp_path, weights.DEFAULT_PATH, a, "--out", "out.w")
    assert "cannot write" in refused(tmp_path, a, b, "--out", "no/such/dir/x.w", "--size", "6")
    assert out.read_bytes() == b"the user's file"
    assert sorted(os.listdir(tmp_path)) == ["a.w", "b.w", "out.w", "text.w"]    # no temporary file left


def test_the_mean_of_two_files_is_the_same_whichever_comes_first(tmp_path: Path) -> None:
    a, b = saved(tmp_path, "a.w", table(7)), saved(tmp_path, "b.w", table(8))
    one, two = str(tmp_path / "1.w"), str(tmp_path / "2.w")
    train.average([a, b], one, SIZE, report=lambda _: None)
    train.average([b, a], two, SIZE, report=lambda _: None)
    assert Path(one).read_bytes() == Path(two).read_bytes()
