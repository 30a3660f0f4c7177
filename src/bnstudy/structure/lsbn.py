"""LSBN: divide-and-conquer structure learning with model averaging (Algorithms 1-3 of the paper).

Pipeline, following the paper's algorithms:

1. **Partition (Algorithm 1, ROPART).** :func:`bnstudy.structure.ropart.ropart` weights the
   complete graph with every weight function, prunes each at its elbow threshold, partitions each
   with LinkComm and returns the second-order partition ``P_sec``: overlapping communities that
   cover every node.
2. **Markov blankets (Algorithm 2, step 1).** IAMB (:func:`bnstudy.structure.iamb.markov_blankets`)
   on the candidates ``MB_cand(X) = {Y : w_XY >= mean_Y w_XY}`` of the ``mb_weight`` graph (MI by
   default). The blanket relation is symmetrised by OR (``X in MB(Y)`` or ``Y in MB(X)``), which
   is also the paper's inner Markov graph ``G_IM``.
3. **Sub-community sampling (Algorithm 2, step 2; modified Random Node Neighbour).** For a
   community ``C``: while some node of ``C`` is unvisited, pick one uniformly at random, take it
   with its ``G_IM`` neighbours inside ``C`` as ``S``; the sub-community is ``S u MB(S)``. While it
   exceeds ``max_size``, drop the neighbour of ``S`` weakest to the start node (the paper:
   "keep removing neighbors within S until acceptable size"); if the start node and its own
   blanket still exceed it, keep the blanket members of largest weight. The nodes of ``S`` are
   marked visited. Every community is thereby extended by its members' Markov blankets.
4. **LocalLearn (Algorithm 2, step 3).** On each sub-community's columns: order-MCMC model
   averaging (``local_learner="model_averaging"``, undirected edge feature
   ``P(u -> v) + P(v -> u) > T_avg``) or, for the paper's "LSBN-wrapped" baselines, ARACNE, PC,
   greedy hill climbing or MMHC. A sub-community's structure decides the pairs with an end in
   its core ``S`` only: those nodes have their Markov blankets inside it, while two blanket
   members may depend through nodes outside it (their edge would be spurious). The paper does not
   say which pairs a sub-community decides; with PC on link (20000 rows) deciding all of them
   gave 739 additional edges (precision 0.44), deciding the core's pairs about 170 (0.77;
   global PC 0.96).
   The runs are independent: each draws from its own generator, derived from one seed and its
   node set, so with ``n_jobs > 1`` they run side by side in worker processes, with the same
   result as one after another.
5. **Conflict resolution (Algorithm 2, step 4) and mergence (Algorithm 3).** Two structures are
   merged by taking every pair decided by one of them alone as that one decides it, and every pair
   both decide on which they agree. A pair on which they disagree is a *conflict*. Following the
   paper, the candidate triplets are the triangles ``(u, v, z)`` of the union of both structures
   whose three edges have weight above ``triplet_threshold`` and that contain a conflicting pair;
   their edges form an unweighted graph, LinkComm clusters it, and each cluster's columns are
   re-learned with the LocalLearn method, which decides the conflicting pairs inside the cluster
   (a cluster larger than ``max_size``, the sub-community cap, is not: its pairs go on to the
   next step).
   A conflicting pair in no candidate triplet (the paper does not say what happens to it) is
   decided by the LocalLearn runs that had both its nodes (``conflict_fallback="vote"``, the
   default): the edge stays if most of them found it, a tie goes to a pair whose weight exceeds
   the triplet threshold. With ``conflict_fallback="relearn"`` it is re-learned on
   ``{u, v} u MB(u) u MB(v)``, capped at ``max_size`` by weight (that run also decides every
   other such pair with both ends in the same node set); on link this re-learning is most of
   LSBN's run time.
   The sub-community structures of a community are merged this way into the community's
   structure (Algorithm 2, step 4), and the community structures are merged greedily, always the
   pair of largest Jaccard coefficient of node sets, the merged one going back into the pool
   (Algorithm 3). Jaccard coefficients are cached in a matrix: a merge removes two rows and adds
   one, the ``2 n (n - 1)`` cost of the paper.
6. **Orientation.** The paper evaluates skeletons. To return a DAG, every local result votes for
   the directions it learned (an undirected edge votes half each way; model averaging votes with
   its posteriors); the merged skeleton's edges are inserted in decreasing order of the vote
   margin, each in its preferred direction unless that closes a cycle, then reversed (one of the
   two directions is always acyclic).

References
----------
.. [1] LSBN: A Large-Scale Bayesian Structure Learning Framework for Model Averaging,
   Algorithms 1 (ROPART), 2 (learning per community: Markov blankets, sampling, LocalLearn,
   conflict resolution) and 3 (Mergence); Section V (LSBN-wrapped baselines).
.. [2] Tsamardinos, I., Aliferis, C. F., & Statnikov, A. (2003). Algorithms for large scale Markov
   blanket discovery. *FLAIRS*, 376-380 (IAMB).
.. [3] Friedman, N., & Koller, D. (2003). Being Bayesian about network structure. *Machine
   Learning*, 50(1-2), 95-125 (order MCMC).
.. [4] Ahn, Y.-Y., Bagrow, J. P., & Lehmann, S. (2010). Link communities reveal multiscale
   complexity in networks. *Nature*, 466, 761-764 (LinkComm).
"""

from __future__ import annotations

import concurrent.futures
import logging
import multiprocessing
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bnstudy.structure.aracne import aracne
from bnstudy.structure.citests import DiscreteData, as_discrete_data, check_alpha
from bnstudy.structure.counting import check_discrete_data
from bnstudy.structure.hill_climb import hill_climb
from bnstudy.structure.iamb import markov_blankets
from bnstudy.structure.linkcomm import link_communities
from bnstudy.structure.mmhc import mmhc
from bnstudy.structure.order_mcmc import MAX_VARIABLES, order_mcmc
from bnstudy.structure.pc import pc
from bnstudy.structure.ropart import RopartResult, ropart
from bnstudy.structure.weights import WEIGHT_FUNCTIONS
from bnstudy.utils import make_rng

