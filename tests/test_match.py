"""The match runner over real processes: our engine, the shipped random mover, broken engines,
gtp-rhino where installed; every game replayed through the reference rules."""

from __future__ import annotations

import importlib.util
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import reference_rules as ref
from ggf_support import replay_with_reference
from othello_engine.board import Board
from othello_engine.ggf import parse_ggf
from othello_engine.match import MatchError, load_openings, parse_engine, parse_opening_line

PY = sys.executable
ENGINES = Path(__file__).parent / "engines"
OURS = shlex.join([PY, "-m", "othello_engine"])
RANDOM = shlex.join([PY, str(ENGINES / "random_mover.py")])
RHINO = shutil.which("gtp-rhino") or shutil.which("/usr/games/gtp-rhino")


def run_match(tmp_path: Path, *args: str, timeout: float = 80) -> tuple[subprocess.CompletedProcess[str],
                                                                         dict[str, Any], list[str]]:
    """Run othello-match as a process; return it, its JSON summary and its GGF lines."""
    js, ggf = tmp_path / "out.json", tmp_path / "out.ggf"
    proc = subprocess.run([PY, "-m", "othello_engine", "match", *args, "--json", str(js), "--ggf", str(ggf)],
                          capture_output=True, text=True, timeout=timeout)
    data = json.loads(js.read_text()) if js.exists() else {}
    games = ggf.read_text().splitlines() if ggf.exists() else []
    return proc, data, games




def test_self_play_and_random_mover_all_protocols(tmp_path: Path) -> None:
    """Our engine against itself and against the random mover over UCI, UGI, GTP and NBoard."""
    proc, data, ggf = run_match(
        tmp_path, "--engine", f"cmd={OURS}", "name=d3", "depth=3",
        "--engine", f"cmd={OURS}", "name=d1", "depth=1", "option.Hash=4",
        "--engine", f"cmd={RANDOM} --seed 1", "name=r-uci",
        "--engine", f"cmd={RANDOM} --seed 2", "name=r-ugi", "proto=ugi",
        "--engine", f"cmd={RANDOM} --seed 3", "name=r-gtp", "proto=gtp",
        "--engine", f"cmd={RANDOM} --seed 4", "name=r-nboard", "proto=nboard",
        "--gauntlet", "--games", "2", "--concurrency", "2")
    assert proc.returncode == 0, proc.stderr
    assert data["games_played"] == data["games_scheduled"] == 10
    assert len(ggf) == 10
    by_number = {g["number"]: g for g in data["games"]}
    for line in ggf:
        rec = parse_ggf(line)
        game = next(g for g in data["games"] if g["black"] == rec.black and g["white"] == rec.white)
        assert game["termination"] == "normal", game
        discs = replay_with_reference(line)
        assert discs == rec.board.disc_difference()
        assert discs == game["discs"] and rec.result.startswith(f"{discs:+d}" if discs else "0")
        # our engine's moves carry its eval and time; the engine's own moves are timed
        assert any(e is not None for e in rec.evals) and any(t is not None for t in rec.times)
    assert len(by_number) == 10
    # colours swap within each pairing, on the same opening
    for p in data["pairings"]:
        games = [g for g in data["games"] if {g["black"], g["white"]} == {p["first"], p["second"]}]
        assert len(games) == 2 and games[0]["black"] == games[1]["white"]
        assert games[0]["opening"] == games[1]["opening"]
        assert p["wins"] + p["losses"] + p["draws"] == 2
    # the statistics in the summary follow from the recorded games
    for p in data["pairings"]:
        wins = sum(1 for g in data["games"] if {g["black"], g["white"]} == {p["first"], p["second"]}
                   and g["winner"] is not None and (g["black"] if g["winner"] == 0 else g["white"]) == p["first"])
        assert wins == p["wins"]
    assert "d3 vs r-gtp" in proc.stdout and "W-L-D" in proc.stdout


def test_round_robin_with_shared_settings(tmp_path: Path) -> None:
    proc, data, ggf = run_match(tmp_path, "--each", f"cmd={OURS}", "depth=1",
                                "--engine", "name=a", "--engine", "name=b", "depth=2", "--engine", "name=c",
                                "--games", "2")
    assert proc.returncode == 0, proc.stderr
    assert [(p["first"], p["second"]) for p in data["pairings"]] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert [e["time_control"] for e in data["engines"]] == ["depth 1", "depth 2", "depth 1"]
    assert data["games_played"] == 6 and len(ggf) == 6


