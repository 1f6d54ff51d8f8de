# cython: language_level=3
"""Compiled hot path of othello_engine: bitboard rules, symmetries, perft, evaluation and search.

Everything here takes and returns plain integers. A position is two uint64 bitboards, ``P`` for
the side to move and ``O`` for its opponent; bit ``row * 8 + col`` is a square, bit 0 is a1 (the
top-left corner). Boards smaller than 8x8 occupy the top-left ``size x size`` corner of the frame
and are described by a ``mask`` of their squares (see :func:`board_mask`). A pass is move 64.
Parsing, validation, timing, threads and I/O belong to the Python modules around this one.
"""

include "_bitboard.pxi"
include "_search.pxi"

PASS = 64
FULL_MASK = 0xFFFFFFFFFFFFFFFF


def board_mask(int size):
    """Bitboard of the squares of a size x size board (3 <= size <= 8) in the 8x8 frame."""
    if size < 3 or size > 8:
        raise ValueError(f"board size {size} is out of range 3..8")
    cdef u64 row = ((<u64>1) << size) - 1
    cdef u64 m = 0
    cdef int r
    for r in range(size):
        m |= row << (8 * r)
    return m


def legal_moves(u64 P, u64 O, u64 mask=FULL_MASK):
    """Bitboard of P's legal moves against O."""
    return bb_moves(P, O, mask)


def flipped_discs(u64 P, u64 O, int sq):
    """Bitboard of O's discs flipped when P plays sq (0 if the move flips nothing)."""
    if sq < 0 or sq > 63:
        raise ValueError(f"square {sq} is out of range 0..63")
    return bb_flips(P, O, sq)


def make_move(u64 P, u64 O, int sq):
    """Play sq for P and return the new (P, O) with the sides swapped (the opponent to move).

    sq = 64 is a pass. The move is not checked for legality: use legal_moves first.
    """
    cdef u64 f
    if sq == 64:
        return (O, P)
    if sq < 0 or sq > 63:
        raise ValueError(f"square {sq} is out of range 0..63")
    f = bb_flips(P, O, sq)
    return (O ^ f, P ^ f ^ ((<u64>1) << sq))


def popcount(u64 x):
    """Number of set bits of x."""
    return oe_popcount(x)


def perft(u64 P, u64 O, int depth, u64 mask=FULL_MASK, bint bulk=False):
    """Leaf count of the game tree to depth plies; a pass is a ply only when the opponent can move,
    and a finished game is one leaf. bulk counts the last ply by a popcount."""
    cdef u64 n
    if depth < 0:
        raise ValueError("depth must be >= 0")
    with nogil:
        n = perft_rec(P, O, mask, depth, bulk)
    return n


def symmetry(u64 x, int k, int size=8):
    """Image of bitboard x under symmetry k (0..7) of a size x size board.

    Bit 0 of k mirrors left-right, bit 1 mirrors top-bottom, bit 2 transposes (in that order).
    k = 0 is the identity; the inverse of k is k itself except 5 <-> 6.
    """
    if k < 0 or k > 7:
        raise ValueError(f"symmetry {k} is out of range 0..7")
    cdef int shift = 8 - size
    if k & 1:
        x = mirror_horizontal(x) >> shift
    if k & 2:
        x = flip_vertical(x) >> (8 * shift)
    if k & 4:
        x = transpose(x)
    return x


def final_disc_difference(u64 P, u64 O, u64 mask=FULL_MASK):
    """Final disc difference for P (empties go to the winner), in discs."""
    return final_score(P, O, mask) // 100


def evaluate_position(u64 P, u64 O, u64 mask=FULL_MASK):
    """Static evaluation of the position for P, in centi-discs (see evaluation_terms)."""
    return evaluation_terms(P, O, mask)["total"]
