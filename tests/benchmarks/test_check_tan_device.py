"""benchmarks/check_tan_device.py: its comparison passes where it must and fails where it must.

It is meant for a GPU; here both of its runs are on the CPU, whose kernels are deterministic, so
every column must show equal runs. A fixed structure trained apart from its twin must fail it.
"""

from __future__ import annotations

import check_tan_device
import pytest
import torch


def test_cpu_against_cpu_is_equal_everywhere(mirror, capsys):
    status = check_tan_device.main(
        ["--data", str(mirror / "bnc"), "--device", "cpu", "--rows", "300", "--epochs", "1"]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    models = {spec["model"] for spec in check_tan_device.SPECS}
    rows = [f for f in map(str.split, out.splitlines()) if f and f[0] in models]
    assert len(rows) == len(check_tan_device.SPECS)
    for row in rows:  # loss differences 0, every parent the same, both repeat columns True
        assert row[1:6] == ["0.00e+00", "0.00e+00", "1.000", "True", "True"], row


def test_a_fixed_structure_that_differs_fails(mirror, capsys, monkeypatch):
    train = check_tan_device.train
    calls = []

    def shifted(device, *args):
        rows, seconds = train(device, *args)
        calls.append(device)
        if len(calls) == 2:  # the device's first run: naive Bayes's losses off by 1%
            loss = rows[0]["history"]["train_loss"]
            rows[0]["history"]["train_loss"] = [v * 1.01 for v in loss]
        return rows, seconds

    monkeypatch.setattr(check_tan_device, "train", shifted)
    status = check_tan_device.main(
        ["--data", str(mirror / "bnc"), "--device", "cpu", "--rows", "300", "--epochs", "1"]
    )
    assert status == 1
    assert "FAILED" in capsys.readouterr().out


@pytest.fixture(autouse=True)
def _deterministic_switch_back(monkeypatch):
    """The script turns torch's deterministic kernels on for the process: turn them back off."""
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # restored as it was, after
    before = torch.are_deterministic_algorithms_enabled()
    yield
    torch.use_deterministic_algorithms(before)
