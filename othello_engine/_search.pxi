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


# Midgame ordering: from MID_SORT_SEARCH plies left, moves are sorted by a static evaluation
# of the reply (from MID_SORT_DEEP, by a MID_SORT_DEPTH search) minus MID_SORT_MOB per reply.
cdef int MID_SORT_SEARCH = 99
cdef int MID_SORT_DEEP = 99
cdef int MID_SORT_DEPTH = 1
cdef int MID_SORT_MOB = 16
cdef int MPC_MIN_DEPTH = 4
cdef int MPC_MARGIN = 500
# A requested solve is prepared by midgame iterations up to SOLVE_PREP_DEPTH plies (their table
# moves order the solver's first plies and their score centres its first window).
cdef int SOLVE_PREP_DEPTH = 12
cdef int EG_ROOT_WINDOW = 1      # experiments: half-width of the solve's first window (0 = open)
# With several threads: helpers join from this iteration depth on (earlier ones take microseconds),
# and moves are deferred from this depth (midgame) or number of empties (solver) on.
cdef int HELP_MIN_DEPTH = 6
cdef int MID_DEFER_MIN = 3
cdef int EG_DEFER_MIN = 10
cdef int HELP_SKEW = 0           # odd helpers search this many plies deeper (0: measured best)


def _set_mid_tuning(str name, int value):
    """Experiments only: change one of the midgame ordering parameters."""
    global MID_SORT_SEARCH, MID_SORT_DEEP, MID_SORT_DEPTH, MID_SORT_MOB, MPC_MIN_DEPTH, MPC_MARGIN
    global SOLVE_PREP_DEPTH, EG_ROOT_WINDOW, HELP_MIN_DEPTH, MID_DEFER_MIN, EG_DEFER_MIN, HELP_SKEW
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
    unsigned char pv[MAX_PLY]


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
    int order[64]
    u64 quad_of[64]       # the empty-square parity quadrant each square lies in (0 outside)
    u64 xs_all            # the X-squares of all four corners
    int pv_len[MAX_PLY]
    unsigned char pv[MAX_PLY][MAX_PLY]
    RootMove root[64]


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


cdef int final_score(u64 P, u64 O, u64 mask) noexcept nogil:
    """Final disc difference for P in centi-discs, empties going to the winner."""
    cdef int p = oe_popcount(P), o = oe_popcount(O)
    cdef int e = oe_popcount(mask) - p - o
    if p > o:
        return 100 * (p - o + e)
    if p < o:
        return 100 * (p - o - e)
    return 0


cdef inline int terminal_score(SearchState* st, u64 P, u64 O, int ply) noexcept nogil:
    """Score of a finished game for P at ply (a draw is worth the contempt to the root side)."""
    cdef int s = final_score(P, O, st.mask)
    if s == 0:
        return st.contempt if (ply & 1) == 0 else -st.contempt
    return s


include "_endgame.pxi"


cdef inline void pv_update(SearchState* st, int ply, int sq) noexcept nogil:
    cdef int j
    st.pv[ply][ply] = sq
    for j in range(ply + 1, st.pv_len[ply + 1]):
        st.pv[ply][j] = st.pv[ply + 1][j]
    st.pv_len[ply] = st.pv_len[ply + 1] if st.pv_len[ply + 1] > ply + 1 else ply + 1


cdef int mid_leaf_parent(SearchState* st, u64 P, u64 O, u64 moves, int alpha, int beta, int ply,
                         bint pv) noexcept nogil:
    """Depth-1 node: every child is evaluated statically (or scored exactly if the game ends)."""
    cdef int sq, v, best = -SCORE_INF
    cdef u64 f, bit, cP, cO, mc, mo
    if ply + 1 > st.seldepth:
        st.seldepth = ply + 1
    while moves:
        sq = oe_ctz(moves)
        moves &= moves - 1
        if st.nodes >= st.check_at and poll(st):
            return 0
        st.nodes += 1
        bit = (<u64>1) << sq
        f = bb_flips(P, O, sq)
        cP = O ^ f
        cO = P ^ f ^ bit
        mc = bb_moves(cP, cO, st.mask)
        mo = bb_moves(cO, cP, st.mask)
        if (mc | mo) == 0:
            v = -terminal_score(st, cP, cO, ply + 1)
        else:
            v = -evaluate_terms(&st.ev, cP, cO, mc, mo, NULL)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if pv:
                    st.pv[ply][ply] = sq
                    st.pv_len[ply] = ply + 1
                if v >= beta:
                    break
    return best


