"""The training pipeline end to end on a tiny run: generate, label, fit, export, evaluate; resuming;
exact labels checked against the reference solver."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

import reference_rules as rr  # noqa: E402

from othello_engine import Board, Engine, Limit, _core, train, weights  # noqa: E402

SETTINGS = train.GenerateSettings(seed=4, depth=1, random_min=2, random_max=8, epsilon=0.05,
                                  solve=10, evaluation="classic")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Games, positions and weights of a tiny run (shared by the tests below)."""
    d = tmp_path_factory.mktemp("train")
    games = str(d / "games.txt")
    assert train.generate(games, 240, SETTINGS, jobs=2, quiet=True) == 240
    positions = str(d / "positions.txt")
    assert train.label(games, positions, train.LabelSettings(), jobs=1, quiet=True) == 240
    out = str(d / "w.bin")
    lines: list[str] = []
    # one phase group: the endgame phases, whose labels are exact (the solve starts at 10 empties)
    errors = train.fit([positions], out, train.FitSettings(iterations=30, holdout=5, phases=(0, 2)),
                       quiet=True, report=lines.append)
    return d, games, positions, out, errors, lines


def test_game_records_replay_to_their_results(run) -> None:
    _, games, _, _, _, _ = run
    with open(games) as f:
        records = f.read().splitlines()
    assert len(records) == 240 and len(set(records)) > 200    # varied openings
    for line in records[:60]:
        moves, black_diff, solve = train.parse_game(line)
        assert solve == 10
        board = Board()
        for move in moves:
            if board.must_pass():
                board.push(64)
            board.push(move)
        assert board.is_game_over()
        cells = board.cells()
        grid = rr.grid_from_text(cells.replace("-", "."))
        assert rr.final_score(grid) == black_diff


def test_game_records_read_moves_with_the_one_move_list_grammar() -> None:
    """A record's moves follow notation's grammar: the forced pass may be left out (as generate
    writes them) or written, moves may stand apart (commas, hyphens, dots: a space ends the field) or be upper case; the positions are the ones
    notation.parse_moves reaches, each yielded once."""
    from othello_engine.notation import parse_moves
    implicit = "e6d6c4d3c7b5d2e2f2f1b3d7d8g2h2h3a6h1c2"       # white passes after h1
    written = "E6 d6 c4 d3 c7 b5 d2 e2 f2 f1 b3 d7 d8 g2 h2 h3 a6 h1 PA c2"
    positions = [list(train.game_positions(train.parse_game(f"{text} +0 18")[0]))
                 for text in (implicit, written.replace(" ", ","))]
    assert positions[0] == positions[1] and len(positions[0]) == 20
    board = parse_moves(implicit)
    P, O, sign = positions[0][-1]
    mine, theirs = (board.black, board.white) if sign == 1 else (board.white, board.black)
    assert (P, O) == (mine, theirs) and (sign == 1) == (board.turn == 0)
    assert train.game_plies(f"{implicit} +0 18") == 19
    with pytest.raises(ValueError, match="a pass in a game record"):
        list(train.game_positions(train.parse_game("f5,pass,d6 +0 18")[0]))
    with pytest.raises(ValueError, match="bad game record 'f5zz9 \\+0 18': move 2 'zz9'"):
        train.parse_game("f5zz9 +0 18")


def test_generate_resumes_a_cut_file_to_the_same_games(run, tmp_path) -> None:
    _, games, _, _, _, _ = run
    with open(games) as f:
        full = f.read()
    cut = str(tmp_path / "cut.txt")
    head = full.splitlines(keepends=True)[:30]
    with open(cut, "w") as f:
        f.write("".join(head) + head[30 - 1][:17])       # a line cut short by an interruption
    assert train.generate(cut, 50, SETTINGS, jobs=1, quiet=True) == 20
    with open(cut) as f:
        assert f.read() == "".join(full.splitlines(keepends=True)[:50])


def test_labels_after_the_solve_point_are_exact(run) -> None:
    _, _, positions, _, _, _ = run
    checked = 0
    with open(positions) as f:
        for line in f:
            assert len(line) == train.POSITION_WIDTH
            cells, result = line[:64], int(line[65:68])
            empties = cells.count("-")
            if empties <= 7 and checked < 12 and _core.legal_moves(*train.parse_cells(cells)):
                assert rr.solve_text(cells, rr.BLACK) == result, cells   # X (to move) is black
                checked += 1
    assert checked == 12


