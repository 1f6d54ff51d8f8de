"""othello-match and othello-analyze on a local Ray instance (two CPUs): the same records as a
local run, every game and position exactly once after a worker is killed, --resume after an
interruption; and without --cluster, Ray is never imported."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from othello_engine import analysis, cluster, match
from othello_engine.analysis import remote as analysis_remote
from othello_engine.cli import analyze
from othello_engine.cli import match as match_cli
from othello_engine.client import Limit
from uci_support import default_sigint

PY = sys.executable
OURS = shlex.join([PY, "-m", "othello_engine"])
HAVE_RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAVE_RAY, reason="Ray is not installed (pip install 'othello_engine[cluster]')")
ENGINES = ["--engine", f"cmd={OURS}", "name=d1", "depth=1", "--engine", f"cmd={OURS}", "name=d2", "depth=2"]


@pytest.fixture(scope="module")
def ray_local() -> Iterator[None]:
    """One local Ray instance with two CPUs for the module (the tools join it, as they would
    join a cluster)."""
    started = cluster.connect("local", num_cpus=2)
    yield
    if started:
        cluster.shutdown()


def positions_file(tmp_path: Path, count: int = 40) -> Path:
    """Move lines of random games (a fixed seed), one per line, and one bad line."""
    import random

    from othello_engine.board import Board, random_moves, square_name
    rng = random.Random(17)
    lines = []
    for _ in range(count):
        moves = random_moves(Board(), rng.randint(1, 40), rng)
        lines.append("".join(square_name(move) for move in moves))
    lines.insert(count // 2, "not a position")
    path = tmp_path / "positions.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def ggf_without_clock(path: Path) -> list[str]:
    """The GGF lines with what depends on the clock taken out (date, seconds per move), sorted
    (games are written as they finish)."""
    out = []
    for line in path.read_text().splitlines():
        line = re.sub(r"DT\[[^\]]*\]", "", line)
        line = re.sub(r"(\[[A-H][1-8]/[-0-9.]*)/[0-9.]+\]", r"\1]", line)
        out.append(line)
    return sorted(out)


def json_without_clock(path: Path) -> list[dict[str, Any]]:
    records = [json.loads(ln) for ln in path.read_text().splitlines()]
    for r in records:
        r.pop("time", None)
    return records


def slot_pids() -> list[int]:
    """Process ids of this test's Ray slot actors (their process title starts with
    ``ray::_Slot``; only descendants of this process count)."""
    mine = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            title = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if not title.startswith(b"ray::_Slot"):
            continue
        pid = int(entry)
        while pid > 1:  # walk up to this process
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                break
            pid = int(stat.rsplit(")", 1)[1].split()[1])
            if pid == os.getpid():
                mine.append(int(entry))
                break
    return mine


# --- without Ray ---------------------------------------------------------------------------------------

def test_no_ray_import_without_the_flag(tmp_path: Path) -> None:
    """A normal match and analysis never import Ray."""
    pos = positions_file(tmp_path, 3)
    code = (
        "import sys\n"
        "from othello_engine.cli import analyze, match as match_cli\n"
        f"assert match_cli.main({ENGINES + ['--games', '2', '--ggf', str(tmp_path / 'g.ggf'), '--quiet']!r}) == 0\n"
        f"assert analyze.main([{str(pos)!r}, '--depth', '2', '-q', '-o', {str(tmp_path / 'a.txt')!r}]) == 1\n"
        "print('ray' in sys.modules)\n")
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "False"


@pytest.mark.parametrize("tool", ["match", "analyze"])
def test_without_ray_the_flag_says_how_to_install(tool: str, tmp_path: Path) -> None:
    """Ray hidden from the import system: --cluster prints the install command, exits 2, and
    writes nothing."""
    args = (ENGINES + ["--ggf", str(tmp_path / "g.ggf")] if tool == "match"
            else [str(positions_file(tmp_path, 2)), "-o", str(tmp_path / "a.txt")])
    code = ("import sys; sys.modules['ray'] = None\n"
            f"from othello_engine.cli.engine import main\n"
            f"sys.exit(main([{tool!r}, *{args + ['--cluster', 'local']!r}]))\n")
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "pip install 'othello_engine[cluster]'" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert not (tmp_path / "g.ggf").exists() and not (tmp_path / "a.txt").exists()


# --- on Ray ---------------------------------------------------------------------------------------------

@pytest.mark.cluster
@needs_ray
def test_match_on_the_cluster_gives_the_local_records(ray_local: None, tmp_path: Path) -> None:
    runs = {}
    for name, extra in (("local", []), ("cluster", ["--cluster", "local"])):
        ggf, js = tmp_path / f"{name}.ggf", tmp_path / f"{name}.json"
        assert match_cli.main(ENGINES + ["--games", "6", "--ggf", str(ggf), "--json", str(js), "--quiet",
                                     "--sprt", "elo0=0", "elo1=10"] + extra) == 0
        runs[name] = (ggf_without_clock(ggf), json.loads(js.read_text()))
    (local_ggf, local_js), (ray_ggf, ray_js) = runs["local"], runs["cluster"]
    assert len(local_ggf) == 6 and ray_ggf == local_ggf
    assert ray_js == local_js  # games with their numbers, pairings, SPRT, engine ids
    assert ray_js["sprt"] is not None


@pytest.mark.cluster
@needs_ray
@pytest.mark.parametrize("kind", ["json", "csv"])
def test_analysis_on_the_cluster_gives_the_local_records(ray_local: None, tmp_path: Path,
                                                         kind: str) -> None:
    pos = positions_file(tmp_path)
    outs = {}
    for name, extra in (("local", ["-j", "2"]), ("cluster", ["--cluster", "local"])):
        out = tmp_path / f"{name}.{kind}"
        assert analyze.main([str(pos), "--depth", "3", "--multipv", "2", f"--{kind}", "-q",
                              "-o", str(out)] + extra) == 1  # the bad line is an error record
        outs[name] = out
    if kind == "json":
        local, ray = json_without_clock(outs["local"]), json_without_clock(outs["cluster"])
        assert len(local) == 41 and sum("error" in r for r in local) == 1
        assert [(r["line"], r.get("fen")) for r in local] == [(r["line"], r.get("fen")) for r in ray]
        for a, b in zip(local, ray):  # nodes depend on what the engine searched before
            a.pop("nodes", None), b.pop("nodes", None)
        assert ray == local
    else:
        def rows(path: Path) -> list[list[str]]:
            table = list(csv.reader(io.StringIO(path.read_text())))
            drop = {table[0].index("time"), table[0].index("nodes")}
            return [[c for k, c in enumerate(r) if k not in drop] for r in table]
        assert rows(outs["cluster"]) == rows(outs["local"])


@pytest.mark.cluster
@needs_ray
def test_match_worker_killed_every_game_once(ray_local: None, tmp_path: Path) -> None:
    """Both slot actors are killed (by pid) when the first game is in: the games they were
    playing go to new actors; the GGF file and the summary hold every game exactly once."""
    config, _ = match_cli.config_from_argv(ENGINES + ["--games", "8"])
    ggf = tmp_path / "out.ggf"
    killed: list[int] = []
    lost_before = cluster.lost_tasks

    def on_game(game: match.GameResult, state: match.MatchResult) -> None:
        with ggf.open("a") as f:
            f.write(game.ggf + "\n")
        if not killed:
            killed.extend(slot_pids())
            for pid in killed:
                os.kill(pid, signal.SIGKILL)

    result = match.run_match(config, on_game=on_game, cluster="local")
    assert len(killed) == 2
    assert cluster.lost_tasks > lost_before  # a game in flight was lost and played again
    assert sorted(g.number for g in result.games) == list(range(1, 9))
    done = match.read_finished_games(config, str(ggf))  # every record is a game of the schedule
    assert sorted(g.number for g in done) == list(range(1, 9))


@pytest.mark.cluster
@needs_ray
def test_analysis_worker_killed_every_position_once(ray_local: None, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Both slot actors are killed (by pid) when the first record is in: their batches go to new
    actors; the records are those of a local run, in input order, each once."""
    monkeypatch.setattr(analysis_remote, "ANALYSIS_BATCH", 2)  # many batches in flight
    pos = positions_file(tmp_path)
    sources = [(str(pos), pos.read_text().splitlines(True))]
    limit = Limit(depth=3)
    local = [r.to_json() for r in analysis.analyse_lines(sources, limit, jobs=2)]
    lost_before = cluster.lost_tasks
    got = []
    killed: list[int] = []
    for record in analysis.analyse_lines(sources, limit, cluster="local"):
        got.append(record.to_json())
        if not killed:
            killed.extend(slot_pids())
            for pid in killed:
                os.kill(pid, signal.SIGKILL)
    assert killed and cluster.lost_tasks > lost_before
    for r in local + got:
        r.pop("time", None), r.pop("nodes", None)
    assert got == local


