"""--resume without a cluster: othello-match keeps the games already in its GGF file and plays the
missing ones; othello-analyze keeps the records already in its --output file and analyses the
rest; a file of another match or input is refused (exit 2) and left as it was."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from othello_engine import match
from othello_engine.cli import analyze
from othello_engine.cli import match as match_cli

PY = sys.executable
OURS = shlex.join([PY, "-m", "othello_engine"])
ENGINES = ["--engine", f"cmd={OURS}", "name=d1", "depth=1", "--engine", f"cmd={OURS}", "name=d2", "depth=2"]


def without_clock(lines: list[str]) -> list[str]:
    return [re.sub(r"(\[[A-H][1-8]/[-0-9.]*)/[0-9.]+\]", r"\1]", re.sub(r"DT\[[^\]]*\]", "", ln))
            for ln in lines]


def test_match_resume_plays_only_the_missing_games(tmp_path: Path) -> None:
    full, part, js = tmp_path / "full.ggf", tmp_path / "part.ggf", tmp_path / "part.json"
    assert match_cli.main(ENGINES + ["--games", "6", "--ggf", str(full), "--quiet"]) == 0
    games = full.read_text().splitlines(True)
    part.write_text(games[0] + games[3] + games[4][:40])  # two games in, the third cut by a kill
    assert match_cli.main(ENGINES + ["--games", "6", "--ggf", str(part), "--json", str(js), "--quiet",
                                 "--resume"]) == 0
    lines = part.read_text().splitlines()
    assert lines[:2] == [games[0].rstrip("\n"), games[3].rstrip("\n")] and len(lines) == 6
    assert sorted(without_clock(lines)) == sorted(without_clock(full.read_text().splitlines()))
    data = json.loads(js.read_text())
    assert [g["number"] for g in data["games"]] == [1, 2, 3, 4, 5, 6]
    config, _ = match_cli.config_from_argv(ENGINES + ["--games", "6"])
    done = match.read_finished_games(config, str(part))
    assert sorted(g.number for g in done) == [1, 2, 3, 4, 5, 6]


def test_match_resume_keeps_a_whole_last_record_without_its_newline(tmp_path: Path) -> None:
    full, part = tmp_path / "full.ggf", tmp_path / "part.ggf"
    assert match_cli.main(ENGINES + ["--games", "4", "--ggf", str(full), "--quiet"]) == 0
    games = full.read_text().splitlines(True)
    part.write_text(games[0] + games[1].rstrip("\n"))   # as an editor may save it
    assert match_cli.main(ENGINES + ["--games", "4", "--ggf", str(part), "--quiet", "--resume"]) == 0
    lines = part.read_text().splitlines()
    assert lines[:2] == [games[0].rstrip("\n"), games[1].rstrip("\n")] and len(lines) == 4
    assert sorted(without_clock(lines)) == sorted(without_clock(full.read_text().splitlines()))


def test_match_resume_keeps_a_finished_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ggf = tmp_path / "out.ggf"
    assert match_cli.main(ENGINES + ["--games", "2", "--ggf", str(ggf), "--quiet"]) == 0
    before = ggf.read_text()
    assert match_cli.main(ENGINES + ["--games", "2", "--ggf", str(ggf), "--resume"]) == 0
    assert ggf.read_text() == before
    assert "2 of 2 games played" in capsys.readouterr().out


def test_match_resume_refuses_another_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ggf = tmp_path / "out.ggf"
    assert match_cli.main(ENGINES + ["--games", "2", "--ggf", str(ggf), "--quiet"]) == 0
    before = ggf.read_text()
    other = [s.replace("name=d2", "name=other") for s in ENGINES]
    assert match_cli.main(other + ["--games", "2", "--ggf", str(ggf), "--resume"]) == 2
    assert "not a game of this match" in capsys.readouterr().err
    assert ggf.read_text() == before


def positions(tmp_path: Path) -> Path:
    path = tmp_path / "in.txt"
    path.write_text("f5\nf5d6\nbad line\nf5d6c3\nf5d6c3d3\nf5d6c3d3c4\nf5f6\n")
    return path


@pytest.mark.parametrize("kind", ["json", "csv", "table"])
def test_analysis_resume_appends_the_missing_records(tmp_path: Path, kind: str) -> None:
    src, ref, out = positions(tmp_path), tmp_path / "ref", tmp_path / "out"
    flags = [str(src), "--depth", "2", "--multipv", "2", "-q"] + ([f"--{kind}"] if kind != "table" else [])
    assert analyze.main(flags + ["-o", str(ref)]) == 1
    rows = ref.read_text().splitlines(True)
    cut = 1 + 2 * 2 if kind != "json" else 2  # (a header and) two positions, two rows each in CSV, table
    out.write_text("".join(rows[:cut]) + rows[cut][:10])
    assert analyze.main(flags + ["-o", str(out), "--resume"]) == 1

    def clockless(text: str) -> list[str]:  # the time column or field
        if kind == "json":
            return [json.dumps({k: v for k, v in json.loads(ln).items() if k != "time"})
                    for ln in text.splitlines()]
        if kind == "csv":
            return [",".join(c for k, c in enumerate(ln.split(",")) if k != 14) for ln in text.splitlines()]
        return [re.sub(r"\d+\.\d\ds ", "", ln) for ln in text.splitlines()]
    assert clockless(out.read_text()) == clockless(ref.read_text())


def test_analysis_resume_refuses_another_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, out = positions(tmp_path), tmp_path / "out.json"
    assert analyze.main([str(src), "--depth", "2", "--json", "-q", "-o", str(out)]) == 1
    other = tmp_path / "other.txt"
    other.write_text("f5\n\n\nf5d6\nf5d6c3\n" * 3)
    before = out.read_text()
    assert analyze.main([str(other), "--depth", "2", "--json", "-q", "-o", str(out), "--resume"]) == 2
    assert "does not match the input" in capsys.readouterr().err
    assert out.read_text() == before


def test_resume_needs_the_output_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert analyze.main(["--depth", "2", "--resume"]) == 2
    assert match_cli.main(ENGINES + ["--ggf", "", "--resume"]) == 2
    err = capsys.readouterr().err
    assert "--resume needs the --output file" in err and "--resume needs the --ggf file" in err
