"""benchmarks/tan_gpu_cost.py: the runs it counts are the config's, and its hours their quotient."""

from __future__ import annotations

import json

import pytest
import tan_gpu_cost
import yaml


@pytest.fixture
def paper(repo_root):
    return yaml.safe_load((repo_root / "config" / "paper.yaml").read_text())


@pytest.fixture
def paper_tan(paper):
    return paper["tan"]


def test_counts_are_the_grids_sizes(paper, paper_tan):
    counts = tan_gpu_cost.run_counts(paper, ["bnc_usps"])
    models, lrs = paper_tan["models"], len(paper_tan["learning_rates"])

    def size(model, *axes):
        n = models[model]["settings"] * lrs
        for axis in axes:
            n *= len(models[model][axis])
        return n

    expected = {
        "nb": size("nb"),
        "tan_random": size("tan_random", "orderings", "draws") + size("chow_liu"),
        "tan_subset": size("tan_subset", "K", "orderings", "draws")
        + size("tan_heuristic", "K", "orderings")
        + size("pseudo_tan", "K", "draws"),
    }
    for protocol in paper_tan["protocols"]:
        got = counts[counts["protocol"] == protocol].set_index("rate")["runs"].to_dict()
        assert got == expected, protocol
    assert expected["tan_subset"] == 18_400  # the figure docs/performance.md gives


def test_hours_are_runs_over_the_rate(paper, paper_tan, tmp_path):
    rates = [
        {"shape": "usps", "model": m, "S": 16, "device": "cuda", "paper_runs_per_hour": r}
        for m, r in (("nb", 100.0), ("tan_random", 50.0), ("tan_subset", 10.0))
    ]
    path = tmp_path / "rates.json"
    path.write_text(json.dumps(rates))
    counts = tan_gpu_cost.run_counts(paper, ["bnc_usps"])
    table = tan_gpu_cost.gpu_hours(counts, tan_gpu_cost.read_rates(path, 16)[0], paper_tan)
    row = table.set_index(["rate", "protocol"]).loc[("tan_subset", "validation")]
    assert row["hours"] == pytest.approx(row["runs"] * (1 - paper_tan["validation_fraction"]) / 10)
    with pytest.raises(ValueError, match="no batched-vs-sequential result at 32"):
        tan_gpu_cost.read_rates(path, 32)
    with pytest.raises(ValueError, match=r"no measured rate.*mnist"):
        mnist = tan_gpu_cost.run_counts(paper, ["mnist"])
        tan_gpu_cost.gpu_hours(mnist, tan_gpu_cost.read_rates(path, 16)[0], paper_tan)


def test_values_per_dataset_are_resolved(paper, paper_tan):
    """A grid value given per dataset (as paper_cpu.yaml may) counts that dataset's value."""
    paper_tan["models"]["nb"]["settings"] = {"bnc_usps": 7, "mnist": 3}
    counts = tan_gpu_cost.run_counts(paper, ["bnc_usps", "mnist"])
    nb = counts[(counts["rate"] == "nb") & (counts["protocol"] == "test")]
    lrs = len(paper_tan["learning_rates"])
    assert nb.set_index("dataset")["runs"].to_dict() == {"bnc_usps": 7 * lrs, "mnist": 3 * lrs}
