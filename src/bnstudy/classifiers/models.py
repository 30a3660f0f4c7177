"""Bayesian network classifiers (naive Bayes, TAN, differentiable TAN) as one vectorized torch module.

:class:`BNClassifier` holds, for every feature ``d`` and each of its candidate parents ``c`` (a
feature, or "class only"), a conditional table ``log p(x_d | x_pa, C)``. All tables of all
features, all candidates and all hyperparameter *settings* (independent models trained together)
live in **one** parameter tensor ``theta`` of shape ``(V, R, n_classes)``: one row per
(setting, feature, candidate, parent state), ``V`` the largest number of states of any feature.
The log-joint of a batch is one ``index_select`` of the normalized table, viewed as
``(V * R, n_classes)``, at ``x_d * R + row_offset[s, d, c] + x_pa``, followed by a sum over
features (no Python loop over features, candidates or settings). The child state is the leading
axis because ``log_softmax`` over the leading axis of a contiguous tensor is an elementwise
combination of ``V`` contiguous slabs, several times faster on CPU than over a middle axis.

Parameterization (Sec. 4 of the paper): ``theta`` and the class prior are unnormalized
log-probabilities, normalized by ``log_softmax`` in the forward pass; states a feature does not
have are fixed at ``-inf`` (probability zero, no gradient). Structure logits ``phi`` of shape
``(S, D, C)`` (``-inf`` at padded candidates) define a categorical distribution over each feature's
candidates; training samples a one-hot choice with the straight-through Gumbel-softmax estimator,
evaluation uses ``argmax phi``.

References
----------
.. [1] W. Roth and F. Pernkopf, "Differentiable TAN Structure Learning for Bayesian Network
   Classifiers", PGM 2020: Eq. (4) (TAN factorization), Eq. (9) (log-joint with structure
   selectors ``s``), Eqs. (11)-(13) (Gumbel-max sample, straight-through estimator, softmax
   surrogate with temperature ``tau``); code https://github.com/wroth8/bnc (``BNCModels.py``).
.. [2] E. Jang, S. Gu and B. Poole, "Categorical Reparameterization with Gumbel-Softmax", ICLR 2017.
.. [3] N. Friedman, D. Geiger and M. Goldszmidt, "Bayesian Network Classifiers", *Machine
   Learning* 29:131-163, 1997.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import torch

from bnstudy.classifiers.structures import PAD, check_tan_parents

__all__ = [
    "BNClassifier",
    "check_features",
    "check_labels",
    "fit_ml",
    "gumbel_noise",
    "straight_through_gumbel_softmax",
]

logger = logging.getLogger(__name__)

#: Epsilon inside the logs of the Gumbel noise, as the authors' ``gumbel_softmax_epsilon``.
GUMBEL_EPS = 1e-6


def check_features(x: np.ndarray | torch.Tensor, n_states: np.ndarray, what: str = "x") -> None:
    """Raise ``ValueError`` unless ``x`` holds integer states ``0..n_states[d]-1`` in column ``d``.

    Parameters
    ----------
    x : array_like of int, shape (..., n, D)
    n_states : numpy.ndarray of int, shape (D,)
    what : str
        Name used in the error message.
    """
    n_states = np.asarray(n_states)
    if isinstance(x, torch.Tensor):
        if x.dtype.is_floating_point or x.dtype == torch.bool or x.dtype.is_complex:
            raise ValueError(f"{what} must hold integer states, got dtype {x.dtype}")
        xt = x
    else:
        arr = np.asarray(x)
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"{what} must hold integer states, got dtype {arr.dtype}")
        xt = torch.from_numpy(np.ascontiguousarray(arr))
    if xt.ndim < 2 or xt.shape[-1] != n_states.size:
        raise ValueError(
            f"{what} must have shape (n, {n_states.size}) (one column per feature), "
            f"got {tuple(xt.shape)}"
        )
    if xt.numel() == 0:
        return
    flat = xt.reshape(-1, n_states.size)
    lo = flat.min(dim=0).values.cpu().numpy()
    hi = flat.max(dim=0).values.cpu().numpy()
    bad = np.flatnonzero((lo < 0) | (hi >= n_states))
    if bad.size:
        d = int(bad[0])
        value = int(lo[d]) if lo[d] < 0 else int(hi[d])
        raise ValueError(
            f"{what}: feature {d} has value {value} outside its declared states "
            f"0..{int(n_states[d]) - 1} ({bad.size} feature(s) out of range)"
        )


def check_labels(y: np.ndarray | torch.Tensor, n_classes: int, what: str = "y") -> None:
    """Raise ``ValueError`` unless ``y`` holds integer classes ``0..n_classes-1``."""
    yt = y if isinstance(y, torch.Tensor) else torch.from_numpy(np.ascontiguousarray(np.asarray(y)))
    if yt.dtype.is_floating_point or yt.dtype == torch.bool or yt.dtype.is_complex:
        raise ValueError(f"{what} must hold integer class indices, got dtype {yt.dtype}")
    if yt.numel() == 0:
        return
    lo, hi = int(yt.min()), int(yt.max())
    if lo < 0 or hi >= n_classes:
        value = lo if lo < 0 else hi
        raise ValueError(f"{what}: label {value} out of range for {n_classes} classes")


def gumbel_noise(uniform: torch.Tensor, eps: float = GUMBEL_EPS) -> torch.Tensor:
    """Gumbel(0, 1) noise ``-log(-log(u + eps) + eps)`` from uniform draws (authors' form)."""
    return -torch.log(-torch.log(uniform + eps) + eps)


class _StraightThroughArgmax(torch.autograd.Function):
    """Forward: exact one-hot of the argmax; backward: identity (the authors' ``max_ste``)."""

    @staticmethod
    def forward(ctx, y_soft: torch.Tensor) -> torch.Tensor:  # noqa: D102
        index = y_soft.argmax(dim=-1, keepdim=True)
        return torch.zeros_like(y_soft).scatter_(-1, index, 1.0)

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:  # noqa: D102
        return grad


class _WeightGradient(torch.autograd.Function):
    """Zero in the forward pass; passes ``d out / d w = sum_{n,k} g * values`` in the backward pass.

    ``values[s, j, n, k]`` is ``log p(x_d | x_pa, c = k)`` of every candidate ``j`` at sample
    ``n``: row ``flat[s, j, n]`` of setting ``s``'s normalized tables, ``log_softmax(theta[:,
    starts[s]:starts[s + 1]], 0)``. Normalization, gather and product run in the backward pass
    one setting at a time, so that each setting's tables and values are used while they are in
    cache (a batch of settings would otherwise write and re-read all normalized tables and
    ``S * J * n * K`` values from memory). Each column is normalized on its own, so the values
    equal those of the whole normalized ``theta``.
    """

    @staticmethod
    def forward(ctx, weights, theta, flat, starts):  # noqa: D102
        ctx.save_for_backward(theta, flat)
        ctx.starts = starts
        S, _, n = flat.shape  # (S, J, n): rows local to each setting
        return theta.new_zeros((S, n, theta.shape[2]))

    @staticmethod
    def backward(ctx, grad):  # noqa: D102
        theta, flat = ctx.saved_tensors
        S, J, n = flat.shape
        K = theta.shape[2]
        grad = grad.to(theta.dtype)
        grad_w = theta.new_empty((S, J))
        for s in range(S):
            table = torch.log_softmax(theta[:, ctx.starts[s] : ctx.starts[s + 1]], 0)
            values = table.view(-1, K).index_select(0, flat[s].reshape(-1))
            grad_w[s] = torch.bmm(values.view(1, J, n * K), grad[s].reshape(1, n * K, 1)).view(J)
        return grad_w, None, None, None


class _SelectRows(torch.autograd.Function):
    """``theta.index_select(1, rows)`` whose backward adds into ``theta.grad`` in place.

    The gradient of ``theta`` is nonzero only at the selected rows; adding it there into an
    existing ``theta.grad`` (zeroed in place by the optimizer) avoids allocating and zero-filling
    a fresh dense gradient of all tables every step. Values as ``index_select``'s backward
    (``zeros.index_add_(1, rows, grad)``); gradients accumulate across backward passes as usual.
    """

    @staticmethod
    def forward(ctx, theta, rows):  # noqa: D102
        ctx.theta = theta
        ctx.save_for_backward(rows)
        return theta.index_select(1, rows)

    @staticmethod
    def backward(ctx, grad):  # noqa: D102
        (rows,) = ctx.saved_tensors
        theta = ctx.theta
        if theta.grad is None:
            theta.grad = torch.zeros_like(theta)
        theta.grad.index_add_(1, rows, grad)
        return None, None


def straight_through_gumbel_softmax(
    logits: torch.Tensor, uniform: torch.Tensor, tau: float
) -> torch.Tensor:
    """Straight-through Gumbel-softmax sample over the last axis.

    Forward: one-hot ``argmax((logits + g) / tau)`` with Gumbel noise ``g``; backward: the gradient
    of ``softmax((logits + g) / tau)``. ``-inf`` logits (padding) are never chosen and get zero
    gradient.

    Parameters
    ----------
    logits : torch.Tensor, shape (..., C)
    uniform : torch.Tensor, shape (..., C)
        ``U[0, 1)`` draws (turned into Gumbel noise by :func:`gumbel_noise`).
    tau : float
        Temperature ``tau > 0``.

    Returns
    -------
    torch.Tensor, shape (..., C)

    References
    ----------
    Roth & Pernkopf (2020), Eqs. (11)-(13); Jang et al. (2017), Sec. 2.2 (Straight-Through
    Gumbel-Softmax Estimator).
    """
    y_soft = torch.softmax((logits + gumbel_noise(uniform)) * (1.0 / tau), dim=-1)
    return _StraightThroughArgmax.apply(y_soft)


def _as_index_tensor(x: np.ndarray | torch.Tensor, device: torch.device) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x.to(device=device, dtype=torch.int64)
    return torch.as_tensor(np.asarray(x), dtype=torch.int64, device=device)


class BNClassifier(torch.nn.Module):
    """Naive Bayes / TAN / differentiable-TAN classifier, optionally S independent settings at once.

    Parameters
    ----------
    n_states : array_like of int, shape (D,)
        Number of states of each feature (>= 1).
    n_classes : int
        Number of classes (>= 2).
    candidates : array_like of int, shape (D, C), or a sequence of S such arrays
        Candidate parents per feature (see :func:`bnstudy.classifiers.candidate_parents`):
        feature indices, ``-1`` for "class only", :data:`~bnstudy.classifiers.PAD` for padding. A
        fixed structure is ``parents[:, None]`` (see :meth:`from_parents`). A 2-d array builds an
        unbatched model (``log_joint`` returns ``(n, n_classes)``); a sequence of arrays (widths
        may differ) or a 3-d array builds a model with a leading settings axis.
    learn_structure : bool, default True
        Whether the structure logits ``phi`` are trainable (differentiable structure learning);
        False for fixed structures (then every feature uses its first candidate).
    device : str or torch.device, default "cpu"
    dtype : torch.dtype, default torch.float32
    generators : sequence of torch.Generator, optional
        One CPU generator per setting for the ``U(-0.1, 0.1)`` initialization (drawn on the CPU
        and copied, so CUDA runs start from the same values). Default: fresh generators with
        torch's default seed.

    Attributes
    ----------
    theta : torch.nn.Parameter, shape (V, R, n_classes)
        Unnormalized log-CPTs: child state, row (one per setting, feature, candidate and parent
        state), class.
    class_logits : torch.nn.Parameter, shape (S, n_classes)
        Unnormalized log class prior.
    phi : torch.nn.Parameter, shape (S, D, C)
        Structure logits (``0`` at initialization, ``-inf`` at padding).
    row_setting : torch.Tensor of int64, shape (R,)
        Setting that owns each row (axis 1) of ``theta`` (per-setting learning rates).

    References
    ----------
    Roth & Pernkopf (2020), Eqs. (4), (9)-(13) and Sec. 4 (initialization ``U([-0.1, 0.1])``,
    ``phi = 0``); Friedman, Geiger & Goldszmidt (1997).

    Examples
    --------
    >>> nb = BNClassifier.from_parents([-1, -1], n_states=[2, 3], n_classes=2)
    >>> nb.log_joint(np.array([[0, 2], [1, 0]])).shape
    torch.Size([2, 2])
    """

    def __init__(
        self,
        n_states: Sequence[int] | np.ndarray,
        n_classes: int,
        candidates: np.ndarray | Sequence[np.ndarray],
        *,
        learn_structure: bool = True,
        device: str | torch.device = "cpu",
        dtype: torch.dtype = torch.float32,
        generators: Sequence[torch.Generator] | None = None,
    ) -> None:
        super().__init__()
        n_states = np.asarray(n_states)
        if n_states.ndim != 1 or n_states.size < 1 or not np.issubdtype(n_states.dtype, np.integer):
            raise ValueError(f"n_states must be a 1-d array of integers, got {n_states!r}")
        if np.any(n_states < 1):
            d = int(np.flatnonzero(n_states < 1)[0])
            raise ValueError(f"n_states: feature {d} has {int(n_states[d])} states (need >= 1)")
        if int(n_classes) != n_classes or n_classes < 2:
            raise ValueError(f"n_classes must be an integer >= 2, got {n_classes!r}")
        self.n_states = n_states.astype(np.int64)
        self.n_features = int(n_states.size)
        self.n_classes = int(n_classes)
        self.device_ = torch.device(device)
        self.dtype_ = dtype
        self.learn_structure = bool(learn_structure)

        cand_list, self.batched = self._split_candidates(candidates)
        self.n_settings = len(cand_list)
        self.n_candidates = max(c.shape[1] for c in cand_list)
        S, D, C = self.n_settings, self.n_features, self.n_candidates
        cand = np.full((S, D, C), PAD, dtype=np.int64)
        for s, c in enumerate(cand_list):
            cand[s, :, : c.shape[1]] = c
        self.candidates_np = cand
        valid = cand != PAD
        V = int(self.n_states.max())
        self.V = V
        n_rows = np.where(cand >= 0, self.n_states[np.clip(cand, 0, None)], 1) * valid
        flat_rows = n_rows.reshape(-1)
        offsets = (np.cumsum(flat_rows) - flat_rows).reshape(S, D, C)
        first_valid = np.argmax(valid, axis=2)  # padded slots point at a real row (weight 0)
        pad_offsets = np.take_along_axis(offsets, first_valid[..., None], axis=2)
        offsets = np.where(valid, offsets, pad_offsets)
        self.n_rows = int(flat_rows.sum())
        valid_flat = valid.reshape(-1)
        owner = np.repeat(np.arange(S), D * C)[valid_flat]
        feature = np.tile(np.repeat(np.arange(D), C), S)[valid_flat]
        counts = flat_rows[valid_flat]
        row_setting = np.repeat(owner, counts)
        row_feature = np.repeat(feature, counts)
        self.setting_rows = np.bincount(row_setting, minlength=S)
        #: first row (axis 1 of ``theta``) of every setting, and the end: rows are per setting
        self.setting_starts = [int(v) for v in np.concatenate([[0], np.cumsum(self.setting_rows)])]

        dev = self.device_
        self.register_buffer("cand", torch.as_tensor(cand, device=dev))
        self.register_buffer("valid", torch.as_tensor(valid, device=dev))
        self.register_buffer(
            "parent_index", torch.as_tensor(np.where(cand >= 0, cand, D), device=dev)
        )
        self.register_buffer("row_offset", torch.as_tensor(offsets, device=dev))
        local = offsets - np.asarray(self.setting_starts[:-1]).reshape(S, 1, 1)
        self.register_buffer("local_row_offset", torch.as_tensor(local, device=dev))
        self.register_buffer(
            "local_rows", torch.as_tensor(self.setting_rows.reshape(S, 1, 1, 1), device=dev)
        )
        row_count = np.where(valid, n_rows, np.take_along_axis(n_rows, first_valid[..., None], 2))
        self.register_buffer("row_count", torch.as_tensor(row_count, device=dev))
        self.P = int(row_count.max())  # most parent states of any candidate
        self.register_buffer("row_steps", torch.arange(self.P, device=dev))
        self.register_buffer("row_setting", torch.as_tensor(row_setting, device=dev))
        self.register_buffer("row_feature", torch.as_tensor(row_feature, device=dev))
        # (V, R, 1): True where the state does not exist for the row's feature
        missing = np.arange(V)[:, None] >= self.n_states[row_feature][None, :]
        self.register_buffer("missing_state", torch.as_tensor(missing[..., None], device=dev))

        self.theta = torch.nn.Parameter(
            torch.zeros((V, self.n_rows, self.n_classes), dtype=dtype, device=dev)
        )
        self.class_logits = torch.nn.Parameter(
            torch.zeros((S, self.n_classes), dtype=dtype, device=dev)
        )
        phi = torch.zeros((S, D, C), dtype=dtype, device=dev)
        phi.masked_fill_(~self.valid, float("-inf"))
        self.phi = torch.nn.Parameter(phi, requires_grad=self.learn_structure)
        self.reset_parameters(generators)
        logger.debug(
            "BNClassifier: %d setting(s), %d features, %d candidates, %d table rows x %d states x %d "
            "classes (%.3g M parameters)",
            S,
            D,
            C,
            self.n_rows,
            V,
            self.n_classes,
            self.theta.numel() / 1e6,
        )

    # ------------------------------------------------------------------ construction helpers
    def _split_candidates(
        self, candidates: np.ndarray | Sequence[np.ndarray]
    ) -> tuple[list[np.ndarray], bool]:
        if isinstance(candidates, np.ndarray | torch.Tensor) and np.asarray(candidates).ndim == 2:
            items, batched = [np.asarray(candidates)], False
        elif isinstance(candidates, np.ndarray | torch.Tensor) and np.asarray(candidates).ndim == 3:
            items, batched = list(np.asarray(candidates)), True
        elif (
            isinstance(candidates, Sequence)
            and len(candidates) > 0
            and all(np.asarray(c).ndim == 2 for c in candidates)
        ):
            items, batched = [np.asarray(c) for c in candidates], True
        else:
            arr = np.asarray(candidates, dtype=object)
            raise ValueError(
                "candidates must be a (D, C) integer array or a non-empty sequence of them, "
                f"got an object of shape {arr.shape}"
            )
        D = self.n_features
        out = []
        for s, c in enumerate(items):
            where = f"candidates[{s}]" if batched else "candidates"
            if not np.issubdtype(c.dtype, np.integer):
                raise ValueError(f"{where} must be integers, got dtype {c.dtype}")
            if c.shape[0] != D or c.shape[1] < 1:
                raise ValueError(f"{where} must have shape ({D}, C >= 1), got {c.shape}")
            c = c.astype(np.int64)
            for d in range(D):
                row = c[d][c[d] != PAD]
                if row.size == 0:
                    raise ValueError(f"{where}: feature {d} has no candidate parent")
                if np.any(row < -1) or np.any(row >= D):
                    raise ValueError(
                        f"{where}: feature {d} has candidates {row.tolist()} out of range"
                    )
                if np.any(row == d):
                    raise ValueError(f"{where}: feature {d} lists itself as a candidate parent")
                if np.unique(row).size != row.size:
                    raise ValueError(
                        f"{where}: feature {d} has duplicate candidates {row.tolist()}"
                    )
            out.append(c)
        return out, batched

    @classmethod
    def from_parents(
        cls,
        parents: Sequence[int] | np.ndarray | Sequence[np.ndarray],
        n_states: Sequence[int] | np.ndarray,
        n_classes: int,
        **kwargs,
    ) -> BNClassifier:
        """A fixed-structure classifier (naive Bayes: all ``-1``; TAN: one parent per feature).

        ``parents`` of shape (D,) builds an unbatched model; shape (S, D) or a sequence of (D,)
        arrays a batched one. Other keyword arguments go to :class:`BNClassifier`. Each parent
        vector must be a TAN (:func:`~bnstudy.classifiers.structures.check_tan_parents`: a
        cycle, a self-loop or an index out of range is a ``ValueError``).
        """
        pa = np.asarray(parents)
        n_features = np.asarray(n_states).size
        if pa.ndim == 1:
            cand = check_tan_parents(pa, n_features)[:, None]
        elif pa.ndim == 2:
            cand = [
                check_tan_parents(row, n_features, name=f"parents[{s}]")[:, None]
                for s, row in enumerate(pa)
            ]
        else:
            raise ValueError(f"parents must have shape (D,) or (S, D), got {pa.shape}")
        return cls(n_states, n_classes, cand, learn_structure=False, **kwargs)

    def reset_parameters(self, generators: Sequence[torch.Generator] | None = None) -> None:
        """Initialize the class prior and tables ``U(-0.1, 0.1)`` and ``phi = 0`` per setting.

        For setting ``s`` the draws are, in order, the class logits ``(n_classes,)`` and then its
        table rows ``(R_s, V, n_classes)``, from ``generators[s]``; they depend only on that
        setting's own candidates, so a setting gets the same initial values alone or in a batch.
        """
        S = self.n_settings
        if generators is None:
            generators = [torch.Generator() for _ in range(S)]
        if len(generators) != S:
            raise ValueError(f"need one generator per setting ({S}), got {len(generators)}")
        starts = np.concatenate([[0], np.cumsum(self.setting_rows)])
        with torch.no_grad():
            for s, gen in enumerate(generators):
                prior = torch.rand((self.n_classes,), generator=gen, dtype=self.dtype_)
                self.class_logits[s].copy_(prior * 0.2 - 0.1)
                rows = torch.rand(
                    (int(self.setting_rows[s]), self.V, self.n_classes),
                    generator=gen,
                    dtype=self.dtype_,
                )
                self.theta[:, int(starts[s]) : int(starts[s + 1])].copy_(
                    rows.transpose(0, 1) * 0.2 - 0.1
                )
            self.theta.masked_fill_(self.missing_state, float("-inf"))
            self.phi.zero_()
            self.phi.masked_fill_(~self.valid, float("-inf"))

    # ------------------------------------------------------------------ structure
    def structure_choice(self) -> torch.Tensor:
        """Index of each feature's chosen candidate, ``argmax phi`` (first on ties); (S, D)."""
        if not self.learn_structure:
            return torch.zeros(
                (self.n_settings, self.n_features), dtype=torch.int64, device=self.cand.device
            )
        return self.phi.detach().argmax(dim=-1)

    def parents(self) -> np.ndarray:
        """The most probable structure: feature parent of each feature or ``-1``.

        Returns
        -------
        numpy.ndarray of int64, shape (D,) for unbatched models, (S, D) for batched ones.
        """
        chosen = self.cand.gather(2, self.structure_choice().unsqueeze(-1)).squeeze(-1)
        out = chosen.cpu().numpy()
        return out if self.batched else out[0]

    # ------------------------------------------------------------------ forward
    def _prepare_x(self, x: np.ndarray | torch.Tensor, check: bool) -> torch.Tensor:
        if check:
            check_features(x, self.n_states)
        xt = _as_index_tensor(x, self.cand.device)
        if xt.ndim == 2:
            return xt.unsqueeze(0).expand(self.n_settings, -1, -1)
        if xt.ndim == 3 and xt.shape[0] == self.n_settings:
            return xt
        raise ValueError(
            f"x must have shape (n, {self.n_features}) or ({self.n_settings}, n, "
            f"{self.n_features}), got {tuple(xt.shape)}"
        )

    def _finish(self, out: torch.Tensor) -> torch.Tensor:
        return out if self.batched else out[0]

    def log_tables(self) -> torch.Tensor:
        """All conditional tables normalized over the child states: ``log_softmax(theta, 0)``."""
        return torch.log_softmax(self.theta, dim=0)

    def _chosen_index(self, x: torch.Tensor, choice: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """Parent states, table offsets and row counts of the chosen candidates."""
        S, n, D = x.shape
        x_ext = torch.cat([x, x.new_zeros((S, n, 1))], dim=2)  # column D: state 0 ("class only")
        c = choice.unsqueeze(-1)
        parent = self.parent_index.gather(2, c).squeeze(-1)  # (S, D)
        offset = self.row_offset.gather(2, c).squeeze(-1)
        x_pa = x_ext.gather(2, parent.unsqueeze(1).expand(S, n, D))  # (S, n, D)
        return x_pa, offset, self.row_count.gather(2, c).squeeze(-1)

    def _chosen_sum(
        self, x: torch.Tensor, table: torch.Tensor, choice: torch.Tensor
    ) -> torch.Tensor:
        """Sum over features of the chosen candidates' log-probabilities; (S, n, K)."""
        S, n, D = x.shape
        x_pa, offset, _ = self._chosen_index(x, choice)
        flat = x * self.n_rows + offset.unsqueeze(1) + x_pa  # (S, n, D): one gather for all
        values = table.index_select(0, flat.reshape(-1)).view(S, n, D, self.n_classes)
        return values.sum(dim=2)

    def _all_index(self, x: torch.Tensor, local: bool = False) -> torch.Tensor:
        """Row of every candidate of every feature at every sample; (S, D * C, n).

        Rows of ``log_tables().view(-1, K)``, or with ``local`` of setting ``s``'s own tables
        ``log_softmax(theta[:, setting_starts[s]:setting_starts[s + 1]], 0).view(-1, K)``.
        """
        S, n, D = x.shape
        C = self.n_candidates
        x_t = x.transpose(1, 2)  # (S, D, n)
        x_ext = torch.cat([x_t, x_t.new_zeros((S, 1, n))], dim=1)
        parent = self.parent_index.reshape(S, D * C, 1).expand(S, D * C, n)
        x_pa = x_ext.gather(1, parent).view(S, D, C, n)
        if local:
            flat = x_t.unsqueeze(2) * self.local_rows + self.local_row_offset.unsqueeze(-1) + x_pa
        else:
            flat = x_t.unsqueeze(2) * self.n_rows + self.row_offset.unsqueeze(-1) + x_pa
        return flat.view(S, D * C, n)

    def _all_values(self, x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
        """log p(x_d | x_pa, c) of every candidate of every feature; (S, D * C, n, K)."""
        S, n, _ = x.shape
        values = table.index_select(0, self._all_index(x).reshape(-1))
        return values.view(S, -1, n, self.n_classes)

    def log_joint_states(
        self, x: torch.Tensor, weights: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Log-joint of prepared states, without checks (the training loop's path).

        Parameters
        ----------
        x : torch.Tensor of int64, shape (S, n, D)
            States on the model's device, one batch per setting; not validated.
        weights : torch.Tensor, shape (S, D, C), optional
            Structure selectors; default the most probable structure.

        Returns
        -------
        torch.Tensor, shape (S, n, n_classes)
            Always with the settings axis (see :meth:`log_joint` for the checked form).
        """
        S, n, D = x.shape
        K = self.n_classes
        table = self.log_tables().reshape(-1, K)
        prior = torch.log_softmax(self.class_logits, dim=-1).unsqueeze(1)
        if weights is None:
            return self._chosen_sum(x, table, self.structure_choice()) + prior
        values = self._all_values(x, table)
        # Eq. (9): sum over features and candidates of s_{i|j} * log p(x_i | x_j, c)
        w = weights.reshape(S, 1, D * self.n_candidates).to(values.dtype)
        return torch.bmm(w, values.view(S, D * self.n_candidates, n * K)).view(S, n, K) + prior

    def log_joint_straight_through(self, x: torch.Tensor, one_hot: torch.Tensor) -> torch.Tensor:
        """Training forward for exactly one-hot ``weights`` (straight-through samples).

        ``x`` as in :meth:`log_joint_states` (``(S, n, D)``, not validated); ``one_hot`` of shape
        ``(S, D, C)``. Same value and gradients as ``log_joint_states(x, one_hot)``, cheaper. The
        tables get gradients only through the chosen candidates (the others have weight 0), so
        only the chosen tables, ``(S, D, P, V, K)``, are normalized inside the autograd graph.
        The gradient w.r.t. the weights, ``sum_{n,k} g[n,k] log p(x_d | x_j, c=k)`` for every
        candidate ``j`` (Eq. 9 differentiated w.r.t. ``s_{i|j}``), is one matrix-vector product
        per setting with the gathered values of all candidates, computed outside the autograd
        graph in the backward pass.
        """
        S, n, D = x.shape
        K, P = self.n_classes, self.P
        prior = torch.log_softmax(self.class_logits, dim=-1).unsqueeze(1)
        choice = one_hot.detach().argmax(dim=-1)
        x_pa, offset, count = self._chosen_index(x, choice)
        # rows of the chosen tables, padded to P rows (repeats of the last row are never read)
        steps = torch.minimum(self.row_steps.view(1, 1, P), (count - 1).unsqueeze(-1))
        rows = (offset.unsqueeze(-1) + steps).reshape(-1)
        chosen = torch.log_softmax(_SelectRows.apply(self.theta, rows), dim=0)  # (V, S*D*P, K)
        base = x * (S * D * P) + torch.arange(S * D, device=x.device).view(S, 1, D) * P + x_pa
        values = chosen.reshape(-1, K).index_select(0, base.reshape(-1)).view(S, n, D, K)
        out = values.sum(dim=2) + prior
        if one_hot.requires_grad:
            with torch.no_grad():
                flat = self._all_index(x, local=True)
            weights = one_hot.reshape(S, D * self.n_candidates)
            out = out + _WeightGradient.apply(
                weights, self.theta.detach(), flat, self.setting_starts
            )
        return out

    def log_joint(
        self, x: np.ndarray | torch.Tensor, *, weights: torch.Tensor | None = None
    ) -> torch.Tensor:
        """``log p(x, c)`` for every class, one gather over all features and candidates.

        Parameters
        ----------
        x : array_like of int, shape (n, D) or (S, n, D)
            Feature states (shared by all settings, or one batch per setting).
        weights : torch.Tensor, shape (S, D, C), optional
            Structure selectors ``s_{i|j}`` (one-hot rows, or any weights); default: the most
            probable structure (``argmax phi``; the fixed parents for fixed structures).

        Returns
        -------
        torch.Tensor, shape (n, n_classes) for unbatched models, (S, n, n_classes) for batched.

        Raises
        ------
        ValueError
            If ``x`` has the wrong shape or a state outside its feature's declared states.

        References
        ----------
        Roth & Pernkopf (2020), Eq. (9).
        """
        xt = self._prepare_x(x, check=True)
        if weights is not None:
            weights = self._check_weights(weights)
        return self._finish(self.log_joint_states(xt, weights))

    def _check_weights(self, weights: torch.Tensor) -> torch.Tensor:
        shape = (self.n_settings, self.n_features, self.n_candidates)
        if not self.batched and weights.ndim == 2:
            weights = weights.unsqueeze(0)
        if tuple(weights.shape) != shape:
            raise ValueError(f"weights must have shape {shape}, got {tuple(weights.shape)}")
        return weights

    def log_joint_reference(
        self, x: np.ndarray | torch.Tensor, *, weights: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Per-feature Python-loop log-joint (the authors' design), for tests and benchmarks.

        Same result as :meth:`log_joint`: loops over settings, features and (with ``weights``)
        candidates, slicing each candidate's own ``(n_pa_states, V, n_classes)`` table.
        """
        xt = self._prepare_x(x, check=True)
        if weights is not None:
            weights = self._check_weights(weights)
        S, n, D = xt.shape
        choice = self.structure_choice()
        outs = []
        for s in range(S):
            out = torch.log_softmax(self.class_logits[s], dim=-1).expand(n, -1)
            for d in range(D):
                cols = range(self.n_candidates) if weights is not None else [int(choice[s, d])]
                for c in cols:
                    if not bool(self.valid[s, d, c]):
                        continue
                    pa = int(self.cand[s, d, c])
                    start = int(self.row_offset[s, d, c])
                    n_pa = int(self.n_states[pa]) if pa >= 0 else 1
                    table = torch.log_softmax(self.theta[:, start : start + n_pa], dim=0)
                    x_pa = xt[s, :, pa] if pa >= 0 else torch.zeros_like(xt[s, :, d])
                    value = table[xt[s, :, d], x_pa]  # (n, K)
                    out = out + (value if weights is None else weights[s, d, c] * value)
            outs.append(out)
        return self._finish(torch.stack(outs))

    def predict(self, x: np.ndarray | torch.Tensor) -> np.ndarray:
        """Most probable class under the most probable structure; (n,) or (S, n) int64."""
        with torch.no_grad():
            return self.log_joint(x).argmax(dim=-1).cpu().numpy()

    def log_cpt(self, feature: int, candidate: int | None = None, setting: int = 0) -> torch.Tensor:
        """Normalized ``log p(x_d | x_pa, c)`` of one candidate table.

        Parameters
        ----------
        feature : int
        candidate : int, optional
            Column of ``candidates`` (default: the chosen one).
        setting : int, default 0

        Returns
        -------
        torch.Tensor, shape (n_pa_states, n_states[feature], n_classes)
            ``n_pa_states`` is 1 for "class only"; detached from the graph.
        """
        if candidate is None:
            candidate = int(self.structure_choice()[setting, feature])
        if not bool(self.valid[setting, feature, candidate]):
            raise ValueError(f"candidate {candidate} of feature {feature} is padding")
        pa = int(self.cand[setting, feature, candidate])
        start = int(self.row_offset[setting, feature, candidate])
        n_pa = int(self.n_states[pa]) if pa >= 0 else 1
        table = torch.log_softmax(self.theta.detach()[:, start : start + n_pa], dim=0)
        return table[: int(self.n_states[feature])].transpose(0, 1)

    # ------------------------------------------------------------------ closed-form ML
    def fit_ml(
        self,
        x: np.ndarray | torch.Tensor,
        y: np.ndarray | torch.Tensor,
        smoothing: float = 1.0,
        *,
        chunk_size: int | None = None,
    ) -> BNClassifier:
        """Closed-form (smoothed) maximum-likelihood tables for every candidate of every setting.

        Sets the logits to ``log(count + smoothing)`` (class prior: ``log(N_c + smoothing)``), so
        after ``log_softmax`` each table row is ``(N(x_d, x_pa, c) + a) / (N(x_pa, c) + a |X_d|)``,
        the authors' ``init_ml_logits(..., smoothing)``. Counting is one ``bincount`` over flat
        indices per chunk of samples.

        Parameters
        ----------
        x : array_like of int, shape (n, D)
        y : array_like of int, shape (n,)
        smoothing : float, default 1.0
            Pseudo-count added to every cell (add-one / Laplace smoothing); must be positive.
        chunk_size : int, optional
            Samples per counting chunk (default: about 4 M index entries per chunk).

        Returns
        -------
        self

        References
        ----------
        Roth & Pernkopf (2020), Sec. 4 ("Results for maximum likelihood parameters (ML) are
        obtained in closed-form"); Friedman, Geiger & Goldszmidt (1997), Sec. 4.
        """
        if not smoothing > 0:
            raise ValueError(
                f"smoothing must be > 0, got {smoothing!r}: a table row with no count would be "
                "0/0, and its NaN would win every argmax"
            )
        check_features(x, self.n_states)
        check_labels(y, self.n_classes)
        xt = _as_index_tensor(x, self.cand.device)
        yt = _as_index_tensor(y, self.cand.device)
        if xt.ndim != 2 or yt.ndim != 1 or xt.shape[0] != yt.shape[0]:
            raise ValueError(
                f"x must be (n, D) and y (n,) with the same n, got {tuple(xt.shape)} and "
                f"{tuple(yt.shape)}"
            )
        S, D, C, V, K = (
            self.n_settings,
            self.n_features,
            self.n_candidates,
            self.V,
            self.n_classes,
        )
        size = self.n_rows * V * K
        counts = torch.zeros(size, dtype=torch.float64, device=xt.device)
        n = xt.shape[0]
        step = chunk_size or max(1, (1 << 22) // max(1, S * D * C))
        valid = self.valid.unsqueeze(1)
        for start in range(0, n, step):
            xb = xt[start : start + step].unsqueeze(0).expand(S, -1, -1)
            yb = yt[start : start + step]
            m = xb.shape[1]
            x_ext = torch.cat([xb, xb.new_zeros((S, m, 1))], dim=2)
            parent = self.parent_index.reshape(S, 1, D * C).expand(S, m, D * C)
            x_pa = x_ext.gather(2, parent).view(S, m, D, C)
            flat = xb.unsqueeze(-1) * self.n_rows + self.row_offset.unsqueeze(1) + x_pa
            lin = flat * K + yb.view(1, m, 1, 1)
            lin = lin.masked_select(valid.expand_as(lin))
            counts += torch.bincount(lin, minlength=size).to(torch.float64)
        prior = torch.bincount(yt, minlength=K).to(torch.float64) + smoothing
        with torch.no_grad():
            logits = torch.log(counts + smoothing).view(V, self.n_rows, K)
            logits = logits.masked_fill(self.missing_state, float("-inf"))
            self.theta.copy_(logits.to(self.dtype_))
            self.class_logits.copy_(torch.log(prior).to(self.dtype_).expand(S, K))
        logger.debug("fit_ml: %d samples, smoothing %g", n, smoothing)
        return self


def fit_ml(
    model: BNClassifier,
    x: np.ndarray | torch.Tensor,
    y: np.ndarray | torch.Tensor,
    smoothing: float = 1.0,
) -> BNClassifier:
    """Closed-form ML tables with add-``smoothing`` counts; see :meth:`BNClassifier.fit_ml`."""
    return model.fit_ml(x, y, smoothing)
