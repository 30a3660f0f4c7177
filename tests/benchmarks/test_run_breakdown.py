"""benchmarks/run_breakdown.py: a run's benchmark files summed per paper, rule and wildcards."""

from __future__ import annotations

from pathlib import Path

import pytest
import run_breakdown as rb

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
PATTERNS = {
    "train_tan": "logs/benchmarks/train_tan/{dataset}/{model}/fold={fold}/{protocol}.tsv",
    "fit_mrf": "logs/benchmarks/fit_mrf/{simulation}/{estimator}.tsv",
    "make_table_tan": "logs/benchmarks/make_table_tan.tsv",
}
PAPERS = {"train_tan": "tan", "make_table_tan": "tan", "fit_mrf": "mrf"}


def bench(root: Path, rel: str, cpu: float) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{cpu + 1}\t0:00:01\t1\t1\t1\t1\t0\t0\t50\t{cpu}\n")


@pytest.fixture
def run(tmp_path):
    for fold, cpu in ((0, 3600.0), (1, 1800.0)):
        bench(tmp_path, f"train_tan/letter/nb/fold={fold}/test.tsv", cpu)
        bench(tmp_path, f"train_tan/letter/nb/fold={fold}/validation.tsv", cpu / 2)
    bench(tmp_path, "train_tan/letter/tan_all/fold=0/test.tsv", 720.0)
    bench(tmp_path, "make_table_tan.tsv", 36.0)
    bench(tmp_path, "fit_mrf/tree/dp.tsv", 7200.0)
    bench(tmp_path, "retired_rule/x.tsv", 99.0)  # no rule claims it: not counted
    return tmp_path


def test_sums_per_paper_and_rule_most_time_first(run):
    table = rb.breakdown(run, PATTERNS, PAPERS)
    assert list(zip(table["paper"], table["rule"], table["jobs"], strict=True)) == [
        ("mrf", "fit_mrf", 1),
        ("tan", "train_tan", 5),
        ("tan", "make_table_tan", 1),
    ]
    assert table["cpu_h"].tolist() == pytest.approx([2.0, 1.5 + 0.75 + 0.2, 0.01])
    assert table["share"].sum() == pytest.approx(1.0)


def test_by_wildcards_within_the_named_rules(run):
    table = rb.breakdown(run, PATTERNS, PAPERS, rules=["train_tan"], by=["model", "protocol"])
    got = {(m, p): (j, h) for m, p, j, h in table[["model", "protocol", "jobs", "cpu_h"]].values}
    assert got == {
        ("nb", "test"): (2, pytest.approx(1.5)),
        ("nb", "validation"): (2, pytest.approx(0.75)),
        ("tan_all", "test"): (1, pytest.approx(0.2)),
    }
    assert table["model"].tolist()[0] == "nb"  # most time first
    # a wildcard a rule lacks is empty, not an error
    mixed = rb.breakdown(run, PATTERNS, PAPERS, by=["simulation"])
    assert set(mixed["simulation"]) == {"tree", ""}


def test_unknown_rule_and_empty_selection_are_errors(run, tmp_path):
    with pytest.raises(ValueError, match=r"no rule named \['train_tna'\]"):
        rb.breakdown(run, PATTERNS, PAPERS, rules=["train_tna"])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no benchmark file under .*empty"):
        rb.breakdown(empty, PATTERNS, PAPERS)
