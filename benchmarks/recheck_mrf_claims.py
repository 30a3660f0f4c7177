"""Do the archived mrf verdicts still hold after a change to some estimators? Check it on part of a run.

A change to one sampler changes the code version of every ``fit_mrf`` job, so the archive's mrf
part is flagged as changed since, and only a rerun of the whole part (about 5 to 7 core-hours on
2 cores) replaces it. This script answers the narrower question before that rerun: it takes the
``fit_mrf`` outputs of a run directory that reran some (simulation, estimator) pairs at the
archive's scale (``snakemake results/mrf/small_grid/mh_auxvar/block=0/metrics.csv ...
--configfile config/paper_cpu.yaml``), and

- checks that each pair covers every (n, replicate) run the archive has for it;
- counts the runs whose results equal the archived ones to the bit (every column but the
  timings and the code's version), so that a pair whose code did not change shows it, and
  gives the largest relative difference of a numeric result: on another CPU model, where NumPy
  and OpenBLAS pick other vector kernels, the same chains give results that differ in the last
  bits (about 1e-15), while a changed chain moves them by far more;
- puts the new runs in place of the archived ones in the archive's ``runs.csv.gz``, and
  recomputes the summary, Table 1 (run time) and the claims as ``make_table_mrf_summary``,
  ``make_table_mrf_runtime`` and ``make_table_mrf_claims`` do (Table 2, the Senate's, is read
  from the archive: the Senate runs are not simulations);
- prints every claim whose verdict or value differs from the archived one, and exits 1 when a
  verdict differs.

The result is not an archive: the runs mix two commits (and, for Table 1's run times, two
machines when the run directory's machine is not the archive's, which the claims that compare
run times read). ``snakemake archive_mrf`` on the current code replaces the part.

Usage, from the repository root (``PYTHONPATH=src`` outside the installed environment)::

    python benchmarks/recheck_mrf_claims.py RUN_DIR [--archive archive/paper_cpu/mrf]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from bnstudy.studies.claims import read_catalog, tally
from bnstudy.studies.mrf.claims import paper_claims
from bnstudy.studies.mrf.tables import concat_runs, runtime_table, summarize_runs

ROOT = Path(__file__).resolve().parents[1]
KEYS = ["simulation", "estimator", "n", "rep"]
#: Columns that differ between runs of the same computation: timings and the code's identity.
NOT_RESULTS = {"seconds", "init_seconds", "bnstudy_version", "git_commit", "git_dirty", "code_hash"}


def new_runs(run_dir: Path) -> pd.DataFrame:
    """Every ``fit_mrf`` block's runs under ``run_dir/results/mrf`` (the simulations only)."""
    files = sorted((run_dir / "results" / "mrf").glob("*/*/block=*/metrics.csv"))
    if not files:
        raise SystemExit(f"no fit_mrf outputs under {run_dir / 'results' / 'mrf'}")
    return pd.concat([pd.read_csv(f) for f in files], ignore_index=True)


def relative_difference(a: pd.Series, b: pd.Series) -> float:
    """The largest ``|a - b| / max(|a|, |b|)`` over the rows; 0 where both are equal or NaN,
    ``inf`` where only one is NaN."""
    a, b = a.to_numpy(dtype=float), b.to_numpy(dtype=float)
    nan = np.isnan(a)
    if (nan != np.isnan(b)).any():
        return float("inf")
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.abs(a - b) / np.maximum(np.abs(a), np.abs(b))
    rel = np.where((a == b) | nan, 0.0, np.where(np.isfinite(a) & np.isfinite(b), rel, np.inf))
    return float(rel.max(initial=0.0))


