"""LinkComm against a straightforward dense reference (similarity matrix + scipy single linkage)."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform

from bnstudy.structure.linkcomm import (
    edge_similarities,
    link_communities,
    partition_density,
)

FAR = 10.0  # distance of edge pairs that share no node: never merged before the end


def _reference_similarity(n_nodes, edges, weights=None):
    """Dense M x M similarity, straight from the definitions (Python sets / dense vectors)."""
    m = len(edges)
    w = np.ones(m) if weights is None else np.asarray(weights, dtype=float)
    a = np.zeros((n_nodes, n_nodes))
    for (u, v), x in zip(edges, w, strict=True):
        a[u, v] = a[v, u] = x
    nbr = [set(np.flatnonzero(a[i] != 0)) | {i} for i in range(n_nodes)]
    deg = (a != 0).sum(axis=1)
    for i in range(n_nodes):
        if deg[i]:
            a[i, i] = a[i].sum() / deg[i]
    sim = np.full((m, m), np.nan)
    for p, q in itertools.combinations(range(m), 2):
        shared = set(edges[p]) & set(edges[q])
        if len(shared) != 1:
            continue
        (k,) = shared
        i = edges[p][0] if edges[p][1] == k else edges[p][1]
        j = edges[q][0] if edges[q][1] == k else edges[q][1]
        if weights is None:
            s = len(nbr[i] & nbr[j]) / len(nbr[i] | nbr[j])
        else:
            dot = a[i] @ a[j]
            s = dot / (a[i] @ a[i] + a[j] @ a[j] - dot)
        sim[p, q] = sim[q, p] = s
    return sim


def _density(edges, labels):
    d = 0.0
    for c in np.unique(labels):
        es = [edges[k] for k in np.flatnonzero(labels == c)]
        m_c, n_c = len(es), len(set(itertools.chain.from_iterable(es)))
        if n_c > 2:
            d += m_c * (m_c - (n_c - 1)) / ((n_c - 2) * (n_c - 1))
    return 2.0 / len(edges) * d


def _reference(n_nodes, edges, weights=None):
    """Best density and edge partition by scanning every cut height of scipy's single linkage."""
    m = len(edges)
    sim = _reference_similarity(n_nodes, edges, weights)
    dist = np.where(np.isnan(sim), FAR, 1.0 - sim)
    np.fill_diagonal(dist, 0.0)
    z = linkage(squareform(dist, checks=False), method="single")
    best_d, best_labels = 0.0, np.arange(m)  # all singletons: D = 0
    for h in np.unique(z[:, 2]):
        if h >= FAR:
            break
        labels = fcluster(z, t=h, criterion="distance")
        d = _density(edges, labels)
        if d > best_d + 1e-12:
            best_d, best_labels = d, labels
    return best_d, best_labels


def _edge_partition(labels):
    groups = {}
    for k, c in enumerate(labels):
        groups.setdefault(c, set()).add(k)
    return {frozenset(g) for g in groups.values()}


def _graphs():
    out = {
        "two_triangles": (5, [(0, 1), (0, 2), (1, 2), (2, 3), (2, 4), (3, 4)]),
        "karate": (34, list(nx.karate_club_graph().edges())),
        "florentine": nx.convert_node_labels_to_integers(nx.florentine_families_graph()),
        "K5": (5, list(itertools.combinations(range(5), 2))),
        "star": (6, [(0, k) for k in range(1, 6)]),
        "path": (6, [(k, k + 1) for k in range(5)]),
        "barbell": nx.barbell_graph(5, 2),
    }
    for seed in range(6):
        out[f"gnp_{seed}"] = nx.gnp_random_graph(18, 0.25, seed=seed)
        out[f"ba_{seed}"] = nx.barabasi_albert_graph(25, 2, seed=100 + seed)
    norm = {}
    for name, g in out.items():
        if isinstance(g, nx.Graph):
            g = (g.number_of_nodes(), list(g.edges()))
        norm[name] = (g[0], [tuple(sorted(e)) for e in g[1]])
    return norm


GRAPHS = _graphs()


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_matches_dense_reference(name, weighted):
    n, edges = GRAPHS[name]
    rng = np.random.default_rng(len(edges))
    weights = rng.uniform(0.1, 1.0, len(edges)) if weighted else None
    ref_d, ref_labels = _reference(n, edges, weights)
    res = link_communities(n, edges, weights)
    assert res.partition_density == pytest.approx(ref_d, abs=1e-12)
    assert _edge_partition(res.edge_labels) == _edge_partition(ref_labels)
    assert partition_density(res.edges, res.edge_labels) == pytest.approx(ref_d, abs=1e-12)
    # node communities are the node sets of the edge communities
    for c, nodes in enumerate(res.communities):
        es = res.edges[res.edge_labels == c]
        assert nodes == sorted(set(es.ravel().tolist()))


