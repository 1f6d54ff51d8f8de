"""Multi-ProbCut statistics (othello_engine.train.mpc): the fit on small data sets."""

import random
import subprocess
import sys

import pytest

from othello_engine.train import mpc


def synthetic(a, b, c, seed=1, per_cell=60):
    """Rows whose deep scores stray from the shallow ones by a normal error of sigma
    a + b * depth + c * empties: each v_D is built from its shallow v_d, depth by depth."""
    rng = random.Random(seed)
    rows = []
    for empties in range(16, 52, 4):
        for _ in range(per_cell):
            v = [round(rng.gauss(0, 500)), round(rng.gauss(0, 500))]
            for depth in range(mpc.MIN_DEPTH, 13):
                shallow = v[mpc.shallow_depth(depth) - 1]
                v.append(shallow + round(rng.gauss(0, a + b * depth + c * empties)))
            rows.append((empties, v))
    return rows


def test_fit_recovers_the_spread():
    rows = synthetic(500.0, 5.0, -7.0)
    model = mpc.fit(rows)
    assert model.a == pytest.approx(500.0, rel=0.1)
    assert model.b == pytest.approx(5.0, abs=2.5)
    assert model.c == pytest.approx(-7.0, abs=1.0)
    for depth, empties in ((4, 20), (8, 30), (12, 44)):
        assert model.sigma(depth, empties) == pytest.approx(500 + 5 * depth - 7 * empties, rel=0.05)


def test_fit_of_a_constant_spread_has_no_slope():
    model = mpc.fit(synthetic(300.0, 0.0, 0.0, seed=2))
    assert abs(model.c) < 3 and abs(model.b) < 15


def test_read_samples_rejects_bad_lines():
    assert mpc.read_samples(["30 1 2 3", "", "20 5 6"]) == [(30, [1, 2, 3]), (20, [5, 6])]
    with pytest.raises(ValueError, match="line 1: expected whole numbers"):
        mpc.read_samples(["30 x 2"])
    with pytest.raises(ValueError, match="line 2"):
        mpc.read_samples(["30 1 2", "99 1 2"])


def test_too_little_data_is_an_error():
    with pytest.raises(ValueError, match="no sample reaches depth"):
        mpc.fit([(30, [1, 2])])
    with pytest.raises(ValueError, match="do not vary enough"):
        mpc.fit([(30, [0, 0, 100, 100])] * 5)


def test_command_prints_the_table(tmp_path):
    data = tmp_path / "mpc.txt"
    data.write_text("".join(f"{e} " + " ".join(map(str, v)) + "\n"
                            for e, v in synthetic(400.0, 0.0, -5.0, per_cell=10)))
    out = subprocess.run([sys.executable, "-P", "-m", "othello_engine.train.mpc", str(data)],
                         capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert "pairs; sigma = " in out
    assert out.splitlines()[1].startswith("depth  shallow")
    assert len(out.splitlines()) == 2 + 10      # depths 3..12


def test_engine_tuning_from_the_environment(tmp_path):
    """OTHELLO_ENGINE_TUNE sets a knob of the core in the engine process; an unknown name gets
    one stderr line and the engine still answers."""
    import os
    from uci_support import command
    for tune, complaint in (("mpc_fit=1,mpc_t=120", False), ("stab_min=8,eg_steps=2", False),
                            ("no_such_knob=3", True)):
        env = dict(os.environ, OTHELLO_ENGINE_TUNE=tune)
        done = subprocess.run([command("othello-engine")], input="uci\ngo depth 6\nisready\nquit\n",
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
        assert "uciok" in done.stdout and "bestmove" in done.stdout and "readyok" in done.stdout
        assert ("OTHELLO_ENGINE_TUNE: cannot set 'no_such_knob=3'" in done.stderr) == complaint
        assert "Traceback" not in done.stderr
