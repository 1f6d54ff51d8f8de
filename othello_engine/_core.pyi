"""Types of the compiled core (othello_engine._core): bitboard rules, symmetries, perft, search.

A bitboard is an int in 0..2**64-1, bit ``row * 8 + col`` (a1 = bit 0, the top-left corner); a
square is an int 0..63 and 64 is the pass. ``P`` is the side to move, ``O`` its opponent.
"""

from typing import Callable, Final, Optional

Bitboard = int
Square = int

PASS: Final[int]
FULL_MASK: Final[int]
VECTOR_KERNELS: Final[bool]

def board_mask(size: int) -> Bitboard:
    """Squares of a size x size board (3..8) in the top-left corner of the 8x8 frame."""
    ...
def legal_moves(P: Bitboard, O: Bitboard, mask: Bitboard = ...) -> Bitboard: ...
def flipped_discs(P: Bitboard, O: Bitboard, sq: Square) -> Bitboard: ...
def make_move(P: Bitboard, O: Bitboard, sq: Square) -> tuple[Bitboard, Bitboard]:
    """(P', O') after P plays sq (64 = pass), sides swapped: P' is the new side to move."""
    ...
def _legal_moves_scalar(P: Bitboard, O: Bitboard, mask: Bitboard = ...) -> Bitboard: ...
def _flipped_discs_scalar(P: Bitboard, O: Bitboard, sq: Square) -> Bitboard: ...
def popcount(x: Bitboard) -> int: ...
def game_state(P: Bitboard, O: Bitboard, mask: Bitboard = ...) -> int:
    """0 P can move, 1 P must pass, 2 the game is over."""
    ...
def perft(P: Bitboard, O: Bitboard, depth: int, mask: Bitboard = ..., bulk: bool = False,
          stop: bytearray | None = None) -> int: ...
def _perft_frame(P: Bitboard, O: Bitboard, depth: int, bulk: bool = False,
                 stop: bytearray | None = None) -> int: ...
def symmetry(x: Bitboard, k: int, size: int = 8) -> Bitboard: ...
def canonical(P: Bitboard, O: Bitboard, size: int = 8) -> tuple[Bitboard, Bitboard, int]: ...
def final_disc_difference(P: Bitboard, O: Bitboard, mask: Bitboard = ...) -> int: ...
def evaluate_position(P: Bitboard, O: Bitboard, mask: Bitboard = ...) -> int: ...
def evaluation_terms(P: Bitboard, O: Bitboard, mask: Bitboard = ...,
                     pattern: bool = False) -> dict[str, int]:
    """The static evaluation of P's position feature by feature, centi-discs, with its total
    (with pattern: also the classic sum, the pattern families, scalar terms and total)."""
    ...

PATTERN_FAMILIES: Final[tuple[tuple[str, int, int], ...]]
PATTERN_SCALARS: Final[tuple[str, ...]]
PATTERN_PHASES: Final[int]
PATTERN_ENTRIES: Final[int]
PATTERN_SCALAR_OFFSET: Final[int]

def set_pattern_weights(weights: memoryview | bytes | object) -> None:
    """Install PATTERN_PHASES x PATTERN_ENTRIES int16 weights (a buffer) for every search."""
    ...
def pattern_weights_loaded() -> bool: ...
def pattern_phase(empties: int) -> int: ...
def pattern_features(P: object, O: object, indices: object, scalars: object) -> None:
    """Training: the 46 table offsets and 4 scalar features of each position (uint64 buffers in,
    int32 buffers out)."""
    ...
def pattern_terms(P: Bitboard, O: Bitboard) -> dict[str, int]: ...
def solve_seconds(empties: int) -> float:
    """A pessimistic estimate of the time an exact solve of that many empties takes."""
    ...

FEATURE_NAMES: Final[tuple[str, ...]]

SearchLine = tuple[Square, int, tuple[Square, ...]]

class Search:
    """Owns the transposition table, the stop flag and the search threads; runs one search at a
    time."""

    hash_mb: int
    @property
    def threads(self) -> int: ...
    def __init__(self, hash_mb: int = 16, threads: int = 1) -> None: ...
    def resize(self, hash_mb: int) -> None: ...
    def set_threads(self, threads: int) -> None: ...
    def clear(self) -> None: ...
    def stop(self) -> None: ...
    def reset_stop(self) -> None: ...
    def run(
        self,
        P: Bitboard,
        O: Bitboard,
        mask: Bitboard,
        max_depth: int = 60,
        max_nodes: int = 0,
        soft_time: float = 0.0,
        hard_time: float = 0.0,
        root_moves: Bitboard = 0,
        multipv: int = 1,
        callback: Optional[Callable[[int, int, bool, int, float, list[SearchLine]], object]] = None,
        *,
        contempt: int = 0,
        solve: int = 0,
        solve_lead: int = -1,
        selective: bool = True,
        pattern: bool = False,
    ) -> tuple[list[SearchLine], int, int, bool]: ...
