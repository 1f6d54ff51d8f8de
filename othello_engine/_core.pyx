# cython: language_level=3
"""Compiled hot path of othello_engine: bitboard rules, symmetries, perft, evaluation and search.

Board model. A position is two uint64 bitboards, ``P`` for the side to move and ``O`` for its
opponent (side-relative, so no kernel branches on colour). Bit ``row * 8 + col`` is a square: bit 0
is a1, the top-left corner, bit 7 is h1, bit 63 is h8 (columns a..h left to right, rows 1..8 top to
bottom). A board smaller than 8x8 (3..8 squares a side) occupies the top-left ``size x size``
corner of the same frame and is described by a ``mask`` of its squares (:func:`board_mask`); the
squares outside it stay empty. A pass is move 64. Everything here takes and returns plain
integers and trusts its input; parsing, validation, timing, threads and I/O belong to the Python
modules around this one (``othello_engine.board`` checks positions before they get here).

Boards of 9x9 to 26x26 (``_wide.pxi``) take and return plain ints of ``size * size`` bits, bit
``row * size + col``, through the functions ending in ``_n`` (which accept every size 3..26 and
forward sizes 3..8 to the 64-bit functions); their pass is ``size * size`` (:func:`pass_code`).

>>> P, O = 0x0000000810000000, 0x0000001008000000     # the 8x8 start, black to move
>>> hex(legal_moves(P, O))
'0x102004080000'
>>> [perft(P, O, d) for d in range(1, 5)]
[4, 12, 56, 244]
"""

include "_bitboard.pxi"
include "_wide.pxi"
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


VECTOR_KERNELS = bool(OE_VECTOR)
"""True when move generation and flips run on the AVX2 kernels (else the scalar ones)."""


def _legal_moves_scalar(u64 P, u64 O, u64 mask=FULL_MASK):
    """legal_moves on the scalar kernel whatever the build (for tests of both kernels)."""
    return moves_scalar(P, O, mask)


def _flipped_discs_scalar(u64 P, u64 O, int sq):
    """flipped_discs on the scalar kernel whatever the build (for tests of both kernels)."""
    if sq < 0 or sq > 63:
        raise ValueError(f"square {sq} is out of range 0..63")
    return flips_scalar(P, O, sq)


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


def game_state(u64 P, u64 O, u64 mask=FULL_MASK):
    """0 if P can move, 1 if P must pass (O can move), 2 if the game is over (neither can)."""
    if bb_moves(P, O, mask):
        return 0
    return 1 if bb_moves(O, P, mask) else 2


def perft(u64 P, u64 O, int depth, u64 mask=FULL_MASK, bint bulk=False, stop=None):
    """Leaf count of the game tree to depth plies; a pass is a ply only when the opponent can move,
    and a finished game is one leaf. bulk counts the last ply by a popcount instead of making
    each move. Runs without the GIL. stop, if given, is a writable buffer (``bytearray(1)``):
    another thread sets ``stop[0] = 1`` to end the count within microseconds; the count returned
    is then partial (the caller tells by looking at stop[0])."""
    return count_leaves(P, O, depth, mask, bulk, stop, False)


def _perft_frame(u64 P, u64 O, int depth, bint bulk=False, stop=None):
    """perft on the full 8x8 frame with no board mask at all (for measuring the mask's cost)."""
    return count_leaves(P, O, depth, FULL_MASK, bulk, stop, True)


cdef object count_leaves(u64 P, u64 O, int depth, u64 mask, bint bulk, object stop, bint frame):
    """The checks and the GIL-free count shared by perft and _perft_frame (frame: no mask at all)."""
    cdef u64 n
    cdef unsigned char[::1] view
    cdef unsigned char* flag = NULL
    if depth < 0:
        raise ValueError("depth must be >= 0")
    if stop is not None:
        view = stop           # a writable buffer; view keeps it held during the count
        if view.shape[0] < 1:
            raise ValueError("stop must be a writable buffer of one byte or more, e.g. bytearray(1)")
        flag = &view[0]
    with nogil:
        if frame:
            n = perft_rec_frame(P, O, depth, bulk, flag)
        else:
            n = perft_rec(P, O, mask, depth, bulk, flag)
    return n


def symmetry(u64 x, int k, int size=8):
    """Image of bitboard x under symmetry k (0..7) of a size x size board.

    Bit 0 of k mirrors left-right, bit 1 mirrors top-bottom, bit 2 transposes (in that order).
    k = 0 is the identity; the inverse of k is k itself except 5 <-> 6 (the quarter turns).
    """
    if k < 0 or k > 7:
        raise ValueError(f"symmetry {k} is out of range 0..7")
    if size < 3 or size > 8:
        raise ValueError(f"board size {size} is out of range 3..8")
    return bb_symmetry_sized(x, k, size)


def canonical(u64 P, u64 O, int size=8):
    """The least of the 8 images of (P, O) under the symmetries of a size x size board, ordered by
    P then O, as ``(P', O', k)`` with k the symmetry that produces it (the smallest such k)."""
    cdef u64 bp, bo, p, o
    cdef int k, best_k = 0
    if size < 3 or size > 8:
        raise ValueError(f"board size {size} is out of range 3..8")
    bp, bo = P, O
    for k in range(1, 8):
        p = bb_symmetry_sized(P, k, size)
        o = bb_symmetry_sized(O, k, size)
        if p < bp or (p == bp and o < bo):
            bp, bo, best_k = p, o, k
    return (bp, bo, best_k)


def final_disc_difference(u64 P, u64 O, u64 mask=FULL_MASK):
    """Final disc difference for P (empties go to the winner), in discs."""
    return final_score(P, O, mask) // 100


def evaluate_position(u64 P, u64 O, u64 mask=FULL_MASK):
    """Static evaluation of the position for P, in centi-discs (see evaluation_terms)."""
    return evaluation_terms(P, O, mask)["total"]

