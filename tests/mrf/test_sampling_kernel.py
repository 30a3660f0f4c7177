"""The blocked-Gibbs kernel is bit-identical to its straightforward form (same states, same draws).

:class:`bnstudy.mrf.sampling.BlockGibbsSampler` computes its sweeps in place and its agreement
counts from packed sign bits; the references below are the plain NumPy expressions it replaced.
Every estimate downstream (PCD, the grouping samplers) depends on the kernel giving exactly these
states and consuming the random stream exactly as they do.
"""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.mrf import binary_tree, from_edges, grid, pcd_mle, sampling
from bnstudy.mrf.mle import PersistentContrastiveDivergence
from bnstudy.mrf.sampling import BlockGibbsSampler


def reference_init_state(kernel, n_chains, *, rng, X=None):
    p = kernel.graph.n_nodes
    if X is None:
        return 2.0 * rng.integers(0, 2, size=(p, int(n_chains))) - 1.0
    X = np.asarray(X)
    rows = np.resize(np.arange(X.shape[0]), int(n_chains))
    return 2.0 * X[rows].T.astype(np.float64) - 1.0


def reference_sweep(kernel, state, *, rng, n_sweeps=1):
    for _ in range(int(n_sweeps)):
        for nodes, mat, _ in kernel._blocks:
            field = mat @ state
            u = rng.random(field.shape)
            up = u * (1.0 + np.exp(-np.clip(field, -60.0, 60.0))) < 1.0
            state[nodes] = np.where(up, 1.0, -1.0)
    return state


def reference_agreement_counts(kernel, state):
    u, v = kernel.graph.edges[:, 0], kernel.graph.edges[:, 1]
    prod = np.einsum("ij,ij->i", state[u], state[v])
    return 0.5 * (prod + state.shape[1])


@pytest.fixture(autouse=True)
def _tables_on_small_classes(monkeypatch):
    """These graphs are small: let their classes take tables, so that both paths are tested (the
    default takes tables from :data:`~bnstudy.mrf.sampling.TABLE_MIN_NODES` nodes up)."""
    monkeypatch.setattr(sampling, "TABLE_MIN_NODES", 0)


def _triangles():
    """A non-bipartite graph: three colour classes of different sizes, an isolated node."""
    edges = [[0, 1], [1, 2], [0, 2], [2, 3], [3, 4], [4, 5], [3, 5], [5, 6], [0, 6], [1, 6]]
    return from_edges(8, np.array(edges), name="triangles")


def _hubs():
    """A hub of degree 12 (past TABLE_MAX_DEGREE: its class takes the sparse product) joined to
    one of degree 8 (the largest table), with a triangle."""
    edges = [[0, k] for k in range(1, 12)] + [[12, k] for k in range(13, 20)] + [[0, 12]]
    edges += [[18, 20], [20, 21], [21, 18]]
    return from_edges(22, np.array(edges), name="hubs")


