"""Content verification of the study's cached files, on every read.

Two kinds of files are read from the cache over and over, and both are checked against a content
hash before anything is taken from them:

* **Raw files** of the registry (``resources/raw/<registry path>``, or the mirror itself): a file
  whose path ends with a registered path (``.../uci/letter/letter-recognition.data``) must have the
  registry's payload sha256 (decompressed for ``.gz`` files, as :func:`bnstudy.data.fetch_raw_file`
  checks it). Every reader of the library (:mod:`bnstudy.data.readers`, the BIF and Hugin readers)
  calls :func:`verify_raw_file` or :func:`read_raw_payload` first. Files that are not in the
  registry (a user's own BIF file) are read as they are.
* **Prepared files** (``resources/datasets/<name>.npz``, forward samples): written by
  :func:`save_verified_npz`, which stores the sha256 of the arrays as stored
  (:func:`npz_content_sha256`) under the key :data:`CONTENT_HASH_KEY` inside the file;
  :func:`load_verified_npz` recomputes it on every load. A changed array (say, shuffled labels
  written back with ``numpy.savez``) no longer matches, however old its modification time.

A mismatch raises :class:`ChecksumError` (a ``ValueError``) naming the file, both hashes and how to
rebuild the file, so a workflow job fails before it computes anything from it.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from bnstudy.data.registry import RAW_FILES, RawFile
from bnstudy.utils import atomic_path

__all__ = [
    "CONTENT_HASH_KEY",
    "ChecksumError",
    "arrays_sha256",
    "load_verified_npz",
    "npz_content_sha256",
    "payload_sha256",
    "read_raw_payload",
    "registered_raw_file",
    "save_verified_npz",
    "verify_raw_file",
]

PathLike = str | os.PathLike

CONTENT_HASH_KEY = "content_sha256"
"""Key of the content hash inside a verified ``.npz`` (see :func:`arrays_sha256`)."""

_CHUNK = 1 << 20
_GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)

_BY_NAME: dict[str, list[RawFile]] = {}
for _raw in RAW_FILES.values():
    _BY_NAME.setdefault(Path(_raw.path).name, []).append(_raw)


class ChecksumError(ValueError):
    """A file's content does not have the hash it was registered or written with."""


def _rebuild_hint(path: PathLike) -> str:
    return (
        f"rebuild it with `snakemake --cores 1 --force {path}` (or delete it and rerun the "
        "workflow); outputs made from it are rebuilt after it"
    )


