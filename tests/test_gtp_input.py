"""GTP input edge cases: a comment before the first command, an overdrawn clock, and the end of
the input during a search (each was a reproducer of the reliability round)."""

from __future__ import annotations

import subprocess
import sys
import time

from uci_support import command


def engine(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([command("othello-engine"), *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_comment_first_does_not_pick_the_uci_protocol() -> None:
    out = subprocess.run([command("othello-engine")], input="# set up by the controller\n1 name\n2 boardsize 8\n",
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.split("\n\n")[:2] == ["=1 othello_engine", "=2"], out.stdout
    assert "unknown command" not in out.stdout


def test_comment_lines_alone_end_quietly() -> None:
    out = subprocess.run([command("othello-engine")], input="# nothing\n   # more\n", capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and "Traceback" not in out.stderr


def test_an_overdrawn_clock_is_an_empty_one() -> None:
    out = subprocess.run([command("othello-engine"), "--gtp"],
                         input="1 time_settings 60 0 0\n2 time_left b -0.5 0\n3 genmove b\n",
                         capture_output=True, text=True, timeout=60)
    replies = out.stdout.split("\n\n")
    assert replies[1] == "=2", out.stdout
    assert replies[2].startswith("=3 ") and replies[2][3:].strip().lower() in ("d3", "c4", "f5", "e6")


def test_closing_the_input_stops_genmove_at_once() -> None:
    p = engine("--gtp")
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write("1 time_settings 600 0 0\n2 genmove b\n")
    p.stdin.flush()
    assert p.stdout.readline().strip() == "=1"
    assert p.stdout.readline() == "\n"  # the empty line that ends a GTP response
    time.sleep(0.5)  # the search of the first move is under way (600 s of main time)
    closed = time.monotonic()
    p.stdin.close()
    reply = p.stdout.readline()
    p.wait(timeout=60)
    took = time.monotonic() - closed
    assert reply.startswith("=2 "), reply
    # it used to think on for about 12 s: a generous bound that still tells the two apart
    assert took < 4.0, took
    assert p.returncode == 0


def test_the_uci_protocol_still_reads_piped_commands_in_order() -> None:
    out = subprocess.run([command("othello-engine")], input="uci\nposition startpos moves f5\nd\nisready\n",
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.rstrip().endswith("readyok") and "uciok" in out.stdout
    assert sys.executable  # the entry point of this interpreter ran
