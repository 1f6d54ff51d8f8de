# Search: negamax principal-variation search with iterative deepening, aspiration windows, a
# transposition table and multi-PV at the root; hands over to the endgame solver near the end.
# Included by _core.pyx after _bitboard.pxi; includes the evaluation, the table and the solver.
#
# Units: the midgame search scores in centi-discs from the side to move (a finished game scores
# 100 * its final disc difference, a draw scores the contempt from the root side's view); the
# endgame solver scores in discs and the root converts. All kernels run without the GIL and poll
# the stop flag, the node limit and the hard time every POLL_NODES nodes.
#
# Threads: each search thread has its own SearchState (pv, counters, evaluation context) and all
# share the table, the stop flag and a node counter. The helpers run the main thread's iterations
# alongside it (as in lazy SMP, but on the same depth: one ply deeper cost more nodes to a depth),
# and every thread defers a move whose subtree another thread is searching (a "busy" table of
# positions, as in simplified ABDADA), so that the threads split the tree instead of repeating
# one another. Only the main thread's results are reported.

from libc.stdlib cimport calloc
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

include "_eval.pxi"
include "_wide_eval.pxi"
include "_tt.pxi"

cdef enum:
    MAX_PLY = 128
    SCORE_INF = 30000
    POLL_NODES = 1024
    FLAG_NONE = 0
    FLAG_UPPER = 1
    FLAG_EXACT = 2
    FLAG_LOWER = 3
    SOLVE_AUTO = 0
    SOLVE_EXACT = 1
    SOLVE_WLD = 2
    MAX_THREADS = 256
    BUSY_SIZE = 1 << 14         # slots of the table of subtrees being searched (4 per bucket)
    WIDE_SOLVE_MAX = 60         # most empties a wide board is solved with (as 8x8: 2 * 60 < MAX_PLY)


# Midgame ordering: from MID_SORT_SEARCH plies left, moves are sorted by a static evaluation
# of the reply (from MID_SORT_DEEP, by a MID_SORT_DEPTH search) minus MID_SORT_MOB per reply.
cdef int MID_SORT_SEARCH = 99
cdef int MID_SORT_DEEP = 99
cdef int MID_SORT_DEPTH = 1
cdef int MID_SORT_MOB = 16
cdef int MPC_MIN_DEPTH = 4
# Probcut's margin (centi-discs): with the pattern evaluation, 3 discs against 5 scored +39 +/- 32
# Elo in 400 games at 0.1 s a move (2, 4 and 6.5 discs: +17, +7 and -31, 200 games each).
cdef int MPC_MARGIN = 300
# A requested solve is prepared by midgame iterations up to SOLVE_PREP_DEPTH plies (their table
# moves order the solver's first plies and their score centres its first window).
cdef int SOLVE_PREP_DEPTH = 12
cdef int EG_ROOT_WINDOW = 1      # experiments: half-width of the solve's first window (0 = open)
# Scores swing by about 3 discs between odd and even depths (the side that picks among the noisy
# leaf evaluations is flattered by its pick), so an iteration's window is centred on the last score
# of the same parity (FFO #40-#49: no gain for the solve's first window, which keeps the last one).
cdef int ASP_PARITY = 1
# With several threads: helpers join from this iteration depth on (earlier ones take microseconds),
# and moves are deferred from this depth (midgame) or number of empties (solver) on.
cdef int HELP_MIN_DEPTH = 6
cdef int MID_DEFER_MIN = 3
cdef int EG_DEFER_MIN = 10
cdef int HELP_SKEW = 0           # odd helpers search this many plies deeper (0: measured best)


def _set_mid_tuning(str name, int value):
    """Experiments only: change one of the midgame ordering parameters."""
    global MID_SORT_SEARCH, MID_SORT_DEEP, MID_SORT_DEPTH, MID_SORT_MOB, MPC_MIN_DEPTH, MPC_MARGIN
    global SOLVE_PREP_DEPTH, EG_ROOT_WINDOW, ASP_PARITY, HELP_MIN_DEPTH, MID_DEFER_MIN, EG_DEFER_MIN
    global HELP_SKEW
    if name == "help_skew":
        HELP_SKEW = value
    elif name == "help_depth":
        HELP_MIN_DEPTH = value
    elif name == "mid_defer":
        MID_DEFER_MIN = value
    elif name == "eg_defer":
        EG_DEFER_MIN = value
    elif name == "root_window":
        EG_ROOT_WINDOW = value
    elif name == "asp_parity":
        ASP_PARITY = value
    elif name == "prep_depth":
        SOLVE_PREP_DEPTH = value
    elif name == "mpc_depth":
        MPC_MIN_DEPTH = value
    elif name == "mpc_margin":
        MPC_MARGIN = value
    elif name == "sort_search":
        MID_SORT_SEARCH = value
    elif name == "sort_deep":
        MID_SORT_DEEP = value
    elif name == "sort_depth":
        MID_SORT_DEPTH = value
    elif name == "sort_mob":
        MID_SORT_MOB = value
    else:
        raise ValueError(f"unknown tuning parameter {name!r}")


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef struct RootMove:
    int move
    int score
    int flag
    int pv_len
    unsigned short pv[MAX_PLY]


