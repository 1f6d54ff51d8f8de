# Pattern evaluation on the other board sizes (layout 2): families of squares computed from the size.
#
# Layout 2 (PATTERN_N_LAYOUT) serves every size 6..26 but 8 (whose own layout is _pattern.pxi),
# with one weight set per size. Each family is a base list of squares at the corner a1, read in
# list order, and its instances are the list's images under the eight symmetries of the board, so
# that every instance reads its squares in the same order and shares the family's table (a family
# that a symmetry maps onto itself, like the diagonal, has two instances reading the same squares
# in two orders: the evaluation stays exactly symmetric without tying table entries). With L =
# min(size, 8):
#   family     base squares (row, col)                       table
#   edge       (0, 0..L-1) and the X-square (1, 1)           3^(L+1)
#   corner3x3  rows 0..2, columns 0..2                       3^9
#   corner2x5  rows 0..1, columns 0..4                       3^10
#   line2      (1, 0..L-1)                                   3^L
#   line3      (2, 0..L-1)                                   3^L
#   diag       (i, i) for i < L                              3^L
# A list's index is base 3 over its squares, the first square the lowest digit: 0 empty, 1 the
# side to move, 2 the opponent (read square by square: these boards are not bit-sliced here).
# Scalar terms: mobility difference, potential mobility difference (frontier), parity (+1 when
# the empties are odd), bias, and the disc difference (the middle of a big board is no pattern's).
# Phases: PATTERN_N_PHASES tables, the phase being min(e, 59) // 4 with e the empties scaled to
# the 60 of 8x8. Weights are centi-discs (int16); the evaluation, clamped to +-6300, is their sum.
# Squares are numbered as the board's kernels number them: row * 8 + col in the 8x8 frame
# (sizes up to 7), row * size + col on wide boards.

cdef enum:
    PN_FAMILIES = 6
    PN_INSTANCES = 48          # 6 families x 8 symmetries
    PN_MAX_LEN = 10
    PN_SCALARS = 5
    PN_PHASES = 15
    PN_LAYOUT = 2

PATTERN_N_FAMILIES = ("edge", "corner3x3", "corner2x5", "line2", "line3", "diag")
"""The families of layout 2, in table order."""
PATTERN_N_SCALARS = ("mobility", "potential_mobility", "parity", "bias", "discs")
PATTERN_N_PHASES = PN_PHASES
PATTERN_N_LAYOUT = PN_LAYOUT


cdef struct PatternN:
    int size
    int squares                # size * size
    int entries                # table entries of one phase, the scalars included
    int scalar_offset          # where the scalars' weights start in a phase
    u64 mask                   # the board's squares (8x8 frame only)
    int length[PN_INSTANCES]
    int offset[PN_INSTANCES]   # table offset of the instance's family
    int family[PN_INSTANCES]
    int sq[PN_INSTANCES][PN_MAX_LEN]
    short* w                   # PN_PHASES x entries (NULL: no weights for this size)


cdef PatternN* PATTERN_N[27]
for _n in range(27):
    PATTERN_N[_n] = NULL


def _family_bases(int n):
    """The base lists of (row, col) of layout 2's families on an n x n board, in table order."""
    cdef int L = min(n, 8)
    return (
        [(0, c) for c in range(L)] + [(1, 1)],
        [(r, c) for r in range(3) for c in range(3)],
        [(r, c) for r in range(2) for c in range(5)],
        [(1, c) for c in range(L)],
        [(2, c) for c in range(L)],
        [(i, i) for i in range(L)],
    )


def _image(int r, int c, int k, int n):
    """(row, col) under symmetry k: bit 2 transposes, bit 1 flips the rows, bit 0 mirrors the
    columns."""
    if k & 4:
        r, c = c, r
    if k & 2:
        r = n - 1 - r
    if k & 1:
        c = n - 1 - c
    return r, c


