"""Tables I-IV describe the partition LSBN uses (workflow/scripts/summarize_lsbn_ropart.py)."""

from __future__ import annotations

import types

import numpy as np
import pandas as pd
import pytest

from bnstudy.data.integrity import save_verified_npz
from bnstudy.structure.lsbn import prepare
from bnstudy.structure.ropart import partition_statistics
from bnstudy.studies.lsbn.prepared import save_prepared

from .conftest import load_script

SETTINGS = {
    "weight_functions": ["MI", "Pearson"],
    "bins": 20,
    "second_order_threshold": 0.5,
    "mb_weight": "MI",
    "mb_alpha": 0.05,
}


@pytest.fixture(scope="module")
def summarize(repo_root):
    return load_script(repo_root, "summarize_lsbn_ropart")


def test_statistics_are_those_of_lsbns_partition(summarize, tmp_path, monkeypatch):
    # a chain over columns 1..5 and a column constant in the sample (column 0): LSBN's ROPART
    # runs on the five others, and the tables must describe that partition, in the dataset's
    # column indices
    rng = np.random.default_rng(0)
    n = 400
    x = np.zeros((n, 6), dtype=np.int64)
    x[:, 1] = rng.integers(0, 2, n)
    for j in range(2, 6):
        flip = rng.random(n) < 0.15
        x[:, j] = np.where(flip, 1 - x[:, j - 1], x[:, j - 1])
    nodes = np.array([f"v{j}" for j in range(6)])
    save_verified_npz(tmp_path / "samples.npz", samples=x, nodes=nodes)
    prepared = prepare(x, **SETTINGS)
    assert prepared.columns.tolist() == [1, 2, 3, 4, 5]
    save_prepared(tmp_path / "prepared.npz", prepared)
    edges = [(f"v{j}", f"v{j + 1}") for j in range(1, 5)]
    monkeypatch.setattr(summarize, "load_network", lambda path: types.SimpleNamespace(edges=edges))

    dest = tmp_path / "statistics.csv"
    summarize.main("net.bif", tmp_path / "samples.npz", tmp_path / "prepared.npz", dest,
                   name="chain", rep=0)  # fmt: skip
    table = pd.read_csv(dest).set_index("partition")
    res = prepared.ropart
    assert list(table.index) == [*res.partitions, "second_order"]
    for key, communities in {**res.partitions, "second_order": res.second_order}.items():
        threshold = res.second_order_threshold if key == "second_order" else res.thresholds[key]
        assert table.loc[key, "threshold"] == pytest.approx(threshold)
        shifted = [[c + 1 for c in community] for community in communities]
        true_edges = [(j, j + 1) for j in range(1, 5)]
        expected = partition_statistics(shifted, true_edges, 6)
        for column, value in expected.items():
            assert table.loc[key, column] == pytest.approx(value, nan_ok=True), (key, column)
