"""Max-min hill climbing (MMHC): the MMPC skeleton, then BDeu hill climbing restricted to it.

MMPC (Tsamardinos et al. 2006, Algorithms 1-2) finds the candidate parents and children
``CPC(T)`` of every target ``T``:

- **Forward phase.** ``MinAssoc(X; T | CPC) = min_{S ⊆ CPC} Assoc(X; T | S)``; the candidate with
  the largest minimum association joins ``CPC`` while it is dependent on ``T`` given every subset.
  The association is ``-log p`` of the G² test (the paper ranks by the p-value; the logarithm,
  continued into the far tail by the Wilson-Hilferty normal approximation, keeps the ranking when
  p-values underflow to 0). Because the minimum only decreases as ``CPC`` grows, it is updated
  with the subsets that contain the newest member only, and a candidate found independent given
  some subset is dropped for good. All remaining candidates are tested against one subset in a
  single batched call (the subset's key is shared).
- **Backward phase.** A member ``X`` is removed if ``X ⊥ T | S`` for some ``S ⊆ CPC \\ {X}``
  (members in the order they joined). Subsets of the members that joined before ``X`` were already
  tested in the forward phase; the others are tested per subset, for all members at once.
- **Conditioning sets** have at most ``max_cond_vars`` (default 3, the ``max_k`` default of MXM's
  MMPC by Tsamardinos' group) variables: all subsets of a large CPC are exponentially many (pigs
  has a variable with 41 neighbours).
- **Symmetry.** ``X`` and ``T`` are adjacent in the skeleton iff each is in the other's ``CPC``.

The marginal tests (``S = ∅``) of all pairs are shared by all targets and done once.
Hill climbing (:func:`bnstudy.structure.hill_climb.hill_climb`) then adds only edges of the
skeleton, with BDeu and equivalent sample size 10 (Causal Explorer's defaults, used by LSBN), with a
tabu list of the last 100 moves and up to 50 non-improving moves in a row before the best DAG
seen is returned (the paper's TABU search continues through 15; see
:mod:`bnstudy.structure.hill_climb` for why 50).

References
----------
.. [1] Tsamardinos, I., Brown, L. E., & Aliferis, C. F. (2006). The max-min hill-climbing Bayesian
   network structure learning algorithm. *Machine Learning*, 65(1), 31-78. Algorithms 1-3.
.. [2] Tsamardinos, I., Aliferis, C. F., & Statnikov, A. (2003). Time and sample efficient
   discovery of Markov blankets and direct causal relations. *KDD*, 673-678.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np
from scipy import special

from bnstudy.structure.citests import (
    DiscreteData,
    _run_tests,
    as_discrete_data,
    check_alpha,
)
from bnstudy.structure.hill_climb import hill_climb
from bnstudy.structure.scores import BDeuScore, check_ess

__all__ = ["mmhc", "mmpc", "mmpc_skeleton"]

logger = logging.getLogger(__name__)


def _log_p(stat: np.ndarray, dof: np.ndarray) -> np.ndarray:
    """``log p`` of the chi-square upper tail, finite far into the tail.

    Exact (``log chdtrc``) while the p-value is representable; beyond, the Wilson-Hilferty
    normal approximation of ``(X / k)^(1/3)`` with :func:`scipy.special.log_ndtr`.
    """
    stat = np.asarray(stat, dtype=np.float64)
    dof = np.asarray(dof, dtype=np.float64)
    out = np.zeros(stat.shape)
    pos = dof > 0
    k, x = dof[pos], stat[pos]
    p = special.chdtrc(k, x)
    with np.errstate(divide="ignore"):
        lp = np.log(p)
    tiny = p < 1e-250
    if tiny.any():
        kk, xx = k[tiny], x[tiny]
        z = ((xx / kk) ** (1.0 / 3.0) - (1.0 - 2.0 / (9.0 * kk))) / np.sqrt(2.0 / (9.0 * kk))
        lp[tiny] = special.log_ndtr(-z)
    out[pos] = lp
    return out


def _subsets(items: Sequence[int], max_size: int | None, must: int | None = None) -> list:
    """Subsets of ``items`` (size <= max_size), each with ``must`` added when given."""
    top = len(items) if max_size is None else min(len(items), max_size - (must is not None))
    out = []
    for k in range(0, top + 1):
        for s in combinations(items, k):
            out.append(tuple(sorted((*s, must))) if must is not None else s)
    return out


def _mmpc(
    d: DiscreteData,
    target: int,
    alpha: float,
    max_cond_vars: int | None,
    marginal_logp: np.ndarray | None,
) -> list[int]:
    """MMPC-bar(T) (before the symmetry correction) on prepared data."""
    p = d.n_variables
    log_alpha = np.log(alpha)
    kw = {"method": "g2", "dof": "adjusted", "correction": False}
    rest = np.delete(np.arange(p), target)
    # Alg. 1, forward phase. Subset S = ∅ first: the marginal association.
    if marginal_logp is not None:
        lp = marginal_logp[target, rest]
    else:
        st, df, _ = _run_tests(d, np.full(rest.size, target), rest, np.zeros((rest.size, 0)), **kw)
        lp = _log_p(st, df)
    min_assoc = -lp  # Assoc = -log p; larger is more dependent
    alive = lp < log_alpha  # independent given some subset: never a member
    cpc: list[int] = []
    while alive.any():
        cand = np.flatnonzero(alive)
        best = cand[np.argmax(min_assoc[cand])]
        alive[best] = False
        new = int(rest[best])
        if max_cond_vars == 0:
            # only the empty set may be conditioned on: nothing to update
            cpc.append(new)
            continue
        cpc_old = list(cpc)
        cpc.append(new)
        # update MinAssoc with the subsets that contain the new member (S ∪ {new})
        cand = np.flatnonzero(alive)
        for s in _subsets(cpc_old, max_cond_vars, must=new):
            if cand.size == 0:
                break
            zs = np.broadcast_to(np.asarray(s, dtype=np.int64), (cand.size, len(s)))
            st, df, _ = _run_tests(d, np.full(cand.size, target), rest[cand], zs, **kw)
            lp = _log_p(st, df)
            min_assoc[cand] = np.minimum(min_assoc[cand], -lp)
            indep = lp >= log_alpha
            alive[cand[indep]] = False
            cand = cand[~indep]
    # Alg. 1, backward phase: drop X if X ⊥ T | S for some S ⊆ CPC \ {X}, members in the order
    # they joined. The subsets of the members that joined before X were all tested while X was a
    # candidate (X stayed dependent), so only subsets holding a later member are new. The tests
    # are run per subset S, for every member it applies to, in one batch sharing S's key; the
    # sequential removals are then replayed on the results (a removed member can no longer be
    # conditioned on), which gives the same CPC as testing member by member.
    pos = {x: i for i, x in enumerate(cpc)}
    separated: dict[int, list[frozenset[int]]] = {x: [] for x in cpc}
    for sub in _subsets(cpc, max_cond_vars):
        if not sub:
            continue
        last = max(pos[v] for v in sub)
        xs = [x for x in cpc if pos[x] < last and x not in sub]
        if not xs:
            continue
        zs = np.broadcast_to(np.asarray(sub, dtype=np.int64), (len(xs), len(sub)))
        _, _, pv = _run_tests(d, np.full(len(xs), target), np.asarray(xs), zs, **kw)
        for x, indep in zip(xs, (pv >= alpha).tolist(), strict=True):
            if indep:
                separated[x].append(frozenset(sub))
    current = set(cpc)
    for x in list(cpc):
        rest = current - {x}
        if any(sub <= rest for sub in separated[x]):
            current.discard(x)
    cpc = [x for x in cpc if x in current]
    return cpc


def mmpc(
    data: Any,
    target: int,
    *,
    alpha: float = 0.05,
    max_cond_vars: int | None = 3,
    cards: Sequence[int] | None = None,
) -> list[int]:
    """Candidate parents and children of one variable by MMPC (no symmetry correction).

    Parameters
    ----------
    data : array_like or DiscreteData, shape (n_samples, n_variables)
        Non-negative integer state indices.
    target : int
        Column of the target.
    alpha : float, default 0.05
        Significance level of the G² tests (Causal Explorer's MMHC default, 5%).
    max_cond_vars : int or None, default 3
        Largest conditioning subset (MXM's ``max_k`` default, by Tsamardinos' group); ``None``
        tests every subset of the current CPC, which is exponential in its size (pigs has a
        variable with 41 neighbours).
    cards : sequence of int, optional
        Cardinalities; default ``max + 1`` per column.

    Returns
    -------
    list of int
        ``MMPC-bar(target)``, sorted.

    References
    ----------
    .. [1] Tsamardinos, Brown & Aliferis (2006), Machine Learning 65, Algorithm 1.
    """
    alpha = check_alpha(alpha)
    d = as_discrete_data(data, cards)
    if not 0 <= int(target) < d.n_variables:
        raise ValueError(f"target {target} out of range for {d.n_variables} columns")
    return sorted(_mmpc(d, int(target), alpha, _check_k(max_cond_vars), None))


def _check_k(max_cond_vars: int | None) -> int | None:
    if max_cond_vars is not None and int(max_cond_vars) < 0:
        raise ValueError(f"max_cond_vars must be >= 0, got {max_cond_vars!r}")
    return None if max_cond_vars is None else int(max_cond_vars)


def mmpc_skeleton(
    data: Any,
    *,
    alpha: float = 0.05,
    max_cond_vars: int | None = 3,
    cards: Sequence[int] | None = None,
    columns: Sequence[int] | None = None,
) -> np.ndarray:
    """The MMPC skeleton: ``X - T`` iff each is in the other's candidate parents and children.

    Parameters
    ----------
    data, alpha, max_cond_vars, cards
        See :func:`mmpc`.
    columns : sequence of int, optional
        Learn on these columns only; the output is indexed by position in ``columns``.

    Returns
    -------
    numpy.ndarray of bool, shape (p, p)
        Symmetric adjacency matrix.

    References
    ----------
    .. [1] Tsamardinos, Brown & Aliferis (2006), Machine Learning 65, Algorithm 2 (symmetry).
    """
    alpha = check_alpha(alpha)
    k = _check_k(max_cond_vars)
    d = as_discrete_data(data, cards, columns=columns)
    p = d.n_variables
    # the marginal tests of all pairs, shared by every target
    iu, ju = np.triu_indices(p, k=1)
    st, df, _ = _run_tests(
        d, iu, ju, np.zeros((iu.size, 0)), method="g2", dof="adjusted", correction=False
    )
    marg = np.zeros((p, p))
    marg[iu, ju] = marg[ju, iu] = _log_p(st, df)
    cpc = np.zeros((p, p), dtype=bool)
    for t in range(p):
        cpc[t, _mmpc(d, t, alpha, k, marg)] = True
    skel = cpc & cpc.T
    logger.info(
        "MMPC: %d variables, %d edges (%d one-sided candidates dropped)",
        p,
        int(skel.sum()) // 2,
        int((cpc & ~cpc.T).sum()),
    )
    return skel


def mmhc(
    data: Any,
    *,
    alpha: float = 0.05,
    ess: float = 10.0,
    max_cond_vars: int | None = 3,
    cards: Sequence[int] | None = None,
    columns: Sequence[int] | None = None,
    tabu_length: int = 100,
    patience: int = 50,
    max_indegree: int | None = None,
    epsilon: float = 1e-4,
    return_skeleton: bool = False,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Learn a DAG by max-min hill climbing.

    Parameters
    ----------
    data : array_like or DiscreteData, shape (n_samples, n_variables)
        Non-negative integer state indices.
    alpha : float, default 0.05
        Significance level of MMPC's G² tests (Causal Explorer's default, used by LSBN).
    ess : float, default 10
        Equivalent sample size of BDeu (Causal Explorer's default).
    max_cond_vars : int or None, default 3
        Largest conditioning subset in MMPC (:func:`mmpc`).
    cards, columns
        Cardinalities, and the columns to learn on (output indexed by position in ``columns``).
    tabu_length, patience, max_indegree, epsilon
        Passed to :func:`bnstudy.structure.hill_climb.hill_climb`.
    return_skeleton : bool, default False
        Also return the MMPC skeleton.

    Returns
    -------
    dag : numpy.ndarray of bool, shape (p, p)
        ``A[u, v]`` for ``u -> v``.
    skeleton : numpy.ndarray of bool, shape (p, p), only if ``return_skeleton``

    Raises
    ------
    ValueError
        On invalid data, ``alpha`` outside (0, 1), ``ess <= 0`` or a negative ``max_cond_vars``.

    References
    ----------
    .. [1] Tsamardinos, I., Brown, L. E., & Aliferis, C. F. (2006). The max-min hill-climbing
       Bayesian network structure learning algorithm. *Machine Learning*, 65(1), 31-78.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 3000)
    >>> b = a ^ (rng.random(3000) < 0.1)
    >>> c = b ^ (rng.random(3000) < 0.1)
    >>> g = mmhc(np.column_stack([a, b, c]))
    >>> (g | g.T).astype(int).tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    alpha = check_alpha(alpha)
    ess = check_ess(ess)
    d = as_discrete_data(data, cards, columns=columns)
    skel = mmpc_skeleton(d, alpha=alpha, max_cond_vars=max_cond_vars)
    dag = hill_climb(
        d,
        ess=ess,
        allowed=skel,
        tabu_length=tabu_length,
        patience=patience,
        max_indegree=max_indegree,
        epsilon=epsilon,
        scorer=BDeuScore(d, ess=ess),
    )
    return (dag, skel) if return_skeleton else dag
