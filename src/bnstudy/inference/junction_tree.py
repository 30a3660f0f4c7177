"""Batched exact inference by junction tree: the E-step of EM with a fixed hidden set.

In EM for a Bayesian network with hidden (never observed) nodes ``H``, every sample observes the
same nodes ``O = X \\ H``; the E-step needs, for every node ``X``, the expected sufficient
statistics ``sum_n P(X, pa(X) | e_n)`` and the log-likelihood ``log P(e_n)`` under the current
parameters. :class:`JunctionTree` compiles the network once for a given hidden set and then answers
that question for a whole batch of samples at a time, with NumPy array operations over the batch.

How it works
------------
*Compile* (:meth:`JunctionTree.__init__`, depends only on the structure and the hidden set; steps 1-2
in ``_triangulate``, 3 in ``_build_forest``, 4 in ``_compile_families``):

1. Evidence is absorbed before elimination, so observed nodes never enter a clique. The graph to
   triangulate is the moral graph restricted to the hidden nodes: two hidden nodes are adjacent iff
   they belong to a common family ``X ∪ pa(X)``.
2. Greedy elimination (min-fill, ties by min weight, then by network order) gives the elimination
   cliques; the maximal ones are the cliques of the triangulated graph.
3. A maximum-weight spanning forest on separator size (number of shared variables) joins the
   cliques into one junction tree per connected component of the hidden moral graph.
4. Each family with at least one hidden node is assigned to the smallest clique that contains all
   of its hidden nodes. Families without a hidden node need no clique: their contribution is a
   direct count (and a direct CPT look-up for the likelihood).

*Per evidence array* (cached): the distinct evidence rows with their multiplicities; for every
family and distinct row, the positions in the concatenated CPTs of the entries that agree with the
row; and, per family, a one-hot matrix of the observed configuration of each row.

*Per call* (depends on the CPTs): every family's CPT is reduced to its hidden axes by one gather
with the evidence (one column per distinct row: tables carry the batch axis *last*, so products
and sums run over contiguous samples), the clique potentials are the broadcast products of their
assigned tables and of the incoming messages, and one collect pass (leaves to roots) plus one
distribute pass (roots to leaves, HUGIN division) calibrate every clique. Every clique table is
normalised per sample and the log-normalisers are summed, which gives ``log P(e_n)`` without
underflow even on networks with hundreds of nodes (a clique product that underflows anyway is
recomputed from rescaled factors, or in log space). The expected counts of a family are its weighted posteriors
times its one-hot matrix; fully observed families are a weighted ``bincount``.

References
----------
.. [1] S. L. Lauritzen and D. J. Spiegelhalter, "Local computations with probabilities on graphical
   structures and their application to expert systems", *J. R. Stat. Soc. B* 50(2):157-224, 1988.
.. [2] D. Koller and N. Friedman, *Probabilistic Graphical Models: Principles and Techniques*, MIT
   Press, 2009, ch. 9 (variable elimination, min-fill) and ch. 10 (clique trees, Alg. 10.2 and 10.3,
   belief-update message passing).
.. [3] F. V. Jensen and F. Jensen, "Optimal junction trees", *Proc. UAI*, 1994 (maximum spanning
   tree on separator size gives a junction tree of the cliques of a chordal graph).
"""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - typing only
    from bnstudy.networks.bn import DiscreteBayesianNetwork

__all__ = ["ELIMINATION_HEURISTICS", "JunctionTree", "triangulate"]

logger = logging.getLogger(__name__)

#: Greedy elimination heuristics understood by :func:`triangulate`.
ELIMINATION_HEURISTICS = ("min_fill", "min_weight", "min_degree")

#: Default bound on the number of float64 entries held at once for the clique tables of one chunk
#: of distinct evidence rows (2**25 entries = 256 MiB).
DEFAULT_MAX_ENTRIES = 2**25

#: Bound on ``n_distinct_rows * n_observed_configurations`` of one family for the dense one-hot
#: matrix that turns the scatter of its expected counts into a matrix product; larger families
#: scatter with ``numpy.add.at``.
DEFAULT_MAX_ONEHOT = 2**22

#: Clique normalisers below this are recomputed from per-factor rescaled tables (and in log space
#: where those still sum below it): every factor is at most 1, so a normaliser above it means no
#: entry that matters can have underflowed.
_TINY = 1e-280


