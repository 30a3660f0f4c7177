"""Sampling from binary pairwise MRFs: blocked (checkerboard) Gibbs and an exact dispatcher.

:class:`BlockGibbsSampler` is the Gibbs kernel used everywhere a model is too large to enumerate
(PCD's persistent chains, MH_AuxVar's particles, data generation on the 30x30 grid). The nodes are
split into independent sets by :attr:`PairwiseGraph.colouring` (the black/white checkerboard on a
grid, a greedy colouring on the Senate graph); all nodes of one colour are conditionally independent
given the others and are updated together, for all chains at once, with one sparse product:

.. math::

    \\operatorname{logit} P(x_u = 1 \\mid x_{-u}) = \\sum_{v \\sim u} w_{uv} (2 x_v - 1),
    \\qquad w = \\operatorname{logit}(\\theta).

The chain state is kept as a ``(p, n_chains)`` float array of spins ``2x - 1`` so that the field
of a colour class is ``W_k @ state``.

With spins ``+-1`` a node of degree ``d`` has only ``2**d`` possible fields. A colour class whose
nodes have at most :data:`TABLE_MAX_DEGREE` neighbours (grids, trees) is therefore updated from a
table of ``1 + exp(-field)`` per node and neighbour pattern, built once per :meth:`set_weights`,
and indexed by the neighbours' sign bits: no sparse product and no ``exp`` per chain. A class of
fewer than :data:`TABLE_MIN_NODES` nodes (the 4x4 grid's 8) keeps the sparse product: rebuilding
its table at every PCD iteration would cost more than the ``exp`` it saves. The table's
fields are summed in the sparse product's order (``0 + w_1 s_1 + w_2 s_2 + ...``, each term exact),
so both paths give the same states bit for bit.

References
----------
.. [1] S. Geman and D. Geman, "Stochastic relaxation, Gibbs distributions, and the Bayesian
   restoration of images", *IEEE TPAMI* 6(6):721-741, 1984 (coding/checkerboard updates).
.. [2] J. Liu and D. Page, NIPS 2013, Sec. 3.1.1 ("standard Gibbs sampling with long runs").
"""

from __future__ import annotations

import logging

import numpy as np
from scipy import sparse

from bnstudy.mrf.exact import MAX_ENUMERATION_NODES, sample_enumeration, sample_tree
from bnstudy.mrf.graph import PairwiseGraph
from bnstudy.mrf.model import check_samples, check_theta, logit

__all__ = ["BlockGibbsSampler", "GibbsChains", "gibbs_sample", "sample"]

logger = logging.getLogger(__name__)

#: ``sample(..., method="auto")`` enumerates graphs with at most this many nodes.
AUTO_ENUMERATION_NODES = 20

#: Colour classes whose nodes have at most this many neighbours are updated by table lookup
#: (``2**degree`` entries per node; the neighbour pattern is packed in one byte).
TABLE_MAX_DEGREE = 8

#: ... and that have at least this many nodes: a table is rebuilt at every change of the weights
#: (every PCD iteration), which on a small class costs more than the ``exp`` it saves
#: (``benchmarks/bench_table_threshold.py``).
TABLE_MIN_NODES = 32

#: The spin of each sign bit.
_SPINS = np.array([-1.0, 1.0])


