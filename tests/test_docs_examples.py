"""The shell examples of README.md and docs/*.md run and print what they show; their links resolve.

The convention (docs/development.md, "Examples in the docs"):

- A fenced ```` ```console ```` block is run. Each line that starts with ``$ `` is a command (a line
  ending in `` \\`` continues on the next line, and a here-document such as ``<<'EOF'`` runs up to
  its closing word); the lines after it, up to the next ``$ `` line, are
  its expected output (standard output and standard error together, in the order written).
- ``...`` in the expected output stands for any text: the rest of a line (timings, nodes per
  second) or whole lines.
- Every block runs in a fresh empty directory (off the Python path, so the installed package is the
  one imported), with bash, the installed commands of this interpreter first on ``PATH``, and no
  input. Each command runs in its own shell; the commands of one block share the directory, so a
  block can write a file and read it back.
- A fenced ```` ```sh ```` block is shown, not run: long runs, other engines, clusters.
- ```` ```python ```` blocks must compile.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
BIN = Path(sys.executable).parent
TIMEOUT = 60.0
README_MAX_LINES = 250

_FENCE = re.compile(r"^(\s*)```(\S*)\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: its language, its first line number and its lines."""

    page: Path
    lang: str
    line: int
    lines: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


@dataclass(frozen=True)
class Step:
    """One ``$ `` command of a console block and the output it should print."""

    command: str
    expected: str


def fenced_blocks(page: Path) -> list[Block]:
    """Every fenced block of a markdown page, with the indentation of its fence removed."""
    blocks: list[Block] = []
    lines = page.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, lang, start = len(match.group(1)), match.group(2), i + 1
        body: list[str] = []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        blocks.append(Block(page, lang, start, tuple(body)))
        i += 1
    return blocks


def console_steps(block: Block) -> list[Step]:
    """The commands of a console block with their expected output."""
    steps: list[Step] = []
    lines = list(block.lines)
    i = 0
    assert lines and lines[0].startswith("$ "), f"{block.name}: a console block starts with a '$ ' command"
    while i < len(lines):
        command = lines[i][2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        i += 1
        heredoc = re.search(r"<<-?\s*'?(\w+)'?", command)
        if heredoc:  # the here-document's lines belong to the command, up to its closing word
            while i < len(lines) and lines[i - 1].strip() != heredoc.group(1):
                command += "\n" + lines[i]
                i += 1
        output: list[str] = []
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            i += 1
        steps.append(Step(command, "\n".join(output)))
    return steps


def ellipsis_match(expected: str, actual: str) -> bool:
    """Whether ``actual`` is ``expected`` with each ``...`` standing for any text (lines included);
    trailing spaces and trailing blank lines are ignored."""
    def clean(text: str) -> str:
        return "\n".join(line.rstrip() for line in text.rstrip().split("\n"))
    pattern = ".*".join(re.escape(piece) for piece in clean(expected).split("..."))
    return re.fullmatch(pattern, clean(actual), re.DOTALL) is not None


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OTHELLO_ENGINE_BOOK")}
    env["PATH"] = str(BIN) + os.pathsep + env.get("PATH", "")
    env.update(TERM="dumb", NO_COLOR="1", LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8", PYTHONUNBUFFERED="1")
    return env


ALL_BLOCKS = [block for page in PAGES for block in fenced_blocks(page)]
CONSOLE = [block for block in ALL_BLOCKS if block.lang == "console"]
PYTHON = [block for block in ALL_BLOCKS if block.lang == "python"]


def test_the_pages_have_examples_to_run() -> None:
    assert (ROOT / "docs").is_dir()
    assert len(CONSOLE) >= 10, [block.name for block in CONSOLE]


@pytest.mark.parametrize("block", CONSOLE, ids=[block.name for block in CONSOLE])
def test_console_example(block: Block, tmp_path: Path) -> None:
    env = _environment()
    for step in console_steps(block):
        try:
            done = subprocess.run(["bash", "-c", step.command], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{block.name}: `{step.command}` took more than {TIMEOUT:.0f} s")
        actual = done.stdout.decode("utf-8", errors="replace")
        if not ellipsis_match(step.expected, actual):
            pytest.fail(f"{block.name}: `{step.command}` (exit status {done.returncode})\n"
                        f"--- shown:\n{step.expected}\n--- printed:\n{actual}", pytrace=False)


@pytest.mark.parametrize("block", PYTHON, ids=[block.name for block in PYTHON])
def test_python_example_compiles(block: Block) -> None:
    compile("\n".join(block.lines), block.name, "exec")


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but ``-`` and ``_`` dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    inside, found = False, set()
    for line in page.read_text(encoding="utf-8").split("\n"):
        if line.lstrip().startswith("```"):
            inside = not inside
        elif not inside and line.startswith("#"):
            found.add(_anchor(line.lstrip("#")))
    return found


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_links_resolve(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(target)
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: links to nothing: {broken}"


def test_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move the detail to docs/"


@pytest.mark.parametrize("expected, actual, result", [
    ("time ... s", "time 0.0169 s", True),
    ("a\n...\nz", "a\nb\nc\nz", True),
    ("a\nz", "a\nb\nz", False),
    ("total 3005288", "total 3005289", False),
])
def test_ellipsis_match(expected: str, actual: str, result: bool) -> None:
    assert ellipsis_match(expected, actual) is result
