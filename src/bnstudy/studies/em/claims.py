"""Reed & Mengshoel (2014): the paper's claims about Tables 3 and 4, checked on our runs.

The paper's numbers come from ``workflow/published/``: its Table 3 (``em_table3.tsv``, the signs
the pigs claim expects and the rows of the spread claim) and the claims catalog (``claims.tsv``).
Our networks stand in for the paper's: pigs is the same network, ADAPT is adapt10_v7e, mini-ADAPT
is rebuilt from ADAPT.

Table 4's text claims compare sharing SB with no sharing through the *relative change*
``(SB - none) / |none|`` of a column of :func:`~bnstudy.studies.em.tables.mini_adapt_table`:

* a change is *minor* when its relative change is at most the tolerance ``em_minor_change`` (for
  the mean log-likelihood this is relative to the log-likelihood itself);
* *the largest change due to sharing* is the column with the largest absolute relative change
  among Table 4's six mean and std columns (:data:`TABLE4_STATS`: error, log-likelihood and
  iterations, each mean and std); the claim holds when that column is the std of the
  log-likelihood and it went up.

The Fig. 2 trends (ADAPT T2, 200 samples: the paper's sample size comes from the catalog) are
read as the signs of Pearson's r between the number of shared nodes and the mean or std of a
metric, our Table 3 row of adapt at that sample size, as the paper itself reads Table 3 ("a
positive correlation implies that parameter sharing increased the corresponding metric
statistic"). adapt (adapt10_v7e) stands in for ADAPT T2, which is not public.

Figs. 5 and 6 are read from :func:`~bnstudy.studies.em.tables.endpoints_table`: where the trials
end without sharing and with every hidden node shared. Fig. 5 (ADAPT T2, 200 samples) is our
gradual-sharing run of adapt at the figures' sample size, its two endpoint levels; Fig. 6 (ADAPT
P1, 33 hidden nodes, 200 samples) is our endpoints run of adapt. The error's range is *much
larger* when it is at least the tolerance ``em_much_larger_range`` times the range without
sharing. The paper's log-likelihoods (about -1.2e4) are not comparable with ours (another network),
so Fig. 6 is read as the order of the trials: some trials with sharing end above every trial
without sharing, and not all of them do ("the rest converged" lower).

Figs. 3 and 4 (mini-ADAPT, 600 trials per condition) are read from
:func:`~bnstudy.studies.em.tables.error_regions_table`. The paper names no region boundaries, so
its region statements are read through counts that need none. O_T's "four main error regions,
with the middle two being greatest in frequency" without sharing and "three regions of error,
with the outer two being most frequent" with sharing: more than half of the trials end in the
middle half of their condition's error range without sharing, fewer than half with sharing (two
middle regions of four evenly spread regions lie in the middle half, the outer two of three do
not). "The outer two regions in Figure 4d are further apart than their non-sharing counterparts":
the distance between the 10th and 90th percentiles of the error is larger with sharing. O_P's
"for a few trials in the sharing condition the error is more extreme (and mostly smaller!)"
(Fig. 3, 15 trials shown): some but fewer than half of the trials with sharing end outside the
error range without sharing, more of them below it than above.

The complete-data error claim is *calibrated*: the error metric is the candidate whose
complete-data value is closest to the printed 16.325 (:func:`~bnstudy.studies.em.tables.
error_metric_table`), so matching 16.325 is no evidence; it is never counted as agreement.

References
----------
.. [1] E. Reed and O. J. Mengshoel, "Bayesian Network Parameter Learning using EM with Parameter
   Sharing", BMAW 2014, Secs. 5.2.1-5.3.2, Figs. 2-6, Tables 3-4.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnstudy.studies.claims import Catalog, Finding, assemble, judge, tolerance

__all__ = [
    "TABLE4_STATS",
    "complete_data_error",
    "em_findings",
    "error_spread",
    "fig2_signs",
    "fig3_op_extremes_smaller",
    "fig4_ot_middle_vs_ends",
    "fig4_ot_outer_apart",
    "fig5_error_range",
    "fig6_loglik_above",
    "mini_adapt_change",
    "mini_adapt_largest_change",
    "mini_adapt_loglik",
    "mini_adapt_minor",
    "paper_claims",
    "pigs_iteration_signs",
    "relative_change",
]

_PIGS = "Pigs"
_ADAPT = "adapt"

#: Table 4's mean and std columns: the candidates of "the largest change due to sharing".
TABLE4_STATS = (
    "error_mean",
    "error_std",
    "loglik_mean",
    "loglik_std",
    "iterations_mean",
    "iterations_std",
)


def _ours(table3: pd.DataFrame) -> pd.DataFrame:
    return table3[table3["network"].fillna("") != ""]


def error_spread(table3: pd.DataFrame, paper3: pd.DataFrame) -> Finding | None:
    """Sharing widens the error's spread: r(sigma) of the error > 0 on every row.

    Complete when every pigs sample size of the paper's Table 3 was run (pigs is the one network
    of the paper that is public).
    """
    ours = _ours(table3)
    if ours.empty:
        return None
    positive = ours["r_error_std"] > 0
    pigs_n = set(ours.loc[ours["paper_network"] == _PIGS, "n"])
    paper_n = set(paper3.loc[paper3["paper_network"] == _PIGS, "n"])
    complete = paper_n <= pigs_n
    notes = "" if complete else f"pigs at {len(pigs_n & paper_n)} of the paper's {len(paper_n)} n"
    return Finding(
        f"{int(positive.sum())}/{len(ours)} rows positive",
        judge(bool(positive.all()), complete=complete),
        notes,
    )


def pigs_iteration_signs(table3: pd.DataFrame, paper3: pd.DataFrame) -> Finding | None:
    """pigs: r(mu) of the iterations has the paper's sign at every sample size.

    ``partial`` when it holds on the sample sizes run but not all of the paper's were run.
    """
    expected = (
        paper3[paper3["paper_network"] == _PIGS].set_index("n")["r_iterations_mean"].map(np.sign)
    )
    ours = _ours(table3)
    pigs = ours[ours["paper_network"] == _PIGS].set_index("n")["r_iterations_mean"]
    run = [n for n in expected.index if n in pigs.index]
    if not run:
        return None
    signs = {n: int(np.sign(pigs[n])) for n in run}
    complete = len(run) == len(expected)
    notes = "" if complete else f"{len(run)} of the paper's {len(expected)} sample sizes run"
    return Finding(
        " ".join(f"{'+' if s > 0 else '-'} (n={n:g})" for n, s in signs.items()),
        judge(all(signs[n] == expected[n] for n in run), complete=complete),
        notes,
    )


def mini_adapt_change(
    table4: pd.DataFrame, observables: str, column: str, direction: str
) -> Finding | None:
    """mini-ADAPT: sharing SB moves ``column`` in ``direction`` ("up" or "down") for ``observables``."""
    if direction not in ("up", "down"):
        raise ValueError(f"direction must be 'up' or 'down', got {direction!r}")
    pair = _mini_adapt_pair(table4, observables)
    if pair is None:
        return None
    before, after = float(pair[0][column]), float(pair[1][column])
    holds = after > before if direction == "up" else after < before
    return Finding(f"{before:.2f} -> {after:.2f}", judge(bool(holds)))


def relative_change(before: float, after: float) -> float:
    """The change from ``before`` to ``after`` relative to ``|before|`` (signed).

    >>> relative_change(-100.0, -105.0)
    -0.05
    """
    if before == 0:
        return 0.0 if after == 0 else float(np.sign(after)) * np.inf
    return (after - before) / abs(before)


def _mini_adapt_pair(table: pd.DataFrame, observables: str) -> tuple[pd.Series, pd.Series] | None:
    """The rows of ``observables`` without sharing and with sharing SB of a mini-ADAPT table
    (Table 4, the error regions: one row per ``sharing`` and ``observables``), or None."""
    rows = table.set_index(["sharing", "observables"])
    if ("none", observables) not in rows.index or ("SB", observables) not in rows.index:
        return None
    return rows.loc[("none", observables)], rows.loc[("SB", observables)]


def mini_adapt_loglik(table4: pd.DataFrame, observables: str, factor: float) -> Finding | None:
    """mini-ADAPT: sharing SB lowers the mean log-likelihood and multiplies its std by more than
    ``factor``."""
    pair = _mini_adapt_pair(table4, observables)
    if pair is None:
        return None
    before, after = pair
    if not float(before["loglik_std"]) > 0:
        return Finding(
            f"loglik_std without sharing {before['loglik_std']:g}",
            "not tested",
            "no spread without sharing to compare with (too few trials)",
        )
    ratio = float(after["loglik_std"]) / float(before["loglik_std"])
    lower = float(after["loglik_mean"]) < float(before["loglik_mean"])
    return Finding(
        f"loglik_mean {before['loglik_mean']:.1f} -> {after['loglik_mean']:.1f}; "
        f"loglik_std {before['loglik_std']:.1f} -> {after['loglik_std']:.1f} ({ratio:.2f}x)",
        judge(bool(lower and ratio > factor)),
    )


def mini_adapt_largest_change(
    table4: pd.DataFrame, observables: str, column: str
) -> Finding | None:
    """mini-ADAPT: the largest change due to sharing SB is an increase of ``column``.

    The largest change is the largest absolute :func:`relative_change` among the columns of
    :data:`TABLE4_STATS` that the table has.
    """
    pair = _mini_adapt_pair(table4, observables)
    if pair is None:
        return None
    before, after = pair
    changes = {
        c: relative_change(float(before[c]), float(after[c]))
        for c in TABLE4_STATS
        if c in before.index
    }
    if column not in changes:
        raise ValueError(f"column {column!r} is not one of Table 4's columns {TABLE4_STATS}")
    ranked = sorted(changes, key=lambda c: abs(changes[c]), reverse=True)
    largest = ranked[0]
    ours = "; ".join(f"{c} {changes[c]:+.1%}" for c in ranked[:2])
    return Finding(
        f"largest relative changes: {ours}",
        judge(largest == column and changes[column] > 0),
        f"largest of the relative changes of {', '.join(changes)}",
    )


def mini_adapt_minor(
    table4: pd.DataFrame, observables: str, columns: tuple[str, ...]
) -> Finding | None:
    """mini-ADAPT: sharing SB changes every one of ``columns`` only slightly (a relative change
    within the tolerance ``em_minor_change``)."""
    pair = _mini_adapt_pair(table4, observables)
    if pair is None:
        return None
    before, after = pair
    within = tolerance("em_minor_change")
    changes = {c: relative_change(float(before[c]), float(after[c])) for c in columns}
    return Finding(
        "; ".join(f"{c} {before[c]:.2f} -> {after[c]:.2f} ({changes[c]:+.1%})" for c in columns),
        judge(all(abs(ch) <= within for ch in changes.values())),
        f"minor = a relative change of at most {within:.0%} (tolerance em_minor_change)",
    )


def _r_label(column: str) -> str:
    metric, stat = column.removeprefix("r_").rsplit("_", 1)
    return f"r({'mu' if stat == 'mean' else 'sigma'}) {metric}"


def fig2_signs(table3: pd.DataFrame, n: float, signs: dict[str, int]) -> Finding | None:
    """Fig. 2: on adapt at ``n`` samples, each Table 3 correlation of ``signs`` (a column such as
    ``r_iterations_mean``) has the expected sign (+1: the statistic grows with the number of
    shared nodes, -1: it falls)."""
    ours = _ours(table3)
    adapt = ours[ours["network"] == _ADAPT]
    if adapt.empty:
        return None
    stand_in = "adapt (adapt10_v7e) stands in for the paper's ADAPT T2, which is not public"
    at_n = adapt[adapt["n"].astype(float) == float(n)]
    if at_n.empty:
        run = ", ".join(f"{v:g}" for v in sorted(adapt["n"].astype(float)))
        return Finding(
            f"adapt run at n = {run}",
            "not tested",
            f"Fig. 2 is at n={n:g}, which was not run at this scale",
        )
    row = at_n.iloc[0]
    r = {c: float(row[c]) for c in signs}
    levels = row.get("levels", np.nan)
    levels = "" if pd.isna(levels) else f"; r over {int(levels)} sharing levels"
    text = ", ".join(f"{_r_label(c)} {v:+.2f}" for c, v in r.items()) + f" (adapt, n={n:g})"
    if any(np.isnan(v) for v in r.values()):
        return Finding(text, "not tested", f"r undefined (a constant statistic); {stand_in}")
    holds = all(np.sign(r[c]) == s for c, s in signs.items())
    return Finding(text, judge(bool(holds)), stand_in + levels)


_FIG5 = "Fig. 5"
_FIG6 = "Fig. 6"


def _endpoint_arms(
    endpoints: pd.DataFrame, figure: str, n: float
) -> tuple[pd.Series, pd.Series] | Finding | None:
    """The ``none`` and ``all`` rows of ``figure`` in the endpoints table; None when the figure
    was not run, a ``not tested`` finding when it was run at another sample size or lacks an arm.
    """
    rows = endpoints[endpoints["figure"] == figure].set_index("arm")
    if rows.empty:
        return None
    first = rows.iloc[0]
    where = f"{first['network']}, n={float(first['n_samples']):g}, {int(first['n_hidden'])} hidden"
    if float(first["n_samples"]) != float(n):
        return Finding(
            f"{figure} run on {where}",
            "not tested",
            f"{figure} is at n={n:g}, which was not run at this scale",
        )
    missing = [arm for arm in ("none", "all") if arm not in rows.index]
    if missing:
        what = " and ".join({"none": "without sharing", "all": "with sharing"}[a] for a in missing)
        return Finding(f"{figure} run on {where}", "not tested", f"no trials {what}")
    return rows.loc["none"], rows.loc["all"]


def fig5_error_range(endpoints: pd.DataFrame, n: float) -> Finding | None:
    """Fig. 5: sharing every hidden node makes the range of the converged error much larger (by at
    least the tolerance ``em_much_larger_range``) and its lowest error lower than without sharing.

    ``endpoints`` is :func:`~bnstudy.studies.em.tables.endpoints_table`; ``n`` the paper's sample
    size. The log-likelihood of the lowest-error trials (the paper: "while retaining a similar
    ll") is reported, not judged.
    """
    arms = _endpoint_arms(endpoints, _FIG5, n)
    if not isinstance(arms, tuple):
        return arms
    none, shared = arms
    if min(int(none["trials"]), int(shared["trials"])) < 2:
        return Finding(
            f"{int(none['trials'])} trial(s) without sharing, {int(shared['trials'])} with",
            "not tested",
            "a range needs at least 2 trials per arm",
        )
    factor = tolerance("em_much_larger_range")
    before, after = float(none["error_range"]), float(shared["error_range"])
    ratio = after / before if before > 0 else (np.inf if after > 0 else np.nan)
    lower = float(shared["error_min"]) < float(none["error_min"])
    ours = (
        f"error range {before:.1f} -> {after:.1f} ({ratio:.1f}x); lowest error "
        f"{none['error_min']:.1f} -> {shared['error_min']:.1f} (its ll "
        f"{none['loglik_at_error_min']:.0f} -> {shared['loglik_at_error_min']:.0f}); "
        f"{int(none['trials'])} and {int(shared['trials'])} trials "
        f"({shared['network']}, n={float(shared['n_samples']):g}, "
        f"{int(shared['n_shared'])} of {int(shared['n_hidden'])} hidden nodes shared)"
    )
    notes = (
        f"{shared['network']} (adapt10_v7e) stands in for the paper's ADAPT T2, which is not "
        f"public; much larger = at least {factor:g}x the range without sharing (tolerance "
        "em_much_larger_range); the paper shows 15 trials of n_H = 66, we use every trial of "
        "both endpoint levels; the ll at the lowest errors is reported, not judged"
    )
    return Finding(ours, judge(bool(ratio >= factor and lower)), notes)


def fig6_loglik_above(endpoints: pd.DataFrame, n: float) -> Finding | None:
    """Fig. 6: with every hidden node shared, some trials (the paper: 2 of 15) end at a higher
    log-likelihood than every trial without sharing, and the rest do not.

    ``endpoints`` is :func:`~bnstudy.studies.em.tables.endpoints_table`; ``n`` the paper's sample
    size. Holds when at least one but not every trial with sharing ends above the highest
    log-likelihood without sharing.
    """
    arms = _endpoint_arms(endpoints, _FIG6, n)
    if not isinstance(arms, tuple):
        return arms
    none, shared = arms
    above, trials = int(shared["above_best_none"]), int(shared["trials"])
    ours = (
        f"{above}/{trials} trials with sharing end above the best ll without sharing "
        f"({none['loglik_max']:.0f}); ll with sharing {shared['loglik_min']:.0f} to "
        f"{shared['loglik_max']:.0f}, without {none['loglik_min']:.0f} to "
        f"{none['loglik_max']:.0f} ({shared['network']}, n={float(shared['n_samples']):g}, "
        f"{int(shared['n_hidden'])} hidden)"
    )
    notes = (
        f"{shared['network']} (adapt10_v7e) stands in for the paper's ADAPT P1, which is not "
        f"public ({int(shared['n_hidden'])} random hidden nodes, P1's n_H = 33); its ll values "
        "(about -1.2e4) are not comparable with ours, so the claim is read as the order of the "
        "trials: at least one but not every trial with sharing above all trials without"
    )
    return Finding(ours, judge(0 < above < trials), notes)


def fig4_ot_middle_vs_ends(regions: pd.DataFrame) -> Finding | None:
    """Fig. 4: O_T's trials end mostly in the middle of the error range without sharing (the middle
    two of four regions most frequent) and mostly at its ends with sharing SB (the outer two of
    three regions most frequent).

    ``regions`` is :func:`~bnstudy.studies.em.tables.error_regions_table`. Holds when more than
    half of the trials without sharing, and fewer than half with sharing, end in the middle half
    of their own error range.
    """
    arms = _mini_adapt_pair(regions, "O_T")
    if arms is None:
        return None
    none, shared = arms
    before, after = float(none["middle_half_share"]), float(shared["middle_half_share"])
    ours = (
        f"trials in the middle half of their error range: {before:.1%} without sharing "
        f"({none['error_min']:.1f} to {none['error_max']:.1f}), {after:.1%} with SB shared "
        f"({shared['error_min']:.1f} to {shared['error_max']:.1f}); "
        f"{int(none['trials'])} and {int(shared['trials'])} trials"
    )
    notes = (
        "the paper gives no region boundaries: read as more than half of the trials in the middle "
        "half of the range without sharing (where two middle regions of four lie), fewer than "
        "half with sharing (where the outer two of three do not); see the figure for the regions"
    )
    return Finding(ours, judge(bool(before > 0.5 and after < 0.5)), notes)


def fig4_ot_outer_apart(regions: pd.DataFrame) -> Finding | None:
    """Fig. 4: with sharing SB, O_T's outer error regions lie further apart than without.

    Read as a larger distance between the 10th and 90th percentiles of the error at convergence.
    """
    arms = _mini_adapt_pair(regions, "O_T")
    if arms is None:
        return None
    none, shared = arms
    before, after = float(none["error_spread_p10_p90"]), float(shared["error_spread_p10_p90"])
    ours = (
        f"10th to 90th percentile of the error: {none['error_p10']:.2f} to "
        f"{none['error_p90']:.2f} ({before:.2f}) without sharing, {shared['error_p10']:.2f} to "
        f"{shared['error_p90']:.2f} ({after:.2f}) with SB shared"
    )
    notes = (
        "the outer regions' distance read as the distance between the 10th and 90th "
        "percentiles of the error, which lie in the outer regions when each holds more than a "
        "tenth of the trials (the paper prints no counts; see the figure for ours)"
    )
    return Finding(ours, judge(after > before), notes)


def fig3_op_extremes_smaller(regions: pd.DataFrame) -> Finding | None:
    """Fig. 3: with sharing SB, a few O_P trials end at a more extreme error than any trial without
    sharing, mostly a smaller one.

    Holds when some but fewer than half of the trials with sharing end outside the error range
    without sharing, and more of them below it than above.
    """
    arms = _mini_adapt_pair(regions, "O_P")
    if arms is None:
        return None
    none, shared = arms
    below, above = int(shared["below_none_min"]), int(shared["above_none_max"])
    trials = int(shared["trials"])
    outside = below + above
    ours = (
        f"{outside}/{trials} trials with SB shared end outside the error range without sharing "
        f"({none['error_min']:.2f} to {none['error_max']:.2f}): {below} below, {above} above"
    )
    notes = (
        "the paper shows 15 random trials per condition; we count all trials: 'a few' read as "
        "at least one but fewer than half, 'mostly smaller' as more below the range than above"
    )
    return Finding(ours, judge(bool(0 < outside < trials / 2 and below > above)), notes)


def complete_data_error(metrics: pd.DataFrame, target: float) -> Finding | None:
    """The complete-data error without sharing against the printed ``target`` (calibrated).

    The metric was chosen because it is the closest to ``target``, so the verdict is ``not
    tested`` when it is within the tolerance (agreement by construction) and ``disagrees`` when
    even the closest metric misses it.
    """
    chosen = metrics[metrics["closest_to_paper"].astype(bool) & (metrics["sharing"] == "none")]
    if chosen.empty:
        return None
    row = chosen.iloc[0]
    ratio = float(row["mean"]) / target
    within = tolerance("em_error_ratio")
    close = abs(ratio - 1) <= within
    return Finding(
        f"{row['mean']:.3f} ({row['metric']})",
        "not tested" if close else "disagrees",
        f"calibrated: the metric was chosen as the one closest to {target:g}; "
        f"{'within' if close else 'outside'} {within:.0%} of it (tolerance em_error_ratio)",
        calibrated=True,
    )


def em_findings(
    catalog: Catalog,
    table3: pd.DataFrame,
    table4: pd.DataFrame,
    metrics: pd.DataFrame,
    paper3: pd.DataFrame,
    endpoints: pd.DataFrame | None = None,
    regions: pd.DataFrame | None = None,
) -> dict[str, Finding]:
    """Our finding for every EM claim our runs can speak to.

    Parameters
    ----------
    catalog : Catalog
        The EM paper's claims.
    table3, table4, metrics : DataFrame
        The outputs of :func:`~bnstudy.studies.em.tables.sharing_table` (its table),
        :func:`~bnstudy.studies.em.tables.mini_adapt_table` and
        :func:`~bnstudy.studies.em.tables.error_metric_table`.
    paper3 : DataFrame
        The paper's Table 3 (``workflow/published/em_table3.tsv``).
    endpoints : DataFrame, optional
        The output of :func:`~bnstudy.studies.em.tables.endpoints_table` (Figs. 5 and 6); their
        claims are not run without it.
    regions : DataFrame, optional
        The output of :func:`~bnstudy.studies.em.tables.error_regions_table` (Figs. 3 and 4);
        their claims are not run without it.
    """
    findings = {
        "em.error_spread": error_spread(table3, paper3),
        "em.pigs_iteration_signs": pigs_iteration_signs(table3, paper3),
        "em.mini_adapt_ot_error_std": mini_adapt_change(table4, "O_T", "error_std", "up"),
        "em.mini_adapt_op_error_std": mini_adapt_change(table4, "O_P", "error_std", "up"),
        "em.mini_adapt_ot_iterations": mini_adapt_change(table4, "O_T", "iterations_mean", "down"),
        "em.complete_data_error": complete_data_error(
            metrics, catalog.value("em.complete_data_error")
        ),
        "em.mini_adapt_ot_loglik": mini_adapt_loglik(
            table4, "O_T", catalog.value("em.mini_adapt_ot_loglik")
        ),
        "em.mini_adapt_op_largest_change": mini_adapt_largest_change(table4, "O_P", "loglik_std"),
        "em.mini_adapt_op_means_minor": mini_adapt_minor(
            table4, "O_P", ("error_mean", "loglik_mean", "iterations_mean")
        ),
        "em.mini_adapt_ot_error_mean_minor": mini_adapt_minor(table4, "O_T", ("error_mean",)),
    }
    findings |= {
        "em.fig2_iterations_mean": fig2_signs(
            table3, catalog.value("em.fig2_iterations_mean"), {"r_iterations_mean": 1}
        ),
        "em.fig2_loglik_mean": fig2_signs(
            table3, catalog.value("em.fig2_loglik_mean"), {"r_loglik_mean": -1}
        ),
        "em.fig2_std_grows": fig2_signs(
            table3,
            catalog.value("em.fig2_std_grows"),
            {"r_iterations_std": 1, "r_loglik_std": 1, "r_error_std": 1},
        ),
    }
    if endpoints is not None:
        findings |= {
            "em.fig5_error_range": fig5_error_range(
                endpoints, catalog.value("em.fig5_error_range")
            ),
            "em.fig6_loglik_above": fig6_loglik_above(
                endpoints, catalog.value("em.fig6_loglik_above")
            ),
        }
    if regions is not None:
        findings |= {
            "em.fig3_op_extremes_smaller": fig3_op_extremes_smaller(regions),
            "em.fig4_ot_middle_vs_ends": fig4_ot_middle_vs_ends(regions),
            "em.fig4_ot_outer_apart": fig4_ot_outer_apart(regions),
        }
    return {k: v for k, v in findings.items() if v is not None}


def paper_claims(
    catalog: Catalog,
    table3: pd.DataFrame,
    table4: pd.DataFrame,
    metrics: pd.DataFrame,
    paper3: pd.DataFrame,
    endpoints: pd.DataFrame | None = None,
    regions: pd.DataFrame | None = None,
    *,
    scale: str,
) -> pd.DataFrame:
    """The EM paper's claims table (columns of :data:`bnstudy.studies.claims.COLUMNS`)."""
    findings = em_findings(catalog, table3, table4, metrics, paper3, endpoints, regions)
    return assemble(catalog, findings, scale=scale)
