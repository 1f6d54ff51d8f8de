# Types and C library imports shared by every compiled part: the board of each width.
#
# u64 is an 8x8 bitboard (see _bitboard.pxi); w2, w4 and w11 are the word arrays of the wide
# boards (see _wide.pxi): 2 words for sizes 9..11, 4 for 12..16, 11 for 17..26. wide_t is any wide
# width; board_t is any width, so that the search is written once (see _board_ops.pxi).

from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

ctypedef unsigned long long u64


cdef struct w2:
    u64 w[2]

cdef struct w4:
    u64 w[4]

cdef struct w11:
    u64 w[11]

ctypedef fused wide_t:
    w2
    w4
    w11

ctypedef fused board_t:
    u64
    w2
    w4
    w11
