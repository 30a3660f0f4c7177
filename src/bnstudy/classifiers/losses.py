"""Training criteria for Bayesian network classifiers: generative NLL and the hybrid margin loss.

Both take the log-joint ``log p(x, c)`` of every class, shape ``(..., n, n_classes)``, with any
leading axes (the settings axis of batched training) kept in the result.

References
----------
.. [1] W. Roth and F. Pernkopf, "Differentiable TAN Structure Learning for Bayesian Network
   Classifiers", PGM 2020, Sec. 2.3, Eqs. (5)-(8): L_NLL, the probabilistic-margin loss with the
   soft maximum of Roth et al. (2018), and the hybrid loss; implemented as the authors'
   ``hybrid_loss`` (``pgm-2020/experiment_*.py``).
.. [2] W. Roth, R. Peharz, S. Tschiatschek and F. Pernkopf, "Hybrid generative-discriminative
   training of Gaussian mixture models", *Pattern Recognition Letters* 112:131-137, 2018.
"""

from __future__ import annotations

import torch

__all__ = ["hybrid_loss", "nll_loss"]


def _as_leading(value: float | torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """``value`` as a tensor broadcastable against ``like`` of shape (..., n)."""
    t = torch.as_tensor(value, dtype=like.dtype, device=like.device)
    return t.unsqueeze(-1) if t.ndim > 0 else t


def _true_class(log_joint: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    if log_joint.shape[:-1] != y.shape:
        raise ValueError(
            f"labels of shape {tuple(y.shape)} do not match log_joint of shape "
            f"{tuple(log_joint.shape)} (expected labels of shape {tuple(log_joint.shape[:-1])})"
        )
    return log_joint.gather(-1, y.unsqueeze(-1)).squeeze(-1)


def nll_loss(log_joint: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Generative negative log-likelihood, the mean over samples of ``-log p(x, c)``.

    Parameters
    ----------
    log_joint : torch.Tensor, shape (..., n, n_classes)
        ``log p(x_n, c)`` for every class.
    y : torch.Tensor of int64, shape (..., n)
        True classes.

    Returns
    -------
    torch.Tensor, shape (...)

    References
    ----------
    Roth & Pernkopf (2020), Eq. (5).
    """
    return -_true_class(log_joint, y).mean(dim=-1)


def hybrid_loss(
    log_joint: torch.Tensor,
    y: torch.Tensor,
    lam: float | torch.Tensor,
    gamma: float | torch.Tensor,
    eta: float | torch.Tensor,
) -> torch.Tensor:
    """Hybrid generative-discriminative loss: NLL plus ``lam`` times the soft hinge on the margin.

    Per sample ``n`` with class ``c``::

        -log p(x, c) + lam * max(0, (1/eta) * logsumexp_{c' != c} eta * (gamma - log p(c, x)
                                                                        + log p(c', x)))

    averaged over the samples (the authors' ``hybrid_loss`` followed by ``reduce_mean``).
    ``lam = 0`` gives :func:`nll_loss`.

    Parameters
    ----------
    log_joint : torch.Tensor, shape (..., n, n_classes)
    y : torch.Tensor of int64, shape (..., n)
    lam : float or torch.Tensor of shape (...)
        Trade-off ``lambda >= 0``.
    gamma : float or torch.Tensor of shape (...)
        Desired log-margin ``gamma > 0``.
    eta : float or torch.Tensor of shape (...)
        Sharpness ``eta > 0`` of the soft maximum ``(1/eta) log sum exp(eta v)``.

    Returns
    -------
    torch.Tensor, shape (...)

    References
    ----------
    Roth & Pernkopf (2020), Eqs. (6)-(8); Roth et al. (2018).

    Examples
    --------
    >>> lj = torch.tensor([[-1.0, -2.0]])
    >>> float(hybrid_loss(lj, torch.tensor([0]), 1.0, 2.0, 10.0))  # 1 + max(0, 2 - (-1) + (-2))
    2.0
    """
    lp_true = _true_class(log_joint, y)
    gamma_t = _as_leading(gamma, lp_true).unsqueeze(-1)
    eta_t = _as_leading(eta, lp_true).unsqueeze(-1)
    lam_t = _as_leading(lam, lp_true)
    margin = gamma_t - lp_true.unsqueeze(-1) + log_joint
    # exclude c' = c: -inf inside the logsumexp, as the authors' one_hot(..., on_value=-inf) mask
    true_mask = torch.zeros_like(log_joint).scatter_(-1, y.unsqueeze(-1), float("-inf"))
    soft_max = torch.logsumexp((margin + true_mask) * eta_t, dim=-1) / eta_t.squeeze(-1)
    return (-lp_true + lam_t * torch.relu(soft_max)).mean(dim=-1)
