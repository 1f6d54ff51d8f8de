# Endgame solver: exact final disc difference (or win/loss/draw with a (-1, 1) window), in discs.
#
# eg_search: principal-variation search with the transposition table (from EG_TT_MIN empties),
#            fastest-first ordering (fewest opponent replies, corners counted twice; with the
#            pattern evaluation, from EG_SORT_EVAL empties on (EG_SORT_EVAL_N on other sizes),
#            the child's evaluation, or a depth-1 search from EG_SORT_D1, less the replies and,
#            on the 8x8 board, the opponent's potential mobility), parity as a tie-break and a
#            stability cut-off in null-window nodes. Table buckets are prefetched
#            (every child's before the moves' sort values are computed, all children's for the
#            enhanced transposition cut-off), so that the cache misses overlap with work.
# eg_shallow: the last EG_SHALLOW empties, null-window nodes only: no table, no sorting, the
#            stability cut-off from EG_STAB_SH empties, moves
#            in odd-parity quadrants first (the parity kept up to date move by move), corners
#            first and X-squares last within a parity, only squares next to an opponent disc tried.
# eg_last3, eg_last2, eg_last1: the last three empties by parity order alone, the last two without
#            recursion, the last one by counting flips.

cdef enum:
    EG_INF = 200

# The table from EG_TT_MIN empties on. A solved entry's depth is TT_SOLVED plus its empties
# (EG_TT_BY_N = 1), so that replacement keeps the larger subtrees: with the table from 7 empties,
# FFO #40-#49 took 42.4 s CPU instead of 51.5 s (64 MiB) and 37.7 s instead of 48.8 s (16 MiB),
# one thread, 2026-11-27.
cdef int EG_SHALLOW = 5
cdef int EG_TT_MIN = 7
cdef int EG_W_POT = 0
cdef int EG_W_STAB = 0

