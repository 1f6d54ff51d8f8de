"""The training pipeline of the pattern evaluation: generate games, label positions, fit, export.

``othello-train`` (or ``othello-engine train``) runs one step per subcommand; each step reads the
previous step's file, writes its own, and resumes where an interrupted run stopped (a rerun with
the same output file does only what is missing). Work items are seeded by their number, so a run
gives the same file whatever ``--jobs`` says.

1. ``generate``: self-play games from random openings (a random number of uniformly random
   plies, then the engine at a fixed depth with a few random moves, then perfect play from
   ``--solve`` empties). One game a line: ``<moves> <black disc difference> <solve empties>``,
   e.g. ``f5d6c3d3c4... +6 18``; passes are not written (they are implied).
2. ``label``: every position of every game gets a target, the final disc difference for the
   side to move. From the solve point on the game was played perfectly, so its result is the
   exact score of those positions; earlier positions get a search score made with the weights
   fitted so far (``--weights``, the backward bootstrapping of Logistello and Edax), and the
   game's result where no weights are given. One position a line:
   ``<64 cells, X to move> <target> <kind>`` (kind ``e`` exact, ``s`` search, ``r`` result).
3. ``fit``: ridge least squares over the sparse pattern features, phase by phase (numpy;
   ``pip install 'othello_engine[train]'``), with a held-out set whose error is printed per phase.
4. ``export`` is part of fit (``--out weights.bin``); ``evaluate`` prints the mean absolute
   error of the static evaluation (classic and pattern) against exact scores.
"""

from __future__ import annotations

import argparse
import gzip
import io
import math
import multiprocessing
import os
import random
import signal
import sys
import time
from dataclasses import dataclass
from typing import IO, Callable, Iterable, Iterator, Optional, Sequence

from othello_engine import _core
from othello_engine.board import BLACK, PASS, Board, parse_square, square_name

PROGRESS_MIN_SECONDS = 0.5


# --- files ---------------------------------------------------------------------------------------
def open_text(path: str, mode: str = "r") -> IO[str]:
    """A text file, gzip-compressed when its name ends in .gz."""
    if path.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, mode.replace("t", "") + "b"), encoding="ascii")
    return open(path, mode, encoding="ascii")


def complete_lines(path: str) -> int:
    """Number of whole lines in path (0 if it does not exist). A plain file whose last line was cut
    short by an interrupted run is truncated to its last whole line, so that appending resumes it."""
    if not os.path.exists(path):
        return 0
    if path.endswith(".gz"):
        n = 0
        try:
            with gzip.open(path, "rb") as f:
                for line in f:
                    if line.endswith(b"\n"):
                        n += 1
        except (EOFError, OSError):   # a cut gzip stream: keep what could be read
            pass
        return n
    with open(path, "rb+") as f:
        data = f.read()
        keep = data.rfind(b"\n") + 1
        if keep != len(data):
            f.truncate(keep)
        return data.count(b"\n", 0, keep)