class _FieldTable:
    """``1 + exp(-clip(field, -60, 60))`` of each node of a colour class and neighbour pattern.

    ``slots[i, k]`` is the ``k``-th neighbour of node ``i`` in the order of the class's sparse
    row (``p``, a row of zeros in the sweep's sign bits, past its degree); ``entries[i, k]`` the
    position of its weight in the row's ``data`` (``-1``: weight 0). Pattern ``b`` gives neighbour
    ``k`` the spin ``+1`` where bit ``k`` of ``b`` is set, ``-1`` elsewhere.
    """

    def __init__(self, mat: sparse.csr_matrix, p: int) -> None:
        n = mat.shape[0]
        degree = np.diff(mat.indptr)
        self.degree = int(degree.max(initial=0))
        rows = np.repeat(np.arange(n), degree)
        cols = np.arange(mat.nnz) - np.repeat(mat.indptr[:-1], degree)
        self.slots = np.full((n, self.degree), p, dtype=np.intp)
        self.slots[rows, cols] = mat.indices
        self.entries = np.full((n, self.degree), -1, dtype=np.intp)
        self.entries[rows, cols] = np.arange(mat.nnz)
        patterns = np.arange(2**self.degree)
        bits = (patterns[:, None] >> np.arange(self.degree)) & 1
        self.signs = 2.0 * bits - 1.0  # (2**degree, degree)
        self.offsets = (np.arange(n, dtype=np.intp) * 2**self.degree)[:, None]
        self.values = np.empty(n * 2**self.degree)

    def update(self, data: np.ndarray) -> None:
        """Recompute the table from the class's sparse-row weights ``data``."""
        w = np.where(self.entries >= 0, data[self.entries], 0.0)  # (n, degree)
        # the sparse product's sum: zero, then each neighbour's exact term in row order (adding a
        # padding slot's 0.0 changes no value)
        h = np.zeros((w.shape[0], self.signs.shape[0]))
        for k in range(self.degree):
            h += w[:, k, None] * self.signs[None, :, k]
        np.clip(h, -60.0, 60.0, out=h)
        np.negative(h, out=h)
        np.exp(h, out=h)
        h += 1.0
        self.values[:] = h.ravel()