# From how many empties moves are sorted by a static evaluation, a depth-1 and a depth-2 search
# (each less the opponent's mobility) instead of by the opponent's mobility alone, with the
# pattern evaluation only (tunable with _set_tuning for experiments). FFO #40-#49, one thread:
# 3.84 G nodes and 79.9 s CPU without, 1.89 G and 42.9 s with the thresholds 16 and 18; with
# the classic evaluation it did not pay (103 s against 106 s on #45, #48 and #49). With the table
# from 7 empties (2026-11-27, 16 MiB): depth-1 searches from 16 empties instead of 18 and the
# stability cut-off from 6 empties (not 8) and when alpha is 8 discs or more (not 16) took FFO
# #40-#49 from 34.3-35.2 s to 30.8 s CPU. On 8x8, with the sort value below (2 discs a reply and
# the potential mobility), the static evaluation pays from 12 empties (2026-11-30, one thread,
# 64 MiB): FFO #40-#59 21.36 G nodes and 664 s CPU against 26.50 G and 716 s; 30, 100 and 200
# held-out WTHOR positions at 26, 22 and 20 empties 6.56 G, 1.370 G and 0.628 G nodes against
# 8.13 G, 1.466 G and 0.665 G (14: FFO #40-#49 697 M nodes against 632 M; 10 and 11: fewer nodes
# but more time, as for depth-1 searches from 14 or 15). On 6x6 it took the start's solve from
# 68.6 s to 81.5 s (1.70 G nodes to 1.43 G: its evaluation costs more), so other sizes keep 16.
cdef int EG_SORT_EVAL = 12       # on 8x8
cdef int EG_SORT_EVAL_N = 16     # on the other sizes
cdef int EG_SORT_D1 = 16
cdef int EG_SORT_D2 = 99
cdef int EG_SORT_STEP = 99       # from EG_SORT_D2 on, one ply deeper every EG_SORT_STEP empties
cdef int EG_STAB_MIN = 6
# The shallow solver's stability cut-off, from EG_STAB_SH empties (the same alpha threshold):
# FFO #40-#49 1.24 G nodes and 30.4 s without, 1.06 G and 29.4 s from 4 empties (2026-11-27).
cdef int EG_STAB_SH = 4
cdef int EG_ETC_MIN = 12
cdef int EG_IID_MIN = 99
cdef int EG_IID_DEPTH = 2
# From EG_SORT_EVAL empties, a move's sort value is the child's (searched) evaluation in
# centi-discs less EG_SORT_MOBW for each reply the opponent gets (a corner reply counting twice).
# 200 against the 32 of before (2026-11-29, FFO one thread, nodes): #40-#49 865 M against 1,021 M
# (64: 989 M, 100: 879 M, 300: 851 M, 500: 893 M, 1000: 1,194 M); #50-#53 4.23 G against 4.97 G;
# #54-#59 25.0 G against 35.4 G (#55 12.9 G against 20.1 G). The fastest-first part of the order
# pays more than the evaluation's guess of the best move: searches of depth 2 or an iterative
# deepening to find the first move took more nodes, not fewer.
cdef int EG_SORT_MOBW = 200
# From EG_SORT_EVAL empties, the sort value also loses EG_SORT_POT for each empty square next to a
# disc of the mover after the move (the opponent's potential mobility): a move that leaves the
# opponent fewer squares to reach is likelier to be a cheap refutation. 100 against 0 (2026-11-30,
# one thread, nodes): FFO #40-#54 and #56-#59 13.14 G against 13.82 G, #55 13.36 G against 16.41 G
# (463 s to 345 s), 30 positions of the held-out WTHOR games at 26 empties 8.13 G against 8.61 G
# (50: 13.28 G on the FFO set, 70: 8.20 G at 26 empties, 130: 8.14 G, 150 and 200: 14.12 G and
# 14.98 G on the FFO set); at 22 empties and on FFO #20-#39 the same nodes to 0.5%. The same term
# below EG_SORT_EVAL (EG_W_POT 4 or 8, the reply weight there being 16) and a parity or corner
# stability bonus here did not pay. On 8x8 only: it took the 6x6 start's solve from 1.70 G nodes
# to 3.73 G (`python scripts/solve_6x6.py`).
cdef int EG_SORT_POT = 100
# The stability cut-off is tried once alpha is EG_STAB_ALPHA discs per 64 squares or more: 4 (not
# 8) with the sort above took FFO #40-#49 from 865 M nodes and 25.5 s to 771 M and 24.1-24.6 s,
# #50-#53 from 4.23 G and 125.9 s to 3.95 G and 122.9 s (2026-11-29; 0: 765 M nodes but 23.9-26.1 s,
# -4: 27.9 s; the count of stable discs costs more than it saves there).
cdef int EG_STAB_ALPHA = 4
cdef int EG_TT_BY_N = 1


cdef int* eg_knob(str name):
    """The endgame knob called name (NULL: no such knob)."""
    if name == "stab_sh":
        return &EG_STAB_SH
    elif name == "sort_step":
        return &EG_SORT_STEP
    elif name == "tt_by_n":
        return &EG_TT_BY_N
    elif name == "sort_mobw":
        return &EG_SORT_MOBW
    elif name == "sort_pot":
        return &EG_SORT_POT
    elif name == "iid_min":
        return &EG_IID_MIN
    elif name == "iid_depth":
        return &EG_IID_DEPTH
    elif name == "etc_min":
        return &EG_ETC_MIN
    elif name == "stab_alpha":
        return &EG_STAB_ALPHA
    elif name == "shallow":
        return &EG_SHALLOW
    elif name == "tt_min":
        return &EG_TT_MIN
    elif name == "w_pot":
        return &EG_W_POT
    elif name == "w_stab":
        return &EG_W_STAB
    elif name == "sort_eval":
        return &EG_SORT_EVAL
    elif name == "sort_eval_n":
        return &EG_SORT_EVAL_N
    elif name == "sort_d1":
        return &EG_SORT_D1
    elif name == "sort_d2":
        return &EG_SORT_D2
    elif name == "stab_min":
        return &EG_STAB_MIN
    return NULL


