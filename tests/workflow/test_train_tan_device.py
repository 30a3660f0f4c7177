"""train_tan's device: a GPU when present, with torch's deterministic kernels; the CPU untouched;
each run row records it. The rows a job trains on follow the fold's split seed.

The GPU branch runs here with ``torch.cuda.is_available`` patched (no GPU in the tests):
what it sets is torch's process-wide switch and one environment variable, both checked and
restored. ``benchmarks/check_tan_device.py`` shows on a GPU that the switch makes a job's reruns
equal to the bit.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
import torch

from .conftest import load_script


@pytest.fixture
def train_tan(repo_root):
    """workflow/scripts/train_tan.py as a module (its ``__main__`` block does not run)."""
    return load_script(repo_root, "train_tan")


@pytest.fixture
def restore_determinism(monkeypatch):
    """Give back torch's deterministic switch and CUBLAS_WORKSPACE_CONFIG as they were."""
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    before = torch.are_deterministic_algorithms_enabled()
    yield
    torch.use_deterministic_algorithms(before)


def test_cpu_leaves_torch_as_it_is(train_tan, restore_determinism, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    torch.use_deterministic_algorithms(False)
    assert train_tan.training_device() == "cpu"
    assert not torch.are_deterministic_algorithms_enabled()
    assert "CUBLAS_WORKSPACE_CONFIG" not in os.environ


def test_gpu_turns_on_the_deterministic_kernels(train_tan, restore_determinism, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    torch.use_deterministic_algorithms(False)
    assert train_tan.training_device() == "cuda"
    assert torch.are_deterministic_algorithms_enabled()
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"


@pytest.fixture
def tiny_dataset(tmp_path):
    """A prepared dataset of one fold: 240 training rows, 4 features, 3 classes."""
    from bnstudy.data.prepared import PreparedDataset, save_prepared
    from bnstudy.data.readers import ClassificationSplit

    rng = np.random.default_rng(3)
    y_train, y_test = rng.integers(0, 3, 240), rng.integers(0, 3, 60)
    x_train = (rng.integers(0, 3, (240, 4)) + y_train[:, None] * (rng.random((240, 4)) < 0.5)) % 3
    x_test = (rng.integers(0, 3, (60, 4)) + y_test[:, None] * (rng.random((60, 4)) < 0.5)) % 3
    fold = ClassificationSplit(x_train, y_train, x_test, y_test, classes=np.arange(3))
    path = tmp_path / "tiny.npz"
    save_prepared(path, PreparedDataset("tiny", [fold], [np.full(4, 3)], np.arange(3), "test"))
    return path


def _run(train_tan, tiny_dataset, dest, *, seed, split_seed, protocol="validation"):
    settings = {
        "max_train_samples": 150,
        "validation_fraction": 0.3,
        "learning_rates": [3e-2],
        "epochs": 1,
        "batch_size": 50,
    }
    train_tan.main(
        {"dataset": tiny_dataset},
        dest,
        dataset="tiny",
        model="nb_ml",
        fold=0,
        protocol=protocol,
        grid={"datasets": ["tiny"]},
        hparams=None,
        settings=settings,
        seed=seed,
        split_seed=split_seed,
        threads=1,
    )
    return pd.read_csv(dest)


def test_runs_record_the_device_and_split_by_the_fold_seed(
    train_tan, tiny_dataset, tmp_path, restore_determinism, monkeypatch
):
    """Each run row says where it trained; the rows a job subsamples and holds out follow the
    fold's split seed, not the job's seed (which differs per model and protocol)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    a = _run(train_tan, tiny_dataset, tmp_path / "a.csv", seed=1, split_seed=7)
    b = _run(train_tan, tiny_dataset, tmp_path / "b.csv", seed=2, split_seed=7)
    c = _run(train_tan, tiny_dataset, tmp_path / "c.csv", seed=1, split_seed=8)
    assert a["device"].tolist() == ["cpu"]
    assert a["seed"].tolist() == [1] and b["seed"].tolist() == [2]
    # nb_ml is closed-form: the same rows give the same errors, whatever the job's seed
    assert (a["error"].item(), a["train_error"].item()) == (
        b["error"].item(),
        b["train_error"].item(),
    )
    assert (a["error"].item(), a["train_error"].item()) != (
        c["error"].item(),
        c["train_error"].item(),
    )


def test_recovery_subsamples_the_rows_train_tan_does(tiny_dataset, monkeypatch):
    """recover_chow_liu's subsample of a fold is train_tan's (the fold's split seed)."""
    from bnstudy.data.prepared import load_prepared
    from bnstudy.studies.tan import recovery
    from bnstudy.studies.tan.protocol import training_split

    class Seen(Exception):
        pass

    def capture(specs, fold, *args, **kwargs):
        raise Seen(fold)

    monkeypatch.setattr(recovery, "run_tan_experiments", capture)
    ds = load_prepared(tiny_dataset)
    common = {"name": "tiny", "roots": [0], "learning_rates": [3e-2], "epochs": 1,
              "batch_size": 50, "max_folds": 1, "seed": 1}  # fmt: skip
    with pytest.raises(Seen) as seen:
        recovery.recover_chow_liu(ds, [np.zeros((4, 4))], max_train=150, split_seeds=[7], **common)
    fold = seen.value.args[0]
    ours = training_split(ds.folds[0], protocol="test", max_train_samples=150, seed=7)
    assert len(fold.y_train) < 240  # about 150: stratified, rounded per class
    assert np.array_equal(fold.y_train, ours.y_train)
    kept = np.flatnonzero(ds.n_states[0] > 1)  # the recovery drops constant features only
    assert np.array_equal(fold.x_train, ours.x_train[:, kept])
    with pytest.raises(ValueError, match="a split seed for each of 1 folds, got 0"):
        recovery.recover_chow_liu(ds, [np.zeros((4, 4))], max_train=150, **common)
