# Midgame search: negamax principal-variation search to a depth, in centi-discs.
#
# With the transposition table, probcut, internal iterative deepening and move ordering.

cdef inline int floor100(int x) noexcept nogil:
    """x / 100 rounded down (the core divides as C does, towards zero)."""
    return x // 100 if x >= 0 else -((99 - x) // 100)


cdef int mid_leaf_parent(SearchState* st, board_t P, board_t O, board_t moves, int alpha, int beta,
                         int ply, bint pv) noexcept nogil:
    """Depth-1 node: every child is evaluated statically (or scored exactly if the game ends).
    On the 8x8 frame the moves are tried by the class of their square (corners first, X-squares
    last), so that a node that fails high does so after fewer evaluations."""
    cdef int sq, v, best = -SCORE_INF, stage
    cdef bint over
    cdef board_t f, cP, cO, mc, mo, m
    if ply + 1 > st.seldepth:
        st.seldepth = ply + 1
    for stage in range(LEAF_STAGES if board_t is u64 else 1):
        if board_t is u64:
            m = moves & st.order_stage[stage]
        else:
            m = moves
        while b_any(m):
            sq = b_pop(&m)
            if st.nodes >= st.check_at and poll(st):
                return 0
            st.nodes += 1
            f = b_flips(st, P, O, sq)
            cP = b_xor(O, f)
            cO = b_mover(P, f, sq)
            mc = b_moves(st, cP, cO)
            mo = b_moves(st, cO, cP)
            if board_t is u64:
                over = (mc | mo) == 0
            else:
                over = not b_any(mc) and not b_any(mo)
            if over:
                v = -terminal_score(st, cP, cO, ply + 1)
            else:
                v = -b_evaluate(st, cP, cO, mc, mo)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if pv:
                        pv_set(st, P, ply, ply, sq)
                        st.pv_len[ply] = ply + 1
                    if v >= beta:
                        return best
    return best


