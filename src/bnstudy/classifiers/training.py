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

import ctypes
import ctypes.util
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
    "BatchedTrainer",
    "KerasAdam",
    "StackedAdam",
    "TrainResult",
    "TrainSetting",
    "TrainingHistory",
    "error_rates",
    "learning_rate_schedule",
    "retain_freed_memory",
    "temperature_schedule",
    "train_batched",
    "train_classifier",
    "train_ml",
]

logger = logging.getLogger(__name__)

_TINY = 1e-30
#: glibc's ``mallopt`` parameters (``malloc.h``) and the largest mmap threshold it accepts.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX = -1, -3, 32 << 20
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


def retain_freed_memory(trim_threshold: int = 1 << 30) -> bool:
    """Keep memory freed on the CPU for reuse instead of handing it back to the system (glibc).

    A training step on the CPU allocates and frees the same temporaries (the chosen tables,
    their gradients, the gathered values), several MB each for a batch of settings. glibc's
    ``malloc`` serves blocks of more than 128 kB by ``mmap`` and returns the top of its heap to
    the system once more than about twice the largest freed block lies free there, so every step
    maps fresh pages and the kernel zero-fills each on its first touch: at 10 settings of
    letter's shape, 1,600 to 2,300 page faults a step, which cost it from 5% to 40% of its time
    (glibc raises its thresholds after large frees, so how much depends on what the process
    freed before; ``docs/performance.md``). This raises the ``mmap`` threshold to glibc's
    maximum (32 MB) and the trim threshold to ``trim_threshold`` bytes, so freed blocks stay
    mapped and the next step reuses them (the tuning that PyTorch's performance guide obtains
    from jemalloc or tcmalloc). It changes no result, only where the process's memory comes
    from, for the whole process: call it once at the start of a job, not from a library.

    Parameters
    ----------
    trim_threshold : int, default 1 GiB
        Free bytes at the top of the heap kept before returning memory to the system.

    Returns
    -------
    bool
        Whether the thresholds were set (False where the C library is not glibc).
    """
    try:
        mallopt = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(
        mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX)
        and mallopt(_M_TRIM_THRESHOLD, int(trim_threshold))
    )


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

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drop the gradients (or, with ``set_to_none=False``, zero them in place)."""
        for p in self.params:
            if set_to_none or p.grad is None:
                p.grad = None
            else:
                p.grad.zero_()


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

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drop the gradients (or, with ``set_to_none=False``, zero them in place)."""
        self.opt.zero_grad(set_to_none=set_to_none)


@dataclass(frozen=True)
class TrainSetting:
    """One validated setting of :func:`train_batched`.

    Attributes
    ----------
    lam, gamma, eta : float
        Hybrid loss trade-off, log-margin and soft-max sharpness.
    lr : float
        Initial learning rate of the tables.
    candidates : numpy.ndarray of int64, shape (D, C)
        Candidate parents (``parents[:, None]`` for a fixed structure).
    learned : bool
        Whether the structure is learned (``candidates`` given) or fixed (``parents`` given).
    """

    lam: float
    gamma: float
    eta: float
    lr: float
    candidates: np.ndarray
    learned: bool

    @property
    def width(self) -> int:
        """Number of candidate parents per feature (``C``)."""
        return int(self.candidates.shape[1])

    @classmethod
    def from_mapping(cls, setting: Mapping, index: int, n_features: int) -> TrainSetting:
        """Validate one settings dict (``index`` names it in errors)."""
        unknown = set(setting) - SETTING_KEYS
        if unknown:
            raise ValueError(
                f"settings[{index}]: unknown key(s) {sorted(unknown)}; allowed: "
                f"{sorted(SETTING_KEYS)}"
            )
        if ("candidates" in setting) == ("parents" in setting):
            raise ValueError(f"settings[{index}]: give exactly one of 'candidates' and 'parents'")
        lam = float(setting.get("lam", 0.0))
        gamma = float(setting.get("gamma", 1.0))
        eta = float(setting.get("eta", 10.0))
        lr = float(setting.get("lr", 3e-3))
        if not lam >= 0:
            raise ValueError(f"settings[{index}]: lam must be >= 0, got {lam}")
        if not gamma > 0 and lam > 0:
            raise ValueError(f"settings[{index}]: gamma must be > 0, got {gamma}")
        if not eta > 0:
            raise ValueError(f"settings[{index}]: eta must be > 0, got {eta}")
        if not (lr > 0 and math.isfinite(lr)):
            raise ValueError(f"settings[{index}]: lr must be finite and > 0, got {lr}")
        if "parents" in setting:
            pa = np.asarray(setting["parents"])
            if pa.shape != (n_features,) or not np.issubdtype(pa.dtype, np.integer):
                raise ValueError(
                    f"settings[{index}]: parents must be {n_features} integers, got {pa.shape} "
                    f"{pa.dtype}"
                )
            pa = check_tan_parents(pa, n_features, name=f"settings[{index}]: parents")
            return cls(lam, gamma, eta, lr, pa.astype(np.int64)[:, None], False)
        cand = np.asarray(setting["candidates"])
        if cand.ndim != 2 or cand.shape[0] != n_features:
            raise ValueError(
                f"settings[{index}]: candidates must have shape ({n_features}, C), got {cand.shape}"
            )
        if not np.issubdtype(cand.dtype, np.integer):
            raise ValueError(f"settings[{index}]: candidates must be integers, got {cand.dtype}")
        return cls(lam, gamma, eta, lr, cand.astype(np.int64), True)


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


