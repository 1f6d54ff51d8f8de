"""Writing a whole file so that a reader sees the old contents or the new, never half of them.

The text or bytes go to a temporary file beside the target, which is flushed to disk and then
renamed over it: a full disk, an error while the contents are produced or Ctrl-C leaves the old
file as it was and no temporary file behind. An existing file keeps its permission bits; a new
one gets the ones ``open`` would give it (0666 less the umask). A path that names a pipe or a
device (``/dev/stdout``) is written directly, as ``open`` would; a symbolic link is followed, so
the file it points to is the one replaced.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "notes.txt")
>>> write_text(path, "one\\n")
>>> try:
...     with replacing(path) as f:
...         _ = f.write("two\\n")
...         raise RuntimeError("stopped half way")
... except RuntimeError:
...     pass
>>> with open(path) as f:
...     f.read(), os.listdir(os.path.dirname(path))
('one\\n', ['notes.txt'])
"""

from __future__ import annotations

import os
import secrets
import stat
from contextlib import contextmanager
from typing import IO, Any, Iterator, Union

PathLike = Union[str, "os.PathLike[str]"]


def _target(path: PathLike) -> tuple[str, int | None]:
    """The file to replace (a link's target) and its mode, None when there is no such file."""
    target = os.path.realpath(os.fspath(path))
    try:
        return target, os.stat(target).st_mode
    except FileNotFoundError:
        return target, None


@contextmanager
def replacing(path: PathLike, binary: bool = False, encoding: str = "utf-8") -> Iterator[IO[Any]]:
    """A file object (text in ``encoding``, or bytes if ``binary``) whose contents replace
    ``path`` when the block ends without an exception, and are thrown away when it raises.
    Raises OSError (IsADirectoryError for a directory) when the file cannot be written; nothing
    is changed then."""
    target, mode = _target(path)
    how = "wb" if binary else "w"
    text_args = {} if binary else {"encoding": encoding}
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory", os.fspath(path))
        # a pipe or a device: nothing to replace, and a rename would put a file in its place
        with open(target, how, **text_args) as f:
            yield f
        return
    folder, name = os.path.split(target)
    temp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    # os.open applies the umask to a new file's mode, as open() would to the file itself
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, how, **text_args) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
            if mode is not None:
                os.chmod(temp, stat.S_IMODE(mode))
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def write_bytes(path: PathLike, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step (see :func:`replacing`)."""
    with replacing(path, binary=True) as f:
        f.write(data)


def write_text(path: PathLike, text: str, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``text`` in one step (see :func:`replacing`)."""
    with replacing(path, encoding=encoding) as f:
        f.write(text)