def progress_bar(total: int, initial: int, desc: str, enabled: bool):
    """A tqdm bar on stderr when tqdm is installed (it is in the train extra), else None."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, initial=initial, desc=desc, unit="it", file=sys.stderr,
                mininterval=PROGRESS_MIN_SECONDS, dynamic_ncols=True)


def run_ordered(func: Callable, items: Sequence, out: IO[str], jobs: int, desc: str,
                done: int, total: int, quiet: bool, chunksize: int = 4,
                cluster: Optional[str] = None) -> int:
    """Apply func to every item (in jobs processes when jobs > 1; with ``cluster``, a Ray address,
    on every CPU of that cluster, see :mod:`othello_engine.cluster`) and write each returned text
    to out in item order as soon as it and all before it are ready. Returns the items written."""
    bar = progress_bar(total, done, desc, not quiet)
    written = 0
    pool = None
    results: Iterable = ()
    try:
        if cluster is not None:
            from othello_engine import cluster as ray_cluster  # Ray is imported only on request
            results = ray_cluster.imap_ordered(func, items, cluster)
        elif jobs > 1:
            ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
            pool = ctx.Pool(jobs, initializer=_worker_init)
            results = pool.imap(func, items, chunksize=chunksize)
        else:
            results = map(func, items)
        for text in results:
            out.write(text)
            out.flush()
            written += 1
            if bar is not None:
                bar.update(1)
        if pool is not None:
            pool.close()
            pool.join()
    finally:
        if pool is not None:
            pool.terminate()
        if cluster is not None:
            results.close()  # type: ignore[attr-defined]  # ends the slot actors now
        if bar is not None:
            bar.close()
    return written


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent handles Ctrl-C and ends the pool


# --- generate -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class GenerateSettings:
    seed: int = 1
    depth: int = 6
    random_min: int = 4
    random_max: int = 16
    epsilon: float = 0.03
    solve: int = 18
    evaluation: str = "pattern"
    weights: Optional[str] = None


_ENGINE = None


def _engine(evaluation: str, weights: Optional[str]):
    """This process's engine (made once, reused for every work item), set to this item's
    evaluation and weights (a step run after another in the same process gets its own)."""
    global _ENGINE
    from othello_engine import weights as weights_mod
    if weights and weights_mod.loaded_path != weights:
        weights_mod.load(weights)
    if _ENGINE is None:
        from othello_engine.engine import Engine
        _ENGINE = Engine(hash_mb=16)
    _ENGINE.evaluation_kind = evaluation
    return _ENGINE


def play_game(index: int, s: GenerateSettings) -> str:
    """One self-play game, numbered index, as a record line (see the module docstring)."""
    from othello_engine.engine import Limit
    rng = random.Random(f"{s.seed}/{index}")
    engine = _engine(s.evaluation, s.weights)
    engine.new_game()
    board = Board()
    moves: list[str] = []
    n_random = rng.randint(s.random_min, s.random_max)
    ply = 0
    while not board.is_game_over():
        if board.must_pass():
            board.push(PASS)
            continue
        legal = board.legal_moves()
        if ply < n_random:
            move = rng.choice(legal)
        elif board.empties <= s.solve:
            move = engine.search(board, Limit(exact=True)).best_move
        elif rng.random() < s.epsilon:
            move = rng.choice(legal)
        else:
            move = engine.search(board, Limit(depth=s.depth)).best_move
        board.push(move)
        moves.append(square_name(move))
        ply += 1
    return f"{''.join(moves)} {board.disc_difference():+d} {s.solve}\n"


def _play_game_item(item: tuple[int, GenerateSettings]) -> str:
    return play_game(*item)


def generate(out_path: str, games: int, settings: GenerateSettings, jobs: int = 1,
             quiet: bool = False, cluster: Optional[str] = None) -> int:
    """Append games numbered from the file's line count up to games - 1; return how many.
    ``cluster``: a Ray address to play them on (see :func:`run_ordered`)."""
    done = complete_lines(out_path)
    if done >= games:
        return 0
    items = [(i, settings) for i in range(done, games)]
    with open_text(out_path, "at") as out:
        return run_ordered(_play_game_item, items, out, jobs, "generate", done, games, quiet,
                           cluster=cluster)


# --- game records and positions ------------------------------------------------------------------
def parse_game(line: str) -> tuple[list[int], int, int]:
    """(moves without passes, black disc difference, solve empties) of a record line."""
    parts = line.split()
    if len(parts) != 3:
        raise ValueError(f"bad game record {line.strip()[:60]!r}: expected <moves> <result> <solve>")
    text = parts[0]
    if len(text) % 2:
        raise ValueError(f"bad move string {text[:60]!r}")
    moves = [parse_square(text[i:i + 2]) for i in range(0, len(text), 2)]
    return moves, int(parts[1]), int(parts[2])


def game_positions(moves: list[int]) -> Iterator[tuple[int, int, int]]:
    """(player, opponent, sign) before each move of the game and at its end; sign is +1 when Black
    is to move. Passes are made where the record implies them."""
    P, O = 0x0000000810000000, 0x0000001008000000
    sign = 1
    for move in moves:
        if not _core.legal_moves(P, O):
            P, O, sign = O, P, -sign
        yield P, O, sign
        if not (_core.legal_moves(P, O) >> move) & 1:
            raise ValueError(f"illegal move {square_name(move)} in a game record")
        P, O = _core.make_move(P, O, move)
        sign = -sign
    yield P, O, sign


def cells_of(P: int, O: int) -> str:
    """64 cells a1..h8, X for the side to move, O for its opponent, - for empty."""
    return "".join("X" if (P >> i) & 1 else "O" if (O >> i) & 1 else "-" for i in range(64))


def board_of(P: int, O: int) -> Board:
    """The 8x8 board with P to move (as Black)."""
    return Board.from_discs(8, P, O, BLACK)


def parse_cells(text: str) -> tuple[int, int]:
    P = O = 0
    for i, c in enumerate(text):
        if c == "X":
            P |= 1 << i
        elif c == "O":
            O |= 1 << i
    return P, O


# --- label --------------------------------------------------------------------------------------
POSITION_WIDTH = 77
"""A position line: 64 cells, space, result (%+03d), space, search score (%+07d centi-discs, or
'      -' when there is none), newline: fixed width, so that fit reads a file with numpy at once."""
NO_SCORE = "      -"


@dataclass(frozen=True)
class Schedule:
    """A value that depends on a position's empties: ``steps`` are (most empties, value) pairs in
    increasing order, ``rest`` the value beyond the last one. Written ``12`` (the same everywhere)
    or ``26:12,4`` (12 up to 26 empties, 4 beyond); see :func:`parse_schedule`."""
    steps: tuple[tuple[int, float], ...] = ()
    rest: float = 0.0

    def at(self, empties: int) -> float:
        for most, value in self.steps:
            if empties <= most:
                return value
        return self.rest

    def __str__(self) -> str:
        return ",".join([f"{e}:{v:g}" for e, v in self.steps] + [f"{self.rest:g}"])


def parse_schedule(text: str, what: str, whole: bool = False) -> Schedule:
    """``V`` or ``E1:V1,E2:V2,...,V`` (E increasing) as a Schedule; ValueError if malformed."""
    def number(t: str) -> float:
        v = float(t)
        if not math.isfinite(v) or v < 0 or (whole and v != int(v)):
            raise ValueError
        return v
    try:
        *pairs, last = text.split(",")
        steps = []
        for pair in pairs:
            e, _, v = pair.partition(":")
            steps.append((int(e), number(v)))
        rest = number(last)
    except ValueError:
        raise ValueError(f"bad {what} {text!r}: expected a value or EMPTIES:VALUE,...,VALUE "
                         f"(e.g. 26:12,4)") from None
    if any(b[0] <= a[0] for a, b in zip(steps, steps[1:])):
        raise ValueError(f"bad {what} {text!r}: the empties must increase")
    return Schedule(tuple(steps), rest)


@dataclass(frozen=True)
class LabelSettings:
    depth: Schedule = Schedule((), 6)   # search depth by empties; 0: no score for those
    weights: Optional[str] = None       # None: results only, no search scores


def label_game(line: str, s: LabelSettings) -> str:
    """The position lines of one game record: every position before a move (passes included:
    the side to move is X), with the game's result for the side to move, and a depth-limited
    search score of the weights s.weights before the solve point when they are given."""
    from othello_engine.engine import Limit
    moves, black_diff, solve = parse_game(line)
    search = None
    if s.weights is not None:
        search = _engine("pattern", s.weights)
        search.new_game()
    out = []
    for P, O, sign in list(game_positions(moves))[:-1]:
        empties = 64 - _core.popcount(P | O)
        result = sign * black_diff
        score = NO_SCORE
        depth = int(s.depth.at(empties))
        if search is not None and empties > solve and depth > 0:
            r = search.search(board_of(P, O), Limit(depth=depth))
            score = f"{max(-9999, min(9999, r.score)):+07d}"
        out.append(f"{cells_of(P, O)} {result:+03d} {score}\n")
    return "".join(out)


def _label_item(item: tuple[str, LabelSettings]) -> str:
    return label_game(*item)


def label(games_path: str, out_path: str, settings: LabelSettings, jobs: int = 1,
          quiet: bool = False, limit: Optional[int] = None, cluster: Optional[str] = None) -> int:
    """Label the games of games_path not yet in out_path (resumes by counting the games whose
    positions are complete: a game's lines are written together). Returns the games labelled.
    ``cluster``: a Ray address to label them on (see :func:`run_ordered`)."""
    with open_text(games_path) as f:
        games = [line for line in f if line.strip()]
    if limit is not None:
        games = games[:limit]
    done_positions = complete_lines(out_path)
    done = 0
    n = 0
    for line in games:           # how many whole games the existing file holds
        count = len(line.split()[0]) // 2 + _passes(line)
        if n + count > done_positions:
            break
        n += count
        done += 1
    if n != done_positions:
        _truncate_lines(out_path, n)
    items = [(line, settings) for line in games[done:]]
    with open_text(out_path, "at") as out:
        return run_ordered(_label_item, items, out, jobs, "label", done, len(games), quiet,
                           chunksize=8, cluster=cluster)


def _passes(line: str) -> int:
    moves, _, _ = parse_game(line)
    return sum(1 for _ in game_positions(moves)) - 1 - len(moves)


def _truncate_lines(path: str, lines: int) -> None:
    with open(path, "rb+") as f:
        data = f.read()
        end = 0
        for _ in range(lines):
            end = data.index(b"\n", end) + 1
        f.truncate(end)


def read_positions(path: str):
    """(P, O, result, score, empties) numpy arrays of a position file; score is NaN where absent."""
    import numpy as np
    with open_text(path) as f:
        raw = f.read().encode("ascii")
    a = np.frombuffer(raw, dtype=np.uint8)
    if len(a) % POSITION_WIDTH:
        raise ValueError(f"{path}: not a position file of {POSITION_WIDTH}-byte lines")
    a = a.reshape(-1, POSITION_WIDTH)
    cells = a[:, :64]
    weights = (np.uint64(1) << np.arange(64, dtype=np.uint64))
    P = ((cells == ord("X")).astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
    O = ((cells == ord("O")).astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
    result = _ints(a[:, 65:68])
    score = np.full(len(a), np.nan)
    has = a[:, 75] != ord("-")
    score[has] = _ints(a[has][:, 69:76]) / 100.0
    empties = 64 - (cells != ord("-")).sum(axis=1)
    return P, O, result, score, empties


def _ints(field):
    """Signed decimal numbers written with a sign and zero padding, one row each."""
    import numpy as np
    digits = field[:, 1:].astype(np.int64) - ord("0")
    value = np.zeros(len(field), dtype=np.int64)
    for k in range(digits.shape[1]):
        value = value * 10 + digits[:, k]
    return np.where(field[:, 0] == ord("-"), -value, value).astype(np.float64)


# --- fit ----------------------------------------------------------------------------------------
FAMILY_BASES = (0x42FF, 0x1F1F, 0x70707, 0xFF00, 0xFF0000, 0xFF000000, 0x8040201008040201,
                0x80402010080402, 0x804020100804, 0x8040201008, 0x80402010)
"""The base squares of each family of _pattern.pxi, in its table order."""


def canonical_map():
    """For every table entry of a phase, the entry it must equal: a family's base group that a
    symmetry maps onto itself (the edge by its mirror, a diagonal by its reversal) reads the
    same squares in another order, so the evaluation is symmetric only if those entries agree."""
    import numpy as np
    total = _core.PATTERN_SCALAR_OFFSET
    canon = np.arange(total + len(_core.PATTERN_SCALARS), dtype=np.int64)
    offset = 0
    for base in FAMILY_BASES:
        squares = [s for s in range(64) if base >> s & 1]
        n = len(squares)
        size = 3 ** n
        idx = np.arange(size, dtype=np.int64)
        digits = (idx[:, None] // (3 ** np.arange(n))) % 3
        best = idx.copy()
        for k in range(1, 8):
            image = [_core.symmetry(1 << s, k).bit_length() - 1 for s in squares]
            if sorted(image) != squares:
                continue
            # digit i moves to the position of square image[i] in the base order
            pos = [squares.index(t) for t in image]
            other = (digits * (3 ** np.array(pos))).sum(axis=1)
            best = np.minimum(best, other)
        canon[offset:offset + size] = offset + best
        offset += size
    return canon


def positions_features(P, O):
    """(indices n x PATTERN_INSTANCES, scalars n x 4) of the positions, from the core."""
    import numpy as np
    n = len(P)
    k = _core.PATTERN_INSTANCES
    idx = np.zeros(k * n, dtype=np.int32)
    sc = np.zeros(4 * n, dtype=np.int32)
    if n:
        _core.pattern_features(np.ascontiguousarray(P, dtype=np.uint64),
                               np.ascontiguousarray(O, dtype=np.uint64), idx, sc)
    return idx.reshape(n, k), sc.reshape(n, 4)


def fit_phase(idx, sc, y, canon, ridge: float, iterations: int):
    """Weights (floats, discs) of one phase minimising squared error plus ridge * count-scaled
    L2, by conjugate gradients on the normal equations over the tied (canonical) entries."""
    import numpy as np
    n_tab = _core.PATTERN_SCALAR_OFFSET
    n_all = n_tab + 4
    cidx = canon[idx]                                   # n x instances, tied entries
    scf = sc.astype(np.float64)
    counts = np.bincount(cidx.ravel(), minlength=n_all).astype(np.float64)
    reg = ridge * np.ones(n_all)
    reg[n_tab:] = 1e-3

    def A(w):
        return w[cidx].sum(axis=1) + scf @ w[n_tab:]

    def At(r):
        g = np.bincount(cidx.ravel(), weights=np.repeat(r, cidx.shape[1]), minlength=n_all)
        g[n_tab:] += scf.T @ r
        return g

    def M(w):
        return At(A(w)) + reg * w

    w = np.zeros(n_all)
    b = At(y)
    r = b - M(w)
    diag = counts + reg
    diag[n_tab:] = (scf ** 2).sum(axis=0) + reg[n_tab:]
    z = r / diag
    p = z.copy()
    rz = r @ z
    for _ in range(iterations):
        Mp = M(p)
        alpha = rz / (p @ Mp)
        w += alpha * p
        r -= alpha * Mp
        z = r / diag
        rz_new = r @ z
        if rz_new < 1e-12 * len(y):
            break
        p = z + (rz_new / rz) * p
        rz = rz_new
    return w[canon]                     # untie: every entry gets its representative's weight


@dataclass(frozen=True)
class FitSettings:
    ridge: float = 5.0
    iterations: int = 60
    blend: Schedule = Schedule((), 0.5)    # weight of the search score, by empties
    holdout: int = 20
    window: int = 2
    phases: Optional[tuple[int, int]] = None    # fit only these phases (first, last); others 0


def fit(paths: Sequence[str], out_path: str, s: FitSettings, quiet: bool = False,
        report: Callable[[str], None] = print) -> dict:
    """Fit every phase on the position files and write the weights file; returns the held-out
    mean absolute errors per phase (discs, against each position's target)."""
    import numpy as np
    from othello_engine import weights as weights_mod
    parts = [read_positions(p) for p in paths]
    P = np.concatenate([x[0] for x in parts])
    O = np.concatenate([x[1] for x in parts])
    result = np.concatenate([x[2] for x in parts])
    score = np.concatenate([x[3] for x in parts])
    empties = np.concatenate([x[4] for x in parts])
    blend = np.array([s.blend.at(e) for e in range(65)])[empties]
    target = np.where(np.isnan(score), result, blend * score + (1 - blend) * result)
    # held out: every holdout-th position block of 61 (about one game in holdout)
    held = (np.arange(len(P)) // 61) % s.holdout == 0 if s.holdout else np.zeros(len(P), bool)
    idx, sc = positions_features(P, O)
    canon = canonical_map()
    out = np.zeros((_core.PATTERN_PHASES, _core.PATTERN_ENTRIES), dtype=np.int16)
    errors = {}
    bar = progress_bar(_core.PATTERN_PHASES, 0, "fit", not quiet)
    for phase in range(_core.PATTERN_PHASES):
        lo, hi = 4 * phase - s.window, 4 * phase + 3 + s.window
        if phase == _core.PATTERN_PHASES - 1:
            hi = 64
        sel = (empties >= lo) & (empties <= hi)
        train = sel & ~held
        test = held & (empties >= 4 * phase) & (empties <= (4 * phase + 3 if hi < 64 else 64))
        if s.phases is not None and not s.phases[0] <= phase <= s.phases[1]:
            train = test = np.zeros(len(P), bool)
        if train.sum() == 0:
            errors[phase] = (0, float("nan"), float("nan"), float("nan"))
            if bar is not None:
                bar.update(1)
            continue
        w = fit_phase(idx[train], sc[train], target[train], canon, s.ridge, s.iterations)
        out[phase] = np.clip(np.round(w * 100), -32000, 32000).astype(np.int16)
        if test.any():
            pred = (out[phase][idx[test]].astype(np.int64).sum(axis=1)
                    + (sc[test] * out[phase][_core.PATTERN_SCALAR_OFFSET:]).sum(axis=1)) / 100.0
            pred = np.clip(pred, -63, 63)
            errors[phase] = (int(test.sum()), float(np.abs(pred - target[test]).mean()),
                             float(np.abs(pred - result[test]).mean()),
                             float(np.abs(target[test]).mean()))
        else:
            errors[phase] = (0, float("nan"), float("nan"), float("nan"))
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    weights_mod.write(out_path, out.ravel())
    report(f"fit: {len(P)} positions ({int(held.sum())} held out), weights written to {out_path}")
    report("phase  empties  held-out  MAE(target)  MAE(result)  MAE(zero weights)")
    for phase, (n, e_t, e_r, e_0) in errors.items():
        hi = 4 * phase + 3 if phase < _core.PATTERN_PHASES - 1 else 60
        report(f"{phase:5d}  {4 * phase:2d}-{hi:2d}    {n:8d}  {e_t:11.2f}  {e_r:11.2f}  {e_0:17.2f}")
    return errors


# --- exact test sets and evaluation ----------------------------------------------------------
def _solve_item(item: tuple[str]) -> str:
    from othello_engine.engine import Limit
    cells = item[0]
    engine = _engine("classic", None)
    engine.new_game()
    r = engine.search(board_of(*parse_cells(cells)), Limit(exact=True))
    return f"{cells} {r.score // 100:+03d} {NO_SCORE}\n"


def testset(games_path: str, out_path: str, empties: int, count: int, jobs: int = 1,
            quiet: bool = False, cluster: Optional[str] = None) -> int:
    """Solve exactly the positions with `empties` empties of the games (one per game, up to count;
    resumable); a position file whose result column is the exact score."""
    cells_list = []
    with open_text(games_path) as f:
        for line in f:
            if not line.strip():
                continue
            moves, _, _ = parse_game(line)
            for P, O, _sign in game_positions(moves):
                if 64 - _core.popcount(P | O) == empties and _core.legal_moves(P, O):
                    cells_list.append(cells_of(P, O))
                    break
            if len(cells_list) >= count:
                break
    done = complete_lines(out_path)
    items = [(c,) for c in cells_list[done:]]
    with open_text(out_path, "at") as out:
        return run_ordered(_solve_item, items, out, jobs, "solve", done, len(cells_list), quiet,
                           chunksize=1, cluster=cluster)


def evaluate(path: str, weights_path: Optional[str] = None,
             report: Callable[[str], None] = print) -> dict[str, float]:
    """Mean absolute error (discs) of the static evaluations against the exact scores of a test set
    (a position file whose result column is exact), classic and pattern."""
    from othello_engine import weights as weights_mod
    if weights_path:
        weights_mod.load(weights_path)
    else:
        weights_mod.ensure_loaded()
    err_c = err_p = 0.0
    n = 0
    with open_text(path) as f:
        for line in f:
            cells, exact = line[:64], int(line[65:68])
            P, O = parse_cells(cells)
            terms = _core.evaluation_terms(P, O, _core.FULL_MASK, True)
            err_c += abs(terms.get("classic", terms["total"]) / 100.0 - exact)
            err_p += abs(terms["total"] / 100.0 - exact) if "pattern" in terms else float("nan")
            n += 1
    out = {"positions": n, "classic": err_c / max(1, n), "pattern": err_p / max(1, n)}
    report(f"evaluate: {n} positions of {path}: mean absolute error classic "
           f"{out['classic']:.2f} discs, pattern {out['pattern']:.2f} discs")
    return out


CLUSTER_HELP = ("run the work items on Ray: 'local', 'auto' or ray://HOST:PORT, on every CPU of the "
                "cluster (--jobs is for local runs); the same file as a local run. Needs "
                "'othello_engine[cluster]'")


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="othello-train", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="step", required=True)
    g = sub.add_parser("generate", help="self-play games, one record a line")
    g.add_argument("out", help="game file to append to (.gz for gzip)")
    g.add_argument("--games", type=int, required=True, help="total number of games in the file")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--depth", type=int, default=6, help="search depth of the engine's moves")
    g.add_argument("--random", default="4-16", help="random opening plies, MIN-MAX (default 4-16)")
    g.add_argument("--epsilon", type=float, default=0.03, help="chance of a random move after the opening")
    g.add_argument("--solve", type=int, default=18, help="perfect play from this many empties")
    g.add_argument("--eval", dest="evaluation", choices=("pattern", "classic"), default="pattern")
    g.add_argument("--weights", help="pattern weights file (default: the shipped one)")
    g.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    g.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    g.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    lb = sub.add_parser("label", help="a target for every position of the games")
    lb.add_argument("games", help="game file")
    lb.add_argument("out", help="position file to append to (.gz for gzip)")
    lb.add_argument("--weights", help="pattern weights for the search scores (none: results only)")
    lb.add_argument("--depth", default="6",
                    help="search depth of the scores, or a schedule by empties: 26:12,4 searches "
                         "12 plies up to 26 empties and 4 beyond (0: no score there)")
    lb.add_argument("--limit", type=int, help="label only the first LIMIT games")
    lb.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    lb.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    lb.add_argument("-q", "--quiet", action="store_true")
    ft = sub.add_parser("fit", help="fit the weights to position files and export them")
    ft.add_argument("positions", nargs="+", help="position files")
    ft.add_argument("--out", required=True, help="weights file to write")
    ft.add_argument("--ridge", type=float, default=FitSettings.ridge)
    ft.add_argument("--iterations", type=int, default=FitSettings.iterations)
    ft.add_argument("--blend", default=str(FitSettings.blend),
                    help="weight of the search score against the result where both exist, or a "
                         "schedule by empties (26:1,0.5: the score alone up to 26 empties)")
    ft.add_argument("--holdout", type=int, default=FitSettings.holdout,
                    help="hold out one game in N for the error report (0: none)")
    ft.add_argument("--phases", help="fit only phases FIRST-LAST (the others get zero weights)")
    ft.add_argument("-q", "--quiet", action="store_true")
    ts = sub.add_parser("testset", help="solve positions of the games exactly (a test set)")
    ts.add_argument("games")
    ts.add_argument("out")
    ts.add_argument("--empties", type=int, default=20)
    ts.add_argument("--count", type=int, default=500)
    ts.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ts.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    ts.add_argument("-q", "--quiet", action="store_true")
    ev = sub.add_parser("evaluate", help="error of the static evaluations on an exact test set")
    ev.add_argument("testset")
    ev.add_argument("--weights", help="weights file (default: the shipped one)")
    args = ap.parse_args(argv)
    address = getattr(args, "cluster", None)
    refused: tuple[type[Exception], ...] = (OSError, ValueError)
    if address is not None:
        from othello_engine.cluster import ClusterError, check_available
        try:
            check_available()
        except ClusterError as exc:
            print(f"othello-train {args.step}: {exc}", file=sys.stderr)
            return 2
        refused += (ClusterError,)
    try:
        if args.step == "label":
            t = time.monotonic()
            depth = parse_schedule(args.depth, "--depth", whole=True)
            n = label(args.games, args.out, LabelSettings(depth=depth, weights=args.weights),
                      args.jobs, args.quiet, args.limit, cluster=address)
            print(f"label: {n} games labelled into {args.out} in {time.monotonic() - t:.1f} s",
                  file=sys.stderr)
        elif args.step == "fit":
            phases = None
            if args.phases:
                first, _, last = args.phases.partition("-")
                phases = (int(first), int(last or first))
            blend = parse_schedule(args.blend, "--blend")
            fit(args.positions, args.out, FitSettings(ridge=args.ridge, iterations=args.iterations,
                                                      blend=blend, holdout=args.holdout,
                                                      phases=phases),
                args.quiet)
        elif args.step == "testset":
            n = testset(args.games, args.out, args.empties, args.count, args.jobs, args.quiet,
                        cluster=address)
            print(f"testset: {n} positions solved into {args.out}", file=sys.stderr)
        elif args.step == "evaluate":
            evaluate(args.testset, args.weights)
        elif args.step == "generate":
            lo, _, hi = args.random.partition("-")
            s = GenerateSettings(seed=args.seed, depth=args.depth, random_min=int(lo),
                                 random_max=int(hi or lo), epsilon=args.epsilon, solve=args.solve,
                                 evaluation=args.evaluation, weights=args.weights)
            t = time.monotonic()
            n = generate(args.out, args.games, s, args.jobs, args.quiet, cluster=address)
            print(f"generate: {n} games written to {args.out} in {time.monotonic() - t:.1f} s",
                  file=sys.stderr)
    except KeyboardInterrupt:
        print("interrupted: the file keeps every whole line; rerun to resume", file=sys.stderr)
        return 130
    except refused as exc:
        print(f"othello-train {args.step}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
