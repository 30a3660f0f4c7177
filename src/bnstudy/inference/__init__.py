"""Exact inference: a junction tree batched over samples, the E-step of EM.

:class:`JunctionTree` compiles a network for a fixed hidden set once and then returns, for a whole
evidence array at a time, the expected family counts and ``log P(e_n)`` that one EM iteration needs.
The hidden sets of the EM-with-sharing study (nodes with identical CPTs) come from
:func:`bnstudy.parameters.sharing.identical_cpt_sets`.
"""

from bnstudy.inference.junction_tree import ELIMINATION_HEURISTICS, JunctionTree, triangulate

__all__ = ["ELIMINATION_HEURISTICS", "JunctionTree", "triangulate"]
