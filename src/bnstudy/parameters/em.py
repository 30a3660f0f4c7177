"""Expectation maximization for the CPTs of a known structure, with parameter sharing.

One EM iteration runs an exact E-step (expected family counts ``sum_n P(X, pa(X) | e_n)`` from a
batched junction tree, :class:`bnstudy.inference.junction_tree.JunctionTree`) and an M-step that
pools the expected counts over each sharing set, adds a pseudo-count and normalises, giving every
node of a set the same CPT (the "aggregate sufficient statistics" of Reed & Mengshoel 2014,
Sec. 4.2). Without sharing this is the traditional EM of Dempster, Laird & Rubin (1977) for
Bayesian networks (Lauritzen 1995). The stopping rule follows libDAI's ``EMAlg``, which the paper
used (see :class:`ExpectationMaximization`).

References
----------
.. [1] A. P. Dempster, N. M. Laird and D. B. Rubin, "Maximum likelihood from incomplete data via
   the EM algorithm", *J. R. Stat. Soc. B* 39(1):1-38, 1977.
.. [2] S. L. Lauritzen, "The EM algorithm for graphical association models with missing data",
   *Computational Statistics & Data Analysis* 19(2):191-201, 1995.
.. [3] E. Reed and O. J. Mengshoel, "Bayesian Network Parameter Learning using EM with Parameter
   Sharing", BMAW 2014, CEUR-WS Vol-1218, paper 5: Sec. 2.2 (EM), Sec. 4.1-4.2 (sharing EM),
   Sec. 5 (epsilon = 1e-3, t_min = 3, t_max = 100).
.. [4] J. M. Mooij, "libDAI: A free and open source C++ library for discrete approximate inference
   in graphical models", *JMLR* 11:2169-2173, 2010 (``EMAlg``, ``CondProbEstimation``).
"""

from __future__ import annotations

import logging
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bnstudy.metrics.parameters import CPTErrors
from bnstudy.networks.bn import NORMALIZATION_ATOL, DiscreteBayesianNetwork
from bnstudy.parameters.mle import check_data, cpts_from_counts
from bnstudy.parameters.sharing import validate_sharing
from bnstudy.stacking import ShapeGroups, sum_in_order

__all__ = ["ExpectationMaximization"]

logger = logging.getLogger(__name__)

_INITS = ("random", "random_shared", "uniform", "true")


