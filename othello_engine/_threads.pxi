# Search threads: what a helper thread runs alongside the main thread's root iteration.
#
# The same scheme on every board width (board_t): the 8x8 frame and the wide boards.
#
# Each search thread has its own SearchState (pv, counters, evaluation context) and all
# share the table, the stop flag and a node counter. The helpers run the main thread's iterations
# alongside it (as in lazy SMP, but on the same depth: one ply deeper cost more nodes to a depth),
# and every thread defers a move whose subtree another thread is searching (a "busy" table of
# positions, as in simplified ABDADA), so that the threads split the tree instead of repeating
# one another. Only the main thread's results are reported.

cdef void helper_work(SearchState* h, board_t P, board_t O, int depth, int alpha, int beta,
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
    w11 P                 # the root position in its first words: 1 (8x8 frame), 2, 4 or 11
    w11 O
    int depth
    int alpha
    int beta
    int eg
    int started
    pthread_t tid


cdef void* helper_main(void* arg) noexcept nogil:
    """The pthread entry point: the job's board back in its width (the helper's state says which:
    wide_n 0 is the 8x8 frame, else its geometry's word count), then helper_work."""
    cdef HelperJob* job = <HelperJob*>arg
    cdef w2 P2, O2
    cdef w4 P4, O4
    if job.h.wide_n == 0:
        helper_work(job.h, job.P.w[0], job.O.w[0], job.depth, job.alpha, job.beta, job.eg)
    elif job.h.geo.nw == 2:
        memcpy(P2.w, job.P.w, sizeof(P2.w))
        memcpy(O2.w, job.O.w, sizeof(O2.w))
        helper_work(job.h, P2, O2, job.depth, job.alpha, job.beta, job.eg)
    elif job.h.geo.nw == 4:
        memcpy(P4.w, job.P.w, sizeof(P4.w))
        memcpy(O4.w, job.O.w, sizeof(O4.w))
        helper_work(job.h, P4, O4, job.depth, job.alpha, job.beta, job.eg)
    else:
        helper_work(job.h, job.P, job.O, job.depth, job.alpha, job.beta, job.eg)
    return NULL
