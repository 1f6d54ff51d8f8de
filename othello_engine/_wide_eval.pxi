# The classic evaluation on wide boards (9x9 .. 26x26).
#
# The features of _eval.pxi with their wide equivalents, the same names, weights and units.
#
# The phase is the disc count scaled to 64 squares, so the 8x8 weight curves carry over. The
# corner, X- and C-squares are those of the four corners; the positional classes are defined by
# the distances to the two nearest edges exactly as on 8x8 (so on a big board most squares fall
# in the "centre" class, worth 0). Stability is a cheap lower bound: a disc is stable when, on
# each of the four axes, one neighbour is the edge or a stable disc of its colour, grown from the
# corners for at most WSTABLE_ROUNDS rounds (the full-line test of 8x8 is left out; the count
# stays sound, only smaller). Parity uses the four quadrants.

cdef enum:
    WSTABLE_ROUNDS = 6


cdef struct WEval:
    int n
    int squares
    int corner[4]
    int xsq[4]
    int csq[4][2]
    u64 corners[WMAX_WORDS]
    u64 klass[N_CLASSES][WMAX_WORDS]
    u64 quadrant[4][WMAX_WORDS]
    int w[N_FEATURES][65]
    int wclass[N_CLASSES][65]
    int order[WMAX_SQ]      # static move-ordering value of each square (as square_order_value)


cdef void weval_init(WEval* c, int n) except *:
    """Fill c for the n x n board (9 <= n <= 26)."""
    cdef int r, col, dr, dc, a, b, k, sq, f, cr, cc
    c.n = n
    c.squares = n * n
    memset(c.corners, 0, sizeof(c.corners))
    memset(c.klass, 0, sizeof(c.klass))
    memset(c.quadrant, 0, sizeof(c.quadrant))
    cnr = ((0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1))
    for k in range(4):
        cr, cc = cnr[k]
        dr = 1 if cr == 0 else -1
        dc = 1 if cc == 0 else -1
        c.corner[k] = cr * n + cc
        c.corners[c.corner[k] >> 6] |= (<u64>1) << (c.corner[k] & 63)
        c.xsq[k] = (cr + dr) * n + cc + dc
        c.csq[k][0] = cr * n + cc + dc
        c.csq[k][1] = (cr + dr) * n + cc
    for r in range(n):
        for col in range(n):
            sq = r * n + col
            dr = min(r, n - 1 - r)
            dc = min(col, n - 1 - col)
            a = min(dr, dc)
            b = max(dr, dc)
            k = -1
            if a == 0 and b == 2:
                k = 0
            elif a == 0 and b >= 3:
                k = 1
            elif a == 1 and b == 2:
                k = 2
            elif a == 1 and b >= 3:
                k = 3
            elif a == 2 and b == 2:
                k = 4
            elif a == 2 and b >= 3:
                k = 5
            elif a >= 3:
                k = 6
            if k >= 0:
                c.klass[k][sq >> 6] |= (<u64>1) << (sq & 63)
            k = (2 if 2 * r >= n else 0) + (1 if 2 * col >= n else 0)
            c.quadrant[k][sq >> 6] |= (<u64>1) << (sq & 63)
    for f in range(N_FEATURES):
        anchors = _WEIGHT_ANCHORS[FEATURE_NAMES[f]]
        for k in range(65):
            c.w[f][k] = _interpolate(anchors, k)
    for f in range(N_CLASSES):
        for k in range(65):
            c.wclass[f][k] = _interpolate(_CLASS_ANCHORS[f], k) * c.w[6][k] // 100
    for sq in range(n * n):
        c.order[sq] = weval_square_order(c, sq)


cdef int weval_square_order(WEval* c, int sq):
    """Static move-ordering value of a square: corners first, X- and C-squares last."""
    cdef int k
    for k in range(4):
        if sq == c.corner[k]:
            return 60
    for k in range(4):
        if sq == c.xsq[k]:
            return -40
        if sq == c.csq[k][0] or sq == c.csq[k][1]:
            return -12
    if (c.klass[0][sq >> 6] >> (sq & 63)) & 1:
        return 10
    if (c.klass[1][sq >> 6] >> (sq & 63)) & 1:
        return 6
    if (c.klass[2][sq >> 6] >> (sq & 63)) & 1:
        return -6
    return 0


cdef WEval* WEVAL[27]
for _n in range(27):
    WEVAL[_n] = NULL


cdef WEval* weval_for(int n) except NULL:
    """The (shared, read-only once made) evaluation context of the n x n board."""
    if WEVAL[n] == NULL:
        c = <WEval*>calloc(1, sizeof(WEval))
        if c == NULL:
            raise MemoryError("cannot allocate an evaluation context")
        weval_init(c, n)
        WEVAL[n] = c
    return WEVAL[n]


