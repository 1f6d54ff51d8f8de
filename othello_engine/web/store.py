"""The server's data folder: saved games (GGF files) and the results file, and nothing outside it.

Names come from the page, so every one is checked (:data:`~othello_engine.web.messages.NAME_PATTERN`)
and every path is made inside ``<data>/games`` and checked to stay there before it is used.
Writes go to a temporary file renamed into place, so a crash never leaves half a file.

>>> import tempfile
>>> store = DataStore(tempfile.mkdtemp())
>>> store.record_result(8, "engine 100 ms", "win")
>>> store.results()["8"]["engine 100 ms"]
{'win': 1, 'loss': 0, 'draw': 0}
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Optional

from othello_engine import atomicfile
from othello_engine.board import OthelloError
from othello_engine.ggf import parse_ggf_games
from othello_engine.web.game import game_summary
from othello_engine.web.messages import NAME_PATTERN

RESULTS_FILE = "results.json"
GAMES_FOLDER = "games"
MAX_LISTED = 200
"""Most saved games listed (the newest)."""
OUTCOMES = ("win", "loss", "draw")


class StoreError(ValueError):
    """A name that is not allowed, a game that is not there, a file that cannot be written."""


def default_data_folder() -> Path:
    """``$XDG_DATA_HOME/othello_engine/web`` (``~/.local/share/othello_engine/web`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "othello_engine" / "web"


class DataStore:
    """The data folder of one server; safe to use from several threads."""

    def __init__(self, folder: os.PathLike[str] | str) -> None:
        self.folder = Path(folder).resolve()
        self.games = self.folder / GAMES_FOLDER
        self.games.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    # --- saved games ----------------------------------------------------------------------------
    def _game_path(self, name: str) -> Path:
        if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
            raise StoreError(f"bad game name {name!r}")
        path = (self.games / f"{name}.ggf").resolve()
        if path.parent != self.games:
            raise StoreError(f"bad game name {name!r}")
        return path

    def save_game(self, ggf: str, name: Optional[str] = None, size: int = 8) -> str:
        """Write a game; returns its name (a new one, ``-2``.. added, if the name is taken)."""
        base = name or time.strftime("%Y%m%d-%H%M%S") + f"-{size}x{size}"
        with self._lock:
            for n in range(1, 1000):
                candidate = base if n == 1 else f"{base}-{n}"
                if len(candidate) > 64:
                    candidate = candidate[-64:].lstrip(".-_ ") or "game"
                path = self._game_path(candidate)
                if not path.exists():
                    atomicfile.write_text(path, ggf + "\n")
                    return candidate
        raise StoreError(f"too many games named {base!r}")

    def read_game(self, name: str) -> str:
        """The GGF text of a saved game."""
        path = self._game_path(name)
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise StoreError(f"no saved game named {name!r}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise StoreError(f"cannot read saved game {name!r}: {exc.__class__.__name__}") from None

    def list_games(self) -> list[dict[str, Any]]:
        """The saved games, newest first: name, size, players, result, moves."""
        entries = []
        for path in self.games.glob("*.ggf"):
            name = path.stem
            if not NAME_PATTERN.fullmatch(name):
                continue
            try:
                entries.append((path.stat().st_mtime, name, path))
            except OSError:
                continue
        entries.sort(reverse=True)
        out = []
        for _, name, path in entries[:MAX_LISTED]:
            item: dict[str, Any] = {"name": name}
            try:
                records = parse_ggf_games(path.read_text(encoding="utf-8"))
                if records:
                    item.update(game_summary(records[0]))
            except (OSError, UnicodeDecodeError, OthelloError):
                item["error"] = "unreadable"
            out.append(item)
        return out

    # --- results --------------------------------------------------------------------------------
    def results(self) -> dict[str, dict[str, dict[str, int]]]:
        """Wins, losses and draws of the person, by board size and opponent."""
        with self._lock:
            return self._read_results()

    def _read_results(self) -> dict[str, dict[str, dict[str, int]]]:
        path = self.folder / RESULTS_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, UnicodeDecodeError):
            # keep the unreadable file for the person to look at; count afresh
            bad = path.with_suffix(".json.bad")
            try:
                os.replace(path, bad)
                sys.stderr.write(f"othello-web: {path} was unreadable; kept as {bad}\n")
            except OSError:
                pass
            return {}
        out: dict[str, dict[str, dict[str, int]]] = {}
        table = data.get("results") if isinstance(data, dict) else None
        if not isinstance(table, dict):
            return {}
        for size, opponents in table.items():
            if not isinstance(opponents, dict):
                continue
            for opponent, counts in opponents.items():
                if not isinstance(counts, dict):
                    continue
                row = {k: counts.get(k, 0) for k in OUTCOMES}
                if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in row.values()):
                    out.setdefault(str(size), {})[str(opponent)] = row
        return out

    def record_result(self, size: int, opponent: str, outcome: str) -> None:
        """Count one finished game: outcome is ``win``, ``loss`` or ``draw`` for the person."""
        if outcome not in OUTCOMES:
            raise StoreError(f"bad outcome {outcome!r}")
        with self._lock:
            table = self._read_results()
            row = table.setdefault(str(size), {}).setdefault(opponent, dict.fromkeys(OUTCOMES, 0))
            row[outcome] += 1
            text = json.dumps({"version": 1, "results": table}, indent=1, sort_keys=True) + "\n"
            atomicfile.write_text(self.folder / RESULTS_FILE, text)
