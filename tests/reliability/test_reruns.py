"""Reruns that can be trusted: interruption, library edits, the data mirror, explicit configs."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pandas as pd
import pytest
import yaml

from ._dag import (
    SMOKE,
    SNAKEMAKE,
    TARGETS,
    copy_tree,
    planned_jobs,
    snakemake,
    tree_env,
)

pytestmark = [pytest.mark.slow, pytest.mark.workflow, pytest.mark.reliability]

TIMING = ("seconds", "init_seconds")


def _frame(path):
    frame = pd.read_csv(path)
    return frame.drop(columns=[c for c in TIMING if c in frame.columns])


def _assert_same_results(tree, reference):
    for name in ("reports/em/tables/table3_sharing_correlations.csv",):
        assert (tree / name).read_bytes() == (reference / name).read_bytes(), name
    for name in ("reports/em/tables/sharing_levels.csv", TARGETS[1]):
        pd.testing.assert_frame_equal(_frame(tree / name), _frame(reference / name))


def test_kill_9_then_rerun_incomplete_matches_an_uninterrupted_run(
    repo_root, mirror, built_tree, tmp_path
):
    tree = copy_tree(repo_root, tmp_path / "killed")
    proc = subprocess.Popen(
        [SNAKEMAKE, "--cores", "2", *SMOKE, *TARGETS],
        cwd=tree,
        env=tree_env(tree, mirror),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 600
    sharing = tree / "results" / "em" / "sharing"
    try:
        # kill as soon as the first EM run is done: the other runs are in flight
        while not list(sharing.glob("*/n=*/trials.csv")):
            assert proc.poll() is None, "snakemake ended before it could be interrupted"
            assert time.monotonic() < deadline, "no EM run finished in time"
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # snakemake and every job it started
        proc.wait()
    assert not (tree / TARGETS[0]).exists(), "the run finished before the kill"

    unlock = snakemake(tree, ["--unlock", *SMOKE, *TARGETS], mirror)
    assert unlock.returncode == 0, unlock.stderr[-3000:]
    rerun = snakemake(tree, ["--cores", "2", "--rerun-incomplete", *SMOKE, *TARGETS], mirror)
    assert rerun.returncode == 0, rerun.stdout[-3000:] + rerun.stderr[-3000:]
    _assert_same_results(tree, built_tree)
    done = snakemake(tree, ["-n", *SMOKE, *TARGETS], mirror)
    assert planned_jobs(done.stdout) == {}, done.stdout[-3000:]


def _plan(tree, mirror):
    run = snakemake(tree, ["-n", *SMOKE, *TARGETS], mirror)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return planned_jobs(run.stdout), run.stdout


def test_library_edit_plans_exactly_the_dependent_jobs(built_tree, mirror):
    tree = built_tree
    assert _plan(tree, mirror)[0] == {}

    em = tree / "src" / "bnstudy" / "parameters" / "em.py"
    original = em.read_text()
    em.write_text(original + "\n\ndef _edited():\n    return 1\n")
    try:
        jobs, out = _plan(tree, mirror)
        # EM's library: the four EM runs and the table whose script imports it; no MRF job, no fetch
        assert jobs == {"run_em_sharing": 4, "make_table_em_sharing": 1}, out[-3000:]
        assert "Params have changed since last execution" in out
        # (not `--list-changes params`: Snakemake 9.27.1 lists every file that has a params record
        # there, changed or not, because ParamsChange.__or__ keeps the files of an empty change)
        reasons = [line for line in out.splitlines() if line.startswith("Reason:")]
        assert sum("Params have changed" in r for r in reasons) == 4, reasons
        assert not any("mrf" in r or "resources/raw" in r.split(";")[0] for r in reasons), reasons
    finally:
        em.write_text(original)  # a revert plans nothing
    assert _plan(tree, mirror)[0] == {}

    os.utime(em)  # neither does a touch
    assert _plan(tree, mirror)[0] == {}

    exact = tree / "src" / "bnstudy" / "mrf" / "exact.py"
    original = exact.read_text()
    exact.write_text(original + "\n# edited\n")
    try:
        jobs, out = _plan(tree, mirror)
        assert jobs == {"simulate_mrf_data": 1, "fit_mrf": 1}, out[-3000:]
    finally:
        exact.write_text(original)


def test_moving_or_unsetting_the_mirror_reruns_nothing(built_tree, mirror, tmp_path):
    moved = tmp_path / "moved_mirror"
    moved.symlink_to(mirror, target_is_directory=True)
    for where in (None, moved):
        run = snakemake(built_tree, ["-n", *SMOKE, *TARGETS], where)
        assert run.returncode == 0, run.stderr[-3000:]
        assert planned_jobs(run.stdout) == {}, run.stdout[-3000:]


# Explicit configs -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def config_tree(repo_root, tmp_path_factory):
    return copy_tree(repo_root, tmp_path_factory.mktemp("configs"), with_src=False)


def _effective(tree, args, mirror):
    out = tree / "results" / "config" / "effective.yaml"
    out.unlink(missing_ok=True)
    # the target first: --config and --configfile take every word after them
    run = snakemake(tree, [str(out.relative_to(tree)), "--cores", "1", *args], mirror)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return yaml.safe_load(out.read_text())


@pytest.mark.parametrize(
    "name", ["smoke.yaml", "paper.yaml", "paper_cpu.yaml", "config.yaml", None]
)
def test_effective_config_is_exactly_the_file(config_tree, mirror, name):
    args = [f"--configfile=config/{name}"] if name else []
    expected = yaml.safe_load((config_tree / "config" / (name or "config.yaml")).read_text())
    assert _effective(config_tree, args, mirror) == expected


def test_a_config_override_changes_only_its_key(config_tree, mirror):
    effective = _effective(config_tree, [*SMOKE, "--config", "seed=3"], mirror)
    expected = yaml.safe_load((config_tree / "config" / "smoke.yaml").read_text())
    assert effective == {**expected, "seed": 3}


def _broken(tree, name, edit):
    config = yaml.safe_load((tree / "config" / "smoke.yaml").read_text())
    edit(config)
    (tree / "config" / name).write_text(yaml.safe_dump(config))
    return [f"--configfile=config/{name}"]


BAD_CONFIGS = {
    "no_em_tol": (lambda c: c["em"].pop("tol"), "'tol' is a required property"),
    "no_lsbn_n_samples": (
        lambda c: c["lsbn"].pop("n_samples"),
        "'n_samples' is a required property",
    ),
    "epochs_without_usps": (
        lambda c: c["tan"]["epochs"].pop("bnc_usps"),
        "tan.epochs has no entry for dataset 'bnc_usps'",
    ),
    "no_lsbn_networks": (lambda c: c["lsbn"].update(networks=[]), "lsbn.networks is empty"),
    "senate_range": (
        lambda c: c["data"]["senate"].update(min_yeas=91),
        "data.senate.min_yeas (91) exceeds data.senate.max_yeas (90)",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_a_broken_config_fails_at_dag_build_naming_the_key(config_tree, mirror, case):
    edit, message = BAD_CONFIGS[case]
    args = _broken(config_tree, f"{case}.yaml", edit)
    run = snakemake(config_tree, ["-n", *args], mirror)
    assert run.returncode != 0
    assert message in run.stdout + run.stderr, (run.stdout + run.stderr)[-3000:]


def test_two_configfiles_are_refused(config_tree, mirror):
    run = snakemake(
        config_tree, ["-n", "--configfile", "config/smoke.yaml", "config/paper.yaml"], mirror
    )
    assert run.returncode != 0
    assert "give one --configfile, not 2" in run.stdout + run.stderr
