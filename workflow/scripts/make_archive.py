"""Copy a finished run's reports into one part of archive/<config name>/ with its manifest.

A paper's part (``archive_<paper>``) copies ``reports/<paper>/`` and times the paper's rules; the
study's part (``archive``) copies the rest of ``reports/`` and times every rule. See
:mod:`bnstudy.studies.archive` for the layout, the size caps and what the manifest holds.
"""

import logging
import os
from datetime import UTC, datetime
from pathlib import Path

from bnstudy.logs import configure_logging
from bnstudy.studies.archive import (
    archive_layout,
    benchmark_times,
    build_manifest,
    config_digest,
    git_state,
    machine_info,
    write_archive,
)

logger = logging.getLogger(__name__)


def _read(path):
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _relative(path, repo):
    """The config file relative to the repository when inside it (the same in every checkout)."""
    path, repo = Path(path).resolve(), Path(repo).resolve()
    return path.relative_to(repo).as_posix() if path.is_relative_to(repo) else str(path)


def main(
    dest, *, name, part, config_file, reports, exclude, rules, rule_code, parts, benchmarks, repo
):
    files, skipped = archive_layout(reports, exclude=exclude)
    times = benchmark_times(benchmarks, rules)
    timed = set(times["rule"])
    manifest = build_manifest(
        name=name,
        part=part,
        config_file=_relative(config_file, repo),
        config_sha256=config_digest(config_file),
        git=git_state(repo),
        machine=machine_info(
            _read("/proc/cpuinfo"), _read("/proc/meminfo"), len(os.sched_getaffinity(0))
        ),
        times=times,
        files=files,
        skipped=skipped,
        date=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        parts=parts,
        # the code of the rules it times: every job of the DAG is up to date, so ran this code
        code={rule: code for rule, code in rule_code.items() if rule in timed},
    )
    write_archive(dest, files, manifest)
    logger.info(
        "archive %s (%s): %d files, %d left out, %.3f CPU-hours over %d benchmarked jobs",
        dest,
        part,
        len(files),
        len(skipped),
        manifest["time"]["cpu_h"],
        manifest["time"]["jobs"],
    )


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        Path(snakemake.output.manifest).parent,
        name=snakemake.params.name,
        part=snakemake.params.part,
        config_file=snakemake.params.config_file,
        reports=snakemake.params.reports,
        exclude=snakemake.params.exclude,
        rules=snakemake.params.rules,
        rule_code=snakemake.params.rule_code,
        parts=snakemake.params.parts,
        benchmarks=snakemake.params.benchmarks,
        repo=snakemake.params.repo,
    )