__all__ = [
    "DEFAULTS",
    "GLOBAL_LEARNERS",
    "LOCAL_LEARNERS",
    "LSBNPrepared",
    "LSBNResult",
    "SETTINGS",
    "Piece",
    "check_settings",
    "jaccard",
    "learn_global",
    "learn_local",
    "lsbn",
    "merge_pieces",
    "merge_two",
    "core_piece",
    "orient",
    "prepare",
    "sample_subcommunities",
    "settings_from_config",
]

logger = logging.getLogger(__name__)

#: Learners LocalLearn may use; the four baselines also run globally.
LOCAL_LEARNERS = ("model_averaging", "aracne", "pc", "hill_climb", "mmhc")
GLOBAL_LEARNERS = ("aracne", "pc", "hill_climb", "mmhc")
#: How a conflicting pair in no candidate triplet is decided (the paper does not say).
CONFLICT_FALLBACKS = ("vote", "relearn")

#: Defaults of every setting (the paper's where it gives one, see the config for the rest).
DEFAULTS: dict[str, Any] = {
    # ROPART (Algorithm 1)
    "weight_functions": WEIGHT_FUNCTIONS,
    "bins": 100,
    "second_order_threshold": 0.5,
    # Markov blankets (Algorithm 2, step 1)
    "mb_weight": "MI",
    "mb_alpha": 0.05,
    # sampling (Algorithm 2, step 2)
    "max_size": 25,
    # conflict resolution: None = the elbow threshold of the mb_weight graph
    "triplet_threshold": None,
    # conflicts in no candidate triplet: "vote" (the local runs that saw the pair) or "relearn"
    "conflict_fallback": "vote",
    # LocalLearn settings
    "alpha_pc": 0.01,
    "alpha_mmhc": 0.05,
    "ess": 10.0,
    "tau": 0.0,
    "max_cond_vars": 3,
    "max_indegree": None,
    "t_avg": 0.5,
    "max_parents": 3,
    "mcmc_steps": 2000,
    "mcmc_burn_in": 500,
    "mcmc_thin": 10,
}
#: Names of the LSBN settings, the keys of :data:`DEFAULTS`: the one list the workflow takes them
#: from (:func:`settings_from_config`).
SETTINGS: tuple[str, ...] = tuple(DEFAULTS)


def settings_from_config(section: Mapping[str, Any]) -> dict[str, Any]:
    """The LSBN settings of a config section, whatever else the section holds.

    Parameters
    ----------
    section : mapping
        E.g. the ``lsbn`` section of the study's config: the settings among its keys (those of
        :data:`SETTINGS`) are taken, the others (networks, sample sizes, ...) left out; a setting
        it lacks keeps its default.

    Returns
    -------
    dict
        Keyword arguments for :func:`lsbn`, :func:`prepare` and :func:`learn_global`.

    Examples
    --------
    >>> settings_from_config({"networks": ["alarm"], "max_size": 15, "tau": 0.0})
    {'max_size': 15, 'tau': 0.0}
    """
    return {key: section[key] for key in SETTINGS if key in section}


@dataclass(frozen=True)
class Piece:
    """A learned structure over a node set: the unit that mergence combines.

    Attributes
    ----------
    nodes : numpy.ndarray of int64
        Sorted global node indices.
    edges : frozenset of (int, int)
        Undirected edges ``(u, v)`` with ``u < v``, global indices; all among the decided pairs.
    decided : frozenset of (int, int), optional
        The pairs ``(u, v)``, ``u < v``, the structure decides on (edge or no edge); ``None``:
        every pair of ``nodes``. A sub-community decides the pairs that touch its core ``S``,
        whose Markov blankets it contains; a pair of two blanket members may be separated only by
        nodes outside it, so the sub-community has no say on it.
    """

    nodes: np.ndarray
    edges: frozenset[tuple[int, int]]
    decided: frozenset[tuple[int, int]] | None = None

    def decided_pairs(self) -> frozenset[tuple[int, int]]:
        """The decided pairs, explicitly."""
        if self.decided is not None:
            return self.decided
        v = self.nodes.tolist()
        return frozenset((a, b) for i, a in enumerate(v) for b in v[i + 1 :])


def core_piece(nodes: np.ndarray, core: np.ndarray, edges: frozenset[tuple[int, int]]) -> Piece:
    """The piece of a sub-community: it decides the pairs with an end in ``core``."""
    nodes = np.sort(np.asarray(nodes, dtype=np.int64))
    in_core = set(np.asarray(core).tolist())
    v = nodes.tolist()
    decided = frozenset(
        (a, b) for i, a in enumerate(v) for b in v[i + 1 :] if a in in_core or b in in_core
    )
    return Piece(nodes, frozenset(edges & decided), decided)


@dataclass(frozen=True)
class LSBNResult:
    """Result of :func:`lsbn`.

    Attributes
    ----------
    adjacency : numpy.ndarray of bool, shape (p, p)
        The learned DAG, ``adjacency[u, v]`` for ``u -> v``.
    skeleton : numpy.ndarray of bool, shape (p, p)
        The merged undirected skeleton (symmetric); the one the paper evaluates.
    communities : list of list of int
        The second-order partition ``P_sec`` of ROPART.
    subcommunities : list of list of int
        Every sampled sub-community, in the order learned.
    n_conflicts : int
        Conflicting pairs met while merging.
    n_relearned : int
        Re-learning calls made to resolve them.
    n_local_calls : int
        LocalLearn runs, sub-communities and re-learning together; a node set met again reuses
        its first result.
    timings : dict of str to float
        Wall seconds per phase: ``ropart``, ``markov_blankets``, ``local_learn``, ``mergence``
        (conflict resolution included), ``orientation``, ``total``.
    ropart : RopartResult
        The partition, with its thresholds (Table I); over the non-constant columns only when
        some column is constant.
    """

    adjacency: np.ndarray
    skeleton: np.ndarray
    communities: list[list[int]]
    subcommunities: list[list[int]]
    n_conflicts: int
    n_relearned: int
    n_local_calls: int
    timings: dict[str, float]
    ropart: RopartResult = field(repr=False)


@dataclass(frozen=True)
class LSBNPrepared:
    """The learner-independent phases of LSBN on one dataset, to share between LocalLearns.

    Build it with :func:`prepare`; :func:`lsbn` accepts it (``prepared=``) and then runs only
    the sampling, LocalLearn and mergence.

    Attributes
    ----------
    columns : numpy.ndarray of int64
        The non-constant columns of the data, the ones ROPART and IAMB ran on.
    ropart : RopartResult
        Algorithm 1 on those columns.
    blankets : numpy.ndarray of bool, shape (k, k)
        The symmetrised IAMB blankets (the inner Markov graph) over those columns.
    timings : dict of str to float
        Seconds of ``ropart`` and ``markov_blankets``.
    """

    columns: np.ndarray
    ropart: RopartResult = field(repr=False)
    blankets: np.ndarray = field(repr=False)
    timings: dict[str, float]


def prepare(data: Any, **settings: Any) -> LSBNPrepared:
    """ROPART (Algorithm 1) and the Markov blankets (Algorithm 2, step 1) of a dataset.

    Both depend on the data and on the ROPART and IAMB settings only, not on LocalLearn, so the
    five LSBN variants of a dataset can share them.

    Parameters
    ----------
    data : array_like, shape (n_samples, n_variables)
    **settings
        As :func:`lsbn`; ``weight_functions``, ``bins``, ``second_order_threshold``,
        ``mb_weight`` and ``mb_alpha`` are used.

    Returns
    -------
    LSBNPrepared
    """
    x, cards, keep = _varying(data)
    return _prepare(x[:, keep], cards[keep], keep, check_settings("pc", settings))


def _prepare(
    x: np.ndarray, cards: np.ndarray, keep: np.ndarray, s: Mapping[str, Any]
) -> LSBNPrepared:
    """:func:`prepare` on validated data without constant columns (``keep``: their indices)."""
    d = as_discrete_data(x, cards)
    t0 = time.perf_counter()
    part = ropart(
        x,
        methods=s["weight_functions"],
        bins=int(s["bins"]),
        second_order_threshold=float(s["second_order_threshold"]),
    )
    t_ropart = time.perf_counter() - t0
    t0 = time.perf_counter()
    w = part.weights[s["mb_weight"]].astype(float).copy()
    np.fill_diagonal(w, np.nan)
    mb = markov_blankets(d, alpha=float(s["mb_alpha"]), weights=w)
    mb = mb | mb.T
    np.fill_diagonal(mb, False)
    timings = {"ropart": t_ropart, "markov_blankets": time.perf_counter() - t0}
    return LSBNPrepared(columns=keep, ropart=part, blankets=mb, timings=timings)


