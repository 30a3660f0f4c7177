"""Fixtures shared by the structure-learning tests: the alarm network and 20000 rows of it."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.networks import forward_sample, load_network

#: Rows of the shared alarm sample (seed 0).
N = 20000


@pytest.fixture(scope="module")
def alarm(mirror):
    return load_network(mirror / "bif" / "alarm.bif.gz")


@pytest.fixture(scope="module")
def alarm_data(alarm):
    """20000 forward samples of alarm (seed 0); a module that needs other rows overrides it."""
    return forward_sample(alarm, N, rng=np.random.default_rng(0))


@pytest.fixture(scope="module")
def cards(alarm):
    return [alarm.cardinality[v] for v in alarm.nodes]