# ---------------------------------------------------------------------------- triangulation
def triangulate(
    adjacency: Mapping[str, set[str]],
    cardinality: Mapping[str, int],
    order: Sequence[str],
    *,
    heuristic: str = "min_fill",
) -> tuple[list[str], list[tuple[str, ...]]]:
    """Greedy elimination ordering and the maximal cliques it induces.

    Parameters
    ----------
    adjacency : mapping of str to set of str
        An undirected graph (symmetric adjacency sets); not modified.
    cardinality : mapping of str to int
        Number of states of every node (the weight of a clique is the product).
    order : sequence of str
        The nodes of the graph in the order used to break the last ties (network order).
    heuristic : {"min_fill", "min_weight", "min_degree"}
        ``min_fill`` eliminates next the node whose elimination adds the fewest fill edges, ties
        broken by the smallest weight (product of the cardinalities of the node and its neighbours);
        ``min_weight`` uses the weight first and the fill second; ``min_degree`` the number of
        neighbours first and the weight second.

    Returns
    -------
    elimination_order : list of str
    cliques : list of tuple of str
        The maximal elimination cliques, each sorted by ``order``, in the order in which they were
        formed.

    References
    ----------
    .. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press, 2009,
       Sec. 9.4.3.1 (Alg. 9.4, greedy ordering; min-fill and weighted min-fill cost criteria).
    """
    if heuristic not in ELIMINATION_HEURISTICS:
        raise ValueError(
            f"unknown elimination heuristic {heuristic!r}; use one of {ELIMINATION_HEURISTICS}"
        )
    pos = {v: i for i, v in enumerate(order)}
    adj = {v: set(adjacency[v]) for v in order}
    logcard = {v: float(np.log(cardinality[v])) for v in order}

    def fill(v: str) -> int:
        nb = adj[v]
        return sum(len(nb - adj[a] - {a}) for a in nb) // 2

    def weight(v: str) -> float:
        return logcard[v] + sum(logcard[a] for a in adj[v])

    def score(v: str) -> tuple:
        if heuristic == "min_fill":
            return (fill(v), round(weight(v), 9), pos[v])
        if heuristic == "min_weight":
            return (round(weight(v), 9), fill(v), pos[v])
        return (len(adj[v]), round(weight(v), 9), pos[v])

    scores = {v: score(v) for v in order}
    elimination: list[str] = []
    formed: list[frozenset[str]] = []
    while scores:
        v = min(scores, key=scores.__getitem__)
        nb = adj[v]
        formed.append(frozenset(nb | {v}))
        elimination.append(v)
        # Connect the neighbours (fill edges), then remove v.
        touched = set(nb)
        for a in nb:
            new = nb - adj[a] - {a}
            if new:
                adj[a] |= new
        for a in nb:
            adj[a].discard(v)
        del adj[v], scores[v]
        # A score can change only for the neighbours of v and for their neighbours (fill edges
        # among N(v) change the fill count of every common neighbour of the new edge's ends).
        for a in nb:
            touched |= adj[a]
        for u in touched:
            if u in scores:
                scores[u] = score(u)
    # Keep the maximal cliques: an elimination clique is either maximal or contained in one formed
    # earlier (Koller & Friedman, Thm. 9.6), so one pass over the earlier cliques suffices.
    cliques: list[frozenset[str]] = []
    for c in formed:
        if not any(c <= k for k in cliques):
            cliques.append(c)
    return elimination, [tuple(sorted(c, key=pos.__getitem__)) for c in cliques]


def _spanning_forest(cliques: Sequence[tuple[str, ...]]) -> list[tuple[int, int]]:
    """Maximum-weight spanning forest of the clique graph, weight = number of shared variables.

    Kruskal's algorithm with a union-find; edges with an empty separator are never used, so each
    connected component of the hidden moral graph gets its own tree.
    """
    k = len(cliques)
    sets = [set(c) for c in cliques]
    holders: dict[str, list[int]] = {}
    for i, c in enumerate(cliques):
        for v in c:
            holders.setdefault(v, []).append(i)
    candidates: set[tuple[int, int]] = set()
    for idx in holders.values():
        for a in range(len(idx)):
            for b in range(a + 1, len(idx)):
                candidates.add((idx[a], idx[b]))
    edges = sorted(candidates, key=lambda e: (-len(sets[e[0]] & sets[e[1]]), e))
    root = list(range(k))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    tree: list[tuple[int, int]] = []
    for i, j in edges:
        ri, rj = find(i), find(j)
        if ri != rj:
            root[ri] = rj
            tree.append((i, j))
    return tree


def _check_compile_arguments(
    bn: DiscreteBayesianNetwork, hidden: Sequence[str], elimination: str, max_entries: int
) -> set[str]:
    """The hidden set, after checking the arguments of :class:`JunctionTree`."""
    if isinstance(hidden, str):
        hidden = [hidden]
    hidden = [str(h) for h in hidden]
    unknown = sorted({h for h in hidden if h not in bn.cardinality})
    if unknown:
        raise ValueError(f"unknown hidden nodes {unknown}: not in network {bn.name!r}")
    if elimination not in ELIMINATION_HEURISTICS:
        raise ValueError(
            f"unknown elimination heuristic {elimination!r}; use one of {ELIMINATION_HEURISTICS}"
        )
    if int(max_entries) < 1:
        raise ValueError(f"max_entries must be positive, got {max_entries}")
    hidden_set = set(hidden)
    if len(hidden_set) == len(bn.nodes):
        raise ValueError(
            "all-hidden data: nothing is observed (every node of the network is in `hidden`)"
        )
    return hidden_set


def _hidden_moral_graph(bn: DiscreteBayesianNetwork, hidden: Sequence[str]) -> dict[str, set[str]]:
    """The moral graph restricted to ``hidden``: two hidden nodes are adjacent iff they belong to
    a common family ``X ∪ pa(X)``."""
    hidden_set = set(hidden)
    adjacency: dict[str, set[str]] = {v: set() for v in hidden}
    for x in bn.nodes:
        fam_hidden = [v for v in (*bn.parents[x], x) if v in hidden_set]
        for a in fam_hidden:
            adjacency[a].update(u for u in fam_hidden if u != a)
    return adjacency


def _rooted_preorder(
    k: int, tree: Sequence[tuple[int, int]], sizes: Sequence[int]
) -> tuple[list[int], dict[int, int]]:
    """Pre-order of a forest on ``k`` nodes and each node's parent (``-1`` for a root).

    Each component is rooted at its node of largest ``size`` (ties: smallest index); a node's
    children are visited in increasing index order (depth first).
    """
    nbrs: dict[int, list[int]] = {i: [] for i in range(k)}
    for i, j in tree:
        nbrs[i].append(j)
        nbrs[j].append(i)
    seen: set[int] = set()
    preorder: list[int] = []
    parent: dict[int, int] = {}
    for start in sorted(range(k), key=lambda i: (-sizes[i], i)):
        if start in seen:
            continue
        seen.add(start)
        parent[start] = -1
        stack = [start]
        while stack:
            i = stack.pop()
            preorder.append(i)
            for j in sorted(nbrs[i], reverse=True):
                if j not in seen:
                    seen.add(j)
                    parent[j] = i
                    stack.append(j)
    return preorder, parent


