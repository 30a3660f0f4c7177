"""Shared fixtures: the verified offline data mirror that every reader test runs on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def _mirror_dir() -> Path:
    env = os.environ.get("BNSTUDY_DATA_MIRROR")
    return Path(env).resolve() if env else (REPO_ROOT.parent / "shared" / "data").resolve()


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The data mirror (``$BNSTUDY_DATA_MIRROR``, else ``../shared/data``); absent means a broken setup."""
    path = _mirror_dir()
    if not (path / "MANIFEST.tsv").is_file():
        raise RuntimeError(
            f"data mirror not found at {path}: set BNSTUDY_DATA_MIRROR to a directory laid out like "
            "../shared/data (with MANIFEST.tsv)"
        )
    return path


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT
