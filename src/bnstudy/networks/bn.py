"""A discrete Bayesian network with numpy conditional probability tables.

The class is a plain container with validation: a DAG over named discrete variables, one CPT per
node, and the state names of every variable. Readers (:mod:`bnstudy.networks.bif`,
:mod:`bnstudy.networks.hugin`), the forward sampler and every learner in the package exchange
networks in this form; :meth:`DiscreteBayesianNetwork.to_pgmpy` and
:meth:`DiscreteBayesianNetwork.from_pgmpy` convert to and from pgmpy.

CPT layout
----------
``cpts[X]`` has shape ``(*[card(P) for P in parents[X]], card(X))``: one axis per parent in the
order of ``parents[X]``, the child on the **last** axis, so ``cpts[X][i, j, :]`` is the distribution
of ``X`` given the first parent in state ``i`` and the second in state ``j``. Flattened in C order
this is exactly the Hugin ``data`` layout (first parent outermost, child innermost). pgmpy's
``TabularCPD`` stores the transpose of the reshaped table: ``values`` of shape
``(card(X), prod(parent cards))`` with the first parent varying slowest.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

if TYPE_CHECKING:  # pragma: no cover - typing only
    from pgmpy.models import DiscreteBayesianNetwork as PgmpyBN

__all__ = ["DiscreteBayesianNetwork", "NORMALIZATION_ATOL"]

logger = logging.getLogger(__name__)

#: Absolute tolerance on ``|sum(row) - 1|`` for every CPT row. The benchmark BIF files are written
#: with a few decimals each and sum to 1 within 1e-7 (alarm's worst row); 1e-6 accepts them as they
#: are while still catching real mistakes (a missing or duplicated entry is off by far more).
NORMALIZATION_ATOL = 1e-6


class DiscreteBayesianNetwork:
    """Discrete Bayesian network with numpy CPTs.

    Parameters
    ----------
    nodes : sequence of str
        The variables, in any order; they are stored in a topological order (see ``nodes``).
    parents : mapping of str to sequence of str
        ``parents[X]`` lists the parents of ``X`` in the order of the axes of ``cpts[X]``. Nodes
        missing from the mapping have no parents.
    cpts : mapping of str to numpy.ndarray
        ``cpts[X]`` has shape ``(*[card(P) for P in parents[X]], card(X))`` (child on the last axis);
        every row sums to 1 over the last axis within :data:`NORMALIZATION_ATOL`. The arrays are
        copied to C-contiguous float64.
    state_names : mapping of str to sequence of str
        The names of the states of each variable; their number is the variable's cardinality.
    name : str, default "network"
        A label for the network (file stem when read from a file).

    Attributes
    ----------
    nodes : list of str
        The variables in a topological order (parents before children). Among the nodes whose
        parents are all placed, the one that came first in the ``nodes`` argument goes first, so the
        order is deterministic and keeps the given order where the DAG allows.
    parents : dict of str to list of str
    cpts : dict of str to numpy.ndarray
    state_names : dict of str to list of str
    name : str

    Raises
    ------
    ValueError
        On duplicate or unknown nodes, a self-loop or a directed cycle (the message names the
        cycle), a CPT of the wrong shape, with negative or non-finite entries, or with a row that
        does not sum to 1 (the message names the node), or on empty or duplicate state names.

    Examples
    --------
    >>> import numpy as np
    >>> bn = DiscreteBayesianNetwork(
    ...     nodes=["B", "A"],
    ...     parents={"B": ["A"]},
    ...     cpts={"A": np.array([0.3, 0.7]), "B": np.array([[0.9, 0.1], [0.2, 0.8]])},
    ...     state_names={"A": ["a0", "a1"], "B": ["b0", "b1"]},
    ... )
    >>> bn.nodes
    ['A', 'B']
    >>> bn.n_free_parameters
    3
    """

    def __init__(
        self,
        nodes: Sequence[str],
        parents: Mapping[str, Sequence[str]],
        cpts: Mapping[str, np.ndarray],
        state_names: Mapping[str, Sequence[str]],
        name: str = "network",
    ) -> None:
        given = [str(v) for v in nodes]
        if len(set(given)) != len(given):
            dup = sorted({v for v in given if given.count(v) > 1})
            raise ValueError(f"duplicate node names: {dup}")
        node_set = set(given)
        unknown = sorted(set(parents) - node_set)
        if unknown:
            raise ValueError(f"parents given for unknown nodes: {unknown}")

        self.name = str(name)
        self.parents: dict[str, list[str]] = {}
        for v in given:
            ps = [str(p) for p in parents.get(v, ())]
            bad = [p for p in ps if p not in node_set]
            if bad:
                raise ValueError(f"node {v!r} has unknown parents {bad}")
            if v in ps:
                raise ValueError(f"node {v!r} is its own parent (self-loop)")
            if len(set(ps)) != len(ps):
                raise ValueError(f"node {v!r} lists a parent twice: {ps}")
            self.parents[v] = ps

        self.state_names: dict[str, list[str]] = {}
        for v in given:
            if v not in state_names:
                raise ValueError(f"no state names for node {v!r}")
            states = [str(s) for s in state_names[v]]
            if not states:
                raise ValueError(f"node {v!r} has no states")
            if len(set(states)) != len(states):
                raise ValueError(f"node {v!r} has duplicate state names: {states}")
            self.state_names[v] = states

        self.nodes: list[str] = _topological_order(given, self.parents)
        self.parents = {v: self.parents[v] for v in self.nodes}
        self.state_names = {v: self.state_names[v] for v in self.nodes}
        self._index = {v: i for i, v in enumerate(self.nodes)}
        self._children: dict[str, list[str]] = {v: [] for v in self.nodes}
        for v in self.nodes:
            for p in self.parents[v]:
                self._children[p].append(v)

        self.cpts: dict[str, np.ndarray] = {}
        for v in self.nodes:
            if v not in cpts:
                raise ValueError(f"no CPT for node {v!r}")
            self.cpts[v] = self._checked_cpt(v, cpts[v])

    # ------------------------------------------------------------------ validation
    def _checked_cpt(self, v: str, table: Any) -> np.ndarray:
        arr = np.ascontiguousarray(np.array(table, dtype=np.float64))
        shape = (*[len(self.state_names[p]) for p in self.parents[v]], len(self.state_names[v]))
        if arr.shape != shape:
            raise ValueError(
                f"CPT of node {v!r} has shape {arr.shape}, expected {shape} "
                f"(parents {self.parents[v]} first, the child on the last axis)"
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"CPT of node {v!r} has non-finite entries")
        if np.any(arr < 0):
            raise ValueError(f"CPT of node {v!r} has negative entries")
        dev = np.abs(arr.sum(axis=-1) - 1.0)
        if dev.size and dev.max() > NORMALIZATION_ATOL:
            worst = np.unravel_index(int(np.argmax(dev)), dev.shape)
            raise ValueError(
                f"CPT of node {v!r} is not normalised: the row at parent configuration "
                f"{tuple(int(i) for i in worst)} sums to {arr.sum(axis=-1)[worst]:.10g} "
                f"(tolerance {NORMALIZATION_ATOL:g})"
            )
        return arr

    # ------------------------------------------------------------------ structure
    @property
    def cardinality(self) -> dict[str, int]:
        """Number of states of every node, in topological order."""
        return {v: len(s) for v, s in self.state_names.items()}

    @property
    def edges(self) -> list[tuple[str, str]]:
        """Arcs ``(parent, child)``, children in topological order, parents in CPT-axis order."""
        return [(p, v) for v in self.nodes for p in self.parents[v]]

    def index(self, node: str) -> int:
        """Position of ``node`` in :attr:`nodes` (and column of :func:`forward_sample` output)."""
        try:
            return self._index[node]
        except KeyError:
            raise ValueError(f"unknown node {node!r} in network {self.name!r}") from None

    def children(self, node: str) -> list[str]:
        """Children of ``node``, in topological order."""
        self.index(node)
        return list(self._children[node])

    def markov_blanket(self, node: str) -> set[str]:
        """Parents, children and the children's other parents of ``node``.

        References
        ----------
        .. [1] J. Pearl, *Probabilistic Reasoning in Intelligent Systems*, Morgan Kaufmann, 1988,
           Sec. 3.3.1.
        """
        self.index(node)
        mb = set(self.parents[node]) | set(self._children[node])
        for c in self._children[node]:
            mb.update(self.parents[c])
        mb.discard(node)
        return mb

    # ------------------------------------------------------------------ size
    @property
    def n_cpt_parameters(self) -> int:
        """Total number of CPT entries, ``sum(cpt.size)`` (the "CPT" column of Reed & Mengshoel's Table 2)."""
        return int(sum(t.size for t in self.cpts.values()))

    @property
    def n_free_parameters(self) -> int:
        """Number of free parameters, ``sum((card(X) - 1) * prod(parent cards))``."""
        return int(sum((t.shape[-1] - 1) * (t.size // t.shape[-1]) for t in self.cpts.values()))

    def summary(self) -> dict[str, Any]:
        """Size statistics of the network, as reported in the papers' data tables.

        Returns
        -------
        dict
            ``name``, ``nodes``, ``arcs``, ``cpt_parameters`` (:attr:`n_cpt_parameters`),
            ``free_parameters`` (:attr:`n_free_parameters`), ``max_in_degree``, ``avg_degree``
            (``2 * arcs / nodes``) and ``avg_markov_blanket`` (mean Markov blanket size).
        """
        n = len(self.nodes)
        arcs = sum(len(ps) for ps in self.parents.values())
        return {
            "name": self.name,
            "nodes": n,
            "arcs": arcs,
            "cpt_parameters": self.n_cpt_parameters,
            "free_parameters": self.n_free_parameters,
            "max_in_degree": max((len(ps) for ps in self.parents.values()), default=0),
            "avg_degree": 2.0 * arcs / n if n else 0.0,
            "avg_markov_blanket": (
                float(np.mean([len(self.markov_blanket(v)) for v in self.nodes])) if n else 0.0
            ),
        }

    # ------------------------------------------------------------------ comparison
    def allclose(self, other: DiscreteBayesianNetwork, *, atol: float = 1e-9) -> bool:
        """Whether ``other`` has the same nodes, arcs, state names and CPTs (within ``atol``).

        Parent order may differ: ``other``'s CPTs are transposed to this network's parent order
        before comparing. Names and node order are ignored.
        """
        if set(self.nodes) != set(other.nodes):
            return False
        for v in self.nodes:
            if set(self.parents[v]) != set(other.parents[v]):
                return False
            if self.state_names[v] != other.state_names[v]:
                return False
            perm = [other.parents[v].index(p) for p in self.parents[v]]
            theirs = np.transpose(other.cpts[v], (*perm, len(perm)))
            if not np.allclose(self.cpts[v], theirs, rtol=0.0, atol=atol):
                return False
        return True

    def __repr__(self) -> str:
        arcs = sum(len(ps) for ps in self.parents.values())
        return f"DiscreteBayesianNetwork(name={self.name!r}, nodes={len(self.nodes)}, arcs={arcs})"

    # ------------------------------------------------------------------ interop
    def to_networkx(self) -> nx.DiGraph:
        """The DAG as a :class:`networkx.DiGraph`, nodes in topological order.

        Each node carries the attributes ``states`` (list of state names) and ``cardinality``.
        """
        g = nx.DiGraph(name=self.name)
        for v in self.nodes:
            g.add_node(v, states=list(self.state_names[v]), cardinality=len(self.state_names[v]))
        g.add_edges_from(self.edges)
        return g

    def to_pgmpy(self) -> PgmpyBN:
        """Convert to a :class:`pgmpy.models.DiscreteBayesianNetwork` with ``TabularCPD``\\ s.

        pgmpy's CPD ``values`` have shape ``(card(X), prod(parent cards))`` with ``evidence`` in
        the order of ``parents[X]`` and the first parent varying slowest, i.e. our table with the
        child axis moved to the front and the parent axes flattened in C order.
        """
        from pgmpy.factors.discrete import TabularCPD
        from pgmpy.models import DiscreteBayesianNetwork as PgmpyBN

        model = PgmpyBN()
        model.add_nodes_from(self.nodes)
        model.add_edges_from(self.edges)
        model.name = self.name
        cpds = []
        for v in self.nodes:
            ps = self.parents[v]
            card = len(self.state_names[v])
            values = np.moveaxis(self.cpts[v], -1, 0).reshape(card, -1)
            cpds.append(
                TabularCPD(
                    variable=v,
                    variable_card=card,
                    values=values,
                    evidence=list(ps) or None,
                    evidence_card=[len(self.state_names[p]) for p in ps] or None,
                    state_names={u: list(self.state_names[u]) for u in [v, *ps]},
                )
            )
        model.add_cpds(*cpds)
        return model

    @classmethod
    def from_pgmpy(cls, model: PgmpyBN, *, name: str | None = None) -> DiscreteBayesianNetwork:
        """Build from a pgmpy ``DiscreteBayesianNetwork`` whose nodes all have a ``TabularCPD``.

        Parent order is the CPD's evidence order. Node and state names are converted to ``str``
        (pgmpy uses integer states ``0..k-1`` when a CPD has no state names).

        Parameters
        ----------
        model : pgmpy.models.DiscreteBayesianNetwork
        name : str, optional
            Defaults to ``model.name`` (or ``"network"`` when that is empty).
        """
        nodes, parents, cpts, states = [], {}, {}, {}
        for v in model.nodes():
            cpd = model.get_cpds(v)
            if cpd is None:
                raise ValueError(f"pgmpy model has no CPD for node {v!r}")
            evidence = list(cpd.variables[1:])
            if set(evidence) != set(model.get_parents(v)):
                raise ValueError(
                    f"CPD of node {v!r} has evidence {evidence} but the graph has parents "
                    f"{list(model.get_parents(v))}"
                )
            values = np.asarray(cpd.values, dtype=np.float64)  # (card, *evidence cards)
            key = str(v)
            nodes.append(key)
            parents[key] = [str(p) for p in evidence]
            cpts[key] = np.moveaxis(values, 0, -1)
            for u in cpd.variables:
                states.setdefault(str(u), [str(s) for s in cpd.state_names[u]])
        return cls(
            nodes, parents, cpts, states, name=name or getattr(model, "name", None) or "network"
        )


def _topological_order(nodes: list[str], parents: Mapping[str, list[str]]) -> list[str]:
    """Kahn's algorithm; ties broken by position in ``nodes``. ValueError naming a cycle."""
    pos = {v: i for i, v in enumerate(nodes)}
    indeg = {v: len(parents[v]) for v in nodes}
    children: dict[str, list[str]] = {v: [] for v in nodes}
    for v in nodes:
        for p in parents[v]:
            children[p].append(v)
    ready = [pos[v] for v in nodes if indeg[v] == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        v = nodes[heapq.heappop(ready)]
        order.append(v)
        for c in children[v]:
            indeg[c] -= 1
            if indeg[c] == 0:
                heapq.heappush(ready, pos[c])
    if len(order) < len(nodes):
        remaining = {v for v in nodes if indeg[v] > 0}
        raise ValueError(
            f"the graph has a directed cycle: {' -> '.join(_find_cycle(remaining, parents))}"
        )
    return order


def _find_cycle(remaining: set[str], parents: Mapping[str, list[str]]) -> list[str]:
    """A directed cycle among ``remaining`` (every one of which has a parent in ``remaining``)."""
    # Walk backwards along parents inside `remaining`; a walk in a finite set must revisit a node.
    v = min(remaining)
    seen: dict[str, int] = {}
    path: list[str] = []
    while v not in seen:
        seen[v] = len(path)
        path.append(v)
        v = next(p for p in parents[v] if p in remaining)
    cycle = path[seen[v] :][::-1]  # reversed: parent -> child direction
    return [*cycle, cycle[0]]
