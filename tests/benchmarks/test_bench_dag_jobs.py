"""The output comparison and job table of benchmarks/bench_dag_jobs.py, on files written here."""

from __future__ import annotations

import bench_dag_jobs as dag
import numpy as np
import pandas as pd
import pytest

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _checkouts(tmp_path):
    ref, new = tmp_path / "ref", tmp_path / "new"
    for tree, commit, seconds in ((ref, "a" * 40, 3.5), (new, "b" * 40, 1.25)):
        out = tree / "results" / "x"
        out.mkdir(parents=True)
        frame = pd.DataFrame({"n": [1, 2], "mae": [0.5, 0.25], "seconds": [seconds, 2.0]})
        frame.assign(git_commit=commit, time_ropart_s=seconds).to_csv(out / "m.csv", index=False)
        np.savez(out / "e.npz", theta=np.array([0.1, np.nan]), provenance=np.array(commit))
        (out / "t.txt").write_text("same")
    return ref, new


def test_outputs_equal_but_for_times_and_provenance(tmp_path):
    ref, new = _checkouts(tmp_path)
    targets = ["results/x/m.csv", "results/x/e.npz", "results/x/t.txt"]
    assert dag.compare_outputs(ref, new, targets) == []


@pytest.mark.parametrize(
    ("target", "spoil"),
    [
        ("results/x/m.csv", lambda p: pd.read_csv(p).assign(mae=[0.5, 0.3]).to_csv(p, index=False)),
        ("results/x/m.csv", lambda p: pd.read_csv(p).assign(extra=1).to_csv(p, index=False)),
        ("results/x/e.npz", lambda p: np.savez(p, theta=np.array([0.1, 0.2]), provenance="b")),
        ("results/x/e.npz", lambda p: np.savez(p, theta=np.array([0.1, np.nan]), other=1)),
        ("results/x/t.txt", lambda p: p.write_text("other")),
        ("results/x/t.txt", lambda p: p.unlink()),
    ],
)
def test_a_changed_or_missing_output_is_named(tmp_path, target, spoil):
    ref, new = _checkouts(tmp_path)
    spoil(new / target)
    targets = list(dict.fromkeys(["results/x/m.csv", "results/x/e.npz", "results/x/t.txt", target]))
    assert dag.compare_outputs(ref, new, targets) == [target]


def test_jobs_are_the_benchmark_files_both_checkouts_wrote(tmp_path, capsys):
    ref, new = tmp_path / "ref", tmp_path / "new"
    for tree, cpu in ((ref, "6.0"), (new, "4.0")):
        for job in ("fit/a.tsv", "fit/b.tsv"):
            path = tree / "logs" / "benchmarks" / job
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(HEADER + f"9.0\t0:00:09\t1\t1\t1\t1\t0\t0\t50\t{cpu}\n")
    (ref / "logs" / "benchmarks" / "fit" / "a.tsv").rename(ref / "logs" / "benchmarks" / "only.tsv")
    rows = dag.benchmark_rows(ref, new)
    assert rows == [("fit/b.tsv", 6.0, 4.0)]
    dag.report(rows, "ref", "new")
    assert "1.50x" in capsys.readouterr().out
