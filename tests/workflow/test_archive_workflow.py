"""`snakemake archive` on the smoke run: the reports and claims land in archive/smoke/ with a
manifest, and rerunning the target reproduces every file but the date."""

from __future__ import annotations

import json

import pytest

from bnstudy.studies.archive import file_sha256

from .conftest import run_snakemake as _run

pytestmark = pytest.mark.workflow

ARCHIVE = ["archive", "--cores", "1", "--configfile", "config/smoke.yaml"]


def _files(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_archive_of_the_smoke_run(smoke_run, mirror):
    run = _run(ARCHIVE, smoke_run, mirror)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    dest = smoke_run / "archive" / "smoke"
    manifest = json.loads((dest / "manifest.json").read_text())
    paths = [f["path"] for f in manifest["files"]]
    assert paths == sorted(paths)
    for paper in ("tan", "em", "mrf", "lsbn"):
        assert f"claims/{paper}.csv" in paths
        assert (dest / "claims" / f"{paper}.csv").read_bytes() == (
            smoke_run / "reports" / paper / "tables" / "claims.csv"
        ).read_bytes()
    assert "scorecard.csv" in paths
    assert not [p for p in paths if p.endswith(".pdf")]
    html = smoke_run / "reports" / "report.html"
    assert ("report.html" in paths) != any(s["path"] == "report.html" for s in manifest["skipped"])
    assert html.exists()
    assert manifest["config"] == {
        "file": "config/smoke.yaml",
        "sha256": file_sha256(smoke_run / "config" / "smoke.yaml"),
    }
    rules = {r["rule"] for r in manifest["time"]["per_rule"]}
    assert {"train_tan", "fit_mrf", "run_em_sharing", "run_lsbn"} <= rules
    assert (dest / "MANIFEST.md").read_text().startswith("# Archive `smoke`")

    before = _files(dest)
    again = _run([*ARCHIVE, "--forcerun", "archive"], smoke_run, mirror)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    after = _files(dest)
    assert set(after) == set(before)
    assert {k for k in after if after[k] != before[k]} <= {"manifest.json", "MANIFEST.md"}
    first, second = json.loads(before["manifest.json"]), json.loads(after["manifest.json"])
    assert {k for k in first if first[k] != second[k]} <= {"date"}
