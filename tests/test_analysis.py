"""othello-analyze through the real command: every input format, the output formats, order under
--jobs, error records, engine restarts, exact FFO scores and the score plot."""

from __future__ import annotations

import csv
import io
import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, Optional

import pytest

from othello_engine.board import PASS, Board, parse_square, square_name
from othello_engine.ggf import format_ggf
from othello_engine.notation import parse_obf

import reference_rules as ref
from uci_support import default_sigint
from othello_engine.analysis import detect_format
from othello_engine.cli.analyze import Progress

ANALYZE = [sys.executable, "-m", "othello_engine.cli.analyze"]


from ffo_data import needs_ffo, ffo_file
PASS_POSITION = "XXXXXXXXXXXXXXXOXXXOOXOOXXXOXO-OXOOXOOOOXOOOOXO-X-OOOOXX----OXXX w"


def run(args: list[str], stdin: str = "", timeout: float = 120,
        command: Optional[list[str]] = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run((command or ANALYZE) + args, input=stdin, capture_output=True,
                          text=True, timeout=timeout)


def records(proc: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in proc.stdout.splitlines()]


def solve(board: Board) -> int:
    """Exact final disc difference for the side to move, from the reference rules (the oracle)."""
    return ref.solve_text(board.cells(), "XO"[board.turn])


def a_game(moves: int = 12) -> Board:
    """A game from the start: always the first legal move (passes when forced)."""
    board = Board()
    while len(board.move_stack) < moves and not board.is_game_over():
        board.push(board.legal_moves()[0] if board.legal_moves() else PASS)
    return board


def check_analysis(rec: dict[str, Any], board: Board) -> None:
    """The fields of an analysis record, checked against the reference rules."""
    assert rec["fen"] == board.fen()
    assert rec["side"] == ("black" if board.turn == 0 else "white")
    assert rec["empties"] == board.empties
    assert board.is_legal(parse_square(rec["best"]))
    assert rec["pv"][0] == rec["best"]
    assert isinstance(rec["score"], (int, float)) and isinstance(rec["exact"], bool)
    assert rec["depth"] >= 1 and rec["nodes"] >= 1 and rec["time"] >= 0


# --- input formats -------------------------------------------------------------------------------

def test_every_input_format_is_detected_and_analysed() -> None:
    obf_board = a_game(40)
    obf_board = Board.from_discs(8, obf_board.black, obf_board.white, obf_board.turn)
    side = "X" if obf_board.turn == 0 else "O"
    obf_line = f"{obf_board.cells()} {side};"
    game = a_game(6)
    moves = Board()
    for m in ("f5", "d6", "c3", "d3", "c4"):
        moves.push_str(m)
    inputs = [
        (obf_line, "obf", obf_board),
        (obf_board.cells() + " " + side, "board", obf_board),
        (obf_board.cells() + side, "board", obf_board),
        (moves.fen(), "fen", moves),
        ("f5d6c3d3c4", "moves", moves),
        ("F5 d6 C3 d3 c4", "moves", moves),
    ]
    text = "\n".join(t for t, _, _ in inputs) + "\n" + format_ggf(game, "ann", "bob") + "\n"
    proc = run(["--json", "--depth", "2", "--quiet"], text)
    assert proc.returncode == 0, proc.stderr
    recs = records(proc)
    assert len(recs) == len(inputs) + 6
    for rec, (line, fmt, board) in zip(recs, inputs):
        assert (rec["format"], rec["input"]) == (fmt, line)
        check_analysis(rec, board)
    assert [r["line"] for r in recs] == list(range(1, len(inputs) + 1)) + [len(inputs) + 1] * 6
    replay = game.replay()
    for ply, (rec, move) in enumerate(zip(recs[len(inputs):], game.move_stack), 1):
        assert (rec["format"], rec["ply"]) == ("ggf", ply)
        assert parse_square(rec["played"]) == move
        check_analysis(rec, replay)
        assert rec["black_score"] == (rec["score"] if replay.turn == 0 else -rec["score"])
        replay.push(move)


def test_forced_format_and_detection() -> None:
    proc = run(["--json", "--depth", "1", "--format", "fen"], "f5d6\n8/8/8/3ox3/3xo3/8/8/8 x\n")
    first, second = records(proc)
    assert first["line"] == 1 and "FEN" in first["error"] and second["best"]
    assert proc.returncode == 1
    assert [detect_format(s) for s in ("f5 d6", "(;GM[Othello];)", "x y z")] == \
        ["moves", "ggf", "unknown"]


def test_bad_lines_get_error_records_and_the_run_goes_on() -> None:
    text = ("f5 d6\nnonsense here\n\n# a comment\nf5 f5\n" + "-" * 63 + " X\nf5\n"
            "(;GM[Othello]B[A1];)\n8/8/8/8/8/8/8 x\n")
    proc = run(["--json", "--depth", "1"], text)
    assert proc.returncode == 1
    recs = records(proc)
    assert [r["line"] for r in recs] == [1, 2, 5, 6, 7, 8, 9]
    assert "best" in recs[0] and "best" in recs[4]
    assert "not a position" in recs[1]["error"] and recs[1]["format"] is None
    assert "move 2" in recs[2]["error"] and "occupied" in recs[2]["error"]
    assert "63 cells" in recs[3]["error"] and recs[3]["format"] == "board"
    assert recs[5]["format"] == "ggf" and "a1" in recs[5]["error"].lower()
    assert recs[6]["format"] == "fen" and "bad FEN" in recs[6]["error"]
    assert all("error" not in r for r in (recs[0], recs[4]))


def test_error_records_clip_a_huge_input_line() -> None:
    """A 100 KB line used to be echoed whole in its error record."""
    junk = "x" * 100_000
    moves = "f5 " * 30_000
    proc = run(["--json", "--depth", "1"], f"{junk}\n{moves}\nf5 d6\n")
    assert proc.returncode == 1
    recs = records(proc)
    assert [r["line"] for r in recs] == [1, 2, 3]
    assert recs[0]["input"] == "x" * 200 + "... (100000 characters)"
    assert recs[1]["input"] == moves[:200] + f"... ({len(moves)} characters)"
    assert "occupied" in recs[1]["error"]
    assert recs[2]["input"] == "f5 d6" and "best" in recs[2]
    assert len(proc.stdout) < 2000


def test_a_directory_is_not_reported_as_missing(tmp_path: Path) -> None:
    proc = run(["--depth", "1", str(tmp_path)])
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"othello-analyze: cannot read {str(tmp_path)!r}: is a directory\n"
    proc = run(["--depth", "1", str(tmp_path / "nope.txt")])
    assert proc.returncode == 2 and "no such file" in proc.stderr


def test_pass_and_game_over_positions() -> None:
    over = Board.from_cells("X" * 64, "b").cells() + " O"
    proc = run(["--json", "--exact"], PASS_POSITION + "\n" + over + "\n")
    assert proc.returncode == 0, proc.stderr
    passing, final = records(proc)
    cells, side = PASS_POSITION.split()
    board = Board.from_cells(cells, side)
    assert board.must_pass()
    assert passing["best"] == "pass" and passing["pv"][0] == "pass"
    assert passing["exact"] and passing["score"] == solve(board)
    assert final["best"] is None and final["exact"] and final["score"] == -64


# --- output formats ------------------------------------------------------------------------------

def test_table_is_the_default() -> None:
    proc = run(["--depth", "2"], "f5 d6\nbad\n")
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:4] == ["line", "ply", "empt", "side"]
    assert lines[1].split()[0] == "1" and "white" not in lines[1] and " black " in lines[1]
    assert lines[2].split()[:3] == ["2", "-", "error:"]


