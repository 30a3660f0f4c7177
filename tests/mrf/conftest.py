"""Fixtures for the MRF tests: small graphs."""

from __future__ import annotations

import pytest

from bnstudy.mrf import PairwiseGraph, grid


@pytest.fixture
def grid3() -> PairwiseGraph:
    return grid(3, 3)


@pytest.fixture
def grid4() -> PairwiseGraph:
    return grid(4, 4)
