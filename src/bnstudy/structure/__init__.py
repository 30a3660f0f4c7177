"""Structure learning for discrete Bayesian networks: the LSBN framework and its baselines.

- :mod:`~bnstudy.structure.counting`, :mod:`~bnstudy.structure.citests`,
  :mod:`~bnstudy.structure.scores`: contingency counts, G² conditional-independence tests, BDeu.
- :mod:`~bnstudy.structure.weights`, :mod:`~bnstudy.structure.linkcomm`,
  :mod:`~bnstudy.structure.ropart`: pairwise weights, link communities, the ROPART partition.
- :mod:`~bnstudy.structure.aracne`, :mod:`~bnstudy.structure.pc`, :mod:`~bnstudy.structure.hill_climb`,
  :mod:`~bnstudy.structure.mmhc`: the global baselines (ARACNE, PC, greedy search, MMHC).
- :mod:`~bnstudy.structure.iamb`: Markov blankets; :mod:`~bnstudy.structure.order_mcmc`: order-MCMC
  model averaging; :mod:`~bnstudy.structure.lsbn`: the divide-and-conquer framework.
"""

from bnstudy.structure.aracne import (
    aracne,
    data_processing_inequality,
    mutual_information_matrix,
)
from bnstudy.structure.citests import (
    DiscreteData,
    SparseTables,
    as_discrete_data,
    check_alpha,
    ci_test,
    ci_tests,
    grouped_counts,
    p_values,
    table_statistics,
)
from bnstudy.structure.counting import (
    check_discrete_data,
    marginal_counts,
    pairwise_counts,
)
from bnstudy.structure.hill_climb import (
    hill_climb,
    is_dag,
    reachability,
)
from bnstudy.structure.iamb import (
    iamb,
    markov_blankets,
    mean_weight_candidates,
)
from bnstudy.structure.linkcomm import (
    LinkCommunities,
    edge_similarities,
    link_communities,
    partition_density,
)
from bnstudy.structure.lsbn import (
    GLOBAL_LEARNERS,
    LOCAL_LEARNERS,
    LSBNPrepared,
    LSBNResult,
    Piece,
    check_settings,
    core_piece,
    jaccard,
    learn_global,
    learn_local,
    lsbn,
    merge_pieces,
    merge_two,
    orient,
    prepare,
    sample_subcommunities,
)
from bnstudy.structure.mmhc import (
    mmhc,
    mmpc,
    mmpc_skeleton,
)
from bnstudy.structure.order_mcmc import (
    FamilyScoreTable,
    OrderMCMCResult,
    exact_order_edge_posteriors,
    family_score_table,
    order_mcmc,
    order_mcmc_edge_posteriors,
    threshold_posteriors,
)
from bnstudy.structure.pc import (
    meek_rules,
    orient_v_structures,
    pc,
    pc_skeleton,
)
from bnstudy.structure.ropart import (
    RopartResult,
    partition_statistics,
    partition_support,
    ropart,
    second_order_network,
)
from bnstudy.structure.scores import (
    BDeuScore,
    bdeu_local_score,
)
from bnstudy.structure.weights import (
    WEIGHT_FUNCTIONS,
    elbow_threshold,
    pagerank,
    pairwise_weights,
    prune,
    weight_matrices,
)

__all__ = [
    "BDeuScore",
    "DiscreteData",
    "FamilyScoreTable",
    "GLOBAL_LEARNERS",
    "LOCAL_LEARNERS",
    "LSBNPrepared",
    "LSBNResult",
    "LinkCommunities",
    "OrderMCMCResult",
    "Piece",
    "RopartResult",
    "SparseTables",
    "WEIGHT_FUNCTIONS",
    "aracne",
    "as_discrete_data",
    "bdeu_local_score",
    "check_alpha",
    "check_discrete_data",
    "check_settings",
    "ci_test",
    "ci_tests",
    "core_piece",
    "data_processing_inequality",
    "edge_similarities",
    "elbow_threshold",
    "exact_order_edge_posteriors",
    "family_score_table",
    "grouped_counts",
    "hill_climb",
    "iamb",
    "is_dag",
    "jaccard",
    "learn_global",
    "learn_local",
    "link_communities",
    "lsbn",
    "marginal_counts",
    "markov_blankets",
    "mean_weight_candidates",
    "meek_rules",
    "merge_pieces",
    "merge_two",
    "mmhc",
    "mmpc",
    "mmpc_skeleton",
    "mutual_information_matrix",
    "order_mcmc",
    "order_mcmc_edge_posteriors",
    "orient",
    "orient_v_structures",
    "p_values",
    "pagerank",
    "pairwise_counts",
    "pairwise_weights",
    "partition_density",
    "partition_statistics",
    "partition_support",
    "pc",
    "pc_skeleton",
    "prepare",
    "prune",
    "reachability",
    "ropart",
    "sample_subcommunities",
    "second_order_network",
    "table_statistics",
    "threshold_posteriors",
    "weight_matrices",
]