# ---------------------------------------------------------------------------- compiled pieces
@dataclass(frozen=True)
class _Family:
    """A family ``X ∪ pa(X)`` that contains a hidden node.

    Entries of ``cpts[X]`` are addressed by their flat C-order index, split into a hidden part
    (``hidden_index``: one entry per joint state of the hidden nodes, enumerated in network order)
    and an observed part (``obs_cols`` · ``obs_strides`` of each evidence row), so reducing the CPT
    by the evidence and scattering expected counts back are both one index computation.
    """

    node: str
    shape: tuple[int, ...]
    obs_cols: np.ndarray
    obs_strides: np.ndarray
    hidden: tuple[str, ...]
    hidden_shape: tuple[int, ...]
    hidden_index: np.ndarray
    clique: int
    shape_in_clique: tuple[int, ...]
    sum_axes: tuple[int, ...]


@dataclass
class _EvidenceCache:
    """What depends on the evidence but not on the CPTs.

    ``hidden_index[r, u]`` is the position in the concatenated CPTs of the ``r``-th entry of the
    stacked reduced tables (family blocks in ``JunctionTree._families`` order, rows of a block
    = joint states of the family's hidden nodes) for distinct evidence row ``u``;
    ``observed_index[f, u]`` the position of the entry of fully observed family ``f``.
    ``onehot[X]`` (distinct rows x observed configurations of family ``X`` that occur) maps the
    rows to the configurations, so the expected counts of ``X`` are one matrix product; their
    positions in the concatenated CPTs are ``positions`` (all such families, flattened in
    ``onehot`` order). Families in ``scattered`` are too large for a dense one-hot matrix.
    """

    n: int
    rows: np.ndarray
    inverse: np.ndarray
    multiplicity: np.ndarray
    hidden_index: np.ndarray
    observed_index: np.ndarray
    onehot: dict[str, np.ndarray]
    positions: np.ndarray
    scattered: list[str]