cdef struct WideCtx:
    # what a search needs on a wide board besides SearchState: per-ply move lists (a wide
    # position can have hundreds of moves, too many for the stack arrays of the 8x8 path)
    int sqs[MAX_PLY * WMAX_MOVES]
    int vals[MAX_PLY * WMAX_MOVES]
    int root_vals[WMAX_MOVES]
    RootMove root[WMAX_MOVES]
    unsigned short pv[MAX_PLY][MAX_PLY]


cdef struct SearchState:
    EvalCtx ev
    TTable* tt            # shared by all threads
    u64* shared_nodes     # all threads' nodes, added up at each poll (NULL: one thread)
    u64* busy             # subtrees being searched (NULL: one thread)
    u64 flushed           # the part of nodes already added to shared_nodes
    u64 mask
    u64 nodes
    u64 check_at
    u64 max_nodes
    double start
    double hard_time
    int* stop             # the stop flag (shared)
    int nthreads
    int thread_id         # 0: the main thread
    int aborted
    int seldepth
    int contempt
    int squares
    int multipv
    int selective
    int nroot
    int root_done
    int pass_move         # 64 on the 8x8 frame, n * n on a wide board
    int wide_n            # 0 on the 8x8 frame, else the wide board's size
    const WGeo* geo       # the wide board's geometry (wide boards only)
    WEval* wev            # its evaluation context (wide boards only)
    WideCtx* wide         # its move lists and root moves (wide boards only)
    int order[64]
    u64 quad_of[64]       # the empty-square parity quadrant each square lies in (0 outside)
    u64 xs_all            # the X-squares of all four corners
    int pv_len[MAX_PLY]
    unsigned char pv[MAX_PLY][MAX_PLY]   # 8x8 lines (wide boards: wide.pv, whose squares need 16 bits)
    RootMove* root        # root_store on 8x8, wide.root on wide boards
    RootMove root_store[64]


cdef int poll(SearchState* st) noexcept nogil:
    """Check the stop flag and the limits; return 1 (and mark the search aborted) to stop. The
    node limit counts the nodes of all threads."""
    cdef u64 total = st.nodes, left
    if st.aborted:
        return 1
    if st.shared_nodes != NULL:
        total = oe_add64(st.shared_nodes, st.nodes - st.flushed)
        st.flushed = st.nodes
    if oe_load_int(st.stop) or (st.max_nodes and total >= st.max_nodes) or (
            st.hard_time > 0 and now_seconds() - st.start >= st.hard_time):
        st.aborted = 1
        st.check_at = 0
        return 1
    st.check_at = st.nodes + POLL_NODES
    if st.max_nodes:
        left = (st.max_nodes - total) // st.nthreads
        if left < POLL_NODES:
            st.check_at = st.nodes + (left if left > 0 else 1)
    return 0


cdef inline u64* busy_bucket(u64* busy, u64 key) noexcept nogil:
    return busy + ((key >> 32) & (BUSY_SIZE - 4))


cdef inline bint busy_has(u64* busy, u64 key) noexcept nogil:
    """Is another thread searching the position whose hash is key?"""
    cdef u64* b = busy_bucket(busy, key)
    cdef int i
    for i in range(4):
        if oe_load64(b + i) == key:
            return True
    return False


cdef inline void busy_enter(u64* busy, u64 key) noexcept nogil:
    """Mark key's subtree as being searched (a full bucket gives up its first slot; two
    threads racing for a slot may lose a mark, which only costs some shared work)."""
    cdef u64* b = busy_bucket(busy, key)
    cdef u64 x
    cdef int i
    for i in range(4):
        x = oe_load64(b + i)
        if x == 0 or x == key:
            oe_store64(b + i, key)
            return
    oe_store64(b, key)


cdef inline void busy_leave(u64* busy, u64 key) noexcept nogil:
    cdef u64* b = busy_bucket(busy, key)
    cdef int i
    for i in range(4):
        if oe_load64(b + i) == key:
            oe_store64(b + i, 0)
            return