# EG_NEIGHBOURS[sq]: the squares next to sq; a move at sq must flip, so it needs one of them
cdef u64 EG_NEIGHBOURS[64]
for _sq in range(64):
    EG_NEIGHBOURS[_sq] = 0
    for _dr in (-1, 0, 1):
        for _dc in (-1, 0, 1):
            if (_dr or _dc) and 0 <= _sq // 8 + _dr < 8 and 0 <= _sq % 8 + _dc < 8:
                EG_NEIGHBOURS[_sq] |= (<u64>1) << ((_sq // 8 + _dr) * 8 + _sq % 8 + _dc)


# The last empty square of a full 8x8 board: every other square is a disc, so the discs a move
# there flips depend on the mover's discs alone. With BMI2, the four lines through the square are
# gathered with pext and a table gives the count of flips on each (OE_LAST_COUNT[place of the square
# in its line][the mover's discs on the line]); without, the flips are computed (bb_flips).
cdef extern from *:
    """
    #if defined(__BMI2__) && !defined(OE_NO_PEXT)
    #include <immintrin.h>
    #define OE_LAST_PEXT 1
    static unsigned long long oe_last_line[64][4];
    static unsigned char oe_last_place[64][4];
    static unsigned char oe_last_count[8][256];
    static void oe_last_init(void) {
        static const int dr[4] = {0, 1, 1, 1}, dc[4] = {1, 0, 1, -1};
        for (int sq = 0; sq < 64; sq++)
            for (int d = 0; d < 4; d++) {
                unsigned long long line = 1ULL << sq;
                int r, c, before = 0;
                for (r = sq / 8 + dr[d], c = sq % 8 + dc[d]; r >= 0 && r < 8 && c >= 0 && c < 8;
                     r += dr[d], c += dc[d])
                    line |= 1ULL << (r * 8 + c);
                for (r = sq / 8 - dr[d], c = sq % 8 - dc[d]; r >= 0 && r < 8 && c >= 0 && c < 8;
                     r -= dr[d], c -= dc[d]) {
                    line |= 1ULL << (r * 8 + c);
                }
                /* the square's place in the line's bit order: the line squares below it */
                before = __builtin_popcountll(line & ((1ULL << sq) - 1));
                oe_last_line[sq][d] = line;
                oe_last_place[sq][d] = (unsigned char)before;
            }
        for (int k = 0; k < 8; k++)
            for (int b = 0; b < 256; b++) {
                int n = 0, i, run;
                for (run = 0, i = k + 1; i < 8 && !(b >> i & 1); i++) run++;
                if (i < 8) n += run;
                for (run = 0, i = k - 1; i >= 0 && !(b >> i & 1); i--) run++;
                if (i >= 0) n += run;
                oe_last_count[k][b] = (unsigned char)n;
            }
    }
    /* the discs P flips at sq on a full board but sq (bits above a line's end read as "no disc of
       P", which ends the run without a flip, as the board's edge does) */
    static inline int oe_last_flips(unsigned long long P, int sq) {
        return oe_last_count[oe_last_place[sq][0]][_pext_u64(P, oe_last_line[sq][0])]
             + oe_last_count[oe_last_place[sq][1]][_pext_u64(P, oe_last_line[sq][1])]
             + oe_last_count[oe_last_place[sq][2]][_pext_u64(P, oe_last_line[sq][2])]
             + oe_last_count[oe_last_place[sq][3]][_pext_u64(P, oe_last_line[sq][3])];
    }
    #else
    #define OE_LAST_PEXT 0
    static void oe_last_init(void) {}
    static inline int oe_last_flips(unsigned long long P, int sq) { return 0; }
    #endif
    """
    const int OE_LAST_PEXT
    void oe_last_init() nogil
    int oe_last_flips(u64 P, int sq) noexcept nogil

oe_last_init()


cdef inline int final_discs(u64 P, u64 O) noexcept nogil:
    """Final disc difference for P (the empties of a finished game go to the winner)."""
    cdef int p = oe_popcount(P), o = oe_popcount(O)
    return p - o


cdef inline int final_discs_with_empties(u64 P, u64 O, int empties) noexcept nogil:
    cdef int d = oe_popcount(P) - oe_popcount(O)
    if d > 0:
        return d + empties
    if d < 0:
        return d - empties
    return 0


cdef inline int eg_last1(SearchState* st, u64 P, u64 O, int sq) noexcept nogil:
    """Exact score for P with one empty square sq left."""
    cdef int p = oe_popcount(P), t = st.squares, n, d
    cdef u64 f
    st.nodes += 1
    if OE_LAST_PEXT and t == 64:
        n = oe_last_flips(P, sq)
        if n:
            return 2 * (p + n + 1) - 64
        n = oe_last_flips(O, sq)
        if n:
            return 2 * (p - n) - 64
        d = 2 * p - 63
        return d + 1 if d > 0 else d - 1
    f = bb_flips(P, O, sq) if O & EG_NEIGHBOURS[sq] else 0
    if f:
        return 2 * (p + oe_popcount(f) + 1) - t
    f = bb_flips(O, P, sq) if P & EG_NEIGHBOURS[sq] else 0
    if f:
        return 2 * (p - oe_popcount(f)) - t
    d = 2 * p - t + 1
    if d > 0:
        return d + 1
    if d < 0:
        return d - 1
    return 0


cdef int eg_last2(SearchState* st, u64 P, u64 O, int x, int y, int beta) noexcept nogil:
    """Exact score for P with the two empty squares x and y left (fail-soft above beta)."""
    cdef u64 f, bx = (<u64>1) << x, by = (<u64>1) << y
    cdef int best = -EG_INF, v
    st.nodes += 1
    f = bb_flips(P, O, x) if O & EG_NEIGHBOURS[x] else 0
    if f:
        best = -eg_last1(st, O ^ f, P ^ f ^ bx, y)
        if best >= beta:
            return best
    f = bb_flips(P, O, y) if O & EG_NEIGHBOURS[y] else 0
    if f:
        v = -eg_last1(st, O ^ f, P ^ f ^ by, x)
        if v > best:
            best = v
    if best != -EG_INF:
        return best
    # P passes: O's best reply, then P has the last square
    st.nodes += 1
    f = bb_flips(O, P, x)
    if f:
        best = -eg_last1(st, P ^ f, O ^ f ^ bx, y)
    f = bb_flips(O, P, y)
    if f:
        v = -eg_last1(st, P ^ f, O ^ f ^ by, x)
        if v > best:
            best = v
    if best == -EG_INF:
        return final_discs_with_empties(P, O, 2)
    return -best


cdef int eg_last3(SearchState* st, u64 P, u64 O, u64 E, u64 odd, int alpha,
                  int beta) noexcept nogil:
    """Exact score for P with the three empty squares E left (fail-soft), squares in an
    odd-parity quadrant first."""
    cdef int sq[3]
    cdef int k = 0, i, v, best = -EG_INF, x
    cdef u64 m, f, bit
    m = E & odd
    while m:
        sq[k] = oe_ctz(m)
        m &= m - 1
        k += 1
    m = E & ~odd
    while m:
        sq[k] = oe_ctz(m)
        m &= m - 1
        k += 1
    st.nodes += 1
    for i in range(3):
        x = sq[i]
        if O & EG_NEIGHBOURS[x]:
            f = bb_flips(P, O, x)
            if f:
                bit = (<u64>1) << x
                v = -eg_last2(st, O ^ f, P ^ f ^ bit, sq[(i + 1) % 3], sq[(i + 2) % 3], -alpha)
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if v >= beta:
                            return v
    if best != -EG_INF:
        return best
    # P passes: O's best reply (O's own score v) decides, within O's window (-beta, -alpha)
    st.nodes += 1
    for i in range(3):
        x = sq[i]
        if P & EG_NEIGHBOURS[x]:
            f = bb_flips(O, P, x)
            if f:
                bit = (<u64>1) << x
                v = -eg_last2(st, P ^ f, O ^ f ^ bit, sq[(i + 1) % 3], sq[(i + 2) % 3], beta)
                if v > best:
                    best = v
                    if v >= -alpha:
                        return -v
    if best == -EG_INF:
        return final_discs_with_empties(P, O, 3)
    return -best


cdef inline u64 odd_quadrants(SearchState* st, u64 E) noexcept nogil:
    """The empty squares of E that lie in a quadrant with an odd number of empties."""
    cdef u64 odd = 0, q
    cdef int k
    for k in range(4):
        q = E & st.ev.quadrant[k]
        if oe_popcount(q) & 1:
            odd |= q
    return odd


cdef inline int stability_cut(SearchState* st, board_t P, board_t O, int alpha) noexcept nogil:
    """The stability cut-off of a node of P to move: P can not end above squares - 2 * (O's stable
    discs). That bound when it is at most alpha (tried once alpha is EG_STAB_ALPHA discs per 64
    squares or more), else EG_INF: no cut."""
    cdef int bound
    if alpha < st.squares * EG_STAB_ALPHA // 64:
        return EG_INF
    bound = st.squares - 2 * b_count_stable(st, O, P)
    return bound if bound <= alpha else EG_INF


cdef int eg_shallow(SearchState* st, u64 P, u64 O, u64 E, u64 odd, int n, int alpha,
                    int beta) noexcept nogil:
    """Null-window or narrow solve of the last few empties E (n of them) for P: odd-parity
    quadrants first (odd: the empties in them, kept up to date move by move), and within each
    parity corners first and X-squares last."""
    cdef u64 m, f, bit, part, cand
    cdef int k, sq, v, best = -EG_INF, moved = 0, stage
    if n == 3:
        return eg_last3(st, P, O, E, odd, alpha, beta)
    if n == 2:
        sq = oe_ctz(E)
        return eg_last2(st, P, O, sq, oe_ctz(E & (E - 1)), beta)
    if n == 1:
        return eg_last1(st, P, O, oe_ctz(E))
    if st.nodes >= st.check_at and poll(st):
        return 0
    st.nodes += 1
    if n >= EG_STAB_SH:
        v = stability_cut(st, P, O, alpha)
        if v != EG_INF:
            return v
    cand = E & neighbours(O)
    for stage in range(6):
        part = (odd if stage < 3 else E & ~odd) & cand
        k = stage % 3
        if k == 0:
            m = part & st.ev.corners
        elif k == 1:
            m = part & ~st.ev.corners & ~st.xs_all
        else:
            m = part & st.xs_all
        while m:
            sq = oe_ctz(m)
            m &= m - 1
            f = bb_flips(P, O, sq)
            if f == 0:
                continue
            moved = 1
            bit = (<u64>1) << sq
            v = -eg_shallow(st, O ^ f, P ^ f ^ bit, E ^ bit, odd ^ st.quad_of[sq], n - 1,
                            -beta, -alpha)
            if st.aborted:
                return 0
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        return v
    if not moved:
        if bb_moves(O, P, st.mask) == 0:
            return final_discs_with_empties(P, O, n)
        return -eg_shallow(st, O, P, E, odd, n, -beta, -alpha)
    return best


cdef inline int final_discs_with_empties_n(int p, int o, int empties) noexcept nogil:
    cdef int d = p - o
    if d > 0:
        return d + empties
    if d < 0:
        return d - empties
    return 0


cdef int eg_search(SearchState* st, board_t P, board_t O, int alpha, int beta, int ply,
                   bint pv) noexcept nogil:
    """Exact score of P (to move) within (alpha, beta), fail-soft, in discs. pv nodes keep the
    principal variation in st.pv[ply]. On wide boards the 8x8-only parts are left out (the
    last-empties routines, the enhanced transposition cut-off, quadrant parity in the order):
    the search goes down to the last empty square itself, with its move lists in st.wide."""
    cdef u64 E = 0
    cdef int n
    cdef board_t moves, f, om, cP, cO, m
    cdef u64 key = 0
    cdef int i, j, k, cnt, sq, v, best, bestmove, a0, tmove, lower, upper, first, end, sort_from
    cdef int nmoves
    cdef bint on_8x8 = st.squares == 64
    cdef int sqs_stack[40]
    cdef int vals_stack[40]
    cdef int* sqs
    cdef int* vals
    cdef u64 fl[40]
    cdef u64 keys[40]
    cdef u64 odd = 0, ck
    cdef TTEntry* e
    cdef TTEntry hit
    if board_t is u64:
        E = st.mask & ~(P | O)
        n = oe_popcount(E)
        if not pv and n <= EG_SHALLOW:
            return eg_shallow(st, P, O, E, odd_quadrants(st, E), n, alpha, beta)
    else:
        n = b_empties(st, P, O)
    if st.nodes >= st.check_at and poll(st):
        return 0
    st.nodes += 1
    if ply > st.seldepth:
        st.seldepth = ply
    if pv:
        st.pv_len[ply] = ply
    if n >= EG_TT_MIN:
        key = b_hash(P, O)
        tt_prefetch(st.tt, key)
    moves = b_moves(st, P, O)
    if not b_any(moves):
        if not b_any(b_moves(st, O, P)):
            return final_discs_with_empties_n(b_popcount(P), b_popcount(O), n)
        v = -eg_search(st, O, P, -beta, -alpha, ply + 1, pv)
        if pv and not st.aborted:
            pv_update(st, P, ply, st.pass_move)
        return v
    if not pv and n >= EG_STAB_MIN:
        v = stability_cut(st, P, O, alpha)
        if v != EG_INF:
            return v
    tmove = TT_NO_MOVE
    if n >= EG_TT_MIN:
        e = tt_probe(st.tt, key, &hit)
        if e != NULL:
            tmove = e.move
            if e.depth >= TT_SOLVED and not pv:
                lower = e.lower // 100
                upper = e.upper // 100
                if lower >= beta:
                    return lower
                if upper <= alpha:
                    return upper
                if lower == upper:
                    return lower
    if tmove == TT_NO_MOVE and n >= EG_IID_MIN:
        # no move from the table: a shallow midgame search finds one
        if key == 0:
            key = b_hash(P, O)
        mid_search(st, P, O, EG_IID_DEPTH, -SCORE_INF, SCORE_INF, ply, False)
        if st.aborted:
            return 0
        e = tt_probe(st.tt, key, &hit)
        if e != NULL:
            tmove = e.move
    if board_t is u64:
        if not pv and n >= EG_ETC_MIN:
            # enhanced transposition cut-off: a child already proven bad enough for O cuts here
            # (every child's bucket is fetched first, so that the cache misses overlap)
            cnt = 0
            m = moves
            while m:
                sq = oe_ctz(m)
                m &= m - 1
                f = bb_flips(P, O, sq)
                keys[cnt] = position_hash(O ^ f, P ^ f ^ ((<u64>1) << sq))
                tt_prefetch(st.tt, keys[cnt])
                cnt += 1
            for i in range(cnt):
                e = tt_probe(st.tt, keys[i], &hit)
                if e != NULL and e.depth >= TT_SOLVED and e.upper != TT_NONE:
                    v = -(e.upper // 100)
                    if v >= beta:
                        return v
        odd = odd_quadrants(st, E)
    best = -EG_INF
    bestmove = TT_NO_MOVE
    a0 = alpha
    first = 1
    if tmove < st.pass_move and b_test(moves, tmove):
        # the table's move first, before the cost of sorting the others
        sq = tmove
        f = b_flips(st, P, O, sq)
        v = -eg_search(st, b_xor(O, f), b_mover(P, f, sq), -beta, -alpha, ply + 1, pv)
        if st.aborted:
            return 0
        first = 0
        moves = b_clear(moves, sq)
        best = v
        bestmove = sq
        if v > alpha:
            alpha = v
            if pv:
                pv_update(st, P, ply, sq)
            if v >= beta:
                moves = b_zero(moves)
    if board_t is u64:
        sqs = sqs_stack
        vals = vals_stack
    else:
        sqs = st.wide.sqs + ply * WMAX_MOVES
        vals = st.wide.vals + ply * WMAX_MOVES
    sort_from = EG_SORT_EVAL if on_8x8 else EG_SORT_EVAL_N
    cnt = 0
    if board_t is u64:
        # every child's flips first, and its bucket fetched when it will probe the table, so
        # that each fetch has the whole sort below to arrive in
        while moves:
            sq = oe_ctz(moves)
            moves &= moves - 1
            f = bb_flips(P, O, sq)
            sqs[cnt] = sq
            fl[cnt] = f
            if n > EG_TT_MIN:
                tt_prefetch(st.tt, position_hash(O ^ f, P ^ f ^ ((<u64>1) << sq)))
            cnt += 1
        nmoves = cnt
    else:
        nmoves = b_popcount(moves)
    cnt = 0
    while cnt < nmoves:
        if board_t is u64:
            sq = sqs[cnt]
            f = fl[cnt]
        else:
            sq = b_pop(&moves)
            f = b_flips(st, P, O, sq)
            sqs[cnt] = sq
        cP = b_xor(O, f)
        cO = b_mover(P, f, sq)
        if board_t is not u64:
            if n > EG_TT_MIN:
                # the child will probe the table: start fetching its bucket now
                tt_prefetch(st.tt, b_hash(cP, cO))
        om = b_moves(st, cP, cO)
        if n >= sort_from and (st.ev.pattern or st.pn != NULL):
            if n >= EG_SORT_D2:
                v = mid_search(st, cP, cO, 2 + (n - EG_SORT_D2) // EG_SORT_STEP, -SCORE_INF,
                               SCORE_INF, ply + 1, False)
            elif n >= EG_SORT_D1:
                v = mid_search(st, cP, cO, 1, -SCORE_INF, SCORE_INF, ply + 1, False)
            else:
                v = b_evaluate(st, cP, cO, om, b_moves(st, cO, cP))
            if st.aborted:
                return 0
            vals[cnt] = -v - EG_SORT_MOBW * (b_popcount(om) + b_corners(st, om))
            if board_t is u64:
                if on_8x8:
                    vals[cnt] -= EG_SORT_POT * oe_popcount(E & ~((<u64>1) << sq) & neighbours(cO))
        else:
            if board_t is u64:
                vals[cnt] = (-16 * (oe_popcount(om) + oe_popcount(om & st.ev.corners))
                             + (2 if (odd >> sq) & 1 else 0) + st.order[sq] // 8)
                if EG_W_POT:
                    vals[cnt] -= EG_W_POT * oe_popcount(E & ~((<u64>1) << sq) & neighbours(cO))
                if EG_W_STAB:
                    vals[cnt] += EG_W_STAB * oe_popcount(corner_stable(cO))
            else:
                vals[cnt] = -16 * (b_popcount(om) + b_corners(st, om)) + b_order(st, P, sq) // 8
        cnt += 1
    # moves [end, cnt) are deferred ones, searched last (only with several threads)
    end = cnt
    i = 0
    while i < cnt:
        if i < end:
            k = i
            for j in range(i + 1, end):
                if vals[j] > vals[k]:
                    k = j
            if k != i:
                sq = sqs[k]; sqs[k] = sqs[i]; sqs[i] = sq
                v = vals[k]; vals[k] = vals[i]; vals[i] = v
                if board_t is u64:
                    f = fl[k]; fl[k] = fl[i]; fl[i] = f
        sq = sqs[i]
        if board_t is u64:
            f = fl[i]
        else:
            f = b_flips(st, P, O, sq)
        cP = b_xor(O, f)
        cO = b_mover(P, f, sq)
        ck = 0
        if not first and i < end and st.busy != NULL and n >= EG_DEFER_MIN:
            ck = b_hash(cP, cO)
            if busy_has(st.busy, ck):
                # another thread is in this subtree: come back to it after the others
                end -= 1
                sq = sqs[end]; sqs[end] = sqs[i]; sqs[i] = sq
                v = vals[end]; vals[end] = vals[i]; vals[i] = v
                if board_t is u64:
                    f = fl[end]; fl[end] = fl[i]; fl[i] = f
                continue
            busy_enter(st.busy, ck)
        if first:
            first = 0
            v = -eg_search(st, cP, cO, -beta, -alpha, ply + 1, pv)
        else:
            st.pv_len[ply + 1] = ply + 1
            v = -eg_search(st, cP, cO, -alpha - 1, -alpha, ply + 1, False)
            if pv and v > alpha and v < beta and not st.aborted:
                v = -eg_search(st, cP, cO, -beta, -alpha, ply + 1, True)
        if ck:
            busy_leave(st.busy, ck)
        i += 1
        if st.aborted:
            return 0
        if v > best:
            best = v
            bestmove = sq
            if v > alpha:
                alpha = v
                if pv:
                    pv_update(st, P, ply, sq)
                if v >= beta:
                    break
    if n >= EG_TT_MIN:
        if best >= beta:
            tt_store(st.tt, key, TT_SOLVED + n * EG_TT_BY_N, 100 * best, TT_NONE, bestmove)
        elif best > a0:
            tt_store(st.tt, key, TT_SOLVED + n * EG_TT_BY_N, 100 * best, 100 * best, bestmove)
        else:
            tt_store(st.tt, key, TT_SOLVED + n * EG_TT_BY_N, -TT_NONE, 100 * best, bestmove)
    return best
