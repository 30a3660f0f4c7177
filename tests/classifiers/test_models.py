"""BNClassifier: vectorized log-joint, ML tables, straight-through Gumbel-softmax, losses."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from bnstudy.classifiers import (
    BNClassifier,
    candidate_parents,
    fit_ml,
    hybrid_loss,
    nll_loss,
    straight_through_gumbel_softmax,
)

N_STATES = np.array([2, 3, 4, 1, 3])


def _data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = np.stack([rng.integers(0, k, n) for k in N_STATES], axis=1)
    return x, rng.integers(0, 3, n)


def _gens(k: int) -> list[torch.Generator]:
    return [torch.Generator().manual_seed(100 + i) for i in range(k)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_log_joint_equals_reference(dtype: torch.dtype) -> None:
    x, _ = _data(50)
    cands = [
        candidate_parents("all", 5),
        candidate_parents("subset", 5, K=2, rng=np.random.default_rng(1), ordering=[4, 2, 0, 1, 3]),
        candidate_parents("pseudo", 5, K=3, rng=np.random.default_rng(2)),
    ]
    for cand in cands:
        model = BNClassifier(N_STATES, 3, cand, dtype=dtype, generators=_gens(1))
        with torch.no_grad():
            model.phi.add_(torch.randn(model.phi.shape, generator=_gens(1)[0], dtype=dtype))
        tol = 1e-5 if dtype == torch.float32 else 1e-12
        torch.testing.assert_close(
            model.log_joint(x), model.log_joint_reference(x), atol=tol, rtol=0
        )
        w = torch.rand(model.phi.shape, generator=_gens(1)[0], dtype=dtype) * model.valid
        torch.testing.assert_close(
            model.log_joint(x, weights=w), model.log_joint_reference(x, weights=w), atol=tol, rtol=0
        )
    batched = BNClassifier(N_STATES, 3, cands, dtype=dtype, generators=_gens(3))
    assert batched.log_joint(x).shape == (3, 50, 3)
    torch.testing.assert_close(
        batched.log_joint(x), batched.log_joint_reference(x), atol=1e-5, rtol=0
    )


def test_fixed_tan_is_a_normalized_joint_distribution() -> None:
    parents = np.array([-1, 0, 1, -1, 2])
    model = BNClassifier.from_parents(parents, N_STATES, 3, dtype=torch.float64)
    grid = np.array(list(itertools.product(*[range(k) for k in N_STATES])))
    total = torch.logsumexp(model.log_joint(grid).detach().reshape(-1), dim=0)
    assert float(total) == pytest.approx(0.0, abs=1e-10)
    assert model.parents().tolist() == parents.tolist()


def test_ml_tables_are_smoothed_normalized_counts() -> None:
    x, y = _data(300, seed=4)
    parents = np.array([-1, 0, 1, -1, 1])
    model = fit_ml(BNClassifier.from_parents(parents, N_STATES, 3, dtype=torch.float64), x, y)
    prior = torch.log_softmax(model.class_logits[0].detach(), -1).exp().numpy()
    np.testing.assert_allclose(prior, (np.bincount(y, minlength=3) + 1) / (len(y) + 3))
    d, pa = 2, 1  # p(x2 | x1, c)
    counts = np.zeros((N_STATES[pa], N_STATES[d], 3))
    np.add.at(counts, (x[:, pa], x[:, d], y), 1)
    expected = (counts + 1) / (counts + 1).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.log_cpt(d).exp().numpy(), expected, atol=1e-12)
    counts0 = np.zeros((1, N_STATES[0], 3))
    np.add.at(counts0, (0, x[:, 0], y), 1)
    np.testing.assert_allclose(
        model.log_cpt(0).exp().numpy(), (counts0 + 1) / (counts0 + 1).sum(axis=1, keepdims=True)
    )
    # learned-structure model: every candidate table gets its own ML estimate
    cand = candidate_parents("all", 5)
    learned = BNClassifier(N_STATES, 3, cand, dtype=torch.float64).fit_ml(x, y)
    np.testing.assert_allclose(learned.log_cpt(2, candidate=1).exp().numpy(), expected, atol=1e-12)


def test_straight_through_gumbel_softmax() -> None:
    logits = torch.tensor([[0.3, -0.2, float("-inf")], [1.0, 0.0, 0.5]], requires_grad=True)
    u = torch.tensor([[0.9, 0.1, 0.5], [0.2, 0.95, 0.3]])
    y = straight_through_gumbel_softmax(logits, u, tau=0.7)
    g = -torch.log(-torch.log(u + 1e-6) + 1e-6)
    expected = torch.nn.functional.one_hot(((logits + g) / 0.7).argmax(-1), 3).float()
    assert torch.equal(y, expected)
    coef = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    (y * coef).sum().backward()
    ref_logits = logits.detach().clone().requires_grad_(True)
    (torch.softmax((ref_logits + g) / 0.7, -1) * coef).sum().backward()
    torch.testing.assert_close(logits.grad, ref_logits.grad)
    assert logits.grad[0, 2] == 0  # padding gets no gradient


def test_hybrid_loss_by_hand() -> None:
    lj = torch.tensor([[-2.0, -3.0, -2.5], [-4.0, -1.0, -6.0]], dtype=torch.float64)
    y = torch.tensor([0, 2])
    lam, gamma, eta = 2.0, 1.5, 3.0
    # sample 0 (c=0): margins over c' = 1, 2: 1.5 + 2 - 3 = 0.5 and 1.5 + 2 - 2.5 = 1.0
    s0 = np.log(np.exp(3 * 0.5) + np.exp(3 * 1.0)) / 3
    # sample 1 (c=2): margins 1.5 + 6 - 4 = 3.5 and 1.5 + 6 - 1 = 6.5
    s1 = np.log(np.exp(3 * 3.5) + np.exp(3 * 6.5)) / 3
    expected = ((2.0 + lam * s0) + (6.0 + lam * s1)) / 2
    assert float(hybrid_loss(lj, y, lam, gamma, eta)) == pytest.approx(expected)
    # hinge: a confident sample contributes only its NLL
    lj_conf = torch.tensor([[-1.0, -20.0, -30.0]], dtype=torch.float64)
    assert float(hybrid_loss(lj_conf, torch.tensor([0]), lam, gamma, eta)) == pytest.approx(1.0)
    assert float(hybrid_loss(lj, y, 0.0, gamma, eta)) == pytest.approx(float(nll_loss(lj, y)))
    # batched hyperparameters: one value per leading setting
    lj2 = torch.stack([lj, lj])
    out = hybrid_loss(lj2, torch.stack([y, y]), torch.tensor([lam, 0.0]), gamma, eta)
    assert out.shape == (2,) and float(out[0]) == pytest.approx(expected)
    assert float(out[1]) == pytest.approx(4.0)


def test_bad_inputs_raise_value_errors() -> None:
    model = BNClassifier.from_parents([-1, 0, 1, -1, 2], N_STATES, 3)
    x, y = _data(10)
    bad = x.copy()
    bad[3, 2] = 4
    with pytest.raises(ValueError, match="feature 2 has value 4"):
        model.log_joint(bad)
    bad[3, 2] = -1
    with pytest.raises(ValueError, match="feature 2 has value -1"):
        model.fit_ml(bad, y)
    with pytest.raises(ValueError, match="label 3 out of range for 3 classes"):
        model.fit_ml(x, np.where(np.arange(10) == 0, 3, y))
    with pytest.raises(ValueError, match="smoothing must be > 0"):
        model.fit_ml(x, y, smoothing=0.0)
    with pytest.raises(ValueError, match="shape"):
        model.log_joint(x[:, :4])
    with pytest.raises(ValueError, match="integer"):
        model.log_joint(x.astype(float))
    with pytest.raises(ValueError, match="lists itself"):
        BNClassifier(N_STATES, 3, np.array([[-1], [1], [0], [-1], [0]]))
    with pytest.raises(ValueError, match="n_classes"):
        BNClassifier(N_STATES, 1, np.full((5, 1), -1))


def test_straight_through_fast_path_matches_general_path() -> None:
    """Training forward (chosen tables only + weight-gradient product) == generic Eq. (9)."""
    x, y = _data(40, seed=5)
    cands = [
        candidate_parents("all", 5),
        candidate_parents("pseudo", 5, K=2, rng=np.random.default_rng(3)),
    ]
    grads = []
    for fast in (True, False):
        model = BNClassifier(N_STATES, 3, cands, dtype=torch.float64, generators=_gens(2))
        u = torch.rand(model.phi.shape, generator=_gens(1)[0], dtype=torch.float64)
        one_hot = straight_through_gumbel_softmax(model.phi, u, tau=2.0)
        xt = torch.as_tensor(x).unsqueeze(0).expand(2, -1, -1)
        if fast:
            lj = model.log_joint_straight_through(xt, one_hot)
        else:
            lj = model.log_joint_states(xt, one_hot)
        hybrid_loss(lj, torch.as_tensor(y).expand(2, -1), 5.0, 1.0, 10.0).sum().backward()
        grads.append((lj.detach(), model.theta.grad, model.class_logits.grad, model.phi.grad))
    for fast, slow in zip(*grads, strict=True):
        torch.testing.assert_close(fast, slow, atol=1e-10, rtol=1e-10)


def test_straight_through_table_gradient_accumulates_in_place() -> None:
    """The tables' gradient is added into an existing ``theta.grad`` (kept by the trainer)."""
    x, y = _data(30, seed=6)
    cand = candidate_parents("all", 5)
    model = BNClassifier(N_STATES, 3, [cand, cand], dtype=torch.float64, generators=_gens(2))
    xt = torch.as_tensor(x).unsqueeze(0).expand(2, -1, -1)
    u = torch.rand(model.phi.shape, generator=_gens(1)[0], dtype=torch.float64)

    def backward() -> None:
        one_hot = straight_through_gumbel_softmax(model.phi, u, tau=1.0)
        lj = model.log_joint_straight_through(xt, one_hot)
        hybrid_loss(lj, torch.as_tensor(y).expand(2, -1), 5.0, 1.0, 10.0).sum().backward()

    backward()
    once = model.theta.grad.clone()
    assert torch.count_nonzero(once) > 0
    buffer = model.theta.grad
    backward()  # accumulates, in the same buffer
    assert model.theta.grad is buffer
    torch.testing.assert_close(model.theta.grad, 2 * once)
    model.theta.grad.zero_()
    backward()
    torch.testing.assert_close(model.theta.grad, once)
