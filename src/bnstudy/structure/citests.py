"""Conditional-independence tests for discrete data: G² and Pearson's X², batched.

Every test ``X ⊥ Y | Z`` is decided from the three-way contingency table of ``(Z, X, Y)``. Tables
are counted without Python loops over samples: the states of ``Z`` are folded into one mixed-radix
key per row, ``key = (z * |X| + x) * |Y| + y``, and one :func:`numpy.bincount` counts all tables of
a small batch of tests, each test's keys shifted by the offset of its block (batches are kept small
and keys in the narrowest integer type, ``uint16`` when the tables allow, because the counting is
bound by memory traffic). When the joint state space of ``Z`` is larger than the number of rows,
the ``Z`` key of that test is first compressed to the configurations that occur
(:func:`numpy.unique`), so no table has more strata than rows; a ``Z`` shared by a whole batch is
folded once. Only the nonzero cells are kept (:class:`SparseTables`) and the statistics are
computed from them. Thousands of marginal tests at once take all pair tables from one Gram-matrix
product instead (:func:`bnstudy.structure.counting.pairwise_counts`).

Statistic
---------
With ``N_xyz`` the counts, ``N_xz``, ``N_yz``, ``N_z`` the margins and ``E_xyz = N_xz N_yz / N_z``,

- ``G² = 2 Σ N_xyz log(N_xyz / E_xyz)`` (``method="g2"``; ``G² = 2 N I(X; Y | Z)`` in nats),
- ``X² = Σ (N_xyz - E_xyz)² / E_xyz`` over the cells with ``E_xyz > 0`` (``method="chi2"``).

Degrees of freedom (``dof=``)
-----------------------------
``"adjusted"`` (default)
    ``Σ_z (r_z - 1)(c_z - 1)`` over the configurations ``z`` of ``Z`` that occur, with ``r_z`` and
    ``c_z`` the numbers of states of ``X`` and ``Y`` observed in stratum ``z``. Zero rows and
    columns of a stratum and empty strata carry no information, so they do not count. This is the
    rule of pgmpy 1.1.2 (``power_divergence`` reduces every stratum to its observed states and
    sums the ``dof`` of :func:`scipy.stats.chi2_contingency`) and of bnlearn's adjusted tests; it is
    the structural-zero correction that Spirtes et al. (2000) and Causal Explorer apply in the
    form "one degree of freedom less for every zero cell", taken per row and column of a stratum.
``"classic"``
    ``(|X| - 1)(|Y| - 1) Π_{V ∈ Z} |V|``, the textbook value, ignoring zeros.

A test with 0 degrees of freedom (every stratum has a single observed state of ``X`` or of ``Y``)
has no evidence against independence: its p-value is 1.

Continuity correction (``correction=True``)
-------------------------------------------
:func:`scipy.stats.chi2_contingency` applies Yates' correction, by default, to every table with one
degree of freedom: each cell count moves by ``min(0.5, |E - N|)`` towards its expectation. pgmpy
calls it once per stratum on the stratum's observed states, so its G² and X² tests correct every
stratum whose observed table is 2 x 2. ``correction=True`` reproduces this (used to reproduce
pgmpy's PC skeleton); the default ``False`` is the plain statistic of Spirtes et al. (2000) and
Causal Explorer.

References
----------
.. [1] Spirtes, P., Glymour, C., & Scheines, R. (2000). *Causation, Prediction, and Search*
   (2nd ed.). MIT Press. Section 5.4.2: the G² test and its degrees of freedom.
.. [2] Tsamardinos, I., Brown, L. E., & Aliferis, C. F. (2006). The max-min hill-climbing Bayesian
   network structure learning algorithm. *Machine Learning*, 65(1), 31-78. Section 3: G² with
   "at least five samples per degree of freedom" before a test is performed.
.. [3] Agresti, A. (2002). *Categorical Data Analysis* (2nd ed.). Wiley. Section 3.2.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import special

from bnstudy.structure.counting import check_discrete_data, pairwise_counts

__all__ = [
    "DiscreteData",
    "SparseTables",
    "as_discrete_data",
    "check_alpha",
    "ci_test",
    "ci_tests",
    "grouped_counts",
    "p_values",
    "table_statistics",
]

logger = logging.getLogger(__name__)

CITestMethod = Literal["g2", "chi2"]
DofRule = Literal["adjusted", "classic"]

_METHODS = ("g2", "chi2")
_DOF_RULES = ("adjusted", "classic")
# Per-row keys (tests x rows) counted by one bincount: small enough to stay in cache.
_BATCH_KEYS = 1 << 17
# Largest dense table block of one bincount.
_BATCH_CELLS = 1 << 20
# From this many marginal tests on, count all pairs with one Gram-matrix product.
_MIN_GRAM_TESTS = 2000
# Mixed-radix keys are compressed before they could overflow int64.
_KEY_LIMIT = 1 << 40
# Keys in a range up to this size (or up to 4 per row) are compressed by counting, not sorting.
_COUNT_LIMIT = 1 << 20


@dataclass(frozen=True)
class DiscreteData:
    """Validated discrete data in the column-major layout the counting kernels use.

    Build it with :func:`as_discrete_data`; every learner in :mod:`bnstudy.structure` accepts it in
    place of a raw array, which saves re-validating the same data in repeated calls.

    Attributes
    ----------
    columns : numpy.ndarray, shape (n_variables, n_samples)
        ``columns[v]`` holds the states of variable ``v`` (C-contiguous rows), in the smallest
        unsigned type that holds them (``uint8`` up to 256 states).
    cards : numpy.ndarray of int64, shape (n_variables,)
        Cardinality of every variable.
    """

    columns: np.ndarray
    cards: np.ndarray

    @property
    def n_samples(self) -> int:
        """Number of rows."""
        return int(self.columns.shape[1])

    @property
    def n_variables(self) -> int:
        """Number of variables."""
        return int(self.columns.shape[0])

    def subset(self, columns: Sequence[int]) -> DiscreteData:
        """The data restricted to ``columns`` (in that order)."""
        idx = np.asarray(columns, dtype=np.int64)
        return DiscreteData(np.ascontiguousarray(self.columns[idx]), self.cards[idx].copy())

    def to_array(self) -> np.ndarray:
        """The data as an ``(n_samples, n_variables)`` int64 array."""
        return np.ascontiguousarray(self.columns.T)


def as_discrete_data(
    data: Any, cards: Sequence[int] | None = None, *, columns: Sequence[int] | None = None
) -> DiscreteData:
    """Validate discrete data once, for any number of tests or learners.

    Parameters
    ----------
    data : array_like, pandas.DataFrame or DiscreteData, shape (n_samples, n_variables)
        Non-negative integer state indices, one column per variable. A :class:`DiscreteData` is
        returned as it is (restricted to ``columns`` if given).
    cards : sequence of int, optional
        Cardinality of every column of ``data`` (before ``columns`` is applied); each must exceed
        the column's largest value. Default: the largest value plus one.
    columns : sequence of int, optional
        Keep only these columns, in this order (a sub-community, in LSBN's LocalLearn).

    Returns
    -------
    DiscreteData

    Raises
    ------
    ValueError
        If the data is not 2-D, has non-integer or negative values, a column taking a single
        value (:func:`bnstudy.structure.counting.check_discrete_data`), a cardinality not above the
        column's largest value, or a column index out of range, or repeated. The message names the
        offending column or value.

    Examples
    --------
    >>> d = as_discrete_data([[0, 1], [1, 0], [1, 2]])
    >>> d.cards.tolist(), d.n_samples
    ([2, 3], 3)
    """
    if isinstance(data, DiscreteData):
        if cards is not None:
            given = np.asarray(cards, dtype=np.int64)
            if given.shape != data.cards.shape or (given != data.cards).any():
                raise ValueError(f"cards {given.tolist()} disagree with the DiscreteData's cards")
        return data if columns is None else data.subset(_check_columns(columns, data.n_variables))
    p_all = np.shape(data)[1] if np.ndim(data) == 2 else None
    if columns is not None and p_all is not None:
        cols = _check_columns(columns, p_all)
        if hasattr(data, "iloc"):
            data = data.iloc[:, cols]
        else:
            data = np.asarray(data)[:, cols]
        if cards is not None:
            given = np.asarray(cards)
            if given.shape != (p_all,):
                raise ValueError(
                    f"cards must give all {p_all} columns of data when columns is used, got "
                    f"{given.tolist()}"
                )
            cards = given[cols]
    arr, inferred = check_discrete_data(data)
    if cards is None:
        cards_arr = inferred
    else:
        cards_arr = np.asarray(cards)
        if cards_arr.shape != inferred.shape or cards_arr.dtype.kind not in "iu":
            raise ValueError(
                f"cards must be {inferred.size} integers (one per column), got {cards_arr.tolist()}"
            )
        cards_arr = cards_arr.astype(np.int64)
        low = np.flatnonzero(cards_arr < inferred)
        if low.size:
            j = int(low[0])
            raise ValueError(
                f"cards[{j}] = {cards_arr[j]} but column {j} has the state {inferred[j] - 1}"
            )
    return DiscreteData(np.ascontiguousarray(arr.T, dtype=_state_dtype(cards_arr)), cards_arr)


def _state_dtype(cards: np.ndarray) -> type:
    """Smallest unsigned type holding every state: less memory traffic per counting pass."""
    top = int(cards.max())
    return np.uint8 if top <= 1 << 8 else np.uint16 if top <= 1 << 16 else np.int64


def _check_columns(columns: Sequence[int], p: int) -> np.ndarray:
    cols = np.asarray(columns)
    if cols.ndim != 1 or (cols.size and cols.dtype.kind not in "iu"):
        raise ValueError(f"columns must be a sequence of column indices, got {columns!r}")
    cols = cols.astype(np.int64)
    if cols.size == 0:
        raise ValueError("columns must not be empty")
    bad = cols[(cols < 0) | (cols >= p)]
    if bad.size:
        raise ValueError(f"column index {bad[0]} is out of range for {p} columns")
    if np.unique(cols).size != cols.size:
        raise ValueError(f"columns must not repeat, got {cols.tolist()}")
    return cols


def check_alpha(alpha: float, name: str = "alpha") -> float:
    """Return ``alpha`` as a float if it is a significance level in (0, 1), else raise."""
    a = float(alpha)
    if not 0.0 < a < 1.0:
        raise ValueError(f"{name} must be in (0, 1), got {alpha!r}")
    return a


def _check_options(method: str, dof: str) -> None:
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if dof not in _DOF_RULES:
        raise ValueError(f"dof must be one of {_DOF_RULES}, got {dof!r}")


# ---------------------------------------------------------------------------------------------
# Counting kernels


@dataclass(frozen=True)
class SparseTables:
    """The nonzero cells of a batch of contingency tables.

    Table ``k`` has the C-order layout ``(prefix configuration, tail[0], tail[1], ...)`` with
    ``n_prefix[k]`` prefix configurations; only its nonzero cells are listed.

    Attributes
    ----------
    test : numpy.ndarray of int64
        Table of every nonzero cell (sorted).
    cell : numpy.ndarray of int64
        Index of the cell within its table's layout.
    count : numpy.ndarray of float64
        Its count (> 0).
    n_prefix : numpy.ndarray of int64, shape (n_tables,)
        Number of prefix configurations (strata) of every table.
    """

    test: np.ndarray
    cell: np.ndarray
    count: np.ndarray
    n_prefix: np.ndarray


def _unique_inverse(key: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.unique(key, return_inverse=True)`` for integer keys in ``0 .. size - 1``.

    When the range is small (at most ``_COUNT_LIMIT``, or 4 per key) the keys that occur are
    found by one :func:`numpy.bincount` and renumbered in increasing order, which is what the
    sort of :func:`numpy.unique` returns, in ``O(n + size)`` instead of ``O(n log n)``.

    >>> _unique_inverse(np.array([5, 2, 5, 7]), 8)
    (array([2, 5, 7]), array([1, 0, 1, 2]))
    """
    if size > max(_COUNT_LIMIT, 4 * key.size):
        return np.unique(key, return_inverse=True)
    present = np.bincount(key, minlength=size).astype(bool)
    uniq = np.flatnonzero(present)
    code = np.zeros(size, dtype=np.intp)
    code[uniq] = np.arange(uniq.size)
    return uniq, code[key]


def _compressed_key(
    columns: np.ndarray, cards: np.ndarray, variables: np.ndarray, *, compress: bool = True
) -> tuple[np.ndarray, int]:
    """Joint state index of ``variables`` per row, compressed to the configurations that occur.

    Returns ``(key, n_configs)`` with ``key`` in ``0 .. n_configs - 1``. The mixed-radix key is
    re-compressed with :func:`numpy.unique` whenever the next factor could overflow int64, and at
    the end when its state space exceeds the number of rows (or always, if ``compress``; with
    ``compress=False`` a small state space keeps the plain mixed-radix key).
    """
    n = columns.shape[1]
    key = np.zeros(n, dtype=np.int64)
    size = 1
    for v in variables:
        c = int(cards[v])
        if size * c > _KEY_LIMIT:
            uniq, key = _unique_inverse(key, size)
            size = uniq.size
        key = key * c + columns[v]
        size *= c
    if size > n or (compress and size > 1):
        uniq, key = _unique_inverse(key, size)
        size = uniq.size
    return key, size


def grouped_counts(data: DiscreteData, prefix: np.ndarray, tail: np.ndarray) -> SparseTables:
    """Nonzero counts of ``(prefix..., tail...)`` for a batch of variable lists.

    Every row is folded into one mixed-radix key per table and all tables of a small batch are
    counted by one :func:`numpy.bincount` (keys shifted by the offset of their table); the
    nonzero cells are kept. A prefix whose joint state space exceeds the number of rows is first
    compressed to the configurations that occur, so no table has more strata than rows; a prefix
    shared by the whole batch (IAMB, MMPC) is folded once.

    Parameters
    ----------
    data : DiscreteData
    prefix : numpy.ndarray of int, shape (n_tables, m)
        Conditioning (or parent) variables of every table; ``m`` may be 0.
    tail : numpy.ndarray of int, shape (n_tables, t)
        Variables kept as explicit axes, ``t >= 1``.

    Returns
    -------
    SparseTables
    """
    cols, cards = data.columns, data.cards
    n = cols.shape[1]
    tail = np.asarray(tail, dtype=np.int64)
    prefix = np.asarray(prefix, dtype=np.int64).reshape(len(tail), -1)
    b, m = prefix.shape
    tail_size = np.prod(cards[tail], axis=1)
    if m:
        # float product: the full state space of a large prefix overflows int64
        full = np.prod(cards[prefix].astype(np.float64), axis=1)
        direct = full <= max(n, 1)
    else:
        full = np.ones(b)
        direct = np.ones(b, dtype=bool)
    n_prefix = np.where(direct, full, 0).astype(np.int64)
    keys: dict[int, np.ndarray] = {}
    shared = None
    if m and b > 1 and (prefix == prefix[0]).all():
        # one conditioning set for the whole batch: fold it into a key once
        shared, n_shared = _compressed_key(cols, cards, prefix[0], compress=not direct[0])
        n_prefix[:] = n_shared
    else:
        for k in np.flatnonzero(~direct).tolist():
            keys[k], n_prefix[k] = _compressed_key(cols, cards, prefix[k])
    sizes = n_prefix * tail_size
    variables = np.concatenate([prefix, tail], axis=1)
    rad = cards[variables]
    tests: list[np.ndarray] = []
    cells: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    start = 0
    while start < b:
        # small batches: keys stay in cache, and the dense bincount stays small
        stop = start + 1
        rows = n
        cells_in = int(sizes[start])
        while stop < b and rows + n <= _BATCH_KEYS and cells_in + sizes[stop] <= _BATCH_CELLS:
            rows += n
            cells_in += int(sizes[stop])
            stop += 1
        sl = slice(start, stop)
        # the narrowest key type that holds the batch's cells: fewer bytes per counting pass
        dt = np.uint16 if cells_in < 1 << 16 else np.int32 if cells_in < 1 << 31 else np.intp
        # and at least as wide as the states: a column with more than 65536 states is int64
        dt = np.promote_types(dt, cols.dtype)
        radix = rad[sl].astype(dt)
        if shared is not None:
            key = np.empty((stop - start, n), dtype=dt)
            key[:] = shared
            first = m
        elif direct[sl].all():
            key = cols[variables[sl, 0]].astype(dt)
            first = 1
        else:
            key = np.empty((stop - start, n), dtype=dt)
            for k in range(start, stop):
                key[k - start] = keys[k] if k in keys else cols[variables[k, 0]]
            first = -1
        if first >= 0:
            for j in range(first, variables.shape[1]):
                key *= radix[:, j][:, None]
                key += cols[variables[sl, j]]
        else:
            for k in range(start, stop):
                kk = key[k - start]
                for j in range(m if k in keys else 1, variables.shape[1]):
                    kk *= radix[k - start, j]
                    kk += cols[variables[k, j]]
        off = np.zeros(stop - start + 1, dtype=np.int64)
        np.cumsum(sizes[sl], out=off[1:])
        if stop - start > 1:
            key += off[:-1, None].astype(dt)
        dense = np.bincount(key.ravel(), minlength=int(off[-1]))
        nz = np.flatnonzero(dense)
        t = np.searchsorted(off, nz, side="right") - 1
        tests.append(t + start)
        cells.append(nz - off[t])
        vals.append(dense[nz].astype(np.float64))
        start = stop
    return SparseTables(
        np.concatenate(tests), np.concatenate(cells), np.concatenate(vals), n_prefix
    )


def _segment_offsets(sizes: np.ndarray) -> np.ndarray:
    off = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=off[1:])
    return off