def _payload_digest(path: Path, compressed: bool) -> str:
    digest = hashlib.sha256()
    opener = gzip.open if compressed else open
    with opener(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def payload_sha256(path: PathLike) -> str:
    """Hex sha256 of a file's payload, decompressing it first when its name ends with ``.gz``.

    Parameters
    ----------
    path : path-like
        The file; read in chunks, so large files do not need to fit in memory.

    Returns
    -------
    str
        The hex digest.
    """
    path = Path(path)
    return _payload_digest(path, path.name.endswith(".gz"))


def registered_raw_file(path: PathLike) -> RawFile | None:
    """The registry entry whose path ``path`` ends with, or None for a file outside the registry.

    Examples
    --------
    >>> registered_raw_file("resources/raw/bif/alarm.bif.gz").path
    'bif/alarm.bif.gz'
    >>> registered_raw_file("my_networks/alarm.bif.gz") is None
    True
    """
    candidates = _BY_NAME.get(Path(path).name)
    if not candidates:
        return None
    full = Path(os.path.abspath(path)).as_posix()
    for raw in candidates:
        if full.endswith("/" + raw.path):
            return raw
    return None


def _raw_mismatch(path: PathLike, raw: RawFile, actual: str) -> ChecksumError:
    return ChecksumError(
        f"{path}: raw file {raw.path!r} does not match the registry (it changed after it was "
        f"fetched): expected sha256 {raw.sha256_content}, found {actual}; {_rebuild_hint(path)}"
    )


def verify_raw_file(path: PathLike) -> RawFile | None:
    """Check a raw file against the registry's payload sha256 before it is read.

    Parameters
    ----------
    path : path-like
        The file. It is checked when its path ends with a registered raw path (see
        :func:`registered_raw_file`); other files are left alone.

    Returns
    -------
    RawFile or None
        The registry entry it was verified against, None for a file outside the registry.

    Raises
    ------
    ChecksumError
        If the payload's sha256 differs from the registry's (a truncated ``.gz`` counts as a
        mismatch). The message names the file, both hashes and how to rebuild it.
    FileNotFoundError
        If the file does not exist.
    """
    raw = registered_raw_file(path)
    if raw is None:
        return None
    try:
        actual = _payload_digest(Path(path), raw.compressed)
    except _GZIP_ERRORS as exc:
        actual = f"<payload unreadable: {exc}>"
    if actual != raw.sha256_content:
        raise _raw_mismatch(path, raw, actual)
    return raw


def read_raw_payload(path: PathLike) -> bytes:
    """The payload of a file (gzip-decompressed when its name ends with ``.gz``), verified.

    A registered raw file (see :func:`registered_raw_file`) is checked against the registry's
    payload sha256 from the bytes read, so it is read and decompressed once.

    Raises
    ------
    ChecksumError
        If a registered file does not verify.
    ValueError
        If a ``.gz`` file outside the registry cannot be decompressed (naming the file).
    FileNotFoundError
        If the file does not exist.
    """
    path = Path(path)
    data = path.read_bytes()
    raw = registered_raw_file(path)
    error: Exception | None = None
    if path.name.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except _GZIP_ERRORS as exc:
            error = exc
    if raw is not None:
        actual = (
            f"<payload unreadable: {error}>"
            if error is not None
            else hashlib.sha256(data).hexdigest()
        )
        if actual != raw.sha256_content:
            raise _raw_mismatch(path, raw, actual)
    if error is not None:
        raise ValueError(
            f"{path}: not a readable gzip file (truncated or corrupt): {error}"
        ) from error
    return data


def arrays_sha256(arrays: Mapping[str, np.ndarray]) -> str:
    """Hex sha256 of named arrays: every key (sorted), its dtype, shape and C-order bytes.

    A digest of what arrays hold, whatever file they came from (the key :data:`CONTENT_HASH_KEY`
    is left out); used to compare contents. The hash a verified ``.npz`` records is
    :func:`npz_content_sha256`, which is cheaper to check.
    """
    digest = hashlib.sha256()
    for key in sorted(arrays):
        if key == CONTENT_HASH_KEY:
            continue
        arr = np.ascontiguousarray(arrays[key])
        if arr.dtype.hasobject:
            raise ValueError(f"array {key!r} has dtype object, which has no stable content hash")
        digest.update(f"{key}\0{arr.dtype.str}\0{arr.shape}\0".encode())
        digest.update(arr.reshape(-1).view(np.uint8) if arr.size else b"")
    return digest.hexdigest()


_HASH_MEMBER = f"{CONTENT_HASH_KEY}.npy"


def npz_content_sha256(data: bytes) -> str:
    """Hex sha256 of the stored members of an ``.npz`` (other than the recorded hash).

    Every member's name, stored size and stored (compressed) bytes, in name order: any change of
    an array changes them, and hashing them costs a pass over the compressed file rather than over
    the decompressed arrays (numpy's ``zipfile`` also checks each member's CRC-32 when it loads).

    Parameters
    ----------
    data : bytes
        The whole ``.npz`` file.

    Raises
    ------
    zipfile.BadZipFile
        If ``data`` is not a zip archive.
    """
    digest = hashlib.sha256()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for info in sorted(zf.infolist(), key=lambda i: i.filename):
            if info.filename == _HASH_MEMBER:
                continue
            offset = info.header_offset
            if data[offset : offset + 4] != b"PK\x03\x04":
                raise zipfile.BadZipFile(f"no local header for member {info.filename!r}")
            name_len = int.from_bytes(data[offset + 26 : offset + 28], "little")
            extra_len = int.from_bytes(data[offset + 28 : offset + 30], "little")
            start = offset + 30 + name_len + extra_len
            stored = data[start : start + info.compress_size]
            if len(stored) != info.compress_size:
                raise zipfile.BadZipFile(f"member {info.filename!r} is cut short")
            digest.update(f"{info.filename}\0{info.compress_size}\0".encode())
            digest.update(stored)
    return digest.hexdigest()


def save_verified_npz(dest: PathLike, **arrays: np.ndarray) -> str:
    """Write ``arrays`` to a compressed ``.npz`` atomically, with its content hash inside.

    The hash (:func:`npz_content_sha256` of the arrays as stored) is one more member,
    :data:`CONTENT_HASH_KEY`, so the file stays one self-contained ``.npz``.

    Returns
    -------
    str
        The recorded hash.
    """
    if CONTENT_HASH_KEY in arrays:
        raise ValueError(f"{CONTENT_HASH_KEY!r} is reserved for the content hash")
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    digest = npz_content_sha256(buffer.getvalue())
    member = io.BytesIO()
    np.lib.format.write_array(member, np.array(digest), allow_pickle=False)
    with zipfile.ZipFile(buffer, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(_HASH_MEMBER, member.getvalue())
    with atomic_path(dest) as tmp:
        tmp.write_bytes(buffer.getvalue())
    return digest


def load_verified_npz(path: PathLike) -> dict[str, np.ndarray]:
    """Every array of a ``.npz`` written by :func:`save_verified_npz`, after checking its hash.

    The file is read once; its stored members are hashed (:func:`npz_content_sha256`) and
    compared with the hash recorded when it was written before any array is returned.

    Raises
    ------
    ChecksumError
        If the file is not a readable ``.npz``, records no content hash, or its content differs
        from the recorded hash; the message names the file, both hashes and how to rebuild it.
    FileNotFoundError
        If the file does not exist.
    """
    data = Path(path).read_bytes()
    try:
        actual = npz_content_sha256(data)
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {key: npz[key] for key in npz.files}
    except Exception as exc:  # zipfile / numpy format errors on a damaged file
        raise ChecksumError(
            f"{path}: not a readable .npz file ({type(exc).__name__}: {exc}); {_rebuild_hint(path)}"
        ) from exc
    if CONTENT_HASH_KEY not in arrays:
        raise ChecksumError(
            f"{path}: no content hash recorded (key {CONTENT_HASH_KEY!r}), so its content cannot "
            f"be verified: expected sha256 <none recorded>, found {actual}; {_rebuild_hint(path)}"
        )
    recorded = str(arrays.pop(CONTENT_HASH_KEY))
    if actual != recorded:
        raise ChecksumError(
            f"{path}: content changed after it was written: expected sha256 {recorded} (recorded "
            f"when written), found {actual}; {_rebuild_hint(path)}"
        )
    return arrays
