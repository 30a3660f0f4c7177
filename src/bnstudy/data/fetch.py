"""Verified fetch of raw data files: from a local mirror, a package-bundled copy, or a download.

Nothing appears at the destination unless its payload matched the registered sha256: every source
is copied into a temporary file beside the destination, verified, and only then moved into place
(:func:`bnstudy.utils.atomic_path`).
"""

from __future__ import annotations

import importlib.resources
import logging
import os
import shutil
import urllib.request
from collections.abc import Callable
from http.client import HTTPException
from pathlib import Path
from typing import Any

from bnstudy.data.integrity import _GZIP_ERRORS, ChecksumError, _payload_digest, payload_sha256
from bnstudy.data.registry import RawFile, raw_file
from bnstudy.utils import atomic_path

__all__ = [
    "MIRROR_ENV",
    "ChecksumError",
    "DataUnavailableError",
    "fetch_raw_file",
    "payload_sha256",
    "resolve_mirror",
    "verify_file",
]

logger = logging.getLogger(__name__)

MIRROR_ENV = "BNSTUDY_DATA_MIRROR"
"""Environment variable naming a directory laid out like the data mirror."""

_CHUNK = 1 << 20


class DataUnavailableError(RuntimeError):
    """No source (mirror, bundled copy, download) could provide a raw file."""


def resolve_mirror(mirror: str | os.PathLike | None = None) -> Path | None:
    """The mirror directory to use: ``mirror`` if given, else ``$BNSTUDY_DATA_MIRROR``, else None."""
    if mirror is not None:
        return Path(mirror).resolve()
    env = os.environ.get(MIRROR_ENV)
    return Path(env).resolve() if env else None


def verify_file(path: str | os.PathLike, raw: RawFile, *, source: str | None = None) -> None:
    """Check that the payload of ``path`` has ``raw.sha256_content``.

    Parameters
    ----------
    path : path-like
        The file to check; gzip-decompressed when ``raw.compressed``.
    raw : RawFile
        The registry entry it should match.
    source : str, optional
        Where the bytes came from, named in the error instead of ``path``.

    Raises
    ------
    ChecksumError
        On a mismatch, or when a ``.gz`` file cannot be decompressed.
    """
    path = Path(path)
    where = source or str(path)
    try:
        actual = _payload_digest(path, raw.compressed)
    except _GZIP_ERRORS as exc:
        actual = f"<payload unreadable: {exc}>"
    if actual != raw.sha256_content:
        raise ChecksumError(
            f"checksum mismatch for raw file {raw.path!r} from {where}: "
            f"expected sha256 {raw.sha256_content}, actual {actual}"
        )


_Copier = Callable[[Any, Path, float], None]


def _copy_mirror(src: Path, tmp: Path, timeout: float) -> None:
    shutil.copyfile(src, tmp)


def _copy_bundled(spec: str, tmp: Path, timeout: float) -> None:
    package, _, relative = spec.partition(":")
    resource = importlib.resources.files(package).joinpath(relative)
    with resource.open("rb") as src, open(tmp, "wb") as dst:
        shutil.copyfileobj(src, dst, _CHUNK)


def _download(url: str, tmp: Path, timeout: float) -> None:
    with urllib.request.urlopen(url, timeout=timeout) as response, open(tmp, "wb") as dst:
        shutil.copyfileobj(response, dst, _CHUNK)


def fetch_raw_file(
    path: str,
    dest: str | os.PathLike,
    *,
    mirror: str | os.PathLike | None = None,
    download: bool = True,
    timeout: float = 60.0,
) -> str:
    """Copy a registered raw file to ``dest``, verifying its sha256 before it appears there.

    Sources are tried in order: the mirror (``mirror/path``), the copy bundled in an installed
    package (``RawFile.bundled``), then each URL when ``download`` is true. The first source that
    can be read wins; it must then verify.

    Parameters
    ----------
    path : str
        Registry path of the raw file, e.g. ``"uci/satimage/sat.trn"``.
    dest : path-like
        Where to write it; keeps the raw bytes (still gzipped for ``.gz`` files).
    mirror : path-like, optional
        Mirror directory; defaults to ``$BNSTUDY_DATA_MIRROR`` (see :func:`resolve_mirror`).
    download : bool
        Whether to try the URLs.
    timeout : float
        Seconds per download attempt.

    Returns
    -------
    str
        The source used: ``"mirror:/abs/path"``, ``"pgmpy:..."`` or the URL.

    Raises
    ------
    ValueError
        If ``path`` is not registered.
    ChecksumError
        If a source exists but its payload does not verify (no other source is tried).
    DataUnavailableError
        If no source could be read; the message lists every place looked.
    """
    raw = raw_file(path)
    mirror_dir = resolve_mirror(mirror)

    sources: list[tuple[str, _Copier, object]] = []
    looked: list[str] = []
    if mirror_dir is not None:
        sources.append((f"mirror:{mirror_dir / raw.path}", _copy_mirror, mirror_dir / raw.path))
    else:
        looked.append(f"no mirror set ({MIRROR_ENV})")
    if raw.bundled is not None:
        sources.append((raw.bundled, _copy_bundled, raw.bundled))
    if download:
        sources.extend((url, _download, url) for url in raw.urls)
    notes = []
    if not raw.urls:
        notes.append(f"no download URL ({raw.note})" if raw.note else "no download URL")
    elif not download:
        notes.append(f"download disabled, not tried: {', '.join(raw.urls)}")

    with atomic_path(dest) as tmp:
        for label, copy, target in sources:
            try:
                copy(target, tmp, timeout)
            except (OSError, ValueError, HTTPException, ImportError) as exc:
                logger.debug("raw file %s not available from %s: %s", raw.path, label, exc)
                looked.append(f"{label} ({type(exc).__name__}: {exc})")
                continue
            verify_file(tmp, raw, source=label)
            logger.info("fetched %s from %s to %s", raw.path, label, dest)
            return label
        raise DataUnavailableError(
            f"raw file {raw.path!r} is not available; looked at: " + "; ".join(looked + notes)
        )