cdef int mid_search(SearchState* st, u64 P, u64 O, int depth, int alpha, int beta, int ply,
                    bint pv) noexcept nogil:
    """Negamax PVS score of P (to move) to depth plies within (alpha, beta), fail-soft, in
    centi-discs. A pass does not use up depth. pv nodes keep their line in st.pv[ply]."""
    cdef u64 moves, mO, f, bit, key, om
    cdef int i, j, k, cnt, sq, v, best, bestmove, a0, tmove, ds, end
    cdef int sqs[40]
    cdef int vals[40]
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
    moves = bb_moves(P, O, st.mask)
    if depth <= 0 or ply >= MAX_PLY - 2:
        mO = bb_moves(O, P, st.mask)
        if (moves | mO) == 0:
            return terminal_score(st, P, O, ply)
        return evaluate_terms(&st.ev, P, O, moves, mO, NULL)
    if moves == 0:
        if bb_moves(O, P, st.mask) == 0:
            return terminal_score(st, P, O, ply)
        v = -mid_search(st, O, P, depth, -beta, -alpha, ply + 1, pv)
        if pv and not st.aborted:
            pv_update(st, ply, 64)
        return v
    if depth == 1:
        return mid_leaf_parent(st, P, O, moves, alpha, beta, ply, pv)

    key = position_hash(P, O)
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

    cnt = 0
    while moves:
        sq = oe_ctz(moves)
        moves &= moves - 1
        bit = (<u64>1) << sq
        f = bb_flips(P, O, sq)
        sqs[cnt] = sq
        fl[cnt] = f
        if sq == tmove:
            vals[cnt] = 1 << 28
        elif depth >= MID_SORT_SEARCH:
            # shallow search of the reply, plus the reply count (fewer is better)
            om = bb_moves(O ^ f, P ^ f ^ bit, st.mask)
            v = mid_search(st, O ^ f, P ^ f ^ bit, MID_SORT_DEPTH if depth >= MID_SORT_DEEP else 0,
                           -SCORE_INF, SCORE_INF, ply + 1, False)
            if st.aborted:
                return 0
            vals[cnt] = -v - MID_SORT_MOB * (oe_popcount(om) + oe_popcount(om & st.ev.corners))
        elif depth >= 3:
            om = bb_moves(O ^ f, P ^ f ^ bit, st.mask)
            vals[cnt] = st.order[sq] - 16 * (oe_popcount(om) + oe_popcount(om & st.ev.corners))
        else:
            vals[cnt] = st.order[sq]
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
                f = fl[k]; fl[k] = fl[i]; fl[i] = f
        sq = sqs[i]
        f = fl[i]
        bit = (<u64>1) << sq
        ck = 0
        if i > 0 and i < end and st.busy != NULL and depth >= MID_DEFER_MIN:
            ck = position_hash(O ^ f, P ^ f ^ bit)
            if busy_has(st.busy, ck):
                # another thread is in this subtree: come back to it after the others
                end -= 1
                sq = sqs[end]; sqs[end] = sqs[i]; sqs[i] = sq
                v = vals[end]; vals[end] = vals[i]; vals[i] = v
                f = fl[end]; fl[end] = fl[i]; fl[i] = f
                continue
            busy_enter(st.busy, ck)
        if i == 0:
            v = -mid_search(st, O ^ f, P ^ f ^ bit, depth - 1, -beta, -alpha, ply + 1, pv)
        else:
            st.pv_len[ply + 1] = ply + 1
            v = -mid_search(st, O ^ f, P ^ f ^ bit, depth - 1, -alpha - 1, -alpha, ply + 1, False)
            if pv and v > alpha and v < beta and not st.aborted:
                v = -mid_search(st, O ^ f, P ^ f ^ bit, depth - 1, -beta, -alpha, ply + 1, True)
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
                    pv_update(st, ply, sq)
                if v >= beta:
                    break
    if best >= beta:
        tt_store(st.tt, key, depth, best, TT_NONE, bestmove)
    elif best > a0:
        tt_store(st.tt, key, depth, best, best, bestmove)
    else:
        tt_store(st.tt, key, depth, -TT_NONE, best, bestmove)
    return best


cdef void root_iteration(SearchState* st, u64 P, u64 O, int depth, int alpha, int beta,
                         bint eg) noexcept nogil:
    """Search every root move once within (alpha, beta): midgame to depth (centi-discs) or, if eg,
    the exact solver (discs). The best multipv moves get exact scores (FLAG_EXACT) unless the
    window fails; the others get upper bounds. Stops early on a fail-high; st.root_done counts
    the moves searched. Moves are then sorted best first (unsearched ones last)."""
    cdef int K = st.multipv, found = 0, i, j, sq, v, a, kth
    cdef int top[64]
    cdef bint searched_pv
    cdef u64 f, bit, cP, cO
    cdef RootMove tmp
    cdef RootMove* rm
    for i in range(st.nroot):
        st.root[i].flag = FLAG_NONE
    st.root_done = 0
    for i in range(st.nroot):
        rm = &st.root[i]
        sq = rm.move
        bit = (<u64>1) << sq
        f = bb_flips(P, O, sq)
        cP = O ^ f
        cO = P ^ f ^ bit
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
                    rm.pv[j] = st.pv[1][j]
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