def test_csv_has_a_row_per_multipv_line() -> None:
    proc = run(["--csv", "--depth", "2", "--multipv", "3"], "f5\nf5 d6 c3 d3\n")
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [(r["line"], r["multipv"]) for r in rows] == [
        ("1", "1"), ("1", "2"), ("1", "3"), ("2", "1"), ("2", "2"), ("2", "3")]
    board = Board()
    board.push_str("f5")
    assert {r["move"] for r in rows[:3]} == {square_name(m) for m in board.legal_moves()}
    assert all(r["fen"] == board.fen() for r in rows[:3])


def test_json_multipv_lines_are_distinct_legal_moves() -> None:
    proc = run(["--json", "--depth", "3", "--multipv", "2"], "f5 d6 c3\n")
    (rec,) = records(proc)
    board = Board()
    for m in ("f5", "d6", "c3"):
        board.push_str(m)
    moves = [ln["move"] for ln in rec["lines"]]
    assert len(set(moves)) == 2 and all(board.is_legal(parse_square(m)) for m in moves)
    assert moves[0] == rec["best"]


def test_jobs_keep_the_input_order() -> None:
    lines = []
    for i in range(8):
        game = a_game(8 + i)
        lines.append(game.fen())
    proc = run(["--json", "--jobs", "2", "--depth", "4"], "\n".join(lines) + "\n")
    recs = records(proc)
    assert [r["line"] for r in recs] == list(range(1, 9))
    assert [r["input"] for r in recs] == lines


SLOW_FIRST_ENGINE = textwrap.dedent("""
    import sys, time
    from othello_engine.protocol.loop import Output
    from othello_engine.protocol.uci import UciSession
    session = UciSession(Output(sys.stdout))
    position = ""
    for line in sys.stdin:
        if line.startswith("position"):
            position = line.split()
        if line.startswith("go") and position[-1:] == ["f5"]:
            time.sleep(1.5)  # the first line finishes last
        if not session.handle(line.strip()):
            break
    session.close()
""")


