# Search state: limits and tunables, the per-thread SearchState, polling, the busy table.
#
# The polling checks the stop flag and the limits; the busy table is shared by the threads and
# holds the subtrees being searched.
#
# Units: the midgame search scores in centi-discs from the side to move (a finished game scores
# 100 * its final disc difference, a draw scores the contempt from the root side's view); the
# endgame solver scores in discs and the root converts. All kernels run without the GIL and poll
# the stop flag, the node limit and the hard time every POLL_NODES nodes.

cdef enum:
    MAX_PLY = 128
    LEAF_STAGES = 5       # order classes of the squares at depth-1 nodes (see mid_leaf_parent)
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
    MPC_DEPTHS = 32             # depths of the probcut margin tables (deeper ones use the last)
    WIDE_SOLVE_MAX = 60         # most empties a wide board is solved with (as 8x8: 2 * 60 < MAX_PLY)


# Midgame ordering: from MID_SORT_SEARCH plies left, moves are sorted by a static evaluation
# of the reply (from MID_SORT_DEEP, by a MID_SORT_DEPTH search) minus MID_SORT_MOB per reply.
cdef int MID_SORT_SEARCH = 99
cdef int MID_SORT_DEEP = 99
cdef int MID_SORT_DEPTH = 1
cdef int MID_SORT_MOB = 16
# Below that, from MID_MOB_MIN plies left, moves are sorted by the opponent's replies (MID_MOB_W per
# reply, a corner reply twice) plus the square's class, and by the class alone below. From 2 plies
# instead of 3 and at 32 instead of 16 (2026-11-27, bench_search.py --time 0.01 --depth 17
# --positions 20, seeds 11, 15, 16 and 17): 13% fewer nodes to depth 17.
cdef int MID_MOB_MIN = 2
cdef int MID_MOB_W = 32
# The evaluation's clamp (centi-discs): no heuristic score goes beyond it.
cdef int EVAL_CAP = 6300
cdef int MPC_MIN_DEPTH = 4
# Probcut's margin (centi-discs): with the pattern evaluation, 3 discs against 5 scored +39 +/- 32
# Elo in 400 games at 0.1 s a move (2, 4 and 6.5 discs: +17, +7 and -31, 200 games each).
cdef int MPC_MARGIN = 300
# Multi-ProbCut (MPC_FIT = 1, 8x8): the margin depends on the depth and the empties of the node,
# from statistics fitted by othello_engine.train.mpc (scripts/mpc_data.py makes the data): the
# deep score strays from the shallow one by a spread sigma = (MPC_A + MPC_B * depth + MPC_C *
# empties) / 100 centi-discs, and a node is cut when the shallow score clears the bound by MPC_T /
# 100 sigmas, within MPC_FLOOR..MPC_CEIL centi-discs (each a knob of the same name in lower case).
# The fit of round 15 (1,200 positions of WTHOR games of 2020-2021, 14-54 empties, depths 3-14,
# 2026-12-01): about 5.3 discs at 14-21 empties, 2.9 at 30-37, 1.5 at 46-54, the same at every
# depth. Played at 0.1 s a move against the one margin (one sigma; at least, at most 3 discs), it
# made no measurable difference (benchmarks.md, 2026-12-01 04:55). MPC_FIT = 0: the one margin
# MPC_MARGIN everywhere.
cdef int MPC_FIT = 0
cdef int MPC_T = 100
cdef int MPC_A = 61690
cdef int MPC_B = -87
cdef int MPC_C = -911
cdef int MPC_FLOOR = 0
cdef int MPC_CEIL = 10000
# Exact solves inside the midgame search (8x8 frame; a contempt of at most 100 centi-discs, which
# keeps the order of the results: NBoard's draws to Black, White or neither): a node of at most
# MID_SOLVE_N empties that has at most MID_SOLVE_AHEAD empties more than its plies left is solved
# by the endgame solver instead of being searched to a depth and evaluated (0: never). At 0.1 s
# a move on 800 positions of 18-23 empties, the mean loss of the moves played against their exact
# values went from 0.56-0.58 discs to 0.25 with 12 and 4 (2026-11-28, benchmarks.md).
cdef int MID_SOLVE_N = 12
cdef int MID_SOLVE_AHEAD = 4
# the margin by empties and depth (filled by mpc_fill; read only when MPC_FIT is on)
cdef int mpc_margin[65][MPC_DEPTHS]
cdef void mpc_fill() noexcept:
    cdef int e, d
    cdef double sigma
    for e in range(65):
        for d in range(MPC_DEPTHS):
            sigma = (MPC_A + MPC_B * d + MPC_C * e) / 100.0
            if sigma < 50:
                sigma = 50
            mpc_margin[e][d] = <int>(sigma * MPC_T / 100.0)
            if mpc_margin[e][d] < MPC_FLOOR:
                mpc_margin[e][d] = MPC_FLOOR
            if mpc_margin[e][d] > MPC_CEIL:
                mpc_margin[e][d] = MPC_CEIL