def test_referee_clock(tmp_path: Path) -> None:
    """A clock of 1 s + 0.05 s/move: the engine keeps within it, by the referee's own times."""
    proc, data, ggf = run_match(tmp_path, "--engine", f"cmd={OURS}", "name=clock", "tc=1+0.05",
                                "--engine", f"cmd={RANDOM}", "name=rnd", "--games", "2")
    assert proc.returncode == 0, proc.stderr
    assert [g["termination"] for g in data["games"]] == ["normal", "normal"]
    for line in ggf:
        rec = parse_ggf(line)
        mine = 0 if rec.black == "clock" else 1
        opening = len(parse_opening_line(data["games"][0]["opening"]).move_stack)
        spent = [t for i, t in enumerate(rec.times) if i >= opening and (i % 2) == mine and t is not None]
        assert spent and all(t >= 0 for t in spent) and max(spent) > 0
        assert sum(spent) <= 1.0 + 0.05 * len(spent) + 0.5
        replay_with_reference(line)


BROKEN = [  # (fault flags, time control, expected termination)
    ("--fault crash --after 2", "depth=1", "crash"),
    ("--fault illegal --after 2", "depth=1", "illegal"),
    ("--fault garbage --after 1", "depth=1", "unparsable"),
    ("--fault hang --after 2", "depth=1", "hang"),
    ("--fault late --after 2 --delay 0.9", "movetime=0.2", "time"),
]


def test_broken_engines_lose_with_reasons_and_the_match_goes_on(tmp_path: Path) -> None:
    args = ["--engine", f"cmd={OURS}", "name=ours", "depth=2"]
    for k, (flags, tc, _) in enumerate(BROKEN):
        args += ["--engine", f"cmd={RANDOM} {flags}", f"name=b{k}", tc]
    proc, data, ggf = run_match(tmp_path, *args, "--gauntlet", "--games", "2", "--concurrency", "2",
                                "--margin", "0.2", "--move-timeout", "1")
    assert proc.returncode == 0, proc.stderr
    assert data["games_played"] == 2 * len(BROKEN)
    for k, (_, _, kind) in enumerate(BROKEN):
        games = [g for g in data["games"] if f"b{k}" in (g["black"], g["white"])]
        assert len(games) == 2
        for g in games:  # each game is lost by the broken engine, also after its restart
            assert g["culprit"] == f"b{k}" and g["termination"] == kind, g
            assert g["winner"] == (1 if g["black"] == f"b{k}" else 0)
            assert g["reason"]
        pairing = next(p for p in data["pairings"] if p["second"] == f"b{k}")
        assert (pairing["wins"], pairing["losses"]) == (2, 0)
        assert pairing["forfeits"] == {f"b{k}": 2}
    reasons = {g["termination"]: g["reason"] for g in data["games"]}
    assert "illegal move" in reasons["illegal"] and "legal:" in reasons["illegal"]
    assert "'z9'" in reasons["unparsable"]
    assert "exit" in reasons["crash"] or "closed" in reasons["crash"]
    assert "took" in reasons["time"]
    # the forfeited games are in the GGF file too, with the moves up to the fault
    assert len(ggf) == 2 * len(BROKEN)
    for line in ggf:
        rec = parse_ggf(line)
        assert rec.tags.get("C", "").split(":")[0] in {k for _, _, k in BROKEN}
    assert "forfeits:" in proc.stdout


def test_sprt_stops_early_with_a_verdict(tmp_path: Path) -> None:
    proc, data, ggf = run_match(tmp_path, "--engine", f"cmd={OURS}", "name=ours", "depth=2",
                                "--engine", f"cmd={RANDOM} --seed 5", "name=rnd",
                                "--games", "60", "--sprt", "elo0=0", "elo1=100", "alpha=0.1", "beta=0.1")
    assert proc.returncode == 0, proc.stderr
    assert data["sprt"]["verdict"] == "H1"
    assert data["sprt"]["llr"] >= data["sprt"]["upper"]
    assert data["games_played"] < 60 and data["stopped_early"].startswith("SPRT")
    assert "H1 accepted" in proc.stdout


