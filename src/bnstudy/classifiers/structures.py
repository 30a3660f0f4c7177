"""TAN structures and candidate-parent sets for Bayesian network classifiers (numpy).

A *parent vector* ``parents`` of length ``D`` gives, for every feature, its one augmenting feature
parent or ``-1`` when the class is its only parent (naive Bayes: all ``-1``). A *candidate array*
``candidates`` of shape ``(D, C)`` lists, per feature, the options that differentiable structure
learning chooses from: feature indices, ``-1`` for "class only" (always present, as in the
authors' code) and :data:`PAD` where a feature has fewer than ``C`` options.

All indices refer to the original feature columns of the data; a feature *ordering* is a
permutation of ``0..D-1`` and "earlier" means earlier in that ordering. Within a row, candidates
are listed in the order of their positions in the ordering, with "class only" last, like the
authors' ``augmenting_features`` lists (this fixes how ``argmax`` breaks ties, e.g. at ``Phi = 0``).

References
----------
.. [1] W. Roth and F. Pernkopf, "Differentiable TAN Structure Learning for Bayesian Network
   Classifiers", PGM 2020, PMLR 138:389-400, Sec. 3 (candidate sets ``{X_j | j < i}`` and random
   subsets of size ``K``) and Sec. 4 (heuristic orderings A, B, C and pseudo-TAN); code
   https://github.com/wroth8/bnc (``pgm-2020/``, commit 28cc0e1).
.. [2] N. Friedman, D. Geiger and M. Goldszmidt, "Bayesian Network Classifiers", *Machine
   Learning* 29:131-163, 1997 (TAN, Chow-Liu tree on I(Xi; Xj | C)).
.. [3] C. Chow and C. Liu, "Approximating discrete probability distributions with dependence
   trees", *IEEE Trans. Inf. Theory* 14(3):462-467, 1968.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence

import numpy as np

__all__ = [
    "CANDIDATE_KINDS",
    "HEURISTIC_ORDERINGS",
    "PAD",
    "candidate_parents",
    "check_tan_parents",
    "chow_liu_parents",
    "conditional_mutual_information",
    "heuristic_ordering",
    "is_valid_tan",
    "numpy119_argsort",
    "paper_feature_orderings",
    "paper_parent_permutations",
    "random_tan_parents",
    "structure_margin",
    "tan_weight",
]

logger = logging.getLogger(__name__)

#: Padding value in candidate arrays (``-1`` is the real "class only" option).
PAD = -2

#: Kinds accepted by :func:`candidate_parents`.
CANDIDATE_KINDS = ("subset", "all", "heuristic", "pseudo")

#: Heuristic image orderings by name; the authors' ``feature_configuration_idx`` 0..3 map to
#: ``"A"``, ``"A_bf"`` (row-wise back-and-forth, implemented but not reported), ``"B"``, ``"C"``.
HEURISTIC_ORDERINGS = ("A", "A_bf", "B", "C")

# The authors' numpy RandomState seed and the draws it discards before the feature permutations
# (experiment_tan_{random,subset,all}.py share this stream, so their orderings agree).
_PAPER_SEED = 265304870

RngLike = np.random.Generator | np.random.RandomState


def _check_ordering(ordering: Sequence[int] | np.ndarray | None, n_features: int) -> np.ndarray:
    if ordering is None:
        return np.arange(n_features, dtype=np.int64)
    order = np.asarray(ordering)
    if order.ndim != 1 or order.size != n_features or not np.issubdtype(order.dtype, np.integer):
        raise ValueError(
            f"ordering must be a permutation of 0..{n_features - 1}, got {np.asarray(ordering)!r}"
        )
    if not np.array_equal(np.sort(order), np.arange(n_features)):
        raise ValueError(f"ordering is not a permutation of 0..{n_features - 1}: {order.tolist()}")
    return order.astype(np.int64)


def _check_n_features(n_features: int) -> int:
    if int(n_features) != n_features or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    return int(n_features)


def _check_k(K: int | None) -> int:
    if K is None:
        raise ValueError("K (the number of candidate feature parents) is required for this kind")
    if int(K) != K or K < 1:
        raise ValueError(f"K must be an integer >= 1, got {K!r}")
    return int(K)


def conditional_mutual_information(
    x: np.ndarray, y: np.ndarray, n_states: Sequence[int] | np.ndarray, n_classes: int
) -> np.ndarray:
    """Empirical conditional mutual information ``I(Xi; Xj | C)`` (nats) of all feature pairs.

    ``sum_c p(c) sum_{a,b} p(a, b | c) log(p(a, b | c) / (p(a | c) p(b | c)))`` from counts,
    computed for all pairs at once as one one-hot Gram matrix per class (the authors'
    ``build_mutual_information_graph`` loops over pairs; same values).

    Parameters
    ----------
    x : numpy.ndarray of int, shape (n, D)
        0-based states.
    y : numpy.ndarray of int, shape (n,)
    n_states : array_like of int, shape (D,)
    n_classes : int

    Returns
    -------
    numpy.ndarray of float64, shape (D, D)
        Symmetric, zero diagonal (the edge weights of :func:`chow_liu_parents`).

    References
    ----------
    Friedman, Geiger & Goldszmidt (1997), Sec. 4.2, Eq. (conditional mutual information);
    ``datasets/compute_mutual_information_graph.py`` of https://github.com/wroth8/bnc.
    """
    x = np.asarray(x)
    y = np.asarray(y)
    n_states = np.asarray(n_states, dtype=np.int64)
    if x.ndim != 2 or x.shape[1] != n_states.size or y.shape != (x.shape[0],):
        raise ValueError(f"x must be (n, {n_states.size}) and y (n,), got {x.shape} and {y.shape}")
    if x.size and (np.any(x < 0) or np.any(x >= n_states)):
        d = int(np.flatnonzero(np.any((x < 0) | (x >= n_states), axis=0))[0])
        raise ValueError(f"feature {d} has values outside its {int(n_states[d])} declared states")
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"labels must lie in 0..{n_classes - 1}, got {y.min()}..{y.max()}")
    n, D = x.shape
    offsets = np.concatenate([[0], np.cumsum(n_states)[:-1]])
    M = int(n_states.sum())
    mi = np.zeros((M, M))
    for c in range(n_classes):
        xc = x[y == c]
        if xc.shape[0] == 0:
            continue
        onehot = np.zeros((xc.shape[0], M))
        onehot[np.arange(xc.shape[0])[:, None], xc + offsets] = 1.0
        joint = onehot.T @ onehot / xc.shape[0]  # p(a, b | c) in block (i, j)
        marg = np.diag(joint).copy()  # p(a | c)
        with np.errstate(divide="ignore", invalid="ignore"):
            term = joint * (np.log(joint) - np.log(marg)[:, None] - np.log(marg)[None, :])
        term[joint == 0] = 0.0
        mi += term * (xc.shape[0] / n)
    out = np.add.reduceat(np.add.reduceat(mi, offsets, axis=0), offsets, axis=1)
    out = np.maximum(out, 0.0)
    out[np.arange(D), np.arange(D)] = 0.0
    return (out + out.T) / 2


def chow_liu_parents(
    mi: np.ndarray, root: int = 0, *, return_ordering: bool = False
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Chow-Liu TAN: maximum spanning tree of I(Xi; Xj | C), directed away from ``root``.

    Kruskal's algorithm on the edges ``(i, j), j < i`` sorted by decreasing weight (stable sort,
    so ties go to the edge enumerated first, as in the authors' ``compute_chow_liu_structure``),
    then a breadth-first search from ``root`` directs every edge away from it.

    Parameters
    ----------
    mi : numpy.ndarray, shape (D, D)
        Symmetric edge weights, e.g. the conditional mutual information graph of
        :func:`bnstudy.data.readers.read_bnc_mi`; only the strictly lower triangle is read.
    root : int, default 0
        The feature without a feature parent (the authors use feature 0).
    return_ordering : bool, default False
        Also return the breadth-first order of the features. With that ordering the Chow-Liu tree
        lies in the search space of :func:`candidate_parents` ``("all", ...)`` (the authors'
        "recover Chow-Liu" experiment).

    Returns
    -------
    parents : numpy.ndarray of int64, shape (D,)
        Feature parent of each feature; ``-1`` for the root (class only).
    ordering : numpy.ndarray of int64, shape (D,)
        Only with ``return_ordering``.

    Raises
    ------
    ValueError
        If ``mi`` is not square, has non-finite entries or ``root`` is out of range.

    References
    ----------
    Friedman, Geiger & Goldszmidt (1997), Sec. 4.2 (Construct-TAN); Chow & Liu (1968).

    Examples
    --------
    >>> mi = np.array([[0, 5, 1], [5, 0, 2], [1, 2, 0]], dtype=float)
    >>> chow_liu_parents(mi, root=0).tolist()
    [-1, 0, 1]
    """
    mi = np.asarray(mi, dtype=np.float64)
    if mi.ndim != 2 or mi.shape[0] != mi.shape[1] or mi.shape[0] < 1:
        raise ValueError(f"mi must be a square (D, D) array, got shape {mi.shape}")
    n = mi.shape[0]
    if int(root) != root or not 0 <= root < n:
        raise ValueError(f"root must be a feature index in 0..{n - 1}, got {root!r}")
    rows, cols = np.tril_indices(n, -1)  # enumerates (i, j), j < i, in the authors' order
    weights = mi[rows, cols]
    if not np.all(np.isfinite(weights)):
        raise ValueError("mi has non-finite entries below the diagonal")
    order = np.argsort(-weights, kind="stable")
    component = np.arange(n)
    adjacency: list[list[int]] = [[] for _ in range(n)]
    n_edges = 0
    for e in order:
        a, b = int(rows[e]), int(cols[e])
        ca, cb = component[a], component[b]
        if ca != cb:
            component[component == cb] = ca
            adjacency[a].append(b)
            adjacency[b].append(a)
            n_edges += 1
            if n_edges == n - 1:
                break
    parents = np.full(n, -1, dtype=np.int64)
    visited = np.zeros(n, dtype=bool)
    visited[root] = True
    queue = deque([int(root)])
    bfs: list[int] = []
    while queue:
        node = queue.popleft()
        bfs.append(node)
        for child in sorted(adjacency[node]):
            if not visited[child]:
                visited[child] = True
                parents[child] = node
                queue.append(child)
    if return_ordering:
        return parents, np.asarray(bfs, dtype=np.int64)
    return parents


