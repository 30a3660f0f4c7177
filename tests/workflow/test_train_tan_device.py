"""train_tan's device: a GPU when present, with torch's deterministic kernels; the CPU untouched.

The GPU branch runs here with ``torch.cuda.is_available`` patched (no GPU in the tests):
what it sets is torch's process-wide switch and one environment variable, both checked and
restored. ``benchmarks/check_tan_device.py`` shows on a GPU that the switch makes a job's reruns
equal to the bit.
"""

from __future__ import annotations

import os

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
