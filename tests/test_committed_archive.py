"""The committed archive (``archive/<name>/<part>/``) is what its DAG target wrote, untouched.

Each part's ``manifest.json`` records the files the ``archive_<paper>`` (or ``archive``) target
copied, with their bytes and sha256, the commit and config of the run, and its time per rule.
These tests recompute what can be recomputed from the committed files and the repository's
history: a file edited, added or removed by hand, a MANIFEST.md that is not the rendering of its
JSON, a study part older than a paper part it summarizes, or a run from a commit or config that
this repository never had, or a time summed over jobs that the config's DAG does not have (or
lacks jobs it has), each fails with the file it concerns.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from bnstudy.studies.archive import file_sha256, render_markdown

ROOT = Path(__file__).resolve().parents[1]
MANIFESTS = sorted((ROOT / "archive").glob("*/*/manifest.json"))
OWN_FILES = {"manifest.json", "MANIFEST.md"}


def _id(path: Path) -> str:
    return f"{path.parent.parent.name}/{path.parent.name}"


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _git(*args: str, text: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=text, timeout=30)


def test_the_paper_cpu_archive_is_committed():
    parts = {p.parent.name for p in MANIFESTS if p.parent.parent.name == "paper_cpu"}
    assert parts == {"em", "lsbn", "mrf", "tan", "study"}, parts


@pytest.mark.parametrize("path", MANIFESTS, ids=_id)
def test_files_are_those_the_manifest_records(path):
    manifest, folder = _load(path), path.parent
    recorded = {f["path"] for f in manifest["files"]}
    present = {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.relative_to(folder).as_posix() not in OWN_FILES
    }
    assert present == recorded, (
        f"{folder}: files not in its manifest {sorted(present - recorded)}, "
        f"in its manifest but missing {sorted(recorded - present)}"
    )
    for entry in manifest["files"]:
        file = folder / entry["path"]
        assert file.stat().st_size == entry["bytes"], f"{file}: size differs from its manifest"
        assert file_sha256(file) == entry["sha256"], f"{file}: sha256 differs from its manifest"
        if "csv_sha256" in entry:
            csv = gzip.decompress(file.read_bytes())
            assert len(csv) == entry["csv_bytes"], f"{file}: the CSV it holds differs in size"
            assert hashlib.sha256(csv).hexdigest() == entry["csv_sha256"], (
                f"{file}: the CSV it holds differs from its manifest"
            )


@pytest.mark.parametrize("path", MANIFESTS, ids=_id)
def test_markdown_is_the_rendering_of_the_json(path):
    markdown = (path.parent / "MANIFEST.md").read_text(encoding="utf-8")
    assert markdown == render_markdown(_load(path)), f"{path.parent}/MANIFEST.md was edited"


@pytest.mark.parametrize("path", MANIFESTS, ids=_id)
def test_times_add_up(path):
    time = _load(path)["time"]
    rules = time["per_rule"]
    assert rules, f"{path}: no benchmarked rule"
    assert time["jobs"] == sum(r["jobs"] for r in rules)
    assert time["cpu_s"] == pytest.approx(sum(r["cpu_s"] for r in rules), abs=0.01)
    assert time["cpu_h"] == pytest.approx(time["cpu_s"] / 3600, abs=5e-4)
    assert all(0 < r["cpu_measured"] <= r["jobs"] for r in rules), path


@pytest.mark.parametrize("path", [p for p in MANIFESTS if p.parent.name == "study"], ids=_id)
def test_study_part_summarizes_the_parts_as_committed(path):
    """The study part (the scorecard) records each paper part's manifest as it is committed."""
    recorded = {p["part"]: p["manifest_sha256"] for p in _load(path)["parts"]}
    folders = {p.parent.name for p in path.parent.parent.glob("*/manifest.json")} - {"study"}
    assert set(recorded) == folders, f"{path}: parts {sorted(recorded)}, folders {sorted(folders)}"
    stale = [
        part
        for part, sha in recorded.items()
        if file_sha256(path.parent.parent / part / "manifest.json") != sha
    ]
    assert not stale, (
        f"{path}: the parts {stale} were rewritten after the study part; run "
        f"`snakemake --cores 1 archive --configfile config/{path.parent.parent.name}.yaml`"
    )


@pytest.mark.parametrize("path", MANIFESTS, ids=_id)
def test_run_comes_from_this_history_with_its_config(path):
    """The run's commit is in this repository's history, clean, and its config hashes as recorded."""
    manifest = _load(path)
    commit, config = manifest["git"]["commit"], manifest["config"]
    assert manifest["git"]["dirty"] is False, f"{path}: archived from a dirty checkout"
    shallow = _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    # a shallow clone cannot show where the archive came from: that is a failure, not a pass
    assert not (shallow and _git("cat-file", "-e", f"{commit}^{{commit}}").returncode != 0), (
        f"{path}: this shallow clone does not hold commit {commit}, so the archive's run cannot "
        "be checked against the history; run `git fetch --unshallow` (make test needs the full "
        "history)"
    )
    assert _git("merge-base", "--is-ancestor", commit, "HEAD").returncode == 0, (
        f"{path}: commit {commit} is not in this branch's history"
    )
    shown = _git("show", f"{commit}:{config['file']}", text=False)
    assert shown.returncode == 0, f"{path}: {config['file']} not in commit {commit}"
    assert hashlib.sha256(shown.stdout).hexdigest() == config["sha256"], (
        f"{path}: {config['file']} at {commit} does not hash to the recorded sha256"
    )


