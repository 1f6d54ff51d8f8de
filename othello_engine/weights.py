"""The pattern evaluation's weights file: its format, checks, and loading it into the core.

A weights file is a 32-byte header followed by a zlib stream of little-endian int16 weights
(centi-discs), ``phases`` tables of ``entries`` each (the layout of ``othello_engine._pattern``):

    offset  size  field
    0       4     magic b"OEPW"
    4       2     format version (1)
    6       2     pattern layout id (1: the eleven families of _pattern.pxi, 4 scalar terms)
    8       2     board size (8)
    10      2     phase count
    12      4     entries per phase
    16      4     length of the zlib stream
    20      4     CRC-32 of the uncompressed weights
    24      8     reserved (zero)

The shipped file is ``othello_engine/data/eval8.weights``; :func:`ensure_loaded` loads it once per
process. A missing or corrupt file leaves the engine on the classic evaluation, with the reason in
:data:`load_error` (the protocol adapters say it once: an ``info string`` line in UCI, a ``status``
line in NBoard, a line on standard error in GTP).
"""

from __future__ import annotations

import array
import os
import stat
import struct
import sys
import zlib
from typing import Optional

from othello_engine import _core

MAGIC = b"OEPW"
FORMAT_VERSION = 1
LAYOUT = _core.PATTERN_LAYOUT
HEADER = struct.Struct("<4sHHHHIII8x")
MAX_STREAM = 64 << 20
DEFAULT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "eval8.weights")

#: why the pattern evaluation is not available (None once weights are loaded or before trying)
load_error: Optional[str] = None
#: the file the loaded weights came from
loaded_path: Optional[str] = None
_tried = False


class WeightsError(ValueError):
    """A weights file that cannot be used (missing, truncated, corrupt or of another layout)."""


def encode(weights: "array.array[int] | bytes") -> bytes:
    """A whole weights file for the core's layout from PATTERN_PHASES * PATTERN_ENTRIES int16."""
    raw = array.array("h", weights) if not isinstance(weights, array.array) else weights
    if len(raw) != _core.PATTERN_PHASES * _core.PATTERN_ENTRIES:
        raise WeightsError(f"{len(raw)} weights, expected "
                           f"{_core.PATTERN_PHASES} x {_core.PATTERN_ENTRIES}")
    if sys.byteorder != "little":
        raw = array.array("h", raw)
        raw.byteswap()
    data = raw.tobytes()
    stream = zlib.compress(data, 9)
    header = HEADER.pack(MAGIC, FORMAT_VERSION, LAYOUT, 8, _core.PATTERN_PHASES,
                         _core.PATTERN_ENTRIES, len(stream), zlib.crc32(data))
    return header + stream


def decode(blob: bytes, name: str = "weights") -> "array.array[int]":
    """The int16 weights of a weights file's bytes, every header field and the checksum checked."""
    if len(blob) < HEADER.size:
        raise WeightsError(f"{name}: truncated header ({len(blob)} bytes)")
    magic, version, layout, size, phases, entries, length, crc = HEADER.unpack_from(blob)
    if magic != MAGIC:
        raise WeightsError(f"{name}: not a weights file (bad magic {magic!r})")
    if version != FORMAT_VERSION:
        raise WeightsError(f"{name}: format version {version}, this engine reads {FORMAT_VERSION}")
    if layout != LAYOUT or size != 8:
        raise WeightsError(f"{name}: pattern layout {layout} for {size}x{size}, this engine has "
                           f"layout {LAYOUT} for 8x8")
    if phases != _core.PATTERN_PHASES or entries != _core.PATTERN_ENTRIES:
        raise WeightsError(f"{name}: {phases} phases of {entries} entries, expected "
                           f"{_core.PATTERN_PHASES} of {_core.PATTERN_ENTRIES}")
    if length != len(blob) - HEADER.size:
        raise WeightsError(f"{name}: weights stream of {len(blob) - HEADER.size} bytes, "
                           f"the header says {length}")
    expected = 2 * phases * entries
    try:
        inflater = zlib.decompressobj()
        data = inflater.decompress(blob[HEADER.size:], expected + 1)   # never more than that
    except zlib.error as exc:
        raise WeightsError(f"{name}: corrupt weights stream ({exc})") from None
    if len(data) != expected or not inflater.eof or zlib.crc32(data) != crc:
        raise WeightsError(f"{name}: checksum mismatch (the file is corrupt)")
    out = array.array("h")
    out.frombytes(data)
    if sys.byteorder != "little":
        out.byteswap()
    return out


def read(path: str) -> "array.array[int]":
    """The weights of the file at path (WeightsError when it cannot be used)."""
    try:
        # O_NONBLOCK: opening a FIFO for reading would wait for a writer; the check below refuses it
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise WeightsError(f"{path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise WeightsError(f"{path}: not a regular file (a pipe or device is not a weights file)")
        try:
            blob = f.read(HEADER.size + MAX_STREAM + 1)
        except OSError as exc:
            raise WeightsError(f"{path}: {exc.strerror or exc}") from None
    return decode(blob, os.path.basename(path))


def write(path: str, weights: "array.array[int]") -> None:
    """Write a weights file (to a temporary name first, so a reader never sees half a file)."""
    blob = encode(weights)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(blob)
    os.replace(tmp, path)


def load(path: str) -> None:
    """Install the weights of path for every search of this process (no search may be running)."""
    global load_error, loaded_path, _tried
    _core.set_pattern_weights(read(path))
    load_error = None
    loaded_path = path
    _tried = True


def ensure_loaded() -> bool:
    """Load the shipped weights once (OTHELLO_ENGINE_WEIGHTS names another file); True when a
    pattern evaluation is available. A failure is kept in load_error, and the classic
    evaluation is used."""
    global load_error, _tried
    if _core.pattern_weights_loaded():
        return True
    if _tried:
        return False
    _tried = True
    path = os.environ.get("OTHELLO_ENGINE_WEIGHTS") or DEFAULT_PATH
    try:
        load(path)
    except WeightsError as exc:
        load_error = f"pattern evaluation unavailable ({exc}); using the classic evaluation"
        return False
    return True


def use(path: Optional[str] = None) -> Optional[str]:
    """Make the weights of path (None: the shipped ones) the pattern evaluation of this process;
    returns None when it is available, else why not (for scripts)."""
    if path is None:
        return None if ensure_loaded() else load_error
    try:
        load(path)
    except WeightsError as exc:
        return str(exc)
    return None