def test_jobs_reorder_results_that_finish_out_of_order(tmp_path: Path) -> None:
    script = tmp_path / "slow_first.py"
    script.write_text(SLOW_FIRST_ENGINE)
    lines = ["f5", "f5 d6", "f5 d6 c3", "f5 d6 c3 d3", "f5 d6 c3 d3 c4"]
    proc = run(["--json", "--jobs", "2", "--depth", "2", "--engine", f"{sys.executable} {script}"],
               "\n".join(lines) + "\n")
    recs = records(proc)
    assert [r["input"] for r in recs] == lines
    assert recs[0]["time"] >= 1.5 and all(r["time"] < 1.5 for r in recs[1:])


def test_engine_subcommand_and_progress_stays_off_without_a_terminal() -> None:
    proc = run(["analyze", "--json", "--depth", "1"], "f5\n",
               command=[sys.executable, "-m", "othello_engine"])
    assert proc.returncode == 0 and records(proc)[0]["best"] in ("d6", "f6", "f4")
    assert proc.stderr == ""


def test_progress_bar_text() -> None:
    out = io.StringIO()
    bar = Progress(out, enabled=True)
    bar.update(3, 12)
    assert "3/12" in out.getvalue() and "/s" in out.getvalue() and "left" in out.getvalue()
    bar.clear()
    assert out.getvalue().endswith("\r\x1b[K")
    quiet = io.StringIO()
    Progress(quiet, enabled=False).update(1, 2)
    assert quiet.getvalue() == ""


# --- engines that fail -----------------------------------------------------------------------------

FLAKY_ENGINE = textwrap.dedent("""
    import os, sys
    from othello_engine.protocol.loop import Output
    from othello_engine.protocol.uci import UciSession
    marker, mode = sys.argv[1], sys.argv[2]
    session = UciSession(Output(sys.stdout))
    position = ""
    for line in sys.stdin:
        if line.startswith("position"):
            position = line
        if line.startswith("go") and position.split()[-2:] == ["f5", "d6"]:
            if mode == "always" or not os.path.exists(marker):
                open(marker, "w").close()
                os._exit(3)
        if not session.handle(line.strip()):
            break
    session.close()
""")


@pytest.mark.parametrize("mode", ["once", "always"])
def test_a_dead_engine_is_restarted_and_the_position_retried(tmp_path: Path, mode: str) -> None:
    script = tmp_path / "flaky.py"
    script.write_text(FLAKY_ENGINE)
    engine = f"{sys.executable} {script} {tmp_path / 'died'} {mode}"
    proc = run(["--json", "--depth", "1", "--engine", engine], "f5\nf5 d6\nf5 d6 c3\n")
    recs = records(proc)
    assert (tmp_path / "died").exists()
    assert [r["line"] for r in recs] == [1, 2, 3]
    assert "best" in recs[0] and "best" in recs[2]
    if mode == "once":
        assert proc.returncode == 0 and "best" in recs[1]
    else:
        assert proc.returncode == 1 and "died twice" in recs[1]["error"]
        assert "code 3" in recs[1]["error"]


def test_a_position_past_its_timeout_is_reported() -> None:
    proc = run(["--json", "--depth", "60", "--timeout", "0.5"], "f5\n", timeout=60)
    (rec,) = records(proc)
    assert "within 0.5 s" in rec["error"] and proc.returncode == 1


def test_an_engine_that_cannot_start_is_a_usage_error() -> None:
    proc = run(["--engine", "/nonexistent/engine"], "f5\n")
    assert proc.returncode == 2 and "cannot start" in proc.stderr and proc.stdout == ""


# --- exact scores ----------------------------------------------------------------------------------

@needs_ffo
def test_exact_scores_on_ffo_1_to_3_agree_with_the_suite() -> None:
    lines = ffo_file().read_text().splitlines()[:3]
    proc = run(["--json", "--exact", "--jobs", "2"], "\n".join(lines) + "\n", timeout=120)
    assert proc.returncode == 0, proc.stderr
    recs = records(proc)
    for rec, line in zip(recs, lines):
        _, known = parse_obf(line)
        assert rec["exact"] and rec["score"] == known[0][1] == rec["known_score"]
        assert rec["agrees"] is True and rec["best"] in rec["known_best"]


def test_obf_disagreement_is_reported() -> None:
    board = a_game(200)
    while board.empties < 8:
        board.pop()
    board = Board.from_discs(8, board.black, board.white, board.turn)
    claimed = board.legal_moves()[0]
    assert solve(board.copy()) != 64
    cells = board.cells() + (" X" if board.turn == 0 else " O")
    proc = run(["--json", "--exact"], f"{cells}; {square_name(claimed)}:+64;\n")
    (rec,) = records(proc)
    assert rec["known_score"] == 64 and rec["known_best"] == [square_name(claimed)]
    assert rec["exact"] and rec["agrees"] is False