@pytest.mark.cluster
@needs_ray
def test_interrupted_match_then_resume(ray_local: None, tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) stops a cluster match with the games so far written; --resume plays only
    the missing ones, and the summary counts all."""
    ggf, js = tmp_path / "out.ggf", tmp_path / "out.json"
    args = [PY, "-m", "othello_engine", "match", "--engine", f"cmd={OURS}", "name=d2", "depth=2",
            "--engine", f"cmd={OURS}", "name=d4", "depth=4", "--games", "16", "--ggf", str(ggf), "--quiet"]
    proc = subprocess.Popen(args + ["--cluster", "local"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline and proc.poll() is None:
        if ggf.exists() and len(ggf.read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=40)
    assert proc.returncode == 130, err
    assert "interrupted" in out and "Traceback" not in err
    first = ggf.read_text().splitlines()
    assert 2 <= len(first) < 16
    assert match_cli.main(args[4:] + ["--json", str(js), "--resume", "--cluster", "local"]) == 0
    lines = ggf.read_text().splitlines()
    assert lines[:len(first)] == first and len(lines) == 16
    data = json.loads(js.read_text())
    assert sorted(g["number"] for g in data["games"]) == list(range(1, 17))
    assert data["games_played"] == 16


@pytest.mark.cluster
@needs_ray
def test_interrupted_analysis_then_resume(ray_local: None, tmp_path: Path) -> None:
    pos = positions_file(tmp_path)
    out, ref = tmp_path / "out.json", tmp_path / "ref.json"
    assert analyze.main([str(pos), "--depth", "3", "--json", "-q", "-o", str(ref)]) == 1
    full = ref.read_text().splitlines(True)
    out.write_text("".join(full[:7]) + full[7][:25])  # a run killed while writing record 8
    assert analyze.main([str(pos), "--depth", "3", "--json", "-q", "-o", str(out), "--resume",
                          "--cluster", "local"]) == 1
    assert json_without_clock(out) == json_without_clock(ref)


@pytest.mark.cluster
@needs_ray
def test_imap_ordered_keeps_input_order(ray_local: None) -> None:
    """The generic map of the training pipeline: a module-level function over items, results in
    input order (the slots finish them in any order)."""
    from othello_engine.board import square_name
    items = list(range(64)) * 3
    assert list(cluster.imap_ordered(square_name, items, depth=3)) == [square_name(i) for i in items]


@pytest.mark.cluster
@needs_ray
def test_engine_faults_on_the_cluster_as_locally(ray_local: None, tmp_path: Path) -> None:
    """An engine that crashes inside a task loses that game with its reason and is restarted
    for its next game, as locally; one that cannot start stops the match before any game."""
    sloppy = shlex.join([PY, str(Path(__file__).parent / "engines" / "random_mover.py"), "--fault", "crash",
                         "--after", "6"])
    js, ggf = tmp_path / "out.json", tmp_path / "out.ggf"
    assert match_cli.main(["--engine", f"cmd={OURS}", "name=ours", "depth=1", "--engine", f"cmd={sloppy}",
                       "name=sloppy", "--games", "4", "--json", str(js), "--ggf", str(ggf), "--quiet",
                       "--cluster", "local"]) == 0
    games = json.loads(js.read_text())["games"]
    assert [g["number"] for g in games] == [1, 2, 3, 4]
    assert all(g["culprit"] == "sloppy" and g["termination"] == "crash" for g in games)
    assert len(ggf.read_text().splitlines()) == 4
    assert match_cli.main(["--engine", f"cmd={OURS}", "name=ours", "--engine", "cmd=/nonexistent/engine",
                       "name=gone", "--ggf", str(tmp_path / "none.ggf"), "--cluster", "local"]) == 2
    assert not (tmp_path / "none.ggf").exists()
    assert analyze.main([str(positions_file(tmp_path, 2)), "--engine", "/nonexistent/engine",
                          "--cluster", "local"]) == 2


@pytest.mark.cluster
@needs_ray
def test_training_steps_on_the_cluster_write_the_local_files(ray_local: None, tmp_path: Path) -> None:
    """othello-train generate and label on Ray: the same files as a local run (items are seeded
    by their number), and an interrupted file is completed, not redone."""
    from othello_engine import train
    from othello_engine.cli import train as train_cli
    settings = train.GenerateSettings(seed=3, depth=1, random_min=2, random_max=8, epsilon=0.05,
                                      solve=8, evaluation="classic")
    local, remote = tmp_path / "local.txt", tmp_path / "remote.txt"
    assert train.generate(str(local), 10, settings, jobs=1, quiet=True) == 10
    lines = local.read_text().splitlines(True)
    remote.write_text("".join(lines[:3]) + lines[3][:7])  # a run cut in the middle of game 4
    assert train.generate(str(remote), 10, settings, quiet=True, cluster="local") == 7
    assert remote.read_text() == local.read_text()
    labels_local, labels_remote = tmp_path / "pl.txt", tmp_path / "pr.txt"
    assert train.label(str(local), str(labels_local), train.LabelSettings(), jobs=1, quiet=True) == 10
    assert train_cli.main(["label", str(local), str(labels_remote), "-q", "--cluster", "local"]) == 0
    assert labels_remote.read_text() == labels_local.read_text()
