"""The SLURM setup: the pinned `slurm` extra, workflow/profiles/slurm and the cluster's local rules.

The run on a real SLURM is .ci/slurm-test (CI); these tests check the files it relies on.
"""

import re
import tomllib
from types import SimpleNamespace

import yaml
import yte


def _rule_bodies(repo_root):
    """Every rule of workflow/rules/*.smk: its name and the text of its body."""
    text = "\n".join(
        p.read_text() for p in sorted((repo_root / "workflow" / "rules").glob("*.smk"))
    )
    text += "\n" + (repo_root / "Snakefile").read_text()
    return dict(re.findall(r"^rule (\w+):\n((?:[ \t]+.*\n|\n)*)", text, flags=re.M))


def _cluster_local_rules(repo_root, names):
    """The rules workflow/rules/cluster.smk declares local, for a workflow with these rules."""
    declared = []
    workflow = SimpleNamespace(
        rules=[SimpleNamespace(name=name) for name in names],
        localrules=lambda *rules: declared.extend(rules),
    )
    exec((repo_root / "workflow" / "rules" / "cluster.smk").read_text(), {"workflow": workflow})
    return set(declared)


def _profile(repo_root, monkeypatch, tmp_path, commands):
    """The SLURM profile as Snakemake reads it, with fake SLURM commands first on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    for name, script in commands.items():
        (bin_dir / name).write_text("#!/bin/sh\n" + script + "\n")
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    with open(repo_root / "workflow" / "profiles" / "slurm" / "config.yaml") as stream:
        return yte.process_yaml(stream, require_use_yte=True)


def test_slurm_extra_is_pinned_in_pyproject_and_envs(repo_root):
    extra = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["slurm"]
    env = yaml.safe_load((repo_root / "envs" / "slurm.yaml").read_text())
    pip_block = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert {line for line in pip_block if not line.startswith("-")} == set(extra)
    assert all("==" in req for req in extra)
    assert "snakemake-executor-plugin-slurm==2.8.0" in extra
    assert "--editable ..[slurm]" in pip_block and "python=3.11" in env["dependencies"]


def test_local_rules_are_the_small_ones_and_exist(repo_root):
    rules = _rule_bodies(repo_root)
    local = _cluster_local_rules(repo_root, rules)
    assert {
        "fetch_raw_file",
        "build_mini_adapt",
        "make_table_em_claims",
        "plot_tan_figures",
    } <= local
    assert not local & {"train_tan", "fit_mrf", "run_lsbn", "prepare_dataset"}
    assert local <= set(rules)


def test_every_cluster_rule_has_sized_requests(repo_root, monkeypatch, tmp_path):
    profile = _profile(repo_root, monkeypatch, tmp_path, {})
    rules = _rule_bodies(repo_root)
    local = _cluster_local_rules(repo_root, rules)
    runs = {
        name for name, body in rules.items() if re.search(r"^\s+(script|shell|run):", body, re.M)
    }
    cluster_rules = runs - local
    assert cluster_rules, "no rule would run on the cluster"
    missing = {
        name: sorted({"runtime", "mem_mb"} - set(profile["set-resources"].get(name, {})))
        for name in cluster_rules
    }
    assert {name: keys for name, keys in missing.items() if keys} == {}
    assert set(profile["set-resources"]) <= cluster_rules
    # the DAG keeps the job count small by itself (MRF blocks): no scheduler-side groups
    assert "groups" not in profile and "group-components" not in profile


def test_profile_uses_squeue_without_an_accounting_database(repo_root, monkeypatch, tmp_path):
    # sacct exists but fails, as it does without slurmdbd; no node has a GPU.
    profile = _profile(
        repo_root,
        monkeypatch,
        tmp_path,
        {
            "sacct": "echo 'sacct: error: Slurm accounting storage is disabled' >&2; exit 1",
            "sinfo": "echo '(null)'",
        },
    )
    assert profile["executor"] == "slurm"
    assert profile["slurm-status-command"] == "squeue"
    assert "gpu" not in profile["set-resources"]["train_tan"]
    assert profile["cores"] == 4


def test_grouped_jobs_fit_on_the_smallest_node(repo_root, monkeypatch, tmp_path):
    profile = _profile(repo_root, monkeypatch, tmp_path, {"sinfo": "echo 2; echo 64+"})
    assert profile["cores"] == 2
    profile = _profile(repo_root, monkeypatch, tmp_path / "big", {"sinfo": "echo 16+; echo 64"})
    assert profile["cores"] == 4


def test_profile_uses_sacct_and_gpus_where_the_cluster_has_them(repo_root, monkeypatch, tmp_path):
    profile = _profile(
        repo_root,
        monkeypatch,
        tmp_path,
        {"sacct": "exit 0", "sinfo": "echo '(null)'; echo gpu:a100:4"},
    )
    assert profile["slurm-status-command"] == "sacct"
    assert profile["set-resources"]["train_tan"]["gpu"] == 1


def test_profile_without_slurm_commands_falls_back_to_squeue(repo_root, monkeypatch, tmp_path):
    profile = _profile(repo_root, monkeypatch, tmp_path, {})
    assert profile["slurm-status-command"] == "squeue"
    assert "gpu" not in profile["set-resources"]["train_tan"]


def test_runtime_requests_grow_on_retry(repo_root, monkeypatch, tmp_path):
    profile = _profile(repo_root, monkeypatch, tmp_path, {})
    assert profile["retries"] >= 1
    for rule, requests in profile["set-resources"].items():
        runtime = eval(str(requests["runtime"]), {"attempt": 2})
        assert runtime == 2 * eval(str(requests["runtime"]), {"attempt": 1}), rule