# ---------------------------------------------------------------------------- the engine
class JunctionTree:
    """Exact inference for a fixed set of hidden nodes, batched over samples that share which nodes are observed.

    The structure-dependent work (moral graph of the hidden nodes, triangulation, junction forest,
    family-to-clique assignment) is done once here; :meth:`expected_counts` then runs one
    calibration per call for a whole evidence array, which is what one E-step of EM needs.

    Parameters
    ----------
    bn : bnstudy.networks.DiscreteBayesianNetwork
        The network; its structure and cardinalities are compiled, its CPTs are the default
        parameters of the query methods.
    hidden : sequence of str
        The nodes that are never observed. The other nodes are observed in every sample. May be
        empty (complete data), but not every node.
    elimination : {"min_fill", "min_weight", "min_degree"}, default "min_fill"
        Greedy elimination heuristic used to triangulate the hidden moral graph (see
        :func:`triangulate`).
    max_entries : int, default 2**25
        Bound on the number of float64 entries of clique tables held at once: distinct evidence
        rows are processed in chunks of about ``max_entries // sum(clique sizes)`` rows. A hidden
        set whose largest clique alone exceeds it is rejected.
    max_onehot : int, default 2**22
        Bound on ``n_distinct_rows * n_observed_configurations`` of a family for the dense one-hot
        matrix that turns the scatter of its expected counts into a matrix product (larger
        families use ``numpy.add.at``).

    Attributes
    ----------
    hidden_ : list of str
        The hidden nodes, in network order.
    observed_ : list of str
        The observed nodes, in network order: the columns of the evidence arrays.
    elimination_order_ : list of str
        The greedy elimination order of the hidden nodes.
    cliques_ : list of tuple of str
        The cliques (each in network order), in pre-order of the junction forest (roots first).
    parent_ : list of int
        Index in ``cliques_`` of each clique's parent in the forest; ``-1`` for a root.
    separators_ : list of tuple of str
        The separator between each clique and its parent (empty for a root).
    family_clique_ : dict of str to int
        For every node whose family contains a hidden node, the clique the family is assigned to.
    max_clique_size_ : int
        Largest number of entries of a clique table (product of cardinalities); 0 without hidden
        nodes.
    treewidth_ : int
        Largest number of variables in a clique minus one (-1 without hidden nodes).

    Raises
    ------
    ValueError
        If ``hidden`` names nodes that are not in the network (the message names them), if every
        node is hidden, on an unknown elimination heuristic, or if the largest clique has more
        than ``max_entries`` entries.

    See Also
    --------
    bnstudy.parameters.sharing.identical_cpt_sets : hidden sets of the EM-with-sharing study.

    Notes
    -----
    Samples with ``P(e_n) = 0`` under the given CPTs get ``loglik = -inf`` and contribute nothing to
    the expected counts (a warning is logged).

    References
    ----------
    .. [1] S. L. Lauritzen and D. J. Spiegelhalter, "Local computations with probabilities on
       graphical structures and their application to expert systems", *J. R. Stat. Soc. B*
       50(2):157-224, 1988.
    .. [2] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press, 2009, ch. 10
       (Alg. 10.3, sum-product belief update) and Sec. 19.2.2 (expected sufficient statistics
       for the E-step).
    .. [3] E. Reed and O. J. Mengshoel, "Bayesian network parameter learning using EM with
       parameter sharing", *Proc. BMAW*, CEUR-WS 1218, 2014 (exact junction-tree E-step).

    Examples
    --------
    >>> import numpy as np
    >>> from bnstudy.networks.bn import DiscreteBayesianNetwork
    >>> bn = DiscreteBayesianNetwork(
    ...     nodes=["A", "B"],
    ...     parents={"B": ["A"]},
    ...     cpts={"A": np.array([0.3, 0.7]), "B": np.array([[0.9, 0.1], [0.2, 0.8]])},
    ...     state_names={"A": ["a0", "a1"], "B": ["b0", "b1"]},
    ... )
    >>> jt = JunctionTree(bn, hidden=["A"])
    >>> counts, loglik = jt.expected_counts(np.array([[0], [1], [1]]))
    >>> np.round(counts["A"], 4)
    array([0.7602, 2.2398])
    >>> np.round(np.exp(loglik), 2)
    array([0.41, 0.59, 0.59])
    """

    def __init__(
        self,
        bn: DiscreteBayesianNetwork,
        hidden: Sequence[str],
        *,
        elimination: str = "min_fill",
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_onehot: int = DEFAULT_MAX_ONEHOT,
    ) -> None:
        hidden_set = _check_compile_arguments(bn, hidden, elimination, max_entries)
        self.bn = bn
        self.elimination = elimination
        self.max_entries = int(max_entries)
        self.max_onehot = int(max_onehot)
        self.hidden_: list[str] = [v for v in bn.nodes if v in hidden_set]
        self.observed_: list[str] = [v for v in bn.nodes if v not in hidden_set]
        self._card = dict(bn.cardinality)
        self._pos = {v: i for i, v in enumerate(bn.nodes)}
        cliques = self._triangulate()  # steps 1-2 of the module docstring
        self._build_forest(cliques)  # step 3
        self._compile_families()  # step 4
        self._cache: OrderedDict[bytes, _EvidenceCache] = OrderedDict()
        self._cache_size = 4
        logger.debug(
            "compiled junction tree on %s: %d hidden, %d cliques, treewidth %d, max clique %d entries",
            bn.name,
            len(self.hidden_),
            len(self.cliques_),
            self.treewidth_,
            self.max_clique_size_,
        )

    # ------------------------------------------------------------------ compilation
    def _triangulate(self) -> list[tuple[str, ...]]:
        """Steps 1-2: the hidden moral graph, its elimination order and maximal cliques."""
        adjacency = _hidden_moral_graph(self.bn, self.hidden_)
        self.elimination_order_, cliques = triangulate(
            adjacency, self._card, self.hidden_, heuristic=self.elimination
        )
        largest = max((self._entries(c) for c in cliques), default=0)
        if largest > self.max_entries:
            raise ValueError(
                f"the largest clique has {largest} entries, more than max_entries={self.max_entries}: "
                "exact inference with this hidden set is out of reach"
            )
        return cliques

    def _entries(self, variables: Sequence[str]) -> int:
        """Number of entries of a table over ``variables``."""
        return int(np.prod([self._card[v] for v in variables]))

    def _build_forest(self, cliques: Sequence[tuple[str, ...]]) -> None:
        """Step 3: the junction forest, rooted at each component's largest clique, in pre-order."""
        preorder, parent_old = _rooted_preorder(
            len(cliques), _spanning_forest(cliques), [self._entries(c) for c in cliques]
        )
        new_index = {old: new for new, old in enumerate(preorder)}
        self.cliques_: list[tuple[str, ...]] = [cliques[i] for i in preorder]
        self.parent_: list[int] = [
            -1 if parent_old[i] < 0 else new_index[parent_old[i]] for i in preorder
        ]
        self.separators_: list[tuple[str, ...]] = [
            () if p < 0 else tuple(v for v in self.cliques_[c] if v in set(self.cliques_[p]))
            for c, p in enumerate(self.parent_)
        ]
        self._shapes = [tuple(self._card[v] for v in c) for c in self.cliques_]
        self._sizes = [int(np.prod(s)) for s in self._shapes]
        self.max_clique_size_ = max(self._sizes, default=0)
        self.treewidth_ = max((len(c) for c in self.cliques_), default=0) - 1
        self._children: list[list[int]] = [[] for _ in self.cliques_]
        for c, p in enumerate(self.parent_):
            if p >= 0:
                self._children[p].append(c)
        self._frame_separators()

    def _frame_separators(self) -> None:
        """Broadcast shapes and summed axes of every separator in its clique and parent frames.

        Tables keep the batch axis LAST, so that every product, sum and normalisation runs over
        contiguous runs of samples; cliques and separators are both in network order, so a
        separator table aligns with a clique by a reshape alone.
        """
        self._sep_shape = [tuple(self._card[v] for v in s) for s in self.separators_]
        self._sep_in_child: list[tuple[int, ...]] = []
        self._sep_in_parent: list[tuple[int, ...]] = []
        self._sum_child: list[tuple[int, ...]] = []
        self._sum_parent: list[tuple[int, ...]] = []
        for c, p in enumerate(self.parent_):
            sep = set(self.separators_[c])
            self._sep_in_child.append(self._aligned(self.cliques_[c], sep))
            self._sum_child.append(self._summed(self.cliques_[c], sep))
            if p >= 0:
                self._sep_in_parent.append(self._aligned(self.cliques_[p], sep))
                self._sum_parent.append(self._summed(self.cliques_[p], sep))
            else:
                self._sep_in_parent.append(())
                self._sum_parent.append(())

    def _compile_families(self) -> None:
        """Step 4: assign every family with a hidden node to a clique; index the CPT entries.

        All CPTs are concatenated (network order) into one flat vector per call; a family's
        entries are addressed by the index arithmetic of :class:`_Family` (families with a hidden
        node) or by its observed columns and strides (fully observed families).
        """
        bn = self.bn
        self._offset: dict[str, int] = {}
        self._total = 0
        for x in bn.nodes:
            self._offset[x] = self._total
            self._total += int(np.prod(bn.cpts[x].shape))
        holders: dict[str, list[int]] = {}
        for i, c in enumerate(self.cliques_):
            for v in c:
                holders.setdefault(v, []).append(i)
        hidden_set = set(self.hidden_)
        obs_col = {v: j for j, v in enumerate(self.observed_)}
        self._families: dict[str, _Family] = {}
        self._assigned: list[list[str]] = [[] for _ in self.cliques_]
        observed_cols, observed_strides, observed_offsets = [], [], []
        for x in bn.nodes:
            fam = (*bn.parents[x], x)
            strides = _strides(tuple(self._card[v] for v in fam))
            hid_axes = sorted(
                (a for a, v in enumerate(fam) if v in hidden_set), key=lambda a: self._pos[fam[a]]
            )
            if hid_axes:
                family = self._hidden_family(x, fam, strides, hid_axes, holders)
                self._families[x] = family
                self._assigned[family.clique].append(x)
            else:  # fully observed: a direct look-up by the observed columns
                observed_cols.append(np.array([obs_col[v] for v in fam], dtype=np.intp))
                observed_strides.append(strides)
                observed_offsets.append(self._offset[x])
        self._observed_families = [x for x in bn.nodes if x not in self._families]
        self._observed_offsets = np.array(observed_offsets, dtype=np.int64)
        self._observed_cols = observed_cols
        self._observed_strides = observed_strides
        # Stacked reduced tables: family f owns rows starts[f]:starts[f] + size(hidden part).
        sizes = [len(f.hidden_index) for f in self._families.values()]
        self._starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        self._block = {
            x: slice(int(a), int(b))
            for x, a, b in zip(self._families, self._starts[:-1], self._starts[1:], strict=True)
        }
        self.family_clique_: dict[str, int] = {x: f.clique for x, f in self._families.items()}

    def _hidden_family(
        self,
        x: str,
        fam: tuple[str, ...],
        strides: np.ndarray,
        hid_axes: Sequence[int],
        holders: Mapping[str, Sequence[int]],
    ) -> _Family:
        """Family ``fam = (*pa(x), x)``: its index arithmetic and the smallest clique holding its
        hidden nodes (the axes ``hid_axes``, in network order; ``holders[v]``: the cliques with
        ``v``)."""
        shape = tuple(self._card[v] for v in fam)
        obs_axes = [a for a in range(len(fam)) if a not in set(hid_axes)]
        obs_col = {v: j for j, v in enumerate(self.observed_)}
        hid = tuple(fam[a] for a in hid_axes)
        hidden_shape = tuple(self._card[v] for v in hid)
        hidden_index = np.zeros(hidden_shape, dtype=np.int64)
        for k, a in enumerate(hid_axes):
            ax = [1] * len(hid_axes)
            ax[k] = shape[a]
            hidden_index = hidden_index + np.arange(shape[a]).reshape(ax) * strides[a]
        members = set(hid)
        clique = min(
            (i for i in holders[hid[0]] if members <= set(self.cliques_[i])),
            key=lambda i: (self._sizes[i], i),
        )
        return _Family(
            node=x,
            shape=shape,
            obs_cols=np.array([obs_col[fam[a]] for a in obs_axes], dtype=np.intp),
            obs_strides=strides[obs_axes],
            hidden=hid,
            hidden_shape=hidden_shape,
            hidden_index=hidden_index.reshape(-1) + self._offset[x],
            clique=clique,
            shape_in_clique=self._aligned(self.cliques_[clique], members),
            sum_axes=self._summed(self.cliques_[clique], members),
        )

    # ------------------------------------------------------------------ helpers
    def _aligned(self, clique: tuple[str, ...], members: set[str]) -> tuple[int, ...]:
        """Shape of a table over ``members`` (network order, batch last) in ``clique``'s frame."""
        return (*[self._card[v] if v in members else 1 for v in clique], -1)

    @staticmethod
    def _summed(clique: tuple[str, ...], members: set[str]) -> tuple[int, ...]:
        """Axes of ``clique``'s table (batch axis last) that are not in ``members``."""
        return tuple(i for i, v in enumerate(clique) if v not in members)

    def __repr__(self) -> str:
        return (
            f"JunctionTree(network={self.bn.name!r}, hidden={len(self.hidden_)}, "
            f"cliques={len(self.cliques_)}, treewidth={self.treewidth_}, "
            f"max_clique_size={self.max_clique_size_})"
        )

    # ------------------------------------------------------------------ input checks
    def _flat_cpts(self, cpts: Mapping[str, np.ndarray] | None) -> np.ndarray:
        """All CPTs concatenated in network order (C order within each), after checking them."""
        if cpts is None:
            cpts = self.bn.cpts
        else:
            for x in self.bn.nodes:
                if x not in cpts:
                    raise ValueError(f"no CPT given for node {x!r}")
                shape, want = np.shape(cpts[x]), self.bn.cpts[x].shape
                if shape != want:
                    raise ValueError(f"CPT of node {x!r} has shape {shape}, expected {want}")
        flat = np.concatenate(
            [np.asarray(cpts[x], dtype=np.float64).reshape(-1) for x in self.bn.nodes]
        )
        if not ((flat >= 0) & (flat < np.inf)).all():  # NaN fails both: not "probability 0"
            for x in self.bn.nodes:
                entries = np.asarray(cpts[x], dtype=np.float64).reshape(-1)
                wrong = ~((entries >= 0) & (entries < np.inf))
                if wrong.any():
                    bad = entries[wrong][0]
                    raise ValueError(
                        f"CPT of node {x!r} has the entry {bad}: probabilities must be finite "
                        "and >= 0"
                    )
        return flat

    def _evidence(self, evidence: np.ndarray) -> _EvidenceCache:
        """Validate ``evidence`` and return its (cached) distinct rows and CPT indices."""
        ev = np.asarray(evidence)
        m = len(self.observed_)
        if ev.ndim != 2 or ev.shape[1] != m:
            raise ValueError(
                f"evidence must have shape (n, {m}) (one column per observed node, in "
                f"observed_ order), got shape {ev.shape}"
            )
        if ev.dtype.kind not in "iub":
            if ev.dtype.kind == "f" and ev.size and not np.all(np.isfinite(ev)):
                bad = np.argwhere(~np.isfinite(ev))[0]
                raise ValueError(
                    f"evidence for node {self.observed_[bad[1]]!r} has value {ev[tuple(bad)]} "
                    "(missing values are not supported: hide the node instead)"
                )
            if ev.dtype.kind != "f" or (ev.size and not np.all(ev == np.round(ev))):
                raise ValueError(f"evidence must hold integer state indices, got dtype {ev.dtype}")
        ev = np.ascontiguousarray(ev, dtype=np.int64)
        key = hashlib.blake2b(ev.tobytes(), digest_size=20).digest() + repr(ev.shape).encode()
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        if ev.size:
            cards = np.array([self._card[v] for v in self.observed_])
            bad_mask = (ev < 0) | (ev >= cards)
            if bad_mask.any():
                r, j = np.argwhere(bad_mask)[0]
                v = self.observed_[j]
                raise ValueError(
                    f"evidence for node {v!r} has value {int(ev[r, j])} (row {int(r)}) outside its "
                    f"states 0..{cards[j] - 1}"
                )
        rows, inverse, mult = np.unique(ev, axis=0, return_inverse=True, return_counts=True)
        nu = len(rows)
        hidden_index = np.empty((int(self._starts[-1]), nu), dtype=np.int64)
        onehot: dict[str, np.ndarray] = {}
        positions: list[np.ndarray] = []
        scattered: list[str] = []
        for x, f in self._families.items():
            obs = rows[:, f.obs_cols] @ f.obs_strides
            hidden_index[self._block[x]] = f.hidden_index[:, None] + obs[None, :]
            configs, which = np.unique(obs, return_inverse=True)
            if nu * len(configs) > self.max_onehot:
                scattered.append(x)
                continue
            table = np.zeros((nu, len(configs)))
            table[np.arange(nu), which.reshape(-1)] = 1.0
            onehot[x] = table
            positions.append((f.hidden_index[:, None] + configs[None, :]).reshape(-1))
        observed_index = np.empty((len(self._observed_families), nu), dtype=np.int64)
        for k, (cols, strides) in enumerate(
            zip(self._observed_cols, self._observed_strides, strict=True)
        ):
            observed_index[k] = rows[:, cols] @ strides + self._observed_offsets[k]
        cache = _EvidenceCache(
            n=len(ev),
            rows=rows,
            inverse=inverse.reshape(-1),
            multiplicity=mult,
            hidden_index=hidden_index,
            observed_index=observed_index,
            onehot=onehot,
            positions=np.concatenate(positions) if positions else np.zeros(0, dtype=np.int64),
            scattered=scattered,
        )
        self._cache[key] = cache
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return cache

    def _weights(self, cache: _EvidenceCache, weights: np.ndarray | None) -> np.ndarray:
        """Total weight of each distinct row."""
        if weights is None:
            return cache.multiplicity.astype(np.float64)
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (cache.n,):
            raise ValueError(f"weights must have shape ({cache.n},), got {w.shape}")
        if not np.all(np.isfinite(w)):
            raise ValueError("weights must be finite")
        return np.bincount(cache.inverse, weights=w, minlength=len(cache.rows))

    # ------------------------------------------------------------------ calibration
    def _calibrate(
        self, cache: _EvidenceCache, flat: np.ndarray, rows: slice
    ) -> tuple[list[np.ndarray], np.ndarray]:
        """Calibrated, normalised clique beliefs and ``log P(e)`` for the distinct rows ``rows``.

        Every table has shape ``(*clique cardinalities, n_rows)`` (batch axis last). Collect pass:
        ``phi_C = prod(assigned reduced CPTs) * prod(messages from the children)``, normalised per
        sample (its log-normaliser is added to the log-likelihood); the message to the parent is
        ``phi_C`` summed onto the separator. Distribute pass (HUGIN update): the parent's belief
        summed onto the separator, divided by the upward message, multiplies ``phi_C``. Both
        messages sum to one, so the updated belief stays normalised. Koller & Friedman (2009),
        Alg. 10.3; Lauritzen & Spiegelhalter (1988), Sec. 6.
        """
        nb = rows.stop - rows.start
        # Fully observed families: a CPT look-up.
        loglik = _log(flat[cache.observed_index[:, rows]]).sum(axis=0)
        # Families with hidden nodes: every CPT reduced to its hidden axes by the evidence with
        # one gather (one column per sample).
        reduced_all = flat[cache.hidden_index[:, rows]]
        # Collect: leaves to roots (reverse pre-order).
        k = len(self.cliques_)
        phi: list[np.ndarray] = [np.empty(0)] * k
        up: list[np.ndarray] = [np.empty(0)] * k
        for c in reversed(range(k)):
            factors = [
                reduced_all[self._block[x]].reshape(self._families[x].shape_in_clique)
                for x in self._assigned[c]
            ]
            factors += [up[ch].reshape(self._sep_in_parent[ch]) for ch in self._children[c]]
            table = _product(factors, self._shapes[c], nb)
            z = table.reshape(-1, nb).sum(axis=0)
            small = z < _TINY
            if small.any():
                # Products of many small CPT entries can underflow: redo those samples with every
                # factor rescaled to a maximum of one (its log-scale goes into the likelihood).
                idx = np.flatnonzero(small)
                sub, log_scale = _rescaled_product([g[..., idx] for g in factors], self._shapes[c])
                z_sub = sub.reshape(-1, len(idx)).sum(axis=0)
                table[..., idx] = sub
                loglik[idx] += log_scale
                z[idx] = z_sub
            loglik += _log(z)
            table *= _reciprocal(z)
            phi[c] = table
            if self.parent_[c] >= 0:
                up[c] = table.sum(axis=self._sum_child[c])
        # Distribute: roots to leaves (pre-order); roots are calibrated after the collect pass.
        for c in range(k):
            p = self.parent_[c]
            if p < 0:
                continue
            down = phi[p].sum(axis=self._sum_parent[c])
            ratio = np.divide(down, up[c], out=np.zeros_like(down), where=up[c] > 0)
            phi[c] *= ratio.reshape(self._sep_in_child[c])
        return phi, loglik

    def _chunks(self, n_rows: int) -> list[slice]:
        per_row = sum(self._sizes) + 2 * int(self._starts[-1])
        step = max(1, self.max_entries // max(1, per_row))
        return [slice(s, min(s + step, n_rows)) for s in range(0, n_rows, step)]

    def _posteriors(self, cache: _EvidenceCache, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Stacked ``P(hidden part of family X | e)`` per distinct row, and ``log P(e)``.

        Returns an array of shape ``(rows of the stacked reduced tables, n_distinct)``: the block
        of family ``X`` (``self._block[X]``) holds its posterior over the joint states of its hidden
        nodes (network order), and ``log P(e)`` of shape ``(n_distinct,)``.
        """
        nu = len(cache.rows)
        marg = np.empty((int(self._starts[-1]), nu))
        loglik = np.empty(nu)
        for rows in self._chunks(nu):
            beliefs, ll = self._calibrate(cache, flat, rows)
            loglik[rows] = ll
            done: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
            for x, f in self._families.items():
                key = (f.clique, f.sum_axes)
                if key not in done:
                    b = beliefs[f.clique]
                    done[key] = (b.sum(axis=f.sum_axes) if f.sum_axes else b).reshape(
                        -1, rows.stop - rows.start
                    )
                marg[self._block[x], rows] = done[key]
        return marg, loglik

    def _split(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """Cut a vector laid out like the concatenated CPTs into one array per node."""
        return {
            x: flat[self._offset[x] : self._offset[x] + self.bn.cpts[x].size].reshape(
                self.bn.cpts[x].shape
            )
            for x in self.bn.nodes
        }

    # ------------------------------------------------------------------ public queries
    def expected_counts(
        self,
        evidence: np.ndarray,
        cpts: Mapping[str, np.ndarray] | None = None,
        *,
        weights: np.ndarray | None = None,
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Expected family counts and per-sample log-likelihoods: one E-step.

        Parameters
        ----------
        evidence : numpy.ndarray of int, shape (n, len(observed_))
            State indices of the observed nodes, columns in :attr:`observed_` order. Repeated rows
            are computed once (and the distinct rows of the last few arrays are cached, so calling
            again with the same array and new ``cpts`` skips that work).
        cpts : mapping of str to numpy.ndarray, optional
            The current parameters, one table per node in the layout of ``bn.cpts`` (parents
            first, child last). Defaults to the network's CPTs.
        weights : numpy.ndarray of float, shape (n,), optional
            Sample weights ``w_n`` (default 1).

        Returns
        -------
        counts : dict of str to numpy.ndarray
            For every node ``X``, an array of the shape of ``cpts[X]`` holding
            ``sum_n w_n P(X, pa(X) | e_n)``. Each sums to ``sum_n w_n`` (over the samples with
            ``P(e_n) > 0``).
        loglik : numpy.ndarray, shape (n,)
            ``log P(e_n)`` under ``cpts``.

        Raises
        ------
        ValueError
            If ``evidence`` has the wrong shape, a value outside its node's states (the message
            names the node and the value), ``cpts`` misses a node or has a wrong shape, or
            ``weights`` has the wrong shape.

        Notes
        -----
        Families without a hidden node are counted directly (one weighted ``numpy.bincount``
        over the CPT entries the rows hit). For a family with hidden nodes, the weighted
        posteriors of its hidden part (one column per distinct row) times the one-hot matrix of
        the rows' observed configurations give its counts block by block, one matrix product per
        family.

        References
        ----------
        .. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press, 2009,
           Sec. 19.2.2.3 (expected sufficient statistics from clique beliefs).
        """
        flat = self._flat_cpts(cpts)
        cache = self._evidence(evidence)
        w = self._weights(cache, weights)
        if self._families:
            marg, ll_u = self._posteriors(cache, flat)
        else:  # complete data: only CPT look-ups
            marg = np.empty((0, len(cache.rows)))
            ll_u = _log(flat[cache.observed_index]).sum(axis=0)
        impossible = ~np.isfinite(ll_u)
        if impossible.any():
            logger.warning(
                "%d of %d distinct evidence rows have probability 0 under the given CPTs; they "
                "contribute nothing to the expected counts",
                int(impossible.sum()),
                len(ll_u),
            )
            w = np.where(impossible, 0.0, w)
            marg[:, impossible] = 0.0
        # Fully observed families: a weighted bincount of the CPT entries that the rows hit.
        counts = np.bincount(
            cache.observed_index.reshape(-1),
            weights=np.broadcast_to(w, cache.observed_index.shape).reshape(-1),
            minlength=self._total,
        ).astype(np.float64, copy=False)  # an empty bincount is an integer array
        # Families with hidden nodes: (posterior * weight) @ one-hot(observed configuration),
        # i.e. each row's weighted posterior added into the block of its observed configuration.
        marg *= w
        if cache.onehot:
            products = [marg[self._block[x]] @ table for x, table in cache.onehot.items()]
            counts[cache.positions] = np.concatenate([p.reshape(-1) for p in products])
        for x in cache.scattered:
            block = self._block[x]
            np.add.at(counts, cache.hidden_index[block].reshape(-1), marg[block].reshape(-1))
        return self._split(counts), ll_u[cache.inverse]

    def log_likelihood(
        self, evidence: np.ndarray, cpts: Mapping[str, np.ndarray] | None = None
    ) -> np.ndarray:
        """``log P(e_n)`` for every row of ``evidence`` (see :meth:`expected_counts`)."""
        flat = self._flat_cpts(cpts)
        cache = self._evidence(evidence)
        if not self._families:
            return _log(flat[cache.observed_index]).sum(axis=0)[cache.inverse]
        loglik = np.empty(len(cache.rows))
        for rows in self._chunks(len(cache.rows)):
            loglik[rows] = self._calibrate(cache, flat, rows)[1]
        return loglik[cache.inverse]

    def family_marginals(
        self, evidence: np.ndarray, cpts: Mapping[str, np.ndarray] | None = None
    ) -> dict[str, np.ndarray]:
        """Per-sample posterior of every family that contains a hidden node.

        Parameters
        ----------
        evidence, cpts
            As in :meth:`expected_counts`.

        Returns
        -------
        dict of str to numpy.ndarray
            ``{X: P(X, pa(X) | e_n)}`` of shape ``(n, *cpts[X].shape)`` for every ``X`` whose family
            has a hidden node; the observed axes are one-hot at the evidence. Memory grows as
            ``n`` times the table sizes: meant for tests and small batches.
        """
        flat = self._flat_cpts(cpts)
        cache = self._evidence(evidence)
        if not self._families:
            return {}
        marg, _ = self._posteriors(cache, flat)
        nu = len(cache.rows)
        out: dict[str, np.ndarray] = {}
        for x in self._families:
            size = self.bn.cpts[x].size
            block = np.zeros((nu, size))
            where = cache.hidden_index[self._block[x]] - self._offset[x]
            block[np.arange(nu)[None, :], where] = marg[self._block[x]]
            out[x] = block.reshape(nu, *self.bn.cpts[x].shape)[cache.inverse]
        return out

    def hidden_marginals(
        self, evidence: np.ndarray, cpts: Mapping[str, np.ndarray] | None = None
    ) -> dict[str, np.ndarray]:
        """Per-sample posterior ``P(H | e_n)`` of every hidden node, shape ``(n, card(H))``."""
        flat = self._flat_cpts(cpts)
        cache = self._evidence(evidence)
        if not self._families:
            return {}
        marg, _ = self._posteriors(cache, flat)
        out: dict[str, np.ndarray] = {}
        for h in self.hidden_:
            f = self._families[h]
            table = marg[self._block[h]].reshape(*f.hidden_shape, -1)
            axes = tuple(i for i, v in enumerate(f.hidden) if v != h)
            out[h] = table.sum(axis=axes).T[cache.inverse]
        return out


# ---------------------------------------------------------------------------- numerics
def _strides(shape: Sequence[int]) -> np.ndarray:
    """C-order strides (in entries) of an array of ``shape``."""
    out = np.ones(len(shape), dtype=np.int64)
    for i in range(len(shape) - 2, -1, -1):
        out[i] = out[i + 1] * shape[i + 1]
    return out


def _product(factors: list[np.ndarray], shape: tuple[int, ...], nb: int) -> np.ndarray:
    """A fresh ``(*shape, nb)`` table: the broadcast product of ``factors`` (ones if none)."""
    table = np.empty((*shape, nb))
    if not factors:
        table.fill(1.0)
    elif len(factors) == 1:
        np.copyto(table, factors[0])
    else:
        np.multiply(factors[0], factors[1], out=table)
        for g in factors[2:]:
            table *= g
    return table


def _rescaled_product(
    factors: list[np.ndarray], shape: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_product` with each factor first divided by its per-sample maximum.

    Returns the product and the per-sample sum of the log-maxima (``-inf`` where a factor is all
    zero, in which case the product is zero too). Samples whose rescaled product still sums to
    less than ``_TINY`` (factors that favour different states can drive every entry to zero) are
    redone by :func:`_log_space_product`.
    """
    nb = factors[0].shape[-1]
    log_scale = np.zeros(nb)
    scaled = []
    for g in factors:
        m = g.reshape(-1, nb).max(axis=0)
        log_scale += _log(m)
        scaled.append(g * _reciprocal(m))
    table = _product(scaled, shape, nb)
    lost = (table.reshape(-1, nb).sum(axis=0) < _TINY) & np.isfinite(log_scale)
    if lost.any():
        idx = np.flatnonzero(lost)
        table[..., idx], log_scale[idx] = _log_space_product([g[..., idx] for g in factors], shape)
    return table, log_scale


def _log_space_product(
    factors: list[np.ndarray], shape: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_product` as a sum of logs with the per-sample maximum taken out before the exp.

    Returns the table (largest entry 1 per sample) and the per-sample log-maximum (``-inf`` where
    the product is all zero, and the table zero too). Slower and about ``1e-11`` less precise
    than a product, so only for the samples a product loses.
    """
    nb = factors[0].shape[-1]
    log_table = np.zeros((*shape, nb))
    for g in factors:
        log_table += _log(g)
    log_scale = log_table.reshape(-1, nb).max(axis=0)
    log_table -= np.where(np.isfinite(log_scale), log_scale, 0.0)
    return np.exp(log_table), log_scale


def _log(x: np.ndarray) -> np.ndarray:
    """``log(x)`` with ``log(0) = -inf`` and no warning."""
    with np.errstate(divide="ignore"):
        return np.log(x)


def _reciprocal(z: np.ndarray) -> np.ndarray:
    """``1 / z`` with ``1 / 0 = 0``: a row of zeros (an impossible sample) stays zero."""
    return np.divide(1.0, z, out=np.zeros_like(z), where=z > 0)
