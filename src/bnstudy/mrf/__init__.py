"""Binary pairwise MRFs with latently grouped parameters (Liu & Page, NIPS 2013).

- :mod:`~bnstudy.mrf.graph`: :class:`PairwiseGraph`, :func:`binary_tree`, :func:`grid`,
  :func:`from_edges`, colourings and tree layouts.
- :mod:`~bnstudy.mrf.model`: :class:`BinaryPairwiseMRF`, sample/parameter validation, agreement
  counts, log pseudo-likelihood.
- :mod:`~bnstudy.mrf.exact`: ``log Z`` (closed form on forests, enumeration on small graphs),
  exact log-likelihood, edge marginals, exact samplers, exact (tied) MLE.
- :mod:`~bnstudy.mrf.sampling`: checkerboard / colour-blocked Gibbs kernel, sampler dispatch.
- :mod:`~bnstudy.mrf.mle`: tree closed-form MLE, PCD, oracle MLE.
- :mod:`~bnstudy.mrf.grouping`: DP grouping samplers (exact tree Gibbs, Gibbs_ExactL, MH_AuxVar,
  Gibbs_SBA) and :class:`GroupingResult`.
- :mod:`~bnstudy.mrf.metrics`: mean absolute error, variation of information, VI difference.
- :mod:`~bnstudy.mrf.senate`: the Senate graph by L1 logistic neighbourhood selection.
"""

from bnstudy.mrf.exact import (
    edge_agreement_probabilities,
    exact_mle,
    log_likelihood,
    log_partition,
    sample_enumeration,
    sample_tree,
)
from bnstudy.mrf.graph import PairwiseGraph, binary_tree, from_edges, grid
from bnstudy.mrf.grouping import (
    GroupingResult,
    dp_gibbs_tree,
    draw_grouped_parameters,
    gibbs_exactl,
    gibbs_sba,
    initial_grouping,
    kmeans_1d,
    mh_auxvar,
)
from bnstudy.mrf.metrics import (
    mean_absolute_error,
    random_grouping,
    variation_of_information,
    vi_difference,
)
from bnstudy.mrf.mle import PersistentContrastiveDivergence, oracle_mle, pcd_mle, tree_mle
from bnstudy.mrf.model import (
    BinaryPairwiseMRF,
    agreement_counts,
    check_samples,
    check_theta,
    log_pseudo_likelihood,
)
from bnstudy.mrf.sampling import BlockGibbsSampler, gibbs_sample, sample
from bnstudy.mrf.senate import neighbourhood_selection, neighbourhood_selection_graph

__all__ = [
    "BinaryPairwiseMRF",
    "BlockGibbsSampler",
    "GroupingResult",
    "PairwiseGraph",
    "PersistentContrastiveDivergence",
    "agreement_counts",
    "binary_tree",
    "check_samples",
    "check_theta",
    "dp_gibbs_tree",
    "draw_grouped_parameters",
    "edge_agreement_probabilities",
    "exact_mle",
    "from_edges",
    "gibbs_exactl",
    "gibbs_sample",
    "gibbs_sba",
    "grid",
    "initial_grouping",
    "kmeans_1d",
    "log_likelihood",
    "log_partition",
    "log_pseudo_likelihood",
    "mean_absolute_error",
    "mh_auxvar",
    "neighbourhood_selection",
    "neighbourhood_selection_graph",
    "oracle_mle",
    "pcd_mle",
    "random_grouping",
    "sample",
    "sample_enumeration",
    "sample_tree",
    "tree_mle",
    "variation_of_information",
    "vi_difference",
]
