"""Where a run's CPU time went: its benchmark files summed per paper, rule and wildcards.

    python benchmarks/run_breakdown.py RUN/logs/benchmarks
    python benchmarks/run_breakdown.py RUN/logs/benchmarks --rule train_tan --by dataset model protocol

Every Snakemake ``benchmark:`` file under the folder is matched to its rule and wildcards as
:mod:`cost_model` does (the rule's benchmark pattern, from the component that names the rule),
and its CPU seconds (``cpu_time``, else wall ``s``) are summed per paper and rule, and with
``--by`` per value of those wildcards too (empty where a rule lacks one). ``--rule`` keeps only
the named rules. The last column is each row's share of the time printed. The sums are those of
the archive's manifests (``time.per_rule``), finer grained: what a paper-scale run's time per
dataset, model or simulation was, measured rather than predicted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from cost_model import REPO, match_benchmarks, plan

__all__ = ["breakdown"]


def breakdown(
    bench_dir: Path,
    patterns: dict[str, str],
    papers: dict[str, str],
    *,
    rules: Sequence[str] = (),
    by: Sequence[str] = (),
) -> pd.DataFrame:
    """CPU-hours of a run's benchmark files per paper, rule and ``by`` wildcards.

    Parameters
    ----------
    bench_dir : Path
        A run's ``logs/benchmarks`` (or any folder the files were moved to).
    patterns, papers : dict
        Per rule: its benchmark pattern and its paper (``cost_model.plan(..., dag=False)``).
    rules : sequence of str
        Keep only these rules (all when empty); a name no rule has is an error.
    by : sequence of str
        Wildcards to group by besides paper and rule.

    Returns
    -------
    DataFrame
        Columns ``paper``, ``rule``, the ``by`` wildcards, ``jobs``, ``cpu_h`` and ``share``
        (of the table's total); within a paper, the rules with the most time first, and within
        a rule, the rows with the most time first.
    """
    unknown = sorted(set(rules) - set(patterns))
    if unknown:
        raise ValueError(f"no rule named {unknown} in the workflow")
    found, _ = match_benchmarks(bench_dir, patterns)
    rows = [
        {
            "paper": papers.get(job.rule, "shared"),
            "rule": job.rule,
            **{key: job.wildcards.get(key, "") for key in by},
            "jobs": 1,
            "cpu_h": cpu / 3600,
        }
        for job, cpu in found
        if not rules or job.rule in rules
    ]
    if not rows:
        raise ValueError(f"no benchmark file under {bench_dir} of the rules {list(rules) or 'all'}")
    keys = ["paper", "rule", *by]
    table = pd.DataFrame(rows).groupby(keys, as_index=False)[["jobs", "cpu_h"]].sum()
    table["share"] = table["cpu_h"] / table["cpu_h"].sum()
    rule_h = table.groupby(["paper", "rule"])["cpu_h"].transform("sum")
    order = table.assign(rule_h=rule_h).sort_values(
        ["paper", "rule_h", "rule", "cpu_h"], ascending=[True, False, True, False]
    )
    return table.loc[order.index].reset_index(drop=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("benchmarks", type=Path, help="a run's logs/benchmarks folder")
    parser.add_argument("--rule", nargs="+", default=[], help="only these rules")
    parser.add_argument("--by", nargs="+", default=[], help="wildcards to group by")
    parser.add_argument(
        "--config",
        type=Path,
        default=REPO / "config" / "config.yaml",
        help="a config to load the workflow with (the rules' patterns do not depend on it)",
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not args.benchmarks.is_dir():
        raise SystemExit(f"benchmark folder {args.benchmarks} does not exist")
    workflow = plan(args.config, dag=False)
    try:
        table = breakdown(
            args.benchmarks, workflow["patterns"], workflow["papers"], rules=args.rule, by=args.by
        )
    except ValueError as err:
        raise SystemExit(str(err)) from None
    print(f"{int(table['jobs'].sum())} jobs, {table['cpu_h'].sum():.3g} CPU-hours\n")
    print(table.to_markdown(index=False, floatfmt=".3g"))


if __name__ == "__main__":
    main()