@pytest.mark.skipif(RHINO is None, reason="gtp-rhino (Debian package grhino) is not installed")
def test_against_gtp_rhino(tmp_path: Path) -> None:
    proc, data, ggf = run_match(tmp_path, "--engine", f"cmd={OURS}", "name=ours", "depth=2",
                                "--engine", f"cmd={RHINO}", "name=rhino", "proto=gtp", "movetime=1",
                                "--games", "2", timeout=80)
    assert proc.returncode == 0, proc.stderr
    assert data["games_played"] == 2
    for g, line in zip(data["games"], ggf):
        assert g["termination"] == "normal", g
        assert replay_with_reference(line) == g["discs"]


@pytest.mark.skipif(importlib.util.find_spec("othello_engine.protocol.nboard") is None,
                    reason="our engine's NBoard session is not in this build")
def test_our_engine_over_nboard(tmp_path: Path) -> None:
    proc, data, ggf = run_match(tmp_path, "--engine", f"cmd={OURS}", "name=nb", "proto=nboard", "depth=2",
                                "--engine", f"cmd={OURS}", "name=uci", "depth=2", "--games", "2")
    assert proc.returncode == 0, proc.stderr
    for g, line in zip(data["games"], ggf):
        assert g["termination"] == "normal", g
        assert replay_with_reference(line) == g["discs"]


# --- bad input: a clear message naming the culprit, non-zero exit, no game -------------------------

def test_engine_that_never_finishes_the_handshake(tmp_path: Path) -> None:
    proc, data, ggf = run_match(tmp_path, "--engine", f"cmd={OURS}", "name=ours",
                                "--engine", f"cmd={RANDOM} --fault nohandshake", "name=mute",
                                "--handshake-timeout", "1")
    assert proc.returncode == 2
    assert "'mute'" in proc.stderr and "handshake" in proc.stderr
    assert data == {} and not (tmp_path / "out.ggf").exists()
    assert "Traceback" not in proc.stderr


def test_wrong_engine_command(tmp_path: Path) -> None:
    proc, data, ggf = run_match(tmp_path, "--engine", f"cmd={OURS}", "name=ours",
                                "--engine", "cmd=/nonexistent/engine --x", "name=ghost")
    assert proc.returncode == 2 and "'ghost'" in proc.stderr and "/nonexistent/engine" in proc.stderr
    assert data == {} and ggf == []
    # a command that starts but is no engine at all
    proc, _, _ = run_match(tmp_path, "--engine", f"cmd={OURS}", "name=ours",
                           "--engine", f"cmd={PY} -c pass", "name=dud")
    assert not (tmp_path / "out.json").exists()
    assert proc.returncode == 2 and "'dud'" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("setting,word", [("depth=abc", "depth"), ("tc=10+x", "tc"),
                                           ("movetime=-1", "movetime"), ("proto=xboard", "xboard"),
                                           ("speed=3", "speed")])
def test_bad_engine_settings(tmp_path: Path, setting: str, word: str) -> None:
    proc, data, ggf = run_match(tmp_path, "--engine", f"cmd={OURS}", "name=ours",
                                "--engine", f"cmd={OURS}", "name=other", setting)
    assert proc.returncode == 2
    assert "'other'" in proc.stderr and word in proc.stderr
    assert data == {} and ggf == []


def test_unknown_option_is_refused_before_any_game(tmp_path: Path) -> None:
    proc, data, _ = run_match(tmp_path, "--engine", f"cmd={OURS}", "name=ours", "option.Bogus=1",
                              "--engine", f"cmd={OURS}", "name=other")
    assert proc.returncode == 2 and "'ours'" in proc.stderr and "Bogus" in proc.stderr
    assert data == {}


