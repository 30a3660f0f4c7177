"""Roth & Pernkopf (2020): the paper's claims about Table 1 and Figure 3, checked on our runs.

Each function below measures one kind of claim; :func:`paper_claims` runs them all and joins them
with the paper's statements (``workflow/published/claims.tsv``) through the claims contract
(:mod:`bnstudy.studies.claims`). The paper's Table 1 is missing (targets.md A.1), so its claims
are the statements of its text; the number of datasets each statement covers is the catalog's
``value``.

References
----------
.. [1] W. Roth and F. Pernkopf, "Differentiable TAN Structure Learning for Bayesian Network
   Classifiers", PGM 2020, Sec. 5, Table 1, Figure 3.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from bnstudy.studies.claims import Catalog, Finding, assemble, judge, tolerance

__all__ = ["PAIRWISE", "paper_claims", "tan_findings"]

#: Claims comparing two models on every dataset: claim id -> (the better model, its rivals).
PAIRWISE = {
    "tan.ml_worse_nb": ("nb", ("nb_ml",)),
    "tan.ml_worse_chow_liu": ("chow_liu", ("chow_liu_ml",)),
    "tan.tan_random_beats_nb": ("tan_random", ("nb",)),
    "tan.subset_beats_random_chow_liu": ("tan_subset", ("tan_random", "chow_liu")),
}

_LETTER = "bnc_letter"


def _errors(selected: pd.DataFrame) -> pd.Series:
    return selected.set_index(["model", "dataset"])["error_best_test"]


def _pairwise(err: pd.Series, better: str, worse: Sequence[str], n_paper: int) -> Finding | None:
    """``better`` has a lower error than the best of ``worse`` on every dataset both ran."""
    datasets = sorted({d for _, d in err.index})
    cells, agree = [], []
    for d in datasets:
        if (better, d) not in err or not any((w, d) in err for w in worse):
            continue
        rival = min(err[(w, d)] for w in worse if (w, d) in err)
        cells.append(f"{d}: {100 * err[(better, d)]:.2f} vs {100 * rival:.2f}")
        agree.append(bool(err[(better, d)] < rival))
    if not cells:
        return None
    complete = len(cells) >= n_paper
    notes = "" if complete else f"{len(cells)} of the paper's {n_paper} datasets run"
    return Finding("; ".join(cells), judge(all(agree), complete=complete), notes)


def _letter_best(err: pd.Series, target: float) -> Finding | None:
    """The best letter error of the TAN structure learners is within the tolerance of ``target``."""
    models = [m for m in ("tan_subset", "tan_all", "pseudo_tan") if (m, _LETTER) in err]
    if not models:
        return None
    best = min(100 * err[(m, _LETTER)] for m in models)
    within = tolerance("tan_letter_error_points")
    return Finding(
        f"{best:.2f}%",
        judge(abs(best - target) <= within),
        f"near = within {within:g} percentage point of {target:g}% (tolerance tan_letter_error_points)",
    )


def _pseudo_tan_gain(err: pd.Series) -> Finding | None:
    """pseudo-TAN has a lower letter error than TAN Subset."""
    if ("pseudo_tan", _LETTER) not in err or ("tan_subset", _LETTER) not in err:
        return None
    gain = 100 * (err[("tan_subset", _LETTER)] - err[("pseudo_tan", _LETTER)])
    return Finding(
        f"{100 * err[('pseudo_tan', _LETTER)]:.2f}% ({gain:+.2f} points)", judge(bool(gain > 0))
    )


def _heuristic_c_best(runs: pd.DataFrame) -> Finding | None:
    """Ordering C has the lowest error of TAN Heuristic's orderings (the paper shows mnist)."""
    heur = runs[(runs["model"] == "tan_heuristic") & (runs["protocol"] == "test")]
    cells, agree, datasets = [], [], []
    for dataset, group in heur.groupby("dataset"):
        by_order = group.groupby("ordering")["error"].min()
        if not {"A", "B", "C"} <= set(by_order.index):
            continue
        datasets.append(dataset)
        cells.append(f"{dataset}: " + ", ".join(f"{o}: {100 * e:.2f}" for o, e in by_order.items()))
        agree.append(by_order.idxmin() == "C")
    if not cells:
        return None
    complete = "mnist" in datasets
    notes = "" if complete else "the paper's statement is on mnist, which was not run"
    return Finding("; ".join(cells), judge(all(agree), complete=complete), notes)


def tan_findings(
    catalog: Catalog, selected: pd.DataFrame, runs: pd.DataFrame
) -> dict[str, Finding]:
    """Our finding for every TAN claim our runs can speak to.

    Parameters
    ----------
    catalog : Catalog
        The TAN paper's claims.
    selected : DataFrame
        :func:`bnstudy.studies.tan.protocol.select_settings` of the runs.
    runs : DataFrame
        One row per run (``model``, ``dataset``, ``protocol``, ``ordering``, ``error``).
    """
    err = _errors(selected)
    findings: dict[str, Finding | None] = {
        claim_id: _pairwise(err, better, worse, int(catalog.value(claim_id)))
        for claim_id, (better, worse) in PAIRWISE.items()
    }
    findings["tan.letter_best_error"] = _letter_best(err, catalog.value("tan.letter_best_error"))
    findings["tan.pseudo_tan_gain"] = _pseudo_tan_gain(err)
    findings["tan.heuristic_c_best"] = _heuristic_c_best(runs)
    return {k: v for k, v in findings.items() if v is not None}


def paper_claims(
    catalog: Catalog, selected: pd.DataFrame, runs: pd.DataFrame, *, scale: str
) -> pd.DataFrame:
    """The TAN paper's claims table (columns of :data:`bnstudy.studies.claims.COLUMNS`)."""
    return assemble(catalog, tan_findings(catalog, selected, runs), scale=scale)