class BlockGibbsSampler:
    """Colour-blocked Gibbs kernel for a binary pairwise MRF, vectorised over chains.

    Parameters
    ----------
    graph : PairwiseGraph
    theta : array_like of float, shape (E,), optional
        Initial parameters (default: 0.5 everywhere); change them with :meth:`set_theta` or
        :meth:`set_weights` without rebuilding the sparse structure.

    Examples
    --------
    >>> import numpy as np
    >>> from bnstudy.mrf.graph import grid
    >>> g = grid(3, 3)
    >>> k = BlockGibbsSampler(g, np.full(g.n_edges, 0.7))
    >>> rng = np.random.default_rng(0)
    >>> state = k.sweep(k.init_state(5, rng=rng), rng=rng, n_sweeps=10)
    >>> k.to_samples(state).shape
    (5, 9)
    """

    def __init__(self, graph: PairwiseGraph, theta: np.ndarray | None = None) -> None:
        self.graph = graph
        p = graph.n_nodes
        u, v = graph.edges[:, 0], graph.edges[:, 1]
        # each edge appears twice: as (u <- v) in u's row and (v <- u) in v's row
        node = np.r_[u, v]
        nbr = np.r_[v, u]
        edge = np.r_[np.arange(graph.n_edges), np.arange(graph.n_edges)]
        self._blocks: list[tuple[np.ndarray, sparse.csr_matrix, np.ndarray]] = []
        for nodes in graph.colouring:
            local = np.full(p, -1, dtype=np.int64)
            local[nodes] = np.arange(nodes.size)
            sel = local[node] >= 0
            order = np.arange(1, int(sel.sum()) + 1, dtype=np.float64)
            mat = sparse.csr_matrix((order, (local[node[sel]], nbr[sel])), shape=(nodes.size, p))
            # csr reorders the entries; recover which edge each stored entry belongs to
            entry_edge = edge[sel][mat.data.astype(np.int64) - 1]
            self._blocks.append((nodes, mat, entry_edge))
        # one table per colour class of small degree (None: sparse product and exp per chain)
        self._tables: list[_FieldTable | None] = [
            _FieldTable(mat, p)
            if np.diff(mat.indptr).max(initial=0) <= TABLE_MAX_DEGREE
            and mat.shape[0] >= TABLE_MIN_NODES
            else None
            for _, mat, _ in self._blocks
        ]
        self._tables_only = all(table is not None for table in self._tables)
        self._buffers: dict[int, tuple] = {}  # per number of chains: the sweep's work arrays
        self._edge_u = np.ascontiguousarray(u, dtype=np.intp)
        self._edge_v = np.ascontiguousarray(v, dtype=np.intp)
        self.set_theta(np.full(graph.n_edges, 0.5) if theta is None else theta)

    def set_weights(self, w: np.ndarray) -> None:
        """Set the natural parameters ``w = logit(theta)`` (shape ``(E,)``)."""
        w = np.asarray(w, dtype=np.float64)
        for (_, mat, entry_edge), table in zip(self._blocks, self._tables, strict=True):
            mat.data[:] = w[entry_edge]
            if table is not None:
                table.update(mat.data)

    def set_theta(self, theta: np.ndarray) -> None:
        """Set the edge parameters (validated to lie in ``(0, 1)``)."""
        self.set_weights(logit(check_theta(theta, self.graph.n_edges)))

    def init_state(
        self, n_chains: int, *, rng: np.random.Generator, X: np.ndarray | None = None
    ) -> np.ndarray:
        """A ``(p, n_chains)`` spin state: uniform, or rows of ``X`` cycled (e.g. the data)."""
        p = self.graph.n_nodes
        if X is None:
            return 2.0 * rng.integers(0, 2, size=(p, int(n_chains))) - 1.0
        X = check_samples(X, p)
        rows = np.resize(np.arange(X.shape[0]), int(n_chains))
        # C order (a transpose would be Fortran order): the sparse product of every sweep would
        # copy a Fortran-ordered state to C order
        return 2.0 * np.ascontiguousarray(X[rows].T, dtype=np.float64) - 1.0

    def chains(self, state: np.ndarray) -> GibbsChains:
        """Chains started at the ``(p, n_chains)`` spin ``state``, swept by this kernel.

        For a loop of sweeps that needs only the agreement counts in between (PCD): the chains
        keep their spins as sign bits, and write them to ``state`` only when asked
        (:meth:`GibbsChains.state`). The same states and draws as :meth:`sweep`.
        """
        return GibbsChains(self, state)

    def sweep(
        self, state: np.ndarray, *, rng: np.random.Generator, n_sweeps: int = 1
    ) -> np.ndarray:
        """Run ``n_sweeps`` full sweeps (every colour class once) in place and return ``state``.

        ``state`` is a ``(p, n_chains)`` spin state (entries ``-1.0`` or ``1.0``). Each colour
        class draws ``rng.random((class size, n_chains))`` per sweep, in class order, and node
        ``u``'s spin in chain ``j`` becomes ``+1`` where
        ``draw * (1 + exp(-clip(field, -60, 60))) < 1``.
        """
        return self.chains(state).sweep(rng=rng, n_sweeps=n_sweeps).state()

    def _sweep_bits(
        self, spins: np.ndarray | None, pos: np.ndarray, rng: np.random.Generator, n_sweeps: int
    ) -> None:
        """Sweep the sign bits ``pos`` (``(p + 1, m)``, last row zeros), and ``spins`` if given
        (needed, and given, when a colour class takes the sparse product)."""
        m = pos.shape[1]
        if m not in self._buffers:
            self._buffers[m] = self._work_arrays(m)
        work = self._buffers[m]
        for _ in range(int(n_sweeps)):
            for (nodes, mat, _), table, arrays in zip(
                self._blocks, self._tables, work, strict=True
            ):
                if table is None:
                    self._update_sparse(spins, pos, nodes, mat, arrays, rng)
                else:
                    self._update_table(spins, pos, nodes, table, arrays, rng)

    @staticmethod
    def _update_sparse(state, pos, nodes, mat, arrays, rng) -> None:
        """Update one colour class by its sparse product and ``exp`` per node and chain."""
        u, up = arrays
        g = mat @ state  # a new array, free to overwrite
        rng.random(out=u)  # the same draws as rng.random(g.shape)
        # u < sigmoid(h)  <=>  u * (1 + exp(-h)) < 1, evaluated in place with exactly the operations
        # of `u * (1.0 + np.exp(-np.clip(h, -60, 60))) < 1.0`; clipping avoids overflow warnings
        np.clip(g, -60.0, 60.0, out=g)
        np.negative(g, out=g)
        np.exp(g, out=g)
        g += 1.0
        BlockGibbsSampler._accept(state, pos, nodes, g, u, up)

    @staticmethod
    def _update_table(state, pos, nodes, table, arrays, rng) -> None:
        """Update one colour class from its table of ``1 + exp(-field)``."""
        u, up, g, idx, tmp, flat = arrays
        # each node's neighbour pattern per chain, then its table entry
        if table.degree == 0:
            idx.fill(0)
        else:
            np.take(pos, table.slots[:, 0], axis=0, out=idx)
        for k in range(1, table.degree):
            np.take(pos, table.slots[:, k], axis=0, out=tmp)
            np.multiply(tmp, np.uint8(1 << k), out=tmp)  # a shift, several times faster
            np.bitwise_or(idx, tmp, out=idx)
        np.add(idx, table.offsets, out=flat)
        np.take(table.values, flat, out=g, mode="clip")  # in range by construction; no checks
        rng.random(out=u)
        BlockGibbsSampler._accept(state, pos, nodes, g, u, up)

    @staticmethod
    def _accept(state, pos, nodes, g, u, up) -> None:
        """Set the class's spins to ``+1`` where ``u * g < 1`` (``g = 1 + exp(-field)``), else -1.

        Overwrites ``g`` and ``u``; ``up`` receives the new sign bits, copied to ``pos``. With
        ``state`` None only the sign bits are set (:meth:`GibbsChains.state` writes the spins).
        """
        g *= u
        np.less(g, 1.0, out=up)
        pos[nodes] = up
        if state is None:
            return
        # the new spins 2 * up - 1, exactly -1.0 or 1.0 (np.where is several times slower)
        np.copyto(u, up)
        u *= 2.0
        u -= 1.0
        state[nodes] = u

    def _work_arrays(self, m: int) -> list[tuple[np.ndarray, ...]]:
        """Per colour class, the work arrays of a sweep of ``m`` chains."""
        work = []
        for (nodes, _, _), table in zip(self._blocks, self._tables, strict=True):
            shape = (nodes.size, m)
            if table is None:
                work.append((np.empty(shape), np.empty(shape, dtype=np.bool_)))
            else:
                dtypes = (np.float64, np.bool_, np.float64, np.uint8, np.uint8, np.intp)
                work.append(tuple(np.empty(shape, dtype=dt) for dt in dtypes))
        return work

    @staticmethod
    def to_samples(state: np.ndarray) -> np.ndarray:
        """Spin state ``(p, n_chains)`` to samples ``(n_chains, p)`` over ``{0, 1}`` (int8)."""
        return (state.T > 0).astype(np.int8)

    def agreement_counts(self, state: np.ndarray) -> np.ndarray:
        """Per-edge agreement counts over the chains of a spin state (float64, shape ``(E,)``).

        ``state`` is a ``(p, n_chains)`` spin state (entries ``-1.0`` or ``1.0``, as
        :meth:`init_state` and :meth:`sweep` make). The count is ``0.5 * sum_j (1 + s_uj s_vj)``,
        computed exactly as ``n_chains`` minus the number of disagreements, by XOR and bit count
        of the packed signs.
        """
        return self._agreement_counts_of_bits(state > 0)

    def _agreement_counts_of_bits(self, bits: np.ndarray) -> np.ndarray:
        packed = np.packbits(bits, axis=1)
        disagree = np.bitwise_count(packed[self._edge_u] ^ packed[self._edge_v]).sum(axis=1)
        return bits.shape[1] - disagree.astype(np.float64)