def check_settings(local_learner: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """Validate the learner name and the settings; return them merged over :data:`DEFAULTS`.

    Raises
    ------
    ValueError
        Naming an unknown learner, an unknown setting or a value out of range.
    """
    if local_learner not in LOCAL_LEARNERS:
        raise ValueError(
            f"unknown local_learner {local_learner!r}; expected one of {LOCAL_LEARNERS}"
        )
    unknown = sorted(set(settings) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown LSBN setting(s) {unknown}")
    s = {**DEFAULTS, **settings}
    for key in ("mb_alpha", "alpha_pc", "alpha_mmhc"):
        check_alpha(s[key], key)
    if not 0.0 <= float(s["t_avg"]) < 1.0:
        raise ValueError(f"t_avg {s['t_avg']!r} is out of range [0, 1)")
    if not 0.0 <= float(s["second_order_threshold"]) < 1.0:
        raise ValueError(
            f"second_order_threshold {s['second_order_threshold']!r} is out of range [0, 1)"
        )
    if s["conflict_fallback"] not in CONFLICT_FALLBACKS:
        raise ValueError(
            f"unknown conflict_fallback {s['conflict_fallback']!r}; expected one of "
            f"{CONFLICT_FALLBACKS}"
        )
    if s["triplet_threshold"] is not None and not np.isfinite(float(s["triplet_threshold"])):
        raise ValueError(f"triplet_threshold {s['triplet_threshold']!r} is not finite")
    if float(s["tau"]) < 0:
        raise ValueError(f"tau {s['tau']!r} is out of range [0, inf)")
    if float(s["ess"]) <= 0:
        raise ValueError(f"ess {s['ess']!r} is out of range (0, inf)")
    if not 2 <= int(s["max_size"]) or (
        local_learner == "model_averaging" and int(s["max_size"]) > MAX_VARIABLES
    ):
        raise ValueError(
            f"max_size {s['max_size']!r} is out of range [2, {MAX_VARIABLES}] "
            "(order MCMC's limit applies to model averaging)"
        )
    if int(s["max_parents"]) < 1:
        raise ValueError(f"max_parents {s['max_parents']!r} is out of range [1, inf)")
    steps, burn, thin = int(s["mcmc_steps"]), int(s["mcmc_burn_in"]), int(s["mcmc_thin"])
    if steps < 1 or not 0 <= burn < steps or thin < 1:
        raise ValueError(
            f"MCMC lengths out of range: mcmc_steps={steps}, mcmc_burn_in={burn}, mcmc_thin={thin}"
        )
    if s["mb_weight"] not in s["weight_functions"]:
        raise ValueError(f"mb_weight {s['mb_weight']!r} is not among weight_functions")
    return s


# LocalLearn ---------------------------------------------------------------------------------


def learn_local(
    data: DiscreteData,
    columns: Sequence[int],
    learner: str,
    settings: Mapping[str, Any],
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Learn the structure of ``columns`` with one learner (Algorithm 2, step 3).

    Returns
    -------
    skeleton : numpy.ndarray of bool, shape (k, k)
        Symmetric, over the positions of ``columns``.
    votes : numpy.ndarray of float, shape (k, k)
        Orientation evidence: 1 for a directed edge ``u -> v``, 1/2 each way for an undirected
        one, the edge posterior for model averaging.
    """
    cols = [int(c) for c in columns]
    s = settings
    if learner == "model_averaging":
        post = order_mcmc(
            data,
            rng=rng,
            columns=cols,
            max_parents=min(int(s["max_parents"]), len(cols) - 1),
            n_steps=int(s["mcmc_steps"]),
            burn_in=int(s["mcmc_burn_in"]),
            thin=int(s["mcmc_thin"]),
            ess=float(s["ess"]),
        ).edge_posteriors
        # undirected feature: an edge and its reverse are Markov equivalent, their mass adds up
        skel = (post + post.T) > float(s["t_avg"])
        np.fill_diagonal(skel, False)
        return skel, np.where(skel, post, 0.0)
    if learner == "aracne":
        adj = aracne(data, tau=float(s["tau"]), columns=cols)
    elif learner == "pc":
        adj = pc(data, alpha=float(s["alpha_pc"]), columns=cols, max_cond_vars=s["max_cond_vars"])
    elif learner == "hill_climb":
        adj = hill_climb(data, ess=float(s["ess"]), columns=cols, max_indegree=s["max_indegree"])
    elif learner == "mmhc":
        adj = mmhc(
            data,
            alpha=float(s["alpha_mmhc"]),
            ess=float(s["ess"]),
            columns=cols,
            max_cond_vars=s["max_cond_vars"],
            max_indegree=s["max_indegree"],
        )
    else:
        raise ValueError(f"unknown learner {learner!r}; expected one of {LOCAL_LEARNERS}")
    adj = np.asarray(adj, dtype=bool)
    votes = adj.astype(float)
    both = adj & adj.T
    votes[both] = 0.5
    return adj | adj.T, votes


def learn_global(
    data: Any, *, method: str, rng: np.random.Generator, **settings: Any
) -> tuple[np.ndarray, np.ndarray]:
    """A baseline on all variables at once (the paper's "global" columns).

    Parameters
    ----------
    data : array_like, shape (n_samples, n_variables)
        Integer state indices.
    method : {"aracne", "pc", "hill_climb", "mmhc"}
        The baseline ("global model averaging" is intractable and not offered, as in the paper).
    rng : numpy.random.Generator
        Unused by the deterministic baselines; kept for a uniform signature.
    **settings
        As :func:`lsbn` (the LocalLearn ones apply).

    Returns
    -------
    adjacency : numpy.ndarray of bool, shape (p, p)
        A DAG (undirected edges of ARACNE and PC oriented acyclically by :func:`orient`).
    skeleton : numpy.ndarray of bool, shape (p, p)
    """
    if method not in GLOBAL_LEARNERS:
        raise ValueError(f"unknown global method {method!r}; expected one of {GLOBAL_LEARNERS}")
    s = check_settings(method, settings)
    x, cards, keep = _varying(data)
    d = as_discrete_data(x[:, keep], cards[keep])
    skel, votes = learn_local(d, range(d.n_variables), method, s, rng)
    p = x.shape[1]
    return _embed(orient(skel, votes), keep, p), _embed(skel, keep, p)


def _varying(data: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated data, cardinalities and the columns that are not constant in this sample.

    A variable constant in the sample (rare states of large networks, small samples) carries no
    evidence of any edge: the learners run on the other columns, and it ends up without edges.
    """
    x, cards = check_discrete_data(data, allow_constant=True)
    keep = np.flatnonzero((x != x[:1]).any(axis=0))
    if keep.size < 2:
        raise ValueError(f"need at least 2 non-constant variables, got {keep.size}")
    return x, cards, keep


def _embed(adj: np.ndarray, keep: np.ndarray, p: int) -> np.ndarray:
    """A ``(k, k)`` matrix over the columns ``keep`` as a ``(p, p)`` matrix over all columns."""
    out = np.zeros((p, p), dtype=adj.dtype)
    out[np.ix_(keep, keep)] = adj
    return out


# Sampling -----------------------------------------------------------------------------------


def sample_subcommunities(
    community: Sequence[int],
    blankets: np.ndarray,
    weights: np.ndarray,
    *,
    max_size: int,
    rng: np.random.Generator,
    return_cores: bool = False,
) -> list[np.ndarray] | list[tuple[np.ndarray, np.ndarray]]:
    """Sub-communities of one community by the modified Random Node Neighbour (Alg. 2, step 2).

    Parameters
    ----------
    community : sequence of int
        The community ``C``.
    blankets : numpy.ndarray of bool, shape (p, p)
        Symmetric Markov-blanket relation (the inner Markov graph on all nodes).
    weights : numpy.ndarray of float, shape (p, p)
        Edge weights used to decide what to drop when a sub-community is too large.
    max_size : int
        Largest sub-community.
    rng : numpy.random.Generator
        Picks the unvisited start nodes.
    return_cores : bool, default False
        Also return each sub-community's core ``S`` (the nodes it marks visited).

    Returns
    -------
    list of numpy.ndarray of int64, or of (sub-community, core) pairs
        Sorted sub-communities; their cores cover ``C``, and together they cover ``C u MB(C)``
        except where a node's own Markov blanket exceeds ``max_size - 1``: its sub-community then
        holds only its ``max_size - 1`` strongest blanket members.
    """
    comm = np.unique(np.asarray(community, dtype=np.int64))
    w = np.nan_to_num(np.asarray(weights, dtype=float), nan=-np.inf)
    in_c = np.zeros(len(blankets), dtype=bool)
    in_c[comm] = True
    visited = np.zeros(len(blankets), dtype=bool)
    out = []
    while not visited[comm].all():
        unvisited = comm[~visited[comm]]
        start = int(unvisited[rng.integers(len(unvisited))])
        # S: the start node with its inner-Markov-graph neighbours in C, strongest first
        nbrs = np.flatnonzero(blankets[start] & in_c)
        nbrs = nbrs[np.argsort(-w[start, nbrs], kind="stable")]
        s_nodes = [start, *nbrs.tolist()]

        def grown(nodes: list[int]) -> np.ndarray:
            mask = np.zeros(len(blankets), dtype=bool)
            mask[nodes] = True
            mask |= blankets[nodes].any(axis=0)
            return np.flatnonzero(mask)

        sub = grown(s_nodes)
        # too large: drop the neighbours of S, weakest first, until it fits
        while len(sub) > max_size and len(s_nodes) > 1:
            s_nodes.pop()
            sub = grown(s_nodes)
        if (
            len(sub) > max_size
        ):  # the start node and its own blanket are too many: keep the strongest
            mb = np.flatnonzero(blankets[start])
            mb = mb[np.argsort(-w[start, mb], kind="stable")][: max_size - 1]
            sub = np.sort(np.append(mb, start))
        visited[s_nodes] = True
        sub = sub.astype(np.int64)
        out.append((sub, np.sort(np.asarray(s_nodes, dtype=np.int64))) if return_cores else sub)
    return out


# Conflict resolution and mergence -----------------------------------------------------------


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Jaccard coefficient ``|a n b| / |a u b|`` of two node sets."""
    inter = np.intersect1d(a, b, assume_unique=True).size
    return inter / (a.size + b.size - inter)


Relearn = Callable[[np.ndarray], frozenset[tuple[int, int]]]


def merge_two(
    a: Piece,
    b: Piece,
    *,
    strong: np.ndarray,
    relearn: Relearn,
    context: Callable[[int, int], np.ndarray],
    max_size: int | None = None,
    vote: Callable[[int, int], bool] | None = None,
    prefetch: Callable[[list[np.ndarray]], None] | None = None,
) -> tuple[Piece, int, int]:
    """Merge two structures, resolving their conflicts by triplet clustering (Alg. 2, step 4).

    Parameters
    ----------
    a, b : Piece
        The two structures.
    strong : numpy.ndarray of bool, shape (p, p)
        Pairs whose weight exceeds the triplet threshold.
    relearn : callable
        ``relearn(nodes)``: the edges LocalLearn finds on those nodes (global indices, ``u < v``).
    context : callable
        ``context(u, v)``: nodes to re-learn a conflicting pair in no candidate triplet on.
    max_size : int, optional
        Largest triplet cluster re-learned as a whole (LSBN: the sub-community cap); the
        conflicting pairs of a larger one are decided as those in no triplet.
    vote : callable, optional
        ``vote(u, v)``: the decision on a conflicting pair in no (small enough) candidate
        triplet. Default: re-learn it on ``context(u, v)``.
    prefetch : callable, optional
        ``prefetch(node_sets)``: called once, when there is something to re-learn, with every
        node set ``relearn`` is about to get, in order, before the first call (so the caller may
        learn them side by side). Which node sets are re-learned does not depend on what
        LocalLearn finds, only on the conflicts.

    Returns
    -------
    piece : Piece
        The merged structure over ``a.nodes u b.nodes``.
    n_conflicts, n_relearned : int
    """
    nodes = np.union1d(a.nodes, b.nodes)
    da, db = a.decided_pairs(), b.decided_pairs()
    conflicts = {e for e in a.edges ^ b.edges if e in da and e in db}
    decided_ab = da | db
    edges = set((a.edges | b.edges) - conflicts)
    if not conflicts:
        return Piece(nodes, frozenset(edges), decided_ab), 0, 0
    # the re-learning jobs: (nodes, the conflicting pairs their structure decides)
    jobs = _triplet_jobs(a.edges | b.edges, conflicts, strong, max_size)
    decided = set().union(*(inside for _, inside in jobs))
    rest = sorted(conflicts - decided)
    if vote is None:  # re-learn the pairs in no candidate triplet in their contexts
        jobs += _context_jobs(rest, context)
    if jobs and prefetch is not None:
        prefetch([job_nodes for job_nodes, _ in jobs])
    for job_nodes, inside in jobs:
        edges |= inside & relearn(job_nodes)
    if vote is not None:  # no candidate triplet: decided by the vote, after the re-learning
        edges |= {e for e in rest if vote(*e)}
    return Piece(nodes, frozenset(edges), decided_ab), len(conflicts), len(jobs)


_Job = tuple[np.ndarray, set[tuple[int, int]]]


def _triplet_jobs(
    union: frozenset[tuple[int, int]],
    conflicts: set[tuple[int, int]],
    strong: np.ndarray,
    max_size: int | None,
) -> list[_Job]:
    """The triplet clusters to re-learn, each with the conflicting pairs it decides.

    The candidate triplets are the strong triangles of ``union`` through a conflicting pair; their
    edges are clustered by LinkComm. A cluster decides the conflicting pairs inside it that no
    earlier cluster decided; one with none, or larger than ``max_size``, is not re-learned.
    """
    adj: dict[int, set[int]] = {}
    for u, v in union:
        if strong[u, v]:
            adj.setdefault(u, set()).add(v)
            adj.setdefault(v, set()).add(u)
    tri_edges: set[tuple[int, int]] = set()
    for u, v in sorted(conflicts):
        if not strong[u, v]:
            continue
        for z in sorted(adj.get(u, set()) & adj.get(v, set())):
            tri_edges |= {(u, v), (min(u, z), max(u, z)), (min(v, z), max(v, z))}
    if not tri_edges:
        return []
    tri = np.array(sorted(tri_edges), dtype=np.int64)
    lc = link_communities(len(strong), tri)
    jobs: list[_Job] = []
    decided: set[tuple[int, int]] = set()
    for label in np.unique(lc.edge_labels):
        cluster = np.unique(tri[lc.edge_labels == label])
        inside = {e for e in conflicts if e[0] in cluster and e[1] in cluster}
        inside -= decided
        if not inside or (max_size is not None and cluster.size > max_size):
            continue  # too large a cluster: its pairs are decided as those in no triplet
        jobs.append((cluster, inside))
        decided |= inside
    return jobs


def _context_jobs(
    rest: list[tuple[int, int]], context: Callable[[int, int], np.ndarray]
) -> list[_Job]:
    """Conflicting pairs re-learned in their contexts: a context decides the pair and every other
    pair of ``rest`` with both ends in it that no earlier context decided."""
    jobs: list[_Job] = []
    decided: set[tuple[int, int]] = set()
    for u, v in rest:
        if (u, v) in decided:
            continue
        ctx = context(u, v)
        members = set(ctx.tolist())
        inside = {e for e in rest if e[0] in members and e[1] in members} - decided
        jobs.append((ctx, inside))
        decided |= inside
    return jobs


def merge_pieces(
    pieces: Sequence[Piece],
    merge: Callable[[Piece, Piece], tuple[Piece, int, int]],
) -> tuple[Piece, int, int]:
    """Greedy mergence by largest Jaccard coefficient, with cached coefficients (Algorithm 3).

    Parameters
    ----------
    pieces : sequence of Piece
        The community pool (at least one).
    merge : callable
        Merges two pieces (e.g. :func:`merge_two` with its options bound).

    Returns
    -------
    piece : Piece
        The single remaining structure.
    n_conflicts, n_relearned : int
        Totals over all merges.
    """
    if not pieces:
        raise ValueError("merge_pieces needs at least one piece")
    pool: list[Piece | None] = list(pieces)
    n = len(pool)
    size = 2 * n - 1
    sim = np.full((size, size), -np.inf)
    # cache all pairwise coefficients once: C(n, 2) computations
    for i in range(n):
        for j in range(i + 1, n):
            sim[i, j] = jaccard(pool[i].nodes, pool[j].nodes)
    conflicts = relearned = 0
    for _ in range(n - 1):
        # the pair of largest Jaccard coefficient (first in row-major order on ties)
        flat = int(np.argmax(sim))
        i, j = divmod(flat, size)
        merged, c, r = merge(pool[i], pool[j])
        conflicts += c
        relearned += r
        pool[i] = pool[j] = None
        sim[[i, j], :] = -np.inf  # remove the two old rows and columns
        sim[:, [i, j]] = -np.inf
        k = len(pool)
        pool.append(merged)
        for m in range(k):  # add the new community's coefficients
            if pool[m] is not None:
                sim[m, k] = jaccard(pool[m].nodes, merged.nodes)
    return pool[-1], conflicts, relearned


# Orientation --------------------------------------------------------------------------------


def orient(skeleton: np.ndarray, votes: np.ndarray) -> np.ndarray:
    """Orient a skeleton into a DAG by the direction votes, never closing a cycle.

    Edges are inserted by decreasing vote margin ``|votes[u, v] - votes[v, u]|`` (ties: row-major
    order), each as ``u -> v`` when ``votes[u, v] >= votes[v, u]`` and ``u < v`` or
    ``votes[u, v] > votes[v, u]``, and reversed when that direction would close a cycle.

    Returns
    -------
    numpy.ndarray of bool, shape (p, p)
        A DAG whose skeleton is ``skeleton``.
    """
    skel = np.asarray(skeleton, dtype=bool)
    p = skel.shape[0]
    iu, ju = np.nonzero(np.triu(skel | skel.T, 1))
    margin = votes[iu, ju] - votes[ju, iu]
    order = np.argsort(-np.abs(margin), kind="stable")
    dag = np.zeros((p, p), dtype=bool)
    reach = np.eye(p, dtype=bool)  # reach[a, b]: a directed path a ~> b (or a == b)
    for e in order:
        u, v = (iu[e], ju[e]) if margin[e] >= 0 else (ju[e], iu[e])
        if reach[v, u]:  # u -> v would close a cycle; v -> u cannot
            u, v = v, u
        dag[u, v] = True
        # everything reaching u now reaches everything v reaches
        reach |= np.outer(reach[:, u], reach[v])
    return dag


# LSBN ---------------------------------------------------------------------------------------


def lsbn(
    data: Any,
    *,
    local_learner: str,
    rng: np.random.Generator,
    prepared: LSBNPrepared | None = None,
    n_jobs: int = 1,
    **settings: Any,
) -> LSBNResult:
    """Learn a Bayesian network structure with the LSBN framework (Algorithms 1-3).

    Parameters
    ----------
    data : array_like, shape (n_samples, n_variables)
        Non-negative integer state indices.
    local_learner : {"model_averaging", "aracne", "pc", "hill_climb", "mmhc"}
        LocalLearn: order-MCMC model averaging (the paper's LSBN) or a baseline (its
        "LSBN-wrapped" variants).
    rng : numpy.random.Generator
        Source of all randomness; the result is a deterministic function of the data, the
        settings and the generator's state. The sub-communities are sampled from it; then one
        draw gives the seed of the LocalLearn runs (order MCMC): the run on node set ``S`` gets
        its own generator, :func:`bnstudy.utils.make_rng` of that seed and ``S``, whatever the
        order in which the runs are made.
    prepared : LSBNPrepared, optional
        ROPART and the Markov blankets from :func:`prepare` on the same data and settings
        (computed here if not given). Its phase times are reported in ``timings`` and counted in
        ``timings["total"]``, as if computed anew.
    n_jobs : int, default 1
        Processes for the LocalLearn runs: the runs of all sub-communities, and those of one
        conflict resolution, are made side by side. The result is the same for every value; the
        timings are wall-clock times.
    **settings
        Overrides of :data:`DEFAULTS`: ``weight_functions``, ``bins``, ``second_order_threshold``
        (ROPART); ``mb_weight``, ``mb_alpha`` (IAMB); ``max_size`` (sub-community cap);
        ``triplet_threshold`` (candidate triplets; default the ``mb_weight`` elbow threshold);
        ``conflict_fallback`` (``"vote"`` or ``"relearn"``: conflicts in no triplet); ``alpha_pc``, ``alpha_mmhc``, ``ess``, ``tau``, ``max_cond_vars``, ``max_indegree``,
        ``t_avg``, ``max_parents``, ``mcmc_steps``, ``mcmc_burn_in``, ``mcmc_thin`` (LocalLearn).

    Returns
    -------
    LSBNResult

    Raises
    ------
    ValueError
        On invalid data, an unknown ``local_learner`` or setting, or a setting out of range
        (the message names it).

    References
    ----------
    .. [1] LSBN paper, Algorithms 1-3 and Section V.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 2000)
    >>> b = a ^ (rng.random(2000) < 0.1)
    >>> c = b ^ (rng.random(2000) < 0.1)
    >>> res = lsbn(np.column_stack([a, b, c]), local_learner="pc", rng=rng)
    >>> res.skeleton.astype(int).tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    s = check_settings(local_learner, settings)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or n_jobs < 1:
        raise ValueError(f"n_jobs {n_jobs!r} is not a positive integer")
    x, cards, keep = _varying(data)
    p_all = x.shape[1]
    if prepared is None:
        prepared = _prepare(x[:, keep], cards[keep], keep, s)
    elif not np.array_equal(prepared.columns, keep) or prepared.blankets.shape != (
        keep.size,
        keep.size,
    ):
        raise ValueError(
            "prepared does not match the data: it was computed on other non-constant columns"
        )
    res = _lsbn(x[:, keep], cards[keep], local_learner, s, rng, prepared, int(n_jobs))
    if keep.size == p_all:
        return res
    # constant columns: no edges, singleton communities; indices back to the full data
    constant = np.setdiff1d(np.arange(p_all), keep)
    return LSBNResult(
        adjacency=_embed(res.adjacency, keep, p_all),
        skeleton=_embed(res.skeleton, keep, p_all),
        communities=[keep[c].tolist() for c in res.communities] + [[int(v)] for v in constant],
        subcommunities=[keep[c].tolist() for c in res.subcommunities],
        n_conflicts=res.n_conflicts,
        n_relearned=res.n_relearned,
        n_local_calls=res.n_local_calls,
        timings=res.timings,
        ropart=res.ropart,
    )


class _LocalRuns:
    """The LocalLearn runs of one LSBN call, by node set, with the evidence they leave.

    Sub-communities, triplet clusters and conflict contexts repeat (overlapping communities, the
    same conflict met in several merges), and a repeat of the same columns would learn the same
    structure again: a node set met again reuses its first result.

    Calling the object with a node set returns the edges LocalLearn finds on it (global indices,
    ``u < v``), the ``relearn`` of :func:`merge_two`, and records the run's evidence. A run's
    result depends on its node set only (its generator comes from ``seed`` and the nodes), so
    :meth:`prefetch` may compute runs ahead, side by side in ``n_jobs`` processes: the evidence
    is still recorded in the order of the calls, and everything is the same for any ``n_jobs``.

    Use it as a context manager: leaving it shuts the worker processes down.

    Attributes
    ----------
    votes : numpy.ndarray of float, shape (p, p)
        Orientation evidence of every use of a result (a repeat votes again).
    seen, found : numpy.ndarray of int32, shape (p, p)
        How many distinct runs had both nodes of a pair, and how many of them found the edge.
    seconds : float
        Wall time spent learning.
    n_runs : int
        Distinct node sets learned.
    """

    def __init__(
        self,
        data: DiscreteData,
        learner: str,
        settings: Mapping[str, Any],
        seed: int,
        n_jobs: int = 1,
    ) -> None:
        p = data.n_variables
        self._task = (data, learner, settings, seed)
        self._n_jobs = n_jobs
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        # results computed ahead of their first call, and those already recorded
        self._ahead: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
        self._results: dict[bytes, tuple[frozenset[tuple[int, int]], np.ndarray]] = {}
        self.votes = np.zeros((p, p))
        self.seen = np.zeros((p, p), dtype=np.int32)
        self.found = np.zeros((p, p), dtype=np.int32)
        self.seconds = 0.0
        self.n_runs = 0

    def __enter__(self) -> _LocalRuns:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def __call__(self, nodes: np.ndarray) -> frozenset[tuple[int, int]]:
        nodes = np.sort(np.asarray(nodes, dtype=np.int64))
        if nodes.size < 2:
            return frozenset()
        key = nodes.tobytes()
        if key not in self._results:
            self._results[key] = self._record(nodes, key)
        edges, v = self._results[key]
        self.votes[np.ix_(nodes, nodes)] += v
        return edges

    def prefetch(self, node_sets: Sequence[np.ndarray]) -> None:
        """Compute the runs of the new node sets among ``node_sets`` now, side by side.

        Nothing is recorded until the node set is called. With ``n_jobs=1``, or fewer than two new
        node sets, nothing is done: they are learned when called.
        """
        new: dict[bytes, np.ndarray] = {}
        for nodes in node_sets:
            nodes = np.sort(np.asarray(nodes, dtype=np.int64))
            key = nodes.tobytes()
            if nodes.size >= 2 and key not in self._results and key not in self._ahead:
                new.setdefault(key, nodes)
        if self._n_jobs == 1 or len(new) < 2:
            return
        if self._pool is None:
            self._pool = _worker_pool(self._n_jobs, self._task)
        # the largest first, for an even load; each result goes back to its node set
        todo = sorted(new.values(), key=len, reverse=True)
        t = time.perf_counter()
        for nodes, result in zip(todo, self._pool.map(_learn_in_worker, todo), strict=True):
            self._ahead[nodes.tobytes()] = result
        self.seconds += time.perf_counter() - t

    def _record(
        self, nodes: np.ndarray, key: bytes
    ) -> tuple[frozenset[tuple[int, int]], np.ndarray]:
        """The run of a node set met for the first time (computed now unless ahead), recorded in
        ``seen`` and ``found``."""
        if key in self._ahead:
            skel, v = self._ahead.pop(key)
        else:
            t = time.perf_counter()
            skel, v = _learn_nodes(nodes, *self._task)
            self.seconds += time.perf_counter() - t
        self.n_runs += 1
        self.seen[np.ix_(nodes, nodes)] += 1
        self.found[np.ix_(nodes, nodes)] += skel
        iu, ju = np.nonzero(np.triu(skel, 1))
        return frozenset(zip(nodes[iu].tolist(), nodes[ju].tolist(), strict=True)), v


def _learn_nodes(
    nodes: np.ndarray, data: DiscreteData, learner: str, settings: Mapping[str, Any], seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`learn_local` on one node set, with a generator derived from ``seed`` and the nodes."""
    return learn_local(data, nodes, learner, settings, make_rng(seed, *nodes.tolist()))


# The LocalLearn task of the worker processes: (data, learner, settings, seed).
_WORKER_TASK: tuple[DiscreteData, str, Mapping[str, Any], int] | None = None


def _init_worker(task: tuple[DiscreteData, str, Mapping[str, Any], int]) -> None:
    global _WORKER_TASK
    _WORKER_TASK = task


def _learn_in_worker(nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    assert _WORKER_TASK is not None, "worker not initialised"
    return _learn_nodes(nodes, *_WORKER_TASK)


def _worker_pool(
    n_jobs: int, task: tuple[DiscreteData, str, Mapping[str, Any], int]
) -> concurrent.futures.ProcessPoolExecutor:
    """``n_jobs`` processes that run LocalLearn on node sets of one dataset.

    Forked where the platform allows it (the data is then shared, not copied), spawned elsewhere.
    """
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=n_jobs, mp_context=context, initializer=_init_worker, initargs=(task,)
    )


class _Mergence:
    """Conflict resolution and mergence (Algorithm 2, step 4; Algorithm 3) of one LSBN call.

    Parameters
    ----------
    runs : _LocalRuns
        LocalLearn, for re-learning triplet clusters and conflict contexts.
    blankets : numpy.ndarray of bool, shape (p, p)
        The inner Markov graph.
    weights : numpy.ndarray of float, shape (p, p)
        The ``mb_weight`` graph (NaN diagonal).
    threshold : float
        The triplet threshold: pairs of larger weight are *strong*.
    max_size : int
        The sub-community cap (largest triplet cluster or conflict context re-learned).
    fallback : {"vote", "relearn"}
        How a conflict in no candidate triplet is decided.

    Attributes
    ----------
    n_conflicts, n_relearned : int
        Totals over all merges so far.
    seconds : float
        Time spent merging, LocalLearn excluded.
    """

    def __init__(
        self,
        runs: _LocalRuns,
        blankets: np.ndarray,
        weights: np.ndarray,
        threshold: float,
        max_size: int,
        fallback: str,
    ) -> None:
        self._runs = runs
        self._blankets = blankets
        self._weights = np.nan_to_num(weights, nan=-np.inf)
        self._strong = self._weights > float(threshold)
        self._cap = max_size
        self._vote = self._majority if fallback == "vote" else None
        self.n_conflicts = self.n_relearned = 0
        self.seconds = 0.0

    def merge_all(self, pieces: Sequence[Piece]) -> Piece:
        """The pieces merged into one by :func:`merge_pieces`, counted and timed."""
        t = time.perf_counter()
        learning_before = self._runs.seconds
        whole, c, r = merge_pieces(pieces, self._merge)
        self.seconds += time.perf_counter() - t - (self._runs.seconds - learning_before)
        self.n_conflicts += c
        self.n_relearned += r
        return whole

    def _merge(self, a: Piece, b: Piece) -> tuple[Piece, int, int]:
        return merge_two(
            a,
            b,
            strong=self._strong,
            relearn=self._runs,
            context=self._context,
            max_size=self._cap,
            vote=self._vote,
            prefetch=self._runs.prefetch,
        )

    def _majority(self, u: int, v: int) -> bool:
        """A conflict in no candidate triplet: the edge stays if most runs that saw the pair found
        it; a tie goes to a strong pair (weight above the triplet threshold)."""
        found, seen = self._runs.found[u, v], self._runs.seen[u, v]
        return bool(2 * found > seen or (2 * found == seen and self._strong[u, v]))

    def _context(self, u: int, v: int) -> np.ndarray:
        """``{u, v}`` with the members of ``MB(u) u MB(v)`` of largest weight, within the cap."""
        wn = self._weights
        extra = np.flatnonzero(self._blankets[u] | self._blankets[v])
        extra = extra[(extra != u) & (extra != v)]
        extra = extra[np.argsort(-np.maximum(wn[u, extra], wn[v, extra]), kind="stable")]
        return np.sort(np.concatenate([[u, v], extra[: self._cap - 2]]))


def _skeleton(edges: frozenset[tuple[int, int]], p: int) -> np.ndarray:
    """The symmetric ``(p, p)`` adjacency of undirected edges."""
    skeleton = np.zeros((p, p), dtype=bool)
    if edges:
        e = np.array(sorted(edges), dtype=np.int64)
        skeleton[e[:, 0], e[:, 1]] = True
        skeleton |= skeleton.T
    return skeleton


def _lsbn(
    x: np.ndarray,
    cards: np.ndarray,
    local_learner: str,
    s: Mapping[str, Any],
    rng: np.random.Generator,
    prepared: LSBNPrepared,
    n_jobs: int,
) -> LSBNResult:
    """LSBN on validated data without constant columns (see :func:`lsbn`)."""
    d = as_discrete_data(x, cards)
    p = d.n_variables
    t_total = time.perf_counter()
    # Algorithm 1 (ROPART) and Algorithm 2, step 1 (IAMB on the mean-weight candidates,
    # symmetrised: the inner Markov graph), from :func:`prepare`
    part, mb = prepared.ropart, prepared.blankets
    timings = dict(prepared.timings)
    w = part.weights[s["mb_weight"]].astype(float).copy()
    np.fill_diagonal(w, np.nan)
    t_trip = s["triplet_threshold"]
    if t_trip is None:  # the mb_weight graph's own elbow threshold (Table I)
        t_trip = part.thresholds[s["mb_weight"]]
    cap = int(s["max_size"])

    # Algorithm 2, step 2: the sub-communities of every community, with their cores
    samples = [
        sample_subcommunities(comm, mb, w, max_size=cap, rng=rng, return_cores=True)
        for comm in part.second_order
    ]
    seed = int(rng.integers(2**63))  # the LocalLearn runs' generators derive from it
    with _LocalRuns(d, local_learner, s, seed, n_jobs) as runs:
        # Algorithm 2, step 3: LocalLearn on every sub-community (side by side when n_jobs > 1)
        runs.prefetch([sub for subs in samples for sub, _ in subs])
        mergence = _Mergence(runs, mb, w, float(t_trip), cap, s["conflict_fallback"])
        # Algorithm 2, step 4: each community's sub-community structures merged
        community_pieces = [
            mergence.merge_all([core_piece(sub, core, runs(sub)) for sub, core in subs])
            for subs in samples
        ]
        # Algorithm 3: mergence of the communities by largest Jaccard coefficient
        whole = mergence.merge_all(community_pieces)
    subcommunities = [sub.tolist() for subs in samples for sub, _ in subs]
    timings["local_learn"] = runs.seconds
    timings["mergence"] = mergence.seconds
    logger.info(
        "LSBN(%s): %d communities, %d sub-communities, %d conflicts, %d re-learned, "
        "%d LocalLearn runs, %d edges, %d process(es)",
        local_learner,
        len(part.second_order),
        len(subcommunities),
        mergence.n_conflicts,
        mergence.n_relearned,
        runs.n_runs,
        len(whole.edges),
        n_jobs,
    )

    t0 = time.perf_counter()
    skeleton = _skeleton(whole.edges, p)
    dag = orient(skeleton, runs.votes)
    timings["orientation"] = time.perf_counter() - t0
    timings["total"] = time.perf_counter() - t_total + sum(prepared.timings.values())
    return LSBNResult(
        adjacency=dag,
        skeleton=skeleton,
        communities=[list(map(int, c)) for c in part.second_order],
        subcommunities=subcommunities,
        n_conflicts=mergence.n_conflicts,
        n_relearned=mergence.n_relearned,
        n_local_calls=runs.n_runs,
        timings=timings,
        ropart=part,
    )