def _check_run(settings, seeds, n_epochs, init, adam) -> None:
    """Validate the arguments of :func:`train_batched` other than the data and settings."""
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


@torch.no_grad()
def error_rates(model: BNClassifier, x: torch.Tensor, y: torch.Tensor, batch: int) -> np.ndarray:
    """Error rate of every setting's most probable structure on shared data ``(x, y)``.

    Parameters
    ----------
    model : BNClassifier
    x : torch.Tensor of int64, shape (n, D)
        States on the model's device (not checked).
    y : torch.Tensor of int64, shape (n,)
    batch : int
        Rows per forward pass.

    Returns
    -------
    numpy.ndarray, shape (S,)
    """
    wrong = torch.zeros(model.n_settings, dtype=torch.int64, device=x.device)
    for start in range(0, x.shape[0], batch):
        xb = x[start : start + batch].unsqueeze(0).expand(model.n_settings, -1, -1)
        pred = model.log_joint_states(xb).argmax(dim=-1)
        wrong += (pred != y[start : start + batch].unsqueeze(0)).sum(dim=1)
    return wrong.cpu().numpy() / max(1, x.shape[0])


class TrainingHistory:
    """Per-setting training history of a batch (the ``history`` of :class:`TrainResult`).

    Parameters
    ----------
    n_settings : int
    """

    EPOCH_KEYS = ("epoch", "train_loss", "train_error_batches", "lr", "tau", "seconds")

    def __init__(self, n_settings: int) -> None:
        self.per_setting: list[dict[str, list]] = [
            {k: [] for k in self.EPOCH_KEYS} | {"eval_epoch": [], "test_error": []}
            for _ in range(n_settings)
        ]

    def record_test(self, epoch: int, errors: np.ndarray) -> None:
        """Record every setting's test error after ``epoch`` epochs."""
        for h, err in zip(self.per_setting, errors, strict=True):
            h["eval_epoch"].append(epoch)
            h["test_error"].append(float(err))

    def record_epoch(
        self,
        epoch: int,
        losses: np.ndarray,
        errors: np.ndarray,
        lrs: np.ndarray,
        tau: float,
        seconds: float,
    ) -> None:
        """Record the 1-based ``epoch``'s mean loss, batch error, learning rate and temperature."""
        for s, h in enumerate(self.per_setting):
            h["epoch"].append(epoch)
            h["train_loss"].append(float(losses[s]))
            h["train_error_batches"].append(float(errors[s]))
            h["lr"].append(float(lrs[s]))
            h["tau"].append(tau)
            h["seconds"].append(seconds)