# --- the board operations of the search, over board_t --------------------------------------------
# One search for every size: the functions below compile to the plain 64-bit expressions for u64
# (8x8 frame) and to the word-array kernels of _wide.pxi for w2 and w11; `if board_t is u64`
# picks at compile time, so the 8x8 specialization is the code it was before.

ctypedef fused board_t:
    u64
    w2
    w11


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


include "_endgame.pxi"


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


cdef int mid_leaf_parent(SearchState* st, board_t P, board_t O, board_t moves, int alpha, int beta,
                         int ply, bint pv) noexcept nogil:
    """Depth-1 node: every child is evaluated statically (or scored exactly if the game ends)."""
    cdef int sq, v, best = -SCORE_INF
    cdef bint over
    cdef board_t f, cP, cO, mc, mo
    if ply + 1 > st.seldepth:
        st.seldepth = ply + 1
    while b_any(moves):
        sq = b_pop(&moves)
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
                    break
    return best


cdef int mid_search(SearchState* st, board_t P, board_t O, int depth, int alpha, int beta, int ply,
                    bint pv) noexcept nogil:
    """Negamax PVS score of P (to move) to depth plies within (alpha, beta), fail-soft, in
    centi-discs. A pass does not use up depth. pv nodes keep their line in st.pv[ply].
    On a wide board the move list lives in st.wide (too long for the stack) and the flips of
    each move are computed again when it is searched instead of being kept."""
    cdef board_t moves, mO, f, om
    cdef u64 key
    cdef int i, j, k, cnt, sq, v, best, bestmove, a0, tmove, ds, end
    cdef int sqs_stack[40]
    cdef int vals_stack[40]
    cdef int* sqs
    cdef int* vals
    cdef u64 fl[40]
    cdef u64 ck
    cdef TTEntry* e
    cdef TTEntry hit
    if st.nodes >= st.check_at and poll(st):
        return 0
    st.nodes += 1
    if ply > st.seldepth:
        st.seldepth = ply
    if pv:
        st.pv_len[ply] = ply
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
    if depth == 1:
        return mid_leaf_parent(st, P, O, moves, alpha, beta, ply, pv)

    key = b_hash(P, O)
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
    if st.selective and not pv and depth >= MPC_MIN_DEPTH and beta < 6000 and alpha > -6000:
        # probcut: a shallow search far outside the window predicts the deep one's fail
        ds = depth // 2
        if (depth - ds) & 1:
            ds -= 1
        v = mid_search(st, P, O, ds, beta + MPC_MARGIN - 1, beta + MPC_MARGIN, ply, False)
        if st.aborted:
            return 0
        if v >= beta + MPC_MARGIN:
            return beta
        v = mid_search(st, P, O, ds, alpha - MPC_MARGIN, alpha - MPC_MARGIN + 1, ply, False)
        if st.aborted:
            return 0
        if v <= alpha - MPC_MARGIN:
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
        elif depth >= 3:
            om = b_moves(st, b_xor(O, f), b_mover(P, f, sq))
            vals[cnt] = b_order(st, P, sq) - 16 * (b_popcount(om) + b_corners(st, om))
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


cdef void helper_work(SearchState* h, u64 P, u64 O, int depth, int alpha, int beta,
                      bint eg) noexcept nogil:
    """A helper thread's part of one iteration of the main thread: the same root iteration (odd
    helpers HELP_SKEW plies deeper in the midgame), then deeper ones, until the main thread is
    done."""
    cdef int v
    if eg:
        root_iteration(h, P, O, depth, alpha, beta, True)
        return
    if h.thread_id & 1:
        depth += HELP_SKEW
    while depth <= 60:
        root_iteration(h, P, O, depth, alpha, beta, False)
        if h.aborted:
            return
        v = h.root[0].score
        if (v <= alpha and alpha > -SCORE_INF) or (v >= beta and beta < SCORE_INF):
            alpha, beta = -SCORE_INF, SCORE_INF      # the window failed: this depth again, open
            continue
        if h.multipv == 1:
            alpha, beta = max(-SCORE_INF, v - 60), min(SCORE_INF, v + 60)
        depth += 1


cdef extern from "<pthread.h>" nogil:
    ctypedef unsigned long pthread_t
    int pthread_create(pthread_t* thread, void* attr, void* (*start)(void*) noexcept nogil,
                       void* arg)
    int pthread_join(pthread_t thread, void** result)


cdef struct HelperJob:
    SearchState* h
    u64 P
    u64 O
    int depth
    int alpha
    int beta
    int eg
    int started
    pthread_t tid


