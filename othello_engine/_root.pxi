# Root search: one iteration over the root moves (multi-PV) and the root moves' first order.
#
# An iteration searches each root move with the midgame search to a depth or the exact solver.

cdef void root_iteration(SearchState* st, board_t P, board_t O, int depth, int alpha, int beta,
                         bint eg) noexcept nogil:
    """Search every root move once within (alpha, beta): midgame to depth (centi-discs) or, if eg,
    the exact solver (discs). The best multipv moves get exact scores (FLAG_EXACT) unless the
    window fails; the others get upper bounds. Stops early on a fail-high; st.root_done counts
    the moves searched. Moves are then sorted best first (unsearched ones last)."""
    cdef int K = st.multipv, found = 0, i, j, sq, v, a, kth
    cdef int top[64]
    cdef bint searched_pv
    cdef board_t f, cP, cO
    cdef RootMove tmp
    cdef RootMove* rm
    for i in range(st.nroot):
        st.root[i].flag = FLAG_NONE
    st.root_done = 0
    for i in range(st.nroot):
        rm = &st.root[i]
        sq = rm.move
        f = b_flips(st, P, O, sq)
        cP = b_xor(O, f)
        cO = b_mover(P, f, sq)
        a = alpha
        if found >= K and top[K - 1] > a:
            a = top[K - 1]
        st.pv_len[1] = 1
        if found < K:
            searched_pv = True
            if eg:
                v = -eg_search(st, cP, cO, -beta, -a, 1, True)
            else:
                v = -mid_search(st, cP, cO, depth - 1, -beta, -a, 1, True)
        else:
            searched_pv = False
            if eg:
                v = -eg_search(st, cP, cO, -a - 1, -a, 1, False)
            else:
                v = -mid_search(st, cP, cO, depth - 1, -a - 1, -a, 1, False)
            if v > a and v < beta and not st.aborted:
                searched_pv = True
                st.pv_len[1] = 1
                if eg:
                    v = -eg_search(st, cP, cO, -beta, -a, 1, True)
                else:
                    v = -mid_search(st, cP, cO, depth - 1, -beta, -a, 1, True)
        if st.aborted:
            break
        st.root_done = i + 1
        rm.score = v
        rm.pv[0] = sq
        rm.pv_len = 1
        if v <= a:
            rm.flag = FLAG_UPPER
        else:
            rm.flag = FLAG_LOWER if v >= beta else FLAG_EXACT
            if searched_pv:
                for j in range(1, st.pv_len[1]):
                    rm.pv[j] = pv_get(st, P, 1, j)
                rm.pv_len = st.pv_len[1] if st.pv_len[1] > 1 else 1
            if rm.flag == FLAG_EXACT:
                j = found if found < K else K - 1
                while j > 0 and top[j - 1] < v:
                    top[j] = top[j - 1]
                    j -= 1
                top[j] = v
                if found < K:
                    found += 1
            else:
                break
    # stable insertion sort: searched moves by score, unsearched ones keep their order, last
    for i in range(1, st.nroot):
        tmp = st.root[i]
        j = i
        while j > 0 and (tmp.flag != FLAG_NONE and (st.root[j - 1].flag == FLAG_NONE
                                                   or st.root[j - 1].score < tmp.score)):
            st.root[j] = st.root[j - 1]
            j -= 1
        st.root[j] = tmp


cdef void order_root(SearchState* st, board_t P, board_t O) noexcept nogil:
    """Initial root order: fewest opponent replies, then square quality."""
    cdef int i, j, sq, v
    cdef int vals_stack[64]
    cdef int* vals
    cdef board_t f, om
    cdef RootMove tmp
    if board_t is u64:
        vals = vals_stack
    else:
        vals = st.wide.root_vals
    for i in range(st.nroot):
        sq = st.root[i].move
        f = b_flips(st, P, O, sq)
        om = b_moves(st, b_xor(O, f), b_mover(P, f, sq))
        vals[i] = b_order(st, P, sq) - 16 * (b_popcount(om) + b_corners(st, om))
    for i in range(1, st.nroot):
        tmp = st.root[i]
        v = vals[i]
        j = i
        while j > 0 and vals[j - 1] < v:
            st.root[j] = st.root[j - 1]
            vals[j] = vals[j - 1]
            j -= 1
        st.root[j] = tmp
        vals[j] = v