def tan_weight(mi: np.ndarray, parents: Sequence[int] | np.ndarray) -> float:
    """Total edge weight of a TAN: ``sum_i mi[i, parents[i]]`` over features with a feature parent.

    With ``mi`` the empirical conditional MI of the training rows, this is the part of the
    maximized log-likelihood per sample that depends on the structure (Friedman et al. 1997,
    Theorem 2), so the Chow-Liu tree (:func:`chow_liu_parents`) has the largest weight of all
    TANs and ``tan_weight(mi, learned) / tan_weight(mi, chow_liu)`` says how close a learned
    structure comes to it.

    Parameters
    ----------
    mi : numpy.ndarray, shape (D, D)
    parents : array_like of int, shape (D,)
        ``-1`` for class only.

    Returns
    -------
    float

    Examples
    --------
    >>> mi = np.array([[0, 5, 1], [5, 0, 2], [1, 2, 0]], dtype=float)
    >>> tan_weight(mi, [-1, 0, 1]), tan_weight(mi, [-1, 0, 0])
    (7.0, 6.0)
    """
    mi = np.asarray(mi, dtype=np.float64)
    pa = np.asarray(parents)
    if mi.ndim != 2 or mi.shape != (pa.size, pa.size) or pa.ndim != 1:
        raise ValueError(f"mi must be ({pa.size}, {pa.size}) for {pa.size} parents, got {mi.shape}")
    has = pa >= 0
    return float(mi[np.flatnonzero(has), pa[has]].sum())