#: The shared rules a paper's results rest on (workflow/rules/data.smk, networks.smk): the study's
#: part records their code whether or not its working copy timed them.
UPSTREAM = {"fetch_raw_file", "prepare_dataset", "sample_network"}


@pytest.mark.parametrize("path", MANIFESTS, ids=_id)
def test_code_versions_are_those_of_the_rules_timed(path):
    """Each part records the code version of every rule it times, and of no other (the study's
    part also that of the shared rules upstream of the papers)."""
    manifest = _load(path)
    assert "code" in manifest, (
        f"{path}: no code versions recorded; rerun its archive target on the run's checkout"
    )
    timed = {r["rule"] for r in manifest["time"]["per_rule"]}
    if manifest["part"] == "study":
        assert timed <= set(manifest["code"]) <= timed | UPSTREAM, path
    else:
        assert set(manifest["code"]) == timed, path
    assert all(re.fullmatch(r"[0-9a-f]{16}", c) for c in manifest["code"].values()), path
    assert "values_sha256" in manifest["config"], path


@pytest.mark.parametrize("path", [p for p in MANIFESTS if p.parent.name == "study"], ids=_id)
def test_parts_rest_on_the_shared_code_the_study_part_records(path):
    """The scorecard compares the study part's shared code with a later checkout's for every
    part: a part that records the shared code it ran must have run that code."""
    shared = {r: c for r, c in _load(path)["code"].items() if r in UPSTREAM}
    assert shared, f"{path}: no shared rule's code recorded"
    for part in sorted(path.parent.parent.glob("*/manifest.json")):
        ran = _load(part).get("shared_code")
        if part.parent.name == "study" or ran is None:
            continue  # a part archived before parts recorded it rests on the study part's
        differ = sorted(r for r in shared if ran.get(r) != shared[r])
        assert not differ, f"{part}: ran other code of {differ} than {path} records"


@pytest.mark.parametrize("path", [p for p in MANIFESTS if p.parent.name == "study"], ids=_id)
def test_study_scorecard_is_the_parts_claims(path):
    """The study part's scorecard holds each committed part's claims and verdicts, and its
    links reach the parts' copies of the evidence."""
    folder = path.parent
    card = _read_csv(folder / "scorecard.csv")
    papers = sorted(p.parent.name for p in folder.parent.glob("*/manifest.json"))
    papers.remove("study")
    assert sorted(set(card["paper"])) == papers, f"{folder}/scorecard.csv"
    for paper in papers:
        claims = _read_csv(folder.parent / paper / "tables" / "claims.csv")
        mine = card[card["paper"] == paper]
        for column in ("claim_id", "verdict", "ours"):
            assert mine[column].tolist() == claims[column].tolist(), (
                f"{folder}/scorecard.csv: the {column} of {paper}'s claims differ from "
                f"{folder.parent / paper}/tables/claims.csv; run `snakemake --cores 1 archive "
                f"--configfile config/{folder.parent.name}.yaml`"
            )
    markdown = (folder / "scorecard.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)\)", markdown)
    broken = sorted({link for link in links if not (folder / link).resolve().is_file()})
    assert links and not broken, f"{folder}/scorecard.md: links that reach no file {broken}"


def _read_csv(path: Path):
    import pandas as pd

    return pd.read_csv(path, keep_default_na=False)


def _cost_model():
    """benchmarks/cost_model.py as a module (its ``plan`` builds a config's DAG)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(
        "cost_model", ROOT / "benchmarks" / "cost_model.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["cost_model"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


#: Rules of a run's own report, which no part times (workflow/rules/archive.smk).
RUN_REPORT_RULES = {"make_scorecard", "make_table_provenance", "effective_config"}


@pytest.mark.workflow
@pytest.mark.parametrize("path", [p for p in MANIFESTS if p.parent.name == "study"], ids=_id)
def test_jobs_timed_are_those_of_the_configs_dag(path):
    """Every rule's job count in the study part equals the jobs the config's DAG has today.

    The study part adds the paper parts' times to the shared rules' (summed over its working
    copy's benchmark files): files of jobs the config no longer has (a model, protocol or dataset
    dropped since) would inflate its time, a config whose DAG changed since is no longer what the
    archive describes, and a study part written from a working copy that did not run every
    shared job (one that reran a single paper) would leave some out.
    """
    manifest = _load(path)
    cm = _cost_model()
    plan = cm.plan(ROOT / manifest["config"]["file"])
    dag = Counter(
        job["rule"]
        for job in plan["jobs"]
        if plan["patterns"][job["rule"]] and job["rule"] not in RUN_REPORT_RULES
    )
    timed = {r["rule"]: r["jobs"] for r in manifest["time"]["per_rule"]}
    differ = cm.job_count_differences(dag, timed)
    assert not differ, (
        f"{path}: jobs in the DAG of {manifest['config']['file']} / jobs timed differ per rule "
        f"{differ}; move the benchmark files of jobs the config no longer has out of the run's "
        "logs/benchmarks/, or rerun the config (the shared jobs alone: `snakemake --cores all "
        "--until sample_network`), then rerun its archive targets"
    )
