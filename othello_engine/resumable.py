"""Output files that a long run appends to line by line, and that the same command run again resumes.

``othello-train generate``, ``label`` and ``testset``, ``othello-match --ggf`` and ``othello-analyze
--output`` write one whole line (a record) at a time and flush it, and so do the scripts that log
their results as they come. A kill, Ctrl-C or a lost machine can then leave the last line cut short,
and a gzip file (a name ending in ``.gz``) without the end of its stream. Resuming such a file takes
three steps, in this order:

1. read the earlier run's whole lines (:func:`whole_lines`) and check that they are this work's
   output; a file of anything else is refused and left as it is (the caller's part);
2. settle the file (:func:`settle`): afterwards it ends just after the whole lines kept, with a
   newline, so the next line written follows on. A plain file is cut after them. A gzip file that
   has to change is written again as one intact stream, in one step (:mod:`othello_engine.atomicfile`):
   bytes appended after a cut stream could never be read back;
3. append.

Both functions read the file as a stream, so a file of gigabytes costs no memory.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "games.txt")
>>> with open(path, "w") as f:
...     _ = f.write("f5d6 +2 0\\nf5f6 -4 0\\nf5f4e3")       # killed while writing the third line
>>> [line.decode() for line in whole_lines(path)]
['f5d6 +2 0\\n', 'f5f6 -4 0\\n']
>>> settle(path)
2
>>> with open(path) as f:
...     f.read()
'f5d6 +2 0\\nf5f6 -4 0\\n'
"""

from __future__ import annotations

import gzip
import os
import zlib
from typing import Callable, Iterator, Optional

from othello_engine import atomicfile

WholeLast = Optional[Callable[[bytes], bool]]
"""Says whether a last line that has no newline is whole all the same (a GGF record ends in ``;)``);
without it, such a line is taken to be cut short."""

_CUT_STREAM = (EOFError, zlib.error, gzip.BadGzipFile)   # a gzip stream that ends early or breaks off


def is_gzip(path: str) -> bool:
    """Whether the output file is written compressed (its name ends in ``.gz``)."""
    return path.endswith(".gz")


def looks_gzip(path: str) -> bool:
    """Whether the file is empty or begins as a gzip stream does. A file named ``.gz`` that does
    not would read as a stream broken at its start, so it is refused, never settled to nothing."""
    with open(path, "rb") as f:
        magic = f.read(2)
    return magic == b"\x1f\x8b"[:len(magic)]


def whole_lines(path: str, whole_last: WholeLast = None) -> Iterator[bytes]:
    """The whole lines of an earlier run's output file, each ending in a newline, read as a stream:
    nothing for a missing file; a last line cut short left out; a gzip file read up to where its
    stream breaks off. OSError if the file cannot be read."""
    if not os.path.exists(path):
        return
    if is_gzip(path):
        with gzip.open(path, "rb") as f:
            try:
                yield from _whole(f, whole_last)
            except _CUT_STREAM:
                return
    else:
        with open(path, "rb") as f:
            yield from _whole(f, whole_last)


def _whole(lines, whole_last: WholeLast) -> Iterator[bytes]:
    for line in lines:
        if line.endswith(b"\n"):
            yield line
        elif whole_last is not None and whole_last(line):
            yield line + b"\n"


def settle(path: str, keep: Optional[int] = None, whole_last: WholeLast = None) -> int:
    """Make the output file at path hold its first ``keep`` whole lines (all of them when None)
    and nothing after them, so that a run can append; return how many lines it then holds (0 for
    a missing file, which is left missing). A file that already ends so is not touched. OSError if
    it cannot be read or changed (a gzip file is then left as it was), ValueError for a file named
    ``.gz`` that is not gzip (left as it is)."""
    if not os.path.exists(path):
        return 0
    if is_gzip(path):
        if not looks_gzip(path):
            raise ValueError(f"{path}: not a gzip file, though its name ends in .gz")
        return _settle_gzip(path, keep, whole_last)
    with open(path, "rb+") as f:
        end = count = 0
        tail = b""
        for line in f:
            if not line.endswith(b"\n"):
                tail = line         # only the last line can lack its newline
                break
            if keep is not None and count == keep:
                break
            end += len(line)
            count += 1
        if tail and (keep is None or count < keep) and whole_last is not None and whole_last(tail):
            f.seek(end + len(tail))
            f.write(b"\n")
            return count + 1
        if f.seek(0, os.SEEK_END) != end:
            f.truncate(end)
    return count


def _settle_gzip(path: str, keep: Optional[int], whole_last: WholeLast) -> int:
    count = 0
    intact = True
    with gzip.open(path, "rb") as f:
        try:
            for line in f:
                if not line.endswith(b"\n") or (keep is not None and count == keep):
                    intact = False
                    break
                count += 1
        except _CUT_STREAM:
            intact = False
    if intact:
        return count
    count = 0
    name = os.path.basename(path)[:-3]
    with atomicfile.replacing(path, binary=True) as raw, \
            gzip.GzipFile(filename=name, mode="wb", fileobj=raw) as out:
        for line in whole_lines(path, whole_last):
            if keep is not None and count == keep:
                break
            out.write(line)
            count += 1
    return count
