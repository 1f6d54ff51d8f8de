"""An advisory lock on an output file, held by the one run that writes it.

The long runs that append to a file and resume from what it holds (``othello-train generate``,
``label`` and ``testset``; ``othello-match --ggf``; ``othello-analyze --output``) count or cut the
file's lines before they append. Two runs started on the same file would both append, and the second one's count or cut
would land in the middle of the first one's lines. Each such run therefore holds an exclusive lock
on its output file from before it reads it until it ends, and a second run is refused with
:class:`FileInUse` before it touches the file.

The lock is ``flock`` (POSIX): the system drops it when the holding process ends, however it ends,
so a killed run never leaves a stale lock behind. Where there is no such lock (Windows, a file
system that refuses it), the run goes on without one, as it did before.

Nor may such a file be one of the run's own inputs: ``othello-analyze games.txt --output
games.txt`` would empty the games before reading them. :func:`input_clash` finds such an input
(by the file, not the spelling: ``./games.txt`` and a link to it are the same file), and the
commands refuse to start with one clear error.
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import contextmanager
from typing import Iterable, Iterator, Optional

try:
    import fcntl
except ImportError:     # pragma: no cover - not POSIX
    fcntl = None        # type: ignore[assignment]

_BUSY = (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)


class FileInUse(OSError):
    """Another run holds the lock on the file."""


def hold(path: str, create: bool = True) -> Optional[int]:
    """Take the lock on ``path`` for this process: a descriptor to give to :func:`release`, or
    None when there is nothing to lock (not a regular file, or no lock on this platform or file
    system). ``create`` makes an empty file if there is none, and raises OSError when the file
    cannot be opened; without ``create``, a path that is missing or cannot be looked up or opened
    is None too (the run's own writing then says what fails). Raises :class:`FileInUse` when
    another run holds the lock."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None     # a pipe or a device (/dev/stdout): not a file that a run resumes
    except OSError:     # missing, or a path that can not be looked up: the open below says why
        if not create:
            return None
    # (non-blocking: opening a pipe for reading would wait for a writer)
    flags = os.O_RDONLY | os.O_NONBLOCK | (os.O_CREAT if create else 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError:
        if create:
            raise
        return None
    if fcntl is None:
        os.close(fd)
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in _BUSY:
            raise FileInUse(f"{path} is being written by another run (let it finish, or write to "
                            f"another file)") from None
        return None
    return fd


def release(fd: Optional[int]) -> None:
    """Give back a lock taken by :func:`hold` (None: nothing to do)."""
    if fd is not None:
        os.close(fd)


@contextmanager
def held(path: str) -> Iterator[None]:
    """The lock on ``path`` (created if missing) for the duration of a ``with`` block."""
    fd = hold(path)
    try:
        yield
    finally:
        release(fd)


def input_clash(output: str, inputs: Iterable[Optional[str]]) -> Optional[str]:
    """The first of ``inputs`` that is the very file ``output`` names (another spelling of its
    path or a link to it included), or None. Paths that do not exist, ``-`` (standard input or
    output) and None never clash.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> games = os.path.join(folder, "games.txt")
    >>> open(games, "w").close()
    >>> input_clash(os.path.join(folder, ".", "games.txt"), ["-", None, games])[-9:]
    'games.txt'
    >>> input_clash(os.path.join(folder, "out.txt"), [games]) is None
    True
    """
    if output == "-":
        return None
    for path in inputs:
        if path is None or path == "-":
            continue
        try:
            if os.path.samefile(path, output):
                return path
        except OSError:
            continue    # one of them does not exist (yet): not the same file
    return None
