"""Small shared helpers: atomic file output, seed derivation, canonical params and run provenance.

Every rule's outputs are written through :func:`atomic_path`, so an interrupted or failing step never
leaves a file that a later rule would take for a finished result.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

__all__ = [
    "atomic_path",
    "canonical",
    "derive_seed",
    "make_rng",
    "provenance",
    "save_npz",
    "sha256_of",
]


@contextlib.contextmanager
def atomic_path(dest: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``dest``; move it onto ``dest`` only if the block succeeds.

    Parameters
    ----------
    dest : path-like
        The final file. Its parent directory is created if missing.

    Yields
    ------
    pathlib.Path
        A fresh path in the same directory (so the final ``os.replace`` is atomic). The block writes
        to it; on any exception the temporary file is removed and ``dest`` is left untouched.

    Notes
    -----
    ``tempfile.mkstemp`` creates its file with mode 0600; before the move the file gets the mode
    a plain ``open(dest, "w")`` would have given it (0666 less the process umask), so outputs are
    as readable as the user's umask says.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        if tmp_path.exists():
            os.chmod(tmp_path, 0o666 & ~_umask())
        os.replace(tmp_path, dest)
    finally:
        tmp_path.unlink(missing_ok=True)


def _umask() -> int:
    """The process umask (read by setting it and setting it back: there is no getter)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def save_npz(dest: str | os.PathLike, **arrays: np.ndarray) -> None:
    """Write ``arrays`` to a compressed ``.npz`` at ``dest`` atomically.

    Written by a workflow job, the file also holds ``provenance``: the JSON record of the job
    (code hash, git commit and dirty flag, package versions; :func:`bnstudy.provenance.provenance`).
    """
    from bnstudy.provenance import job_code, npz_provenance

    if job_code() is not None and "provenance" not in arrays:
        arrays = {**arrays, "provenance": np.array(npz_provenance())}
    with atomic_path(dest) as tmp, open(tmp, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def sha256_of(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def derive_seed(base_seed: int, *keys: object) -> int:
    """Derive a 63-bit seed from a base seed and any number of keys (wildcard values).

    The result depends only on the values, not on the order in which jobs run or on the machine,
    so ``rep=3`` of an experiment gets the same seed everywhere.

    Examples
    --------
    >>> derive_seed(1, "alarm", 3) == derive_seed(1, "alarm", 3)
    True
    >>> derive_seed(1, "alarm", 3) != derive_seed(1, "alarm", 4)
    True
    """
    text = "\x1f".join([str(int(base_seed)), *map(str, keys)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def canonical(value: object) -> object:
    """A config value with the keys of every mapping in it sorted (lists keep their order).

    Snakemake decides whether a job's ``params`` changed by comparing their ``repr``, and a
    dict's ``repr`` follows its insertion order, that is the order of the keys in the YAML file.
    A rule's params built from a config mapping go through this function, so that reordering the
    keys of a config file reruns nothing, while any changed value still does.

    Examples
    --------
    >>> canonical({"b": 1, "a": {"d": [2, 1], "c": 0}})
    {'a': {'c': 0, 'd': [2, 1]}, 'b': 1}
    >>> repr(canonical({"x": 1, "y": 2})) == repr(canonical({"y": 2, "x": 1}))
    True
    """
    if isinstance(value, Mapping):
        return {key: canonical(value[key]) for key in sorted(value, key=str)}
    if isinstance(value, list | tuple):
        return [canonical(item) for item in value]
    return value


def make_rng(base_seed: int, *keys: object) -> np.random.Generator:
    """A numpy Generator seeded by :func:`derive_seed`."""
    return np.random.default_rng(derive_seed(base_seed, *keys))


def provenance(seed: int | None = None) -> dict[str, object]:
    """Record of what produced a result row: see :func:`bnstudy.provenance.provenance`.

    ``bnstudy_version``, ``git_commit``, ``git_dirty`` (uncommitted changes to the code), the
    job's ``code_hash`` (its script and the library modules it imports) and, given one, ``seed``.
    """
    from bnstudy.provenance import provenance as _provenance

    return _provenance(seed)