def table_statistics(
    tables: SparseTables,
    card_x: np.ndarray,
    card_y: np.ndarray,
    *,
    method: CITestMethod = "g2",
    dof: DofRule = "adjusted",
    correction: bool = False,
    classic_dof: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Statistic and degrees of freedom of a batch of ``(Z, X, Y)`` tables.

    Parameters
    ----------
    tables : SparseTables
        From :func:`grouped_counts` with ``tail = [x, y]``: table ``k`` has the layout
        ``(n_prefix[k], card_x[k], card_y[k])``. Padding states (always zero) are allowed: they
        change neither the statistic nor the adjusted degrees of freedom.
    card_x, card_y : numpy.ndarray of int, shape (n_tables,)
    method, dof, correction
        See :func:`ci_test`.
    classic_dof : numpy.ndarray, optional
        Degrees of freedom for ``dof="classic"``; default ``(cx - 1)(cy - 1) n_prefix``.

    Returns
    -------
    statistic : numpy.ndarray of float64, shape (n_tables,)
    dof : numpy.ndarray of float64, shape (n_tables,)

    Notes
    -----
    Only nonzero cells are visited: ``G² = 2 Σ N log(N / E)`` and ``X² = Σ N² / E - n`` over
    them. Strata whose observed table is 2 x 2 are rebuilt as dense 2 x 2 tables when Yates'
    correction is asked for, since it moves their zero cells too.
    """
    t, cell, o = tables.test, tables.cell, tables.count
    n_strata = tables.n_prefix
    b = len(n_strata)
    cx = np.asarray(card_x, dtype=np.int64)
    cy = np.asarray(card_y, dtype=np.int64)
    cyt = cy[t]
    cxt = cx[t]
    y = cell % cyt
    x = (cell // cyt) % cxt
    # global stratum index over the strata that occur
    zg_full = _segment_offsets(n_strata)[t] + cell // (cxt * cyt)
    zu, zg = np.unique(zg_full, return_inverse=True)
    s = zu.size
    kx, ky = int(cx.max()), int(cy.max())
    n_z = np.bincount(zg, weights=o, minlength=s)
    n_xz = np.bincount(zg * kx + x, weights=o, minlength=s * kx)
    n_yz = np.bincount(zg * ky + y, weights=o, minlength=s * ky)
    r_z = (n_xz.reshape(s, kx) > 0).sum(axis=1)
    c_z = (n_yz.reshape(s, ky) > 0).sum(axis=1)
    t_z = np.zeros(s, dtype=np.int64)
    t_z[zg] = t
    e = n_xz[zg * kx + x] * n_yz[zg * ky + y] / n_z[zg]
    two = np.zeros(s, dtype=bool)
    if correction:
        two = (r_z == 2) & (c_z == 2)
    keep = ~two[zg]
    if method == "g2":
        terms = 2.0 * o[keep] * np.log(o[keep] / e[keep])
    else:
        terms = o[keep] ** 2 / e[keep] - o[keep]  # Σ (o - e)² / e = Σ o² / e - n, per stratum
    stat = np.bincount(t[keep], weights=terms, minlength=b).astype(np.float64)
    if two.any():
        stat += _yates_2x2(two, zg, x, y, o, n_xz, n_yz, n_z, kx, ky, t_z, b, method)
    if dof == "adjusted":
        df = np.bincount(t_z, weights=(r_z - 1.0) * (c_z - 1.0), minlength=b)
    elif classic_dof is not None:
        df = np.asarray(classic_dof, dtype=np.float64)
    else:
        df = (cx - 1.0) * (cy - 1.0) * n_strata
    # float rounding can leave -1e-12 for an exactly independent table
    return np.maximum(stat, 0.0), df


def _yates_2x2(
    two: np.ndarray,
    zg: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    o: np.ndarray,
    n_xz: np.ndarray,
    n_yz: np.ndarray,
    n_z: np.ndarray,
    kx: int,
    ky: int,
    t_z: np.ndarray,
    b: int,
    method: str,
) -> np.ndarray:
    """Statistic of the strata with a 2 x 2 observed table, with Yates' continuity correction.

    Each such stratum is rebuilt as a dense 2 x 2 table over its two observed states of X and Y,
    every cell is moved by ``min(0.5, |E - N|)`` towards its expectation (scipy's
    ``chi2_contingency(correction=True)``), and the statistic is summed per test.
    """
    strata = np.flatnonzero(two)
    pos = np.full(two.size, -1, dtype=np.int64)
    pos[strata] = np.arange(strata.size)
    # the two observed states of X (and of Y) in every such stratum, low then high
    xs_obs = np.nonzero(n_xz.reshape(-1, kx)[strata] > 0)[1].reshape(-1, 2)
    ys_obs = np.nonzero(n_yz.reshape(-1, ky)[strata] > 0)[1].reshape(-1, 2)
    sel = two[zg]
    f = pos[zg[sel]]
    idx = f * 4 + (x[sel] == xs_obs[f, 1]) * 2 + (y[sel] == ys_obs[f, 1])
    obs = np.bincount(idx, weights=o[sel], minlength=4 * strata.size).reshape(-1, 2, 2)
    nx = n_xz.reshape(-1, kx)[strata][np.arange(strata.size)[:, None], xs_obs]
    ny = n_yz.reshape(-1, ky)[strata][np.arange(strata.size)[:, None], ys_obs]
    exp = nx[:, :, None] * ny[:, None, :] / n_z[strata][:, None, None]
    diff = exp - obs
    obs = obs + np.sign(diff) * np.minimum(0.5, np.abs(diff))
    if method == "g2":
        with np.errstate(divide="ignore", invalid="ignore"):
            cellv = np.where(obs > 0, 2.0 * obs * np.log(obs / exp), 0.0)
    else:
        cellv = (obs - exp) ** 2 / exp
    return np.bincount(t_z[strata], weights=cellv.sum(axis=(1, 2)), minlength=b)


def p_values(statistic: np.ndarray, dof: np.ndarray) -> np.ndarray:
    """Upper-tail chi-square probabilities; 1 where ``dof == 0`` (no evidence of dependence)."""
    statistic = np.asarray(statistic, dtype=np.float64)
    dof = np.asarray(dof, dtype=np.float64)
    out = np.ones(np.broadcast(statistic, dof).shape)
    pos = dof > 0
    out[pos] = special.chdtrc(dof[pos], statistic[pos])
    return out


def _gram_tables(data: DiscreteData, xs: np.ndarray, ys: np.ndarray) -> tuple[SparseTables, int]:
    """Marginal ``(X, Y)`` tables of many pairs from one Gram-matrix product, zero-padded."""
    tab = pairwise_counts(data.to_array(), data.cards, np.column_stack([xs, ys]))
    k = tab.shape[1]
    flat = tab.reshape(len(xs), k * k)
    t, cell = np.nonzero(flat)
    tables = SparseTables(
        t.astype(np.int64),
        cell.astype(np.int64),
        flat[t, cell].astype(np.float64),
        np.ones(len(xs), dtype=np.int64),
    )
    return tables, k


def _shared_xz(xs: np.ndarray, zs: np.ndarray, cards: np.ndarray, n: int) -> bool:
    """Whether a batch shares X and Z and their joint state space fits a plain key."""
    if len(xs) < 2 or (xs != xs[0]).any() or (zs != zs[0]).any():
        return False
    return float(np.prod(cards[zs[0]].astype(np.float64))) * cards[xs[0]] <= n


def _xlogx(n: int) -> np.ndarray:
    """``c log c`` for the integer counts ``c = 0 .. n`` (``0 log 0 = 0``): a lookup table."""
    c = np.arange(n + 1, dtype=np.float64)
    c[0] = 1.0
    out = c * np.log(c)
    return out


def _shared_xz_statistics(
    data: DiscreteData, x: int, z: np.ndarray, ys: np.ndarray, method: CITestMethod
) -> tuple[np.ndarray, np.ndarray]:
    """G² (or X²) and adjusted dof of ``x ⊥ y | z`` for many ``y`` and one ``x`` and ``z``.

    The forward steps of IAMB and MMPC test every remaining candidate against one target given
    one conditioning set. Here ``z`` is folded once into a compact key (the configurations that
    occur), and the tables of a block of candidates are dense ``(candidate, z, x, y)`` counts from
    one :func:`numpy.bincount` (over the ``(z, x)`` pairs that occur, and ``(candidate, z, y)``
    from a second one, when all pairs would outnumber the rows).
    With the entropy form ``G² = 2 (Σ N_zxy log N_zxy - Σ N_zx log N_zx - Σ N_zy log N_zy
    + Σ N_z log N_z)`` the ``x`` and ``z`` terms are shared by the whole batch, so no expected
    count is formed and no cell is sorted. Same statistic and adjusted dof as
    :func:`table_statistics` (to rounding).
    """
    cols, cards = data.columns, data.cards
    n = data.n_samples
    kx = int(cards[x])
    if z.size:
        zk, n_zs = _compressed_key(cols, cards, z)  # the strata that occur, 0 .. n_zs - 1
        s_key = zk * kx + cols[x]
    else:
        n_zs, zk, s_key = 1, np.zeros(n, dtype=np.int64), cols[x].astype(np.int64)
    # (z, x) cells: all n_zs * kx of them when that is small, else only those that occur, then
    # the (z, y) margins need their own count
    dense = n_zs * kx <= n
    if dense:
        n_s, z_of_s = n_zs * kx, np.repeat(np.arange(n_zs), kx)
    else:
        uniq, s_key = _unique_inverse(s_key, n_zs * kx)
        n_s, z_of_s = uniq.size, uniq // kx
    n_zx = np.bincount(s_key, minlength=n_s)
    n_z = np.bincount(z_of_s, weights=n_zx, minlength=n_zs).astype(np.int64)
    r_z = np.bincount(z_of_s, weights=n_zx > 0, minlength=n_zs)  # observed x states per stratum
    xlogx = _xlogx(n)
    const = xlogx[n_z].sum() - xlogx[n_zx].sum()
    k = int(cards[ys].max())
    stat = np.empty(len(ys))
    df = np.empty(len(ys))
    step = max(1, min(_BATCH_CELLS // (n_s * k), (1 << 22) // max(n, 1)))
    for start in range(0, len(ys), step):
        block = ys[start : start + step]
        b = len(block)
        shift = np.arange(b, dtype=np.int64)[:, None]
        key = (s_key * k)[None, :] + cols[block] + shift * (n_s * k)
        n_zxy = np.bincount(key.ravel(), minlength=b * n_s * k).reshape(b, n_s, k)
        if dense:
            n_zy = n_zxy.reshape(b, n_zs, kx, k).sum(axis=2)
        else:
            key = (zk * k)[None, :] + cols[block] + shift * (n_zs * k)
            n_zy = np.bincount(key.ravel(), minlength=b * n_zs * k).reshape(b, n_zs, k)
        if method == "g2":
            g = xlogx[n_zxy].reshape(b, -1).sum(axis=1) - xlogx[n_zy].reshape(b, -1).sum(axis=1)
            stat[start : start + b] = 2.0 * (g + const)
        else:
            e = n_zx[None, :, None] * n_zy[:, z_of_s, :] / np.maximum(n_z, 1)[z_of_s][None, :, None]
            with np.errstate(divide="ignore", invalid="ignore"):
                q = np.where(e > 0, n_zxy**2 / e, 0.0)
            stat[start : start + b] = q.reshape(b, -1).sum(axis=1) - n
        c_z = (n_zy > 0).sum(axis=2)
        df[start : start + b] = ((r_z - 1.0) * (c_z - 1.0)).sum(axis=1)
    return np.maximum(stat, 0.0), df


def _run_tests(
    data: DiscreteData,
    xs: np.ndarray,
    ys: np.ndarray,
    zs: np.ndarray,
    *,
    method: CITestMethod,
    dof: DofRule,
    correction: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unchecked batched tests on prepared data: (statistic, dof, p-value) arrays."""
    xs = np.asarray(xs, dtype=np.int64)
    ys = np.asarray(ys, dtype=np.int64)
    zs = np.asarray(zs, dtype=np.int64).reshape(len(xs), -1)
    if len(xs) == 0:
        empty = np.zeros(0)
        return empty, empty, empty
    cards = data.cards
    if zs.shape[1] == 0 and len(xs) >= _MIN_GRAM_TESTS:
        # many marginal tests: all pair tables from one Gram-matrix product
        tables, k = _gram_tables(data, xs, ys)
        cx = cy = np.full(len(xs), k, dtype=np.int64)
    elif not correction and len(xs) >= 2 and (xs == xs[0]).all() and (zs == zs[0]).all():
        # one X and one Z for the whole batch (IAMB, MMPC forward steps): dense tables
        stat, df = _shared_xz_statistics(data, int(xs[0]), zs[0], ys, method)
        if dof == "classic":
            df = (cards[xs] - 1.0) * (cards[ys] - 1.0) * np.prod(cards[zs].astype(float), axis=1)
        return stat, df, p_values(stat, df)
    elif _shared_xz(xs, zs, cards, data.n_samples):
        # one X and one Z for the whole batch (IAMB, MMPC): fold (Z, X) into one key once; the
        # (Z, X) index z * |X| + x is then read back as stratum z and state x
        prefix = np.broadcast_to(np.append(zs[0], xs[0]), (len(xs), zs.shape[1] + 1))
        t = grouped_counts(data, prefix, ys[:, None])
        tables = SparseTables(t.test, t.cell, t.count, t.n_prefix // cards[xs[0]])
        cx, cy = cards[xs], cards[ys]
    else:
        tables = grouped_counts(data, zs, np.column_stack([xs, ys]))
        cx, cy = cards[xs], cards[ys]
    classic = None
    if dof == "classic":
        classic = (cards[xs] - 1.0) * (cards[ys] - 1.0) * np.prod(cards[zs].astype(float), axis=1)
    stat, df = table_statistics(
        tables, cx, cy, method=method, dof=dof, correction=correction, classic_dof=classic
    )
    return stat, df, p_values(stat, df)


def _check_triplet(
    data: DiscreteData, xs: np.ndarray, ys: np.ndarray, zs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p = data.n_variables
    xs = np.atleast_1d(np.asarray(xs))
    ys = np.atleast_1d(np.asarray(ys))
    zs = np.asarray(zs)
    if zs.ndim == 1 and zs.size == 0:
        zs = zs.reshape(len(xs), 0)
    if zs.ndim != 2 or xs.ndim != 1 or xs.shape != ys.shape or zs.shape[0] != xs.shape[0]:
        raise ValueError(
            f"xs and ys must be 1-D of equal length and zs of shape (n_tests, |Z|); got "
            f"{xs.shape}, {ys.shape}, {zs.shape}"
        )
    for name, arr in (("x", xs), ("y", ys), ("z", zs)):
        if arr.size and arr.dtype.kind not in "iu":
            raise ValueError(f"{name} must hold column indices, got {arr.dtype}")
        if arr.size and (arr.min() < 0 or arr.max() >= p):
            raise ValueError(
                f"{name} index {arr[(arr < 0) | (arr >= p)][0]} out of range for {p} columns"
            )
    same = xs == ys
    if same.any():
        raise ValueError(f"x and y must differ, both are {xs[same][0]}")
    inz = (zs == xs[:, None]) | (zs == ys[:, None])
    if inz.any():
        k = int(np.argmax(inz.any(axis=1)))
        raise ValueError(f"z must not contain x or y: test {k} has z = {zs[k].tolist()}")
    if zs.shape[1] > 1:
        srt = np.sort(zs, axis=1)
        if (srt[:, 1:] == srt[:, :-1]).any():
            raise ValueError("z must not repeat a variable")
    return xs.astype(np.int64), ys.astype(np.int64), zs.astype(np.int64)


def ci_tests(
    data: Any,
    cards: Sequence[int] | None,
    xs: Sequence[int],
    ys: Sequence[int],
    zs: Any,
    *,
    method: CITestMethod = "g2",
    dof: DofRule = "adjusted",
    correction: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Many conditional-independence tests ``xs[k] ⊥ ys[k] | zs[k]`` with the same ``|Z|``, batched.

    Parameters
    ----------
    data : array_like or DiscreteData, shape (n_samples, n_variables)
        Non-negative integer state indices.
    cards : sequence of int or None
        Cardinality of every column; ``None`` infers ``max + 1``.
    xs, ys : sequence of int, length n_tests
        Column indices of the tested pairs.
    zs : array_like of int, shape (n_tests, m)
        Conditioning sets, one row per test (``m`` may be 0).
    method, dof, correction
        See :func:`ci_test`.

    Returns
    -------
    statistic, dof, p_value : numpy.ndarray of float64, shape (n_tests,)

    Raises
    ------
    ValueError
        On invalid data (see :func:`as_discrete_data`), indices out of range, ``x == y``, ``x`` or
        ``y`` inside ``z``, or an unknown ``method`` / ``dof``.

    References
    ----------
    See the module docstring (Spirtes et al. 2000; Tsamardinos et al. 2006).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 2000)
    >>> x = (z + (rng.random(2000) < 0.1)) % 2
    >>> y = (z + (rng.random(2000) < 0.1)) % 2
    >>> d = np.column_stack([x, y, z])
    >>> stat, df, p = ci_tests(d, None, [0, 0], [1, 1], [[2], [2]])
    >>> bool(p[0] > 0.01), df.tolist()
    (True, [2.0, 2.0])
    """
    _check_options(method, dof)
    d = as_discrete_data(data, cards)
    xs, ys, zs = _check_triplet(d, xs, ys, zs)
    return _run_tests(d, xs, ys, zs, method=method, dof=dof, correction=correction)


def ci_test(
    data: Any,
    cards: Sequence[int] | None,
    x: int,
    y: int,
    z: Sequence[int] = (),
    *,
    method: CITestMethod = "g2",
    dof: DofRule = "adjusted",
    correction: bool = False,
) -> tuple[float, float, float]:
    """Test ``X ⊥ Y | Z`` on discrete data with the G² or Pearson X² statistic.

    Parameters
    ----------
    data : array_like or DiscreteData, shape (n_samples, n_variables)
        Non-negative integer state indices.
    cards : sequence of int or None
        Cardinality of every column; ``None`` infers ``max + 1``.
    x, y : int
        Column indices of the tested pair.
    z : sequence of int, default ()
        Column indices of the conditioning set.
    method : {"g2", "chi2"}, default "g2"
        Likelihood-ratio G² or Pearson's X².
    dof : {"adjusted", "classic"}, default "adjusted"
        Degrees-of-freedom rule (module docstring): ``"adjusted"`` counts only the observed states
        of ``X`` and ``Y`` in every observed stratum of ``Z`` (pgmpy, bnlearn).
    correction : bool, default False
        Yates' continuity correction on every stratum whose observed table is 2 x 2, as
        :func:`scipy.stats.chi2_contingency` (and so pgmpy's tests) apply it.

    Returns
    -------
    statistic : float
    dof : float
    p_value : float
        Upper-tail chi-square probability; 1 when ``dof == 0``. Independence is accepted at level
        α when ``p_value >= α`` (pgmpy's convention).

    Raises
    ------
    ValueError
        See :func:`ci_tests`.

    References
    ----------
    .. [1] Spirtes, Glymour & Scheines (2000), *Causation, Prediction, and Search*, §5.4.2.

    Examples
    --------
    >>> d = np.array([[0, 0], [0, 0], [1, 1], [1, 1], [0, 1], [1, 0]] * 50)
    >>> stat, df, p = ci_test(d, None, 0, 1)
    >>> round(stat, 3), df, p < 0.05
    (33.98, 1.0, True)
    """
    stat, df, p = ci_tests(
        data,
        cards,
        [x],
        [y],
        np.asarray(list(z), dtype=np.int64).reshape(1, -1),
        method=method,
        dof=dof,
        correction=correction,
    )
    return float(stat[0]), float(df[0]), float(p[0])
