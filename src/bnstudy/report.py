"""Writing the study's tables: one dataframe, written as CSV for machines and Markdown for people."""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd

from bnstudy.utils import atomic_path

__all__ = ["compare_with_published", "to_markdown", "write_csv", "write_table"]


def _format_cell(value: object, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if float(value).is_integer():
            return str(int(value))
        return f"{float(value):.{digits}f}"
    return str(value).replace("|", "\\|")


def to_markdown(frame: pd.DataFrame, *, title: str | None = None, digits: int = 3) -> str:
    """A GitHub-flavoured Markdown table of ``frame`` (floats rounded to ``digits`` places)."""
    header = [str(c) for c in frame.columns]
    rows = [[_format_cell(v, digits) for v in row] for row in frame.itertuples(index=False)]
    lines = [f"## {title}", ""] if title else []
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write_table(
    frame: pd.DataFrame,
    csv_path: str | os.PathLike,
    md_path: str | os.PathLike,
    *,
    title: str | None = None,
    digits: int = 3,
) -> None:
    """Write ``frame`` as CSV and as Markdown, each atomically, with the provenance beside the CSV.

    The provenance (``<csv>.provenance.json``, :func:`bnstudy.provenance.write_sidecar`) records the
    code hash of the job, the git commit and whether the tree was dirty, the package versions and
    the config seed; the report's provenance table collects them.
    """
    from bnstudy.provenance import write_sidecar

    write_sidecar(csv_path)
    with atomic_path(csv_path) as tmp:
        frame.to_csv(tmp, index=False)
    with atomic_path(md_path) as tmp:
        tmp.write_text(to_markdown(frame, title=title, digits=digits))


def write_csv(frame: pd.DataFrame, csv_path: str | os.PathLike) -> None:
    """Write ``frame`` as CSV atomically, with its provenance beside it (as :func:`write_table`)."""
    from bnstudy.provenance import write_sidecar

    write_sidecar(csv_path)
    with atomic_path(csv_path) as tmp:
        frame.to_csv(tmp, index=False)


def compare_with_published(
    ours: pd.DataFrame, published: pd.DataFrame, *, key: str, source_column: str = "source"
) -> pd.DataFrame:
    """Put the papers' printed values beside ours.

    Parameters
    ----------
    ours : DataFrame
        One row per ``key`` value, our measured quantities as columns.
    published : DataFrame
        Rows of printed values: ``key``, ``source_column`` and any of ``ours``' columns (blank where
        that source prints nothing). Several sources may cover one key; for each quantity the first
        source that prints it is used.

    Returns
    -------
    DataFrame
        ``ours`` with a ``<quantity>_paper`` column after every quantity some source prints, and a
        ``paper_source`` column naming the sources used (empty where no paper lists the key).
    """
    quantities = [c for c in published.columns if c not in (key, source_column) and c in ours]
    merged = ours.copy()
    sources: dict[str, list[str]] = {k: [] for k in ours[key]}
    for quantity in quantities:
        values = []
        for k in ours[key]:
            rows = published[(published[key] == k) & published[quantity].notna()]
            if rows.empty:
                values.append(np.nan)
                continue
            values.append(rows[quantity].iloc[0])
            if rows[source_column].iloc[0] not in sources[k]:
                sources[k].append(rows[source_column].iloc[0])
        merged[f"{quantity}_paper"] = values
    ordered: list[str] = [key]
    for column in ours.columns:
        if column == key:
            continue
        ordered.append(column)
        if column in quantities:
            ordered.append(f"{column}_paper")
    merged = merged[ordered]
    merged["paper_source"] = ["; ".join(sources[k]) for k in ours[key]]
    return merged