def test_label_resumes_without_doubling_a_game(run, tmp_path) -> None:
    _, games, positions, _, _, _ = run
    with open(positions) as f:
        full = f.read()
    part = str(tmp_path / "part.txt")
    with open(part, "w") as f:
        f.write(full[:train.POSITION_WIDTH * 100 + 13])   # a game half written, a line cut
    train.label(games, part, train.LabelSettings(), jobs=1, quiet=True)
    with open(part) as f:
        assert f.read() == full


def test_fit_lowers_its_own_held_out_error(run) -> None:
    _, _, _, out, errors, lines = run
    rows = [(n, mae, zero) for n, mae, _, zero in errors.values() if n > 0]
    assert len(rows) == 3 and all(n >= 50 for n, _, _ in rows), errors
    fitted = sum(n * mae for n, mae, _ in rows) / sum(n for n, _, _ in rows)
    baseline = sum(n * zero for n, _, zero in rows) / sum(n for n, _, _ in rows)
    assert fitted < 0.5 * baseline, (fitted, baseline)
    assert any("held-out" in line for line in lines)
    weights.read(out)          # a valid weights file


def test_fitted_weights_drive_the_search_and_the_evaluation_report(run, tmp_path) -> None:
    d, games, _, out, _, _ = run
    previous = weights.loaded_path or weights.DEFAULT_PATH
    try:
        test = str(tmp_path / "test.txt")
        assert train.testset(games, test, empties=9, count=20, jobs=1, quiet=True) == 20
        lines: list[str] = []
        result = train.evaluate(test, out, report=lines.append)
        assert result["positions"] == 20 and result["pattern"] == result["pattern"]   # not NaN
        board = Board()
        assert Engine(hash_mb=1).search(board, Limit(depth=4)).best_move in board.legal_moves()
    finally:
        weights.load(previous)


def test_a_deep_search_test_set_is_exact_where_the_depth_reaches_the_end(run, tmp_path) -> None:
    _, games, _, _, _, _ = run
    exact, deep, shallow = (str(tmp_path / f"{name}.txt") for name in ("exact", "deep", "shallow"))
    assert train.testset(games, exact, empties=9, count=20, jobs=1, quiet=True) == 20
    # a search as deep as the empties solves (the oracle: the exact solver's scores)
    assert train.testset(games, deep, empties=9, count=20, jobs=2, quiet=True, depth=12) == 20
    assert Path(deep).read_text() == Path(exact).read_text()
    # a shallow one labels the same positions with its own, heuristic scores
    assert train.testset(games, shallow, empties=9, count=20, jobs=1, quiet=True, depth=1) == 20
    cells = [line[:64] for line in Path(exact).read_text().splitlines()]
    assert [line[:64] for line in Path(shallow).read_text().splitlines()] == cells
    assert Path(shallow).read_text() != Path(exact).read_text()


