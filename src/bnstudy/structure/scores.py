"""BDeu family scores, vectorised over families and cached per (node, parent set).

The BDeu score of a DAG decomposes into local (family) scores. For node ``X_i`` with ``r_i`` states,
parent set ``Pa`` with ``q_i = Π_{V ∈ Pa} |V|`` joint configurations and counts ``N_ijk``
(parents in configuration ``j``, ``X_i = k``),

.. math::

    \\log S(X_i, Pa) = \\sum_j \\Big[\\log\\Gamma(\\alpha_{ij}) - \\log\\Gamma(\\alpha_{ij} + N_{ij})\\Big]
        + \\sum_{j,k} \\Big[\\log\\Gamma(\\alpha_{ijk} + N_{ijk}) - \\log\\Gamma(\\alpha_{ijk})\\Big],

with ``α_ijk = ess / (q_i r_i)`` and ``α_ij = ess / q_i`` (Heckerman et al. 1995, eq. 28 with the
uniform BDeu prior). Configurations and cells with zero counts contribute 0, so only the counts
that occur are needed: tables come from :func:`bnstudy.structure.citests.grouped_counts` (one
:func:`numpy.bincount` for a whole batch of families, parent configurations compressed to those
that occur) and every family with at most one parent from the one-hot Gram matrix of
:func:`bnstudy.structure.counting.pairwise_counts`.

References
----------
.. [1] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning Bayesian networks: the
   combination of knowledge and statistical data. *Machine Learning*, 20(3), 197-243.
.. [2] Buntine, W. (1991). Theory refinement on Bayesian networks. *UAI*, 52-60.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from scipy.special import gammaln

from bnstudy.structure.citests import (
    DiscreteData,
    SparseTables,
    _compressed_key,
    as_discrete_data,
    grouped_counts,
)
from bnstudy.structure.counting import pairwise_counts

__all__ = ["BDeuScore", "bdeu_local_score"]

logger = logging.getLogger(__name__)

FamilyKey = tuple[int, tuple[int, ...]]


def check_ess(ess: float) -> float:
    """Return the equivalent sample size as a float if it is positive and finite, else raise."""
    e = float(ess)
    if not (np.isfinite(e) and e > 0):
        raise ValueError(f"ess (equivalent sample size) must be positive, got {ess!r}")
    return e


def _bdeu_from_tables(
    tables: SparseTables,
    r_layout: np.ndarray,
    q_full: np.ndarray,
    r_true: np.ndarray,
    ess: float,
) -> np.ndarray:
    """BDeu of a batch of family tables laid out as ``(parent configuration, child state)``.

    ``r_layout`` is the length of the child axis in the layout (may include zero padding),
    ``q_full`` and ``r_true`` the true numbers of parent configurations and child states that set
    the Dirichlet hyperparameters. Only the nonzero cells and the parent configurations that
    occur contribute.
    """
    b = len(q_full)
    t, o = tables.test, tables.count
    conf = np.zeros(b + 1, dtype=np.int64)
    np.cumsum(tables.n_prefix, out=conf[1:])
    jg = conf[t] + tables.cell // r_layout[t]
    ju, jinv = np.unique(jg, return_inverse=True)
    n_j = np.bincount(jinv, weights=o, minlength=ju.size)
    t_j = np.zeros(ju.size, dtype=np.int64)
    t_j[jinv] = t
    a_jk = ess / (q_full * r_true)
    a_j = ess / q_full
    cell = gammaln(a_jk[t] + o) - gammaln(a_jk[t])
    confs = gammaln(a_j[t_j]) - gammaln(a_j[t_j] + n_j)
    return np.bincount(t, weights=cell, minlength=b) + np.bincount(t_j, weights=confs, minlength=b)


def bdeu_local_score(
    data: Any,
    node: int,
    parents: Sequence[int] = (),
    *,
    ess: float = 10.0,
    cards: Sequence[int] | None = None,
) -> float:
    """BDeu local score of one family (uncached; see :class:`BDeuScore` for repeated use).

    Parameters
    ----------
    data : array_like or DiscreteData, shape (n_samples, n_variables)
        Non-negative integer state indices.
    node : int
        Column of the child.
    parents : sequence of int, default ()
        Columns of the parents.
    ess : float, default 10
        Equivalent sample size (the Dirichlet weight; LSBN / Causal Explorer use 10).
    cards : sequence of int, optional
        Cardinalities; default ``max + 1`` per column.

    Returns
    -------
    float
        The log marginal likelihood of the family (natural log).

    References
    ----------
    .. [1] Heckerman, Geiger & Chickering (1995), Machine Learning 20, eq. 28.

    Examples
    --------
    >>> x = np.array([[0, 0], [1, 1], [1, 1], [0, 1]])
    >>> round(bdeu_local_score(x, 1, [0]), 6)
    -2.80076
    """
    return BDeuScore(data, cards, ess=ess).local_score(node, parents)


def _dense_to_sparse(tab: np.ndarray, n_prefix: np.ndarray) -> SparseTables:
    flat = np.ascontiguousarray(tab).reshape(len(tab), -1)
    t, cell = np.nonzero(flat)
    return SparseTables(
        t.astype(np.int64), cell.astype(np.int64), flat[t, cell].astype(float), n_prefix
    )


class BDeuScore:
    """BDeu family scores with a cache keyed by ``(node, sorted parents)``.

    Parameters
    ----------
    data : array_like or DiscreteData, shape (n_samples, n_variables)
        Non-negative integer state indices.
    cards : sequence of int, optional
        Cardinalities; default ``max + 1`` per column. Give the network's cardinalities to match
        a score computed with the full state spaces (pgmpy's ``state_names``).
    ess : float, default 10
        Equivalent sample size.

    Attributes
    ----------
    data : DiscreteData
    ess : float
    n_computed : int
        Number of family scores computed so far (cache misses).

    References
    ----------
    .. [1] Heckerman, D., Geiger, D., & Chickering, D. M. (1995). Learning Bayesian networks: the
       combination of knowledge and statistical data. *Machine Learning*, 20(3), 197-243.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 500)
    >>> x = np.column_stack([a, a ^ (rng.random(500) < 0.1)])
    >>> s = BDeuScore(x)
    >>> bool(s.local_score(1, [0]) > s.local_score(1, []))
    True
    """

    def __init__(self, data: Any, cards: Sequence[int] | None = None, *, ess: float = 10.0):
        self.data: DiscreteData = as_discrete_data(data, cards)
        self.ess = check_ess(ess)
        self._cache: dict[FamilyKey, float] = {}
        self._lgamma: dict[float, np.ndarray] = {}
        self.n_computed = 0

    def _lgamma_table(self, a: float) -> np.ndarray:
        """``log Γ(a + N) - log Γ(a)`` for the integer counts ``N = 0 .. n`` (cached by ``a``)."""
        t = self._lgamma.get(a)
        if t is None:
            if len(self._lgamma) >= 512:
                self._lgamma.clear()
            t = gammaln(a + np.arange(self.data.n_samples + 1, dtype=np.float64)) - gammaln(a)
            self._lgamma[a] = t
        return t

    def _extended_dense(self, node: int, base: tuple[int, ...], xs: np.ndarray) -> np.ndarray:
        """Scores of ``(node, base + {x})`` for every ``x`` from dense counts, or NaN if too big.

        The parent configurations of ``base`` that occur are folded with the child into one key
        ``(j, k)`` once; every candidate ``x`` then costs one pass over the rows (a dense
        ``(j, k, x)`` count from one :func:`numpy.bincount` for a block of candidates of one
        cardinality), and the log-gamma terms are read from per-``α`` tables over the integer
        counts instead of being evaluated per cell. Zero cells and configurations contribute
        ``0`` either way, so the result is the sparse computation's.
        """
        data = self.data
        cols, cards, n = data.columns, data.cards, data.n_samples
        r = int(cards[node])
        if base:
            kb, n_conf = _compressed_key(cols, cards, np.asarray(base, dtype=np.int64))
        else:
            kb, n_conf = np.zeros(n, dtype=np.int64), 1
        out = np.full(len(xs), np.nan)
        if n_conf * r > n:  # mostly empty cells: the sparse path is cheaper
            return out
        kbn = kb * r + cols[node]
        q_base = float(np.prod(cards[list(base)].astype(np.float64)))
        for kx in np.unique(cards[xs]).tolist():
            idx = np.flatnonzero(cards[xs] == kx)
            per = n_conf * r * kx
            a_j = self.ess / (q_base * kx)
            t_cell = self._lgamma_table(a_j / r)
            t_conf = self._lgamma_table(a_j)
            base_key = kbn * kx
            step = max(1, min((1 << 20) // per, (1 << 22) // max(n, 1)))
            for start in range(0, idx.size, step):
                sel = idx[start : start + step]
                b = sel.size
                key = base_key[None, :] + cols[xs[sel]]
                key += (np.arange(b, dtype=np.int64) * per)[:, None]
                cnt = np.bincount(key.ravel(), minlength=b * per).reshape(b, n_conf, r, kx)
                n_j = cnt.sum(axis=2)
                out[sel] = t_cell[cnt].reshape(b, -1).sum(axis=1) - t_conf[n_j].reshape(b, -1).sum(
                    axis=1
                )
        return out

    # -----------------------------------------------------------------------------------------
    def _compute(self, families: list[FamilyKey]) -> np.ndarray:
        """Scores of uncached families, batched by number of parents."""
        out = np.empty(len(families))
        by_size: dict[int, list[int]] = {}
        for i, (_, pa) in enumerate(families):
            by_size.setdefault(len(pa), []).append(i)
        cards = self.data.cards
        for m, idx in by_size.items():
            nodes = np.array([families[i][0] for i in idx], dtype=np.int64)
            prefix = np.array([families[i][1] for i in idx], dtype=np.int64).reshape(len(idx), m)
            tables = grouped_counts(self.data, prefix, nodes[:, None])
            q_full = np.prod(cards[prefix].astype(np.float64), axis=1)
            r = cards[nodes]
            out[idx] = _bdeu_from_tables(tables, r, q_full, r.astype(np.float64), self.ess)
        self.n_computed += len(families)
        return out

    def local_scores(self, families: Iterable[tuple[int, Iterable[int]]]) -> np.ndarray:
        """Scores of many families ``(node, parents)``; cached ones are looked up.

        Parameters
        ----------
        families : iterable of (int, iterable of int)

        Returns
        -------
        numpy.ndarray of float64
        """
        keys = [(int(v), tuple(sorted(int(u) for u in pa))) for v, pa in families]
        out = np.empty(len(keys))
        missing: list[FamilyKey] = []
        where: list[int] = []
        seen: dict[FamilyKey, int] = {}
        for i, k in enumerate(keys):
            s = self._cache.get(k)
            if s is not None:
                out[i] = s
            else:
                if k not in seen:
                    seen[k] = len(missing)
                    missing.append(k)
                where.append(i)
        if missing:
            self._check_families(missing)
            vals = self._compute(missing)
            for k, v in zip(missing, vals, strict=True):
                self._cache[k] = float(v)
            for i in where:
                out[i] = self._cache[keys[i]]
        return out

    def extended_scores(
        self, node: int, parents: Iterable[int], extra: Sequence[int]
    ) -> np.ndarray:
        """Scores of the families ``(node, parents + {x})`` for every ``x`` in ``extra`` (cached).

        The shared parent set and the child are folded into one key for the whole batch, so
        every new family costs one pass over the rows (:meth:`_extended_dense`; the nonzero cells
        of :func:`grouped_counts` when the parents have more configurations than there are
        rows). Hill climbing calls this to rescore every edge addition into ``node``.
        """
        base = tuple(sorted(int(u) for u in parents))
        node = int(node)
        extra = np.asarray(extra, dtype=np.int64)
        keys = [(node, tuple(sorted((*base, int(x))))) for x in extra.tolist()]
        out = np.empty(len(keys))
        missing = []
        for i, k in enumerate(keys):
            v = self._cache.get(k)
            if v is None:
                missing.append(i)
            else:
                out[i] = v
        if missing:
            self._check_families([keys[i] for i in missing])
            xs = extra[missing]
            vals = self._extended_dense(node, base, xs)
            sparse = np.flatnonzero(np.isnan(vals))
            if sparse.size:
                vals[sparse] = self._extended_sparse(node, base, xs[sparse])
            for i, v in zip(missing, vals.tolist(), strict=True):
                self._cache[keys[i]] = v
                out[i] = v
            self.n_computed += len(xs)
        return out

    def _extended_sparse(self, node: int, base: tuple[int, ...], xs: np.ndarray) -> np.ndarray:
        """As :meth:`_extended_dense`, from the nonzero cells of :func:`grouped_counts`."""
        cards = self.data.cards
        b = len(xs)
        prefix = np.broadcast_to(np.asarray(base, dtype=np.int64), (b, len(base)))
        tail = np.column_stack([xs, np.full(b, node)])
        tab = grouped_counts(self.data, prefix, tail)
        # (parents, x, node) in C order is (parent configuration of parents + {x}, node)
        tab = SparseTables(tab.test, tab.cell, tab.count, tab.n_prefix * cards[xs])
        q_full = np.prod(cards[list(base)].astype(np.float64)) * cards[xs]
        r = np.full(b, cards[node])
        return _bdeu_from_tables(tab, r, q_full, r.astype(np.float64), self.ess)

    def local_score(self, node: int, parents: Iterable[int] = ()) -> float:
        """Score of one family (cached)."""
        return float(self.local_scores([(node, parents)])[0])

    def score(self, parents: Mapping[int, Iterable[int]] | np.ndarray) -> float:
        """Score of a DAG: the sum of its family scores.

        Parameters
        ----------
        parents : mapping of int to iterable of int, or numpy.ndarray of shape (p, p)
            Parent sets by node, or an adjacency matrix with ``A[u, v]`` true for ``u -> v``.
            Nodes missing from a mapping have no parents.
        """
        p = self.data.n_variables
        if isinstance(parents, np.ndarray):
            adj = np.asarray(parents, dtype=bool)
            if adj.shape != (p, p):
                raise ValueError(f"adjacency must have shape {(p, p)}, got {adj.shape}")
            fam = [(v, np.flatnonzero(adj[:, v]).tolist()) for v in range(p)]
        else:
            fam = [(v, list(parents.get(v, ()))) for v in range(p)]
        return float(self.local_scores(fam).sum())

    def prime_single_parents(self, nodes: Sequence[int] | None = None) -> None:
        """Cache every family with no parent or one parent among ``nodes`` (default: all).

        One Gram-matrix product counts all pairs (:func:`~bnstudy.structure.counting.
        pairwise_counts`), far faster than a bincount per family when there are many variables.
        """
        nodes_arr = np.arange(self.data.n_variables) if nodes is None else np.asarray(nodes)
        cards = self.data.cards
        self.local_scores([(v, ()) for v in nodes_arr])
        if nodes_arr.size < 2:
            return
        iu, ju = np.triu_indices(nodes_arr.size, k=1)
        pairs = np.column_stack([nodes_arr[iu], nodes_arr[ju]])
        sub = np.unique(pairs)
        # pairwise_counts takes (n, p) data; restrict to the columns in use
        local = np.searchsorted(sub, pairs)
        tab = pairwise_counts(
            np.ascontiguousarray(self.data.columns[sub].T), cards[sub], local
        ).astype(np.float64)
        kmax = tab.shape[1]
        b = len(pairs)
        ci, cj = cards[pairs[:, 0]].astype(np.float64), cards[pairs[:, 1]].astype(np.float64)
        r_layout = np.full(b, kmax, dtype=np.int64)
        ones = np.full(b, kmax, dtype=np.int64)  # kmax padded parent configurations
        # family (child j, parent i): the rows of tab[k] are the parent's states
        s_j = _bdeu_from_tables(_dense_to_sparse(tab, ones), r_layout, ci, cj, self.ess)
        s_i = _bdeu_from_tables(
            _dense_to_sparse(tab.transpose(0, 2, 1), ones), r_layout, cj, ci, self.ess
        )
        for (i, j), a, c in zip(pairs.tolist(), s_j.tolist(), s_i.tolist(), strict=True):
            self._cache[(j, (i,))] = a
            self._cache[(i, (j,))] = c
        self.n_computed += 2 * b

    def _check_families(self, families: list[FamilyKey]) -> None:
        p = self.data.n_variables
        for v, pa in families:
            if not 0 <= v < p:
                raise ValueError(f"node {v} out of range for {p} variables")
            if v in pa:
                raise ValueError(f"node {v} cannot be its own parent")
            if pa and (pa[0] < 0 or pa[-1] >= p):
                raise ValueError(f"parents {list(pa)} out of range for {p} variables")
            if len(set(pa)) != len(pa):
                raise ValueError(f"parents {list(pa)} repeat a variable")

    def __len__(self) -> int:
        return len(self._cache)