def test_bad_opening_line_is_skipped_and_reported(tmp_path: Path) -> None:
    f = tmp_path / "openings.txt"
    f.write_text("# comment\nf5d6c3d3c4\nf5f5\nf5 f6 e6 f4\nnonsense here\n"
                 "8/8/8/3ox3/3xo3/8/8/8 x\n")
    proc, data, ggf = run_match(tmp_path, "--engine", f"cmd={OURS}", "name=a", "depth=1",
                                "--engine", f"cmd={RANDOM}", "name=b", "--openings", str(f), "--games", "6")
    assert proc.returncode == 0, proc.stderr
    assert f"{f}:3" in proc.stderr and "'f5f5'" in proc.stderr
    assert f"{f}:5" in proc.stderr and "nonsense" in proc.stderr
    assert [s["source"] for s in data["skipped_openings"]] == [f"{f}:3", f"{f}:5"]
    assert [g["opening"] for g in data["games"]][::2] == ["f5d6c3d3c4", "f5f6e6f4", "8/8/8/3ox3/3xo3/8/8/8 x"]
    # the opening's moves start the recorded game
    assert [m for m in parse_ggf(ggf[0]).board.move_stack[:5]] == parse_opening_line("f5d6c3d3c4").move_stack
    # a file with no usable line is an error before any game
    bad = tmp_path / "bad.txt"
    bad.write_text("zz\n")
    (tmp_path / "again").mkdir()
    proc, data, _ = run_match(tmp_path / "again", "--engine", f"cmd={OURS}", "name=a",
                              "--engine", f"cmd={RANDOM}", "name=b", "--openings", str(bad))
    assert proc.returncode == 2 and str(bad) in proc.stderr and data == {}


# --- the API without processes ---------------------------------------------------------------------

def test_opening_formats() -> None:
    moves = parse_opening_line("F5-D6-C3")
    assert moves.move_stack == parse_opening_line("f5 d6 c3").move_stack == parse_opening_line("f5d6c3").move_stack
    fen = parse_opening_line("8/8/8/3ox3/3xo3/8/8/8 x")
    assert fen == Board() and fen.move_stack == []
    cells = "-" * 27 + "OX------XO" + "-" * 27
    assert parse_opening_line(cells + " X") == Board()
    assert parse_opening_line(cells + "X ; comment") == Board()
    for bad in ("f5f5", "f5d", "x9y8", "8/8/8/3ox3/3xo3/8/8 x"):
        with pytest.raises(ValueError):
            parse_opening_line(bad)


def test_shipped_openings_are_legal_distinct_lines() -> None:
    openings, skipped = load_openings()
    assert skipped == [] and len(openings) >= 20
    texts = [o.text for o in openings]
    assert len(set(texts)) == len(texts)
    for o in openings:
        grid, color = ref.start_grid(8), ref.BLACK
        for move in o.board.move_stack:
            grid = ref.play(grid, color, (move // 8, move % 8))
            color = ref.other(color)
        assert ref.status(grid, color) == "move"


def test_referee_limits() -> None:
    from othello_engine.client import TimeControl
    from othello_engine.match import referee_limits
    # (may take before losing, waits until): the smaller of clock and movetime, plus the margin
    assert referee_limits(TimeControl(base=10), 3.0, 0.5, 60) == (3.5, 3.5)
    assert referee_limits(TimeControl(movetime=0.2), None, 0.5, 60) == (0.7, 0.7)
    assert referee_limits(TimeControl(base=10, movetime=2), 1.0, 0.25, 60) == (1.25, 1.25)
    # depth or nodes only: no time loss, the move timeout bounds the wait
    assert referee_limits(TimeControl(depth=5), None, 0.5, 60) == (None, 60)


def test_parse_engine_errors_name_the_engine() -> None:
    spec = parse_engine(["cmd=othello-engine --x 'a b'", "name=z", "tc=5+0.05", "depth=6"])
    assert spec.command == ("othello-engine", "--x", "a b")
    assert (spec.tc.base, spec.tc.inc, spec.tc.depth) == (5.0, 0.05, 6)
    with pytest.raises(MatchError, match="'q'.*no command"):
        parse_engine(["name=q"])
    with pytest.raises(MatchError, match="'q'.*nodes"):
        parse_engine(["cmd=x", "name=q", "nodes=0"])


def test_json_to_stdout_is_pure_json(tmp_path: Path) -> None:
    """``--json -`` is for pipes (``| jq``): stdout holds the JSON alone, the report goes to stderr."""
    proc = subprocess.run([PY, "-m", "othello_engine", "match", "--engine", f"cmd={OURS}", "name=a", "depth=1",
                           "--engine", f"cmd={OURS}", "name=b", "depth=1", "--games", "2", "--quiet",
                           "--ggf", str(tmp_path / "g.ggf"), "--json", "-"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["games_played"] == 2 and data["pairings"][0]["games"] == 2
    assert "a vs b" in proc.stderr and "2 of 2 games played" in proc.stderr
