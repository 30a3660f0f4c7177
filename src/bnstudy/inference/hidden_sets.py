"""Hidden sets for EM with parameter sharing: groups of nodes with identical CPTs.

Reed & Mengshoel (2014) hide, in each network, the largest set of nodes that *could* share one CPT
(nodes with the same cardinality, the same parent cardinalities and the same CPT values), and then
gradually tie their CPTs together. :func:`identical_cpt_groups` finds those sets.

References
----------
.. [1] E. Reed and O. J. Mengshoel, "Bayesian network parameter learning using EM with parameter
   sharing", *Proc. BMAW*, CEUR-WS 1218, 2014, Sec. 4 and 5.2 (the sets ``Y_i`` of potentially
   shared nodes, and ``H = argmax |Y_i|``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - typing only
    from bnstudy.networks.bn import DiscreteBayesianNetwork

__all__ = ["identical_cpt_groups", "largest_identical_cpt_set"]

logger = logging.getLogger(__name__)


def identical_cpt_groups(
    bn: DiscreteBayesianNetwork, *, decimals: int = 12, min_size: int = 2
) -> list[list[str]]:
    """Groups of nodes whose CPTs are identical, largest first.

    Two nodes are in the same group when they have the same cardinality, the same parent
    cardinalities (in CPT-axis order) and the same CPT values after rounding to ``decimals``.

    Parameters
    ----------
    bn : bnstudy.networks.DiscreteBayesianNetwork
    decimals : int, default 12
        CPT values are compared after ``numpy.round(cpt, decimals)``.
    min_size : int, default 2
        Smallest group returned (``1`` also returns every unshared node as its own group).

    Returns
    -------
    list of list of str
        The groups, each in network order, sorted by decreasing size and then by the network
        position of their first node.

    References
    ----------
    .. [1] E. Reed and O. J. Mengshoel, "Bayesian network parameter learning using EM with
       parameter sharing", *Proc. BMAW*, CEUR-WS 1218, 2014, Sec. 4.
    """
    groups: dict[tuple, list[str]] = {}
    for v in bn.nodes:
        table = bn.cpts[v]
        key = (table.shape[-1], table.shape[:-1], (np.round(table, decimals) + 0.0).tobytes())
        groups.setdefault(key, []).append(v)
    pos = {v: i for i, v in enumerate(bn.nodes)}
    out = [g for g in groups.values() if len(g) >= min_size]
    out.sort(key=lambda g: (-len(g), pos[g[0]]))
    return out


def largest_identical_cpt_set(bn: DiscreteBayesianNetwork, *, decimals: int = 12) -> list[str]:
    """The largest group of :func:`identical_cpt_groups` (the EM study's hidden set).

    Ties are broken by the network position of the groups' first nodes. Returns ``[]`` when no two
    nodes share a CPT.
    """
    groups = identical_cpt_groups(bn, decimals=decimals)
    return groups[0] if groups else []