cdef void* helper_main(void* arg) noexcept nogil:
    cdef HelperJob* job = <HelperJob*>arg
    helper_work(job.h, job.P, job.O, job.depth, job.alpha, job.beta, job.eg)
    return NULL


cdef void search_iterate(Search self, board_t P, board_t O, int depth, int alpha, int beta,
                         bint eg) except *:
    """One root iteration: on 8x8 with the helper threads (Search._iterate), on wide boards on
    the calling thread alone."""
    if board_t is u64:
        self._iterate(P, O, depth, alpha, beta, eg)
    else:
        with nogil:
            root_iteration(&self.st, P, O, depth, alpha, beta, eg)


cdef object search_run(Search self, board_t P, board_t O, board_t root_moves, int max_depth,
                       u64 max_nodes, double soft_time, double hard_time, int multipv,
                       object callback, int contempt, int solve, int solve_lead, bint selective,
                       double solve_time):
    """The body of Search.run and Search.run_n, once for every board width (the state is set up
    for the board by the caller; solve_time: the expected time of an exact solve from here)."""
    cdef board_t moves, m
    cdef int depth, empties, i, delta, alpha, beta, guess, guess2, done_depth, lead
    cdef int eg_alpha, eg_beta
    cdef bint exact = False, eg_done = False, aborted = False
    cdef double elapsed
    cdef SearchState* st = &self.st
    st.nodes = 0
    st.max_nodes = max_nodes
    st.check_at = POLL_NODES if (max_nodes == 0 or max_nodes > POLL_NODES) else max_nodes
    st.hard_time = hard_time
    st.aborted = 0
    st.seldepth = 0
    st.contempt = contempt
    st.selective = 0
    self.table.age = (self.table.age + 1) & 255
    moves = b_moves(st, P, O)
    if not b_any(moves):
        return ([], 0, 0, False)
    if b_any(b_and(moves, root_moves)):
        moves = b_and(moves, root_moves)
    st.nroot = 0
    m = moves
    while b_any(m):
        i = b_pop(&m)
        st.root[st.nroot].move = i
        st.root[st.nroot].flag = FLAG_NONE
        st.root[st.nroot].score = 0
        st.root[st.nroot].pv_len = 1
        st.root[st.nroot].pv[0] = i
        st.nroot += 1
    order_root(st, P, O)
    st.multipv = max(1, min(multipv, st.nroot, 64))
    if board_t is u64:
        self._start_helpers()
    else:
        self.node_total = 0
        st.flushed = 0
        st.shared_nodes = NULL
        st.busy = NULL
        st.nthreads = 1
    empties = b_empties(st, P, O)
    if solve_lead < 0:
        lead = 10 if solve != SOLVE_AUTO else 8
    else:
        lead = solve_lead
    result = [(st.root[0].move, 0, (st.root[0].move,))]
    done_depth = 0
    guess = guess2 = 0              # the scores of the last two iterations
    depth = 0
    if board_t is not u64 and empties > WIDE_SOLVE_MAX:
        # the solver's plies are bounded by MAX_PLY (a pass is a ply too): beyond this many
        # empties a wide board is searched by midgame iterations only, whatever `solve` asks
        # (no such solve could finish anyway)
        solve = SOLVE_AUTO
        max_depth = min(max_depth, WIDE_SOLVE_MAX)
    while True:
        depth = done_depth + 1
        if solve != SOLVE_AUTO:
            eg_turn = depth + lead > empties or depth > SOLVE_PREP_DEPTH
        elif max_depth >= empties:
            eg_turn = depth + lead > empties
            if hard_time > 0:
                # hand over early when the solve should fit in the time left, never when not (the
                # estimate is near the worst case, so 80% of what is left is margin enough)
                fits = solve_time <= 0.8 * (hard_time - (now_seconds() - st.start))
                eg_turn = fits and (eg_turn or depth > 8)
        else:
            eg_turn = False
        if eg_turn:
            st.selective = 0
            # exact (or win/loss/draw) solve, aspiration around the midgame estimate
            if solve == SOLVE_WLD:
                eg_alpha, eg_beta = -1, 1
            else:
                g = int(round(guess / 100.0))
                eg_alpha, eg_beta = g - EG_ROOT_WINDOW, g + EG_ROOT_WINDOW
                if st.multipv > 1 or EG_ROOT_WINDOW == 0:
                    eg_alpha, eg_beta = -EG_INF, EG_INF
            while True:
                search_iterate(self, P, O, empties, eg_alpha, eg_beta, True)
                if st.aborted:
                    break
                v = st.root[0].score
                if solve == SOLVE_WLD:
                    break
                if v <= eg_alpha:
                    eg_alpha, eg_beta = -EG_INF, v + 1
                elif v >= eg_beta:
                    eg_alpha, eg_beta = v - 1, EG_INF
                else:
                    break
            if st.aborted:
                aborted = True
                break
            eg_done = True
            exact = solve != SOLVE_WLD
            done_depth = empties
            result = self._lines(st.multipv, True, solve == SOLVE_WLD, True)
            if callback is not None:
                callback(done_depth, st.seldepth, exact, self._nodes(),
                         now_seconds() - st.start, result)
            break
        if depth > max_depth:
            break
        # forward pruning only where it can not spoil a proven score
        # (and not before a requested solve, whose ordering and first guess it would blur)
        st.selective = 1 if (selective and depth < empties and solve == SOLVE_AUTO) else 0
        if st.multipv > 1 or depth < 4:
            alpha, beta = -SCORE_INF, SCORE_INF
            delta = 0
        else:
            delta = 60
            # (iterations go one depth at a time, so guess2 is the score of depth - 2)
            g = guess2 if ASP_PARITY else guess
            alpha, beta = g - delta, g + delta
        while True:
            search_iterate(self, P, O, depth, alpha, beta, False)
            if st.aborted:
                break
            v = st.root[0].score
            if v <= alpha and alpha > -SCORE_INF:
                delta *= 2
                if self.threads == 1 or board_t is not u64:
                    alpha, beta = max(-SCORE_INF, v - delta), v + 1
                else:
                    # results mixed from several depths can swing: only ever widen
                    alpha = max(-SCORE_INF, v - delta)
            elif v >= beta and beta < SCORE_INF:
                delta *= 2
                if self.threads == 1 or board_t is not u64:
                    alpha, beta = v - 1, min(SCORE_INF, v + delta)
                else:
                    beta = min(SCORE_INF, v + delta)
            else:
                break
        if st.aborted:
            aborted = True
            # a move that beat the old best in the unfinished iteration is worth taking
            if st.multipv == 1 and st.root_done > 0 and (
                    st.root[0].flag == FLAG_EXACT or st.root[0].flag == FLAG_LOWER):
                result = self._lines(1, False, False, True)
            break
        done_depth = depth
        guess2 = guess
        guess = st.root[0].score
        result = self._lines(st.multipv, False, False, True)
        exact = depth >= empties
        elapsed = now_seconds() - st.start
        if callback is not None:
            callback(depth, st.seldepth, exact, self._nodes(), elapsed, result)
        if exact or st.stop[0]:
            break
        if soft_time > 0 and elapsed >= soft_time:
            break
    return (result, done_depth, self._nodes(), exact)


