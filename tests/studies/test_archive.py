"""The archive's manifest logic: which files go where, time per rule, machine, determinism."""

import json
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

from bnstudy.studies.archive import (
    archive_layout,
    benchmark_times,
    build_manifest,
    changed_since,
    config_digest,
    file_sha256,
    git_state,
    gzip_bytes,
    machine_info,
    render_markdown,
    write_archive,
)


@pytest.fixture
def reports(tmp_path):
    root = tmp_path / "reports"
    for rel, text in {
        "tan/tables/table1.csv": "a,b\n1,2\n",
        "tan/tables/table1.md": "| a |\n",
        "tan/tables/claims.csv": "claim,verdict\nx,agrees\n",
        "tan/tables/claims.md": "| claim |\n",
        "em/tables/claims.csv": "claim,verdict\ny,differs\n",
        "em/figures/fig.png": "PNG",
        "em/figures/fig.pdf": "PDF",
        "scorecard.csv": "paper,claim\n",
        "scorecard.md": "# s\n",
        "scorecard.rst": "s\n",
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_layout_of_a_paper_part_and_of_the_study_part(reports):
    files, skipped = archive_layout(reports / "tan")
    assert list(files) == [
        "tables/claims.csv",
        "tables/claims.md",
        "tables/table1.csv",
        "tables/table1.md",
    ]
    assert files["tables/claims.csv"] == reports / "tan/tables/claims.csv"
    assert skipped == {}
    assert list(archive_layout(reports / "em")[0]) == ["figures/fig.png", "tables/claims.csv"]
    files, _ = archive_layout(reports, exclude=["tan", "em"])
    assert list(files) == ["scorecard.csv", "scorecard.md"]


def test_large_report_html_is_skipped_small_one_kept(reports):
    (reports / "report.html").write_text("x" * 100)
    files, skipped = archive_layout(reports, html_cap=50)
    assert "report.html" not in files and "100 bytes > 50" in skipped["report.html"]
    files, skipped = archive_layout(reports, html_cap=100)
    assert "report.html" in files and skipped == {}


def test_size_caps_are_errors_naming_the_file(reports):
    (reports / "em/figures/big.png").write_bytes(b"x" * 500)
    with pytest.raises(ValueError, match=r"big\.png is 500 bytes, over the cap of 400"):
        archive_layout(reports, file_cap=400)
    with pytest.raises(ValueError, match=r"over the cap of 300 bytes$"):
        archive_layout(reports, total_cap=300)


def test_csv_over_the_cap_is_archived_gzipped_or_is_an_error(reports):
    big = reports / "tan/tables/runs.csv"
    big.write_text("n,mae\n" + "".join(f"{n},0.0{n % 7}\n" for n in range(100)))
    files, _ = archive_layout(reports / "tan", file_cap=400)
    assert files["tables/runs.csv.gz"] == big and "tables/runs.csv" not in files
    assert list(files) == sorted(files)
    # the total counts the stored (compressed) bytes
    assert archive_layout(reports / "tan", file_cap=400, total_cap=len(gzip_bytes(big)) + 100)
    # a table that does not compress under the cap is still an error, with both sizes
    rng = np.random.default_rng(0)
    big.write_text("x\n" + "\n".join(rng.integers(0, 2**62, 200).astype(str)) + "\n")
    with pytest.raises(ValueError, match=r"runs\.csv is \d+ bytes \(\d+ gzip-compressed\)"):
        archive_layout(reports / "tan", file_cap=400)


def test_gzipped_table_is_written_read_back_and_recorded(reports, tmp_path):
    big = reports / "tan/tables/runs.csv"
    big.write_text("n,mae\n" + "".join(f"{n},0.0{n % 7}\n" for n in range(100)))
    os.utime(big, (1_000_000_000, 1_000_000_000))
    files, _ = archive_layout(reports / "tan", file_cap=400)
    m = build_manifest(
        name="x",
        part="tan",
        config_file="c.yaml",
        config_sha256="0",
        git={},
        machine={},
        times=benchmark_times(tmp_path / "none"),
        files=files,
        skipped={},
        date="d",
    )
    dest = tmp_path / "archive" / "tan"
    write_archive(dest, files, m)
    stored = dest / "tables/runs.csv.gz"
    pd.testing.assert_frame_equal(pd.read_csv(stored), pd.read_csv(big))
    assert stored.stat().st_mtime == 1_000_000_000
    entry = next(f for f in m["files"] if f["path"] == "tables/runs.csv.gz")
    assert entry["sha256"] == file_sha256(stored) and entry["bytes"] == stored.stat().st_size
    assert entry["csv_sha256"] == file_sha256(big) and entry["csv_bytes"] == big.stat().st_size
    assert "csv_sha256" not in next(f for f in m["files"] if f["path"] == "tables/claims.csv")
    assert "## Compressed" in render_markdown(m) and "| tables/runs.csv.gz |" in render_markdown(m)
    # the same bytes on every write: rerunning the target reproduces the archive
    write_archive(dest, files, m)
    assert file_sha256(stored) == entry["sha256"]


def test_missing_or_empty_reports_are_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        archive_layout(tmp_path / "nope")
    (tmp_path / "r").mkdir()
    with pytest.raises(ValueError, match="no CSV table"):
        archive_layout(tmp_path / "r")


def _bench(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False)


def test_benchmark_times_sum_per_rule(tmp_path):
    b = tmp_path / "benchmarks"
    _bench(b / "train_tan/bnc_letter/nb/fold=0/test.tsv", [{"s": 10.0, "cpu_time": 8.0}])
    _bench(b / "train_tan/bnc_letter/nb/fold=0/validation.tsv", [{"s": 4.0, "cpu_time": 3.0}])
    # two repeats: the mean counts once
    _bench(b / "make_table_tan.tsv", [{"s": 1.0, "cpu_time": 0.5}, {"s": 3.0, "cpu_time": 1.5}])
    _bench(b / "fit_mrf/tree/rep=0.tsv", [{"s": 2.0}])  # no cpu_time: wall stands in
    assert benchmark_times(b, ["train_tan", "other"])["rule"].tolist() == ["train_tan"]
    t = benchmark_times(b)
    assert t["rule"].tolist() == ["fit_mrf", "make_table_tan", "train_tan"]
    assert t.set_index("rule").loc["train_tan", ["jobs", "wall_s", "cpu_s"]].tolist() == [
        2,
        14.0,
        11.0,
    ]
    assert t.set_index("rule").loc["make_table_tan", "cpu_s"] == 1.0
    assert t.set_index("rule").loc["fit_mrf", ["cpu_s", "cpu_measured"]].tolist() == [2.0, 0]
    assert benchmark_times(tmp_path / "none").empty


def test_benchmark_without_s_column_is_an_error(tmp_path):
    _bench(tmp_path / "r/x.tsv", [{"t": 1}])
    with pytest.raises(ValueError, match=r"x\.tsv has no 's' column"):
        benchmark_times(tmp_path)


def test_machine_info_parses_proc_texts():
    cpuinfo = "processor\t: 0\nmodel name\t: Test CPU 3000\n\nprocessor\t: 1\nmodel name\t: Test CPU 3000\n"
    meminfo = "MemTotal:       16777216 kB\nMemFree: 1 kB\n"
    assert machine_info(cpuinfo, meminfo, 2) == {
        "cores": 2,
        "logical_cpus": 2,
        "cpu_model": "Test CPU 3000",
        "memory_gib": 16.0,
    }
    assert machine_info("", "", 1)["cpu_model"] == "unknown"


def test_git_state_commit_and_dirty(tmp_path):
    assert git_state(tmp_path) == {"commit": None, "dirty": None}  # not a checkout

    def git(*a):
        subprocess.run(["git", "-C", str(tmp_path), *a], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "f.txt").write_text("a")
    git("add", "f.txt")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    state = git_state(tmp_path)
    assert len(state["commit"]) == 40 and state["dirty"] is False
    (tmp_path / "archive").mkdir()  # untracked archive output: still clean
    (tmp_path / "archive" / "x").write_text("x")
    assert git_state(tmp_path)["dirty"] is False
    (tmp_path / "f.txt").write_text("b")
    assert git_state(tmp_path)["dirty"] is True


def _manifest(reports, tmp_path, date, machine):
    files, skipped = archive_layout(reports, exclude=["em"])
    b = tmp_path / "benchmarks"
    _bench(b / "make_table_tan.tsv", [{"s": 1.0, "cpu_time": 0.5}])
    cfg = tmp_path / "paper_cpu.yaml"
    cfg.write_text("seed: 1\n")
    return files, build_manifest(
        name="paper_cpu",
        part="study",
        config_file="config/paper_cpu.yaml",
        config_sha256=file_sha256(cfg),
        git={"commit": "abc", "dirty": False},
        machine=machine,
        times=benchmark_times(b),
        files=files,
        skipped=skipped,
        date=date,
        parts={"tan": cfg},
        code={"make_table_tan": "0123456789abcdef"},
    )


def test_rerun_reproduces_archive_except_date_and_machine(reports, tmp_path):
    files, first = _manifest(reports, tmp_path, "2026-01-01T00:00:00Z", {"cores": 2})
    dest = tmp_path / "archive" / "paper_cpu"
    write_archive(dest, files, first)
    snapshot = {p.relative_to(dest): p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    files, second = _manifest(reports, tmp_path, "2027-01-01T00:00:00Z", {"cores": 64})
    (dest / "stale.csv").write_text("left from an earlier archive")
    write_archive(dest, files, second)
    again = {p.relative_to(dest): p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    assert set(again) == set(snapshot)  # the stale file is gone
    differing = {str(k) for k in again if again[k] != snapshot[k]}
    assert differing == {"manifest.json", "MANIFEST.md"}
    a, b = json.loads(snapshot[next(k for k in snapshot if str(k) == "manifest.json")]), second
    assert {k for k in a if a[k] != b[k]} == {"date", "machine"}


def test_manifest_content(reports, tmp_path):
    files, m = _manifest(reports, tmp_path, "2026-01-01T00:00:00Z", {"cores": 2})
    assert m["config"]["sha256"] == file_sha256(tmp_path / "paper_cpu.yaml")
    assert [f["path"] for f in m["files"]] == sorted(files)
    entry = next(f for f in m["files"] if f["path"] == "tan/tables/claims.csv")
    assert entry["sha256"] == file_sha256(reports / "tan/tables/claims.csv")
    assert m["part"] == "study"
    assert m["parts"] == [
        {"part": "tan", "manifest_sha256": file_sha256(tmp_path / "paper_cpu.yaml")}
    ]
    assert m["time"]["per_rule"] == [
        {"rule": "make_table_tan", "jobs": 1, "wall_s": 1.0, "cpu_s": 0.5, "cpu_measured": 1}
    ]
    text = render_markdown(m)
    assert "| make_table_tan | 1 | 1.00 | 0.50 |" in text
    assert "config/paper_cpu.yaml" in text and "dirty: no" in text
    assert text.startswith("# Archive `paper_cpu`: study") and "snakemake archive`" in text
    assert "| tan | `" in text
    assert m["code"] == {"make_table_tan": "0123456789abcdef"}
    assert "| make_table_tan | `0123456789abcdef` |" in text


def _part(code, sha="cc"):
    return {"code": code, "config": {"file": "config/paper_cpu.yaml", "sha256": sha}}


def test_changed_since_names_each_rule_whose_code_changed_or_is_gone():
    part = _part({"fit_mrf": "a", "simulate_mrf_data": "b", "plot_mrf_figures": "c"})
    same = {"fit_mrf": "a", "simulate_mrf_data": "b", "plot_mrf_figures": "c"}
    cfg = {"sha256": "cc"}
    assert changed_since(part, same, cfg) == []
    # a rule outside the archived run's DAG (another config's) is not compared
    assert changed_since(part, {**same, "compute_mi_graph": "z"}, cfg) == []
    edited = {**same, "fit_mrf": "a2", "plot_mrf_figures": "c2"}
    assert changed_since(part, edited, cfg) == ["the code of fit_mrf, plot_mrf_figures"]
    del edited["simulate_mrf_data"]
    assert changed_since(part, edited, cfg)[1] == "rules removed since: simulate_mrf_data"
    assert changed_since(part, same, {"sha256": "dd"}) == [
        "config/paper_cpu.yaml (its text: the part records no hash of its values)"
    ]
    assert changed_since(part, same, None) == []  # no config to compare with


def test_config_digest_tells_a_change_of_values_from_one_of_comments(tmp_path):
    cfg = tmp_path / "paper_cpu.yaml"
    cfg.write_text("seed: 1\nmrf:\n  steps: 500\n  replicates: 4\n")
    first = config_digest(cfg)
    cfg.write_text("# a comment\nmrf:\n  replicates: 4  # reordered\n  steps: 500\nseed: 1\n")
    second = config_digest(cfg)
    assert first["sha256"] != second["sha256"]
    assert first["values_sha256"] == second["values_sha256"]
    part = {"code": {}, "config": {"file": "config/paper_cpu.yaml", **first}}
    assert changed_since(part, {}, second) == []
    cfg.write_text("seed: 1\nmrf:\n  steps: 501\n  replicates: 4\n")
    assert changed_since(part, {}, config_digest(cfg)) == ["config/paper_cpu.yaml"]
    # a part without the values' hash is compared by the file's bytes
    by_bytes = {"code": {}, "config": {"file": "config/paper_cpu.yaml", "sha256": first["sha256"]}}
    assert changed_since(by_bytes, {}, second)[0].startswith("config/paper_cpu.yaml (its text")
    cfg.write_text("seed: [1\n")
    with pytest.raises(ValueError, match="paper_cpu.yaml: not a readable YAML config"):
        config_digest(cfg)


def test_changed_since_a_part_without_code_versions_compares_its_config_only():
    old = {"config": {"file": "config/paper_cpu.yaml", "sha256": "cc"}}
    assert changed_since(old, {"fit_mrf": "a"}, {"sha256": "cc"}) == []
    assert changed_since(old, {"fit_mrf": "a"}, {"sha256": "dd"})[0].startswith(
        "config/paper_cpu.yaml"
    )


def test_manifest_leaves_code_out_when_none_given(reports, tmp_path):
    files, skipped = archive_layout(reports, exclude=["em"])
    kwargs = dict(
        name="paper_cpu", part="study", config_file="config/paper_cpu.yaml",
        config_sha256="0", git={"commit": "abc", "dirty": False}, machine={},
        times=benchmark_times(tmp_path / "none"), files=files, skipped=skipped, date="d",
    )  # fmt: skip
    assert "code" not in build_manifest(**kwargs)
    assert build_manifest(**kwargs, code={})["code"] == {}


def test_config_digest_names_a_file_whose_keys_cannot_be_ordered(tmp_path):
    cfg = tmp_path / "mixed.yaml"
    cfg.write_text("1: a\nb: 2\n")
    with pytest.raises(ValueError, match="mixed.yaml: a mapping's keys cannot be ordered"):
        config_digest(cfg)


def test_failed_write_keeps_previous_archive(reports, tmp_path):
    files, m = _manifest(reports, tmp_path, "d", {})
    dest = tmp_path / "archive" / "x"
    write_archive(dest, files, m)
    before = (dest / "manifest.json").read_text()
    broken = dict(files, **{"missing.csv": tmp_path / "does-not-exist.csv"})
    with pytest.raises(FileNotFoundError):
        write_archive(dest, broken, m)
    assert (dest / "manifest.json").read_text() == before
    assert sorted(p.name for p in dest.parent.iterdir()) == ["x"]


def test_copies_keep_the_reports_modification_times(reports, tmp_path):
    src = reports / "tan/tables/claims.csv"
    os.utime(src, (1_000_000_000, 1_000_000_000))
    files, m = _manifest(reports, tmp_path, "d", {})
    write_archive(tmp_path / "a", files, m)
    assert (tmp_path / "a/tan/tables/claims.csv").stat().st_mtime == 1_000_000_000
