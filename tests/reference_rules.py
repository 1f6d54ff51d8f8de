"""Deliberately simple Othello rules on 2D lists: the independent oracle the tests check the core against.

Nothing here is clever or fast, and nothing is imported from othello_engine. A grid is a list of
``size`` rows of ``size`` characters: ``'X'`` black, ``'O'`` white, ``'.'`` empty; row 0 is rank 1
(the top), column 0 is file a. A move is a ``(row, col)`` pair, or ``None`` for a pass.
"""

from __future__ import annotations

import random
from typing import Optional

BLACK = "X"
WHITE = "O"
EMPTY = "."
DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]

Grid = list[list[str]]
Move = Optional[tuple[int, int]]


def other(color: str) -> str:
    return WHITE if color == BLACK else BLACK


def start_grid(size: int) -> Grid:
    """The start: the 2x2 centre (for odd sizes the one just above-left of the middle) with white
    on its top-left and bottom-right squares, black on the other two."""
    grid = [[EMPTY] * size for _ in range(size)]
    h = (size - 1) // 2
    grid[h][h] = WHITE
    grid[h + 1][h + 1] = WHITE
    grid[h][h + 1] = BLACK
    grid[h + 1][h] = BLACK
    return grid


def copy_grid(grid: Grid) -> Grid:
    return [row[:] for row in grid]


def flips(grid: Grid, color: str, row: int, col: int) -> list[tuple[int, int]]:
    """The discs that color's disc placed on (row, col) would turn over (empty if none)."""
    size = len(grid)
    if grid[row][col] != EMPTY:
        return []
    found = []
    for dr, dc in DIRECTIONS:
        line = []
        r, c = row + dr, col + dc
        while 0 <= r < size and 0 <= c < size and grid[r][c] == other(color):
            line.append((r, c))
            r, c = r + dr, c + dc
        if line and 0 <= r < size and 0 <= c < size and grid[r][c] == color:
            found.extend(line)
    return sorted(found)


def legal_moves(grid: Grid, color: str) -> list[tuple[int, int]]:
    """color's legal moves in row-major order."""
    size = len(grid)
    return [(r, c) for r in range(size) for c in range(size) if flips(grid, color, r, c)]


def play(grid: Grid, color: str, move: Move) -> Grid:
    """A new grid after color plays move (None = pass); the move must be legal."""
    new = copy_grid(grid)
    if move is None:
        return new
    turned = flips(grid, color, *move)
    if not turned:
        raise ValueError(f"illegal move {move} for {color}")
    new[move[0]][move[1]] = color
    for r, c in turned:
        new[r][c] = color
    return new


def status(grid: Grid, color: str) -> str:
    """'move' if color can move, 'pass' if only the opponent can, 'over' if neither can."""
    if legal_moves(grid, color):
        return "move"
    if legal_moves(grid, other(color)):
        return "pass"
    return "over"


def count(grid: Grid, color: str) -> int:
    return sum(row.count(color) for row in grid)


def final_score(grid: Grid) -> int:
    """Black's final disc difference, the empty squares going to the winner."""
    black, white = count(grid, BLACK), count(grid, WHITE)
    empties = len(grid) ** 2 - black - white
    if black > white:
        return black - white + empties
    if white > black:
        return black - white - empties
    return 0


def perft(grid: Grid, color: str, depth: int) -> int:
    """Leaves at depth plies: a pass is a ply only when the opponent can move; a finished game is
    one leaf."""
    if depth == 0:
        return 1
    moves = legal_moves(grid, color)
    if not moves:
        if not legal_moves(grid, other(color)):
            return 1
        return perft(grid, other(color), depth - 1)
    return sum(perft(play(grid, color, m), other(color), depth - 1) for m in moves)


def random_game(size: int, rng: random.Random, grid: Optional[Grid] = None,
                color: str = BLACK) -> list[tuple[Grid, str, Move]]:
    """A random game from (grid, color) to its end: the list of (grid, side to move, move played);
    the last entry is the final position with move None."""
    grid = start_grid(size) if grid is None else grid
    out: list[tuple[Grid, str, Move]] = []
    while True:
        st = status(grid, color)
        if st == "over":
            out.append((grid, color, None))
            return out
        move: Move = rng.choice(legal_moves(grid, color)) if st == "move" else None
        out.append((grid, color, move))
        grid = play(grid, color, move)
        color = other(color)


def random_grid(size: int, rng: random.Random, density: float) -> Grid:
    """Any arrangement of discs (not necessarily reachable in a game): each square black, white or
    empty at random."""
    grid = [[EMPTY] * size for _ in range(size)]
    for r in range(size):
        for c in range(size):
            if rng.random() < density:
                grid[r][c] = rng.choice((BLACK, WHITE))
    return grid


def grid_text(grid: Grid) -> str:
    """The grid row by row as one string of X, O and '-' (an absolute board string)."""
    return "".join("".join(row) for row in grid).replace(EMPTY, "-")


def bitboards(grid: Grid) -> tuple[int, int]:
    """(black, white) as 64-bit integers, bit row * 8 + col (the engine's frame, for comparison)."""
    black = white = 0
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell == BLACK:
                black |= 1 << (r * 8 + c)
            elif cell == WHITE:
                white |= 1 << (r * 8 + c)
    return black, white


def square_index(move: tuple[int, int]) -> int:
    """The engine's square number of a (row, col) move."""
    return move[0] * 8 + move[1]


def grid_from_text(text: str) -> Grid:
    """A grid from an absolute board string, row by row: ``X`` black, ``O`` white, ``-`` or ``.``
    empty; the size is inferred from the length."""
    size = int(round(len(text) ** 0.5))
    assert size * size == len(text), f"{len(text)} cells is not a square board"
    return [[EMPTY if ch in "-." else ch for ch in text[r * size:(r + 1) * size]] for r in range(size)]


def solve(grid: Grid, color: str, memo: Optional[dict] = None) -> int:
    """The exact final disc difference for color under perfect play (empties to the winner), by
    plain memoized negamax: the oracle for exact scores, for small positions only."""
    memo = {} if memo is None else memo
    key = (grid_text(grid), color)
    if key not in memo:
        st = status(grid, color)
        if st == "over":
            memo[key] = final_score(grid) * (1 if color == BLACK else -1)
        elif st == "pass":
            memo[key] = -solve(grid, other(color), memo)
        else:
            memo[key] = max(-solve(play(grid, color, m), other(color), memo)
                            for m in legal_moves(grid, color))
    return memo[key]


def solve_text(cells: str, color: str, memo: Optional[dict] = None) -> int:
    """:func:`solve` of an absolute board string (see :func:`grid_from_text`) with color to move."""
    return solve(grid_from_text(cells), color, memo)
