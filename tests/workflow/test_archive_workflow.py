"""`snakemake archive` on the smoke run: each paper's reports and claims land in its part of
archive/smoke/, the foundation tables and the scorecard of the parts in the study's part, each
with a manifest; rebuilding a part and then the study's reproduces every file but the date."""

from __future__ import annotations

import json
import re
import shutil

import pandas as pd
import pytest

from bnstudy.provenance import code_version
from bnstudy.studies.archive import config_digest, file_sha256
from bnstudy.studies.scorecard import CURRENT

from .conftest import run_snakemake as _run

pytestmark = pytest.mark.workflow

ARCHIVE = ["archive", "--cores", "1", "--configfile", "config/smoke.yaml"]


def _files(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _planned(output):
    """The rules of a dry run's job stats table (``rule  count`` lines)."""
    stats = output.split("Job stats:", 1)[-1].split("\n\n", 1)[0]
    return {m.group(1) for m in re.finditer(r"^(\w+)\s+\d+$", stats, re.M)} - {"total"}


def _links(markdown):
    return re.findall(r"\]\(([^)]+)\)", markdown)


@pytest.mark.slow
def test_archive_of_the_smoke_run(smoke_run, mirror):
    run = _run(ARCHIVE, smoke_run, mirror)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    root = smoke_run / "archive" / "smoke"
    assert sorted(p.name for p in root.iterdir()) == ["em", "lsbn", "mrf", "study", "tan"]
    upstream = ("fetch_raw_file", "prepare_dataset", "sample_network")
    for paper in ("tan", "em", "mrf", "lsbn"):
        part = json.loads((root / paper / "manifest.json").read_text())
        assert part["part"] == paper and part["parts"] == []
        paths = [f["path"] for f in part["files"]]
        assert paths == sorted(paths) and "tables/claims.csv" in paths
        assert (root / paper / "tables" / "claims.csv").read_bytes() == (
            smoke_run / "reports" / paper / "tables" / "claims.csv"
        ).read_bytes()
        rules = {r["rule"] for r in part["time"]["per_rule"]}
        assert f"make_table_{paper}_claims" in rules
        assert not {"fetch_raw_file", "make_scorecard"} & rules  # shared rules: the study's part
        # the shared code its results rest on, and the provenance of every file it copies
        assert sorted(part["shared_code"]) == list(upstream)
        assert part["shared_code"]["sample_network"] == code_version(
            smoke_run / "workflow/scripts/sample_network.py"
        )
        provenance = pd.read_csv(root / paper / "provenance.csv")
        copied = {
            f"reports/{paper}/{p.removesuffix('.gz')}"
            for p in paths
            if p.endswith((".csv", ".csv.gz", ".png"))
        }
        # and of the config that ran (results/config/effective.yaml)
        copied -= {f"reports/{paper}/provenance.csv"}
        assert set(provenance["file"]) == copied | {"results/config/effective.yaml"}
    tan = json.loads((root / "tan/manifest.json").read_text())
    assert "train_tan" in {r["rule"] for r in tan["time"]["per_rule"]}
    assert tan["code"]["train_tan"] == code_version(smoke_run / "workflow/scripts/train_tan.py")
    assert set(tan["code"]) == {r["rule"] for r in tan["time"]["per_rule"]}

    dest = root / "study"
    manifest = json.loads((dest / "manifest.json").read_text())
    paths = [f["path"] for f in manifest["files"]]
    assert paths == sorted(paths)
    assert {"scorecard.csv", "scorecard.md", "provenance.csv", "data/tables/datasets.csv"} <= set(
        paths
    )
    # no paper's reports, no run's own report
    assert not [p for p in paths if p.split("/")[0] in ("tan", "em", "mrf", "lsbn", "provenance")]
    assert "report.html" not in paths and not [p for p in paths if p.endswith(".pdf")]
    assert [p["part"] for p in manifest["parts"]] == ["em", "lsbn", "mrf", "tan"]
    assert {p["part"]: p["manifest_sha256"] for p in manifest["parts"]}["em"] == file_sha256(
        root / "em" / "manifest.json"
    )
    assert manifest["config"] == {
        "file": "config/smoke.yaml",
        **config_digest(smoke_run / "config" / "smoke.yaml"),
    }
    # the whole run: the shared rules' time and code, and every part's as its manifest records
    rules = {r["rule"]: r for r in manifest["time"]["per_rule"]}
    assert {*upstream, "summarize_datasets", "train_tan", "fit_mrf", "run_lsbn"} <= set(rules)
    assert not {"make_scorecard", "make_table_provenance", "effective_config"} & set(rules)
    assert rules["train_tan"] == next(
        r for r in tan["time"]["per_rule"] if r["rule"] == "train_tan"
    )
    assert set(manifest["code"]) == set(rules)
    assert manifest["code"]["train_tan"] == tan["code"]["train_tan"]
    assert manifest["code"]["sample_network"] == tan["shared_code"]["sample_network"]
    # its scorecard is the parts' claims, with links to the parts' copies of the evidence
    card = pd.read_csv(dest / "scorecard.csv")
    for paper in ("tan", "em", "mrf", "lsbn"):
        claims = pd.read_csv(root / paper / "tables" / "claims.csv")
        mine = card[card["paper"] == paper].reset_index(drop=True)
        for column in ("claim_id", "verdict", "ours"):
            assert mine[column].tolist() == claims[column].tolist(), (paper, column)
        assert all(e.startswith(f"archive/smoke/{paper}/") for e in mine["evidence"].dropna())
    links = _links((dest / "scorecard.md").read_text())
    assert links and all((dest / link).resolve().is_file() for link in links), [
        link for link in links if not (dest / link).resolve().is_file()
    ]

    assert (dest / "MANIFEST.md").read_text().startswith("# Archive `smoke`: study")

    # A part rebuilt by its own target, then the study's: the study's part reruns (the part's
    # manifest changed) and only the manifests differ, in their date and the parts' hashes
    before = _files(root)
    part = _run(["archive_em", *ARCHIVE[1:], "--forcerun", "archive_em"], smoke_run, mirror)
    assert part.returncode == 0, part.stdout[-3000:] + part.stderr[-3000:]
    again = _run(ARCHIVE, smoke_run, mirror)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "archive_scorecard" in _planned(again.stdout + again.stderr)
    after = _files(root)
    assert set(after) == set(before)
    changed = {k for k in after if after[k] != before[k]}
    assert changed <= {
        f"{part}/{f}" for part in ("study", "em") for f in ("manifest.json", "MANIFEST.md")
    }
    for part in ("study", "em"):
        first = json.loads(before[f"{part}/manifest.json"])
        second = json.loads(after[f"{part}/manifest.json"])
        assert {k for k in first if first[k] != second[k]} <= {"date", "parts"}

    # A file in reports/<paper>/ that this config's DAG does not make (left by another
    # config's run) is not archived; a run changed by --config is refused before any job runs
    stray = smoke_run / "reports" / "em" / "tables" / "left_by_another_run.csv"
    stray.write_text("a,b\n1,2\n")
    try:
        part = _run(["archive_em", *ARCHIVE[1:], "--forcerun", "archive_em"], smoke_run, mirror)
        overridden = _run(
            ["archive_em", *ARCHIVE[1:], "--forcerun", "archive_em", "--config", "seed=8"],
            smoke_run,
            mirror,
        )
    finally:
        stray.unlink()
    assert part.returncode == 0, part.stdout[-3000:] + part.stderr[-3000:]
    assert "tables/left_by_another_run.csv" not in _files(root / "em")
    assert "left_by_another_run.csv" in (smoke_run / "logs/archive/smoke/em.log").read_text()
    assert overridden.returncode != 0
    assert "--config (seed)" in overridden.stdout + overridden.stderr
    assert "archive_em" not in _planned(overridden.stdout + overridden.stderr)
    again = _run(ARCHIVE, smoke_run, mirror)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    after = _files(root)

    # An edit to one paper's script reruns that paper's part, not the others'; the study's part
    # does not rebuild any paper's results
    script = smoke_run / "workflow" / "scripts" / "make_table_tan.py"
    text = script.read_text()
    script.write_text(text + "\n# an edit\n")
    try:
        parts = [f"archive_{p}" for p in ("tan", "em", "mrf", "lsbn")]
        plan = _run([*parts, *ARCHIVE[1:], "-n"], smoke_run, mirror)
        study = _run([*ARCHIVE, "-n"], smoke_run, mirror)
    finally:
        script.write_text(text)
    assert plan.returncode == 0, plan.stdout[-3000:] + plan.stderr[-3000:]
    planned = _planned(plan.stdout + plan.stderr)
    assert {"archive_tan", "make_table_tan"} <= planned
    assert not {"archive_em", "archive_mrf", "archive_lsbn"} & planned
    assert study.returncode == 0, study.stdout[-3000:] + study.stderr[-3000:]
    assert "make_table_tan" not in _planned(study.stdout + study.stderr)

    # The study's part refuses to record shared code that a part did not run
    path = root / "tan" / "manifest.json"
    saved = path.read_text()
    recorded = json.loads(saved)
    recorded["shared_code"]["sample_network"] = "0" * 16
    path.write_text(json.dumps(recorded))
    try:
        refused = _run([*ARCHIVE, "--forcerun", "archive"], smoke_run, mirror)
    finally:
        path.write_text(saved)
    assert refused.returncode != 0
    assert "tan (ran other code of sample_network)" in refused.stdout + refused.stderr
    # nothing written: the study's part, its manifest included, is as it was (the rule's output
    # is a copy of the manifest in results/, which Snakemake removes in its place)
    assert _files(root) == after
    assert not (smoke_run / "results/archive/smoke/study/manifest.json").exists()
    rebuilt = _run(ARCHIVE, smoke_run, mirror)  # the part restored: the study's part builds
    assert rebuilt.returncode == 0, rebuilt.stdout[-3000:] + rebuilt.stderr[-3000:]
    assert set(_files(root)) == set(after)
    assert (smoke_run / "results/archive/smoke/study/manifest.json").read_bytes() == (
        root / "study" / "manifest.json"
    ).read_bytes()
    # A part that records no shared code (archived before parts did) rests on the study part's
    # record: accepted while that is this checkout's, refused once it is not
    study = root / "study" / "manifest.json"
    saved_study = study.read_text()
    del recorded["shared_code"]
    path.write_text(json.dumps(recorded))
    try:
        accepted = _run([*ARCHIVE, "--forcerun", "archive"], smoke_run, mirror)
        assert accepted.returncode == 0, accepted.stdout[-3000:] + accepted.stderr[-3000:]
        changed = json.loads(study.read_text())
        changed["code"]["sample_network"] = "0" * 16
        study.write_text(json.dumps(changed))
        refused = _run([*ARCHIVE, "--forcerun", "archive"], smoke_run, mirror)
    finally:
        path.write_text(saved)
        study.write_text(saved_study)
    assert refused.returncode != 0
    assert "tan (ran other code of sample_network)" in refused.stdout + refused.stderr

    # The archive as a run at another scale finds it: its scorecard sets each part against this
    # checkout. Copied to archive/paper_cpu/ (where the smoke run looks), with paper_cpu.yaml's
    # digest; then fit_mrf's recorded code and em's config values are made to differ.
    other = smoke_run / "archive" / "paper_cpu"
    shutil.copytree(root, other)
    try:
        digest = {
            "file": "config/paper_cpu.yaml",
            **config_digest(smoke_run / "config/paper_cpu.yaml"),
        }
        for part in ("tan", "em", "mrf", "lsbn", "study"):
            path = other / part / "manifest.json"
            manifest = json.loads(path.read_text())
            manifest["config"] = dict(digest)
            if part == "mrf":
                manifest["code"]["fit_mrf"] = "0" * 16
            if part == "em":
                manifest["config"]["values_sha256"] = "0" * 64
            path.write_text(json.dumps(manifest))
        card = _run(["reports/scorecard.md", "--cores", "1", "--configfile", "config/smoke.yaml"],
                    smoke_run, mirror)  # fmt: skip
        assert card.returncode == 0, card.stdout[-3000:] + card.stderr[-3000:]
        text = (smoke_run / "reports" / "scorecard.md").read_text()
        states = dict(
            line[2:].split(": commit ", 1) for line in text.splitlines() if ": commit " in line
        )
        assert set(states) == {"tan", "em", "mrf", "lsbn", "shared rules (the study's part)"}
        assert states["tan"].endswith(f": {CURRENT}")
        assert states["lsbn"].endswith(f": {CURRENT}")
        assert states["shared rules (the study's part)"].endswith(f": {CURRENT}")
        assert states["mrf"].endswith(": changed since: the code of fit_mrf")
        assert states["em"].endswith(": changed since: config/paper_cpu.yaml")
    finally:  # the smoke run as the other tests expect it: no archive at another scale, and
        # every target of `rule all` rebuilt from that (the claims tables and what reads them)
        shutil.rmtree(other)
        back = _run(["--cores", "1", "--configfile", "config/smoke.yaml"], smoke_run, mirror)
        assert back.returncode == 0, back.stdout[-3000:] + back.stderr[-3000:]
    assert "against this checkout" not in (smoke_run / "reports" / "scorecard.md").read_text()