def structure_margin(
    logits: np.ndarray, candidates: np.ndarray, target: Sequence[int] | np.ndarray
) -> float:
    """Smallest margin of learned structure logits in favour of a target structure.

    For every feature with more than one candidate, ``Phi[target] - max Phi[other candidates]``;
    the minimum over features is returned: ``> 0`` iff ``argmax Phi`` is the target everywhere
    (up to exact ties), and its size says how decisively.

    Parameters
    ----------
    logits : numpy.ndarray, shape (D, C)
        Structure logits ``Phi`` (``-inf`` or anything at :data:`PAD` positions).
    candidates : numpy.ndarray of int, shape (D, C)
        As from :func:`candidate_parents`.
    target : array_like of int, shape (D,)
        Must be among each feature's candidates.

    Returns
    -------
    float
        ``inf`` when no feature has a choice.
    """
    logits = np.asarray(logits, dtype=np.float64)
    cand = np.asarray(candidates)
    target = np.asarray(target)
    if logits.shape != cand.shape or cand.ndim != 2 or target.shape != (cand.shape[0],):
        raise ValueError(
            f"logits {logits.shape}, candidates {cand.shape} and target {target.shape} disagree"
        )
    margin = np.inf
    for d in range(cand.shape[0]):
        real = cand[d] != PAD
        if real.sum() < 2:
            continue
        hit = real & (cand[d] == target[d])
        if not hit.any():
            raise ValueError(f"target parent {target[d]} of feature {d} is not a candidate")
        margin = min(margin, logits[d][hit][0] - logits[d][real & ~hit].max())
    return float(margin)