cdef void order_root(SearchState* st, u64 P, u64 O) noexcept nogil:
    """Initial root order: fewest opponent replies, then square quality."""
    cdef int i, j, sq, v
    cdef int vals[64]
    cdef u64 f, bit, om
    cdef RootMove tmp
    for i in range(st.nroot):
        sq = st.root[i].move
        bit = (<u64>1) << sq
        f = bb_flips(P, O, sq)
        om = bb_moves(O ^ f, P ^ f ^ bit, st.mask)
        vals[i] = st.order[sq] - 16 * (oe_popcount(om) + oe_popcount(om & st.ev.corners))
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
        if self.threads > 1:
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
        cdef u64 moves, m
        cdef int depth, empties, i, delta, alpha, beta, guess, done_depth, lead
        cdef int eg_alpha, eg_beta
        cdef bint exact = False, eg_done = False, aborted = False
        cdef double elapsed
        cdef SearchState* st = &self.st
        st.start = now_seconds()
        self._prepare(mask)
        use_pattern = 1 if (pattern and mask == FULL_MASK_C and oe_pw != NULL) else 0
        if use_pattern != st.ev.pattern:
            st.ev.pattern = use_pattern
            tt_clear(&self.table)         # its bounds came from the other evaluation
        st.nodes = 0
        st.max_nodes = max_nodes
        st.check_at = POLL_NODES if (max_nodes == 0 or max_nodes > POLL_NODES) else max_nodes
        st.hard_time = hard_time
        st.aborted = 0
        st.seldepth = 0
        st.contempt = contempt
        st.selective = 0
        self.table.age = (self.table.age + 1) & 255
        moves = bb_moves(P, O, mask)
        if moves == 0:
            return ([], 0, 0, False)
        if root_moves and (moves & root_moves):
            moves &= root_moves
        st.nroot = 0
        m = moves
        while m:
            st.root[st.nroot].move = oe_ctz(m)
            st.root[st.nroot].flag = FLAG_NONE
            st.root[st.nroot].score = 0
            st.root[st.nroot].pv_len = 1
            st.root[st.nroot].pv[0] = oe_ctz(m)
            st.nroot += 1
            m &= m - 1
        order_root(st, P, O)
        st.multipv = max(1, min(multipv, st.nroot))
        self._start_helpers()
        empties = oe_popcount(mask & ~(P | O))
        if solve_lead < 0:
            lead = 10 if solve != SOLVE_AUTO else 8
        else:
            lead = solve_lead
        result = [(st.root[0].move, 0, (st.root[0].move,))]
        done_depth = 0
        guess = 0
        depth = 0
        while True:
            depth = done_depth + 1
            if solve != SOLVE_AUTO:
                eg_turn = depth + lead > empties or depth > SOLVE_PREP_DEPTH
            elif max_depth >= empties:
                eg_turn = depth + lead > empties
                if hard_time > 0:
                    # hand over early when the solve should fit in the time left, never when not (the
                    # estimate is near the worst case, so 80% of what is left is margin enough)
                    fits = solve_seconds(empties) <= 0.8 * (hard_time - (now_seconds() - st.start))
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
                    self._iterate(P, O, empties, eg_alpha, eg_beta, True)
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
                alpha, beta = guess - delta, guess + delta
            while True:
                self._iterate(P, O, depth, alpha, beta, False)
                if st.aborted:
                    break
                v = st.root[0].score
                if v <= alpha and alpha > -SCORE_INF:
                    delta *= 2
                    if self.threads == 1:
                        alpha, beta = max(-SCORE_INF, v - delta), v + 1
                    else:
                        # results mixed from several depths can swing: only ever widen
                        alpha = max(-SCORE_INF, v - delta)
                elif v >= beta and beta < SCORE_INF:
                    delta *= 2
                    if self.threads == 1:
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


def solve_seconds(int empties):
    """Expected time (seconds) of the exact solve at `empties` empty squares, the one cost model
    of both this search's hand-over gate and the game-clock plan (timeman.DEFAULT_SOLVE).
    Calibrated with `scripts/bench_time.py --calibrate 22` on positions from the engine's own
    games (2-core machine under load): medians 16 empties 30 ms, 18: 0.13 s, 20: 0.9 s, 22: 4.2 s,
    worst of five 0.32 s at 18, 1.4 s at 20, 5 s at 22; the model sits near the worst case."""
    return 1.5 * 2.4 ** (empties - 20)


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
