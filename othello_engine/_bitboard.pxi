# Bitboard kernels: move generation, flips, counts, symmetries, perft.
#
# A position is two uint64 bitboards, P (side to move) and O (opponent).
# Bit i is square (row = i // 8, col = i % 8): bit 0 is a1 (top-left), bit 7 is h1, bit 63 is h8.
# Boards smaller than 8x8 sit in the top-left corner of the same frame; `mask` holds their squares.
# Discs never lie outside the mask, and the squares outside it are always empty, so a run of
# discs stops at the board's edge by itself: only the final "empty square" test of move generation
# needs the mask, and flips need it not at all. That is why smaller boards cost the 8x8 path nothing.
#
# Two implementations of bb_moves / bb_flips, chosen at compile time: AVX2 kernels (four line
# directions per 256-bit vector, in C below) when the compiler targets AVX2, else the scalar ones
# (moves_scalar / flips_scalar). Both are tested against the reference rules.

cdef extern from *:
    """
    static inline int oe_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int oe_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int oe_clz(unsigned long long x) { return __builtin_clzll(x); }
    /* A perft's stop flag, written by another thread: volatile, so every poll reads memory. */
    static inline int oe_stop_requested(const volatile unsigned char* flag) {
        return flag != 0 && *flag != 0;
    }

    /* AVX2 kernels: the four directions of a line side by side in one 256-bit vector (GCC/clang
       vector extensions; shifts by a vector are per lane). Used when the compiler targets AVX2;
       otherwise OE_VECTOR is 0 and the scalar kernels below (in Cython) do the work. */
    #if defined(__AVX2__) && (defined(__GNUC__) || defined(__clang__))
    #define OE_VECTOR 1
    typedef unsigned long long oe_v4 __attribute__((vector_size(32)));
    typedef long long oe_s4 __attribute__((vector_size(32)));
    static oe_v4 oe_line_up4[64];     /* lane d: LINE_UP[sq][d] */
    static oe_v4 oe_line_down4[64];   /* lane d: LINE_DOWN[sq][d] */
    #define OE_S1 ((oe_v4){1, 8, 9, 7})
    #define OE_S2 ((oe_v4){2, 16, 18, 14})
    #define OE_S4 ((oe_v4){4, 32, 36, 28})
    #define OE_INNER 0x7E7E7E7E7E7E7E7EULL

    static inline unsigned long long oe_or_lanes(oe_v4 x) {
        return x[0] | x[1] | x[2] | x[3];
    }
    static inline void oe_set_lines(int sq, int d, unsigned long long up, unsigned long long down) {
        oe_line_up4[sq][d] = up;
        oe_line_down4[sq][d] = down;
    }
    static inline unsigned long long oe_moves_v(unsigned long long P, unsigned long long O,
                                                unsigned long long mask) {
        oe_v4 p = {P, P, P, P};
        oe_v4 o = {O & OE_INNER, O, O & OE_INNER, O & OE_INNER};
        oe_v4 pre = o & (o << OE_S1);
        oe_v4 f = o & (p << OE_S1);
        f |= o & (f << OE_S1);
        f |= pre & (f << OE_S2);
        f |= pre & (f << OE_S2);
        oe_v4 m = f << OE_S1;
        pre = o & (o >> OE_S1);
        f = o & (p >> OE_S1);
        f |= o & (f >> OE_S1);
        f |= pre & (f >> OE_S2);
        f |= pre & (f >> OE_S2);
        m |= f >> OE_S1;
        return oe_or_lanes(m) & ~(P | O) & mask;
    }
    static inline unsigned long long oe_flips_v(unsigned long long P, unsigned long long O, int sq) {
        oe_v4 p = {P, P, P, P};
        oe_v4 o = {O, O, O, O};
        oe_v4 up = oe_line_up4[sq], down = oe_line_down4[sq];
        /* towards h8: the outflank is the lowest non-O square of the line */
        oe_v4 e = ~o & up;
        oe_v4 out = e & (0 - e) & p;
        oe_v4 flips = (out + (oe_v4)(out != 0)) & up;          /* out - 1 where out != 0 */
        /* towards a1: smear the non-O squares down the line; its top is the outflank */
        e = ~o & down;
        e |= e >> OE_S1;
        e |= e >> OE_S2;
        e |= e >> OE_S4;
        out = e & ~(e >> OE_S1) & down & p;
        flips |= ~e & down & (oe_v4)(out != 0);
        return oe_or_lanes(flips);
    }
    #else
    #define OE_VECTOR 0
    static inline void oe_set_lines(int sq, int d, unsigned long long up, unsigned long long down) {}
    static inline unsigned long long oe_moves_v(unsigned long long P, unsigned long long O,
                                                unsigned long long mask) { return 0; }
    static inline unsigned long long oe_flips_v(unsigned long long P, unsigned long long O, int sq) {
        return 0;
    }
    #endif
    """
    int oe_popcount(unsigned long long x) nogil
    int oe_ctz(unsigned long long x) nogil
    int oe_clz(unsigned long long x) nogil
    bint oe_stop_requested(unsigned char* flag) nogil
    const int OE_VECTOR
    void oe_set_lines(int sq, int d, unsigned long long up, unsigned long long down) nogil
    unsigned long long oe_moves_v(unsigned long long P, unsigned long long O, unsigned long long mask) nogil
    unsigned long long oe_flips_v(unsigned long long P, unsigned long long O, int sq) nogil

