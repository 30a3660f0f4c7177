"""High-level entry points for the TAN study: one spec (model + settings) -> one result row.

A *spec* is a plain dict, as a workflow rule would build from config::

    {"model": "tan_subset", "lam": 41.54, "gamma": 47.46, "eta": 10.0, "lr": 3e-3,
     "K": 8, "ordering": 0, "draw": 0}

Models (the rows of Table 1 of the paper, plus pseudo-TAN):

========================  =========================================================================
``nb_ml``                 naive Bayes, closed-form ML (add-one smoothing), no training
``chow_liu_ml``           Chow-Liu TAN (``mi_graph``, ``root``), closed-form ML
``nb``                    naive Bayes trained with the hybrid loss
``tan_random``            random TAN (``ordering``, ``draw``) trained with the hybrid loss
``chow_liu``              Chow-Liu TAN trained with the hybrid loss
``tan_subset``            differentiable TAN, ``K`` random earlier candidates (``ordering``, ``draw``)
``tan_all``               differentiable TAN, all earlier candidates (``ordering``)
``tan_heuristic``         differentiable TAN on images, ordering A/B/C, ``K`` nearest earlier pixels
``pseudo_tan``            differentiable pseudo-TAN, ``K`` random other features (``draw``)
========================  =========================================================================

Spec keys: ``lam`` (``0`` = generative loss), ``gamma``, ``eta`` (needed when ``lam > 0``),
``lr``; ``K``; ``ordering`` (an index into the authors' orderings, :func:`paper_feature_orderings`
0 = identity and 1..4 random; an explicit permutation; ``"chow_liu"`` for the breadth-first order of
the Chow-Liu tree from ``root``, the "recover Chow-Liu" experiment; for ``tan_heuristic`` a name
``"A"``, ``"A_bf"``, ``"B"``, ``"C"`` or the authors' index 0..3); ``draw`` (index of the authors'
random parent draw, :func:`paper_parent_permutations`, or of a pseudo-TAN draw); ``root``
(Chow-Liu root, default 0); ``pixel_order`` (default ``"F"``); ``init`` (``"uniform"`` or ``"ml"``).

References
----------
.. [1] W. Roth and F. Pernkopf, "Differentiable TAN Structure Learning for Bayesian Network
   Classifiers", PGM 2020, Sec. 4 and Table 1; code https://github.com/wroth8/bnc (``pgm-2020/``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence

import numpy as np
import torch

from bnstudy.classifiers.structures import (
    PAD,
    candidate_parents,
    chow_liu_parents,
    paper_feature_orderings,
    paper_parent_permutations,
    random_tan_parents,
)
from bnstudy.classifiers.training import TrainResult, train_batched, train_ml
from bnstudy.data.readers import ClassificationSplit
from bnstudy.studies.tan.names import ML_MODELS, MODELS

__all__ = ["MODELS", "resolve_structure", "run_tan_experiment", "run_tan_experiments"]

logger = logging.getLogger(__name__)

SPEC_KEYS = frozenset(
    {"model", "lam", "gamma", "eta", "lr", "K", "ordering", "draw", "root", "pixel_order", "init"}
)
#: Seed of the pseudo-TAN candidate draws (combined with the draw index); no authors' code exists.
PSEUDO_TAN_SEED = 20200827


@functools.lru_cache(maxsize=32)
def _paper_orderings(n_features: int) -> tuple[np.ndarray, ...]:
    return tuple(paper_feature_orderings(n_features))


@functools.lru_cache(maxsize=32)
def _paper_draws(n_features: int, n_draws: int) -> tuple[np.ndarray, ...]:
    return tuple(paper_parent_permutations(n_features, n_draws))


def _paper_draw(n_features: int, draw: object) -> np.ndarray:
    if isinstance(draw, bool) or not isinstance(draw, int | np.integer) or draw < 0:
        raise ValueError(f"draw must be an integer >= 0, got {draw!r}")
    n_draws = max(10, int(draw) + 1)
    return _paper_draws(n_features, n_draws)[int(draw)]


def _ordering(spec: Mapping, n_features: int, mi_graph: np.ndarray | None) -> np.ndarray:
    value = spec.get("ordering", 0)
    if isinstance(value, str):
        if value != "chow_liu":
            raise ValueError(
                f"unknown ordering name {value!r}; expected an index 0..4, a permutation or "
                "'chow_liu'"
            )
        _, order = chow_liu_parents(
            _check_mi(mi_graph, n_features), int(spec.get("root", 0)), return_ordering=True
        )
        return order
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        orderings = _paper_orderings(n_features)
        if not 0 <= int(value) < len(orderings):
            raise ValueError(f"ordering index {value!r} out of range 0..{len(orderings) - 1}")
        return orderings[int(value)]
    # an explicit permutation: integers only (a cast would truncate 1.2 to 1, and make True 1)
    items = value.tolist() if isinstance(value, np.ndarray) else value
    try:
        items = list(items)
    except TypeError:
        raise ValueError(
            f"ordering must be an index 0..4, a permutation or 'chow_liu', got {value!r}"
        ) from None
    bad = [
        v for v in items if isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer)
    ]
    if bad:
        raise ValueError(
            f"ordering {value!r} has non-integer value(s) {bad!r}: an explicit ordering is a "
            "permutation of the feature indices"
        )
    return np.asarray(items, dtype=np.int64)


def _check_mi(mi_graph: np.ndarray | None, n_features: int) -> np.ndarray:
    if mi_graph is None:
        raise ValueError("this model needs mi_graph (the conditional MI graph of the fold)")
    mi = np.asarray(mi_graph)
    if mi.shape != (n_features, n_features):
        raise ValueError(f"mi_graph must have shape ({n_features}, {n_features}), got {mi.shape}")
    return mi


def _require_k(spec: Mapping) -> int:
    if "K" not in spec:
        raise ValueError(f"model {spec['model']!r} needs K (number of candidate parents)")
    return spec["K"]


def resolve_structure(
    spec: Mapping,
    n_features: int,
    *,
    mi_graph: np.ndarray | None = None,
    image_shape: tuple[int, int] | None = None,
) -> tuple[str, np.ndarray]:
    """The fixed parents or candidate parents a spec asks for.

    Parameters
    ----------
    spec : mapping
        See the module docstring.
    n_features : int
    mi_graph : numpy.ndarray, optional
        Conditional MI graph (Chow-Liu models and the ``"chow_liu"`` ordering).
    image_shape : (int, int), optional
        Needed by ``tan_heuristic``.

    Returns
    -------
    kind : {"parents", "candidates"}
    structure : numpy.ndarray
        (D,) parents or (D, C) candidates.

    Raises
    ------
    ValueError
        Unknown model or key, missing ``K``/``mi_graph``/``image_shape``, bad ordering or draw.
    """
    model = spec.get("model")
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; expected one of {', '.join(MODELS)}")
    unknown = set(spec) - SPEC_KEYS
    if unknown:
        raise ValueError(f"spec has unknown key(s) {sorted(unknown)}; allowed: {sorted(SPEC_KEYS)}")
    D = int(n_features)
    if model in ("nb_ml", "nb"):
        return "parents", np.full(D, -1, dtype=np.int64)
    if model in ("chow_liu_ml", "chow_liu"):
        return "parents", chow_liu_parents(_check_mi(mi_graph, D), int(spec.get("root", 0)))
    if model == "tan_random":
        perms = _paper_draw(D, spec.get("draw", 0))
        order = _ordering(spec, D, mi_graph)
        return "parents", random_tan_parents(D, order, position_permutations=perms)
    if model == "tan_subset":
        K = _require_k(spec)
        perms = _paper_draw(D, spec.get("draw", 0))
        order = _ordering(spec, D, mi_graph)
        return "candidates", candidate_parents(
            "subset", D, K=K, ordering=order, position_permutations=perms
        )
    if model == "tan_all":
        return "candidates", candidate_parents("all", D, ordering=_ordering(spec, D, mi_graph))
    if model == "tan_heuristic":
        K = _require_k(spec)
        return "candidates", candidate_parents(
            "heuristic",
            D,
            K=K,
            ordering=spec.get("ordering", "A"),
            image_shape=image_shape,
            pixel_order=spec.get("pixel_order", "F"),
        )
    # pseudo_tan
    K = _require_k(spec)
    draw = spec.get("draw", 0)
    if isinstance(draw, bool) or not isinstance(draw, int | np.integer) or draw < 0:
        raise ValueError(f"draw must be an integer >= 0, got {draw!r}")
    rng = np.random.default_rng([PSEUDO_TAN_SEED, int(draw)])
    return "candidates", candidate_parents("pseudo", D, K=K, rng=rng)


def _hyper(spec: Mapping) -> dict:
    for key in ("lam", "lr"):
        if key not in spec:
            raise ValueError(f"model {spec['model']!r} is trained: spec needs {key!r}")
    if float(spec["lam"]) > 0:
        for key in ("gamma", "eta"):
            if key not in spec:
                raise ValueError(f"hybrid loss (lam > 0) needs {key!r} in the spec")
    return {
        "lam": float(spec["lam"]),
        "gamma": float(spec.get("gamma", 1.0)),
        "eta": float(spec.get("eta", 10.0)),
        "lr": float(spec["lr"]),
    }


def _check_fold(fold: ClassificationSplit, n_states: np.ndarray, n_classes: int) -> None:
    if fold.n_classes != n_classes:
        raise ValueError(f"fold has {fold.n_classes} classes but n_classes is {n_classes}")
    if np.asarray(n_states).shape != (fold.x_train.shape[1],):
        raise ValueError(
            f"n_states has shape {np.asarray(n_states).shape} but the fold has "
            f"{fold.x_train.shape[1]} features"
        )


def _row(result: TrainResult) -> dict:
    return {
        "test_error": result.test_error,
        "train_error": result.train_error,
        "parents": result.parents.tolist(),
        "candidates": result.candidates,
        "structure_logits": result.structure_logits,
        "seconds": result.seconds,
        "epochs": result.n_epochs,
        "history": result.history,
    }


def run_tan_experiment(
    spec: Mapping,
    fold: ClassificationSplit,
    n_states: np.ndarray,
    n_classes: int,
    *,
    mi_graph: np.ndarray | None = None,
    image_shape: tuple[int, int] | None = None,
    seed: int,
    device: str | torch.device = "cpu",
    n_epochs: int,
    batch_size: int,
    eval_every: int = 10,
    dtype: torch.dtype = torch.float32,
) -> dict:
    """Run one model of the TAN study on one fold.

    Parameters
    ----------
    spec : mapping
        ``model`` and its settings (see the module docstring).
    fold : ClassificationSplit
        Discretized train/test split (0-based int states).
    n_states : numpy.ndarray of int, shape (D,)
        States per feature for this fold.
    n_classes : int
        Must equal ``fold.n_classes``.
    mi_graph : numpy.ndarray, optional
        Conditional MI graph of the fold (Chow-Liu models).
    image_shape : (int, int), optional
        Image shape of the features (``tan_heuristic``).
    seed : int
        Seed of the training run (initialization, shuffling, Gumbel noise).
    device : str or torch.device, default "cpu"
    n_epochs, batch_size : int
        Training length and mini-batch size (ignored by the ML models).
    eval_every : int, default 10
        Test-error history interval.
    dtype : torch.dtype, default torch.float32

    Returns
    -------
    dict
        ``test_error`` and ``train_error`` (fractions), ``parents`` (list, ``-1`` = class only),
        ``candidates`` (the candidate parents searched, ``parents[:, None]`` for fixed
        structures), ``structure_logits`` (final ``Phi``, None for fixed structures),
        ``seconds``, ``epochs`` (0 for the ML models) and ``history`` (see
        :class:`~bnstudy.classifiers.TrainResult`).

    Raises
    ------
    ValueError
        Bad spec, mismatched class counts, data outside the declared states, labels out of range.

    References
    ----------
    Roth & Pernkopf (2020), Sec. 4.
    """
    return run_tan_experiments(
        [spec],
        fold,
        n_states,
        n_classes,
        mi_graph=mi_graph,
        image_shape=image_shape,
        seed=seed,
        device=device,
        n_epochs=n_epochs,
        batch_size=batch_size,
        eval_every=eval_every,
        dtype=dtype,
    )[0]


def run_tan_experiments(
    specs: Sequence[Mapping],
    fold: ClassificationSplit,
    n_states: np.ndarray,
    n_classes: int,
    *,
    mi_graph: np.ndarray | None = None,
    image_shape: tuple[int, int] | None = None,
    seed: int | Sequence[int],
    device: str | torch.device = "cpu",
    n_epochs: int,
    batch_size: int,
    eval_every: int = 10,
    dtype: torch.dtype = torch.float32,
    max_batch: int | None = None,
    max_elements: int | None = None,
) -> list[dict]:
    """Run many specs on one fold, training compatible ones together with :func:`train_batched`.

    Specs are grouped by structure kind (fixed or learned), number of candidates and ``init``,
    and learned structures also by ``lr``; each group is trained in chunks of at most
    ``max_batch`` settings and ``max_elements`` table entries. A learned structure's chunk shares
    one ``lr`` so that its tables use the fused Adam: its cost is the dense update of large
    tables, where two learning rates batched with the per-setting Adam are no faster than one
    after another, and slower on letter (0.6x to 1.0x). A fixed structure's step is mostly
    per-step overhead, so its learning rates train together
    (:class:`~bnstudy.classifiers.StackedAdam`; 1.6x to 1.9x for a pair on letter and satimage).
    Both from ``benchmarks/bench_tan_training.py --lr-pair --settings 2``. Every result equals
    :func:`run_tan_experiment` of that spec with the same seed (up to floating-point summation
    order); ``seconds`` is the chunk's wall time divided by its size.

    Parameters
    ----------
    specs : sequence of mapping
    fold, n_states, n_classes, mi_graph, image_shape, device, n_epochs, batch_size, eval_every, dtype
        As in :func:`run_tan_experiment`.
    seed : int or sequence of int
        One seed for all specs, or one per spec.
    max_batch : int, optional
        Largest number of settings trained at once. Default 16 on the CPU and 64 on a GPU, where
        TAN Subset (K = 8) trains about twice as many setting-epochs per second at 64 as at 16
        (letter 1.8x, mnist 2.1x on an H200 with the deterministic kernels:
        ``benchmarks/device_tan.sh``).
    max_elements : int, optional
        Largest total number of table entries (``theta``) of one chunk; Adam keeps three more
        tensors of that size. Default 2 M on the CPU (about 9 letter- or 8 satimage-sized TAN
        Subset settings, which train 1.2x (letter) to 1.7x (satimage) as many setting-epochs per CPU
        second together as one after another: ``benchmarks/bench_tan_training.py``), and 400 M on
        a GPU, where batching amortizes kernel launches.

    Returns
    -------
    list of dict
        One result per spec, in order (see :func:`run_tan_experiment`).
    """
    _check_fold(fold, n_states, n_classes)
    seeds = [int(seed)] * len(specs) if isinstance(seed, int | np.integer) else list(seed)
    if len(seeds) != len(specs):
        raise ValueError(f"need one seed per spec: {len(specs)} specs, {len(seeds)} seeds")
    n_states = np.asarray(n_states)
    D = n_states.size
    resolved = [resolve_structure(s, D, mi_graph=mi_graph, image_shape=image_shape) for s in specs]
    results: list[dict | None] = [None] * len(specs)
    groups: dict[tuple, list[int]] = {}
    for i, (spec, (kind, structure)) in enumerate(zip(specs, resolved, strict=True)):
        if spec["model"] in ML_MODELS:
            res = train_ml(
                fold.x_train,
                fold.y_train,
                fold.x_test,
                fold.y_test,
                n_states,
                n_classes,
                parents=structure,
                device=device,
                dtype=dtype,
            )
            results[i] = _row(res)
            continue
        hyper = _hyper(spec)
        width = 1 if kind == "parents" else structure.shape[1]
        # a learned structure's chunk shares one lr: the tables' Adam can use torch's fused
        # kernel (KerasAdam); a fixed structure's chunk mixes them (StackedAdam)
        lr = None if kind == "parents" else hyper["lr"]
        key = (kind, width, spec.get("init", "uniform"), lr)
        groups.setdefault(key, []).append(i)

    V = int(n_states.max())

    def flush(chunk: list[int], kind: str, init: str) -> None:
        settings = [{**_hyper(specs[i]), kind: resolved[i][1]} for i in chunk]
        out = train_batched(
            settings,
            fold.x_train,
            fold.y_train,
            fold.x_test,
            fold.y_test,
            n_states,
            n_classes,
            seeds=[seeds[i] for i in chunk],
            n_epochs=n_epochs,
            batch_size=batch_size,
            eval_every=eval_every,
            init=init,
            device=device,
            dtype=dtype,
        )
        for i, res in zip(chunk, out, strict=True):
            results[i] = _row(res)

    on_cpu = torch.device(device).type == "cpu"
    if max_batch is None:
        max_batch = 16 if on_cpu else 64
    if max_elements is None:
        max_elements = 2_000_000 if on_cpu else 400_000_000
    for (kind, _, init, _), members in groups.items():
        chunk: list[int] = []
        chunk_elements = 0
        for i in members:
            structure = resolved[i][1]
            cand = structure[:, None] if kind == "parents" else structure
            n_rows = np.where(cand >= 0, n_states[np.clip(cand, 0, None)], 1)[cand != PAD].sum()
            elements = int(n_rows) * V * n_classes
            if chunk and (len(chunk) >= max_batch or chunk_elements + elements > max_elements):
                flush(chunk, kind, init)
                chunk, chunk_elements = [], 0
            chunk.append(i)
            chunk_elements += elements
        if chunk:
            flush(chunk, kind, init)
    return [r for r in results if r is not None]
