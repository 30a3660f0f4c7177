"""Copy a finished run's reports into one part of archive/<config name>/ with its manifest.

A paper's part (``archive_<paper>``) copies ``reports/<paper>/`` and times the paper's rules; the
study's part (``archive``) copies the foundation tables' folders of ``reports/``, times the
shared rules and adds every part's time and code (the whole run's). Each adds the files its rule
made for it (``extra``: the provenance of what it copies; the study's scorecard of the archived
parts). See :mod:`bnstudy.studies.archive` for the
layout, the size caps and what the manifest holds.
"""

import json
import logging
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.studies.archive import (
    FILE_CAP,
    archive_layout,
    benchmark_times,
    build_manifest,
    config_digest,
    git_state,
    machine_info,
    write_archive,
)
from bnstudy.utils import atomic_path

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


def _exclude(reports, include):
    """The top-level entries of ``reports`` outside ``include`` (None: none left out)."""
    if include is None:
        return []
    return sorted(p.name for p in Path(reports).iterdir() if p.name not in set(include))


def made_only(files, made):
    """``files`` (archive path -> source) without those this run's DAG does not make.

    A file that another config's run left in the reports folder is not this run's result: it is
    left out, and named in the log (not in the manifest: a run of the same DAG elsewhere would
    not have it). ``made``: the DAG's files, as the workflow names them.
    """
    ours = {Path(p).resolve() for p in made}
    strays = sorted(rel for rel, src in files.items() if Path(src).resolve() not in ours)
    if strays:
        logger.warning(
            "archive: %d files are not made by this run's DAG, left out: %s",
            len(strays),
            ", ".join(strays),
        )
    return {rel: src for rel, src in files.items() if rel not in strays}


def _with_extra(files, extra):
    """``files`` (archive path -> source) with the rule's own files added, sorted by path."""
    clash = sorted(set(files) & set(extra))
    if clash:
        raise ValueError(f"archive: {clash} come both from the reports and from the rule")
    missing = sorted(str(src) for src in extra.values() if not Path(src).is_file())
    if missing:
        raise ValueError(f"archive: the rule's files {missing} do not exist")
    large = sorted(str(src) for src in extra.values() if Path(src).stat().st_size > FILE_CAP)
    if large:
        raise ValueError(f"archive: {large} over the cap of {FILE_CAP} bytes per file")
    return dict(sorted({**files, **{rel: Path(src) for rel, src in extra.items()}}.items()))


def _load(path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(f"archive: {path} is not a readable manifest ({err})") from err


def with_parts(times, code, parts):
    """The shared rules' ``times`` and ``code`` with every part's rules added from its manifest.

    The study's part describes the whole run: its time per rule and code version per rule are
    those its paper parts recorded (each from its own run's benchmark files) and those of the
    shared rules, from this working copy's.
    """
    rows, code = [times], dict(code)
    for _, path in sorted(parts.items()):
        manifest = _load(path)
        own = pd.DataFrame(manifest["time"]["per_rule"], columns=times.columns)
        twice = sorted(set(own["rule"]) & set(pd.concat(rows)["rule"]))
        if twice:
            raise ValueError(f"archive: rules {twice} of {path} are timed by another part too")
        rows.append(own)
        code.update(manifest.get("code") or {})
    return pd.concat(rows, ignore_index=True).sort_values("rule"), code


def check_parts(parts, config, shared_code, recorded):
    """Raise unless every paper part ran this config's values and this checkout's shared code."""
    other = sorted(
        paper
        for paper, path in parts.items()
        if _load(path)["config"].get("values_sha256") != config["values_sha256"]
    )
    if other:
        raise ValueError(
            f"archive: the parts {other} were archived from other values of the config; rebuild "
            "them first (snakemake archive_<paper>), then the study's part"
        )
    check_shared_code(parts, shared_code, recorded)


def check_shared_code(parts, shared_code, recorded):
    """Raise unless every paper part rests on the shared rules' code of this checkout.

    The study's part records the code of the shared rules (data, network samples) that the
    scorecard compares with later checkouts for every part. A part records the shared code it
    ran (``shared_code``); a part archived before parts recorded it rests on what the existing
    study part recorded (``recorded``: rule -> code version, None without a study part).
    Recording this checkout's shared code over a part that ran other shared code would hide
    that the part is stale.
    """
    stale = []
    for paper, path in sorted(parts.items()):
        ran = _load(path).get("shared_code")
        if ran is None:
            if recorded is None:
                stale.append(f"{paper} (it records no shared code and no study part does)")
                continue
            ran = recorded
        changed = sorted(r for r in shared_code if r in ran and ran[r] != shared_code[r])
        if changed:
            stale.append(f"{paper} (ran other code of {', '.join(changed)})")
    if stale:
        raise ValueError(
            "archive: the parts " + "; ".join(stale) + " do not rest on this checkout's shared "
            "rules; rebuild them first (snakemake archive_<paper>), then the study's part"
        )


def main(
    dest,
    *,
    marker,
    made,
    name,
    part,
    config_file,
    reports,
    include,
    extra,
    rules,
    rule_code,
    shared_code,
    recorded_shared_code,
    parts,
    benchmarks,
    repo,
):
    config = config_digest(config_file)
    if part == "study":
        check_parts(parts, config, shared_code, recorded_shared_code)
    files, skipped = archive_layout(reports, exclude=_exclude(reports, include))
    files = made_only(files, made)
    files = _with_extra(files, extra)
    times = benchmark_times(benchmarks, rules)
    timed = set(times["rule"])
    # the code of the rules it times: every job of the DAG is up to date, so ran this code; the
    # study's part also that of the shared rules every part rests on (the scorecard compares them
    # for every part), timed in this working copy or not
    code = {
        rule: code
        for rule, code in rule_code.items()
        if rule in timed or (part == "study" and rule in shared_code)
    }
    if part == "study":  # the whole run: every part's rules as its manifest records them
        times, code = with_parts(times, code, parts)
    manifest = build_manifest(
        name=name,
        part=part,
        config_file=_relative(config_file, repo),
        config_sha256=config,
        git=git_state(repo),
        machine=machine_info(
            _read("/proc/cpuinfo"), _read("/proc/meminfo"), len(os.sched_getaffinity(0))
        ),
        times=times,
        files=files,
        skipped=skipped,
        date=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        parts=parts,
        code=code,
    )
    if part != "study":
        manifest["shared_code"] = dict(sorted(shared_code.items()))
    write_archive(dest, files, manifest)
    # the rule's output, written last: a job that fails leaves none, and the part as it was
    with atomic_path(marker) as tmp:
        shutil.copyfile(Path(dest) / "manifest.json", tmp)
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
        snakemake.params.folder,
        marker=snakemake.output.manifest,
        made=snakemake.params.made,
        name=snakemake.params.name,
        part=snakemake.params.part,
        config_file=snakemake.params.config_file,
        reports=snakemake.params.reports,
        include=snakemake.params.include,
        extra=dict(snakemake.params.extra),
        rules=snakemake.params.rules,
        rule_code=snakemake.params.rule_code,
        shared_code=snakemake.params.shared_code,
        recorded_shared_code=snakemake.params.recorded_shared_code,
        parts=snakemake.params.parts,
        benchmarks=snakemake.params.benchmarks,
        repo=snakemake.params.repo,
    )
