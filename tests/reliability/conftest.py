"""The reference run of the fault-injection tier (helpers in _dag.py)."""

from __future__ import annotations

import pytest

from ._dag import SMOKE, TARGETS, copy_tree, snakemake


@pytest.fixture(scope="session")
def built_tree(repo_root, mirror, tmp_path_factory):
    """The targets run to completion, uninterrupted: the reference every test compares with."""
    tree = copy_tree(repo_root, tmp_path_factory.mktemp("reference"))
    run = snakemake(tree, ["--cores", "2", *SMOKE, *TARGETS], mirror)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    return tree