cdef u64 NOT_A = 0xFEFEFEFEFEFEFEFEULL   # every column but a
cdef u64 NOT_H = 0x7F7F7F7F7F7F7F7FULL   # every column but h
cdef u64 INNER = 0x7E7E7E7E7E7E7E7EULL   # columns b..g: a horizontal or diagonal run never wraps

# LINE_UP[sq][d]: the squares after sq in direction d towards h8 (+1, +8, +9, +7), nearest first in
# bit order; LINE_DOWN[sq][d]: the squares after sq in the opposite direction (-1, -8, -9, -7).
# Filled once at import by init_lines(). 1 KiB each: they stay in L1.
cdef u64 LINE_UP[64][4]
cdef u64 LINE_DOWN[64][4]


cdef void init_lines() noexcept:
    cdef int sq, d, r, c, dr, dc
    cdef int DR[4]
    cdef int DC[4]
    DR[0] = 0; DC[0] = 1      # +1  (east)
    DR[1] = 1; DC[1] = 0      # +8  (south)
    DR[2] = 1; DC[2] = 1      # +9  (south-east)
    DR[3] = 1; DC[3] = -1     # +7  (south-west)
    for sq in range(64):
        for d in range(4):
            LINE_UP[sq][d] = 0
            LINE_DOWN[sq][d] = 0
            r = sq // 8 + DR[d]
            c = sq % 8 + DC[d]
            while 0 <= r < 8 and 0 <= c < 8:
                LINE_UP[sq][d] |= (<u64>1) << (r * 8 + c)
                r += DR[d]
                c += DC[d]
            r = sq // 8 - DR[d]
            c = sq % 8 - DC[d]
            while 0 <= r < 8 and 0 <= c < 8:
                LINE_DOWN[sq][d] |= (<u64>1) << (r * 8 + c)
                r -= DR[d]
                c -= DC[d]
            oe_set_lines(sq, d, LINE_UP[sq][d], LINE_DOWN[sq][d])

init_lines()


cdef inline u64 moves_pair(u64 P, u64 O, int s) noexcept nogil:
    """Empty-or-not squares reached from P through a run of O, both ways along shift s.

    Parallel prefix with doubling: after two single steps the runs are up to 2 long, then each
    `pre` step doubles them (O runs are at most 6 long on an 8x8 frame)."""
    cdef u64 f, g, pre, s2 = 2 * s
    pre = O & (O << s)
    f = O & (P << s)
    f |= O & (f << s)
    f |= pre & (f << s2)
    f |= pre & (f << s2)
    pre = O & (O >> s)
    g = O & (P >> s)
    g |= O & (g >> s)
    g |= pre & (g >> s2)
    g |= pre & (g >> s2)
    return (f << s) | (g >> s)


cdef inline u64 bb_moves(u64 P, u64 O, u64 mask) noexcept nogil:
    """Legal moves of P against O as a bitboard (empty squares inside mask)."""
    if OE_VECTOR:
        return oe_moves_v(P, O, mask)
    return moves_scalar(P, O, mask)


cdef inline u64 moves_scalar(u64 P, u64 O, u64 mask) noexcept nogil:
    """bb_moves without vector instructions."""
    cdef u64 oh = O & 0x7E7E7E7E7E7E7E7EULL
    cdef u64 m = moves_pair(P, oh, 1) | moves_pair(P, O, 8) | moves_pair(P, oh, 9) | moves_pair(P, oh, 7)
    return m & ~(P | O) & mask


cdef inline u64 flips_up(u64 P, u64 O, u64 line) noexcept nogil:
    """Flips along a line whose nearest square is its lowest bit: the lowest non-O square of the
    line is the outflank; if P holds it, every line square below it is an O disc to flip."""
    cdef u64 o = ~O & line
    cdef u64 out = o & (0 - o) & P
    return (out - (out != 0)) & line


cdef inline u64 flips_down(u64 P, u64 O, u64 line) noexcept nogil:
    """Flips along a line whose nearest square is its highest bit (the mirror of flips_up)."""
    cdef u64 o = (~O & line) | 1                  # | 1 keeps clz defined; `& line` drops it again
    cdef u64 out = ((<u64>0x8000000000000000ULL) >> oe_clz(o)) & P & line
    return (0 - (out << 1)) & line


