"""The cost model of benchmarks/cost_model.py on synthetic benchmark files and a tiny workflow."""

from __future__ import annotations

import textwrap
from pathlib import Path

import cost_model as cm
import numpy as np
import pandas as pd
import pytest

from bnstudy.parameters.sharing import gradual_sharing_sets

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def write_tsv(path: Path, rows: list[tuple[float, str]]) -> None:
    """A Snakemake benchmark file with one row per (wall seconds, cpu_time text)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{s}\t0:00:01\t1\t1\t1\t1\t0\t0\t50\t{cpu}\n" for s, cpu in rows]
    path.write_text(HEADER + "".join(lines))


def test_read_benchmark_means_repeats_and_falls_back_to_wall_time(tmp_path):
    write_tsv(tmp_path / "a.tsv", [(2.0, "1.0"), (4.0, "3.0")])
    assert cm.read_benchmark(tmp_path / "a.tsv") == 2.0
    write_tsv(tmp_path / "b.tsv", [(5.0, "NA")])
    assert cm.read_benchmark(tmp_path / "b.tsv") == 5.0
    (tmp_path / "c.tsv").write_text("x\ty\n1\t2\n")
    with pytest.raises(ValueError, match="c.tsv: not a Snakemake benchmark file"):
        cm.read_benchmark(tmp_path / "c.tsv")


PATTERNS = {
    "run_em_sharing": "logs/benchmarks/run_em_sharing/{network,pigs|adapt}/n={n,[1-9][0-9]*}.tsv",
    "run_em": "logs/benchmarks/run_em/{network}.tsv",
    "fetch_raw_file": "logs/benchmarks/fetch_raw_file/{rawpath,bif/alarm\\.bif\\.gz}.tsv",
    "make_table_em_sharing": "logs/benchmarks/make_table_em_sharing.tsv",
    "all": "",
}


def test_files_match_their_rule_wherever_the_folder_moved(tmp_path):
    old = tmp_path / "benchmarks" / "results"  # the old layout, matched by the new patterns
    write_tsv(old / "run_em_sharing" / "pigs" / "n=25.tsv", [(1.0, "1.5")])
    write_tsv(old / "run_em" / "pigs.tsv", [(1.0, "0.5")])
    write_tsv(old / "fetch_raw_file" / "bif" / "alarm.bif.gz.tsv", [(1.0, "0.0")])
    write_tsv(old / "make_table_em_sharing.tsv", [(1.0, "0.4")])
    write_tsv(old / "retired_rule" / "x.tsv", [(1.0, "9")])
    for root in (old, tmp_path / "benchmarks", tmp_path):
        measured, unmatched = cm.match_benchmarks(root, PATTERNS)
        found = {(job.rule, tuple(sorted(job.wildcards.items()))): cpu for job, cpu in measured}
        assert found == {
            ("run_em_sharing", (("n", "25"), ("network", "pigs"))): 1.5,
            ("run_em", (("network", "pigs"),)): 0.5,
            ("fetch_raw_file", (("rawpath", "bif/alarm.bif.gz"),)): 0.0,
            ("make_table_em_sharing", ()): 0.4,
        }
        assert [u.endswith("retired_rule/x.tsv") for u in unmatched] == [True]
    with pytest.raises(ValueError, match="does not exist"):
        cm.match_benchmarks(tmp_path / "nope", PATTERNS)


@pytest.mark.parametrize(("first", "step"), [(10, 15), (10, 70), (2, 4), (2, 60), (1, 1), (3, 145)])
def test_em_levels_count_the_library_gradual_sharing(first, step):
    config = {
        "em": {
            "sharing": {
                "hidden_group": {"pigs": 2},
                "first": {"pigs": first},
                "step": {"pigs": step},
            }
        }
    }
    hidden = [f"h{i}" for i in range(145)]
    levels = gradual_sharing_sets(hidden, step, rng=np.random.default_rng(0), first=first)
    assert cm.em_levels(config, "pigs") == len(levels)


def em_config(trials: int, step: int) -> dict:
    return {
        "em": {
            "sharing": {
                "trials": trials,
                "hidden_group": {"pigs": 2, "adapt": 1},
                "first": {"pigs": 10, "adapt": 2},
                "step": {"pigs": step, "adapt": 60},
            },
            "mini_adapt": {"trials": 4, "n_samples": 500},
        }
    }


def test_predict_scales_the_work_above_startup_by_job_size():
    small, big = em_config(trials=2, step=70), em_config(trials=50, step=15)
    sharing = cm.SIZES["run_em_sharing"].size
    # pigs: 4 levels in the small config (0, 10, 80, 145), 11 in the big one
    assert sharing({"network": "pigs", "n": "25"}, small) == 2 * 4 * 25
    assert sharing({"network": "pigs", "n": "400"}, big) == 50 * 11 * 400
    measured = [
        cm.Measured(cm.Job("run_em_sharing", {"network": "pigs", "n": "25"}), 1.5, 200),
        cm.Measured(cm.Job("run_em_sharing", {"network": "pigs", "n": "50"}), 2.5, 400),
        cm.Measured(cm.Job("run_em_sharing", {"network": "adapt", "n": "25"}), 9.0, 200),
        cm.Measured(cm.Job("make_table_em_sharing", {}), 0.5, 1),
    ]
    jobs = [
        cm.Job("run_em_sharing", {"network": "pigs", "n": "400"}, "em"),
        cm.Job("make_table_em_sharing", {}, "em"),
        cm.Job("plot_em_figures", {}, "em"),
    ]
    pred = cm.predict(measured, jobs, big, startup=None)
    # pigs has two sizes and a rising line: its startup is the fitted intercept, 0.5, and its
    # rate the slope (1.5 - 0.5) / 200 = (2.5 - 0.5) / 400 = 0.005 per unit
    start = 0.5
    rate = ((1.5 - start) + (2.5 - start)) / (200 + 400)
    size = 50 * 11 * 400
    row = pred.iloc[0]
    assert row["cpu_s"] == pytest.approx(start + rate * size)
    assert row["all_linear_s"] == pytest.approx((1.5 + 2.5) / 600 * size)
    assert row["basis"] == "same network, fit"
    assert pred.iloc[1]["cpu_s"] == pytest.approx(0.5)  # a fixed-size rule keeps its time
    assert pred.iloc[2]["basis"] == "unmeasured"
    assert pred.iloc[2]["cpu_s"] == pytest.approx(0.5)  # the default startup: fixed rules' median
    # one size per group: the rule's line falls (adapt costs more per unit), so the default
    # startup (0.5, the fixed rules' median) is used
    adapt = cm.predict(measured, [cm.Job("run_em_sharing", {"network": "adapt", "n": "50"})], small)
    assert adapt.iloc[0]["cpu_s"] == pytest.approx(0.5 + (9.0 - 0.5) / 200 * 400)
    assert adapt.iloc[0]["basis"] == "same network"


def test_rule_startup_is_the_clipped_intercept():
    assert cm.rule_startup([(100, 2.0), (300, 4.0)], default=0.3) == pytest.approx(1.0)
    assert cm.rule_startup([(100, 2.0), (300, 2.1)], default=0.3) == pytest.approx(1.95)
    assert cm.rule_startup([(100, 0.2), (300, 5.0)], default=0.3) == 0.0  # negative intercept
    assert cm.rule_startup([(100, 2.0), (100, 4.0)], default=0.3) == 0.3  # one size only
    assert cm.rule_startup([(100, 2.0), (150, 4.0)], default=0.3) == 0.3  # sizes too close
    assert cm.rule_startup([(100, 0.1)], default=0.3) == 0.1  # never above the smallest time


def test_unmeasured_group_falls_back_to_the_rule_and_says_so():
    config = em_config(trials=2, step=70)
    measured = [cm.Measured(cm.Job("run_em_sharing", {"network": "pigs", "n": "25"}), 3.0, 200)]
    jobs = [cm.Job("run_em_sharing", {"network": "adapt", "n": "25"}, "em")]
    pred = cm.predict(measured, jobs, config, startup=1.0)
    levels = cm.em_levels(config, "adapt")
    assert pred.iloc[0]["basis"] == "rule (other network)"
    assert pred.iloc[0]["cpu_s"] == pytest.approx(1.0 + 2.0 / 200 * 2 * levels * 25)


def test_measure_sizes_each_job_in_its_own_run_config(tmp_path):
    write_tsv(tmp_path / "run_em_sharing" / "pigs" / "n=25.tsv", [(1.0, "1.5")])
    found, unmatched = cm.measure(tmp_path, PATTERNS, em_config(trials=2, step=70))
    assert unmatched == []
    assert [(m.job.rule, m.cpu, m.size) for m in found] == [("run_em_sharing", 1.5, 2 * 4 * 25)]


def test_tables_per_rule_and_paper():
    pred = pd.DataFrame(
        {
            "paper": ["em", "em", "tan"],
            "rule": ["a", "a", "b"],
            "size": [1, 1, 1],
            "cpu_s": [3600.0, 7200.0, 1800.0],
            "all_linear_s": [3600.0, 7200.0, 3600.0],
            "basis": ["rule", "rule", "unmeasured"],
        }
    )
    table = cm.summarize(pred, [cm.Measured(cm.Job("a", {}), 1.0, 1.0)])
    assert table.to_dict("list") == {
        "paper": ["em", "tan"],
        "rule": ["a", "b"],
        "jobs": [2, 1],
        "measured": [1, 0],
        "cpu_h": [3.0, 0.5],
        "all_linear_h": [3.0, 1.0],
        "basis": ["rule", "unmeasured"],
    }
    totals = cm.paper_totals(table).set_index("paper")
    assert totals.loc["total", "cpu_h"] == 3.5 and totals.loc["total", "jobs"] == 3


TINY_SNAKEFILE = """
configfile: "config/config.yaml"

