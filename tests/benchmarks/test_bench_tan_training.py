"""benchmarks/bench_tan_training.py: the phase-timed step is the trainer's step."""

from __future__ import annotations

import time
from types import SimpleNamespace

import bench_tan_training as btt
import numpy as np
import pytest
import torch


@pytest.mark.parametrize("model", ["tan_subset", "nb"])
def test_phase_step_takes_the_trainers_step(model):
    """Three steps of phase_step leave every parameter where BatchedTrainer.step leaves it."""
    x, y, n_states = btt.make_data("satimage", 400, seed=3)
    cand = btt.candidate_parents("subset", n_states.size, K=btt.K, rng=np.random.default_rng(3))
    settings = btt.settings_for(cand, 2, model)
    data = (x[:300], y[:300], x[300:], y[300:], n_states, 6)
    trainers = [btt.make_trainer(settings, [0, 1], data, 50, torch.device("cpu")) for _ in "ab"]
    for trainer in trainers:
        trainer.set_epoch_lr(0)
    perms, draws = trainers[0].epoch_draws()  # both steps take the same batches and noise
    tau = float(trainers[0].taus[0])
    for b in range(3):
        idx = perms[:, b * 50 : (b + 1) * 50]
        noise = None if draws is None else draws[b]
        xb, yb = trainers[0].x_train[idx], trainers[0].y_train[idx]
        loss_ref, _ = trainers[0].step(xb, yb, noise, tau)
        loss, seconds = btt.phase_step(
            trainers[1], xb, yb, noise, tau, time.perf_counter, lambda: None
        )
        torch.testing.assert_close(loss, loss_ref.detach(), rtol=0, atol=0)
        assert seconds.shape == (len(btt.PHASES),) and np.all(seconds >= 0)
    for (name, p), q in zip(
        trainers[0].model.named_parameters(), trainers[1].model.parameters(), strict=True
    ):
        torch.testing.assert_close(q, p, rtol=0, atol=0, msg=name)
    if model == "tan_subset":  # the structure logits moved: the steps did train them
        phi = trainers[1].model.phi.detach()
        assert torch.count_nonzero(phi[torch.isfinite(phi)]) > 0


def test_floor_kernels_are_the_models_structure_gradient_and_update():
    """The timed per-setting kernels compute what a step computes: the structure gradient of
    ``_WeightGradient``'s backward to the bit, the chosen tables at their padded size, and the
    trainer's own update."""
    from bnstudy.classifiers.models import _WeightGradient

    x, y, n_states = btt.make_data("satimage", 400, seed=3)
    cand = btt.candidate_parents("subset", n_states.size, K=btt.K, rng=np.random.default_rng(3))
    data = (x[:300], y[:300], x[300:], y[300:], n_states, 6)
    trainer = btt.make_trainer(btt.settings_for(cand, 3), [0, 1, 2], data, 50, torch.device("cpu"))
    model = trainer.model
    xb = trainer.x_train[trainer.epoch_draws()[0][:, :50]]
    grad = torch.randn((3, 50, 6), generator=torch.Generator().manual_seed(1))
    kernels = btt.floor_kernels(trainer, xb, grad)

    weights = torch.zeros((3, model.n_features * model.n_candidates), requires_grad=True)
    flat = model._all_index(xb, local=True)
    _WeightGradient.apply(weights, model.theta.detach(), flat, model.setting_starts).backward(grad)
    torch.testing.assert_close(kernels["product with the gradient"](), weights.grad, rtol=0, atol=0)
    chosen = kernels["normalize the chosen tables"]()
    assert chosen.shape == (model.V, 3 * model.n_features * model.P, 6)
    assert kernels["Adam update of every table"] == trainer.opt_theta.step


def test_batching_limits_solve_the_shared_and_per_setting_model():
    """From steps ``shared + work`` alone and ``shared / S + work`` batched, the limits recover
    both terms, and a batch whose per-setting work is ``needed`` runs at exactly the target."""
    shared, work, kernels, n_set = 0.75e-3, 1.1e-3, 0.6e-3, 10
    lim = btt.batching_limits(shared + work, shared / n_set + work, kernels, n_set)
    assert lim["shared"] == pytest.approx(shared) and lim["per_setting"] == pytest.approx(work)
    at = lambda w: (shared + w) / (shared / n_set + w)  # noqa: E731
    assert lim["ceiling"] == pytest.approx(at(kernels))
    assert at(lim["needed"]) == pytest.approx(btt.TARGET)
    assert at(work) < lim["ceiling"] < lim["bound"] == pytest.approx((shared + work) / kernels)
    assert btt.batching_limits(2.0, 1.0, 0.5, 3)["needed"] == 0.0  # 3 settings: work must be 0
    with pytest.raises(ValueError, match="2 or more settings"):
        btt.batching_limits(2.0, 2.0, 0.5, 1)


def test_bench_floor_reports_every_batch_size(capsys):
    """``--floor`` runs through at a batch too small for the target (no per-setting work reaches
    3x at 3 settings) and at one large enough, and each record holds the model's terms."""
    args = SimpleNamespace(
        n_train=200, seed=0, lrs=(3e-3,), settings=[3, 4], repeats=1, clock_fn=time.perf_counter
    )
    out = btt.bench_floor("satimage", args, torch.device("cpu"))
    printed = capsys.readouterr().out
    (_, _, _, _, n_states, n_classes), cand = btt.bench_data("satimage", args)
    entries = sum(  # a table per candidate: child states x parent states (1: none) x classes
        n_states[i] * (1 if j == -1 else n_states[j]) * n_classes
        for i in range(n_states.size)
        for j in cand[i]
        if j != btt.PAD
    )
    assert [r["S"] for r in out] == [3, 4]
    assert "3x at 3 settings is out of reach at any per-setting work" in printed
    assert out[0]["needed"] <= 0
    assert printed.count(f"{btt.ADAM_MEMORY} ") == 2
    for r in out:
        assert btt.EXP not in r["kernels"] and btt.ADAM_MEMORY not in r["kernels"]
        assert r["least"] > 0 and r["adam_memory"] > 0
        assert r["per_setting"] == pytest.approx(r["batched"] - r["shared"] / r["S"])
        # one pass per table: the larger of its exp and Adam's traffic, then the gather
        gather = r["kernels"]["gather every candidate"]
        assert r["fused"] == max(r["exp"], r["adam_memory"]) + gather
        assert r["entries"] == entries