mpc_fill()
# A requested solve is prepared by midgame iterations up to SOLVE_PREP_DEPTH plies (their table
# moves order the solver's first plies and their score centres its first window).
cdef int SOLVE_PREP_DEPTH = 12
cdef int EG_ROOT_WINDOW = 1      # experiments: half-width of the solve's first window (0 = open)
# When the solve's window fails, the next one tests the bound it returned, (v - 1, v + 1), up to
# EG_STEPS times before it opens on that side (FFO #50 and #54: 12% and 14% less time than a window
# opened at once; the others the same, 2026-11-28).
cdef int EG_STEPS = 4
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
# Clock games (soft < hard limit): from depth 6, the soft limit is scaled by TM_CHANGED percent
# after an iteration whose best move differs from the last one's, by TM_SETTLED percent once the
# best move has stood for three iterations (TM_STABILITY = 0: never). On since 2026-11-30: at 4 s +
# 0.05 s a game, +29.2 +/- 29.0 Elo, SPRT (0, 25) accepted after 441 games, confirmed on other
# openings (benchmarks.md, 2026-11-30, night); two older builds had shown no gain.
cdef int TM_STABILITY = 1
cdef int TM_CHANGED = 150
cdef int TM_SETTLED = 60
# The exact solve's expected time (solve_seconds): SOLVE_MS20 ms at 20 empties, times
# SOLVE_GROWTH / 100 for each empty more (knobs solve_ms20, solve_growth: they move the search's
# gate; the clock plan, timeman.DEFAULT_SOLVE, reads the model once, when it is imported).
cdef int SOLVE_MS20 = 400
cdef int SOLVE_GROWTH = 240


cdef int* mid_knob(str name):
    """The midgame (search-wide) knob called name (NULL: no such knob)."""
    if name == "mid_solve":
        return &MID_SOLVE_N
    elif name == "mid_solve_ahead":
        return &MID_SOLVE_AHEAD
    elif name == "mob_min":
        return &MID_MOB_MIN
    elif name == "mob_w":
        return &MID_MOB_W
    elif name == "tm_stability":
        return &TM_STABILITY
    elif name == "tm_changed":
        return &TM_CHANGED
    elif name == "tm_settled":
        return &TM_SETTLED
    elif name == "solve_ms20":
        return &SOLVE_MS20
    elif name == "solve_growth":
        return &SOLVE_GROWTH
    elif name == "mpc_fit":
        return &MPC_FIT
    elif name == "mpc_t":
        return &MPC_T
    elif name == "mpc_a":
        return &MPC_A
    elif name == "mpc_b":
        return &MPC_B
    elif name == "mpc_c":
        return &MPC_C
    elif name == "mpc_floor":
        return &MPC_FLOOR
    elif name == "mpc_ceil":
        return &MPC_CEIL
    elif name == "help_skew":
        return &HELP_SKEW
    elif name == "help_depth":
        return &HELP_MIN_DEPTH
    elif name == "mid_defer":
        return &MID_DEFER_MIN
    elif name == "eg_defer":
        return &EG_DEFER_MIN
    elif name == "eg_steps":
        return &EG_STEPS
    elif name == "root_window":
        return &EG_ROOT_WINDOW
    elif name == "asp_parity":
        return &ASP_PARITY
    elif name == "prep_depth":
        return &SOLVE_PREP_DEPTH
    elif name == "mpc_depth":
        return &MPC_MIN_DEPTH
    elif name == "mpc_margin":
        return &MPC_MARGIN
    elif name == "sort_search":
        return &MID_SORT_SEARCH
    elif name == "sort_deep":
        return &MID_SORT_DEEP
    elif name == "sort_depth":
        return &MID_SORT_DEPTH
    elif name == "sort_mob":
        return &MID_SORT_MOB
    elif name == "tt_keep":
        return &TT_KEEP_MOVE
    return NULL


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
    const PatternN* pn    # the learned evaluation of a size other than 8x8 (NULL: classic)
    WideCtx* wide         # its move lists and root moves (wide boards only)
    int order[64]
    u64 order_stage[LEAF_STAGES]   # the squares by order class, best class first (8x8 frame)
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