class BatchedTrainer:
    """State of one batched training run: model, data, hyperparameters, optimizers, randomness.

    Built by :func:`train_batched` after validation; one method per stage of an epoch.

    Parameters
    ----------
    specs : sequence of TrainSetting
        All of the same kind (fixed or learned).
    x_train, y_train, x_test, y_test, n_states, n_classes, seeds, n_epochs, batch_size,
    lr_structure, lr_decay, tau_start, tau_end, init, adam, device, dtype
        As in :func:`train_batched`.
    """

    def __init__(
        self,
        specs: Sequence[TrainSetting],
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
        lr_structure: float,
        lr_decay: float,
        tau_start: float,
        tau_end: float,
        init: str,
        adam: str,
        device: str | torch.device,
        dtype: torch.dtype,
    ) -> None:
        self.specs = list(specs)
        self.seeds = [int(s) for s in seeds]
        self.learned = self.specs[0].learned
        self.n_epochs, self.batch_size = int(n_epochs), int(batch_size)
        self.dtype = dtype
        dev = self.device = torch.device(device)
        self.n_settings = len(self.specs)
        # one CPU generator per setting: initialization, then per epoch permutation and noise
        self.generators = [torch.Generator().manual_seed(seed) for seed in self.seeds]
        self.model = BNClassifier(
            n_states,
            n_classes,
            [s.candidates for s in self.specs],
            learn_structure=self.learned,
            device=dev,
            dtype=dtype,
            generators=self.generators,
        )
        self.x_train = torch.as_tensor(np.asarray(x_train), dtype=torch.int64, device=dev)
        self.y_train = torch.as_tensor(np.asarray(y_train), dtype=torch.int64, device=dev)
        self.x_test = torch.as_tensor(np.asarray(x_test), dtype=torch.int64, device=dev)
        self.y_test = torch.as_tensor(np.asarray(y_test), dtype=torch.int64, device=dev)
        if init == "ml":
            self.model.fit_ml(self.x_train, self.y_train)
        self.n_train = len(y_train)
        self.n_batches = self.n_train // self.batch_size

        self.lam = torch.tensor([s.lam for s in self.specs], dtype=dtype, device=dev)
        self.gamma = torch.tensor([s.gamma for s in self.specs], dtype=dtype, device=dev)
        self.eta = torch.tensor([s.eta for s in self.specs], dtype=dtype, device=dev)
        self.lr_table = np.stack(
            [learning_rate_schedule(s.lr, n_epochs, lr_decay) for s in self.specs]
        )
        self.taus = temperature_schedule(n_epochs, tau_start, tau_end)
        self.widths = [s.width for s in self.specs]
        self.opt_theta, self.opt_phi = self._optimizers(adam, lr_structure)

    def _optimizers(self, adam: str, lr_structure: float):
        model, S, dev = self.model, self.n_settings, self.device
        setting_ids = torch.arange(S, device=dev)
        same_lr = len({s.lr for s in self.specs}) == 1
        if adam == "keras_fused" and not same_lr:
            raise ValueError("adam='keras_fused' needs the same lr in every setting of the batch")
        if adam == "keras_fused" or (adam == "auto" and same_lr):
            opt_theta: KerasAdam | StackedAdam = KerasAdam([model.theta, model.class_logits])
        else:
            opt_theta = StackedAdam(
                [(model.theta, model.row_setting, 1), (model.class_logits, setting_ids, 0)]
            )
        opt_phi = StackedAdam([(model.phi, setting_ids, 0)]) if self.learned else None
        if opt_phi is not None:
            opt_phi.set_lr(torch.full((S,), lr_structure, dtype=torch.float64, device=dev))
        return opt_theta, opt_phi

    def set_epoch_lr(self, epoch: int) -> None:
        """Learning rates of the tables for 0-based ``epoch``."""
        if isinstance(self.opt_theta, KerasAdam):
            self.opt_theta.set_lr(self.lr_table[0, epoch])
        else:
            self.opt_theta.set_lr(torch.as_tensor(self.lr_table[:, epoch], device=self.device))

    def epoch_draws(self) -> tuple[torch.Tensor, torch.Tensor | None]:
        """This epoch's permutations ``(S, n_train)`` and uniform noise ``(n_batches, S, D, C)``.

        Drawn per setting on the CPU in a fixed order (permutation first, then noise), so a
        setting draws the same numbers alone and in a batch.
        """
        gens, dtype = self.generators, self.dtype
        perms = torch.stack([torch.randperm(self.n_train, generator=g) for g in gens])
        perms = perms.to(self.device)
        if not self.learned:
            return perms, None
        D, C = self.model.n_features, self.model.n_candidates
        noise = torch.full((self.n_batches, self.n_settings, D, C), 0.5, dtype=dtype)
        for s, g in enumerate(gens):  # padding keeps 0.5: phi is -inf there
            w = self.widths[s]
            noise[:, s, :, :w] = torch.rand((self.n_batches, D, w), generator=g, dtype=dtype)
        return perms, noise.to(self.device)

    def step(
        self, xb: torch.Tensor, yb: torch.Tensor, noise: torch.Tensor | None, tau: float
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """One optimization step on the mini-batches ``xb`` (S, n, D), ``yb`` (S, n).

        Returns
        -------
        loss : torch.Tensor, shape (S,)
        log_joint : torch.Tensor, shape (S, n, n_classes)
        """
        model = self.model
        if noise is None:
            log_joint = model.log_joint_states(xb)
        else:
            one_hot = straight_through_gumbel_softmax(model.phi, noise, tau)
            log_joint = model.log_joint_straight_through(xb, one_hot)
        loss = hybrid_loss(log_joint, yb, self.lam, self.gamma, self.eta)
        loss.sum().backward()  # settings share no parameters: one backward for all
        self.opt_theta.step()
        # learned structures: the tables' gradient is added in place at the chosen rows
        # (BNClassifier.log_joint_straight_through), so keep and zero its buffer
        self.opt_theta.zero_grad(set_to_none=not self.learned)
        if self.opt_phi is not None:
            self.opt_phi.step()
            self.opt_phi.zero_grad()
        return loss, log_joint

    def train_epoch(self, epoch: int) -> tuple[np.ndarray, np.ndarray]:
        """Train 0-based ``epoch``; mean loss and error on its mini-batches per setting."""
        S, dev, bs = self.n_settings, self.device, self.batch_size
        tau = float(self.taus[epoch])
        self.set_epoch_lr(epoch)
        perms, noise = self.epoch_draws()
        loss_sum = torch.zeros(S, dtype=torch.float64, device=dev)
        wrong = torch.zeros(S, dtype=torch.int64, device=dev)
        for b in range(self.n_batches):
            idx = perms[:, b * bs : (b + 1) * bs]
            xb, yb = self.x_train[idx], self.y_train[idx]
            loss, log_joint = self.step(xb, yb, None if noise is None else noise[b], tau)
            with torch.no_grad():
                loss_sum += loss.detach().to(torch.float64)
                wrong += (log_joint.argmax(dim=-1) != yb).sum(dim=1)
        losses = (loss_sum / self.n_batches).cpu().numpy()  # synchronizes with the device
        return losses, wrong.cpu().numpy() / (self.n_batches * bs)

    def test_errors(self, batch: int) -> np.ndarray:
        """Test error of every setting's most probable structure."""
        return error_rates(self.model, self.x_test, self.y_test, batch)

    def train_errors(self, batch: int) -> np.ndarray:
        """Error on the full training set of every setting's most probable structure."""
        return error_rates(self.model, self.x_train, self.y_train, batch)

    def results(
        self, history: TrainingHistory, test_err: np.ndarray, train_err: np.ndarray, seconds: float
    ) -> list[TrainResult]:
        """One :class:`TrainResult` per setting, in order."""
        parents = self.model.parents()
        phi = self.model.phi.detach().cpu().numpy()
        return [
            TrainResult(
                test_error=float(test_err[s]),
                train_error=float(train_err[s]),
                parents=parents[s].copy(),
                candidates=spec.candidates.copy(),
                structure_logits=phi[s, :, : spec.width].copy() if self.learned else None,
                history=history.per_setting[s],
                seconds=seconds,
                n_epochs=self.n_epochs,
                seed=self.seeds[s],
            )
            for s, spec in enumerate(self.specs)
        ]


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
    _check_run(settings, seeds, n_epochs, init, adam)
    _check_data(x_train, y_train, x_test, y_test, n_states, n_classes)
    n_train = len(y_train)
    if int(batch_size) != batch_size or not 1 <= batch_size <= n_train:
        raise ValueError(f"batch_size must be in 1..{n_train} (training rows), got {batch_size!r}")
    specs = [TrainSetting.from_mapping(s, i, n_states.size) for i, s in enumerate(settings)]
    if len({s.learned for s in specs}) != 1:
        raise ValueError("settings mix fixed 'parents' and learned 'candidates'; batch them apart")
    trainer = BatchedTrainer(
        specs, x_train, y_train, x_test, y_test, n_states, n_classes,
        seeds=seeds, n_epochs=n_epochs, batch_size=batch_size, lr_structure=lr_structure,
        lr_decay=lr_decay, tau_start=tau_start, tau_end=tau_end, init=init, adam=adam,
        device=device, dtype=dtype,
    )  # fmt: skip
    S = trainer.n_settings
    history = TrainingHistory(S)
    if eval_every > 0:
        history.record_test(0, trainer.test_errors(test_batch_size))
    for epoch in range(n_epochs):
        t_epoch = time.perf_counter()
        losses, errs = trainer.train_epoch(epoch)
        t_epoch = time.perf_counter() - t_epoch
        tau = float(trainer.taus[epoch])
        history.record_epoch(epoch + 1, losses, errs, trainer.lr_table[:, epoch], tau, t_epoch)
        if eval_every > 0 and (epoch + 1) % eval_every == 0 and epoch + 1 < n_epochs:
            history.record_test(epoch + 1, trainer.test_errors(test_batch_size))
        logger.debug("epoch %d/%d: mean train loss %s", epoch + 1, n_epochs, losses)

    test_err = trainer.test_errors(test_batch_size)
    train_err = trainer.train_errors(test_batch_size)
    history.record_test(n_epochs, test_err)
    seconds = (time.perf_counter() - t0) / S
    logger.info(
        "trained %d %s setting(s) for %d epochs in %.1f s: test error %s",
        S,
        "learned-structure" if trainer.learned else "fixed-structure",
        n_epochs,
        seconds * S,
        np.round(test_err, 4).tolist(),
    )
    return trainer.results(history, test_err, train_err, seconds)


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
    test_err = float(error_rates(model, xte, yte, 1000)[0])
    train_err = float(error_rates(model, xtr, ytr, 1000)[0])
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
