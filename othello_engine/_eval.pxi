# Static evaluation: named features with phase-dependent weights, side-relative, in centi-discs.
#
# An EvalCtx describes one board size (its corner, X, C, edge and region masks); the weights are
# tables indexed by the phase, which is the number of discs on the board scaled to 64 squares.
# Features (each reported by evaluation_terms):
#   discs               disc difference (weight grows with the number of discs)
#   mobility            difference of legal moves (a corner move counts twice)
#   potential_mobility  difference of empty squares next to the opponent's discs (frontier)
#   corners             difference of corner discs
#   x_squares           difference of X-squares held next to an empty corner (a liability)
#   c_squares           difference of C-squares held next to an empty corner (a liability)
#   position            square table over the other squares (edge A/B squares, inner rings)
#   stability           difference of discs that can never be flipped (computed once a corner
#                       is taken: before that almost no disc is stable)
#   parity              late game: odd empty regions the side to move can enter, minus the
#                       opponent's, plus the global parity (who plays last)

cdef enum:
    N_FEATURES = 9
    N_CLASSES = 7           # positional classes: A, B, c2, d2, c3, d3, centre

FEATURE_NAMES = ("discs", "mobility", "potential_mobility", "corners", "x_squares", "c_squares",
                 "position", "stability", "parity")

cdef u64 FILE_A = 0x0101010101010101ULL
cdef u64 FILE_H = 0x8080808080808080ULL
cdef u64 RANK_1 = 0x00000000000000FFULL
cdef u64 RANK_8 = 0xFF00000000000000ULL
cdef u64 NOT_AB = 0xFCFCFCFCFCFCFCFCULL
cdef u64 NOT_GH = 0x3F3F3F3F3F3F3F3FULL
cdef u64 NOT_ABCD = 0xF0F0F0F0F0F0F0F0ULL
cdef u64 NOT_EFGH = 0x0F0F0F0F0F0F0F0FULL


cdef struct EvalCtx:
    u64 mask
    u64 corners
    u64 corner[4]
    u64 xsq[4]            # X-square of each corner
    u64 csq[4]            # C-squares of each corner
    u64 klass[N_CLASSES]  # positional classes
    u64 quadrant[4]
    int squares           # number of squares of the board
    int phase[65]         # disc count -> phase index 0..64
    int w[N_FEATURES][65]
    int wclass[N_CLASSES][65]
    int pattern           # 1: evaluate with the pattern weights (8x8 only, once they are loaded)


# Weight anchors: (phase, value) pairs, linearly interpolated over phases 0..64.
_WEIGHT_ANCHORS = {
    "discs": ((0, -6), (24, -2), (40, 8), (52, 40), (64, 100)),
    "mobility": ((0, 60), (30, 55), (48, 40), (64, 10)),
    "potential_mobility": ((0, 25), (32, 20), (50, 10), (64, 0)),
    "corners": ((0, 700), (32, 550), (52, 350), (64, 150)),
    "x_squares": ((0, -450), (32, -300), (52, -120), (64, 0)),
    "c_squares": ((0, -150), (32, -110), (52, -40), (64, 0)),
    "position": ((0, 100), (64, 100)),   # the class tables below are scaled by this (percent)
    "stability": ((0, 120), (32, 110), (52, 100), (64, 50)),
    "parity": ((0, 0), (40, 0), (50, 60), (64, 150)),
}
# Positional class values (centi-discs per disc) for A, B, c2, d2, c3, d3, centre.
_CLASS_ANCHORS = (
    ((0, 30), (40, 25), (64, 0)),     # A  (c1)
    ((0, 15), (40, 15), (64, 0)),     # B  (d1)
    ((0, -25), (40, -15), (64, 0)),   # c2
    ((0, -10), (40, -8), (64, 0)),    # d2
    ((0, 8), (40, 5), (64, 0)),       # c3
    ((0, 3), (40, 2), (64, 0)),       # d3
    ((0, 0), (64, 0)),                # centre
)


def _interpolate(anchors, int x):
    cdef int i
    for i in range(len(anchors) - 1):
        x0, y0 = anchors[i]
        x1, y1 = anchors[i + 1]
        if x0 <= x <= x1:
            return int(round(y0 + (y1 - y0) * (x - x0) / (x1 - x0)))
    return anchors[-1][1]


