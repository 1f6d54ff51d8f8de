"""Output files that a long run appends to line by line, and that the same command run again resumes.

``othello-train generate``, ``label`` and ``testset``, ``othello-match --ggf`` and ``othello-analyze
--output`` write one whole line (a record) at a time and flush it, and so do the scripts that log
their results as they come. A kill, Ctrl-C or a lost machine can then leave the last line cut short,
and a gzip file (the training steps write one when the name ends in ``.gz``) without the end of its
stream. Resuming such a file takes three steps, in this order:

1. read the earlier run's whole lines (:func:`whole_lines`) and check that they are this work's
   output; a file of anything else is refused and left as it is (the caller's part);
2. settle the file (:func:`settle`): afterwards it ends just after the whole lines kept, with a
   newline, so the next line written follows on. A plain file is cut after them. A gzip file that
   has to change is written again as one intact stream, in one step (:mod:`othello_engine.atomicfile`):
   bytes appended after a cut stream could never be read back;
3. append.

A file with no whole line at all gives the caller nothing to check, so :func:`settle` then asks
``line_start`` whether what it holds could be the beginning of one of the run's lines; a text
without a newline (a note, a file of another program) is refused (:class:`NotResumable`) and
left as it is, not cut to nothing.

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
from typing import IO, Callable, Iterator, Optional

from othello_engine import atomicfile

LineTest = Optional[Callable[[bytes], bool]]

CUT_STREAM = (EOFError, zlib.error, gzip.BadGzipFile)
"""What reading a gzip stream that ends early or breaks off raises."""
_START_READ = 1 << 16     # the bytes of a file without a whole line that line_start is shown


class NotResumable(ValueError):
    """A file that is not the output of the run that would resume it; it is left as it is."""


def is_gzip(path: str) -> bool:
    """Whether a training file is compressed (its name ends in ``.gz``)."""
    return path.endswith(".gz")


def looks_gzip(path: str) -> bool:
    """Whether the file is empty or begins as a gzip stream does. A file named ``.gz`` that does
    not would read as a stream broken at its start, so it is refused, never settled to nothing."""
    with open(path, "rb") as f:
        magic = f.read(2)
    return magic == b"\x1f\x8b"[:len(magic)]


def whole_lines(path: str, whole_last: LineTest = None, compressed: bool = False) -> Iterator[bytes]:
    """The whole lines of an earlier run's output file, each ending in a newline, read as a stream:
    nothing for a missing file; a last line cut short left out, unless ``whole_last`` says it is
    whole all the same (a GGF record ends in ``;)``), when it gets its newline. ``compressed``: a
    gzip file, read up to where its stream breaks off. OSError if the file cannot be read."""
    if not os.path.exists(path):
        return
    if compressed:
        with gzip.open(path, "rb") as f:
            try:
                yield from _whole(f, whole_last)
            except CUT_STREAM:
                return
    else:
        with open(path, "rb") as f:
            yield from _whole(f, whole_last)


def _whole(lines: IO[bytes], whole_last: LineTest) -> Iterator[bytes]:
    for line in lines:
        if line.endswith(b"\n"):
            yield line
        elif whole_last is not None and whole_last(line):
            yield line + b"\n"


def settle(path: str, keep: Optional[int] = None, whole_last: LineTest = None,
           compressed: bool = False, line_start: LineTest = None) -> int:
    """Make the output file at path hold its first ``keep`` whole lines (all of them when None)
    and nothing after them, so that a run can append; return how many lines it then holds (0 for
    a missing file, which is left missing). A file that already ends so is not touched.
    ``whole_last`` and ``compressed`` as for :func:`whole_lines`. ``line_start``: whether the bytes
    of a file with no whole line could begin one of the run's lines (a first line cut short);
    when they could not, NotResumable. NotResumable too for a compressed file that is not gzip;
    OSError if the file cannot be read or changed (a gzip file is then left as it was)."""
    if not os.path.exists(path):
        return 0
    if compressed and not looks_gzip(path):
        raise NotResumable(f"{path}: not a gzip file, though its name ends in .gz; give another output "
                           f"file, it is left as it is")
    if line_start is not None:
        _check_start(path, whole_last, compressed, line_start)
    if compressed:
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


def _check_start(path: str, whole_last: LineTest, compressed: bool,
                 line_start: Callable[[bytes], bool]) -> None:
    """NotResumable unless the file begins with a whole line, or what it holds could begin one.
    Only its first bytes are read: a first line longer than that is no line of these runs."""
    head = bytearray()
    with (gzip.open(path, "rb") if compressed else open(path, "rb")) as f:
        try:
            while len(head) <= _START_READ and b"\n" not in head:
                chunk = f.read(4096)
                if not chunk:
                    break
                head += chunk
        except CUT_STREAM:
            pass            # what could be read is what a resumed run would keep
    if b"\n" in head or not head:
        return
    if len(head) <= _START_READ and (line_start(bytes(head))
                                     or whole_last is not None and whole_last(bytes(head))):
        return
    raise NotResumable(f"{path}: not a file of this run's lines to resume (it holds no whole line, "
                       f"and what it holds does not begin one); give another output file, it is "
                       f"left as it is")


def _settle_gzip(path: str, keep: Optional[int], whole_last: LineTest) -> int:
    count = 0
    intact = True
    with gzip.open(path, "rb") as f:
        try:
            for line in f:
                if not line.endswith(b"\n") or (keep is not None and count == keep):
                    intact = False
                    break
                count += 1
        except CUT_STREAM:
            intact = False
    if intact:
        return count
    count = 0
    name = os.path.basename(path)[:-3]
    with atomicfile.replacing(path, binary=True) as raw, \
            gzip.GzipFile(filename=name, mode="wb", fileobj=raw) as out:
        for line in whole_lines(path, whole_last, compressed=True):
            if keep is not None and count == keep:
                break
            out.write(line)
            count += 1
    return count
