"""The pattern evaluation's weights file: its format, checks, and loading it into the core.

A weights file is a 32-byte header followed by a zlib stream of little-endian int16 weights
(centi-discs), ``phases`` tables of ``entries`` each (the layout of ``othello_engine._pattern``):

    offset  size  field
    0       4     magic b"OEPW"
    4       2     format version (1)
    6       2     pattern layout id (1: the eleven families of _pattern.pxi, 4 scalar terms, 8x8;
                  2: the six families of _pattern_n.pxi, 5 scalar terms, any other size 6..26)
    8       2     board size
    10      2     phase count
    12      4     entries per phase
    16      4     length of the zlib stream
    20      4     CRC-32 of the uncompressed weights
    24      8     reserved (zero)

The shipped files are ``othello_engine/data/evalN.weights``, one a size N (8x8's is
``eval8.weights``); :func:`ensure_loaded` loads 8x8's once per process, :func:`ensure_loaded_size`
another size's on its first use. A missing or corrupt file leaves the engine on the classic
evaluation, with the reason in :data:`load_error` (8x8) or :func:`size_error` (the protocol
adapters say it once: an ``info string`` line in UCI, a ``status`` line in NBoard, a line on
standard error in GTP). ``OTHELLO_ENGINE_WEIGHTS`` names another file for 8x8,
``OTHELLO_ENGINE_WEIGHTS_DIR`` another folder of ``evalN.weights`` (its ``eval8.weights``, where
it has one, for 8x8 too unless ``OTHELLO_ENGINE_WEIGHTS`` is set).
"""

from __future__ import annotations

import array
import os
import stat
import struct
import sys
import zlib
from typing import Optional, Union

from othello_engine import _core, atomicfile

MAGIC = b"OEPW"
FORMAT_VERSION = 1
LAYOUT = _core.PATTERN_LAYOUT
LAYOUT_N = _core.PATTERN_N_LAYOUT
HEADER = struct.Struct("<4sHHHHIII8x")
MAX_STREAM = 64 << 20
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
DEFAULT_PATH = os.path.join(DATA_DIR, "eval8.weights")

#: why the pattern evaluation is not available (None once weights are loaded or before trying)
load_error: Optional[str] = None
#: the file the loaded weights came from
loaded_path: Optional[str] = None
#: the files the other sizes' loaded weights came from, by size
loaded_paths: dict[int, str] = {}
_tried = False
_size_errors: dict[int, str] = {}     # the other sizes: why their learned evaluation is unavailable
_size_notes: dict[int, str] = {}      # the other sizes that borrow another size's weights: which
_size_tried: set[int] = set()


def shape(size: int = 8) -> tuple[int, int, int]:
    """(layout id, phases, entries per phase) of the weights of a size x size board.

    >>> shape(8)[0], shape(10)[0]
    (1, 2)
    """
    if size == 8:
        return LAYOUT, _core.PATTERN_PHASES, _core.PATTERN_ENTRIES
    if not 6 <= size <= 26:
        raise WeightsError(f"no pattern evaluation for {size}x{size} (sizes 6..26)")
    return LAYOUT_N, _core.PATTERN_N_PHASES, _core.pattern_n_entries(size)


class WeightsError(ValueError):
    """A weights file that cannot be used (missing, truncated, corrupt or of another layout)."""


def encode(weights: "Union[array.array[int], bytes]", size: int = 8) -> bytes:
    """A whole weights file of a size x size board from its phases * entries int16 (see shape)."""
    layout, phases, entries = shape(size)
    raw = array.array("h", weights) if not isinstance(weights, array.array) else weights
    if len(raw) != phases * entries:
        raise WeightsError(f"{len(raw)} weights, expected {phases} x {entries}")
    if sys.byteorder != "little":
        raw = array.array("h", raw)
        raw.byteswap()
    data = raw.tobytes()
    stream = zlib.compress(data, 9)
    header = HEADER.pack(MAGIC, FORMAT_VERSION, layout, size, phases, entries, len(stream),
                         zlib.crc32(data))
    return header + stream


def decode(blob: bytes, name: str = "weights", size: int = 8) -> "array.array[int]":
    """The int16 weights of a weights file's bytes for a size x size board, every header field and
    the checksum checked."""
    want_layout, want_phases, want_entries = shape(size)
    if len(blob) < HEADER.size:
        raise WeightsError(f"{name}: truncated header ({len(blob)} bytes)")
    magic, version, layout, fsize, phases, entries, length, crc = HEADER.unpack_from(blob)
    if magic != MAGIC:
        raise WeightsError(f"{name}: not a weights file (bad magic {magic!r})")
    if version != FORMAT_VERSION:
        raise WeightsError(f"{name}: format version {version}, this engine reads {FORMAT_VERSION}")
    if layout != want_layout or fsize != size:
        raise WeightsError(f"{name}: pattern layout {layout} for {fsize}x{fsize}, this engine has "
                           f"layout {want_layout} for {size}x{size}")
    if phases != want_phases or entries != want_entries:
        raise WeightsError(f"{name}: {phases} phases of {entries} entries, expected "
                           f"{want_phases} of {want_entries}")
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


