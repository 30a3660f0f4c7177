"""Fixtures for the classifier tests: small synthetic TAN data and the authors' letter data."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bnstudy.data.readers import ClassificationSplit


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny models: one intra-op thread avoids OpenMP wake-up costs on a loaded machine."""
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


def sample_tan(
    parents: np.ndarray,
    n_states: np.ndarray,
    n_classes: int,
    n: int,
    rng: np.random.Generator,
    *,
    copy_prob: float = 0.85,
) -> tuple[np.ndarray, np.ndarray]:
    """Forward-sample a TAN whose features depend strongly on their feature parent.

    Roots are uniform; a child copies ``(x_parent + c) mod k`` with probability ``copy_prob`` and
    is uniform otherwise. Every feature alone is independent of the class, so naive Bayes is at
    chance while the TAN structure identifies the class.
    """
    parents = np.asarray(parents)
    D = parents.size
    y = rng.integers(0, n_classes, size=n)
    x = np.zeros((n, D), dtype=np.int64)
    done = np.zeros(D, dtype=bool)
    while not done.all():
        for d in range(D):
            pa = parents[d]
            if done[d] or (pa >= 0 and not done[pa]):
                continue
            k = n_states[d]
            if pa < 0:
                x[:, d] = rng.integers(0, k, size=n)
            else:
                copy = rng.random(n) < copy_prob
                x[:, d] = np.where(copy, (x[:, pa] + y) % k, rng.integers(0, k, size=n))
            done[d] = True
    return x, y


@pytest.fixture(scope="session")
def tan_data() -> dict:
    """A 6-feature chain-and-branch TAN, 3 states, 3 classes, 3000 train / 2000 test rows."""
    rng = np.random.default_rng(7)
    parents = np.array([-1, 0, 1, 1, 3, 0])
    n_states = np.full(6, 3)
    x, y = sample_tan(parents, n_states, 3, 5000, rng)
    fold = ClassificationSplit(x[:3000], y[:3000], x[3000:], y[3000:], np.arange(3))
    return {"parents": parents, "n_states": n_states, "n_classes": 3, "fold": fold}


@pytest.fixture(scope="session")
def mixed_tan_data() -> dict:
    """A 7-feature TAN with 2 to 8 states per feature (weaker copies), 3 classes, 3000/1000 rows."""
    rng = np.random.default_rng(11)
    parents = np.array([-1, 0, 1, 1, 3, 0, 5])
    n_states = np.array([2, 6, 3, 8, 4, 5, 7])
    x, y = sample_tan(parents, n_states, 3, 4000, rng, copy_prob=0.5)
    fold = ClassificationSplit(x[:3000], y[:3000], x[3000:], y[3000:], np.arange(3))
    return {"parents": parents, "n_states": n_states, "n_classes": 3, "fold": fold}


@pytest.fixture(scope="session")
def letter(mirror) -> dict:
    """The authors' discretized letter data (one split) and its MI graph."""
    from bnstudy.data.readers import read_bnc, read_bnc_mi

    fold = read_bnc(mirror / "bnc" / "letter.npz")[0]
    mi = read_bnc_mi(mirror / "bnc" / "letter_mi.npz")[0]
    n_states = np.maximum(fold.x_train.max(axis=0), fold.x_test.max(axis=0)) + 1
    return {"fold": fold, "mi": mi, "n_states": n_states}
