"""Helpers of the fault-injection tier: copies of the workflow and library in throw-away directories.

Each test works on its own tree (Snakefile, workflow, config, envs and src copied), run with that
tree's ``src`` first on ``PYTHONPATH``, so editing the library there is what the jobs see. The DAG
is a small part of the smoke config: Table 3 of the EM paper (two networks, four EM runs) and one
MRF tree fit, about a dozen jobs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))

#: A small part of the smoke DAG that touches two papers.
TARGETS = (
    "reports/em/tables/table3_sharing_correlations.csv",
    "results/mrf/tree/mle/block=0/metrics.csv",
)
# `--configfile` takes several files: the "=" form keeps the targets after it targets, not files.
SMOKE = ("--configfile=config/smoke.yaml",)


def copy_tree(repo_root: Path, dest: Path, *, with_src: bool = True) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    items = ["Snakefile", "workflow", "config", "envs"] + (["src"] if with_src else [])
    for item in items:
        src = repo_root / item
        if src.is_dir():
            shutil.copytree(src, dest / item, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, dest / item)
    return dest


def tree_env(tree: Path, mirror: Path | None) -> dict[str, str]:
    env = {**os.environ, "CI": "true"}
    if (tree / "src").is_dir():
        env["PYTHONPATH"] = os.pathsep.join([str(tree / "src"), env.get("PYTHONPATH", "")])
    env.pop("BNSTUDY_DATA_MIRROR", None)
    if mirror is not None:
        env["BNSTUDY_DATA_MIRROR"] = str(mirror)
    return env


def snakemake(tree: Path, args, mirror: Path | None, timeout: int = 900):
    return subprocess.run(
        [SNAKEMAKE, *args],
        cwd=tree,
        env=tree_env(tree, mirror),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def planned_jobs(output: str) -> dict[str, int]:
    """Rule -> job count of a dry run's job stats (empty when there is nothing to do)."""
    if "Job stats:" not in output:
        return {}
    table = output.split("Job stats:", 1)[1]
    jobs = {}
    for line in table.splitlines()[3:]:
        match = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if not match or match.group(1) == "total":
            break
        jobs[match.group(1)] = int(match.group(2))
    return jobs
