"""What several command-line programs share: argparse types for board sizes."""

from __future__ import annotations

import argparse

from othello_engine.board import MAX_SIZE, MIN_SIZE, STANDARD_SIZES
from othello_engine.textnum import int_arg


def size_arg(text: str) -> int:
    """An argparse type: any board size 3..26 (odd sizes need positions, having no standard start)."""
    size = int_arg(text)
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise argparse.ArgumentTypeError(f"board size {size}: expected {MIN_SIZE}..{MAX_SIZE}")
    return size


def start_size_arg(text: str) -> int:
    """An argparse type: a board size with a standard start (an even size 4..26)."""
    size = int_arg(text)
    if size not in STANDARD_SIZES:
        raise argparse.ArgumentTypeError(f"board size {size}: expected an even size 4..{MAX_SIZE} "
                                         "(a size with a standard start)")
    return size