def random_tan_parents(
    n_features: int,
    ordering: Sequence[int] | np.ndarray | None = None,
    rng: RngLike | None = None,
    *,
    position_permutations: np.ndarray | None = None,
) -> np.ndarray:
    """A random TAN: each feature's parent is a uniformly random earlier feature.

    The first feature of the ordering has only the class as parent. For the ``i``-th feature the
    parent is the feature at position ``perm_i[0]`` of ``rng.permutation(i)`` (a permutation is
    drawn for every ``i = 0..D-1``, as in the authors' code, so with their ``RandomState`` stream
    the draws coincide with theirs and with the first entries of :func:`candidate_parents`
    ``"subset"`` draws).

    Parameters
    ----------
    n_features : int
    ordering : array_like of int, optional
        Feature ordering (default identity).
    rng : numpy.random.Generator or numpy.random.RandomState, optional
        Source of the draws; required unless ``position_permutations`` is given.
    position_permutations : numpy.ndarray, shape (D, D), optional
        Row ``i`` holds a permutation of positions ``0..i-1`` in its first ``i`` entries (e.g. from
        :func:`paper_parent_permutations`); used instead of ``rng``.

    Returns
    -------
    numpy.ndarray of int64, shape (D,)

    References
    ----------
    Roth & Pernkopf (2020), Sec. 4 ("TAN Random"); ``experiment_tan_random.py``.
    """
    n = _check_n_features(n_features)
    order = _check_ordering(ordering, n)
    perms = _position_permutations(n, rng, position_permutations)
    parents = np.full(n, -1, dtype=np.int64)
    for i in range(1, n):
        parents[order[i]] = order[perms[i, 0]]
    return parents


def _position_permutations(
    n: int, rng: RngLike | None, position_permutations: np.ndarray | None
) -> np.ndarray:
    if position_permutations is not None:
        perms = np.asarray(position_permutations, dtype=np.int64)
        if perms.shape != (n, n):
            raise ValueError(f"position_permutations must have shape ({n}, {n}), got {perms.shape}")
        for i in range(n):
            if not np.array_equal(np.sort(perms[i, :i]), np.arange(i)):
                raise ValueError(
                    f"position_permutations row {i} is not a permutation of 0..{i - 1}"
                )
        return perms
    if rng is None:
        raise ValueError("rng (a numpy Generator or RandomState) is required for random draws")
    perms = np.full((n, n), -1, dtype=np.int64)
    for i in range(n):
        perms[i, :i] = rng.permutation(i)
    return perms


def paper_feature_orderings(n_features: int, n_orderings: int = 5) -> list[np.ndarray]:
    """The authors' feature orderings: the identity and ``n_orderings - 1`` random permutations.

    Regenerates the draws of ``experiment_tan_{random,subset,all}.py`` exactly with their legacy
    ``RandomState(265304870)`` stream (1,000 + 4,000 ``randint`` and 3 x 500 ``uniform`` draws are
    discarded first).

    Parameters
    ----------
    n_features : int
    n_orderings : int, default 5

    Returns
    -------
    list of numpy.ndarray of int64

    References
    ----------
    Roth & Pernkopf (2020), Sec. 4; https://github.com/wroth8/bnc ``pgm-2020/``.
    """
    orderings, _ = _paper_stream(_check_n_features(n_features), n_orderings, 0)
    return orderings


def paper_parent_permutations(n_features: int, n_draws: int = 10) -> list[np.ndarray]:
    """The authors' random parent draws (position permutations) for TAN Random and TAN Subset.

    Draw ``r`` is a ``(D, D)`` array whose row ``i`` holds a permutation of the positions
    ``0..i-1`` (padded with ``-1``). TAN Random draw ``r`` uses column 0; TAN Subset draw ``r``
    (``r < 5``) uses the first ``K`` columns; both index positions in the chosen ordering.

    Parameters
    ----------
    n_features : int
    n_draws : int, default 10
        The authors used 10 random TANs and 5 subset draws (the same stream, so the first 5 agree).

    Returns
    -------
    list of numpy.ndarray of int64, shape (D, D)
    """
    _, draws = _paper_stream(_check_n_features(n_features), 5, n_draws)
    return draws


