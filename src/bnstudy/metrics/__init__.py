"""Evaluation metrics.

- :mod:`~bnstudy.metrics.parameters`: L1 / L2 distances between true and estimated CPTs.
"""

from bnstudy.metrics.parameters import CPT_ERROR_METRICS, cpt_errors

__all__ = ["CPT_ERROR_METRICS", "cpt_errors"]