class GibbsChains:
    """Chains of a :class:`BlockGibbsSampler`, kept as sign bits between sweeps.

    Made by :meth:`BlockGibbsSampler.chains` from a ``(p, n_chains)`` spin state. Table updates
    read and write only the sign bits, so on a graph whose colour classes all take tables (grids,
    trees) a sweep never touches the float spins: they are written back by :meth:`state`. With a
    class that takes the sparse product, the spins are updated with the bits at every class, as
    that product needs them. States and draws are those of :meth:`BlockGibbsSampler.sweep`.

    The kernel's weights may change between sweeps (:meth:`BlockGibbsSampler.set_weights`).
    """

    def __init__(self, kernel: BlockGibbsSampler, state: np.ndarray) -> None:
        p = kernel.graph.n_nodes
        if state.ndim != 2 or state.shape[0] != p:
            raise ValueError(f"state must have shape ({p}, n_chains), got {state.shape}")
        self.kernel = kernel
        self._state = state
        # the sign bits, and a last row of zeros for the tables' padding slots
        self._pos = np.zeros((p + 1, state.shape[1]), dtype=np.uint8)
        np.greater(state, 0.0, out=self._pos[:p].view(np.bool_))
        self._spins = None if kernel._tables_only else state
        self._stale = False  # True while the spins lag behind the bits

    def sweep(self, *, rng: np.random.Generator, n_sweeps: int = 1) -> GibbsChains:
        """Run ``n_sweeps`` full sweeps, drawing as :meth:`BlockGibbsSampler.sweep`; returns self."""
        self.kernel._sweep_bits(self._spins, self._pos, rng, n_sweeps)
        self._stale = self._spins is None
        return self

    def agreement_counts(self) -> np.ndarray:
        """:meth:`BlockGibbsSampler.agreement_counts` of the current states."""
        return self.kernel._agreement_counts_of_bits(self._pos[:-1])

    def state(self) -> np.ndarray:
        """The current states as the spin array the chains were made from (written in place)."""
        if self._stale:
            bits = self._pos[:-1]
            if self._state.flags.c_contiguous:
                # bit 0 -> -1.0, bit 1 -> 1.0 (what a sweep's 2 * bit - 1 gives), in one pass
                np.take(_SPINS, bits, out=self._state, mode="clip")
            else:
                self._state[...] = _SPINS[bits]
            self._stale = False
        return self._state


