"""A forfeit reason holding ``]``, ``\\`` and non-ASCII (an engine's stderr tail) is written as GGF
that parses back, so ``othello-match --resume`` and ``othello-analyze`` read the file."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from othello_engine.ggf import parse_ggf_games
from uci_support import command

PY = sys.executable
OURS = shlex.join([PY, "-m", "othello_engine"])

# A UCI engine that answers its handshake, then at its first `go` writes a stderr tail whose last
# line ends in a backslash (the end of a GGF value, escaped wrongly) and exits.
BOOM_ENGINE = r'''
import sys, time
for line in sys.stdin:
    cmd = line.split()[:1]
    if cmd == ["uci"]:
        print("id name boom", flush=True)
        print("uciok", flush=True)
    elif cmd == ["isready"]:
        print("readyok", flush=True)
    elif cmd == ["go"]:
        sys.stderr.buffer.write("é ✓\nboom ] \\\n".encode("utf-8"))
        sys.stderr.flush()
        time.sleep(0.3)  # the referee reads the tail while the process ends
        sys.exit(3)
    elif cmd == ["quit"]:
        break
'''


def test_a_forfeit_reason_with_bracket_backslash_and_non_ascii_parses_back(tmp_path: Path) -> None:
    engine = tmp_path / "boom_engine.py"
    engine.write_text(BOOM_ENGINE, encoding="utf-8")
    ggf, js = tmp_path / "out.ggf", tmp_path / "out.json"
    args = [command("othello-match"), "--engine", f"cmd={OURS}", "name=ours", "depth=1",
            "--engine", f"cmd={shlex.join([PY, str(engine)])}", "name=boom", "--games", "2",
            "--ggf", str(ggf), "--quiet"]
    proc = subprocess.run(args + ["--json", str(js)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    games = json.loads(js.read_text())["games"]
    assert [(g["culprit"], g["termination"]) for g in games] == [("boom", "crash")] * 2
    assert all(g["reason"].endswith("stderr: é ✓ | boom ] \\") for g in games), games

    text = ggf.read_text(encoding="utf-8")
    assert len(text.splitlines()) == 2
    records = parse_ggf_games(text)
    assert len(records) == 2
    for rec, game in zip(records, games):
        assert rec.tags["C"] == f"crash: {game['reason']}"
        assert rec.result in ("+64.00:r", "-64.00:r")

    # resuming finds both games in, plays none and leaves the file as it was
    proc = subprocess.run(args + ["--resume"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "2 of 2 games played" in proc.stdout
    assert ggf.read_text(encoding="utf-8") == text

    # othello-analyze reads the games (one record per position before a move)
    out = tmp_path / "analysis.txt"
    proc = subprocess.run([command("othello-analyze"), str(ggf), "--depth", "1", "-q", "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and out.read_text().strip()


def test_a_reason_with_line_breaks_stays_on_its_line() -> None:
    """A reason may hold any line break str.splitlines knows (an engine's output is not checked);
    the record stays one line and parses back."""
    from othello_engine.board import BLACK, Board
    from othello_engine.match import game_ggf
    board = Board()
    board.push_str("f5")
    line = game_ggf(board, "a", "b", [None], [0.1], "", "protocol",
                    "bad line 'x\ry\u2028z\x85w\x0c' ] \\", BLACK)
    assert len(line.splitlines()) == 1
    [rec] = parse_ggf_games(line)
    assert rec.tags["C"] == "protocol: bad line 'x y z w ' ] \\"
