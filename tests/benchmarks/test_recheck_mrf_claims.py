"""benchmarks/recheck_mrf_claims.py on the committed archive's own runs, unchanged and altered."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import recheck_mrf_claims as rc

ARCHIVE = Path(__file__).resolve().parents[2] / "archive" / "paper_cpu" / "mrf"
PAIR = ("small_grid", "mh_auxvar")


@pytest.fixture(scope="module")
def archived_runs() -> pd.DataFrame:
    return pd.read_csv(ARCHIVE / "tables" / "runs.csv.gz")


def write_pair(run_dir: Path, runs: pd.DataFrame, blocks: int = 2) -> None:
    """The pair's runs as ``fit_mrf`` writes them, split into ``blocks`` blocks of replicates."""
    reps = sorted(runs["rep"].unique())
    for b in range(blocks):
        block = runs[runs["rep"].isin(reps[b::blocks])]
        out = run_dir / "results" / "mrf" / PAIR[0] / PAIR[1] / f"block={b}"
        out.mkdir(parents=True)
        block.to_csv(out / "metrics.csv", index=False)


def pair_runs(runs: pd.DataFrame) -> pd.DataFrame:
    return runs[(runs.simulation == PAIR[0]) & (runs.estimator == PAIR[1])].copy()


def test_the_archives_own_runs_change_nothing(tmp_path, archived_runs, capsys):
    write_pair(tmp_path, pair_runs(archived_runs))
    assert rc.main([str(tmp_path), "--archive", str(ARCHIVE)]) == 0
    out = capsys.readouterr().out
    n = len(pair_runs(archived_runs))
    assert f"| {PAIR[0]}   | {PAIR[1]}   |    {n} |                {n} |" in out
    assert "Claims whose value moved (0 of" in out
    assert "Verdicts changed: 0" in out


def test_merging_keeps_the_archives_order_and_every_other_run(archived_runs):
    new = pair_runs(archived_runs).sample(frac=1.0, random_state=0)  # blocks in any order
    merged, pairs = rc.merge(archived_runs, new)
    pd.testing.assert_frame_equal(merged, archived_runs)
    assert pairs.loc[0, "equal to the bit"] == len(new)
    assert pairs.loc[0, "largest relative difference"] == 0.0


def test_rounding_in_the_last_bits_is_told_apart_from_a_change(archived_runs):
    # another CPU's vector kernels: the same chains, results a few ulps apart
    new = pair_runs(archived_runs)
    odd = new["rep"] % 2 == 1
    new.loc[odd, "mae"] *= 1 + 2e-15
    _, pairs = rc.merge(archived_runs, new)
    assert pairs.loc[0, "equal to the bit"] == len(new) - int(odd.sum())
    assert 1e-15 < pairs.loc[0, "largest relative difference"] < 3e-15


def test_relative_difference_of_missing_and_infinite_values():
    same = pd.Series([1.0, float("nan"), float("inf"), 0.0])
    assert rc.relative_difference(same, same.copy()) == 0.0
    assert rc.relative_difference(same, pd.Series([1.0, 2.0, float("inf"), 0.0])) == float("inf")
    assert rc.relative_difference(same, pd.Series([1.0, float("nan"), 5.0, 0.0])) == float("inf")
    assert rc.relative_difference(same, pd.Series([0.5, float("nan"), float("inf"), 0.0])) == 0.5


def test_a_changed_sampler_flips_the_claim_it_decides(tmp_path, archived_runs, capsys):
    # the archive has MH_AuxVar below Gibbs_SBA's error at n = 100 ("disagrees": the paper says
    # slightly worse); raising MH_AuxVar's error there must turn the verdict
    new = pair_runs(archived_runs)
    small = new["n"] == new["n"].min()
    new.loc[small, "mae"] += 0.05
    write_pair(tmp_path, new)
    assert rc.main([str(tmp_path), "--archive", str(ARCHIVE)]) == 1
    out = capsys.readouterr().out
    equal = len(new) - int(small.sum())
    assert f"|                {equal} |" in out
    moved = [line for line in out.splitlines() if "mrf.small_grid.mh_worse_at_small_n" in line]
    assert moved and "disagrees" in moved[0] and "agrees" in moved[0].replace("disagrees", "")


def test_a_pair_missing_runs_is_refused(tmp_path, archived_runs):
    runs = pair_runs(archived_runs)
    write_pair(tmp_path, runs[runs["rep"] != runs["rep"].max()])
    with pytest.raises(SystemExit, match="lacks 10 of the archive's 500 runs"):
        rc.main([str(tmp_path), "--archive", str(ARCHIVE)])


def test_an_empty_run_directory_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="no fit_mrf outputs under"):
        rc.main([str(tmp_path), "--archive", str(ARCHIVE)])
