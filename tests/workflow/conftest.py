"""Workflow fixtures: running snakemake, and one full run of config/smoke.yaml shared by the tests."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def run_snakemake(args, cwd, mirror, timeout=900):
    env = {**os.environ, "BNSTUDY_DATA_MIRROR": str(mirror), "CI": "true"}
    return subprocess.run(
        [SNAKEMAKE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def load_script(repo_root, name):
    """workflow/scripts/<name>.py as a module (its ``__main__`` block does not run)."""
    path = repo_root / "workflow" / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def smoke_run(repo_root, mirror, tmp_path_factory):
    """The whole DAG on config/smoke.yaml in a fresh directory, then the HTML report."""
    workdir = tmp_path_factory.mktemp("smoke")
    for item in ("Snakefile", "workflow", "config", "envs"):
        src = repo_root / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, workdir / item)
    args = ["--cores", "2", "--configfile", "config/smoke.yaml"]
    run = run_snakemake(args, workdir, mirror)
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-5000:]
    report = run_snakemake([*args, "--report", "reports/report.html"], workdir, mirror)
    assert report.returncode == 0, report.stdout[-5000:] + report.stderr[-5000:]
    return workdir
