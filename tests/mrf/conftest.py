"""Fixtures for the MRF tests: small graphs and a brute-force reference over all states."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bnstudy.mrf import BinaryPairwiseMRF, PairwiseGraph, grid


def all_states(p: int) -> np.ndarray:
    """Every state of ``p`` binary nodes, ``(2^p, p)`` int8 (independent of the library's code)."""
    return np.array(list(itertools.product((0, 1), repeat=p)), dtype=np.int8)


def brute_force(graph: PairwiseGraph, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All states and their exact probabilities, from the unnormalised measure alone."""
    states = all_states(graph.n_nodes)
    logp = BinaryPairwiseMRF(graph, theta).log_unnormalized(states)
    p = np.exp(logp - logp.max())
    return states, p / p.sum()


@pytest.fixture
def grid3() -> PairwiseGraph:
    return grid(3, 3)


@pytest.fixture
def grid4() -> PairwiseGraph:
    return grid(4, 4)