cdef PatternN* pattern_n_for(int n) except NULL:
    """The (shared, made once) layout of the n x n board, without weights until they are set."""
    cdef PatternN* pn
    cdef int k, inst = 0, offset = 0, stride
    if PATTERN_N[n] != NULL:
        return PATTERN_N[n]
    pn = <PatternN*>calloc(1, sizeof(PatternN))
    if pn == NULL:
        raise MemoryError("cannot allocate a pattern layout")
    pn.size = n
    pn.squares = n * n
    stride = 8 if n <= 8 else n
    pn.mask = 0
    if n <= 8:
        for i in range(n):
            pn.mask |= ((<u64>1 << n) - 1) << (8 * i)
    for f, base in enumerate(_family_bases(n)):
        for k in range(8):
            pn.length[inst] = len(base)
            pn.offset[inst] = offset
            pn.family[inst] = f
            for i, (r0, c0) in enumerate(base):
                r, c = _image(r0, c0, k, n)
                pn.sq[inst][i] = r * stride + c
            inst += 1
        offset += <int>(3 ** len(base))
    pn.scalar_offset = offset
    pn.entries = offset + PN_SCALARS
    pn.w = NULL
    PATTERN_N[n] = pn
    return pn


cdef int pattern_n_size(u64 mask) noexcept nogil:
    """The size of the board (3..8) whose squares in the 8x8 frame are mask."""
    cdef int n = 0
    while n < 8 and (mask >> (9 * n)) & 1:
        n += 1
    return n


cdef inline int b_count(board_t x) noexcept nogil:
    if board_t is u64:
        return oe_popcount(x)
    else:
        return w_popcount(x)


cdef inline int pn_digit(board_t P, board_t O, int sq) noexcept nogil:
    """0 empty, 1 P's, 2 O's."""
    if board_t is u64:
        return <int>((P >> sq) & 1) + 2 * <int>((O >> sq) & 1)
    else:
        return w_test(&P, sq) + 2 * w_test(&O, sq)


cdef inline void pn_indices(const PatternN* pn, board_t P, board_t O, int* ix) noexcept nogil:
    """The PN_INSTANCES table indices (offsets within a phase) of P to move against O."""
    cdef int i, j, v
    for i in range(PN_INSTANCES):
        v = 0
        for j in range(pn.length[i] - 1, -1, -1):
            v = 3 * v + pn_digit(P, O, pn.sq[i][j])
        ix[i] = pn.offset[i] + v


cdef inline int pn_scalars(const PatternN* pn, const WGeo* g, board_t P, board_t O, board_t mP,
                           board_t mO, int* s) noexcept nogil:
    """The scalar terms' features (PATTERN_N_SCALARS); returns the empties."""
    cdef int np = b_count(P), no = b_count(O), empties = pn.squares - np - no
    cdef u64 E
    cdef board_t empty, nb
    cdef int i, t
    s[0] = b_count(mP) - b_count(mO)
    if board_t is u64:
        E = pn.mask & ~(P | O)
        s[1] = oe_popcount(E & neighbours(O)) - oe_popcount(E & neighbours(P))
    else:
        for i in range(<int>(sizeof(P.w) // 8)):
            empty.w[i] = g.full[i] & ~(P.w[i] | O.w[i])
        nb = w_neighbours(O, g)
        t = w_count_in(&empty, nb.w)
        nb = w_neighbours(P, g)
        s[1] = t - w_count_in(&empty, nb.w)
    s[2] = 1 if empties & 1 else -1
    s[3] = 1
    s[4] = np - no
    return empties


cdef inline int pn_phase(const PatternN* pn, int empties) noexcept nogil:
    cdef int e = empties * 60 // (pn.squares - 4)
    return (e if e < 59 else 59) // 4


cdef inline int pn_evaluate(const PatternN* pn, const WGeo* g, board_t P, board_t O, board_t mP,
                            board_t mO) noexcept nogil:
    """The layout-2 evaluation of P (to move) in centi-discs, clamped to +-6300; pn has weights."""
    cdef int ix[PN_INSTANCES]
    cdef int sc[PN_SCALARS]
    cdef int i, total = 0
    cdef int empties = pn_scalars(pn, g, P, O, mP, mO, sc)
    cdef const short* w = pn.w + pn_phase(pn, empties) * pn.entries
    pn_indices(pn, P, O, ix)
    for i in range(PN_INSTANCES):
        total += w[ix[i]]
    for i in range(PN_SCALARS):
        total += w[pn.scalar_offset + i] * sc[i]
    if total > 6300:
        return 6300
    if total < -6300:
        return -6300
    return total