def test_cli_steps_and_the_train_subcommand(tmp_path) -> None:
    games = str(tmp_path / "g.txt.gz")
    cmd = [sys.executable, "-m", "othello_engine", "train", "generate", games, "--games", "6",
           "--depth", "1", "--solve", "8", "--eval", "classic", "--jobs", "1", "-q"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "6 games written" in proc.stderr
    positions = str(tmp_path / "p.txt")
    proc = subprocess.run([sys.executable, "-m", "othello_engine.cli.train", "label", games, positions,
                           "-q", "--jobs", "1"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert os.path.getsize(positions) % train.POSITION_WIDTH == 0
    proc = subprocess.run([sys.executable, "-m", "othello_engine.cli.train", "label", "/nonexistent",
                           positions, "-q"], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr


def test_schedules_by_empties() -> None:
    s = train.parse_schedule("26:12,40:8,4", "--depth", whole=True)
    assert [s.at(e) for e in (0, 26, 27, 40, 41, 60)] == [12, 12, 8, 8, 4, 4]
    assert str(s) == "26:12,40:8,4" and train.parse_schedule("0.5", "--blend").at(30) == 0.5
    for bad in ("", "x", "26:12", "30:1,20:2,3", "inf", "12:1.5,4", "-1", "nan"):
        with pytest.raises(ValueError, match="bad --depth"):
            train.parse_schedule(bad, "--depth", whole=True)


def test_label_depth_schedule_scores_only_the_scheduled_empties(run, tmp_path) -> None:
    _, games, _, out, _, _ = run
    positions = str(tmp_path / "p.txt")
    depth = train.parse_schedule("14:2,0", "--depth", whole=True)     # search 11..14 empties only
    previous = weights.loaded_path or weights.DEFAULT_PATH
    try:
        train.label(games, positions, train.LabelSettings(depth=depth, weights=out), jobs=1,
                    quiet=True, limit=20)
    finally:
        weights.load(previous)          # the label installed the tiny run's weights in this process
    scored = set()
    with open(positions) as f:
        for line in f:
            empties = line[:64].count("-")
            has_score = line[75] != "-"
            assert has_score == (10 < empties <= 14), line
            if has_score:
                scored.add(empties)
    assert scored == {11, 12, 13, 14}
    # a blend schedule that trusts the score only where it exists changes the fitted weights
    a, b = str(tmp_path / "a.bin"), str(tmp_path / "b.bin")
    for path, blend in ((a, "0"), (b, "14:1,0")):
        train.fit([positions], path, train.FitSettings(iterations=10, holdout=0, phases=(2, 3),
                  blend=train.parse_schedule(blend, "--blend")), quiet=True, report=lambda _: None)
    assert weights.read(a) != weights.read(b)


def test_cli_refuses_a_bad_schedule(tmp_path) -> None:
    proc = subprocess.run([sys.executable, "-m", "othello_engine.cli.train", "label", "/nonexistent",
                           str(tmp_path / "p.txt"), "--depth", "20:8,10:4,2", "-q"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "bad --depth '20:8,10:4,2'" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_huber_fit_resists_labels_far_off() -> None:
    # a small linear model over three table lookups and one scalar, its labels exact but for one
    # in eight, which is 40 discs off: the squared error follows those, Huber's loss much less
    rng = np.random.default_rng(7)
    n_tab, n = 60, 4000
    true = rng.normal(0, 3, n_tab + 1)
    idx = rng.integers(0, n_tab, size=(n, 3))
    sc = rng.integers(-5, 6, size=(n, 1))
    clean = true[idx].sum(axis=1) + sc[:, 0] * true[n_tab]
    y = clean + np.where(rng.random(n) < 0.125, rng.choice([-40.0, 40.0], n), 0.0)
    canon = np.arange(n_tab + 1)

    def error(huber):
        w = train.fit_phase(idx, sc, y, canon, 0.01, 200, n_tab, huber)
        return float(np.abs(train.fitting.predict_raw(w, idx, sc, n_tab) - clean).mean())

    least_squares, huber = error(0.0), error(2.0)
    assert huber < 0.5 * least_squares, (huber, least_squares)
    assert error(1e9) == pytest.approx(least_squares)      # a knee beyond every residual: the same fit


def test_cli_refuses_a_bad_huber_knee(tmp_path) -> None:
    for bad in ("-1", "x", "inf", "nan"):
        proc = subprocess.run([sys.executable, "-m", "othello_engine.cli.train", "fit", "/nonexistent",
                               "--out", str(tmp_path / "w.bin"), "--huber", bad, "-q"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and f"{bad!r}: expected a number of discs" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and not (tmp_path / "w.bin").exists()


def _sibling_settings(**kw) -> train.LabelSettings:
    # siblings with 12 empties or fewer: exact up to 8, depth-1 classic searches at 9-12
    return train.LabelSettings(depth=train.parse_schedule("12:1,0", "--depth", whole=True), exact=8,
                               siblings=0.5, evaluation="classic", **kw)


def test_siblings_are_one_other_move_off_the_games_and_labelled_where_scheduled(run, tmp_path) -> None:
    _, games, _, _, _, _ = run
    with open(games) as f:
        records = f.read().splitlines()[:30]
    s = _sibling_settings()
    solved = 0
    total = 0
    for index, record in enumerate(records):
        moves, _, _ = train.parse_game(record)
        children = set()
        for (P, O, _), played in zip(train.game_positions(moves), moves):
            legal = _core.legal_moves(P, O)
            for sq in range(64):
                if (legal >> sq) & 1 and sq != played:
                    cP, cO = _core.make_move(P, O, sq)
                    if not _core.legal_moves(cP, cO):
                        cP, cO = cO, cP
                    children.add(train.cells_of(cP, cO))
        lines = train.labels.label_siblings(index, record, s).splitlines(keepends=True)
        assert lines == train.labels.label_siblings(index, record, s).splitlines(keepends=True)
        total += len(lines)
        for line in lines:
            assert len(line) == train.POSITION_WIDTH
            cells, result, score = line[:64], int(line[65:68]), int(line[69:76])
            assert cells in children, (record, cells)
            empties = cells.count("-")
            assert 1 <= empties <= 12 and _core.legal_moves(*train.parse_cells(cells))
            assert result == round(score / 100)
            if empties <= 8 and solved < 10:
                assert rr.solve_text(cells, rr.BLACK) * 100 == score, cells   # X (to move) is black
                solved += 1
    assert total > 60 and solved == 10
    # about half the positions in the scheduled empties are taken, and the seed chooses them
    other = train.labels.label_siblings(0, records[0], _sibling_settings(seed=2))
    assert other != train.labels.label_siblings(0, records[0], s)


def test_label_siblings_resumes_to_the_same_file_with_any_jobs(run, tmp_path) -> None:
    _, games, _, _, _, _ = run
    full, part = str(tmp_path / "full.txt"), str(tmp_path / "part.txt")
    s = _sibling_settings()
    assert train.label(games, full, s, jobs=2, quiet=True, limit=40) == 40
    with open(full) as f:
        text = f.read()
    assert text.count("\n") > 60
    with open(part, "w") as f:
        f.write(text[:train.POSITION_WIDTH * 50 + 20])     # a game half written, a line cut
    train.label(games, part, s, jobs=1, quiet=True, limit=40)
    with open(part) as f:
        assert f.read() == text


def test_cli_label_siblings_and_its_refusals(run, tmp_path) -> None:
    _, games, _, _, _, _ = run
    out = str(tmp_path / "s.txt")
    base = [sys.executable, "-m", "othello_engine.cli.train", "label", games, out, "--depth", "12:1,0",
            "--exact", "8", "--limit", "10", "--jobs", "1", "-q", "--eval", "classic"]
    proc = subprocess.run(base + ["--siblings", "0.5"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    with open(out) as f:
        lines = f.readlines()
    assert lines and all(line[:64].count("-") <= 12 for line in lines)
    for bad in ("1.5", "-0.1", "x", "nan"):
        proc = subprocess.run(base + ["--siblings", bad], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and "expected a chance from 0 to 1" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
    # siblings are labelled by their scores only: no weights and no classic search is refused
    proc = subprocess.run(base[:-2] + ["--siblings", "0.5"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--siblings labels positions by their search scores" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_label_result_column_from_exact_solves_or_scores(run, tmp_path) -> None:
    """--result exact: the positions solved by --exact get their exact score as their result (in
    whole discs), the others keep the game's; --result score: every scored position gets its
    score. The cells and scores are the same as with the game's results."""
    _, games, _, _, _, _ = run
    files = {}
    for result in ("game", "exact", "score"):
        out = str(tmp_path / f"{result}.txt")
        proc = subprocess.run([sys.executable, "-m", "othello_engine.cli.train", "label", games, out,
                               "--depth", "16:1,0", "--exact", "13", "--eval", "classic",
                               "--result", result, "--limit", "12", "--jobs", "1", "-q"],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        with open(out) as f:
            files[result] = f.read().splitlines()
    game, exact, score = files["game"], files["exact"], files["score"]
    assert len(game) == len(exact) == len(score) > 12 * 40
    changed = {"exact": 0, "score": 0}
    for g, e, s in zip(game, exact, score):
        assert g[:64] == e[:64] == s[:64] and g[69:] == e[69:] == s[69:]
        empties, result = g[:64].count("-"), int(g[65:68])
        value = None if g[75] == "-" else int(g[69:76])
        solved = 10 < empties <= 13
        assert (value is not None) == (10 < empties <= 16), g
        if solved:
            assert value % 100 == 0 and -64 <= value // 100 <= 64
        assert int(e[65:68]) == (value // 100 if solved else result), (g, e)
        assert int(s[65:68]) == (round(value / 100) if value is not None else result), (g, s)
        changed["exact"] += int(e[65:68]) != result
        changed["score"] += int(s[65:68]) != result
    # the games' depth-1 moves before their solve point lose discs: some results change
    assert 0 < changed["exact"] < changed["score"]


def test_cli_label_refuses_result_exact_without_exact(run, tmp_path) -> None:
    _, games, _, _, _, _ = run
    proc = subprocess.run([sys.executable, "-m", "othello_engine.cli.train", "label", games,
                           str(tmp_path / "p.txt"), "--result", "exact", "--limit", "2", "-q"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--result exact takes the scores of --exact's solves" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not os.path.exists(tmp_path / "p.txt") or os.path.getsize(tmp_path / "p.txt") == 0
