"""Parameter learning for discrete Bayesian networks of known structure.

- :mod:`~bnstudy.parameters.mle`: complete-data counts and (pseudo-count smoothed) maximum likelihood.
- :mod:`~bnstudy.parameters.em`: expectation maximization with an exact junction-tree E-step and
  parameter sharing (Reed & Mengshoel 2014).
- :mod:`~bnstudy.parameters.sharing`: sharing set partitions, identical-CPT sets, gradual sharing.
"""

from bnstudy.parameters.em import ExpectationMaximization
from bnstudy.parameters.mle import (
    MaximumLikelihoodEstimator,
    check_data,
    complete_data_counts,
    cpts_from_counts,
)
from bnstudy.parameters.sharing import (
    gradual_sharing_sets,
    identical_cpt_sets,
    largest_sharable_set,
    validate_sharing,
)

__all__ = [
    "ExpectationMaximization",
    "MaximumLikelihoodEstimator",
    "check_data",
    "complete_data_counts",
    "cpts_from_counts",
    "gradual_sharing_sets",
    "identical_cpt_sets",
    "largest_sharable_set",
    "validate_sharing",
]
