"""The names of the TAN study's models, defined once: the library, the rules' wildcard
constraints and the tables all import them from here (a light module: no torch)."""

__all__ = ["ML_MODELS", "MODELS"]

#: Every model of Roth & Pernkopf (2020) Table 1 the study trains, in the table's order.
MODELS = (
    "nb_ml",
    "chow_liu_ml",
    "nb",
    "tan_random",
    "chow_liu",
    "tan_subset",
    "tan_all",
    "tan_heuristic",
    "pseudo_tan",
)
#: The maximum-likelihood models (closed form; test protocol only).
ML_MODELS = ("nb_ml", "chow_liu_ml")
