"""One matplotlib style for every figure of the study, and the figure helpers of each paper.

Importing this package selects the non-interactive Agg backend: figures are files, never windows.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from bnstudy.utils import atomic_path  # noqa: E402

__all__ = ["STYLE", "save_figure", "style"]

#: rcParams shared by every figure (sizes in inches, one column of a two-column paper is ~3.3).
STYLE = {
    "figure.dpi": 150,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


@contextmanager
def style() -> Iterator[None]:
    """Draw with :data:`STYLE`."""
    with plt.rc_context(STYLE):
        yield


def save_figure(fig: matplotlib.figure.Figure, dest: str | os.PathLike) -> None:
    """Save ``fig`` atomically (format from the suffix of ``dest``) and close it.

    The provenance of the figure is written beside it (:func:`bnstudy.provenance.write_sidecar`).
    """
    from bnstudy.provenance import write_sidecar

    write_sidecar(dest)
    suffix = os.path.splitext(os.fspath(dest))[1].lstrip(".") or "png"
    with atomic_path(dest) as tmp:
        fig.savefig(tmp, format=suffix)
    plt.close(fig)
