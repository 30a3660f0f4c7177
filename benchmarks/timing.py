"""One timing helper of the benchmark scripts: the median wall time of repeated calls."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import NamedTuple


class Timing(NamedTuple):
    """The median of ``times`` (seconds), every call's time and the last call's result."""

    median: float
    times: list[float]
    result: object


def median_time(fn: Callable[..., object], repeats: int, *, pass_repeat: bool = False) -> Timing:
    """Call ``fn`` ``repeats`` times and time each call with :func:`time.perf_counter`.

    Parameters
    ----------
    fn : callable
        The work to time; called as ``fn()``, or ``fn(r)`` with the repeat index ``r`` (e.g. a
        seed) when ``pass_repeat`` is true.
    repeats : int
        How many calls (at least 1).

    Examples
    --------
    >>> timing = median_time(lambda r: r * 2, 3, pass_repeat=True)
    >>> len(timing.times), timing.result
    (3, 4)
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    times, result = [], None
    for r in range(repeats):
        t0 = time.perf_counter()
        result = fn(r) if pass_repeat else fn()
        times.append(time.perf_counter() - t0)
    return Timing(statistics.median(times), times, result)
