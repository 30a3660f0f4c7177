"""Benchmark: DAG jobs on this code against an earlier commit, same config, same machine, one run.

The study's own jobs at any scale (e.g. ``fit_mrf`` of one replicate block with
``config/paper_cpu.yaml``), run from two checkouts made with ``git worktree add --detach`` in a
temporary folder: ``--ref`` and ``--new`` (default ``HEAD``; uncommitted changes are not
included). Each runs ``snakemake --cores 1 --configfile=CONFIG TARGETS`` with ``PYTHONPATH``
pointing at its own ``src``, the two side by side (one core each, so both see the same load;
``--sequential`` runs one after the other). Then:

* every target file must be equal between the two, or the script exits 1: a CSV in every column
  but the timing and provenance columns (:data:`IGNORED_COLUMNS`, and columns named ``time_*``),
  an ``.npz`` in every array but ``provenance``, any other file byte for byte;
* for every benchmark file under ``logs/benchmarks/`` that both runs wrote (one per job), the CPU
  seconds of each (``cpu_time``, else wall time) and the ratio ref / new (> 1: the new code is
  faster), and their totals.

The data mirror is ``$BNSTUDY_DATA_MIRROR``, else ``../shared/data`` beside the repository.

Usage::

    .venv/bin/python benchmarks/bench_dag_jobs.py --ref 851e128 --configfile config/paper_cpu.yaml \\
        results/mrf/large_grid/mle/block=0/metrics.csv results/mrf/large_grid/mle/block=0/estimates.npz
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from against_ref import DATA_MIRROR, ROOT, npz_differ
from cost_model import read_benchmark

#: Result columns that differ between two runs of the same code: wall times and provenance.
IGNORED_COLUMNS = frozenset(
    {
        "seconds",
        "init_seconds",
        "runtime_s",
        "bnstudy_version",
        "git_commit",
        "git_dirty",
        "code_hash",
    }
)


def _compared_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c not in IGNORED_COLUMNS and not c.startswith("time_")]


def files_equal(a: Path, b: Path) -> bool:
    """Whether two outputs of the same job hold the same results (see the module docstring)."""
    if a.suffix == ".csv" or a.name.endswith(".csv.gz"):
        fa, fb = pd.read_csv(a), pd.read_csv(b)
        cols = _compared_columns(fa)
        return cols == _compared_columns(fb) and fa[cols].equals(fb[cols])
    if a.suffix == ".npz":
        return not npz_differ(a, b, skip=("provenance",))[0]
    return a.read_bytes() == b.read_bytes()


def compare_outputs(ref: Path, new: Path, targets: Sequence[str]) -> list[str]:
    """The targets whose files differ between the checkouts ``ref`` and ``new`` (or are missing)."""
    differ = []
    for target in targets:
        a, b = ref / target, new / target
        if not (a.is_file() and b.is_file()) or not files_equal(a, b):
            differ.append(target)
    return differ


def benchmark_rows(ref: Path, new: Path) -> list[tuple[str, float, float]]:
    """``(benchmark file, ref CPU s, new CPU s)`` for every job both checkouts benchmarked."""
    rows = []
    base = ref / "logs" / "benchmarks"
    for path in sorted(base.rglob("*.tsv")):
        other = new / "logs" / "benchmarks" / path.relative_to(base)
        if other.is_file():
            rows.append((str(path.relative_to(base)), read_benchmark(path), read_benchmark(other)))
    return rows


def report(rows: list[tuple[str, float, float]], ref: str, new: str) -> None:
    """Print CPU seconds per job of each checkout, the ratios and the totals."""
    width = max([len(r[0]) for r in rows] + [5]) + 2
    print(f"{'job':<{width}}{ref:>14}{new:>14}{'ratio':>8}")
    for name, a, b in rows:
        print(f"{name:<{width}}{a:>14.1f}{b:>14.1f}{a / b:>7.2f}x")
    if rows:
        ta, tb = sum(r[1] for r in rows), sum(r[2] for r in rows)
        print(f"{'total':<{width}}{ta:>14.1f}{tb:>14.1f}{ta / tb:>7.2f}x")


def run_snakemake(trees: dict[str, Path], targets: Sequence[str], args, env: dict) -> bool:
    """Run the targets in each checkout (side by side unless ``args.sequential``); True if all
    succeeded, else print the failed runs' logs."""
    procs = {}
    for name, tree in trees.items():
        cmd = [sys.executable, "-m", "snakemake", "--cores", "1"]
        cmd += [f"--configfile={args.configfile}", *targets]
        with open(tree.parent / f"{name}.log", "w") as log:  # the child keeps its own handle
            procs[name] = subprocess.Popen(
                cmd, cwd=tree, env={**env, "PYTHONPATH": str(tree / "src")}, stdout=log,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        if args.sequential:
            procs[name].wait()
    ok = True
    for name, proc in procs.items():
        if proc.wait() != 0:
            log = (trees[name].parent / f"{name}.log").read_text()
            print(f"{name}: snakemake failed; the end of its log:\n{log[-4000:]}", file=sys.stderr)
            ok = False
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("targets", nargs="+", help="output files of the DAG, as in the Snakefile")
    ap.add_argument("--ref", required=True, help="the earlier commit")
    ap.add_argument("--new", default="HEAD", help="the commit to measure (default HEAD)")
    ap.add_argument("--configfile", default="config/config.yaml")
    ap.add_argument("--sequential", action="store_true", help="run ref, then new")
    args = ap.parse_args()
    mirror = os.environ.get("BNSTUDY_DATA_MIRROR") or str(DATA_MIRROR.resolve())
    env = {**os.environ, "BNSTUDY_DATA_MIRROR": mirror}
    revs = {"ref": args.ref, "new": args.new}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {name: Path(tmp) / name for name in revs}
        for name, tree in trees.items():
            git = ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet"]
            subprocess.run([*git, str(tree), revs[name]], check=True)
        try:
            if not run_snakemake(trees, args.targets, args, env):
                return 1
            print(f"{args.configfile}: {' '.join(args.targets)}; CPU seconds per job")
            report(benchmark_rows(trees["ref"], trees["new"]), args.ref, args.new)
            differ = compare_outputs(trees["ref"], trees["new"], args.targets)
        finally:
            for tree in trees.values():
                remove = ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)]
                subprocess.run(remove, check=False)
    if differ:
        print(f"results differ: {differ}")
        return 1
    print(f"results identical: {len(args.targets)} target files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
