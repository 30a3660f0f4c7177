"""benchmarks/check_em_shared_start.py: both starts on pigs, and the check that binds them."""

from __future__ import annotations

import check_em_shared_start as check
import pandas as pd


def test_both_starts_run_and_agree_without_sharing(mirror, capsys):
    status = check.main(
        ["--data", str(mirror), "--networks", "pigs", "--ns", "25", "--trials", "1", "--jobs", "1"]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert "no-sharing trials equal to the bit under both starts: True" in out
    rows = [line.split("|")[3].strip() for line in out.splitlines() if line.startswith("| pigs")]
    assert rows == ["apart", "paper", "tied"]


def test_the_tied_start_is_one_table_per_set_and_apart_is_the_studys(mirror):
    apart = check.cell((mirror, "pigs", 25, 1, "apart"))
    tied = check.cell((mirror, "pigs", 25, 1, "tied"))
    keys = ["n_shared", "trial"]
    a, t = apart.set_index(keys)["loglik"], tied.set_index(keys)["loglik"]
    pd.testing.assert_series_equal(a.loc[[0]], t.loc[[0]])  # no sharing: one start
    assert (a.drop(index=0, level=0) != t.drop(index=0, level=0)).all()  # sharing: two starts
    settings = check.TiedStartSettings.from_config(check.EM)
    assert settings.estimator([["a", "b"]]).init == "random_shared"
    assert check.EMSettings.from_config(check.EM).estimator(None).init == "random"