cdef inline u64 bb_flips(u64 P, u64 O, int sq) noexcept nogil:
    """Discs of O flipped when P plays at sq (0 when the move flips nothing); sq must be empty."""
    if OE_VECTOR:
        return oe_flips_v(P, O, sq)
    return flips_scalar(P, O, sq)


cdef inline u64 flips_scalar(u64 P, u64 O, int sq) noexcept nogil:
    """bb_flips without vector instructions."""
    cdef u64* up = LINE_UP[sq]
    cdef u64* down = LINE_DOWN[sq]
    return (flips_up(P, O, up[0]) | flips_up(P, O, up[1])
            | flips_up(P, O, up[2]) | flips_up(P, O, up[3])
            | flips_down(P, O, down[0]) | flips_down(P, O, down[1])
            | flips_down(P, O, down[2]) | flips_down(P, O, down[3]))


cdef u64 perft_rec(u64 P, u64 O, u64 mask, int depth, bint bulk,
                   unsigned char* stop) noexcept nogil:
    """Leaves below (P, O) at depth plies: a pass is a ply only when the opponent can move, a
    finished game is one leaf; with bulk the last ply is counted by popcount, without it every
    last-ply move is made (flips computed) and counted. stop (NULL: none) is a flag another
    thread may set: it is polled at every node two or more plies above the leaves (a few
    microseconds apart), and once set the count returns at once, partial."""
    cdef u64 moves, f, total
    cdef int sq
    if depth == 0:
        return 1
    moves = bb_moves(P, O, mask)
    if moves == 0:
        if bb_moves(O, P, mask) == 0:
            return 1                      # a finished game is one leaf
        return perft_rec(O, P, mask, depth - 1, bulk, stop)   # a pass is a ply
    total = 0
    if depth == 1:
        if bulk:
            return oe_popcount(moves)
        while moves:                      # every legal move flips a disc: count the made moves
            sq = oe_ctz(moves)
            moves &= moves - 1
            total += bb_flips(P, O, sq) != 0
        return total
    if oe_stop_requested(stop):
        return 0
    while moves:
        sq = oe_ctz(moves)
        moves &= moves - 1
        f = bb_flips(P, O, sq)
        total += perft_rec(O ^ f, P ^ f ^ ((<u64>1) << sq), mask, depth - 1, bulk, stop)
    return total


cdef u64 perft_rec_frame(u64 P, u64 O, int depth, bint bulk, unsigned char* stop) noexcept nogil:
    """perft_rec with the 8x8 mask as a constant, so the compiler drops the mask test: it exists
    only so that scripts/bench_core.py can measure what the board mask costs the 8x8 path (it
    polls stop like perft_rec, so that the two differ in the mask alone)."""
    cdef u64 moves, f, total
    cdef int sq
    if depth == 0:
        return 1
    moves = bb_moves(P, O, ~(<u64>0))
    if moves == 0:
        if bb_moves(O, P, ~(<u64>0)) == 0:
            return 1
        return perft_rec_frame(O, P, depth - 1, bulk, stop)
    total = 0
    if depth == 1:
        if bulk:
            return oe_popcount(moves)
        while moves:
            sq = oe_ctz(moves)
            moves &= moves - 1
            total += bb_flips(P, O, sq) != 0
        return total
    if oe_stop_requested(stop):
        return 0
    while moves:
        sq = oe_ctz(moves)
        moves &= moves - 1
        f = bb_flips(P, O, sq)
        total += perft_rec_frame(O ^ f, P ^ f ^ ((<u64>1) << sq), depth - 1, bulk, stop)
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
    """Image of x under symmetry k of the 8x8 board."""
    if k & 1:
        x = mirror_horizontal(x)
    if k & 2:
        x = flip_vertical(x)
    if k & 4:
        x = transpose(x)
    return x


cdef inline u64 bb_symmetry_sized(u64 x, int k, int size) noexcept nogil:
    """Image of x under symmetry k of the size x size board in the top-left corner of the frame."""
    cdef int shift = 8 - size
    if k & 1:
        x = mirror_horizontal(x) >> shift
    if k & 2:
        x = flip_vertical(x) >> (8 * shift)
    if k & 4:
        x = transpose(x)
    return x


cdef inline u64 neighbours(u64 x) noexcept nogil:
    """Squares next to a disc of x in any of the eight directions (inside the 8x8 frame)."""
    return (((x << 1) & NOT_A) | ((x >> 1) & NOT_H) | (x << 8) | (x >> 8)
            | ((x << 9) & NOT_A) | ((x >> 9) & NOT_H) | ((x << 7) & NOT_H) | ((x >> 7) & NOT_A))
