"""Bayesian network classifiers: naive Bayes, Chow-Liu TAN and differentiable TAN (torch).

- :mod:`~bnstudy.classifiers.structures`: Chow-Liu trees, random TANs, candidate-parent sets
  (subset / all / heuristic image orderings / pseudo-TAN), the authors' random draws.
- :mod:`~bnstudy.classifiers.models`: :class:`BNClassifier`, one vectorized module for all
  features, candidate parents and (optionally) hyperparameter settings; closed-form ML tables.
- :mod:`~bnstudy.classifiers.losses`: generative NLL and the hybrid margin loss.
- :mod:`~bnstudy.classifiers.training`: the paper's training protocol, batched over settings.

References
----------
W. Roth and F. Pernkopf, "Differentiable TAN Structure Learning for Bayesian Network Classifiers",
PGM 2020, PMLR 138:389-400.
"""

from bnstudy.classifiers.losses import hybrid_loss, nll_loss
from bnstudy.classifiers.models import (
    BNClassifier,
    check_features,
    check_labels,
    fit_ml,
    gumbel_noise,
    straight_through_gumbel_softmax,
)
from bnstudy.classifiers.structures import (
    CANDIDATE_KINDS,
    HEURISTIC_ORDERINGS,
    PAD,
    candidate_parents,
    check_tan_parents,
    chow_liu_parents,
    conditional_mutual_information,
    heuristic_ordering,
    is_valid_tan,
    paper_feature_orderings,
    paper_parent_permutations,
    random_tan_parents,
    structure_margin,
    tan_weight,
)
from bnstudy.classifiers.training import (
    BatchedTrainer,
    KerasAdam,
    StackedAdam,
    TrainingHistory,
    TrainResult,
    TrainSetting,
    learning_rate_schedule,
    retain_freed_memory,
    temperature_schedule,
    train_batched,
    train_classifier,
    train_ml,
)

__all__ = [
    "BNClassifier",
    "BatchedTrainer",
    "CANDIDATE_KINDS",
    "HEURISTIC_ORDERINGS",
    "KerasAdam",
    "PAD",
    "StackedAdam",
    "TrainResult",
    "TrainSetting",
    "TrainingHistory",
    "candidate_parents",
    "check_features",
    "check_labels",
    "check_tan_parents",
    "chow_liu_parents",
    "conditional_mutual_information",
    "fit_ml",
    "gumbel_noise",
    "heuristic_ordering",
    "hybrid_loss",
    "is_valid_tan",
    "learning_rate_schedule",
    "nll_loss",
    "paper_feature_orderings",
    "paper_parent_permutations",
    "random_tan_parents",
    "retain_freed_memory",
    "straight_through_gumbel_softmax",
    "structure_margin",
    "tan_weight",
    "temperature_schedule",
    "train_batched",
    "train_classifier",
    "train_ml",
]