def merge(archived: pd.DataFrame, new: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The archive's runs with ``new``'s pairs replaced, and per pair the runs equal to the bit."""
    rows = []
    kept = archived
    for (sim, est), runs in new.groupby(["simulation", "estimator"], sort=False):
        old = archived[(archived.simulation == sim) & (archived.estimator == est)]
        if old.empty:
            raise SystemExit(f"{sim}/{est}: the archive has no runs of this pair")
        want = set(map(tuple, old[["n", "rep"]].to_numpy().tolist()))
        have = set(map(tuple, runs[["n", "rep"]].to_numpy().tolist()))
        if want - have:
            missing = sorted(want - have)[:5]
            raise SystemExit(
                f"{sim}/{est}: the run directory lacks {len(want - have)} of the archive's "
                f"{len(want)} runs, e.g. (n, rep) = {missing}: rerun every block of the pair"
            )
        cols = [c for c in old.columns if c not in NOT_RESULTS and c in runs.columns]
        both = old[cols].merge(runs[cols], on=["n", "rep"], suffixes=("_old", "_new"))
        same = pd.Series(True, index=both.index)
        largest = 0.0
        for c in cols:
            if c in ("n", "rep"):
                continue
            a, b = both[f"{c}_old"], both[f"{c}_new"]
            same &= (a == b) | (a.isna() & b.isna())
            if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
                largest = max(largest, relative_difference(a, b))
        codes = sorted(runs["code_hash"].astype(str).unique())
        rows.append(
            {
                "simulation": sim,
                "estimator": est,
                "runs": len(runs),
                "equal to the bit": int(same.sum()),
                "largest relative difference": largest,
                "code": ", ".join(codes),
            }
        )
        kept = kept[~((kept.simulation == sim) & (kept.estimator == est))]
    # the archive's order of pairs (concat_runs keeps a pair where it first appears)
    pairs = archived[["simulation", "estimator"]].drop_duplicates()
    rank = pd.Series(range(len(pairs)), index=pd.MultiIndex.from_frame(pairs))
    merged = pd.concat([kept, new.reindex(columns=archived.columns)], ignore_index=True)
    merged["_pair"] = rank.loc[pd.MultiIndex.from_frame(merged[["simulation", "estimator"]])].values
    merged = merged.sort_values(["_pair", "n", "rep"], kind="stable").drop(columns="_pair")
    return concat_runs([merged]), pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", type=Path, help="a checkout that ran some fit_mrf jobs")
    parser.add_argument("--archive", type=Path, default=ROOT / "archive" / "paper_cpu" / "mrf")
    args = parser.parse_args(argv)
    tables = args.archive / "tables"
    archived_claims = pd.read_csv(tables / "claims.csv")
    scale = str(archived_claims["scale"].iloc[0])
    runs, pairs = merge(pd.read_csv(tables / "runs.csv.gz"), new_runs(args.run_dir))
    print("Runs replaced:")
    print(pairs.to_markdown(index=False))
    runtime = runtime_table(
        runs, pd.read_csv(ROOT / "workflow/published/mrf_table1.tsv", sep="\t", comment="#")
    )
    claims = paper_claims(
        read_catalog(ROOT / "workflow/published/claims.tsv", "mrf"),
        summarize_runs(runs),
        runtime,
        pd.read_csv(tables / "table2_senate.csv"),
        scale=scale,
    )
    both = archived_claims[["claim_id", "verdict", "ours"]].merge(
        claims[["claim_id", "verdict", "ours"]], on="claim_id", suffixes=(" archived", " recheck")
    )
    if len(both) != len(claims) or len(both) != len(archived_claims):
        print("the claim catalogue differs from the archive's", file=sys.stderr)
        return 1
    changed = both[(both["verdict archived"] != both["verdict recheck"])]
    moved = both[both["ours archived"] != both["ours recheck"]]
    print(f"\nArchived: {tally(archived_claims['verdict'])}; recheck: {tally(claims['verdict'])}")
    print(f"\nClaims whose value moved ({len(moved)} of {len(both)}):")
    print(moved.to_markdown(index=False) if len(moved) else "none")
    print(f"\nVerdicts changed: {len(changed)}")
    return 1 if len(changed) else 0


if __name__ == "__main__":
    sys.exit(main())
