"""The PC algorithm (PC-stable skeleton, v-structures, Meek's rules) on discrete data.

Skeleton
--------
Start from the complete graph on the given columns. At level ``l = 0, 1, ...`` every remaining edge
``u - v`` is tested for ``u ⊥ v | S`` with ``S`` any ``l``-subset of ``adj(u) \\ {v}`` or of
``adj(v) \\ {u}``; the edge is deleted at the first independence and ``S`` is kept as its
separating set. The level ends when no edge has ``l`` other neighbours on either side.

``variant="stable"`` (Colombo & Maathuis 2014, Algorithm 4.1) takes the adjacency sets once at the
start of each level, so the skeleton does not depend on the order of the variables, and all edges
of a level are tested as batches: round ``r`` tests the ``r``-th candidate set of every edge still
undecided, in one vectorised call (several sets per edge when few edges are left).
``variant="orig"`` (Spirtes et al. 2000) deletes an edge at once, which shrinks the adjacency sets
of the edges tested after it in the same level; edges are taken in lexicographic order of their
column indices, the order of pgmpy's edge iteration on a complete graph. Level 0 tests all pairs
in one batch. Within an edge, neighbours are tried strongest first (by their marginal G² with the
pair), so a separating set is usually found in the first rounds; whether an edge is deleted does
not depend on this order (in either variant), only which separating set is recorded.
``max_cond_vars`` (default 3) bounds the levels.

pgmpy 1.1.2 note: ``PC(data).estimate(variant="stable")`` removes edges from the graph while it
iterates over them, so it runs the *original* PC (its skeleton equals ours with
``variant="orig"``); its ``variant="parallel"`` tests every edge of a level against the adjacency
fixed at the start of the level, which is PC-stable (equal to ours with ``variant="stable"``).
With its ``g_sq`` / ``chi_square`` tests, both agree with ours when ``correction=True``,
``max_cond_vars=5`` and the same ``alpha`` (see :mod:`bnstudy.structure.citests` for the
continuity correction they apply).

Orientation
-----------
Every unshielded triple ``x - z - y`` with ``z`` not in the separating set of ``(x, y)`` becomes a
v-structure ``x -> z <- y`` (triples in lexicographic order; an edge already oriented the other way
by an earlier v-structure keeps its first orientation). Meek's rules R1-R3 then orient what they
imply, until nothing changes.

References
----------
.. [1] Spirtes, P., Glymour, C., & Scheines, R. (2000). *Causation, Prediction, and Search*
   (2nd ed.). MIT Press. Section 5.4.2, the PC algorithm.
.. [2] Colombo, D., & Maathuis, M. H. (2014). Order-independent constraint-based causal structure
   learning. *Journal of Machine Learning Research*, 15, 3741-3782. Algorithm 4.1 (PC-stable).
.. [3] Meek, C. (1995). Causal inference and causal explanation with background knowledge.
   *UAI*, 403-410. Rules R1-R3.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from itertools import combinations
from typing import Any, Literal

import numpy as np

from bnstudy.structure.citests import (
    CITestMethod,
    DiscreteData,
    DofRule,
    _check_options,
    _run_tests,
    as_discrete_data,
    check_alpha,
)

__all__ = ["meek_rules", "orient_v_structures", "pc", "pc_skeleton"]

logger = logging.getLogger(__name__)

SepSets = dict[tuple[int, int], tuple[int, ...]]
# Smallest batch worth one vectorised call: below it, test several candidate sets per edge.
_MIN_BATCH = 64


def _edge_candidates(
    adj: np.ndarray, u: int, v: int, level: int, strength: np.ndarray
) -> list[tuple[int, ...]]:
    """Level-``l`` conditioning sets of edge ``u - v``: subsets of adj(u)\\v, then of adj(v)\\u.

    Neighbours are taken strongest first (by ``min(strength[u, z], strength[v, z])``, the marginal
    G² of ``z`` with the pair), so likely separators are tried early. Whether an edge is deleted
    does not depend on this order, only which separating set is recorded.
    """
    key = np.minimum(strength[u], strength[v])

    def ordered(a: int, b: int) -> list[int]:
        nb = np.flatnonzero(adj[a])
        nb = nb[nb != b]
        return nb[np.lexsort((nb, -key[nb]))].tolist()

    out = list(combinations(ordered(u, v), level))
    seen = {tuple(sorted(c)) for c in out}
    out += [c for c in combinations(ordered(v, u), level) if tuple(sorted(c)) not in seen]
    return out


def _test_batch(
    data: DiscreteData,
    items: list[tuple[int, int, tuple[int, ...]]],
    alpha: float,
    kw: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray]:
    """Independence decisions (p >= alpha) and statistics of tests with the same |Z|."""
    if not items:
        return np.zeros(0, dtype=bool), np.zeros(0)
    xs = np.array([t[0] for t in items], dtype=np.int64)
    ys = np.array([t[1] for t in items], dtype=np.int64)
    zs = np.array([t[2] for t in items], dtype=np.int64).reshape(len(items), -1)
    stat, _, p = _run_tests(data, xs, ys, zs, **kw)
    return p >= alpha, stat


def pc_skeleton(
    data: Any,
    *,
    alpha: float = 0.01,
    cards: Sequence[int] | None = None,
    columns: Sequence[int] | None = None,
    max_cond_vars: int | None = 3,
    variant: Literal["stable", "orig"] = "stable",
    method: CITestMethod = "g2",
    dof: DofRule = "adjusted",
    correction: bool = False,
) -> tuple[np.ndarray, SepSets]:
    """Skeleton and separating sets of the PC algorithm.

    Parameters
    ----------
    data : array_like or DiscreteData, shape (n_samples, n_variables)
        Non-negative integer state indices.
    alpha : float, default 0.01
        Significance level: ``u ⊥ v | S`` is accepted when the p-value is at least ``alpha``
        (Causal Explorer's PC default, 1%).
    cards : sequence of int, optional
        Cardinalities of the columns of ``data``; default ``max + 1``.
    columns : sequence of int, optional
        Learn on these columns only; the output is indexed by position in ``columns``.
    max_cond_vars : int or None, default 3
        Largest conditioning set tested (pgmpy's default is 5; ``None``: no limit). Without a
        limit a variable with many neighbours costs exponentially many tests (pigs has one with
        41); on alarm 3, 5 and no limit give the same skeleton.
    variant : {"stable", "orig"}, default "stable"
        PC-stable (order-independent) or the original PC (module docstring).
    method, dof, correction
        The CI test (:func:`bnstudy.structure.citests.ci_test`).

    Returns
    -------
    skeleton : numpy.ndarray of bool, shape (p, p)
        Symmetric adjacency matrix.
    sepsets : dict of (int, int) to tuple of int
        ``sepsets[(u, v)]`` (``u < v``) is the separating set that deleted edge ``u - v``.

    Raises
    ------
    ValueError
        On invalid data, ``alpha`` outside (0, 1), a negative ``max_cond_vars`` or an unknown
        ``variant``, ``method`` or ``dof``.

    References
    ----------
    .. [1] Spirtes, Glymour & Scheines (2000), *Causation, Prediction, and Search*, §5.4.2.
    .. [2] Colombo & Maathuis (2014), JMLR 15, Algorithm 4.1.
    """
    alpha = check_alpha(alpha)
    _check_options(method, dof)
    if variant not in ("stable", "orig"):
        raise ValueError(f"variant must be 'stable' or 'orig', got {variant!r}")
    if max_cond_vars is not None and int(max_cond_vars) < 0:
        raise ValueError(f"max_cond_vars must be >= 0, got {max_cond_vars!r}")
    d = as_discrete_data(data, cards, columns=columns)
    p = d.n_variables
    kw: dict[str, Any] = {"method": method, "dof": dof, "correction": correction}
    adj = ~np.eye(p, dtype=bool)
    sepsets: SepSets = {}
    # Level 0, the same in both variants: every pair, marginally, in one batch. The statistics
    # order the neighbours at the later levels (_edge_candidates).
    iu, ju = np.triu_indices(p, k=1)
    indep, stat = _test_batch(
        d, [(u, v, ()) for u, v in zip(iu.tolist(), ju.tolist(), strict=True)], alpha, kw
    )
    strength = np.zeros((p, p))
    strength[iu, ju] = strength[ju, iu] = stat
    for u, v in zip(iu[indep].tolist(), ju[indep].tolist(), strict=True):
        sepsets[(u, v)] = ()
        adj[u, v] = adj[v, u] = False
    n_tests = len(iu)
    level = 1
    limit = np.inf if max_cond_vars is None else int(max_cond_vars)
    while level <= limit:
        # an edge can be tested at this level only if one endpoint has `level` other neighbours
        deg = adj.sum(axis=1)
        if not (deg - 1 >= level)[np.flatnonzero(deg)].any():
            break
        iu, ju = np.nonzero(np.triu(adj, 1))
        edges = list(zip(iu.tolist(), ju.tolist(), strict=True))
        step = _stable_level if variant == "stable" else _orig_level
        n_tests += step(d, adj, edges, level, alpha, kw, sepsets, strength)
        logger.debug("PC level %d: %d edges left", level, int(np.triu(adj, 1).sum()))
        level += 1
    logger.info(
        "PC-%s skeleton: %d variables, %d edges, %d tests, levels 0..%d",
        variant,
        p,
        int(np.triu(adj, 1).sum()),
        n_tests,
        level - 1,
    )
    return adj, sepsets


def _stable_level(
    d: DiscreteData,
    adj: np.ndarray,
    edges: list[tuple[int, int]],
    level: int,
    alpha: float,
    kw: dict[str, Any],
    sepsets: SepSets,
    strength: np.ndarray,
) -> int:
    """One PC-stable level: adjacency frozen at the start, tests batched across edges."""
    frozen = adj.copy()
    cands = {e: _edge_candidates(frozen, e[0], e[1], level, strength) for e in edges}
    active = [e for e in edges if cands[e]]
    pos = dict.fromkeys(active, 0)
    n_tests = 0
    while active:
        # several candidate sets per edge when few edges remain, so every call is a real batch
        per = max(1, _MIN_BATCH // len(active))
        items, owner = [], []
        for e in active:
            for s in cands[e][pos[e] : pos[e] + per]:
                items.append((e[0], e[1], s))
                owner.append(e)
        indep, _ = _test_batch(d, items, alpha, kw)
        n_tests += len(items)
        done = set()
        for (u, v, s), e, ok in zip(items, owner, indep.tolist(), strict=True):
            if ok and e not in done:
                done.add(e)
                sepsets[e] = s
                adj[u, v] = adj[v, u] = False
        nxt = []
        for e in active:
            pos[e] += per
            if e not in done and pos[e] < len(cands[e]):
                nxt.append(e)
        active = nxt
    return n_tests


def _orig_level(
    d: DiscreteData,
    adj: np.ndarray,
    edges: list[tuple[int, int]],
    level: int,
    alpha: float,
    kw: dict[str, Any],
    sepsets: SepSets,
    strength: np.ndarray,
) -> int:
    """One level of the original PC: an edge's deletion is visible to the edges after it."""
    n_tests = 0
    for u, v in edges:
        cands = _edge_candidates(adj, u, v, level, strength)
        start, chunk = 0, 4
        while start < len(cands):
            part = cands[start : start + chunk]
            indep, _ = _test_batch(d, [(u, v, s) for s in part], alpha, kw)
            n_tests += len(part)
            if indep.any():
                sepsets[(u, v)] = part[int(np.argmax(indep))]
                adj[u, v] = adj[v, u] = False
                break
            start += chunk
            chunk *= 2
    return n_tests


def orient_v_structures(skeleton: np.ndarray, sepsets: SepSets) -> np.ndarray:
    """Orient the unshielded colliders of a skeleton.

    Parameters
    ----------
    skeleton : numpy.ndarray of bool, shape (p, p)
        Symmetric adjacency matrix.
    sepsets : dict of (int, int) to tuple of int
        Separating sets of the non-adjacent pairs, keyed ``(u, v)`` with ``u < v``.

    Returns
    -------
    numpy.ndarray of bool, shape (p, p)
        A PDAG: ``A[u, v] & ~A[v, u]`` is ``u -> v``, ``A[u, v] & A[v, u]`` is ``u - v``.

    References
    ----------
    .. [1] Spirtes, Glymour & Scheines (2000), *Causation, Prediction, and Search*, §5.4.2, step C.
    """
    sk = np.asarray(skeleton, dtype=bool)
    pdag = sk.copy()
    p = sk.shape[0]
    for x in range(p):
        for y in range(x + 1, p):
            if sk[x, y]:
                continue
            sep = set(sepsets.get((x, y), ()))
            for z in np.flatnonzero(sk[x] & sk[y]).tolist():
                if z in sep:
                    continue
                # x -> z <- y, unless an earlier collider already pointed an edge the other way
                if pdag[x, z] and pdag[z, x]:
                    pdag[z, x] = False
                if pdag[y, z] and pdag[z, y]:
                    pdag[z, y] = False
    return pdag


def meek_rules(pdag: np.ndarray) -> np.ndarray:
    """Apply Meek's rules R1-R3 to a PDAG until no edge changes.

    R1: ``a -> b - c``, ``a`` and ``c`` non-adjacent: ``b -> c``. R2: ``a -> c -> b`` and ``a - b``:
    ``a -> b``. R3: ``a - c1 -> b``, ``a - c2 -> b``, ``c1``, ``c2`` non-adjacent, ``a - b``:
    ``a -> b``.

    Parameters
    ----------
    pdag : numpy.ndarray of bool, shape (p, p)
        ``A[u, v] & ~A[v, u]`` is ``u -> v``, both directions an undirected edge.

    Returns
    -------
    numpy.ndarray of bool, shape (p, p)

    References
    ----------
    .. [1] Meek, C. (1995). Causal inference and causal explanation with background knowledge.
       *UAI*, 403-410.
    """
    a = np.asarray(pdag, dtype=bool).copy()
    changed = True
    while changed:
        changed = False
        und = a & a.T
        dirc = a & ~a.T
        adjm = a | a.T
        # R1: x -> y - z, x and z non-adjacent  =>  y -> z
        for y, z in zip(*np.nonzero(und), strict=True):
            if not (a[y, z] and a[z, y]):
                continue  # oriented earlier in this sweep
            if (dirc[:, y] & ~adjm[:, z] & (np.arange(len(a)) != z)).any():
                a[z, y] = False
                changed = True
        if changed:
            continue
        # R2: x -> w -> y and x - y  =>  x -> y
        for x, y in zip(*np.nonzero(und), strict=True):
            if (dirc[x] & dirc[:, y]).any():
                a[y, x] = False
                changed = True
                break
        if changed:
            continue
        # R3: x - w1 -> y, x - w2 -> y, w1, w2 non-adjacent, x - y  =>  x -> y
        for x, y in zip(*np.nonzero(und), strict=True):
            w = np.flatnonzero(und[x] & dirc[:, y])
            if len(w) >= 2 and any(not adjm[i, j] for i, j in combinations(w.tolist(), 2)):
                a[y, x] = False
                changed = True
                break
    return a


def pc(
    data: Any,
    *,
    alpha: float = 0.01,
    cards: Sequence[int] | None = None,
    columns: Sequence[int] | None = None,
    max_cond_vars: int | None = 3,
    variant: Literal["stable", "orig"] = "stable",
    method: CITestMethod = "g2",
    dof: DofRule = "adjusted",
    correction: bool = False,
    return_sepsets: bool = False,
) -> np.ndarray | tuple[np.ndarray, SepSets]:
    """Learn a CPDAG with the PC algorithm (PC-stable by default).

    Parameters
    ----------
    data : array_like or DiscreteData, shape (n_samples, n_variables)
        Non-negative integer state indices.
    alpha : float, default 0.01
        Significance level of the CI tests (Causal Explorer's PC default, 1%).
    cards, columns, max_cond_vars, variant, method, dof, correction
        See :func:`pc_skeleton`.
    return_sepsets : bool, default False
        Also return the separating sets.

    Returns
    -------
    pdag : numpy.ndarray of bool, shape (p, p)
        Over the positions of ``columns`` (all columns by default): ``pdag[u, v] & ~pdag[v, u]``
        is ``u -> v``, ``pdag[u, v] & pdag[v, u]`` an undirected edge. ``pdag | pdag.T`` is the
        skeleton.
    sepsets : dict, only if ``return_sepsets``

    Raises
    ------
    ValueError
        See :func:`pc_skeleton`.

    References
    ----------
    .. [1] Spirtes, P., Glymour, C., & Scheines, R. (2000). *Causation, Prediction, and Search*
       (2nd ed.). MIT Press.
    .. [2] Colombo, D., & Maathuis, M. H. (2014). Order-independent constraint-based causal
       structure learning. *JMLR*, 15, 3741-3782.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.integers(0, 2, (2, 3000))
    >>> c = (a | b) ^ (rng.random(3000) < 0.05)   # a -> c <- b
    >>> g = pc(np.column_stack([a, b, c]))
    >>> g.astype(int).tolist()
    [[0, 0, 1], [0, 0, 1], [0, 0, 0]]
    """
    skel, sepsets = pc_skeleton(
        data,
        alpha=alpha,
        cards=cards,
        columns=columns,
        max_cond_vars=max_cond_vars,
        variant=variant,
        method=method,
        dof=dof,
        correction=correction,
    )
    pdag = meek_rules(orient_v_structures(skel, sepsets))
    return (pdag, sepsets) if return_sepsets else pdag