cdef int mid_search(SearchState* st, board_t P, board_t O, int depth, int alpha, int beta, int ply,
                    bint pv) noexcept nogil:
    """Negamax PVS score of P (to move) to depth plies within (alpha, beta), fail-soft, in
    centi-discs. A pass does not use up depth. pv nodes keep their line in st.pv[ply].
    On a wide board the move list lives in st.wide (too long for the stack) and the flips of
    each move are computed again when it is searched instead of being kept."""
    cdef board_t moves, mO, f, om
    cdef u64 key
    cdef int i, j, k, cnt, sq, v, best, bestmove, a0, tmove, ds, end, m, n, cn, lo, hi
    cdef int sqs_stack[40]
    cdef int vals_stack[40]
    cdef int* sqs
    cdef int* vals
    cdef u64 fl[40]
    cdef u64 ck
    cdef TTEntry* e
    cdef TTEntry hit
    if board_t is u64:
        if MID_SOLVE_N > 0 and -100 <= st.contempt <= 100:
            n = oe_popcount(st.mask & ~(P | O))
            if n <= MID_SOLVE_N and n <= depth + MID_SOLVE_AHEAD:
                # few empties and nearly as many plies left: the exact score costs little more
                # than the search would, and no evaluation can be wrong about it. The solver
                # counts discs: d discs are 100 * d centi-discs, a draw is the contempt (cn,
                # this node's side's), which keeps the order of the results while |cn| <= 100
                # (so the solver's best play is the best play here too). Its window is the
                # widest one in discs whose ends map at or outside (alpha, beta): alpha rounded
                # down, beta up, then moved by one when the draw's worth lies on the other side,
                # so that a score outside the window is a bound on the same side of (alpha,
                # beta). The solver polls, counts the node and keeps the line itself.
                cn = st.contempt if (ply & 1) == 0 else -st.contempt
                lo = floor100(alpha)
                if lo == 0 and cn > alpha:
                    lo = -1
                elif lo == -1 and cn <= alpha:
                    lo = 0
                hi = -floor100(-beta)
                if hi == 0 and cn < beta:
                    hi = 1
                elif hi == 1 and cn >= beta:
                    hi = 0
                v = eg_search(st, P, O, max(-100, lo), min(100, hi), ply, pv)
                return cn if v == 0 else v * 100
    if st.nodes >= st.check_at and poll(st):
        return 0
    st.nodes += 1
    if ply > st.seldepth:
        st.seldepth = ply
    if pv:
        st.pv_len[ply] = ply
    if depth >= 2:
        # this node will probe the table: start fetching its bucket now
        key = b_hash(P, O)
        tt_prefetch(st.tt, key)
    moves = b_moves(st, P, O)
    if depth <= 0 or ply >= MAX_PLY - 2:
        mO = b_moves(st, O, P)
        if not b_any(moves) and not b_any(mO):
            return terminal_score(st, P, O, ply)
        return b_evaluate(st, P, O, moves, mO)
    if not b_any(moves):
        if not b_any(b_moves(st, O, P)):
            return terminal_score(st, P, O, ply)
        v = -mid_search(st, O, P, depth, -beta, -alpha, ply + 1, pv)
        if pv and not st.aborted:
            pv_update(st, P, ply, st.pass_move)
        return v
    if alpha >= EVAL_CAP:
        # Only a proven wipeout-class score lies above the evaluation's cap, and no heuristic
        # leaf can show one: a window up there never cuts, so the subtree would be searched
        # move by move (a crushed position took 83 M nodes at depth 13). Claim "no better".
        return alpha
    if beta <= -EVAL_CAP:
        return beta
    if depth == 1:
        return mid_leaf_parent(st, P, O, moves, alpha, beta, ply, pv)

    tmove = TT_NO_MOVE
    e = tt_probe(st.tt, key, &hit)
    if e != NULL:
        tmove = e.move
        if not pv and e.depth >= depth:
            if e.lower >= beta:
                return e.lower
            if e.upper <= alpha:
                return e.upper
            if e.lower == e.upper:
                return e.lower
    if st.selective and not pv and depth >= MPC_MIN_DEPTH:
        # probcut: a shallow search far outside the window predicts the deep one's fail. Each
        # side's test runs while its bound lies within the evaluation's cap: beyond it only a
        # proven score could clear the bound, so the test would cost a search and never cut.
        # (Both tests used to stop at windows of +-60 discs, and a won position whose scores
        # lay near the cap was then searched full width: 5.6 G nodes to depth 22 at 36 empties.)
        ds = depth // 2
        if (depth - ds) & 1:
            ds -= 1
        m = MPC_MARGIN
        if board_t is u64:
            if MPC_FIT:
                m = mpc_margin[64 - b_popcount(P | O)][depth if depth < MPC_DEPTHS else MPC_DEPTHS - 1]
        if beta + m <= EVAL_CAP:
            v = mid_search(st, P, O, ds, beta + m - 1, beta + m, ply, False)
            if st.aborted:
                return 0
            if v >= beta + m:
                return beta
        if alpha - m >= -EVAL_CAP:
            v = mid_search(st, P, O, ds, alpha - m, alpha - m + 1, ply, False)
            if st.aborted:
                return 0
            if v <= alpha - m:
                return alpha
    if tmove == TT_NO_MOVE and depth >= 5:
        # internal iterative deepening: a shallower search finds a first move to try
        mid_search(st, P, O, depth - 3, alpha, beta, ply, pv)
        if st.aborted:
            return 0
        e = tt_probe(st.tt, key, &hit)
        if e != NULL:
            tmove = e.move

    if board_t is u64:
        sqs = sqs_stack
        vals = vals_stack
    else:
        # (the searches above at this ply are over: the list at this ply is free again)
        sqs = st.wide.sqs + ply * WMAX_MOVES
        vals = st.wide.vals + ply * WMAX_MOVES
    cnt = 0
    while b_any(moves):
        sq = b_pop(&moves)
        f = b_flips(st, P, O, sq)
        sqs[cnt] = sq
        if board_t is u64:
            fl[cnt] = f
        if sq == tmove:
            vals[cnt] = 1 << 28
        elif depth >= MID_SORT_SEARCH:
            # shallow search of the reply, plus the reply count (fewer is better)
            om = b_moves(st, b_xor(O, f), b_mover(P, f, sq))
            v = mid_search(st, b_xor(O, f), b_mover(P, f, sq),
                           MID_SORT_DEPTH if depth >= MID_SORT_DEEP else 0,
                           -SCORE_INF, SCORE_INF, ply + 1, False)
            if st.aborted:
                return 0
            vals[cnt] = -v - MID_SORT_MOB * (b_popcount(om) + b_corners(st, om))
        elif depth >= MID_MOB_MIN:
            # fewest replies first (a corner reply counts twice), then the square's class
            if depth >= 3:
                # (the child will probe the table: its bucket is fetched while the others are
                # sorted)
                tt_prefetch(st.tt, b_hash(b_xor(O, f), b_mover(P, f, sq)))
            om = b_moves(st, b_xor(O, f), b_mover(P, f, sq))
            vals[cnt] = b_order(st, P, sq) - MID_MOB_W * (b_popcount(om) + b_corners(st, om))
        else:
            vals[cnt] = b_order(st, P, sq)
        cnt += 1

    best = -SCORE_INF
    bestmove = TT_NO_MOVE
    a0 = alpha
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
        ck = 0
        if i > 0 and i < end and st.busy != NULL and depth >= MID_DEFER_MIN:
            ck = b_hash(b_xor(O, f), b_mover(P, f, sq))
            if busy_has(st.busy, ck):
                # another thread is in this subtree: come back to it after the others
                end -= 1
                sq = sqs[end]; sqs[end] = sqs[i]; sqs[i] = sq
                v = vals[end]; vals[end] = vals[i]; vals[i] = v
                if board_t is u64:
                    f = fl[end]; fl[end] = fl[i]; fl[i] = f
                continue
            busy_enter(st.busy, ck)
        if i == 0:
            v = -mid_search(st, b_xor(O, f), b_mover(P, f, sq), depth - 1, -beta, -alpha, ply + 1, pv)
        else:
            st.pv_len[ply + 1] = ply + 1
            v = -mid_search(st, b_xor(O, f), b_mover(P, f, sq), depth - 1, -alpha - 1, -alpha,
                            ply + 1, False)
            if pv and v > alpha and v < beta and not st.aborted:
                v = -mid_search(st, b_xor(O, f), b_mover(P, f, sq), depth - 1, -beta, -alpha,
                                ply + 1, True)
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
    if best >= beta:
        tt_store(st.tt, key, depth, best, TT_NONE, bestmove)
    elif best > a0:
        tt_store(st.tt, key, depth, best, best, bestmove)
    else:
        tt_store(st.tt, key, depth, -TT_NONE, best, bestmove)
    return best
