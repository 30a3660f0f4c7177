"""The study layer: everything about one paper's experiments, apart from the algorithms.

One subpackage per paper (``tan``, ``em``, ``mrf``, ``lsbn``) holds its experiment runners,
protocols, tables, claims and figures. It uses the algorithm packages of :mod:`bnstudy`, which
never import it; the workflow's scripts call it.
"""