cdef inline int w_corner_count(WEval* c, wide_t x) noexcept nogil:
    return (w_test(&x, c.corner[0]) + w_test(&x, c.corner[1]) + w_test(&x, c.corner[2])
            + w_test(&x, c.corner[3]))


cdef inline wide_t w_stable(wide_t P, const WGeo* g) noexcept nogil:
    """A sound subset of P's stable discs (see the head of this file; the C kernel oe_wstable)."""
    cdef wide_t s
    if wide_t is w2:
        oe_wstable2(P.w, g.not_first, g.not_last, g.edge_cols, g.edge_rows, g.n, WSTABLE_ROUNDS, s.w)
    elif wide_t is w4:
        oe_wstable4(P.w, g.not_first, g.not_last, g.edge_cols, g.edge_rows, g.n, WSTABLE_ROUNDS, s.w)
    else:
        oe_wstable11(P.w, g.not_first, g.not_last, g.edge_cols, g.edge_rows, g.n, WSTABLE_ROUNDS, s.w)
    return s


cdef inline int w_count_stable(WEval* c, const WGeo* g, wide_t P, wide_t O) noexcept nogil:
    """Number of (provably) stable discs of P; 0 while every corner is empty."""
    if w_corner_count(c, P) == 0:
        return 0               # every stable disc is grown from a corner of its own colour
    return w_popcount(w_stable(P, g))


cdef int w_evaluate_terms(WEval* c, const WGeo* g, wide_t P, wide_t O, wide_t mP, wide_t mO,
                          int* terms) noexcept nogil:
    """evaluate_terms on a wide board: P (to move) against O, centi-discs, clamped to +-6300."""
    cdef wide_t empty, nb
    cdef int i, k, t, total, odd_p, odd_o, ne, sq, np, no, cp, co
    cdef int f[N_FEATURES]
    cdef int ph
    for i in range(<int>(sizeof(P.w) // 8)):
        empty.w[i] = g.full[i] & ~(P.w[i] | O.w[i])
    np = w_popcount(P)
    no = w_popcount(O)
    ph = ((np + no) * 64 + c.squares // 2) // c.squares
    if ph > 64:
        ph = 64
    cp = w_corner_count(c, P)
    co = w_corner_count(c, O)
    f[0] = c.w[0][ph] * (np - no)
    f[1] = c.w[1][ph] * (w_popcount(mP) + w_corner_count(c, mP)
                         - w_popcount(mO) - w_corner_count(c, mO))
    nb = w_neighbours(O, g)
    t = w_count_in(&empty, nb.w)
    nb = w_neighbours(P, g)
    f[2] = c.w[2][ph] * (t - w_count_in(&empty, nb.w))
    f[3] = c.w[3][ph] * (cp - co)
    f[4] = 0
    f[5] = 0
    for k in range(4):
        if w_test(&empty, c.corner[k]):
            sq = c.xsq[k]
            f[4] += w_test(&P, sq) - w_test(&O, sq)
            sq = c.csq[k][0]
            f[5] += w_test(&P, sq) - w_test(&O, sq)
            sq = c.csq[k][1]
            f[5] += w_test(&P, sq) - w_test(&O, sq)
    f[4] *= c.w[4][ph]
    f[5] *= c.w[5][ph]
    t = 0
    for k in range(N_CLASSES):
        if c.wclass[k][ph]:
            t += c.wclass[k][ph] * (w_count_in(&P, c.klass[k]) - w_count_in(&O, c.klass[k]))
    f[6] = t
    f[7] = 0
    if c.w[7][ph] and (cp or co):
        # every stable disc is grown from a corner of its own colour
        f[7] = c.w[7][ph] * ((w_popcount(w_stable(P, g)) if cp else 0)
                             - (w_popcount(w_stable(O, g)) if co else 0))
    f[8] = 0
    if c.w[8][ph]:
        odd_p = 0
        odd_o = 0
        for k in range(4):
            if w_count_in(&empty, c.quadrant[k]) & 1:
                nb = w_and(empty, w_load(empty, c.quadrant[k]))
                if w_any_in(&mP, nb.w):
                    odd_p += 1
                if w_any_in(&mO, nb.w):
                    odd_o += 1
        ne = c.squares - np - no
        f[8] = c.w[8][ph] * (odd_p - odd_o + (1 if ne & 1 else -1)) // 2
    total = 0
    for k in range(N_FEATURES):
        total += f[k]
        if terms != NULL:
            terms[k] = f[k]
    if total > 6300:
        return 6300
    if total < -6300:
        return -6300
    return total
