"""Fixtures of the study-layer tests: the papers' claims catalog of workflow/published/."""

from __future__ import annotations

import pytest

from bnstudy.studies.claims import read_catalog


@pytest.fixture(scope="session")
def catalog_path(repo_root):
    return repo_root / "workflow" / "published" / "claims.tsv"


@pytest.fixture(scope="session")
def catalogs(catalog_path):
    return {p: read_catalog(catalog_path, p) for p in ("tan", "em", "mrf", "lsbn")}