cdef class Search:
    """Owns the transposition table, the stop flag and the search threads; runs one search at a
    time.

    run() releases the GIL while it searches; stop() may be called from any thread.
    """
    cdef SearchState st
    cdef TTable table
    cdef SearchState* helpers   # threads - 1 of them
    cdef HelperJob* jobs
    cdef u64* busy
    cdef int user_stop          # stop(): every thread stops
    cdef int helper_stop        # the helpers stop (also when the main thread's iteration ends)
    cdef u64 node_total
    cdef WideCtx* wide          # move lists and root moves of wide boards (allocated on first use)
    cdef public int hash_mb
    cdef readonly int threads

    def __init__(self, int hash_mb=16, int threads=1):
        self.table.entries = NULL
        self.st.tt = &self.table
        self.st.stop = &self.user_stop
        self.st.shared_nodes = NULL
        self.st.busy = NULL
        self.st.nthreads = 1
        self.st.thread_id = 0
        self.st.mask = 0
        self.st.wide_n = 0
        self.st.pass_move = 64
        self.st.root = self.st.root_store
        self.user_stop = 0
        self.helpers = NULL
        self.jobs = NULL
        self.busy = NULL
        self.threads = 1
        self.hash_mb = 0
        self.resize(hash_mb)
        self.set_threads(threads)

    def __dealloc__(self):
        if self.table.entries != NULL:
            oe_table_free(self.table.entries, self.table.n_entries * sizeof(TTEntry))
            self.table.entries = NULL
        free(self.helpers)
        self.helpers = NULL
        free(self.jobs)
        self.jobs = NULL
        free(self.busy)
        self.busy = NULL
        free(self.wide)
        self.wide = NULL

    def resize(self, int hash_mb):
        """Set the transposition table size in MiB (clears it)."""
        if hash_mb < 1:
            raise ValueError(f"hash size {hash_mb} MiB is below 1")
        cdef int kept
        if tt_allocate(&self.table, hash_mb) != 0:
            # the old table was freed first: take its size back (or the least), so that the
            # engine never searches without a table
            for kept in (self.hash_mb, 1):
                if kept >= 1 and tt_allocate(&self.table, kept) == 0:
                    self.hash_mb = kept
                    break
            raise MemoryError(f"cannot allocate a {hash_mb} MiB transposition table")
        self.hash_mb = hash_mb

    def set_threads(self, int threads):
        """Search with this many threads (1..256) from the next run() on; never during one."""
        cdef SearchState* fresh = NULL
        cdef HelperJob* jobs = NULL
        if threads < 1 or threads > MAX_THREADS:
            raise ValueError(f"thread count {threads} is out of range 1..{MAX_THREADS}")
        if threads > 1:
            fresh = <SearchState*>calloc(threads - 1, sizeof(SearchState))
            jobs = <HelperJob*>calloc(threads - 1, sizeof(HelperJob))
            if fresh == NULL or jobs == NULL or (self.busy == NULL and not self._alloc_busy()):
                free(fresh)
                free(jobs)
                raise MemoryError(f"cannot allocate the state of {threads} search threads")
        free(self.helpers)
        free(self.jobs)
        self.helpers = fresh
        self.jobs = jobs
        self.threads = threads

    cdef bint _alloc_busy(self):
        self.busy = <u64*>calloc(BUSY_SIZE, sizeof(u64))
        return self.busy != NULL

    def clear(self):
        """Forget everything learned (a new game)."""
        tt_clear(&self.table)

    def stop(self):
        """Ask the running search to return as soon as it can (thread-safe)."""
        oe_store_int(&self.user_stop, 1)
        oe_store_int(&self.helper_stop, 1)

    def reset_stop(self):
        """Clear the stop flag; call it before starting a search (run() never clears it)."""
        self.user_stop = 0
        self.helper_stop = 0

    cdef u64 _nodes(self):
        """Nodes searched so far in this run, all threads together."""
        cdef u64 n = self.st.nodes
        cdef int k
        if self.threads > 1 and self.st.wide_n == 0:
            for k in range(self.threads - 1):
                n += self.helpers[k].nodes
        return n

    cdef void _start_helpers(self):
        """Give every helper the main thread's state for a new run (its table, limits, root)."""
        cdef SearchState* h
        cdef int k
        self.node_total = 0
        self.st.flushed = 0
        self.st.shared_nodes = &self.node_total if self.threads > 1 else NULL
        self.st.busy = self.busy if self.threads > 1 else NULL
        self.st.nthreads = self.threads
        if self.threads == 1:
            return
        memset(self.busy, 0, BUSY_SIZE * sizeof(u64))
        for k in range(self.threads - 1):
            h = &self.helpers[k]
            memcpy(h, &self.st, sizeof(SearchState))
            h.root = h.root_store
            h.thread_id = k + 1
            h.stop = &self.helper_stop
            h.hard_time = 0

    cdef void _iterate(self, u64 P, u64 O, int depth, int alpha, int beta, bint eg) except *:
        """One root iteration of the main thread, with the helpers searching alongside."""
        cdef SearchState* st = &self.st
        cdef SearchState* h
        cdef HelperJob* job
        cdef int k, n = self.threads - 1
        if n == 0 or (not eg and depth < HELP_MIN_DEPTH):
            with nogil:
                root_iteration(st, P, O, depth, alpha, beta, eg)
            return
        oe_store_int(&self.helper_stop, 0)
        if oe_load_int(&self.user_stop):
            oe_store_int(&self.helper_stop, 1)
        for k in range(n):
            h = &self.helpers[k]
            h.aborted = 0
            h.check_at = h.nodes
            h.multipv = st.multipv
            h.selective = st.selective
            h.nroot = st.nroot
            memcpy(h.root, st.root, st.nroot * sizeof(RootMove))
            job = &self.jobs[k]
            job.h = h
            job.P, job.O, job.depth, job.alpha, job.beta, job.eg = P, O, depth, alpha, beta, eg
        with nogil:
            for k in range(n):
                # a helper that can not be started leaves its share to the others
                self.jobs[k].started = pthread_create(&self.jobs[k].tid, NULL, helper_main,
                                                      &self.jobs[k]) == 0
            root_iteration(st, P, O, depth, alpha, beta, eg)
            oe_store_int(&self.helper_stop, 1)
            for k in range(n):
                if self.jobs[k].started:
                    pthread_join(self.jobs[k].tid, NULL)
        if st.max_nodes and self._nodes() >= st.max_nodes:
            st.aborted = 1       # the helpers used up the node budget

    cdef void _prepare(self, u64 mask) except *:
        cdef int sq, k
        if self.st.wide_n:
            # back from a wide board: its table entries mean nothing here
            self.st.wide_n = 0
            self.st.mask = 0
            tt_clear(&self.table)
        self.st.pass_move = 64
        self.st.root = self.st.root_store
        self.st.geo = NULL
        self.st.wide = NULL
        if mask != self.st.mask:
            eval_ctx_init(&self.st.ev, mask)
            if self.st.mask != 0:         # a fresh table is already empty (and not yet touched)
                tt_clear(&self.table)
            self.st.mask = mask
            self.st.squares = oe_popcount(mask)
            self.st.xs_all = 0
            for k in range(4):
                self.st.xs_all |= self.st.ev.xsq[k]
            for sq in range(64):
                self.st.order[sq] = square_order_value(&self.st.ev, sq)
                self.st.quad_of[sq] = 0
                for k in range(4):
                    if (self.st.ev.quadrant[k] >> sq) & 1:
                        self.st.quad_of[sq] = self.st.ev.quadrant[k]

    cdef void _prepare_wide(self, int size) except *:
        """Set the state up for a size x size board (9..26)."""
        if self.wide == NULL:
            self.wide = <WideCtx*>calloc(1, sizeof(WideCtx))
            if self.wide == NULL:
                raise MemoryError("cannot allocate the move lists of a wide board")
        if self.st.wide_n != size:
            tt_clear(&self.table)
            self.st.wide_n = size
            self.st.mask = 0
            self.st.geo = &WGEO[size]
            self.st.wev = weval_for(size)
            self.st.squares = size * size
        self.st.wide = self.wide
        self.st.root = self.wide.root
        self.st.pass_move = size * size

    def _lines(self, int count, bint eg, bint wld, bint only_exact):
        """The first count root moves as (move, score in centi-discs, pv) tuples."""
        cdef int i, j, s
        cdef RootMove* rm
        out = []
        for i in range(min(count, self.st.nroot)):
            rm = &self.st.root[i]
            if rm.flag == FLAG_NONE or (only_exact and i > 0 and rm.flag != FLAG_EXACT):
                break
            s = rm.score
            if eg:
                if wld:
                    s = 100 if s > 0 else (-100 if s < 0 else 0)
                else:
                    s *= 100
                if s == 0:
                    s = self.st.contempt
            out.append((rm.move, s, tuple(rm.pv[j] for j in range(rm.pv_len))))
        return out

    def run(self, u64 P, u64 O, u64 mask, int max_depth=60, u64 max_nodes=0,
            double soft_time=0.0, double hard_time=0.0, u64 root_moves=0, int multipv=1,
            object callback=None, *, int contempt=0, int solve=SOLVE_AUTO, int solve_lead=-1,
            bint selective=True, bint pattern=False):
        """Search P (to move) against O.

        Returns (lines, depth, nodes, exact): lines is a list of (move, score, pv tuple) best first,
        at most multipv long; scores are centi-discs from P's view; exact means the scores are
        proven final disc differences (times 100; a proven draw scores contempt). A pass is move
        64. Limits: max_depth in plies, max_nodes (0 = none), soft_time (start no new iteration
        after it, seconds, 0 = none), hard_time (abort, seconds, 0 = none). root_moves (bitboard,
        0 = all) restricts the root. callback(depth, seldepth, exact, nodes, seconds, lines) is
        called after each iteration.

        contempt: centi-discs a proven draw is worth to P. solve: 0 = hand over to the exact
        solver when the empties are few enough (solve_lead: how many empties beyond the depth
        reached, -1 = default), 1 = solve exactly whatever the depth limit, 2 = win/loss/draw
        only (scores +100 / contempt / -100, exact stays False). selective: allow probcut in
        the midgame iterations that can not reach the end of the game. pattern: evaluate with the
        pattern weights where they apply (8x8, weights loaded), else with the classic features.
        """
        cdef SearchState* st = &self.st
        cdef double solve_time = solve_seconds(oe_popcount(mask & ~(P | O)))
        st.start = now_seconds()
        self._prepare(mask)
        use_pattern = 1 if (pattern and mask == FULL_MASK_C and oe_pw != NULL) else 0
        if use_pattern != st.ev.pattern:
            st.ev.pattern = use_pattern
            tt_clear(&self.table)         # its bounds came from the other evaluation
        return search_run(self, P, O, root_moves, max_depth, max_nodes, soft_time, hard_time,
                          multipv, callback, contempt, solve, solve_lead, selective, solve_time)

    def run_n(self, P, O, int size, int max_depth=60, u64 max_nodes=0,
              double soft_time=0.0, double hard_time=0.0, root_moves=0, int multipv=1,
              object callback=None, *, int contempt=0, int solve=SOLVE_AUTO, int solve_lead=-1,
              bint selective=True, bint pattern=False):
        """run() on a size x size board (3..26): the same arguments, results and callbacks, with
        boards and root_moves as ints of that size (see legal_moves_n) and moves as its square
        numbers; a pass is pass_code(size). Sizes 3..8 forward to run() with board_mask(size).
        On wide boards the search runs on one thread whatever set_threads says, and pattern
        does not apply (the classic evaluation's features are used)."""
        cdef w2 p2, o2, r2
        cdef w11 p11, o11, r11
        cdef SearchState* st = &self.st
        cdef int empties
        cdef double solve_time
        check_size(size)
        if size <= 8:
            return self.run(P, O, board_mask(size), max_depth, max_nodes, soft_time, hard_time,
                            root_moves, multipv, callback, contempt=contempt, solve=solve,
                            solve_lead=solve_lead, selective=selective, pattern=pattern)
        check_board(P, size, "P")
        check_board(O, size, "O")
        check_board(root_moves, size, "root_moves")
        st.start = now_seconds()
        self._prepare_wide(size)
        empties = size * size - bin(P).count("1") - bin(O).count("1")
        solve_time = solve_seconds_n(empties, size)
        if size <= 11:
            words_from_int(P, p2.w, 2)
            words_from_int(O, o2.w, 2)
            words_from_int(root_moves, r2.w, 2)
            return search_run(self, p2, o2, r2, max_depth, max_nodes, soft_time, hard_time,
                              multipv, callback, contempt, solve, solve_lead, selective,
                              solve_time)
        words_from_int(P, p11.w, 11)
        words_from_int(O, o11.w, 11)
        words_from_int(root_moves, r11.w, 11)
        return search_run(self, p11, o11, r11, max_depth, max_nodes, soft_time, hard_time,
                          multipv, callback, contempt, solve, solve_lead, selective, solve_time)


