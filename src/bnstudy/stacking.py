"""Keyed arrays grouped by shape, so that one NumPy call serves every array of a shape.

A network's CPTs come as one small array per node, and a per-node loop of NumPy calls spends its
time in call overhead, not arithmetic (pigs: 441 nodes, two shapes). :class:`ShapeGroups` stacks
the arrays of each shape into one, and gives the per-key results back in the keys' order.

Reductions over a stacked array's trailing axes give each key the same bits as the key's own
array would: NumPy reduces each contiguous row with the same pairwise summation.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import numpy as np

__all__ = ["ShapeGroups", "sum_in_order"]


class ShapeGroups:
    """The keys of a collection of arrays, grouped by array shape in order of first appearance.

    Parameters
    ----------
    shapes : mapping of key to tuple of int
        Each key's array shape, in the keys' order.

    Attributes
    ----------
    keys : list
        The keys, in the given order.
    groups : list of (tuple of int, numpy.ndarray of intp)
        Each shape and the positions (in ``keys``) of its keys, increasing.

    Examples
    --------
    >>> import numpy as np
    >>> arrays = {"a": np.ones(2), "b": np.ones((2, 3)), "c": np.zeros(2)}
    >>> sg = ShapeGroups({k: v.shape for k, v in arrays.items()})
    >>> [(shape, idx.tolist()) for shape, idx in sg.groups]
    [((2,), [0, 2]), ((2, 3), [1])]
    >>> sg.per_key([s.reshape(len(s), -1).sum(axis=1) for s in sg.stack(arrays)]).tolist()
    [2.0, 6.0, 0.0]
    """

    def __init__(self, shapes: Mapping[Hashable, Sequence[int]]) -> None:
        self.keys = list(shapes)
        by_shape: dict[tuple[int, ...], list[int]] = {}
        for i, key in enumerate(self.keys):
            by_shape.setdefault(tuple(shapes[key]), []).append(i)
        self.groups = [(shape, np.asarray(idx, dtype=np.intp)) for shape, idx in by_shape.items()]
        # the keys group by group, and where each group's entries start in that flat order
        self._order = [self.keys[i] for _, idx in self.groups for i in idx]
        sizes = [len(idx) * int(np.prod(shape, dtype=np.int64)) for shape, idx in self.groups]
        self._bounds = np.cumsum([0, *sizes]).tolist()

    def stack(self, arrays: Mapping[Hashable, np.ndarray]) -> list[np.ndarray]:
        """One float64 array ``(keys of the shape, *shape)`` per group (a copy).

        Each array must have its key's shape (callers build the groups from the arrays they stack,
        or check the shapes first); a total size that does not match raises ``ValueError``.
        """
        parts = [np.ravel(arrays[key]) for key in self._order]
        flat = np.concatenate(parts, dtype=np.float64) if parts else np.empty(0)
        if flat.size != self._bounds[-1]:
            raise ValueError(f"the arrays hold {flat.size} values, their shapes {self._bounds[-1]}")
        return [
            flat[lo:hi].reshape(len(idx), *shape)
            for (shape, idx), lo, hi in zip(
                self.groups, self._bounds[:-1], self._bounds[1:], strict=True
            )
        ]

    def per_key(self, values: Sequence[np.ndarray]) -> np.ndarray:
        """One value per key, in the keys' order, from one vector per group."""
        out = np.empty(len(self.keys))
        for (_, idx), v in zip(self.groups, values, strict=True):
            out[idx] = v
        return out

    def unstack(self, stacked: Sequence[np.ndarray]) -> dict[Hashable, np.ndarray]:
        """Each key's array (a view of its group's stacked array), in the keys' order."""
        out: dict[Hashable, np.ndarray] = {}
        for (_, idx), arr in zip(self.groups, stacked, strict=True):
            for j, i in enumerate(idx):
                out[self.keys[i]] = arr[j]
        return {key: out[key] for key in self.keys}


def sum_in_order(values: np.ndarray) -> float:
    """``0.0 + values[0] + values[1] + ...``, left to right: what a per-key loop accumulated."""
    total = 0.0
    for v in np.asarray(values, dtype=np.float64).tolist():
        total += v
    return total