@pytest.mark.parametrize("weighted", [False, True])
def test_similarities_match_reference(weighted):
    n, edges = GRAPHS["karate"]
    weights = np.linspace(0.2, 2.0, len(edges)) if weighted else None
    e1, e2, s = edge_similarities(n, edges, weights)
    ref = _reference_similarity(n, edges, weights)
    np.testing.assert_allclose(s, ref[e1, e2], rtol=1e-12)
    # every adjacent pair is listed exactly once
    assert len(e1) == np.count_nonzero(~np.isnan(ref)) // 2


def test_two_triangles_exact():
    n, edges = GRAPHS["two_triangles"]
    res = link_communities(n, edges)
    assert res.communities == [[0, 1, 2], [2, 3, 4]]
    assert res.partition_density == 1.0
    assert res.node_membership()[2] == [0, 1]  # the shared node is in both


def test_unit_weights_equal_unweighted():
    n, edges = GRAPHS["karate"]
    a = link_communities(n, edges)
    b = link_communities(n, edges, np.ones(len(edges)))
    assert a.communities == b.communities
    assert a.partition_density == b.partition_density


def test_star_has_no_density_gain():
    n, edges = GRAPHS["star"]
    res = link_communities(n, edges)
    assert res.partition_density == 0.0
    assert res.n_communities == len(edges)  # all singletons kept (finest of the D = 0 levels)
    assert res.threshold == np.inf


def test_empty_and_isolated():
    res = link_communities(4, np.zeros((0, 2), dtype=int))
    assert res.communities == [] and res.partition_density == 0.0
    res = link_communities(4, [(0, 1)])
    assert res.communities == [[0, 1]]


def test_dendrogram_trace():
    n, edges = GRAPHS["karate"]
    res = link_communities(n, edges)
    assert np.all(np.diff(res.levels) < 0)
    assert res.densities.max() == res.partition_density
    assert res.levels[np.argmax(res.densities)] == res.threshold


@pytest.mark.parametrize(
    ("edges", "weights", "match"),
    [
        ([(0, 0)], None, "self-loop"),
        ([(0, 1), (1, 0)], None, "duplicate edge"),
        ([(0, 5)], None, "out of range"),
        ([(0, 1)], [1.0, 2.0], "weights must have shape"),
        ([(0, 1)], [np.nan], "finite"),
        ([(0.5, 1)], None, "integer"),
    ],
)
def test_bad_input(edges, weights, match):
    with pytest.raises(ValueError, match=match):
        link_communities(3, edges, weights)


@pytest.mark.parametrize("name", ["karate", "gnp_0", "gnp_3", "ba_1", "barbell"])
def test_weighted_with_ties_matches_reference(name):
    # few distinct weights make many equal similarities: ties must merge at one level
    n, edges = GRAPHS[name]
    weights = np.random.default_rng(7).integers(1, 3, len(edges)).astype(float)
    ref_d, ref_labels = _reference(n, edges, weights)
    res = link_communities(n, edges, weights)
    assert res.partition_density == pytest.approx(ref_d, abs=1e-12)
    assert _edge_partition(res.edge_labels) == _edge_partition(ref_labels)


def test_link_pruned_graph_partitions_every_edge():
    """A graph of link's pruned size (several thousand edges, hubs) gets every edge a community
    (its speed is ``benchmarks/bench_linkcomm.py``'s, not a test's)."""
    g = nx.powerlaw_cluster_graph(724, 8, 0.3, seed=0)
    edges = np.array(g.edges())
    weights = np.random.default_rng(0).random(len(edges))
    res = link_communities(724, edges, weights)
    assert len(edges) > 5000
    assert res.edge_labels.shape == (len(edges),)
    assert res.n_communities == len(np.unique(res.edge_labels)) >= 1


@pytest.mark.parametrize("weighted", [False, True])
def test_sparse_path_matches_dense(monkeypatch, weighted):
    """Graphs with many nodes use a sparse A A; force it on a small graph and compare."""
    import bnstudy.structure.linkcomm as lc

    n, edges = GRAPHS["karate"]
    weights = np.linspace(0.2, 2.0, len(edges)) if weighted else None
    dense = link_communities(n, edges, weights)
    _, _, s_dense = edge_similarities(n, edges, weights)
    monkeypatch.setattr(lc, "_DENSE_MAX_NODES", 0)
    sparse = link_communities(n, edges, weights)
    _, _, s_sparse = edge_similarities(n, edges, weights)
    np.testing.assert_allclose(s_sparse, s_dense, rtol=1e-12)
    assert _edge_partition(sparse.edge_labels) == _edge_partition(dense.edge_labels)
