"""Roth & Pernkopf (2020): the paper's claims about Table 1, Figure 3 and the Chow-Liu recovery.

Each function below measures one kind of claim; :func:`paper_claims` runs them all and joins them
with the paper's statements (``workflow/published/claims.tsv``) through the claims contract
(:mod:`bnstudy.studies.claims`). The paper's Table 1 is missing (targets.md A.1), so its claims
are the statements of its text (Sec. 5); the number of datasets each statement covers is the
catalog's ``value``. Model comparisons use the best test error over settings (the paper's Table 1
selection), after averaging satimage's folds; comparisons within a model (its K, its orderings)
take that best per value of the grid axis.

References
----------
.. [1] W. Roth and F. Pernkopf, "Differentiable TAN Structure Learning for Bayesian Network
   Classifiers", PGM 2020, Sec. 5, Table 1, Figure 3.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from bnstudy.studies.claims import Catalog, Finding, assemble, judge, tolerance
from bnstudy.studies.tan.figures import grid_label

__all__ = ["PAIRWISE", "best_per", "paper_claims", "tan_findings"]

#: Claims comparing two models on every dataset: claim id -> (the better model, its rivals).
PAIRWISE = {
    "tan.ml_worse_nb": ("nb", ("nb_ml",)),
    "tan.ml_worse_chow_liu": ("chow_liu", ("chow_liu_ml",)),
    "tan.tan_random_beats_nb": ("tan_random", ("nb",)),
    "tan.subset_beats_random_chow_liu": ("tan_subset", ("tan_random", "chow_liu")),
}

_LETTER = "bnc_letter"
_USPS = "bnc_usps"
_MNIST = "mnist"


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


def best_per(runs: pd.DataFrame, model: str, axis: str) -> pd.Series:
    """Best test error of ``model`` per dataset and value of a grid ``axis`` (``K``, ``ordering``).

    Errors are averaged over folds per setting (``spec``) first, then the lowest is taken over the
    settings sharing the axis value. Axis values are returned as text (``"8"``, ``"C"``), as the
    config writes them. Empty when the model has no test run.
    """
    test = runs[(runs["model"] == model) & (runs["protocol"] == "test")]
    if test.empty or axis not in test.columns:
        return pd.Series(dtype=float)
    per_spec = test.groupby(["dataset", "spec"], as_index=False).agg(
        value=(axis, "first"), error=("error", "mean")
    )
    per_spec["value"] = per_spec["value"].map(grid_label)
    return per_spec.groupby(["dataset", "value"])["error"].min()


def _subset_best_k8(by_k: pd.Series, n_paper: int) -> Finding | None:
    """TAN Subset's best K (``by_k``: :func:`best_per` of its K) is 8 on every dataset where it
    ran K = 8 and another K."""
    cells, agree = [], []
    for dataset in sorted({d for d, _ in by_k.index}):
        errors = by_k[dataset]
        if "8" not in errors.index or len(errors) < 2:
            continue
        order = sorted(errors.index, key=float)
        cells.append(f"{dataset}: " + ", ".join(f"K={k} {100 * errors[k]:.2f}" for k in order))
        agree.append(bool(errors["8"] <= errors.min()))
    if not cells:
        return None
    complete = len(cells) >= n_paper
    notes = (
        "a tie with a smaller K counts as best"
        if complete
        else (f"{len(cells)} of the paper's {n_paper} datasets ran K = 8 and another K")
    )
    return Finding("; ".join(cells), judge(all(agree), complete=complete), notes)


def _tan_all_no_gain(err: pd.Series, by_k: pd.Series, n_paper: int) -> Finding | None:
    """TAN All's error is not below TAN Subset's at K = 8 (``by_k``), on every dataset both ran."""
    cells, holds = [], []
    for dataset in sorted({d for _, d in err.index}):
        if ("tan_all", dataset) not in err or (dataset, "8") not in by_k.index:
            continue
        every, k8 = err[("tan_all", dataset)], by_k[(dataset, "8")]
        cells.append(f"{dataset}: TAN All {100 * every:.2f} vs TAN Subset K=8 {100 * k8:.2f}")
        holds.append(bool(every >= k8))
    if not cells:
        return None
    complete = len(cells) >= n_paper
    notes = "" if complete else f"{len(cells)} of the paper's {n_paper} datasets run"
    return Finding("; ".join(cells), judge(all(holds), complete=complete), notes)


def _chow_liu_worse_usps(err: pd.Series) -> Finding | None:
    """On usps, Chow-Liu has a higher error than TAN Random (the paper's counter-example)."""
    if ("chow_liu", _USPS) not in err or ("tan_random", _USPS) not in err:
        return None
    cl, rand = err[("chow_liu", _USPS)], err[("tan_random", _USPS)]
    return Finding(
        f"{_USPS}: Chow-Liu {100 * cl:.2f} vs TAN Random {100 * rand:.2f}", judge(bool(cl > rand))
    )


def _heuristic_vs_subset(err: pd.Series, dataset: str, *, gain: bool) -> Finding | None:
    """TAN Heuristic below TAN Subset on ``dataset`` (``gain``), or not below it."""
    if ("tan_heuristic", dataset) not in err or ("tan_subset", dataset) not in err:
        return None
    heur, subset = err[("tan_heuristic", dataset)], err[("tan_subset", dataset)]
    below = bool(heur < subset)
    return Finding(
        f"{dataset}: TAN Heuristic {100 * heur:.2f} vs TAN Subset {100 * subset:.2f}",
        judge(below if gain else not below),
    )


def _heuristic_orderings_beat_random(runs: pd.DataFrame) -> Finding | None:
    """On mnist, every heuristic ordering's best error is below every random ordering's best."""
    heur = best_per(runs, "tan_heuristic", "ordering")
    rand = best_per(runs, "tan_subset", "ordering")
    if _MNIST not in heur.index.get_level_values(0) or _MNIST not in rand.index.get_level_values(0):
        return None
    heur, rand = heur[_MNIST], rand[_MNIST]
    ours = (
        "mnist: heuristic "
        + ", ".join(f"{o} {100 * e:.2f}" for o, e in heur.items())
        + "; TAN Subset orderings "
        + ", ".join(f"{o} {100 * e:.2f}" for o, e in rand.items())
    )
    return Finding(ours, judge(bool(heur.max() < rand.min())))


def _pseudo_tan_similar(err: pd.Series, n_paper: int) -> Finding:
    """pseudo-TAN's error within the tolerance of TAN Subset's on every dataset but letter."""
    within = tolerance("tan_similar_points")
    cells, holds = [], []
    for dataset in sorted({d for m, d in err.index if m == "pseudo_tan" and d != _LETTER}):
        if ("tan_subset", dataset) not in err:
            continue
        gap = 100 * (err[("pseudo_tan", dataset)] - err[("tan_subset", dataset)])
        cells.append(f"{dataset}: {gap:+.2f} points")
        holds.append(abs(gap) <= within)
    if not cells:
        return Finding(
            "pseudo-TAN run on letter only",
            "not tested",
            "the statement is about the datasets other than letter; this run has pseudo-TAN on "
            "letter only",
        )
    return Finding(
        "; ".join(cells),
        judge(all(holds), complete=len(cells) >= n_paper),
        f"similar = within {within:g} points of TAN Subset (tolerance tan_similar_points)",
    )


def _recovers_chow_liu(recovery: pd.DataFrame, n_paper: int) -> Finding | None:
    """Every recovery run (each root, fold and learning rate) found the Chow-Liu tree exactly."""
    if recovery is None or recovery.empty:
        return None
    cells, short = [], []
    for row in recovery.itertuples():
        most = int(row.max_parents_differing)
        cells.append(
            f"{row.dataset} (lr {row.lr:g}): {row.recovered} of {row.runs} runs exact, at most "
            f"{most} parent{'' if most == 1 else 's'} differing"
        )
        if row.runs < row.features:
            short.append(
                f"{row.dataset}: {row.runs} runs, the paper ran each of its {row.features} roots"
            )
    datasets = recovery["dataset"].nunique()
    if datasets < n_paper:
        short.append(f"{datasets} of the paper's {n_paper} datasets run")
    complete = not short
    notes = "; ".join(short)
    holds = bool((recovery["recovered"] == recovery["runs"]).all())
    return Finding("; ".join(cells), judge(holds, complete=complete), notes)


def _heuristic_on_axis(
    runs: pd.DataFrame,
    axis: str,
    needed: set[str],
    describe: Callable[[pd.Series], str],
    holds: Callable[[pd.Series], bool],
) -> Finding | None:
    """A TAN Heuristic claim on a grid ``axis``: its best error per value (:func:`best_per`),
    judged by ``holds`` on every dataset that ran the ``needed`` values and written by
    ``describe``; complete when mnist, the dataset of the paper's statement, is among them."""
    by_value = best_per(runs, "tan_heuristic", axis)
    cells, agree, datasets = [], [], []
    for dataset in sorted({d for d, _ in by_value.index}):
        errors = by_value[dataset]
        if not needed <= set(errors.index):
            continue
        datasets.append(dataset)
        cells.append(f"{dataset}: {describe(errors)}")
        agree.append(bool(holds(errors)))
    if not cells:
        return None
    complete = _MNIST in datasets
    notes = "" if complete else "the paper's statement is on mnist, which was not run"
    return Finding("; ".join(cells), judge(all(agree), complete=complete), notes)


def _heuristic_c_best(runs: pd.DataFrame) -> Finding | None:
    """Ordering C has the lowest error of TAN Heuristic's orderings (the paper shows mnist)."""
    return _heuristic_on_axis(
        runs,
        "ordering",
        {"A", "B", "C"},
        lambda errors: ", ".join(f"{o}: {100 * e:.2f}" for o, e in errors.items()),
        lambda errors: errors.idxmin() == "C",
    )


def _heuristic_k2_beats_k1(runs: pd.DataFrame) -> Finding | None:
    """TAN Heuristic with K = 2 has a lower best error than with K = 1 (the paper shows mnist)."""
    return _heuristic_on_axis(
        runs,
        "K",
        {"1", "2"},
        lambda errors: f"K=1 {100 * errors['1']:.2f}, K=2 {100 * errors['2']:.2f}",
        lambda errors: errors["2"] < errors["1"],
    )


def tan_findings(
    catalog: Catalog,
    selected: pd.DataFrame,
    runs: pd.DataFrame,
    recovery: pd.DataFrame | None = None,
) -> dict[str, Finding]:
    """Our finding for every TAN claim our runs can speak to.

    Parameters
    ----------
    catalog : Catalog
        The TAN paper's claims.
    selected : DataFrame
        :func:`bnstudy.studies.tan.protocol.select_settings` of the runs.
    runs : DataFrame
        One row per run (``model``, ``dataset``, ``spec``, ``protocol``, ``K``, ``ordering``,
        ``error``).
    recovery : DataFrame, optional
        The Chow-Liu recovery table (``reports/tan/tables/chow_liu_recovery.csv``).
    """
    err = _errors(selected)
    findings: dict[str, Finding | None] = {
        claim_id: _pairwise(err, better, worse, int(catalog.value(claim_id)))
        for claim_id, (better, worse) in PAIRWISE.items()
    }
    findings["tan.letter_best_error"] = _letter_best(err, catalog.value("tan.letter_best_error"))
    findings["tan.pseudo_tan_gain"] = _pseudo_tan_gain(err)
    findings["tan.heuristic_c_best"] = _heuristic_c_best(runs)
    subset_k = best_per(runs, "tan_subset", "K")
    findings["tan.subset_best_k8"] = _subset_best_k8(
        subset_k, int(catalog.value("tan.subset_best_k8"))
    )
    findings["tan.tan_all_no_gain"] = _tan_all_no_gain(
        err, subset_k, int(catalog.value("tan.tan_all_no_gain"))
    )
    findings["tan.chow_liu_worse_usps"] = _chow_liu_worse_usps(err)
    findings["tan.heuristic_mnist_gain"] = _heuristic_vs_subset(err, _MNIST, gain=True)
    findings["tan.heuristic_usps_no_gain"] = _heuristic_vs_subset(err, _USPS, gain=False)
    findings["tan.heuristic_orderings_beat_random"] = _heuristic_orderings_beat_random(runs)
    findings["tan.heuristic_k2_beats_k1"] = _heuristic_k2_beats_k1(runs)
    findings["tan.pseudo_tan_similar"] = _pseudo_tan_similar(
        err, int(catalog.value("tan.pseudo_tan_similar"))
    )
    findings["tan.recovers_chow_liu"] = _recovers_chow_liu(
        recovery, int(catalog.value("tan.recovers_chow_liu"))
    )
    return {k: v for k, v in findings.items() if v is not None}


def paper_claims(
    catalog: Catalog,
    selected: pd.DataFrame,
    runs: pd.DataFrame,
    recovery: pd.DataFrame | None = None,
    *,
    scale: str,
) -> pd.DataFrame:
    """The TAN paper's claims table (columns of :data:`bnstudy.studies.claims.COLUMNS`)."""
    return assemble(catalog, tan_findings(catalog, selected, runs, recovery), scale=scale)