def _paper_stream(
    n: int, n_orderings: int, n_draws: int
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    if n_orderings < 1 or n_orderings > 5:
        raise ValueError(
            f"the authors drew 1 + 4 orderings; n_orderings must be 1..5, got {n_orderings}"
        )
    rng = np.random.RandomState(_PAPER_SEED)
    rng.randint(1, 1e9, size=(1000,))
    rng.uniform(low=0.0, high=3.0, size=(500,))
    rng.uniform(low=-1.0, high=2.0, size=(500,))
    rng.uniform(low=1.0, high=20.0, size=(500,))
    rng.randint(1, 1e9, size=(4000,))
    orderings = [np.arange(n, dtype=np.int64)]
    for _ in range(4):  # always 4 draws, so the parent draws below start at the same state
        orderings.append(rng.permutation(n).astype(np.int64))
    draws = [_position_permutations(n, rng, None) for _ in range(n_draws)]
    return orderings[:n_orderings], draws


def _ravel_pixels(rows: list[int], cols: list[int], shape: tuple[int, int], pixel_order: str):
    return np.ravel_multi_index((np.asarray(rows), np.asarray(cols)), shape, order=pixel_order)


def heuristic_ordering(
    name: str | int, image_shape: tuple[int, int], pixel_order: str = "F"
) -> np.ndarray:
    """Heuristic pixel orderings A (row-wise), B (main diagonal) and C (centre outwards).

    Parameters
    ----------
    name : {"A", "A_bf", "B", "C"} or int
        ``"A"``: rows top to bottom, each left to right. ``"A_bf"``: rows alternately left to right
        and right to left (implemented by the authors, "performed similarly", not reported).
        ``"B"``: row-wise through the lower triangle including the diagonal, each pixel ``(r, c)``,
        ``c < r`` followed by its transpose ``(c, r)``. ``"C"``: from the centre outwards; around
        an ordered ``H x H`` centre, the ``H`` pixels above, the ``H`` below (left to right), the
        ``H`` to the left, the ``H`` to the right (top to bottom), then the four corners
        (left-above, right-above, left-below, right-below). Integers 0..3 are the authors'
        ``feature_configuration_idx`` (0 = A, 1 = A_bf, 2 = B, 3 = C).
    image_shape : (int, int)
        ``(height, width)``; B and C need a square image.
    pixel_order : {"F", "C"}, default "F"
        How the pixels are stored in the feature vector: ``"F"`` column-major (feature
        ``r + height * c`` is pixel ``(r, c)``, the storage of usps and mnist in the authors'
        data), ``"C"`` row-major. The authors' run scripts call their ordering function without
        the transpose correction, which equals ``pixel_order="C"`` on their column-major data
        (orderings traverse the transposed image; the Euclidean neighbour sets are the same).

    Returns
    -------
    numpy.ndarray of int64, shape (height * width,)
        Feature indices in the order visited.

    Raises
    ------
    ValueError
        Unknown ordering name, bad ``image_shape`` or ``pixel_order``, or B/C on a non-square
        image.

    References
    ----------
    Roth & Pernkopf (2020), Sec. 4 (orderings A, B, C); ``experiment_tan_heuristic.py``.
    """
    key = _ordering_name(name)
    if image_shape is None or len(image_shape) != 2 or min(image_shape) < 1:
        raise ValueError(f"image_shape must be (height, width), got {image_shape!r}")
    if pixel_order not in ("F", "C"):
        raise ValueError(f"pixel_order must be 'F' (column-major) or 'C', got {pixel_order!r}")
    height, width = (int(s) for s in image_shape)
    shape = (height, width)
    rows: list[int] = []
    cols: list[int] = []
    if key == "A":
        for r in range(height):
            rows += [r] * width
            cols += list(range(width))
    elif key == "A_bf":
        for r in range(height):
            rows += [r] * width
            cols += list(range(width)) if r % 2 == 0 else list(range(width - 1, -1, -1))
    else:
        if height != width:
            raise ValueError(
                f"ordering {key!r} needs a square image, got image_shape {image_shape}"
            )
        w = width
        if key == "B":
            for r in range(w):
                for c in range(r):
                    rows += [r, c]
                    cols += [c, r]
                rows.append(r)
                cols.append(r)
        else:  # "C": centre outwards
            if w % 2 == 0:
                lo, hi = w // 2 - 1, w // 2
            else:
                lo, hi = w // 2 - 1, w // 2 + 1
                rows.append(w // 2)
                cols.append(w // 2)
            for _ in range(w // 2):
                inner = list(range(lo + 1, hi))
                rows += [lo] * len(inner) + [hi] * len(inner) + inner + inner
                cols += inner + inner + [lo] * len(inner) + [hi] * len(inner)
                rows += [lo, lo, hi, hi]
                cols += [lo, hi, lo, hi]
                lo -= 1
                hi += 1
    order = _ravel_pixels(rows, cols, shape, pixel_order).astype(np.int64)
    if order.size != height * width or np.unique(order).size != order.size:  # pragma: no cover
        raise AssertionError(f"ordering {key!r} is not a permutation for image_shape {shape}")
    return order


def _ordering_name(name: str | int) -> str:
    if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
        if 0 <= int(name) < len(HEURISTIC_ORDERINGS):
            return HEURISTIC_ORDERINGS[int(name)]
        raise ValueError(
            f"unknown heuristic ordering index {name!r}; expected 0..{len(HEURISTIC_ORDERINGS) - 1}"
        )
    if isinstance(name, str) and name in HEURISTIC_ORDERINGS:
        return name
    raise ValueError(
        f"unknown heuristic ordering {name!r}; expected one of {', '.join(HEURISTIC_ORDERINGS)}"
    )


def _pixel_coordinates(image_shape: tuple[int, int], pixel_order: str) -> np.ndarray:
    """(D, 2) pixel (row, col) of every feature index."""
    height, width = image_shape
    r, c = np.unravel_index(np.arange(height * width), (height, width), order=pixel_order)
    return np.stack([r, c], axis=1).astype(np.float64)


#: Numpy 1.19's quicksort sorts runs of at most this many + 1 elements by insertion.
_SMALL_QUICKSORT = 15


def numpy119_argsort(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """The permutation ``numpy.argsort(values)`` returned under numpy 1.19, ties included.

    Numpy's default argsort (``kind="quicksort"``) is not stable: the order in which it leaves
    equal values is that of its algorithm. The authors choose the ``K`` nearest earlier pixels of
    TAN Heuristic with ``np.argsort(feature_dists)`` under numpy 1.19.1
    (``pgm-2020/environment.yml``), and pixel distances tie all the time (the four neighbours at
    1, the diagonals at 2, ...), so their candidate sets depend on how that version breaks ties.
    Newer numpy sorts float32 keys with SIMD sorts (AVX-512, AVX2) that break them otherwise, and
    ``kind="stable"`` keeps the earlier position, which gives other sets for most features past
    the 16th (for ``K = 1`` on 16x16 images, the pixel one row back instead of the one before).

    This is a port of ``aquicksort_<type>`` of numpy 1.19's ``npysort/quicksort.c.src``, which
    numpy still uses for keys it has no SIMD sort for (16-bit integers; a test compares them):
    median-of-three partitioning, the larger part pushed on a stack, runs of at most 16
    elements sorted by insertion. Its fallback to heapsort after ``2 log2(n)`` partitions of one
    run, which pixel distances never reach, is not ported: reaching it raises.

    Parameters
    ----------
    values : array_like of float, shape (n,)
        Keys without NaN.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)

    Raises
    ------
    RuntimeError
        Where numpy 1.19 would have switched to heapsort.

    Examples
    --------
    >>> numpy119_argsort([2.0, 1.0, 1.0]).tolist()
    [1, 2, 0]
    """
    v = np.asarray(values).tolist()
    n = len(v)
    idx = list(range(n))
    pl, pr = 0, n - 1
    stack: list[tuple[int, int, int]] = []
    depth = 2 * max(n.bit_length() - 1, 0)  # npy_get_msb(n) * 2
    while True:
        if depth < 0:
            raise RuntimeError(
                f"numpy 1.19's argsort of these {n} values would switch to heapsort, which "
                "numpy119_argsort does not reproduce"
            )
        while pr - pl > _SMALL_QUICKSORT:
            pm = pl + ((pr - pl) >> 1)
            if v[idx[pm]] < v[idx[pl]]:
                idx[pm], idx[pl] = idx[pl], idx[pm]
            if v[idx[pr]] < v[idx[pm]]:
                idx[pr], idx[pm] = idx[pm], idx[pr]
            if v[idx[pm]] < v[idx[pl]]:
                idx[pm], idx[pl] = idx[pl], idx[pm]
            pivot = v[idx[pm]]
            pi, pj = pl, pr - 1
            idx[pm], idx[pj] = idx[pj], idx[pm]
            while True:
                pi += 1
                while v[idx[pi]] < pivot:
                    pi += 1
                pj -= 1
                while pivot < v[idx[pj]]:
                    pj -= 1
                if pi >= pj:
                    break
                idx[pi], idx[pj] = idx[pj], idx[pi]
            idx[pi], idx[pr - 1] = idx[pr - 1], idx[pi]
            depth -= 1
            if pi - pl < pr - pi:  # push the larger part, go on with the smaller
                stack.append((pi + 1, pr, depth))
                pr = pi - 1
            else:
                stack.append((pl, pi - 1, depth))
                pl = pi + 1
        for pi in range(pl + 1, pr + 1):  # insertion sort of the run
            vi = idx[pi]
            key = v[vi]
            pj = pi
            while pj > pl and key < v[idx[pj - 1]]:
                idx[pj] = idx[pj - 1]
                pj -= 1
            idx[pj] = vi
        if not stack:
            return np.array(idx, dtype=np.int64)
        pl, pr, depth = stack.pop()


def _assemble(order: np.ndarray, chosen_positions: list[np.ndarray]) -> np.ndarray:
    """Rows of feature indices (positions sorted, then ``-1``) padded with :data:`PAD`."""
    n = order.size
    width = max(len(p) for p in chosen_positions) + 1
    cand = np.full((n, width), PAD, dtype=np.int64)
    for i, pos in enumerate(chosen_positions):
        feats = order[np.sort(pos)] if len(pos) else np.empty(0, dtype=np.int64)
        cand[order[i], : len(feats)] = feats
        cand[order[i], len(feats)] = -1
    return cand


def candidate_parents(
    kind: str,
    n_features: int,
    *,
    K: int | None = None,
    ordering: Sequence[int] | np.ndarray | str | int | None = None,
    rng: RngLike | None = None,
    image_shape: tuple[int, int] | None = None,
    pixel_order: str = "F",
    position_permutations: np.ndarray | None = None,
) -> np.ndarray:
    """Candidate parents per feature for differentiable TAN structure learning.

    Parameters
    ----------
    kind : {"subset", "all", "heuristic", "pseudo"}
        ``"subset"``: for the ``i``-th feature of the ordering (0-based) all earlier features if
        ``i <= K``, else the first ``K`` entries of a random permutation of the earlier positions.
        ``"all"``: all earlier features. ``"heuristic"``: ordering ``"A"``/``"B"``/``"C"`` of an
        image and, for ``i > K``, the ``K`` earlier pixels nearest in Euclidean distance (ties
        broken as the authors' ``np.argsort`` broke them, see :func:`numpy119_argsort`).
        ``"pseudo"``: ``K`` random other features regardless of any
        ordering (the learned graph may contain cycles).
    n_features : int
    K : int, optional
        Maximum number of candidate feature parents (required except for ``"all"``); the
        authors' ``max_augmenting_features`` is ``K + 1`` because it counts "class only" too.
    ordering : array_like of int, or str/int for ``"heuristic"``
        Feature ordering for ``"subset"``/``"all"`` (default identity); the ordering name or
        index for ``"heuristic"`` (see :func:`heuristic_ordering`). Ignored for ``"pseudo"``.
    rng : numpy.random.Generator or numpy.random.RandomState, optional
        Source of the random subsets (``"subset"``, ``"pseudo"``).
    image_shape : (int, int), optional
        Required for ``"heuristic"``.
    pixel_order : {"F", "C"}, default "F"
        Pixel storage order for ``"heuristic"`` (see :func:`heuristic_ordering`).
    position_permutations : numpy.ndarray, shape (D, D), optional
        Fixed permutations of earlier positions for ``"subset"`` instead of ``rng``, e.g. one of
        :func:`paper_parent_permutations`.

    Returns
    -------
    numpy.ndarray of int64, shape (D, C)
        Row ``d``: the candidate feature parents of feature ``d`` in ordering order, then ``-1``
        (class only), then :data:`PAD`. ``C`` is the largest number of options of any feature.

    Raises
    ------
    ValueError
        Unknown ``kind`` or ordering name, ``K < 1``, ``"heuristic"`` without ``image_shape`` or
        with ``image_shape`` not matching ``n_features``, bad ordering, missing ``rng``.

    References
    ----------
    Roth & Pernkopf (2020), Sec. 3 (parent subsets of size ``K``) and Sec. 4 (heuristic
    orderings, pseudo-TAN); ``experiment_tan_{subset,all,heuristic}.py``.

    Examples
    --------
    >>> candidate_parents("all", 3).tolist()
    [[-1, -2, -2], [0, -1, -2], [0, 1, -1]]
    """
    n = _check_n_features(n_features)
    if kind not in CANDIDATE_KINDS:
        raise ValueError(
            f"unknown candidate kind {kind!r}; expected one of {', '.join(CANDIDATE_KINDS)}"
        )
    if kind == "all":
        order = _check_ordering(ordering, n)
        return _assemble(order, [np.arange(i) for i in range(n)])
    k = _check_k(K)
    if kind == "subset":
        order = _check_ordering(ordering, n)
        perms = _position_permutations(n, rng, position_permutations)
        chosen = [np.arange(i) if i <= k else perms[i, :k] for i in range(n)]
        return _assemble(order, chosen)
    if kind == "heuristic":
        if image_shape is None:
            raise ValueError("kind 'heuristic' needs image_shape (height, width)")
        if int(np.prod(image_shape)) != n:
            raise ValueError(f"image_shape {tuple(image_shape)} does not match {n} features")
        if ordering is None:
            raise ValueError("kind 'heuristic' needs an ordering name: 'A', 'B' or 'C'")
        order = heuristic_ordering(ordering, tuple(image_shape), pixel_order)
        coords = _pixel_coordinates(tuple(image_shape), pixel_order)[order]
        chosen = []
        for i in range(n):
            if i <= k:
                chosen.append(np.arange(i))
            else:
                dist = np.sum((coords[:i] - coords[i]) ** 2, axis=1)
                chosen.append(numpy119_argsort(dist)[:k])
        return _assemble(order, chosen)
    # pseudo: K random other features, no ordering constraint (cycles possible)
    if rng is None:
        raise ValueError("kind 'pseudo' needs rng (a numpy Generator or RandomState)")
    width = min(k, n - 1) + 1
    cand = np.full((n, width), PAD, dtype=np.int64)
    for d in range(n):
        others = np.delete(np.arange(n), d)
        pick = np.sort(rng.permutation(others)[:k])
        cand[d, : pick.size] = pick
        cand[d, pick.size] = -1
    return cand


def check_tan_parents(
    parents: Sequence[int] | np.ndarray,
    n_features: int | None = None,
    *,
    name: str = "parents",
) -> np.ndarray:
    """Validate a TAN (or forest-augmented NB) parent vector; ValueError naming the problem.

    Parameters
    ----------
    parents : array_like of int, shape (D,)
        ``-1`` (class only) or the index of the feature's one feature parent.
    n_features : int, optional
        The number of features ``D`` it must have.
    name : str, default "parents"
        How to call the vector in error messages (e.g. ``"settings[2]: parents"``).

    Returns
    -------
    numpy.ndarray of int64, shape (D,)

    Raises
    ------
    ValueError
        If ``parents`` is not a 1-d integer vector (of length ``n_features``), has an entry below
        -1 or not below ``D``, a feature that is its own parent, or a directed cycle among the
        features (the message lists the cycle, e.g. ``0 -> 1 -> 0``): a cyclic structure is not a
        Bayesian network, and its product of conditionals is not a distribution.

    References
    ----------
    Friedman, Geiger & Goldszmidt (1997), Def. 4.1 (TAN); Roth & Pernkopf (2020), Eq. (4).
    """
    pa = np.asarray(parents)
    if pa.ndim != 1 or not (np.issubdtype(pa.dtype, np.integer) or pa.size == 0):
        raise ValueError(f"{name} must be a 1-d vector of integers, got {pa.dtype} {pa.shape}")
    n = pa.size
    if n_features is not None and n != int(n_features):
        raise ValueError(f"{name} must have one entry per feature ({n_features}), got {n}")
    pa = pa.astype(np.int64)
    bad = np.flatnonzero((pa < -1) | (pa >= n))
    if bad.size:
        d = int(bad[0])
        raise ValueError(
            f"{name}[{d}] = {pa[d]} is not a feature index in 0..{n - 1} or -1 (class only)"
        )
    loops = np.flatnonzero(pa == np.arange(n))
    if loops.size:
        raise ValueError(f"{name}[{int(loops[0])}]: feature {int(loops[0])} is its own parent")
    cycle = _parent_cycle(pa)
    if cycle:
        arrows = " -> ".join(str(d) for d in [*cycle, cycle[0]])
        raise ValueError(
            f"{name} contain a directed cycle ({arrows}, each feature's parent after it): a TAN "
            "gives every feature at most one feature parent without cycles"
        )
    return pa


def _parent_cycle(pa: np.ndarray) -> list[int]:
    """A directed cycle of a parent vector, as ``[d, pa[d], pa[pa[d]], ...]``; empty if acyclic."""
    n = pa.size
    state = np.zeros(n, dtype=np.int8)  # 0 unseen, 1 on the current path, 2 done
    for start in range(n):
        path = []
        node = start
        while node >= 0 and state[node] == 0:
            state[node] = 1
            path.append(node)
            node = int(pa[node])
        if node >= 0 and state[node] == 1:
            return path[path.index(node) :]
        state[path] = 2
    return []


def is_valid_tan(
    parents: Sequence[int] | np.ndarray, ordering: Sequence[int] | np.ndarray | None = None
) -> bool:
    """Whether ``parents`` is a TAN (or forest-augmented NB): at most one feature parent, acyclic.

    Parameters
    ----------
    parents : array_like of int, shape (D,)
        ``-1`` (class only) or a feature index other than the feature itself.
    ordering : array_like of int, optional
        If given, every feature parent must also come earlier in this ordering.

    Returns
    -------
    bool
        False for out-of-range entries, self-loops, cycles or (with ``ordering``) a parent that
        comes later. Every feature always has the class as a parent, so a valid parent vector is
        a directed forest over the features rooted under the class. :func:`check_tan_parents`
        says why a vector is not valid.

    References
    ----------
    Friedman, Geiger & Goldszmidt (1997), Def. 4.1 (TAN); Roth & Pernkopf (2020), Eq. (4).
    """
    pa = np.asarray(parents)
    if pa.ndim != 1 or not np.issubdtype(pa.dtype, np.integer):
        return False
    try:
        pa = check_tan_parents(pa)
    except ValueError:
        return False
    n = pa.size
    if ordering is not None:
        try:
            order = _check_ordering(ordering, n)
        except ValueError:
            return False
        position = np.empty(n, dtype=np.int64)
        position[order] = np.arange(n)
        has = pa >= 0
        if np.any(position[pa[has]] >= position[np.flatnonzero(has)]):
            return False
    return True
