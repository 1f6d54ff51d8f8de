# Board operations of the search over board_t, the scores of finished games, the pv lines.
#
# One operation per width (u64, w2, w4, w11 through the fused board_t), and the access to the lines
# (pv) of each width.
#
# One search for every size: the functions below compile to the plain 64-bit expressions for u64
# (8x8 frame) and to the word-array kernels of _wide.pxi for w2, w4 and w11; `if board_t is u64`
# picks at compile time, so the 8x8 specialization is the code it was before.


cdef inline board_t b_moves(SearchState* st, board_t P, board_t O) noexcept nogil:
    if board_t is u64:
        return bb_moves(P, O, st.mask)
    else:
        return w_moves(P, O, st.geo)


cdef inline board_t b_flips(SearchState* st, board_t P, board_t O, int sq) noexcept nogil:
    if board_t is u64:
        return bb_flips(P, O, sq)
    else:
        return w_flips(P, O, sq, st.geo)


cdef inline bint b_any(board_t x) noexcept nogil:
    if board_t is u64:
        return x != 0
    else:
        return w_any(x)


cdef inline int b_pop(board_t* x) noexcept nogil:
    """Remove the lowest square of x (not empty) and return it."""
    cdef int sq
    if board_t is u64:
        sq = oe_ctz(x[0])
        x[0] &= x[0] - 1
        return sq
    else:
        return w_pop_lsb(x)


cdef inline int b_popcount(board_t x) noexcept nogil:
    if board_t is u64:
        return oe_popcount(x)
    else:
        return w_popcount(x)


cdef inline board_t b_zero(board_t like) noexcept nogil:
    """The empty board of like's width."""
    if board_t is u64:
        return 0
    else:
        return w_zero(like)


cdef inline board_t b_xor(board_t a, board_t b) noexcept nogil:
    if board_t is u64:
        return a ^ b
    else:
        return w_xor(a, b)


cdef inline board_t b_and(board_t a, board_t b) noexcept nogil:
    if board_t is u64:
        return a & b
    else:
        return w_and(a, b)


cdef inline board_t b_mover(board_t P, board_t f, int sq) noexcept nogil:
    """The mover's discs after playing sq with flips f: P ^ f ^ bit(sq)."""
    if board_t is u64:
        return P ^ f ^ ((<u64>1) << sq)
    else:
        P = w_xor(P, f)
        P.w[sq >> 6] ^= (<u64>1) << (sq & 63)
        return P


cdef inline bint b_test(board_t x, int sq) noexcept nogil:
    if board_t is u64:
        return (x >> sq) & 1
    else:
        return w_test(&x, sq)


cdef inline board_t b_clear(board_t x, int sq) noexcept nogil:
    if board_t is u64:
        return x & ~((<u64>1) << sq)
    else:
        x.w[sq >> 6] &= ~((<u64>1) << (sq & 63))
        return x


cdef inline u64 b_hash(board_t P, board_t O) noexcept nogil:
    """64-bit hash of the position (never 0)."""
    cdef u64 h
    cdef int i
    if board_t is u64:
        return position_hash(P, O)
    else:
        h = 0x243F6A8885A308D3ULL
        for i in range(<int>(sizeof(P.w) // 8)):
            h = (h ^ P.w[i]) * 0x9E3779B97F4A7C15ULL
            h ^= h >> 29
            h = (h ^ O.w[i]) * 0xC2B2AE3D27D4EB4FULL
            h ^= h >> 32
        h *= 0xD6E8FEB86659FD93ULL
        h ^= h >> 32
        return h | 1


cdef inline int b_corners(SearchState* st, board_t x) noexcept nogil:
    """Number of corner squares in x."""
    if board_t is u64:
        return oe_popcount(x & st.ev.corners)
    else:
        return w_corner_count(st.wev, x)


cdef inline int b_order(SearchState* st, board_t like, int sq) noexcept nogil:
    if board_t is u64:
        return st.order[sq]
    else:
        return st.wev.order[sq]


cdef inline int b_evaluate(SearchState* st, board_t P, board_t O, board_t mP, board_t mO) noexcept nogil:
    if st.pn != NULL:        # a learned evaluation of another size than 8x8 (st.pn is NULL on 8x8)
        return pn_evaluate(st.pn, st.geo, P, O, mP, mO)
    if board_t is u64:
        return evaluate_terms(&st.ev, P, O, mP, mO, NULL)
    else:
        return w_evaluate_terms(st.wev, st.geo, P, O, mP, mO, NULL)


cdef inline int b_empties(SearchState* st, board_t P, board_t O) noexcept nogil:
    if board_t is u64:
        return oe_popcount(st.mask & ~(P | O))
    else:
        return st.squares - w_popcount(P) - w_popcount(O)


cdef inline int b_count_stable(SearchState* st, board_t P, board_t O) noexcept nogil:
    if board_t is u64:
        return count_stable(&st.ev, P, O)
    else:
        return w_count_stable(st.wev, st.geo, P, O)


cdef int final_score(u64 P, u64 O, u64 mask) noexcept nogil:
    """Final disc difference for P in centi-discs, empties going to the winner."""
    cdef int p = oe_popcount(P), o = oe_popcount(O)
    cdef int e = oe_popcount(mask) - p - o
    if p > o:
        return 100 * (p - o + e)
    if p < o:
        return 100 * (p - o - e)
    return 0


cdef inline int terminal_score(SearchState* st, board_t P, board_t O, int ply) noexcept nogil:
    """Score of a finished game for P at ply (a draw is worth the contempt to the root side)."""
    cdef int s, p, o, e
    if board_t is u64:
        s = final_score(P, O, st.mask)
    else:
        p = w_popcount(P)
        o = w_popcount(O)
        e = st.squares - p - o
        s = 100 * (p - o + e) if p > o else (100 * (p - o - e) if p < o else 0)
    if s == 0:
        return st.contempt if (ply & 1) == 0 else -st.contempt
    return s


cdef inline void pv_set(SearchState* st, board_t like, int ply, int j, int sq) noexcept nogil:
    """Square j of the line of ply: st.pv on 8x8 (bytes, as compact as before the wide boards),
    st.wide.pv on wide boards."""
    if board_t is u64:
        st.pv[ply][j] = sq
    else:
        st.wide.pv[ply][j] = sq


cdef inline int pv_get(SearchState* st, board_t like, int ply, int j) noexcept nogil:
    if board_t is u64:
        return st.pv[ply][j]
    else:
        return st.wide.pv[ply][j]


cdef inline void pv_update(SearchState* st, board_t like, int ply, int sq) noexcept nogil:
    cdef int j
    pv_set(st, like, ply, ply, sq)
    for j in range(ply + 1, st.pv_len[ply + 1]):
        pv_set(st, like, ply, j, pv_get(st, like, ply + 1, j))
    st.pv_len[ply] = st.pv_len[ply + 1] if st.pv_len[ply + 1] > ply + 1 else ply + 1
