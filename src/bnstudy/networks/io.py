"""Load a benchmark network from a file, choosing the reader by the file name's suffix."""

from __future__ import annotations

import os
from pathlib import Path

from bnstudy.networks.bif import read_bif
from bnstudy.networks.bn import DiscreteBayesianNetwork
from bnstudy.networks.hugin import read_net

__all__ = ["SUPPORTED_SUFFIXES", "load_network"]

#: File name endings :func:`load_network` understands, and the reader for each.
SUPPORTED_SUFFIXES = (".bif", ".bif.gz", ".net")


def load_network(path: str | os.PathLike) -> DiscreteBayesianNetwork:
    """Read a discrete Bayesian network: BIF (``.bif``, ``.bif.gz``) or Hugin (``.net``).

    Parameters
    ----------
    path : path-like

    Returns
    -------
    DiscreteBayesianNetwork
        Named after the file stem without the format suffixes (``alarm.bif.gz`` -> ``"alarm"``,
        ``adapt10_v7e.net`` -> ``"adapt10_v7e"``).

    Raises
    ------
    ValueError
        If the suffix is not one of :data:`SUPPORTED_SUFFIXES` (the message names the path and the
        supported suffixes), or the file is malformed (the message names the file and line).
    FileNotFoundError
        If the file does not exist.
    """
    path = Path(path)
    name = path.name.lower()
    if name.endswith((".bif", ".bif.gz")):
        return read_bif(path)
    if name.endswith(".net"):
        return read_net(path)
    raise ValueError(
        f"cannot load network from {str(path)!r}: unsupported file type "
        f"(supported suffixes: {', '.join(SUPPORTED_SUFFIXES)})"
    )