cdef void eval_ctx_init(EvalCtx* c, u64 mask) except *:
    """Fill c for the board whose squares are mask (a size x size corner of the frame)."""
    cdef int n = 0, r, col, dr, dc, a, b, k, sq, f
    cdef u64 bit
    while n < 8 and (mask >> (9 * n)) & 1:
        n += 1
    c.mask = mask
    c.squares = oe_popcount(mask)
    c.pattern = 0
    cnr = ((0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1))
    c.corners = 0
    for k in range(4):
        r, col = cnr[k]
        dr = 1 if r == 0 else -1
        dc = 1 if col == 0 else -1
        c.corner[k] = (<u64>1) << (8 * r + col)
        c.corners |= c.corner[k]
        c.xsq[k] = (<u64>1) << (8 * (r + dr) + col + dc)
        c.csq[k] = ((<u64>1) << (8 * r + col + dc)) | ((<u64>1) << (8 * (r + dr) + col))
    for k in range(N_CLASSES):
        c.klass[k] = 0
    for k in range(4):
        c.quadrant[k] = 0
    for r in range(n):
        for col in range(n):
            sq = 8 * r + col
            bit = (<u64>1) << sq
            dr = min(r, n - 1 - r)
            dc = min(col, n - 1 - col)
            a = min(dr, dc)
            b = max(dr, dc)
            if a == 0 and b == 2:
                c.klass[0] |= bit
            elif a == 0 and b >= 3:
                c.klass[1] |= bit
            elif a == 1 and b == 2:
                c.klass[2] |= bit
            elif a == 1 and b >= 3:
                c.klass[3] |= bit
            elif a == 2 and b == 2:
                c.klass[4] |= bit
            elif a == 2 and b >= 3:
                c.klass[5] |= bit
            elif a >= 3:
                c.klass[6] |= bit
            c.quadrant[(2 if 2 * r >= n else 0) + (1 if 2 * col >= n else 0)] |= bit
    for k in range(65):
        c.phase[k] = min(64, (k * 64 + c.squares // 2) // c.squares)
    for f in range(N_FEATURES):
        anchors = _WEIGHT_ANCHORS[FEATURE_NAMES[f]]
        for k in range(65):
            c.w[f][k] = _interpolate(anchors, k)
    for f in range(N_CLASSES):
        for k in range(65):
            c.wclass[f][k] = _interpolate(_CLASS_ANCHORS[f], k) * c.w[6][k] // 100


cdef inline u64 corner_stable(u64 P) noexcept nogil:
    """P's corners and the edge squares next to a corner P holds (cheaply stable discs)."""
    cdef u64 c = P & 0x8100000000000081ULL
    return P & (c | ((c << 1) & NOT_A) | ((c >> 1) & NOT_H) | (c << 8) | (c >> 8))


cdef inline u64 spread_diag9(u64 x) noexcept nogil:
    """x smeared along its a1-h8 diagonals (the +9/-9 direction) without wrapping."""
    x |= ((x << 9) & NOT_A) | ((x >> 9) & NOT_H)
    x |= ((x << 18) & NOT_AB) | ((x >> 18) & NOT_GH)
    x |= ((x << 36) & NOT_ABCD) | ((x >> 36) & NOT_EFGH)
    return x


cdef inline u64 spread_diag7(u64 x) noexcept nogil:
    """x smeared along its h1-a8 diagonals (the +7/-7 direction) without wrapping."""
    x |= ((x << 7) & NOT_H) | ((x >> 7) & NOT_A)
    x |= ((x << 14) & NOT_GH) | ((x >> 14) & NOT_AB)
    x |= ((x << 28) & NOT_EFGH) | ((x >> 28) & NOT_ABCD)
    return x


cdef inline void full_lines(u64 filled, u64* h, u64* v, u64* d9, u64* d7) noexcept nogil:
    """Squares whose row, column and two diagonals are completely filled (outside = filled)."""
    cdef u64 t = filled & (filled >> 4)
    t &= t >> 2
    t &= t >> 1
    h[0] = (t & FILE_A) * 0xFFULL
    t = filled & (filled >> 32)
    t &= t >> 16
    t &= t >> 8
    v[0] = (t & 0xFFULL) * FILE_A
    d9[0] = ~spread_diag9(~filled)
    d7[0] = ~spread_diag7(~filled)


cdef inline u64 stable_discs(u64 P, u64 outside, u64 h0, u64 v0, u64 d90, u64 d70) noexcept nogil:
    """Discs of P that can never be flipped: on each of the four axes the line is full, or a
    neighbour along it is a wall or a stable disc of P. h0.. are full lines plus walls."""
    cdef u64 s = 0, x, ns
    while True:
        x = s | outside
        ns = P & (h0 | ((x << 1) & NOT_A) | ((x >> 1) & NOT_H)) & (v0 | (x << 8) | (x >> 8)) \
            & (d90 | ((x << 9) & NOT_A) | ((x >> 9) & NOT_H)) \
            & (d70 | ((x << 7) & NOT_H) | ((x >> 7) & NOT_A))
        if ns == s:
            return s
        s = ns


cdef inline void stable_both(EvalCtx* c, u64 P, u64 O, int* sp, int* so) noexcept nogil:
    """Counts of stable discs of P and of O (0 and 0 while every corner is empty)."""
    cdef u64 h, v, d9, d7, outside
    cdef u64 walls_h = FILE_A | FILE_H, walls_v = RANK_1 | RANK_8
    if ((P | O) & c.corners) == 0:
        sp[0] = 0
        so[0] = 0
        return
    outside = ~c.mask
    full_lines(P | O | outside, &h, &v, &d9, &d7)
    h |= walls_h
    v |= walls_v
    d9 |= walls_h | walls_v
    d7 |= walls_h | walls_v
    sp[0] = oe_popcount(stable_discs(P, outside, h, v, d9, d7))
    so[0] = oe_popcount(stable_discs(O, outside, h, v, d9, d7))


cdef inline int count_stable(EvalCtx* c, u64 P, u64 O) noexcept nogil:
    """Number of stable discs of P (used by the endgame's stability cut-off)."""
    cdef u64 h, v, d9, d7, outside
    cdef u64 walls_h = FILE_A | FILE_H, walls_v = RANK_1 | RANK_8
    if ((P | O) & c.corners) == 0:
        return 0
    outside = ~c.mask
    full_lines(P | O | outside, &h, &v, &d9, &d7)
    return oe_popcount(stable_discs(P, outside, h | walls_h, v | walls_v,
                                    d9 | walls_h | walls_v, d7 | walls_h | walls_v))


cdef int evaluate_terms(EvalCtx* c, u64 P, u64 O, u64 mP, u64 mO, int* terms) noexcept nogil:
    """Evaluation of P (to move) against O in centi-discs; mP and mO are both sides' legal moves.
    When terms is not NULL it receives the N_FEATURES weighted features (their sum is returned,
    before clamping to +-6300 so that no heuristic score reaches a proven one). With c.pattern set
    and no terms wanted, the pattern evaluation answers instead."""
    cdef u64 empty = c.mask & ~(P | O)
    cdef int ph = c.phase[oe_popcount(P | O)]
    cdef int k, t, total, sp, so, odd_p, odd_o, ne
    cdef u64 xs = 0, cs = 0, q
    cdef int f[N_FEATURES]
    if c.pattern and terms == NULL:
        return pattern_eval(P, O, mP, mO)
    f[0] = c.w[0][ph] * (oe_popcount(P) - oe_popcount(O))
    f[1] = c.w[1][ph] * (oe_popcount(mP) + oe_popcount(mP & c.corners)
                         - oe_popcount(mO) - oe_popcount(mO & c.corners))
    f[2] = c.w[2][ph] * (oe_popcount(empty & neighbours(O)) - oe_popcount(empty & neighbours(P)))
    f[3] = c.w[3][ph] * (oe_popcount(P & c.corners) - oe_popcount(O & c.corners))
    for k in range(4):
        if empty & c.corner[k]:
            xs |= c.xsq[k]
            cs |= c.csq[k]
    f[4] = c.w[4][ph] * (oe_popcount(P & xs) - oe_popcount(O & xs))
    f[5] = c.w[5][ph] * (oe_popcount(P & cs) - oe_popcount(O & cs))
    t = 0
    for k in range(N_CLASSES):
        t += c.wclass[k][ph] * (oe_popcount(P & c.klass[k]) - oe_popcount(O & c.klass[k]))
    f[6] = t
    stable_both(c, P, O, &sp, &so)
    f[7] = c.w[7][ph] * (sp - so)
    f[8] = 0
    if c.w[8][ph]:
        odd_p = 0
        odd_o = 0
        for k in range(4):
            q = empty & c.quadrant[k]
            if oe_popcount(q) & 1:
                if mP & q:
                    odd_p += 1
                if mO & q:
                    odd_o += 1
        ne = oe_popcount(empty)
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


cdef int square_order_value(EvalCtx* c, int sq):
    """Static move-ordering value of a square: corners first, X- and C-squares last."""
    cdef u64 bit = (<u64>1) << sq
    cdef int k
    if not (c.mask & bit):
        return 0
    if c.corners & bit:
        return 60
    for k in range(4):
        if c.xsq[k] & bit:
            return -40
        if c.csq[k] & bit:
            return -12
    if c.klass[0] & bit:
        return 10
    if c.klass[1] & bit:
        return 6
    if c.klass[2] & bit:
        return -6
    return 0
