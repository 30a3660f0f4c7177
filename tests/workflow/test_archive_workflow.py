"""`snakemake archive` on the smoke run: each paper's reports and claims land in its part of
archive/smoke/, the rest in the study's part, each with a manifest; rerunning the target
reproduces every file but the date."""

from __future__ import annotations

import json

import pytest

from bnstudy.studies.archive import config_digest, file_sha256

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
    assert all(len(code) == 16 for code in manifest["code"].values())
    tan = json.loads((root / "tan" / "manifest.json").read_text())
    assert set(tan["code"]) == {r["rule"] for r in tan["time"]["per_rule"]}
    assert tan["code"]["train_tan"] == manifest["code"]["train_tan"]
    # the smoke run's scorecard sets each part of the committed paper_cpu archive against
    # this checkout
    card = (smoke_run / "reports" / "scorecard.md").read_text()
    assert "against this checkout" in card
    for part in ("tan", "em", "mrf", "lsbn", "shared rules (the study's part)"):
        assert f"\n- {part}: commit " in card
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