def gibbs_sample(
    graph: PairwiseGraph,
    theta: np.ndarray,
    n_samples: int,
    *,
    rng: np.random.Generator,
    n_sweeps: int = 1000,
    init: np.ndarray | None = None,
) -> np.ndarray:
    """Approximate samples by running ``n_samples`` independent blocked-Gibbs chains.

    Parameters
    ----------
    graph : PairwiseGraph
    theta : array_like of float, shape (E,)
    n_samples : int
        Number of chains; each returns its final state.
    rng : numpy.random.Generator
    n_sweeps : int, optional
        Sweeps per chain (default 1000).
    init : array_like, shape (m, p), optional
        Starting states (cycled over the chains); default uniform.

    Returns
    -------
    numpy.ndarray of int8, shape (n_samples, p)
    """
    kernel = BlockGibbsSampler(graph, theta)
    state = kernel.init_state(n_samples, rng=rng, X=init)
    return kernel.to_samples(kernel.sweep(state, rng=rng, n_sweeps=n_sweeps))


def sample(
    graph: PairwiseGraph,
    theta: np.ndarray,
    n_samples: int,
    *,
    rng: np.random.Generator,
    method: str = "auto",
    n_sweeps: int = 1000,
) -> np.ndarray:
    """Draw samples with the best available sampler.

    Parameters
    ----------
    graph : PairwiseGraph
    theta : array_like of float, shape (E,)
    n_samples : int
    rng : numpy.random.Generator
    method : {"auto", "tree", "enumeration", "gibbs"}
        ``auto``: exact tree sampling on forests, exact enumeration up to
        ``AUTO_ENUMERATION_NODES`` (20) nodes, blocked Gibbs otherwise.
    n_sweeps : int, optional
        Gibbs sweeps per chain (``gibbs`` only).

    Returns
    -------
    numpy.ndarray of int8, shape (n_samples, p)
    """
    theta = check_theta(theta, graph.n_edges)
    if method == "auto":
        if graph.is_forest:
            method = "tree"
        elif graph.n_nodes <= AUTO_ENUMERATION_NODES:
            method = "enumeration"
        else:
            method = "gibbs"
    if method == "tree":
        return sample_tree(graph, theta, n_samples, rng=rng)
    if method == "enumeration":
        if graph.n_nodes > MAX_ENUMERATION_NODES:
            raise ValueError(f"enumeration needs <= {MAX_ENUMERATION_NODES} nodes")
        return sample_enumeration(graph, theta, n_samples, rng=rng)
    if method == "gibbs":
        return gibbs_sample(graph, theta, n_samples, rng=rng, n_sweeps=n_sweeps)
    raise ValueError(f"unknown sampling method {method!r} (auto, tree, enumeration, gibbs)")
