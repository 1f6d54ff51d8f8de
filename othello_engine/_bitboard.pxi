# Bitboard kernels: move generation, flips, counts, symmetries, perft.
#
# Included by _core.pyx. A position is two uint64 bitboards, P (side to move) and O (opponent).
# Bit i is square (row = i // 8, col = i % 8): bit 0 is a1 (top-left), bit 7 is h1, bit 63 is h8.
# Boards smaller than 8x8 sit in the top-left corner of the same frame; `mask` holds their squares.
# Discs never lie outside the mask, so only the final "empty square" test needs it.

cdef extern from *:
    """
    static inline int oe_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int oe_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int oe_popcount(unsigned long long x) nogil
    int oe_ctz(unsigned long long x) nogil

ctypedef unsigned long long u64

cdef u64 NOT_A = 0xFEFEFEFEFEFEFEFEULL   # every column but a
cdef u64 NOT_H = 0x7F7F7F7F7F7F7F7FULL   # every column but h
cdef u64 INNER = 0x7E7E7E7E7E7E7E7EULL   # columns b..g


cdef inline u64 moves_dir(u64 P, u64 O, int shift) noexcept nogil:
    """Squares reached from P through a run of O in one direction (positive shift: towards h8)."""
    cdef u64 t
    if shift > 0:
        t = O & (P << shift)
        t |= O & (t << shift)
        t |= O & (t << shift)
        t |= O & (t << shift)
        t |= O & (t << shift)
        t |= O & (t << shift)
        return t << shift
    shift = -shift
    t = O & (P >> shift)
    t |= O & (t >> shift)
    t |= O & (t >> shift)
    t |= O & (t >> shift)
    t |= O & (t >> shift)
    t |= O & (t >> shift)
    return t >> shift


cdef inline u64 bb_moves(u64 P, u64 O, u64 mask) noexcept nogil:
    """Legal moves of P against O as a bitboard (empty squares inside mask)."""
    cdef u64 oh = O & INNER
    cdef u64 m = (moves_dir(P, oh, 1) | moves_dir(P, oh, -1)
                  | moves_dir(P, O, 8) | moves_dir(P, O, -8)
                  | moves_dir(P, oh, 7) | moves_dir(P, oh, -7)
                  | moves_dir(P, oh, 9) | moves_dir(P, oh, -9))
    return m & ~(P | O) & mask


cdef inline u64 flips_dir(u64 P, u64 O, u64 m, int shift, u64 keep) noexcept nogil:
    """Discs of O flipped in one direction by a disc placed at m."""
    cdef u64 f = 0
    cdef u64 x
    if shift > 0:
        x = (m << shift) & keep
        while x & O:
            f |= x
            x = (x << shift) & keep
    else:
        x = (m >> (-shift)) & keep
        while x & O:
            f |= x
            x = (x >> (-shift)) & keep
    if x & P:
        return f
    return 0


cdef inline u64 bb_flips(u64 P, u64 O, int sq) noexcept nogil:
    """Discs of O flipped when P plays at sq (0 when the move flips nothing)."""
    cdef u64 m = (<u64>1) << sq
    return (flips_dir(P, O, m, 1, NOT_A) | flips_dir(P, O, m, -1, NOT_H)
            | flips_dir(P, O, m, 8, ~(<u64>0)) | flips_dir(P, O, m, -8, ~(<u64>0))
            | flips_dir(P, O, m, 9, NOT_A) | flips_dir(P, O, m, -9, NOT_H)
            | flips_dir(P, O, m, 7, NOT_H) | flips_dir(P, O, m, -7, NOT_A))


cdef u64 perft_rec(u64 P, u64 O, u64 mask, int depth, bint bulk) noexcept nogil:
    cdef u64 moves, f, total
    cdef int sq
    if depth == 0:
        return 1
    moves = bb_moves(P, O, mask)
    if moves == 0:
        if bb_moves(O, P, mask) == 0:
            return 1                      # a finished game is one leaf
        return perft_rec(O, P, mask, depth - 1, bulk)   # a pass is a ply
    if bulk and depth == 1:
        return oe_popcount(moves)
    total = 0
    while moves:
        sq = oe_ctz(moves)
        moves &= moves - 1
        f = bb_flips(P, O, sq)
        total += perft_rec(O ^ f, P ^ f ^ ((<u64>1) << sq), mask, depth - 1, bulk)
    return total


# --- symmetries -----------------------------------------------------------------------------
# Index k in 0..7: bit 0 = mirror left-right (col -> 7-col), bit 1 = mirror top-bottom
# (row -> 7-row), bit 2 = transpose (row <-> col), applied in that order, on the 8x8 frame.

cdef inline u64 flip_vertical(u64 x) noexcept nogil:
    x = ((x >> 8) & 0x00FF00FF00FF00FFULL) | ((x & 0x00FF00FF00FF00FFULL) << 8)
    x = ((x >> 16) & 0x0000FFFF0000FFFFULL) | ((x & 0x0000FFFF0000FFFFULL) << 16)
    return (x >> 32) | (x << 32)


cdef inline u64 mirror_horizontal(u64 x) noexcept nogil:
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1)
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2)
    return ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4)


cdef inline u64 transpose(u64 x) noexcept nogil:
    cdef u64 t
    t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAULL
    x = x ^ t ^ (t << 7)
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCULL
    x = x ^ t ^ (t << 14)
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ULL
    return x ^ t ^ (t << 28)


cdef inline u64 bb_symmetry(u64 x, int k) noexcept nogil:
    if k & 1:
        x = mirror_horizontal(x)
    if k & 2:
        x = flip_vertical(x)
    if k & 4:
        x = transpose(x)
    return x
