"""Fixtures for the parameter-learning tests: a small hand-made network, alarm and mini-ADAPT."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bnstudy.networks import DiscreteBayesianNetwork, load_network
from bnstudy.studies.em.mini_adapt import build_mini_adapt


def random_cpts(
    parents: dict[str, list[str]], card: dict[str, int], rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Random CPTs (rows from a Dirichlet(2) so that no entry is extreme)."""
    out = {}
    for v, k in card.items():
        shape = (*[card[p] for p in parents.get(v, [])], k)
        out[v] = rng.dirichlet(np.full(k, 2.0), size=int(np.prod(shape[:-1]))).reshape(shape)
    return out


@pytest.fixture(scope="session")
def small_bn() -> DiscreteBayesianNetwork:
    """Six nodes, mixed cardinalities: H -> A, H -> B, A -> C, (B, C) -> D, plus twins A2 ~ A.

    ``A`` and ``A2`` have the same parent (H) and cardinality, so they can share a CPT.
    """
    parents = {"A": ["H"], "A2": ["H"], "B": ["H"], "C": ["A"], "D": ["B", "C"]}
    card = {"H": 2, "A": 3, "A2": 3, "B": 2, "C": 2, "D": 3}
    cpts = random_cpts(parents, card, np.random.default_rng(20140731))
    cpts["A2"] = cpts["A"].copy()
    states = {v: [f"s{i}" for i in range(k)] for v, k in card.items()}
    return DiscreteBayesianNetwork(list(card), parents, cpts, states, name="small")


@pytest.fixture(scope="session")
def alarm(mirror: Path) -> DiscreteBayesianNetwork:
    return load_network(mirror / "bif" / "alarm.bif.gz")


@pytest.fixture(scope="session")
def adapt(mirror: Path) -> DiscreteBayesianNetwork:
    return load_network(mirror / "adapt" / "adapt10_v7e.net")


@pytest.fixture(scope="session")
def mini_adapt(adapt: DiscreteBayesianNetwork) -> DiscreteBayesianNetwork:
    return build_mini_adapt(adapt)