def read(path: str, size: int = 8) -> "array.array[int]":
    """The weights of the file at path for a size x size board (WeightsError when it cannot be
    used)."""
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
    return decode(blob, os.path.basename(path), size)


def write(path: str, weights: "array.array[int]", size: int = 8) -> None:
    """Write a weights file in one step (atomicfile: a reader never sees half a file, and a
    failed or interrupted write leaves the old one); WeightsError names the file when it cannot
    be written."""
    blob = encode(weights, size)
    try:
        atomicfile.write_bytes(path, blob)
    except OSError as exc:
        raise WeightsError(f"{path}: cannot write ({exc.strerror or exc})") from None


def load(path: str, size: int = 8, file_size: Optional[int] = None) -> None:
    """Install the weights of path for every search of this process on size x size boards (no
    search may be running). file_size: the size the file was made for, when it is another one
    with the same pattern layout (a size without weights of its own borrows them)."""
    global load_error, loaded_path, _tried
    if size != 8:
        _core.set_pattern_weights_n(size, read(path, file_size or size))
        _size_errors.pop(size, None)
        _size_tried.add(size)
        loaded_paths[size] = path
        return
    _core.set_pattern_weights(read(path))
    load_error = None
    loaded_path = path
    _tried = True


def ensure_loaded() -> bool:
    """Load 8x8's weights once (the file of :func:`size_path`); True when a
    pattern evaluation is available. A failure is kept in load_error, and the classic
    evaluation is used."""
    global load_error, _tried
    if _core.pattern_weights_loaded():
        return True
    if _tried:
        return False
    _tried = True
    path = size_path(8)
    try:
        load(path)
    except WeightsError as exc:
        load_error = f"pattern evaluation unavailable ({exc}); using the classic evaluation"
        return False
    return True


def size_path(size: int) -> str:
    """The weights file of a size x size board: OTHELLO_ENGINE_WEIGHTS_DIR's or the shipped
    folder's ``evalN.weights``. For 8x8, OTHELLO_ENGINE_WEIGHTS first, then the folder's
    eval8.weights where it has one, else the shipped file (a folder made for other sizes alone
    leaves 8x8 on its shipped weights)."""
    path = os.path.join(os.environ.get("OTHELLO_ENGINE_WEIGHTS_DIR") or DATA_DIR, f"eval{size}.weights")
    if size == 8:
        return os.environ.get("OTHELLO_ENGINE_WEIGHTS") or (path if os.path.exists(path) else DEFAULT_PATH)
    return path


def donor_size(size: int) -> Optional[int]:
    """The size whose weights a size x size board without a file of its own borrows: the nearest
    size (the smaller of two as near) that has a file and the same pattern layout, so that its
    edge, corner and line tables read the same squares from the corners in; None when there is
    none (4x4, 5x5 and 7x7 have no such size, nor does 8x8 lend its layout-1 weights)."""
    if not 6 <= size <= 26 or size == 8:
        return None
    entries = _core.pattern_n_entries(size)
    lenders = [n for n in range(6, 27) if n not in (8, size)
               and _core.pattern_n_entries(n) == entries and os.path.isfile(size_path(n))]
    return min(lenders, key=lambda n: (abs(n - size), n), default=None)


def ensure_loaded_size(size: int) -> bool:
    """Load the weights of a size x size board once (8x8: :func:`ensure_loaded`); True when its
    learned evaluation is available, else the reason is in :func:`size_error`. A size without a
    weights file borrows those of :func:`donor_size` and says so in :func:`size_note`."""
    if size == 8:
        return ensure_loaded()
    if _core.pattern_weights_loaded_n(size) if 6 <= size <= 26 else False:
        return True
    if size in _size_tried:
        return False
    _size_tried.add(size)
    try:
        if not 6 <= size <= 26:
            raise WeightsError("no pattern layout for this size")
        path = size_path(size)
        donor = None if os.path.exists(path) else donor_size(size)
        if donor is None:
            load(path, size)
        else:
            load(size_path(donor), size, donor)
            _size_notes[size] = (f"pattern evaluation on {size}x{size} uses the {donor}x{donor} "
                                 f"weights (there are none of its own)")
    except WeightsError as exc:
        _size_errors[size] = (f"pattern evaluation unavailable on {size}x{size} ({exc}); "
                              "using the classic evaluation")
        return False
    return True


def size_error(size: int) -> Optional[str]:
    """Why the learned evaluation of a size x size board is unavailable (after
    :func:`ensure_loaded_size`), else None."""
    if size == 8:
        return load_error
    return _size_errors.get(size)


def size_note(size: int) -> Optional[str]:
    """How a size x size board's learned evaluation was found when it borrows another size's
    weights (after :func:`ensure_loaded_size`), else None."""
    return _size_notes.get(size)


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
