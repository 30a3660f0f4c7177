"""Training Bayesian network classifiers by the protocol of Roth & Pernkopf (2020), batched over settings.

:func:`train_batched` trains ``S`` independent models (hyperparameter settings, structures) as one
:class:`~bnstudy.classifiers.models.BNClassifier` with a leading settings axis;
:func:`train_classifier` is the single-setting case and :func:`train_ml` the closed-form ML
baseline. Protocol (Sec. 4 of the paper and the authors' code):

- Adam for the tables ``Theta`` (and class prior) with learning rate decayed per epoch along
  ``np.logspace(log10(lr), log10(lr * 1e-3), n_epochs)`` (epoch ``e`` uses element ``e``); a
  separate Adam for the structure logits ``Phi`` with a fixed learning rate ``1e-3``.
- Gumbel-softmax temperature ``np.logspace(1, -1, n_epochs)[e]``, set at the start of epoch ``e``.
- The training set is reshuffled every epoch and cut into mini-batches with the remainder
  dropped; the test error uses the most probable structure (``argmax Phi``).

Randomness: every setting owns a ``torch.Generator`` seeded with its seed. It draws, in order, the
``U(-0.1, 0.1)`` initialization, then per epoch the permutation of the training set and the
uniform numbers of that epoch's Gumbel noise (all on the CPU, then copied to ``device``). A setting
therefore consumes exactly the same random numbers alone and in a batch, so batched results equal
separate runs up to floating-point summation order. Nothing is seeded globally. On CUDA the
scatter-add in the backward pass of the gather uses atomics, so runs there are reproducible only
up to float rounding.

Per-setting learning rates: Adam's update is elementwise, so one Adam over the stacked tensors is
``S`` independent Adams. :class:`StackedAdam` keeps one step counter (all settings step together)
and multiplies the update of every element by the learning rate of the setting that owns it
(``lr[row_setting]`` for table rows, ``lr[s]`` for the class prior and ``Phi``), i.e. exactly
``theta -= lr_s * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps)`` per setting. This is
the update of the TF 2.2 Keras Adam the authors used (``epsilon = 1e-7`` added to ``sqrt(v)``,
not to the bias-corrected ``sqrt(v_hat)`` as in ``torch.optim.Adam``). When all settings of a batch
share one learning rate, :class:`KerasAdam` computes the same update with ``torch.optim.Adam``'s
fused kernel (its ``eps`` rescaled every step), several times faster on CPU.

References
----------
.. [1] W. Roth and F. Pernkopf, "Differentiable TAN Structure Learning for Bayesian Network
   Classifiers", PGM 2020, Sec. 3 and Sec. 4 (experimental setup); code
   https://github.com/wroth8/bnc (``pgm-2020/experiment_*.py``).
.. [2] D. P. Kingma and J. Ba, "Adam: A Method for Stochastic Optimization", ICLR 2015, Alg. 1
   (with the "epsilon hat" form of Sec. 2).
.. [3] E. Jang, S. Gu and B. Poole, "Categorical Reparameterization with Gumbel-Softmax", ICLR 2017.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from bnstudy.classifiers.losses import hybrid_loss
from bnstudy.classifiers.models import (
    BNClassifier,
    check_features,
    check_labels,
    straight_through_gumbel_softmax,
)
from bnstudy.classifiers.structures import check_tan_parents

__all__ = [
    "KerasAdam",
    "StackedAdam",
    "TrainResult",
    "learning_rate_schedule",
    "temperature_schedule",
    "train_batched",
    "train_classifier",
    "train_ml",
]

logger = logging.getLogger(__name__)

_TINY = 1e-30
SETTING_KEYS = frozenset({"lam", "gamma", "eta", "lr", "candidates", "parents"})


@dataclass
class TrainResult:
    """Outcome of training one setting.

    Attributes
    ----------
    test_error, train_error : float
        Error rates (fractions) of the most probable structure after training, on the full test
        and training sets.
    parents : numpy.ndarray of int64, shape (D,)
        The most probable structure (``argmax Phi``); ``-1`` = class only.
    candidates : numpy.ndarray of int64, shape (D, C)
        The candidate parents searched (``parents[:, None]`` for fixed structures).
    structure_logits : numpy.ndarray or None
        Final ``Phi`` (D, C) for learned structures (``-inf`` at padding), else None.
    history : dict of str to list
        ``epoch``, ``train_loss`` (mean over the epoch's mini-batches), ``train_error_batches``
        (error on the training mini-batches with sampled structures, the authors' ``CE[TR]``),
        ``lr``, ``tau``, ``seconds`` (wall time of the epoch's training steps, shared by a batch);
        and ``eval_epoch`` / ``test_error`` every ``eval_every`` epochs (epoch 0
        is before training) and at the end.
    seconds : float
        Wall time of the fit, including evaluations; for batched runs the batch's time divided
        by the number of settings.
    n_epochs : int
    seed : int or None
    """

    test_error: float
    train_error: float
    parents: np.ndarray
    candidates: np.ndarray
    structure_logits: np.ndarray | None
    history: dict[str, list] = field(default_factory=dict)
    seconds: float = 0.0
    n_epochs: int = 0
    seed: int | None = None


def learning_rate_schedule(lr: float, n_epochs: int, decay: float = 1e-3) -> np.ndarray:
    """Per-epoch learning rates ``np.logspace(log10(lr), log10(lr * decay), n_epochs)``.

    References
    ----------
    Roth & Pernkopf (2020), Sec. 4 ("decreases by a factor of 1e-3 over the training run").
    """
    return np.logspace(np.log10(lr), np.log10(lr * decay), n_epochs)


def temperature_schedule(n_epochs: int, start: float = 10.0, end: float = 0.1) -> np.ndarray:
    """Per-epoch Gumbel-softmax temperatures, exponential from ``start`` to ``end``.

    References
    ----------
    Roth & Pernkopf (2020), Sec. 4 ("We anneal tau in (13) exponentially from 10^1 to 10^-1").
    """
    return np.logspace(np.log10(start), np.log10(end), n_epochs)


class StackedAdam:
    """Adam over parameters stacked along settings, with one learning rate per setting.

    Parameters
    ----------
    params : sequence of (torch.nn.Parameter, torch.Tensor, int)
        Each parameter with an int64 tensor mapping one of its axes (the third entry) to the
        owning setting.
    beta1, beta2 : float
    eps : float, default 1e-7
        Added to ``sqrt(v)`` (Keras form).

    Notes
    -----
    Update at step ``t`` for an element owned by setting ``s`` (Keras ``Adam._resource_apply_dense``)::

        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g**2
        p -= lr_s * sqrt(1 - beta2**t) / (1 - beta1**t) * m / (sqrt(v) + eps)

    Elements that stay at ``-inf`` (states a feature does not have, padded candidates) get zero
    gradients and stay at ``-inf``.
    """

    def __init__(
        self,
        params: Sequence[tuple[torch.nn.Parameter, torch.Tensor, int]],
        *,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-7,
    ) -> None:
        self.params = [p for p, _, _ in params]
        self.owners = [
            o.view([-1 if i == axis else 1 for i in range(p.ndim)]) for p, o, axis in params
        ]
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.t = 0
        self._lr: list[torch.Tensor] = []

    def set_lr(self, lr: torch.Tensor) -> None:
        """Set the per-setting learning rates, shape (S,)."""
        self._lr = [
            lr.to(p.dtype)[owner] for p, owner in zip(self.params, self.owners, strict=True)
        ]

    @torch.no_grad()
    def step(self) -> None:
        """One Adam step on every parameter that has a gradient."""
        if not self._lr:
            raise RuntimeError("StackedAdam.step before set_lr")
        self.t += 1
        scale = math.sqrt(1.0 - self.beta2**self.t) / (1.0 - self.beta1**self.t)
        for p, m, v, lr in zip(self.params, self.m, self.v, self._lr, strict=True):
            if p.grad is None:
                continue
            g = p.grad
            m.lerp_(g, 1.0 - self.beta1)  # beta1 * m + (1 - beta1) * g
            v.mul_(self.beta2).addcmul_(g, g, value=1.0 - self.beta2)
            # p -= lr_s * scale * m / (sqrt(v) + eps), the per-setting lr folded into the
            # denominator. TINY (< 1e-15 after the square root, far below eps) keeps sqrt off its
            # slow path for exact zeros (states a feature lacks, never-seen rows) and denormals.
            denom = v.add(_TINY).sqrt_().add_(self.eps).div_(lr)
            p.addcdiv_(m, denom, value=-scale)

    def zero_grad(self) -> None:
        """Drop the gradients."""
        for p in self.params:
            p.grad = None


class KerasAdam:
    """Keras-form Adam through ``torch.optim.Adam`` (fused kernel) with one learning rate.

    ``torch.optim.Adam`` adds ``eps`` to ``sqrt(v_hat) = sqrt(v) / sqrt(1 - beta2^t)``; setting
    its ``eps`` to ``eps / sqrt(1 - beta2^t)`` before step ``t`` gives exactly the Keras update of
    :class:`StackedAdam`. Used when every setting of a batch has the same learning rate (one
    fused pass instead of several elementwise passes).

    Parameters
    ----------
    params : sequence of torch.nn.Parameter
    beta1, beta2, eps : float
        As in :class:`StackedAdam`.
    """

    def __init__(
        self,
        params: Sequence[torch.nn.Parameter],
        *,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-7,
    ) -> None:
        self.params = list(params)
        fused = all(p.device.type in ("cpu", "cuda") for p in self.params)
        self.opt = torch.optim.Adam(
            self.params, lr=1e-3, betas=(beta1, beta2), eps=eps, fused=fused or None
        )
        self.beta2, self.eps = beta2, eps
        self.t = 0

    def set_lr(self, lr: float) -> None:
        """Set the learning rate."""
        for group in self.opt.param_groups:
            group["lr"] = float(lr)

    def step(self) -> None:
        """One Adam step."""
        self.t += 1
        for group in self.opt.param_groups:
            group["eps"] = self.eps / math.sqrt(1.0 - self.beta2**self.t)
        self.opt.step()

    def zero_grad(self) -> None:
        """Drop the gradients."""
        self.opt.zero_grad(set_to_none=True)


def _check_setting(setting: Mapping, index: int, n_features: int) -> dict:
    unknown = set(setting) - SETTING_KEYS
    if unknown:
        raise ValueError(
            f"settings[{index}]: unknown key(s) {sorted(unknown)}; allowed: {sorted(SETTING_KEYS)}"
        )
    if ("candidates" in setting) == ("parents" in setting):
        raise ValueError(f"settings[{index}]: give exactly one of 'candidates' and 'parents'")
    out = {
        "lam": float(setting.get("lam", 0.0)),
        "gamma": float(setting.get("gamma", 1.0)),
        "eta": float(setting.get("eta", 10.0)),
        "lr": float(setting.get("lr", 3e-3)),
    }
    if not out["lam"] >= 0:
        raise ValueError(f"settings[{index}]: lam must be >= 0, got {out['lam']}")
    if not out["gamma"] > 0 and out["lam"] > 0:
        raise ValueError(f"settings[{index}]: gamma must be > 0, got {out['gamma']}")
    if not out["eta"] > 0:
        raise ValueError(f"settings[{index}]: eta must be > 0, got {out['eta']}")
    if not out["lr"] > 0:
        raise ValueError(f"settings[{index}]: lr must be > 0, got {out['lr']}")
    if "parents" in setting:
        pa = np.asarray(setting["parents"])
        if pa.shape != (n_features,) or not np.issubdtype(pa.dtype, np.integer):
            raise ValueError(
                f"settings[{index}]: parents must be {n_features} integers, got {pa.shape} {pa.dtype}"
            )
        pa = check_tan_parents(pa, n_features, name=f"settings[{index}]: parents")
        out["candidates"] = pa[:, None]
        out["learned"] = False
    else:
        cand = np.asarray(setting["candidates"])
        if cand.ndim != 2 or cand.shape[0] != n_features:
            raise ValueError(
                f"settings[{index}]: candidates must have shape ({n_features}, C), got {cand.shape}"
            )
        out["candidates"] = cand.astype(np.int64)
        out["learned"] = True
    return out


def _check_data(x_train, y_train, x_test, y_test, n_states, n_classes) -> None:
    n_states = np.asarray(n_states)
    check_features(x_train, n_states, "x_train")
    check_features(x_test, n_states, "x_test")
    check_labels(y_train, n_classes, "y_train")
    check_labels(y_test, n_classes, "y_test")
    for x, y, what in ((x_train, y_train, "train"), (x_test, y_test, "test")):
        if np.asarray(x).ndim != 2 or np.asarray(y).ndim != 1 or len(x) != len(y):
            raise ValueError(
                f"x_{what} must be (n, D) and y_{what} (n,) with the same n, got "
                f"{np.shape(x)} and {np.shape(y)}"
            )


@torch.no_grad()
def _errors(model: BNClassifier, x: torch.Tensor, y: torch.Tensor, batch: int) -> np.ndarray:
    """Error rate of every setting's most probable structure on (x, y); shape (S,)."""
    wrong = torch.zeros(model.n_settings, dtype=torch.int64, device=x.device)
    for start in range(0, x.shape[0], batch):
        xb = x[start : start + batch].unsqueeze(0).expand(model.n_settings, -1, -1)
        pred = model._log_joint(xb).argmax(dim=-1)
        wrong += (pred != y[start : start + batch].unsqueeze(0)).sum(dim=1)
    return wrong.cpu().numpy() / max(1, x.shape[0])


def train_batched(
    settings: Sequence[Mapping],
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    y_test: np.ndarray,
    n_states: np.ndarray,
    n_classes: int,
    *,
    seeds: Sequence[int],
    n_epochs: int,
    batch_size: int,
    lr_structure: float = 1e-3,
    lr_decay: float = 1e-3,
    tau_start: float = 10.0,
    tau_end: float = 0.1,
    eval_every: int = 10,
    init: str = "uniform",
    test_batch_size: int = 1000,
    adam: str = "auto",
    device: str | torch.device = "cpu",
    dtype: torch.dtype = torch.float32,
) -> list[TrainResult]:
    """Train ``S`` independent classifiers at once (one module with a leading settings axis).

    Parameters
    ----------
    settings : sequence of mapping
        One dict per setting with ``lam`` (hybrid trade-off, ``0`` = generative NLL), ``gamma``
        (log-margin), ``eta`` (soft-max sharpness), ``lr`` (initial table learning rate) and
        exactly one of ``parents`` (fixed structure, shape (D,)) or ``candidates`` (learned
        structure, shape (D, C), see :func:`~bnstudy.classifiers.candidate_parents`). All settings
        must be of the same kind; learned settings may have different ``C``.
    x_train, y_train, x_test, y_test : numpy.ndarray
        int states ``(n, D)`` and class indices ``(n,)``.
    n_states : numpy.ndarray of int, shape (D,)
    n_classes : int
    seeds : sequence of int
        One seed per setting (initialization, shuffling and Gumbel noise of that setting).
    n_epochs : int
        Number of epochs (the paper: 500).
    batch_size : int
        Mini-batch size (the paper: 50 satimage, 100 letter/usps, 250 mnist); the last partial
        batch of every epoch is dropped.
    lr_structure : float, default 1e-3
        Fixed learning rate of the structure logits' Adam.
    lr_decay : float, default 1e-3
        Factor by which the table learning rate falls over the run.
    tau_start, tau_end : float, default 10 and 0.1
        Gumbel-softmax temperature schedule.
    eval_every : int, default 10
        Record the test error every this many epochs (0: only at the end).
    init : {"uniform", "ml"}, default "uniform"
        ``U(-0.1, 0.1)`` logits, or closed-form ML tables (the authors' ``--init-ml``).
    test_batch_size : int, default 1000
    adam : {"auto", "stacked", "keras_fused"}, default "auto"
        Implementation of the tables' Adam (both compute the Keras update): :class:`StackedAdam`
        (per-setting learning rates) or :class:`KerasAdam` (``torch.optim.Adam`` fused kernel, one
        learning rate for the batch). ``"auto"`` takes the fused one when all settings share
        their ``lr``.
    device : str or torch.device, default "cpu"
    dtype : torch.dtype, default torch.float32

    Returns
    -------
    list of TrainResult
        One per setting, in order.

    Raises
    ------
    ValueError
        Bad settings (unknown key, both or neither of ``parents``/``candidates``, mixed fixed
        and learned settings, ``lam < 0``, ``eta <= 0``, ``lr <= 0``), data outside the declared
        states or labels out of range, ``batch_size`` larger than the training set, wrong number
        of seeds.

    References
    ----------
    Roth & Pernkopf (2020), Sec. 3 (Eq. 10, structure loss optimized with straight-through
    Gumbel-softmax gradients) and Sec. 4 (setup); Jang et al. (2017).
    """
    t0 = time.perf_counter()
    n_states = np.asarray(n_states)
    if len(settings) == 0:
        raise ValueError("settings is empty")
    if len(seeds) != len(settings):
        raise ValueError(f"need one seed per setting: {len(settings)} settings, {len(seeds)} seeds")
    if int(n_epochs) != n_epochs or n_epochs < 1:
        raise ValueError(f"n_epochs must be an integer >= 1, got {n_epochs!r}")
    if init not in ("uniform", "ml"):
        raise ValueError(f"init must be 'uniform' or 'ml', got {init!r}")
    if adam not in ("auto", "stacked", "keras_fused"):
        raise ValueError(f"adam must be 'auto', 'stacked' or 'keras_fused', got {adam!r}")
    _check_data(x_train, y_train, x_test, y_test, n_states, n_classes)
    n_train = len(y_train)
    if int(batch_size) != batch_size or not 1 <= batch_size <= n_train:
        raise ValueError(f"batch_size must be in 1..{n_train} (training rows), got {batch_size!r}")
    specs = [_check_setting(s, i, n_states.size) for i, s in enumerate(settings)]
    kinds = {s["learned"] for s in specs}
    if len(kinds) != 1:
        raise ValueError("settings mix fixed 'parents' and learned 'candidates'; batch them apart")
    learned = kinds.pop()

    dev = torch.device(device)
    S = len(specs)
    gens = [torch.Generator().manual_seed(int(seed)) for seed in seeds]
    model = BNClassifier(
        n_states,
        n_classes,
        [s["candidates"] for s in specs],
        learn_structure=learned,
        device=dev,
        dtype=dtype,
        generators=gens,
    )
    xtr = torch.as_tensor(np.asarray(x_train), dtype=torch.int64, device=dev)
    ytr = torch.as_tensor(np.asarray(y_train), dtype=torch.int64, device=dev)
    xte = torch.as_tensor(np.asarray(x_test), dtype=torch.int64, device=dev)
    yte = torch.as_tensor(np.asarray(y_test), dtype=torch.int64, device=dev)
    if init == "ml":
        model.fit_ml(xtr, ytr)

    lam = torch.tensor([s["lam"] for s in specs], dtype=dtype, device=dev)
    gamma = torch.tensor([s["gamma"] for s in specs], dtype=dtype, device=dev)
    eta = torch.tensor([s["eta"] for s in specs], dtype=dtype, device=dev)
    lr_table = np.stack([learning_rate_schedule(s["lr"], n_epochs, lr_decay) for s in specs])
    taus = temperature_schedule(n_epochs, tau_start, tau_end)

    setting_ids = torch.arange(S, device=dev)
    same_lr = len({s["lr"] for s in specs}) == 1
    if adam == "keras_fused" and not same_lr:
        raise ValueError("adam='keras_fused' needs the same lr in every setting of the batch")
    if adam == "keras_fused" or (adam == "auto" and same_lr):
        opt_theta = KerasAdam([model.theta, model.class_logits])
    else:
        opt_theta = StackedAdam(
            [(model.theta, model.row_setting, 1), (model.class_logits, setting_ids, 0)]
        )
    opt_phi = StackedAdam([(model.phi, setting_ids, 0)]) if learned else None
    if opt_phi is not None:
        opt_phi.set_lr(torch.full((S,), lr_structure, dtype=torch.float64, device=dev))

    n_batches = n_train // batch_size
    D, C = model.n_features, model.n_candidates
    widths = [s["candidates"].shape[1] for s in specs]
    history = [
        {k: [] for k in ("epoch", "train_loss", "train_error_batches", "lr", "tau", "seconds")}
        | {"eval_epoch": [], "test_error": []}
        for _ in range(S)
    ]

    def record_test(epoch: int) -> None:
        errs = _errors(model, xte, yte, test_batch_size)
        for s in range(S):
            history[s]["eval_epoch"].append(epoch)
            history[s]["test_error"].append(float(errs[s]))

    if eval_every > 0:
        record_test(0)
    for epoch in range(n_epochs):
        t_epoch = time.perf_counter()
        tau = float(taus[epoch])
        if isinstance(opt_theta, KerasAdam):
            opt_theta.set_lr(lr_table[0, epoch])
        else:
            opt_theta.set_lr(torch.as_tensor(lr_table[:, epoch], device=dev))
        # per-setting randomness of this epoch, drawn on the CPU in a fixed order
        perms = torch.stack([torch.randperm(n_train, generator=g) for g in gens]).to(dev)
        noise = None
        if learned:
            noise = torch.full((n_batches, S, D, C), 0.5, dtype=dtype)  # padding: phi is -inf
            for s, g in enumerate(gens):
                noise[:, s, :, : widths[s]] = torch.rand(
                    (n_batches, D, widths[s]), generator=g, dtype=dtype
                )
            noise = noise.to(dev)
        loss_sum = torch.zeros(S, dtype=torch.float64, device=dev)
        wrong = torch.zeros(S, dtype=torch.int64, device=dev)
        for b in range(n_batches):
            idx = perms[:, b * batch_size : (b + 1) * batch_size]
            xb, yb = xtr[idx], ytr[idx]
            if noise is None:
                log_joint = model._log_joint(xb)
            else:
                one_hot = straight_through_gumbel_softmax(model.phi, noise[b], tau)
                log_joint = model._log_joint_straight_through(xb, one_hot)
            loss = hybrid_loss(log_joint, yb, lam, gamma, eta)
            loss.sum().backward()  # settings share no parameters: one backward for all
            opt_theta.step()
            opt_theta.zero_grad()
            if opt_phi is not None:
                opt_phi.step()
                opt_phi.zero_grad()
            with torch.no_grad():
                loss_sum += loss.detach().to(torch.float64)
                wrong += (log_joint.argmax(dim=-1) != yb).sum(dim=1)
        losses = (loss_sum / n_batches).cpu().numpy()  # synchronizes with the device
        errs = wrong.cpu().numpy() / (n_batches * batch_size)
        t_epoch = time.perf_counter() - t_epoch
        for s in range(S):
            h = history[s]
            h["epoch"].append(epoch + 1)
            h["train_loss"].append(float(losses[s]))
            h["train_error_batches"].append(float(errs[s]))
            h["lr"].append(float(lr_table[s, epoch]))
            h["tau"].append(tau)
            h["seconds"].append(t_epoch)
        if eval_every > 0 and (epoch + 1) % eval_every == 0 and epoch + 1 < n_epochs:
            record_test(epoch + 1)
        logger.debug("epoch %d/%d: mean train loss %s", epoch + 1, n_epochs, losses)

    test_err = _errors(model, xte, yte, test_batch_size)
    train_err = _errors(model, xtr, ytr, test_batch_size)
    for s in range(S):
        history[s]["eval_epoch"].append(n_epochs)
        history[s]["test_error"].append(float(test_err[s]))
    parents = model.parents()
    phi = model.phi.detach().cpu().numpy()
    seconds = (time.perf_counter() - t0) / S
    results = []
    for s, spec in enumerate(specs):
        results.append(
            TrainResult(
                test_error=float(test_err[s]),
                train_error=float(train_err[s]),
                parents=parents[s].copy(),
                candidates=spec["candidates"].copy(),
                structure_logits=phi[s, :, : widths[s]].copy() if learned else None,
                history=history[s],
                seconds=seconds,
                n_epochs=int(n_epochs),
                seed=int(seeds[s]),
            )
        )
    logger.info(
        "trained %d %s setting(s) for %d epochs in %.1f s: test error %s",
        S,
        "learned-structure" if learned else "fixed-structure",
        n_epochs,
        seconds * S,
        np.round(test_err, 4).tolist(),
    )
    return results


def train_classifier(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    y_test: np.ndarray,
    n_states: np.ndarray,
    n_classes: int,
    *,
    parents: np.ndarray | None = None,
    candidates: np.ndarray | None = None,
    lam: float = 0.0,
    gamma: float = 1.0,
    eta: float = 10.0,
    lr: float = 3e-3,
    seed: int,
    n_epochs: int,
    batch_size: int,
    **kwargs,
) -> TrainResult:
    """Train one classifier: a fixed structure (``parents``) or a learned one (``candidates``).

    The single-setting case of :func:`train_batched` (same code path and random draws), which
    documents the remaining keyword arguments (``lr_structure``, ``lr_decay``, ``tau_start``,
    ``tau_end``, ``eval_every``, ``init``, ``test_batch_size``, ``device``, ``dtype``).

    Parameters
    ----------
    x_train, y_train, x_test, y_test, n_states, n_classes
        As in :func:`train_batched`.
    parents : numpy.ndarray, shape (D,), optional
        Fixed structure (naive Bayes: all ``-1``).
    candidates : numpy.ndarray, shape (D, C), optional
        Candidate parents for differentiable structure learning.
    lam, gamma, eta : float
        Hybrid loss hyperparameters (``lam = 0``: generative NLL).
    lr : float
        Initial learning rate of the tables.
    seed : int
    n_epochs, batch_size : int

    Returns
    -------
    TrainResult

    References
    ----------
    Roth & Pernkopf (2020), Sec. 3-4.
    """
    setting: dict = {"lam": lam, "gamma": gamma, "eta": eta, "lr": lr}
    if parents is not None and candidates is not None:
        raise ValueError("give parents (fixed structure) or candidates (learned), not both")
    if parents is None and candidates is None:
        raise ValueError("give parents (fixed structure) or candidates (learned structure)")
    if parents is not None:
        setting["parents"] = parents
    else:
        setting["candidates"] = candidates
    return train_batched(
        [setting],
        x_train,
        y_train,
        x_test,
        y_test,
        n_states,
        n_classes,
        seeds=[seed],
        n_epochs=n_epochs,
        batch_size=batch_size,
        **kwargs,
    )[0]


def train_ml(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    y_test: np.ndarray,
    n_states: np.ndarray,
    n_classes: int,
    *,
    parents: np.ndarray,
    smoothing: float = 1.0,
    device: str | torch.device = "cpu",
    dtype: torch.dtype = torch.float32,
) -> TrainResult:
    """Closed-form ML classifier of a fixed structure (no training): add-one smoothed counts.

    Parameters
    ----------
    x_train, y_train, x_test, y_test, n_states, n_classes
        As in :func:`train_batched`.
    parents : numpy.ndarray, shape (D,)
        Naive Bayes (all ``-1``) or a TAN (e.g. :func:`~bnstudy.classifiers.chow_liu_parents`).
    smoothing : float, default 1.0
    device, dtype
        As in :func:`train_batched`.

    Returns
    -------
    TrainResult
        With ``n_epochs = 0`` and an empty history.

    References
    ----------
    Roth & Pernkopf (2020), Sec. 4 ("ML"); Friedman, Geiger & Goldszmidt (1997).
    """
    t0 = time.perf_counter()
    n_states = np.asarray(n_states)
    _check_data(x_train, y_train, x_test, y_test, n_states, n_classes)
    pa = np.asarray(parents)
    if pa.shape != (n_states.size,) or not np.issubdtype(pa.dtype, np.integer):
        raise ValueError(f"parents must be {n_states.size} integers, got {pa.shape} {pa.dtype}")
    model = BNClassifier.from_parents(pa, n_states, n_classes, device=device, dtype=dtype)
    model.fit_ml(x_train, y_train, smoothing)
    dev = torch.device(device)
    xte = torch.as_tensor(np.asarray(x_test), dtype=torch.int64, device=dev)
    yte = torch.as_tensor(np.asarray(y_test), dtype=torch.int64, device=dev)
    xtr = torch.as_tensor(np.asarray(x_train), dtype=torch.int64, device=dev)
    ytr = torch.as_tensor(np.asarray(y_train), dtype=torch.int64, device=dev)
    test_err = float(_errors(model, xte, yte, 1000)[0])
    train_err = float(_errors(model, xtr, ytr, 1000)[0])
    logger.info("ML classifier: test error %.4f, train error %.4f", test_err, train_err)
    return TrainResult(
        test_error=test_err,
        train_error=train_err,
        parents=pa.astype(np.int64).copy(),
        candidates=pa.astype(np.int64)[:, None],
        structure_logits=None,
        history={},
        seconds=time.perf_counter() - t0,
        n_epochs=0,
        seed=None,
    )
