"""The tan branch of the smoke run: Table 1, claims, recovery and figures exist and are sane."""

import pandas as pd
import pytest
import yaml

from .conftest import run_snakemake

pytestmark = pytest.mark.workflow


def _tan_config(repo_root, tmp_path, **tan):
    config = yaml.safe_load((repo_root / "config" / "smoke.yaml").read_text())
    config["tan"].update(tan)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_per_dataset_value_without_a_dataset_fails_naming_it(repo_root, mirror, tmp_path):
    # (a mapping merges into config/config.yaml's, the Snakefile's default: override a list)
    config = yaml.safe_load((repo_root / "config" / "smoke.yaml").read_text())
    config["tan"]["models"]["pseudo_tan"]["draws"] = {"bnc_usps": [0]}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    run = run_snakemake(["tan", "-n", "--configfile", str(path)], repo_root, mirror)
    out = run.stdout + run.stderr
    assert run.returncode != 0
    assert "tan.models.pseudo_tan.draws" in out and "bnc_letter" in out


def test_per_dataset_grid_value_is_checked_by_the_schema(repo_root, mirror, tmp_path):
    path = _tan_config(repo_root, tmp_path, epochs={"bnc_letter": 3, "bnc_letr": 1})
    run = run_snakemake(["tan", "-n", "--configfile", str(path)], repo_root, mirror)
    assert run.returncode != 0
    assert "bnc_letr" in run.stdout + run.stderr


def test_protocols_decide_which_train_tan_jobs_exist(repo_root, mirror, tmp_path):
    """tan.protocols: [test] (paper_cpu.yaml) leaves every validation job out of the DAG."""

    def runs(path):
        run = run_snakemake(["tan", "--summary", "--configfile", str(path)], repo_root, mirror)
        assert run.returncode == 0, run.stderr[-3000:]
        return [line.split("\t")[0] for line in run.stdout.splitlines() if "/fold=" in line]

    both = runs(_tan_config(repo_root, tmp_path))
    test_only = runs(_tan_config(repo_root, tmp_path, protocols=["test"]))
    assert any(f.endswith("/validation.csv") for f in both)
    assert test_only == [f for f in both if f.endswith("/test.csv")]


@pytest.mark.parametrize("protocols", [["validation"], ["test", "test"], ["test", "holdout"]])
def test_protocols_need_test_and_known_names(repo_root, mirror, tmp_path, protocols):
    path = _tan_config(repo_root, tmp_path, protocols=protocols)
    run = run_snakemake(["tan", "-n", "--configfile", str(path)], repo_root, mirror)
    assert run.returncode != 0
    assert "protocols" in run.stdout + run.stderr


@pytest.mark.slow
def test_smoke_tan_per_dataset_epochs_and_grid(smoke_run):
    """smoke.yaml gives epochs and the TAN Subset grid per dataset; the runs follow them."""
    runs = pd.read_csv(smoke_run / "results" / "tan" / "runs.csv")
    trained = runs[~runs["model"].str.endswith("_ml")]
    assert trained.groupby("dataset")["epochs"].unique().map(list).to_dict() == {
        "bnc_letter": [2],
        "bnc_usps": [1],
    }
    subset = runs[(runs["model"] == "tan_subset") & (runs["protocol"] == "test")]
    # settings 2 x K {2, 8} x orderings [0] x draws [0]
    assert (
        len(subset) == 4
        and subset["lam"].nunique() == 2
        and set(subset["ordering"].astype(str)) == {"0"}
    )


@pytest.mark.slow
def test_a_models_datasets_list_is_not_part_of_its_jobs(smoke_run, mirror, tmp_path):
    """Taking a dataset off a model leaves its jobs on the other datasets as they are (the list
    decides which jobs exist, not what one does); changing one of its settings does not."""
    letter_nb = [f"results/tan/bnc_letter/nb/fold=0/{p}.csv" for p in ("test", "validation")]

    def rerun(**nb):
        config = yaml.safe_load((smoke_run / "config" / "smoke.yaml").read_text())
        config["tan"]["models"]["nb"].update(nb)
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(config))  # keys sorted: the params' order is canonical
        args = [*letter_nb, "-n", "--rerun-triggers", "params", "--configfile", str(path)]
        run = run_snakemake(args, smoke_run, mirror)
        assert run.returncode == 0, run.stderr[-3000:]
        return "Nothing to be done" not in run.stdout + run.stderr

    assert not rerun(datasets=["bnc_letter"])
    assert rerun(settings={"bnc_letter": 3, "bnc_usps": 2})


@pytest.mark.slow
def test_smoke_tan_table1(smoke_run):
    tables = smoke_run / "reports" / "tan" / "tables"
    table = pd.read_csv(tables / "table1.csv").set_index("model")
    assert {"ML NB", "hybrid Chow-Liu", "TAN Subset", "TAN Heuristic"} <= set(table.index)
    errors = table.filter(like="(best test)").to_numpy(float)
    finite = errors[~pd.isna(errors)]
    assert len(finite) >= 6 and ((finite >= 0) & (finite <= 100)).all()
    # the ML models have no settings to choose; the trained ones have both columns
    assert pd.isna(table.loc["ML NB", "bnc_letter (validation)"])
    assert not pd.isna(table.loc["hybrid Chow-Liu", "bnc_letter (validation)"])
    assert table.loc["pseudo-TAN", "bnc_letter (paper)"] == 7.98


@pytest.mark.slow
def test_smoke_tan_runs_claims_and_figures(smoke_run):
    runs = pd.read_csv(smoke_run / "results" / "tan" / "runs.csv")
    assert set(runs["protocol"]) == {"test", "validation"}
    assert runs["seed"].notna().all() and runs["git_commit"].notna().all()
    claims = pd.read_csv(smoke_run / "reports" / "tan" / "tables" / "claims.csv")
    assert (
        len(claims) >= 3
        and claims["verdict"].isin(["agrees", "partial", "disagrees", "not tested"]).all()
    )
    recovery = pd.read_csv(smoke_run / "reports" / "tan" / "tables" / "chow_liu_recovery.csv")
    assert (recovery["runs"] >= 1).all()
    for name in ("fig2_runs.png", "fig3_settings.png"):
        assert (smoke_run / "reports" / "tan" / "figures" / name).stat().st_size > 10_000