class ExpectationMaximization:
    """EM parameter learning with parameter sharing and libDAI's stopping rule.

    Parameters
    ----------
    sharing : sequence of sequences of str, optional
        Sharing sets ``Y_i``: the nodes of each set share one CPT (same cardinality and parent
        cardinalities required). Nodes not mentioned are unshared; ``None`` or ``[[]]`` is no
        sharing. See :func:`bnstudy.parameters.sharing.validate_sharing`.
    tol : float, default 1e-3
        ``epsilon``: stop when the change of the log-likelihood between the last two iterations is
        ``<= tol`` (relative or absolute, see ``relative_tol``).
    min_iter : int, default 3
        ``t_min``: the stopping test is applied only once at least ``min_iter`` log-likelihoods are
        recorded (libDAI hard-codes 3). Must be >= 2.
    max_iter : int, default 100
        ``t_max``: at most this many iterations.
    pseudo_count : float, default 1.0
        Added to every (pooled) expected count before normalising, once per sharing set (libDAI's
        ``CondProbEstimation`` with ``pseudo_count = 1``, as in the paper's code). 0 gives
        maximum-likelihood EM.
    init : {"random", "random_shared", "uniform", "true"} or mapping, default "random"
        Starting CPTs. ``"random"``: every CPT row of every node drawn independently from the
        flat Dirichlet (uniform on the simplex) with ``rng``, node by node in ``bn.nodes`` order,
        as the paper's code randomizes every factor on its own: the nodes of a sharing set start
        apart, and the first M-step ties them. ``"random_shared"``: the same draws, one per
        sharing set (in the order of the sets' first nodes), so that a set starts from one
        common table, a point of the shared model; without sharing the two are one start, draw
        for draw. ``"uniform"``: uniform rows; ``"true"``: ``bn.cpts``; a mapping: explicit CPTs
        for every node (shapes of ``bn.cpts``, rows summing to 1). For ``"true"`` and a mapping,
        the nodes of a sharing set start from the mean of their tables.
    relative_tol : bool, default True
        ``True``: libDAI's test ``(ll_t - ll_{t-1}) / |ll_{t-1}| <= tol``; ``False``:
        ``ll_t - ll_{t-1} <= tol``.

    Attributes
    ----------
    init_cpts_ : dict of str to numpy.ndarray
        The starting CPTs ``theta^(0)`` (nodes of a sharing set have equal tables, but with
        ``init="random"``).
    cpts_ : dict of str to numpy.ndarray
        The final CPTs ``theta^(T)`` (after the last M-step), shapes as in ``bn.cpts``; nodes of a
        sharing set have equal (but separate) arrays.
    n_iter_ : int
        ``T``, the number of EM iterations run: E-step/M-step pairs, i.e. M-steps, so
        ``cpts_ = theta^(T)``. Equals libDAI's ``EMAlg::Iterations()`` and the paper's ``t'``; at
        least ``min(min_iter, max_iter)``, at most ``max_iter``.
    converged_ : bool
        Whether the tolerance test stopped the run (False: stopped at ``max_iter``).
    log_likelihood_ : float
        ``log P(data | theta^(T))`` of the returned parameters (observed-data log-likelihood,
        natural log). Computed by one extra E-step that is not counted in ``n_iter_``.
    log_likelihood_trace_ : list of float
        ``T + 1`` entries: entry ``t`` is ``log P(data | theta^(t))``, ``theta^(0)`` the start.
        The first ``T`` entries are what libDAI records (the log-likelihood of the parameters that
        go into each E-step) and what the stopping test uses; the last is ``log_likelihood_``.
        libDAI's reported final value is entry ``T - 1``.
    objective_trace_ : list of float
        ``T + 1`` entries: the objective that EM increases monotonically, the log-likelihood plus
        the log Dirichlet prior density up to a constant,
        ``log_likelihood_trace_[t] + pseudo_count * sum_sets sum_entries log theta^(t)`` (each
        sharing set counted once, by its first node's table). With ``pseudo_count = 0`` it equals
        the log-likelihood trace. A start whose shared nodes are apart (``init="random"`` with
        sharing) is not a point of the shared model, so the guarantee holds from ``theta^(1)``
        on: the first step may go down.
    error_trace_ : list of dict
        Only when ``true_cpts`` is given to :meth:`fit`: ``T + 1`` dicts, entry ``t`` the distances
        of ``theta^(t)`` from the true CPTs over all nodes, from
        :func:`bnstudy.metrics.parameters.cpt_errors` (``l1``, ``l2_global``, ``l2_per_cpt_sum``,
        ``l2_per_row_sum``).
    error_ : dict
        Only with ``true_cpts``: ``error_trace_[-1]``, the error of ``cpts_``.
    sharing_ : list of list of str
        The sharing partition used (singletons included).
    hidden_ : list of str
        The hidden nodes, in ``bn.nodes`` order.

    Notes
    -----
    **Stopping rule.** After iteration ``t`` (E-step on ``theta^(t-1)`` giving
    ``ll_{t-1} = log P(data | theta^(t-1))``, then the M-step giving ``theta^(t)``), the run stops when
    ``t >= max_iter``, or when at least ``min_iter`` log-likelihoods are recorded and
    ``(ll_{t-1} - ll_{t-2}) / |ll_{t-2}| <= tol``. This is libDAI's
    ``EMAlg::hasSatisfiedTermConditions`` (the rule of the paper's code; targets.md C.4), including
    its consequences: a decrease of the log-likelihood also stops the run (the change is negative),
    and with ``min_iter = 3`` at least three M-steps are made. Where ``ll_{t-2} == 0`` (libDAI
    would never stop) the absolute change is tested instead. The paper's text states
    ``|ll_t - ll_{t-1}| <= epsilon`` (Sec. 2.2, Sec. 5); ``relative_tol=False`` gives the absolute
    test (without the absolute value, so that a decrease stops the run as in libDAI).

    **Monotonicity.** EM increases the observed-data log-likelihood monotonically only for
    ``pseudo_count = 0`` (maximum likelihood). With a pseudo-count the M-step is a MAP step under a
    Dirichlet(``pseudo_count + 1``) prior on every (shared) CPT row, and what EM increases is
    the penalised objective recorded in ``objective_trace_``; the log-likelihood itself can dip
    slightly near convergence (which then stops the run, as in libDAI). Tests of monotonicity must
    therefore use ``pseudo_count=0`` with ``log_likelihood_trace_``, or ``objective_trace_``.

    **Differences from libDAI.** The random start draws each CPT row from a flat Dirichlet;
    libDAI's ``Factor::randomize`` fills the factor with uniform entries that are not normalised
    per row (which is why libDAI discards the first log-likelihood). As there, every node starts
    on its own and the shared nodes are tied from the first M-step on (``init="random_shared"``
    starts them tied instead; ``benchmarks/check_em_shared_start.py`` compares the two on
    Table 3). A row whose pooled count and
    pseudo-count are both 0 becomes uniform (libDAI raises). Rows of data impossible under the
    current parameters give ``ll = -inf`` (the engine logs a warning).

    Examples
    --------
    >>> import numpy as np
    >>> from bnstudy.networks import DiscreteBayesianNetwork, forward_sample
    >>> bn = DiscreteBayesianNetwork(["H", "A", "B"], {"A": ["H"], "B": ["H"]},
    ...     {"H": np.array([0.3, 0.7]), "A": np.array([[0.9, 0.1], [0.2, 0.8]]),
    ...      "B": np.array([[0.9, 0.1], [0.2, 0.8]])}, {v: ["0", "1"] for v in "HAB"})
    >>> data = forward_sample(bn, 200, rng=np.random.default_rng(0))
    >>> em = ExpectationMaximization(sharing=[["A", "B"]]).fit(
    ...     bn, data, hidden=["H"], rng=np.random.default_rng(1))
    >>> bool(np.array_equal(em.cpts_["A"], em.cpts_["B"]))
    True

    References
    ----------
    .. [1] Dempster, Laird & Rubin (1977), Sec. 1-3 (EM; monotone increase of the likelihood, and
       of the posterior for MAP estimation).
    .. [2] Reed & Mengshoel (2014), Sec. 2.2 (EM and its stopping rule), Sec. 4.2 (sharing EM:
       the M-step aggregates the sufficient statistics of the shared CPTs), Sec. 5 (settings).
    .. [3] Koller & Friedman, *Probabilistic Graphical Models*, MIT Press, 2009, Alg. 19.2
       (EM for Bayesian networks) and Sec. 17.5 (shared parameters).
    """

    def __init__(
        self,
        *,
        sharing: Sequence[Sequence[str]] | None = None,
        tol: float = 1e-3,
        min_iter: int = 3,
        max_iter: int = 100,
        pseudo_count: float = 1.0,
        init: str | Mapping[str, np.ndarray] = "random",
        relative_tol: bool = True,
    ) -> None:
        self.sharing = sharing
        self.tol = tol
        self.min_iter = min_iter
        self.max_iter = max_iter
        self.pseudo_count = pseudo_count
        self.init = init
        self.relative_tol = relative_tol

    # ------------------------------------------------------------------ fit
    def fit(
        self,
        bn: DiscreteBayesianNetwork,
        data: np.ndarray,
        hidden: Sequence[str],
        *,
        rng: np.random.Generator,
        true_cpts: Mapping[str, np.ndarray] | None = None,
        engine: Any = None,
    ) -> ExpectationMaximization:
        """Run EM from the configured start until the stopping rule holds.

        Parameters
        ----------
        bn : DiscreteBayesianNetwork
            Gives the structure and cardinalities. Its CPTs are not used unless ``init="true"``.
        data : array_like of int, shape (n, len(bn.nodes))
            Samples in ``bn.nodes`` column order. The columns of hidden nodes are ignored (they may
            hold anything, e.g. -1, or NaN in a float array).
        hidden : sequence of str
            The nodes hidden in every sample (possibly none; not all).
        rng : numpy.random.Generator
            Source of the random start (used only by ``init="random"``).
        true_cpts : mapping of str to numpy.ndarray, optional
            The generating CPTs; when given, ``error_trace_`` and ``error_`` are recorded.
        engine : object, optional
            A compiled E-step engine with ``hidden_``, ``observed_`` and
            ``expected_counts(evidence, cpts)`` (the interface of
            :class:`~bnstudy.inference.junction_tree.JunctionTree`), compiled for ``bn`` and
            ``hidden``; pass one to reuse it across trials. Default: ``JunctionTree(bn, hidden)``.

        Returns
        -------
        ExpectationMaximization
            ``self``, fitted.

        Raises
        ------
        ValueError
            On invalid hyperparameters; hidden nodes that are unknown, repeated, or all of the
            nodes; sharing sets that mix CPT shapes, name unknown nodes or repeat a node; data of
            the wrong shape, with no rows, or with a value outside an observed node's states (the
            message names the node and the value); an ``init`` mapping with a missing node, a wrong shape or
            unnormalised rows; an engine compiled for another hidden set.
        """
        self._check_hyperparameters()
        hidden_set = self._check_hidden(bn, hidden)
        self.hidden_ = [v for v in bn.nodes if v in hidden_set]
        observed = [v for v in bn.nodes if v not in hidden_set]
        self.sharing_ = validate_sharing(bn, self.sharing)
        arr = check_data(bn, data, columns=observed)
        if arr.shape[0] == 0:
            raise ValueError(
                f"EM on network {bn.name!r} got data with 0 rows (shape {arr.shape}): there is "
                "nothing to learn from; pass at least one sample"
            )
        errors = None
        if true_cpts is not None:
            # fail early (and name the node) rather than after the run
            errors = CPTErrors(true_cpts, bn.nodes)
            errors(bn.cpts)

        engine = self._engine(bn, engine)
        evidence = np.ascontiguousarray(arr[:, [bn.index(v) for v in engine.observed_]])

        theta = self._initial_cpts(bn, rng)
        self.init_cpts_ = {v: np.array(theta[v], copy=True) for v in bn.nodes}
        alpha = float(self.pseudo_count)
        ll_trace: list[float] = []
        obj_trace: list[float] = []
        err_trace: list[dict[str, float]] = []

        def record(ll: float, cpts: Mapping[str, np.ndarray]) -> None:
            ll_trace.append(ll)
            obj_trace.append(ll + self._log_prior(cpts, alpha))
            if errors is not None:
                err_trace.append(errors(cpts))

        converged = False
        n_iter = 0
        counts: dict[str, np.ndarray] = {}
        while True:
            # Sec. 2.2: the t-th E-step uses theta^(t-1) and yields ll(theta^(t-1)) ...
            counts, loglik = engine.expected_counts(evidence, theta)
            record(float(np.sum(loglik)), theta)
            # ... and the M-step (Sec. 4.2) pools the expected counts over each sharing set.
            theta = self._m_step(counts, alpha)
            n_iter += 1
            converged, change = self._stop(ll_trace)
            logger.debug(
                "EM iteration %d: ll(theta^(%d)) = %.6f, change = %s",
                n_iter,
                n_iter - 1,
                ll_trace[-1],
                "n/a" if change is None else f"{change:.3e}",
            )
            if converged or n_iter >= self.max_iter:
                break

        # One more E-step pass for the log-likelihood of the returned parameters theta^(T).
        _, loglik = engine.expected_counts(evidence, theta)
        record(float(np.sum(loglik)), theta)

        self.cpts_ = {v: np.array(theta[v], copy=True) for v in bn.nodes}
        self.n_iter_ = n_iter
        self.converged_ = bool(converged)
        self.log_likelihood_ = ll_trace[-1]
        self.log_likelihood_trace_ = ll_trace
        self.objective_trace_ = obj_trace
        if true_cpts is not None:
            self.error_trace_ = err_trace
            self.error_ = err_trace[-1]
        n_shared = sum(len(s) for s in self.sharing_ if len(s) > 1)
        logger.info(
            "EM on %r: %d samples, %d hidden, %d shared nodes in %d sets; %s after %d iterations, "
            "ll = %.4f%s",
            bn.name,
            arr.shape[0],
            len(self.hidden_),
            n_shared,
            sum(1 for s in self.sharing_ if len(s) > 1),
            "converged" if self.converged_ else "stopped at max_iter",
            self.n_iter_,
            self.log_likelihood_,
            "" if true_cpts is None else f", L1 error = {self.error_['l1']:.4f}",
        )
        return self

    def to_network(self, bn: DiscreteBayesianNetwork) -> DiscreteBayesianNetwork:
        """``bn``'s structure and state names with the learned CPTs ``cpts_``."""
        return DiscreteBayesianNetwork(
            bn.nodes, bn.parents, self.cpts_, bn.state_names, name=bn.name
        )

    # ------------------------------------------------------------------ steps
    def _m_step(self, counts: Mapping[str, np.ndarray], alpha: float) -> dict[str, np.ndarray]:
        """Pool counts over each sharing set, add the pseudo-count once, normalise, assign."""
        pooled = {}
        for group in self.sharing_:
            total = counts[group[0]]
            for v in group[1:]:
                total = total + counts[v]
            pooled[group[0]] = total
        tables = cpts_from_counts(pooled, alpha)  # all sets at once
        return {v: tables[group[0]] for group in self.sharing_ for v in group}

    def _stop(self, trace: Sequence[float]) -> tuple[bool, float | None]:
        """libDAI ``EMAlg::hasSatisfiedTermConditions`` on the recorded log-likelihoods."""
        if len(trace) < 2:
            return False, None
        current, previous = trace[-1], trace[-2]
        diff = current - previous
        if not np.isfinite(diff):
            # -inf -> finite is an increase; anything -> -inf or nan cannot be compared
            change = np.inf if np.isneginf(previous) and np.isfinite(current) else -np.inf
        elif self.relative_tol and previous != 0:
            change = diff / abs(previous)
        else:
            change = diff
        if change < 0:
            logger.debug("EM log-likelihood decreased from %.10g to %.10g", previous, current)
        return bool(len(trace) >= self.min_iter and change <= self.tol), float(change)

    def _log_prior(self, cpts: Mapping[str, np.ndarray], alpha: float) -> float:
        """``alpha * sum log theta`` over each sharing set's CPT once (log Dirichlet density + c)."""
        if alpha == 0:
            return 0.0
        groups = ShapeGroups({g[0]: np.shape(cpts[g[0]]) for g in self.sharing_})
        with np.errstate(divide="ignore"):
            sums = [np.log(t).reshape(len(t), -1).sum(axis=1) for t in groups.stack(cpts)]
        # each set's sum, added in set order
        return float(alpha * sum_in_order(groups.per_key(sums)))

    # ------------------------------------------------------------------ setup
    def _check_hyperparameters(self) -> None:
        if not isinstance(self.tol, numbers.Real) or not np.isfinite(self.tol) or self.tol < 0:
            raise ValueError(f"tol must be a finite number >= 0, got {self.tol!r}")
        if not isinstance(self.min_iter, numbers.Integral) or self.min_iter < 2:
            raise ValueError(f"min_iter must be an integer >= 2, got {self.min_iter!r}")
        if not isinstance(self.max_iter, numbers.Integral) or self.max_iter < 1:
            raise ValueError(f"max_iter must be an integer >= 1, got {self.max_iter!r}")
        pc = self.pseudo_count
        if not isinstance(pc, numbers.Real) or not np.isfinite(pc) or pc < 0:
            raise ValueError(f"pseudo_count must be a finite number >= 0, got {pc!r}")
        if isinstance(self.init, str) and self.init not in _INITS:
            raise ValueError(
                f"init must be one of {_INITS} or a mapping of CPTs, got {self.init!r}"
            )
        if not isinstance(self.init, str | Mapping):
            raise ValueError(
                f"init must be one of {_INITS} or a mapping of CPTs, got {self.init!r}"
            )

    @staticmethod
    def _check_hidden(bn: DiscreteBayesianNetwork, hidden: Sequence[str]) -> set[str]:
        if isinstance(hidden, str):
            raise ValueError(f"hidden must be a sequence of node names, got the string {hidden!r}")
        names = [str(v) for v in hidden]
        unknown = [v for v in names if v not in set(bn.nodes)]
        if unknown:
            raise ValueError(f"hidden names nodes not in network {bn.name!r}: {unknown}")
        dup = sorted({v for v in names if names.count(v) > 1})
        if dup:
            raise ValueError(f"hidden lists nodes more than once: {dup}")
        if len(names) == len(bn.nodes):
            raise ValueError(f"all {len(names)} nodes of network {bn.name!r} are hidden")
        return set(names)

    def _engine(self, bn: DiscreteBayesianNetwork, engine: Any) -> Any:
        if engine is None:
            from bnstudy.inference.junction_tree import JunctionTree

            return JunctionTree(bn, self.hidden_)
        if set(engine.hidden_) != set(self.hidden_):
            raise ValueError(
                f"the engine was compiled for hidden nodes {sorted(engine.hidden_)}, "
                f"not {sorted(self.hidden_)}"
            )
        return engine

    def _initial_cpts(
        self, bn: DiscreteBayesianNetwork, rng: np.random.Generator
    ) -> dict[str, np.ndarray]:
        """``theta^(0)``: one table per node (``"random"``), else one per sharing set, assigned to
        all of the set's nodes."""
        theta: dict[str, np.ndarray] = {}
        pos = {v: i for i, v in enumerate(bn.nodes)}
        init = self.init
        if isinstance(init, Mapping):
            given = self._check_init_mapping(bn, init)
        groups = [[v] for v in bn.nodes] if init == "random" else self.sharing_
        for group in sorted(groups, key=lambda g: min(pos[v] for v in g)):
            shape = bn.cpts[group[0]].shape
            if isinstance(init, Mapping) or init == "true":
                src = given if isinstance(init, Mapping) else bn.cpts
                table = np.mean([src[v] for v in group], axis=0)
            elif init == "uniform":
                table = np.full(shape, 1.0 / shape[-1])
            else:
                # flat Dirichlet per row: normalised i.i.d. standard exponentials
                e = rng.standard_exponential(shape)
                table = e / e.sum(axis=-1, keepdims=True)
            for v in group:
                theta[v] = table
        return theta

    @staticmethod
    def _check_init_mapping(
        bn: DiscreteBayesianNetwork, init: Mapping[str, np.ndarray]
    ) -> dict[str, np.ndarray]:
        out = {}
        for v in bn.nodes:
            if v not in init:
                raise ValueError(f"init gives no CPT for node {v!r}")
            t = np.asarray(init[v], dtype=np.float64)
            if t.shape != bn.cpts[v].shape:
                raise ValueError(
                    f"init CPT of node {v!r} has shape {t.shape}, expected {bn.cpts[v].shape}"
                )
            if not np.all(np.isfinite(t)) or np.any(t < 0):
                raise ValueError(f"init CPT of node {v!r} has negative or non-finite entries")
            if np.abs(t.sum(axis=-1) - 1.0).max() > NORMALIZATION_ATOL:
                raise ValueError(f"init CPT of node {v!r} has rows that do not sum to 1")
            out[v] = t
        return out