rule all:
    input: expand("out/run_em_mini_adapt/{o}.txt", o=config["observables"])

rule run_em_mini_adapt:
    output: "out/run_em_mini_adapt/{o}.txt"
    benchmark: "logs/benchmarks/run_em_mini_adapt/{o}.tsv"
    shell: "touch {output}"
"""


@pytest.mark.slow
def test_end_to_end_on_a_tiny_workflow(tmp_path, capsys):
    repo = tmp_path / "repo"
    (repo / "config").mkdir(parents=True)
    (repo / "Snakefile").write_text(textwrap.dedent(TINY_SNAKEFILE))
    (repo / "config" / "config.yaml").write_text(
        "observables: [O_C]\nem: {mini_adapt: {trials: 4, n_samples: 500}}\n"
    )
    (repo / "config" / "big.yaml").write_text(
        "observables: [O_C, O_P, O_T]\nem: {mini_adapt: {trials: 40, n_samples: 500}}\n"
    )
    bench = tmp_path / "measured"
    write_tsv(bench / "run_em_mini_adapt" / "O_C.tsv", [(3.0, "2.0")])
    plan = cm.plan(repo / "config" / "big.yaml", repo=repo)
    assert sorted(j["wildcards"]["o"] for j in plan["jobs"]) == ["O_C", "O_P", "O_T"]
    assert {j["rule"] for j in plan["jobs"]} == {"run_em_mini_adapt"}  # `all` runs nothing
    assert plan["config"]["em"]["mini_adapt"]["trials"] == 40
    out = cm.run(
        [(repo / "config" / "config.yaml", bench)],
        [repo / "config" / "big.yaml"],
        startup=0.5,
        repo=repo,
    )
    table, totals = out[str(repo / "config" / "big.yaml")]
    row = table.set_index("rule").loc["run_em_mini_adapt"]
    assert row["jobs"] == 3 and row["measured"] == 1
    assert row["cpu_h"] == pytest.approx(3 * (0.5 + 1.5 * 10) / 3600)
    assert row["all_linear_h"] == pytest.approx(3 * 2.0 * 10 / 3600)
    assert "run_em_mini_adapt" in capsys.readouterr().out
    # an archive that timed more jobs than the config's DAG has is flagged, rule by rule
    _part(tmp_path / "archive", "shared", [("run_em_mini_adapt", 5, 50.0)])  # its rule's paper here
    args = ([(repo / "config" / "config.yaml", bench)], [repo / "config" / "big.yaml"])
    cm.run(*args, startup=0.5, repo=repo, against=tmp_path / "archive")
    assert "run_em_mini_adapt 3 planned, 5 archived" in capsys.readouterr().out
    _part(tmp_path / "same", "shared", [("run_em_mini_adapt", 3, 50.0)])
    cm.run(*args, startup=0.5, repo=repo, against=tmp_path / "same")
    assert "differ" not in capsys.readouterr().out


def _part(root: Path, paper: str, per_rule: list[tuple[str, int, float]]) -> None:
    folder = root / paper
    folder.mkdir(parents=True)
    rules = [
        {"rule": r, "jobs": j, "wall_s": c, "cpu_s": c, "cpu_measured": j} for r, j, c in per_rule
    ]
    manifest = {"part": paper, "time": {"per_rule": rules}}
    (folder / "manifest.json").write_text(__import__("json").dumps(manifest))


def test_prediction_is_set_beside_the_archived_run(tmp_path):
    _part(tmp_path, "em", [("run_em_sharing", 2, 7200.0), ("make_table_em_claims", 1, 36.0)])
    _part(tmp_path, "study", [("run_em_sharing", 2, 7200.0)])  # em's own rule: not shared
    measured = cm.archived_times(tmp_path)
    assert sorted(measured["paper"]) == ["em", "em"]
    table = pd.DataFrame(
        {
            "paper": ["em", "em", "tan"],
            "rule": ["run_em_sharing", "run_em_endpoints", "train_tan"],
            "jobs": [2, 1, 5],
            "cpu_h": [4.0, 0.5, 9.0],
        }
    )
    out = cm.compare_with_archive(table, measured).set_index("rule")
    assert list(out.index) == [
        "make_table_em_claims",
        "run_em_endpoints",
        "run_em_sharing",
        "total",
    ]
    assert out.loc["run_em_sharing", ["predicted_h", "measured_h", "ratio"]].tolist() == [
        4.0,
        2.0,
        2.0,
    ]
    assert np.isnan(out.loc["run_em_endpoints", "ratio"])  # planned, not in the archive
    assert out.loc["make_table_em_claims", "predicted_h"] == 0.0  # archived, not predicted
    assert out.loc["total", ["jobs", "measured_jobs"]].tolist() == [3, 3]
    assert out.loc["total", "measured_h"] == pytest.approx(2.01)
    assert out.loc["total", "ratio"] == pytest.approx(4.5 / 2.01)
    assert cm.archived_times(tmp_path / "none").empty


def test_study_part_adds_the_shared_rules_and_a_grand_total(tmp_path):
    _part(tmp_path, "em", [("run_em_sharing", 2, 7200.0)])
    _part(tmp_path, "tan", [("train_tan", 3, 3600.0)])
    study = [("run_em_sharing", 2, 7200.0), ("train_tan", 3, 3600.0), ("sample_network", 4, 360.0)]
    _part(tmp_path, "study", study)
    measured = cm.archived_times(tmp_path)
    assert measured.set_index("rule")["paper"].to_dict() == {
        "run_em_sharing": "em",
        "train_tan": "tan",
        "sample_network": "shared",
    }
    table = pd.DataFrame(
        {
            "paper": ["em", "tan", "shared"],
            "rule": ["run_em_sharing", "train_tan", "sample_network"],
            "jobs": [2, 3, 4],
            "cpu_h": [1.0, 2.0, 0.2],
        }
    )
    out = cm.compare_with_archive(table, measured)
    grand = out[out["paper"] == "all"].iloc[0]
    assert grand["rule"] == "total" and int(grand["jobs"]) == 9
    assert grand["measured_h"] == pytest.approx(3.1)
    assert grand["ratio"] == pytest.approx(3.2 / 3.1)
    # the study's part alone (no paper's part) adds nothing: there is nothing to compare
    _part(tmp_path / "only_study", "study", study)
    assert cm.archived_times(tmp_path / "only_study").empty


def test_mrf_job_size_counts_the_block_and_every_training_size():
    mrf = {
        "pcd": {"n_iter": 10, "n_particles": 5, "step_iter": 2},
        "small_grid": {
            "side": 4,
            "replicates": 12,
            "replicates_per_job": 5,
            "sample_sizes": [100, 300],
            "mh_auxvar": {"n_steps": 3, "n_proposals": 5, "n_phi_steps": 4, "particle_sweeps": 2},
        },
    }
    c = {"mrf": mrf}
    assert [cm.mrf_block_replicates(c, "small_grid", b) for b in (0, 1, 2)] == [5, 5, 2]
    w = {"simulation": "small_grid", "estimator": "mh_auxvar", "block": "2"}
    runs = cm.mrf_run_work(c, "small_grid", "mh_auxvar", 100) + cm.mrf_run_work(
        c, "small_grid", "mh_auxvar", 300
    )
    assert cm.job_size("fit_mrf", w, c) == 2 * runs
    # the auxiliary chains grow with n, the refit does not
    refit = 3 * 2 * 5 * 16
    assert cm.mrf_run_work(c, "small_grid", "mh_auxvar", 300) - refit == pytest.approx(
        3 * (cm.mrf_run_work(c, "small_grid", "mh_auxvar", 100) - refit)
    )
    mle = {"simulation": "small_grid", "estimator": "mle", "block": "0"}
    assert cm.job_size("fit_mrf", mle, c) == 5 * 2 * 16 * 10 * 5  # PCD: n does not count
    # exact particles: no sweeps; each phi proposal weighs the enumerated states and draws n
    mrf["small_grid"]["mh_auxvar"] |= {"particles": "exact"}
    slope = cm.mrf_run_work(c, "small_grid", "mh_auxvar", 300) - cm.mrf_run_work(
        c, "small_grid", "mh_auxvar", 100
    )
    assert slope == pytest.approx(3 * 4 * 5 * 200)
    mrf["small_grid"]["mh_auxvar"]["particle_sweeps"] = 20
    assert cm.mrf_run_work(c, "small_grid", "mh_auxvar", 100) == pytest.approx(
        3 * (4 * (2**15 / 10 + 5 * 100) + 16 * 1.5 * 5) + refit
    )


def test_prediction_is_set_beside_an_unfinished_run_job_by_job():
    calibration = [
        cm.Measured(cm.Job("run_em_mini_adapt", {}), 10.0, 10.0),
        cm.Measured(cm.Job("run_em_mini_adapt", {}), 20.0, 20.0),
    ]
    config = {"em": {"mini_adapt": {"trials": 40, "n_samples": 2}}}  # size 80 per job
    run = [cm.Measured(cm.Job("run_em_mini_adapt", {"o": o}), 120.0, 80.0) for o in ("a", "b")]
    out = cm.compare_with_run(calibration, run, config, {"run_em_mini_adapt": "em"})
    row = out.set_index("rule").loc["run_em_mini_adapt"]
    assert row["paper"] == "em" and row["jobs"] == 2 and row["measured_jobs"] == 2
    # the startup fitted on the calibration is 0 (time = size): 80 s per job, 120 measured
    assert row["predicted_h"] == pytest.approx(160 / 3600)
    assert row["measured_h"] == pytest.approx(240 / 3600)
    assert row["ratio"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="no benchmark file"):
        cm.compare_with_run(calibration, [], config, {})