# --- the plot --------------------------------------------------------------------------------------

def test_plot_draws_a_png_for_a_game(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    game = a_game(200)
    assert game.is_game_over()
    target = tmp_path / "game.png"
    proc = run(["--quiet", "--depth", "1", "--plot", str(target), "--json"],
               format_ggf(game, "ann", "bob") + "\n")
    assert proc.returncode == 0, proc.stderr
    assert len(records(proc)) == len(game.move_stack)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size > 5000


def test_plot_without_matplotlib_says_how_to_get_it() -> None:
    code = ("import sys; sys.modules['matplotlib'] = None; "
            "from othello_engine.cli.analyze import main; sys.exit(main(sys.argv[1:]))")
    proc = run(["--plot", "x.png"], "f5\n", command=[sys.executable, "-c", code])
    assert proc.returncode == 2 and "pip install 'othello_engine[plot]'" in proc.stderr
    assert not os.path.exists("x.png")


def test_the_module_examples_run() -> None:
    import doctest
    from othello_engine.analysis import inputs, pipeline, plot, records, remote, runner
    from othello_engine.cli import analyze
    for module in (inputs, records, runner, pipeline, remote, plot, analyze):
        assert doctest.testmod(module).failed == 0, module.__name__


class _InProcessPool:
    """The cluster pool's interface run in this process, every function, item and result passed
    through pickle as Ray passes them: the analysis adapter without Ray installed."""

    def __init__(self, slots: int, setup: Any = None, setup_args: tuple[Any, ...] = ()) -> None:
        def copy(value: Any) -> Any:
            return pickle.loads(pickle.dumps(value))
        self.copy = copy
        self.states = [copy(setup)(*copy(setup_args)) for _ in range(slots)]

    def call_on(self, slot: int, func: Any, item: Any) -> Any:
        return self.copy(self.copy(func)(self.states[slot], self.copy(item)))

    def run(self, func: Any, items: Any, *, depth: int = 1, halt: Any = None,
            admit: Any = None) -> Any:
        from othello_engine.cluster import NOT_YET
        for index, item in enumerate(i for i in items if i is not NOT_YET):
            if halt is not None and halt():
                return
            yield index, self.call_on(index % len(self.states), func, item)

    def close(self) -> None:
        for state in self.states:
            state.close()


def test_the_cluster_adapter_gives_the_local_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """The analysis's Ray adapter (slot state, batches, publishing by index) over an in-process
    pool: the records of a local run, in input order, each once."""
    from othello_engine.analysis import analyse_lines, remote
    from othello_engine.client import Limit
    monkeypatch.setattr(remote, "Pool", _InProcessPool)
    monkeypatch.setattr(remote, "connect", lambda address: True)
    monkeypatch.setattr(remote, "cluster_cpus", lambda: 2)
    monkeypatch.setattr(remote, "ANALYSIS_BATCH", 2)
    lines = ["f5 d6 c3", "hello", "f5", format_ggf(a_game(6), "ann", "bob"), PASS_POSITION]
    sources = [("in", [line + "\n" for line in lines])]
    local = [r.to_json() for r in analyse_lines(sources, Limit(depth=2), multipv=2)]
    remote_run = [r.to_json() for r in analyse_lines(sources, Limit(depth=2), multipv=2,
                                                     cluster="local")]
    for r in local + remote_run:
        r.pop("time", None), r.pop("nodes", None)
    assert remote_run == local and len(local) == 1 + 1 + 1 + 6 + 1


def _children(pid: int) -> list[int]:
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(entry))
    return kids


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_closes_its_engines(sig: int, code: int) -> None:
    proc = subprocess.Popen(ANALYZE + ["--depth", "40", "--jobs", "2"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=default_sigint)
    assert proc.stdin is not None
    proc.stdin.write(b"f5\nf5 d6\n")
    proc.stdin.close()
    deadline = time.monotonic() + 30
    while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    engines = _children(proc.pid)
    assert len(engines) == 2
    time.sleep(0.3)  # let the searches start
    proc.send_signal(sig)
    assert proc.wait(timeout=20) == code
    assert not any(os.path.exists(f"/proc/{pid}") for pid in engines)
    proc.stdout.close()  # type: ignore[union-attr]
    proc.stderr.close()  # type: ignore[union-attr]


def test_plot_writes_one_file_per_game(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    games = [format_ggf(a_game(n)) for n in (6, 8)]
    text = games[0] + "\nf5 d6\n" + games[1] + "\n"
    proc = run(["--depth", "1", "--plot", str(tmp_path / "g.png"), "--csv"], text)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g-1.png", "g-3.png"]
    assert "wrote" in proc.stderr