GRAPHS = {
    "grid4x5": lambda: grid(4, 5),
    "tree": lambda: binary_tree(4),
    "triangles": _triangles,
    "hubs": _hubs,
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("n_chains", [1, 13, 64])
def test_sweep_and_counts_match_reference(name, n_chains):
    g = GRAPHS[name]()
    draw = np.random.default_rng(11)
    # weights from near 0 to near 1, some beyond the +-60 clip of the field
    w = draw.normal(0.0, 2.0, g.n_edges)
    w[::5] = 80.0
    w[1::7] = -70.0
    kernel = BlockGibbsSampler(g)
    kernel.set_weights(w)
    rng_new, rng_ref = np.random.default_rng(3), np.random.default_rng(3)
    new = kernel.init_state(n_chains, rng=rng_new)
    ref = reference_init_state(kernel, n_chains, rng=rng_ref)
    for n_sweeps in (1, 2, 5):
        out = kernel.sweep(new, rng=rng_new, n_sweeps=n_sweeps)
        assert out is new  # in place
        reference_sweep(kernel, ref, rng=rng_ref, n_sweeps=n_sweeps)
        assert np.array_equal(new, ref)
        assert rng_new.bit_generator.state == rng_ref.bit_generator.state
        counts = kernel.agreement_counts(new)
        expected = reference_agreement_counts(kernel, ref)
        assert counts.dtype == expected.dtype == np.float64
        assert np.array_equal(counts, expected)
    kernel.set_theta(np.full(g.n_edges, 0.3))
    kernel.sweep(new, rng=rng_new, n_sweeps=3)
    reference_sweep(kernel, ref, rng=rng_ref, n_sweeps=3)
    assert np.array_equal(new, ref)
    assert rng_new.bit_generator.state == rng_ref.bit_generator.state
    assert rng_new.random() == rng_ref.random()


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_state_from_data_matches_reference(name):
    g = GRAPHS[name]()
    X = np.random.default_rng(5).integers(0, 2, size=(7, g.n_nodes))
    kernel = BlockGibbsSampler(g, np.full(g.n_edges, 0.7))
    rng_new, rng_ref = np.random.default_rng(8), np.random.default_rng(8)
    new = kernel.init_state(20, rng=rng_new, X=X)
    ref = reference_init_state(kernel, 20, rng=rng_ref, X=X)
    assert np.array_equal(new, ref)
    assert new.flags.c_contiguous
    kernel.sweep(new, rng=rng_new, n_sweeps=4)
    reference_sweep(kernel, ref, rng=rng_ref, n_sweeps=4)
    assert np.array_equal(new, ref)
    assert np.array_equal(kernel.agreement_counts(new), reference_agreement_counts(kernel, ref))
    assert rng_new.bit_generator.state == rng_ref.bit_generator.state


class ReferenceChains:
    """:class:`bnstudy.mrf.sampling.GibbsChains` by the reference sweep and counts."""

    def __init__(self, kernel, state):
        self.kernel, self.spins = kernel, state

    def sweep(self, *, rng, n_sweeps=1):
        reference_sweep(self.kernel, self.spins, rng=rng, n_sweeps=n_sweeps)
        return self

    def agreement_counts(self):
        return reference_agreement_counts(self.kernel, self.spins)

    def state(self):
        return self.spins


@pytest.mark.parametrize("graph", [lambda: grid(4, 4), _hubs])
def test_pcd_matches_reference_kernel(monkeypatch, graph):
    """PCD with the kernel equals PCD with the reference sweep and counts, to the bit: its
    estimate and its particles (written back from the sign bits on a grid)."""
    g = graph()
    data_rng = np.random.default_rng(2)
    X = data_rng.integers(0, 2, size=(50, g.n_nodes))
    pcd = PersistentContrastiveDivergence(g, n_iter=30, n_particles=21)
    new = pcd.fit(X, rng=np.random.default_rng(4))
    new_theta, new_particles = new.theta_.copy(), new.particles_.copy()
    monkeypatch.setattr(BlockGibbsSampler, "init_state", reference_init_state)
    monkeypatch.setattr(BlockGibbsSampler, "sweep", reference_sweep)
    monkeypatch.setattr(BlockGibbsSampler, "agreement_counts", reference_agreement_counts)
    monkeypatch.setattr(BlockGibbsSampler, "chains", lambda kernel, x: ReferenceChains(kernel, x))
    ref = PersistentContrastiveDivergence(g, n_iter=30, n_particles=21).fit(
        X, rng=np.random.default_rng(4)
    )
    assert np.array_equal(new_theta, ref.theta_)
    assert np.array_equal(new_particles, ref.particles_)
    assert pcd_mle(g, X, rng=np.random.default_rng(4), n_iter=30, n_particles=21).shape == (
        g.n_edges,
    )


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_chains_equal_sweeps_of_the_spin_state(name):
    """Two sets of chains of one size on one kernel, swept in turn (their sign bits are their
    own), give the states, counts and draws of the spin-state sweeps; a Fortran-ordered state is
    written back in place."""
    g = GRAPHS[name]()
    draw = np.random.default_rng(23)
    kernel = BlockGibbsSampler(g)
    rng_c, rng_s = np.random.default_rng(6), np.random.default_rng(6)
    starts = [2.0 * draw.integers(0, 2, size=(g.n_nodes, 15)) - 1.0 for _ in range(2)]
    spins = [x.copy() for x in starts]
    states = [starts[0].copy(), np.asfortranarray(starts[1])]
    chains = [kernel.chains(x) for x in states]
    for step in range(5):
        kernel.set_weights(draw.normal(0.0, 1.5, g.n_edges))
        for c, x in zip(chains, spins, strict=True):
            assert c.sweep(rng=rng_c, n_sweeps=1 + step % 2) is c
            kernel.sweep(x, rng=rng_s, n_sweeps=1 + step % 2)
            assert np.array_equal(c.agreement_counts(), kernel.agreement_counts(x))
        assert rng_c.bit_generator.state == rng_s.bit_generator.state
    for c, state, x in zip(chains, states, spins, strict=True):
        assert c.state() is state
        assert np.array_equal(state, x)
    assert not np.array_equal(spins[0], starts[0])
    with pytest.raises(ValueError, match=rf"state must have shape \({g.n_nodes}, n_chains\)"):
        kernel.chains(np.ones((g.n_nodes + 1, 3)))


def test_table_and_sparse_updates_cover_the_graphs():
    """Grids and trees are updated by table; a class with a node past the limit is not."""
    assert all(t is not None for t in BlockGibbsSampler(grid(4, 5))._tables)
    assert all(t is not None for t in BlockGibbsSampler(binary_tree(4))._tables)
    tables = BlockGibbsSampler(_hubs())._tables
    assert any(t is None for t in tables)
    assert max(t.degree for t in tables if t is not None) == sampling.TABLE_MAX_DEGREE


def test_small_classes_take_the_sparse_product_by_default(monkeypatch):
    """A class under TABLE_MIN_NODES nodes (the 4x4 grid's 8) is updated by sparse product, one
    of at least that many (the 8x8 grid's 32) by table; both give the same states and draws."""
    monkeypatch.undo()  # the library's threshold, not the module fixture's
    assert sampling.TABLE_MIN_NODES == 32
    assert all(t is None for t in BlockGibbsSampler(grid(4, 4))._tables)
    assert all(t is not None for t in BlockGibbsSampler(grid(8, 8))._tables)
    g = grid(4, 4)
    X = np.random.default_rng(0).integers(0, 2, size=(300, g.n_nodes))
    fits = []
    for min_nodes in (sampling.TABLE_MIN_NODES, 0):
        monkeypatch.setattr(sampling, "TABLE_MIN_NODES", min_nodes)
        est = PersistentContrastiveDivergence(g, n_iter=40, n_particles=50)
        fits.append(est.fit(X, rng=np.random.default_rng(1)))
    assert np.array_equal(fits[0].theta_, fits[1].theta_)
    assert np.array_equal(fits[0].particles_, fits[1].particles_)


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_table_updates_equal_sparse_updates(name, monkeypatch):
    """Every class by table equals every class by sparse product: states and draws, to the bit,
    across weight changes, chain counts that alternate on one kernel and a Fortran-ordered state."""
    g = GRAPHS[name]()
    draw = np.random.default_rng(17)
    table = BlockGibbsSampler(g)
    monkeypatch.setattr(sampling, "TABLE_MAX_DEGREE", -1)
    sparse_only = BlockGibbsSampler(g)
    assert all(t is None for t in sparse_only._tables)
    rng_t, rng_s = np.random.default_rng(5), np.random.default_rng(5)
    states = {}
    for n_chains in (9, 40):
        x = np.asfortranarray(2.0 * draw.integers(0, 2, size=(g.n_nodes, n_chains)) - 1.0)
        states[n_chains] = (x.copy(order="K"), x.copy(order="K"))
    for step in range(6):
        w = draw.normal(0.0, 3.0 if step % 2 else 0.5, g.n_edges)
        w[draw.integers(0, g.n_edges)] = 75.0  # past the clip of the field
        table.set_weights(w)
        sparse_only.set_weights(w)
        for a, b in states.values():
            table.sweep(a, rng=rng_t, n_sweeps=1 + step % 3)
            sparse_only.sweep(b, rng=rng_s, n_sweeps=1 + step % 3)
            assert np.array_equal(a, b)
            assert rng_t.bit_generator.state == rng_s.bit_generator.state
    assert all(np.any(a > 0) and np.any(a < 0) for a, _ in states.values())
