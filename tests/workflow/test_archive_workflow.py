"""`snakemake archive` on the smoke run: each paper's reports and claims land in its part of
archive/smoke/, the rest in the study's part, each with a manifest; rerunning the target
reproduces every file but the date."""

from __future__ import annotations

import json
import shutil

import pytest

from bnstudy.provenance import code_version
from bnstudy.studies.archive import config_digest, file_sha256
from bnstudy.studies.scorecard import CURRENT

from .conftest import run_snakemake as _run

pytestmark = pytest.mark.workflow

ARCHIVE = ["archive", "--cores", "1", "--configfile", "config/smoke.yaml"]


def _files(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_archive_of_the_smoke_run(smoke_run, mirror):
    run = _run(ARCHIVE, smoke_run, mirror)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    root = smoke_run / "archive" / "smoke"
    assert sorted(p.name for p in root.iterdir()) == ["em", "lsbn", "mrf", "study", "tan"]
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
    assert "train_tan" in {
        r["rule"] for r in json.loads((root / "tan/manifest.json").read_text())["time"]["per_rule"]
    }

    dest = root / "study"
    manifest = json.loads((dest / "manifest.json").read_text())
    paths = [f["path"] for f in manifest["files"]]
    assert paths == sorted(paths)
    assert "scorecard.csv" in paths
    assert not [p for p in paths if p.split("/")[0] in ("tan", "em", "mrf", "lsbn")]
    assert not [p for p in paths if p.endswith(".pdf")]
    assert [p["part"] for p in manifest["parts"]] == ["em", "lsbn", "mrf", "tan"]
    assert {p["part"]: p["manifest_sha256"] for p in manifest["parts"]}["em"] == file_sha256(
        root / "em" / "manifest.json"
    )
    html = smoke_run / "reports" / "report.html"
    assert ("report.html" in paths) != any(s["path"] == "report.html" for s in manifest["skipped"])
    assert html.exists()
    assert manifest["config"] == {
        "file": "config/smoke.yaml",
        **config_digest(smoke_run / "config" / "smoke.yaml"),
    }
    rules = {r["rule"] for r in manifest["time"]["per_rule"]}
    assert {"train_tan", "fit_mrf", "run_em_sharing", "run_lsbn", "fetch_raw_file"} <= rules
    # the code version of every rule it times, as the workflow passed it to the jobs
    assert set(manifest["code"]) == rules
    assert manifest["code"]["train_tan"] == code_version(
        smoke_run / "workflow/scripts/train_tan.py"
    )
    assert manifest["code"]["fit_mrf"] == code_version(smoke_run / "workflow/scripts/fit_mrf.py")
    tan = json.loads((root / "tan" / "manifest.json").read_text())
    assert set(tan["code"]) == {r["rule"] for r in tan["time"]["per_rule"]}
    assert tan["code"]["train_tan"] == manifest["code"]["train_tan"]

    assert (dest / "MANIFEST.md").read_text().startswith("# Archive `smoke`: study")

    before = _files(root)
    again = _run([*ARCHIVE, "--forcerun", "archive", "archive_em"], smoke_run, mirror)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
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

    # An edit to one paper's script reruns that paper's part and the study's, not the others'
    script = smoke_run / "workflow" / "scripts" / "make_table_tan.py"
    text = script.read_text()
    script.write_text(text + "\n# an edit\n")
    try:
        plan = _run([*ARCHIVE, "-n"], smoke_run, mirror)
    finally:
        script.write_text(text)
    assert plan.returncode == 0, plan.stdout[-3000:] + plan.stderr[-3000:]
    planned = plan.stdout + plan.stderr
    assert "archive_tan" in planned and "make_table_tan" in planned
    assert not {"archive_em", "archive_mrf", "archive_lsbn"} & set(planned.split())

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