def solve_seconds(int empties):
    """Expected time (seconds) of the exact solve at `empties` empty squares, the one cost model
    of both this search's hand-over gate and the game-clock plan (timeman.DEFAULT_SOLVE).
    Calibrated with `scripts/bench_time.py --calibrate 22` on positions from the engine's own
    games (2-core machine under load): medians 16 empties 30 ms, 18: 0.13 s, 20: 0.9 s, 22: 4.2 s,
    worst of five 0.32 s at 18, 1.4 s at 20, 5 s at 22; the model sits near the worst case."""
    return 1.5 * 2.4 ** (empties - 20)


def solve_seconds_n(int empties, int size):
    """solve_seconds for a size x size board (3..26): the same tree-size model, times the cost
    of a node of the wide kernels over an 8x8 one (measured with scripts/bench_search.py
    --size N: about 4 times on the two-word boards, 9x9 to 11x11, and 12 times on the larger)."""
    check_size(size)
    if size <= 8:
        return solve_seconds(empties)
    return solve_seconds(empties) * (4.0 if size <= 11 else 12.0)


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


def evaluation_terms(u64 P, u64 O, u64 mask=0xFFFFFFFFFFFFFFFFULL, bint pattern=False):
    """Static evaluation of P (to move) feature by feature, in centi-discs, plus its 'total'
    (the sum, clamped to +-6300). A finished game scores its final disc difference instead.
    With pattern (and the pattern evaluation applying: 8x8, weights loaded) the named features
    are followed by 'classic' (their clamped sum), the pattern families and scalar terms, and
    'pattern', and 'total' is the pattern evaluation (clamped)."""
    cdef EvalCtx ctx
    cdef int terms[N_FEATURES]
    cdef int total, k
    cdef u64 mP = bb_moves(P, O, mask), mO = bb_moves(O, P, mask)
    eval_ctx_init(&ctx, mask)
    total = evaluate_terms(&ctx, P, O, mP, mO, terms)
    out = {FEATURE_NAMES[k]: terms[k] for k in range(N_FEATURES)}
    if (mP | mO) == 0:
        out = {name: 0 for name in FEATURE_NAMES}
        total = final_score(P, O, mask)
    if pattern and mask == FULL_MASK_C and oe_pw != NULL and (mP | mO):
        out["classic"] = total
        out.update(pattern_terms(P, O))
        total = max(-6300, min(6300, out["pattern"]))
    out["total"] = total
    return out
