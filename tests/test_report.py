"""bnstudy.report: Markdown rendering, atomic CSV + Markdown output, published values beside ours."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bnstudy.report import compare_with_published, to_markdown, write_table


def test_to_markdown_formats_every_cell_type():
    frame = pd.DataFrame(
        {
            "name": ["a|b", "c"],
            "flag": [True, False],
            "count": [3, 4],
            "x": [1.23456, np.nan],
            "whole": [2.0, 5.0],
        }
    )
    text = to_markdown(frame, title="T", digits=2)
    lines = text.splitlines()
    assert lines[0] == "## T"
    assert lines[2] == "| name | flag | count | x | whole |"
    assert lines[3] == "|---|---|---|---|---|"
    assert lines[4] == "| a\\|b | yes | 3 | 1.23 | 2 |"
    assert lines[5] == "| c | no | 4 |  | 5 |"
    assert text.endswith("\n")


def test_to_markdown_without_title_starts_with_the_header():
    assert to_markdown(pd.DataFrame({"a": [None]})).splitlines() == ["| a |", "|---|", "|  |"]


def test_write_table_writes_both_files(tmp_path):
    frame = pd.DataFrame({"a": [1.5, 2.25]})
    csv, md = tmp_path / "sub" / "t.csv", tmp_path / "sub" / "t.md"
    write_table(frame, csv, md, title="t", digits=1)
    pd.testing.assert_frame_equal(pd.read_csv(csv), frame)
    assert "| 1.5 |" in md.read_text() and "| 2.2 |" in md.read_text()
    assert sorted(p.name for p in csv.parent.iterdir()) == [
        "t.csv",
        "t.csv.provenance.json",
        "t.md",
    ]  # no leftovers


def test_write_table_leaves_no_partial_file_when_rendering_fails(tmp_path, monkeypatch):
    import bnstudy.report as report

    def boom(*args, **kwargs):
        raise RuntimeError("render failed")

    monkeypatch.setattr(report, "to_markdown", boom)
    csv, md = tmp_path / "t.csv", tmp_path / "t.md"
    md.write_text("old")
    with pytest.raises(RuntimeError, match="render failed"):
        write_table(pd.DataFrame({"a": [1]}), csv, md)
    assert md.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv", "t.csv.provenance.json", "t.md"]


def test_compare_with_published_takes_the_first_source_per_quantity():
    ours = pd.DataFrame(
        {"net": ["alarm", "pigs", "mine"], "nodes": [37, 441, 5], "arcs": [46, 592, 4]}
    )
    published = pd.DataFrame(
        {
            "net": ["alarm", "alarm", "pigs"],
            "source": ["paper A", "paper B", "paper B"],
            "nodes": [37.0, 38.0, np.nan],
            "arcs": [np.nan, 46.0, 592.0],
            "ignored": [1, 2, 3],
        }
    )
    merged = compare_with_published(ours, published, key="net")
    assert list(merged.columns) == [
        "net",
        "nodes",
        "nodes_paper",
        "arcs",
        "arcs_paper",
        "paper_source",
    ]
    assert merged.loc[0, "nodes_paper"] == 37.0  # paper A first
    assert merged.loc[0, "arcs_paper"] == 46.0  # paper A prints no arcs: paper B's
    assert np.isnan(merged.loc[1, "nodes_paper"])
    assert merged["paper_source"].tolist() == ["paper A; paper B", "paper B", ""]
    assert np.isnan(merged.loc[2, "arcs_paper"])
