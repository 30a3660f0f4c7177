"""The scorecard: every paper's claims and their verdicts on one page, beside the deviations.

It reads the four claims tables written through the claims contract
(:func:`bnstudy.studies.claims.read_claims`), optionally the claims tables of an archived run at
another scale (``archive/paper_cpu/<paper>/tables/claims.csv``), and the study's deviations from
the papers (``workflow/published/deviations.tsv``). It writes one tidy table (CSV), a Markdown
page (``reports/scorecard.md``) and an reStructuredText summary that opens the HTML report.

Examples
--------
>>> from bnstudy.studies.claims import Catalog, Finding, assemble
>>> rows = pd.DataFrame({"paper": ["em"], "claim_id": ["em.x"], "claim": ["x holds"],
...                      "source": ["Table 4"], "paper_value": ["1"], "value": [""],
...                      "evidence": ["reports/em/tables/table4_mini_adapt.csv"]})
>>> claims = assemble(Catalog("em", rows), {"em.x": Finding("2", "agrees")}, scale="laptop")
>>> card = scorecard({"em": claims}, {})
>>> card[["claim_id", "verdict", "archive_verdict"]].to_dict("records")
[{'claim_id': 'em.x', 'verdict': 'agrees', 'archive_verdict': 'not run at this scale'}]
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import pandas as pd

from bnstudy.studies.archive import changed_since
from bnstudy.studies.claims import (
    COLUMNS,
    PAPERS,
    VERDICTS,
    read_claims,
    read_paper_table,
    tally,
)

__all__ = [
    "ARCHIVE_SCALE",
    "CURRENT",
    "DEVIATION_COLUMNS",
    "NOT_RUN",
    "NO_ARCHIVE",
    "PAPER_TITLES",
    "archive_states",
    "archived_claims",
    "archived_manifests",
    "beside_archive",
    "read_deviations",
    "recorded_rules",
    "render_markdown",
    "render_rst",
    "scorecard",
    "study_scale",
    "tally_table",
    "with_archived_claims",
]

#: The verdict shown for a claim at a scale that was not run (or has no archived claims table).
NOT_RUN = "not run at this scale"
#: The tally's archived cell where no run at another scale is archived (or this run is the
#: archived scale's own: a run is not compared with its own archive).
NO_ARCHIVE = "no archived run at another scale"

#: The scale whose archived claims tables (``archive/<scale>/<paper>/tables/claims.csv``) the
#: scorecard shows beside this run's.
ARCHIVE_SCALE = "paper_cpu"

#: Short titles of the papers.
PAPER_TITLES = {
    "tan": "Roth & Pernkopf (2020), differentiable TAN structure learning",
    "em": "Reed & Mengshoel (2014), EM with parameter sharing",
    "mrf": "Liu & Page (2013), latently-grouped MRF parameters",
    "lsbn": "LSBN, large-scale structure learning by model averaging",
}

#: Columns of the deviations table.
DEVIATION_COLUMNS = ("paper", "kind", "item", "the paper", "the study", "where")

_KINDS = ("not public", "paper silent", "our choice", "scale")


def study_scale(configfiles: Sequence[str | os.PathLike]) -> str:
    """The scale a run is checked at: the name of its last config file (``config.yaml``: laptop).

    >>> study_scale(["config/smoke.yaml"])
    'smoke'
    >>> study_scale(["config/config.yaml"])
    'laptop'
    """
    if not configfiles:
        raise ValueError("no config file: the scale of a run is the name of its config file")
    name = Path(configfiles[-1]).stem
    return "laptop" if name == "config" else name


def archived_claims(root: str | os.PathLike = ".", scale: str = ARCHIVE_SCALE) -> dict[str, str]:
    """The archived claims tables of ``scale`` that exist, per paper (paths under ``root``).

    A paper's claims are archived in its part of the archive,
    ``archive/<scale>/<paper>/tables/claims.csv`` (:mod:`bnstudy.studies.archive`).
    """
    paths = {p: Path(root) / "archive" / scale / p / "tables" / "claims.csv" for p in PAPERS}
    return {p: str(path) for p, path in paths.items() if path.is_file()}


def archived_manifests(root: str | os.PathLike = ".", scale: str = ARCHIVE_SCALE) -> dict[str, str]:
    """The manifests of the archived parts of ``scale`` that exist, per part (papers, "study")."""
    parts = (*PAPERS, "study")
    paths = {p: Path(root) / "archive" / scale / p / "manifest.json" for p in parts}
    return {p: str(path) for p, path in paths.items() if path.is_file()}


def recorded_rules(manifests: Mapping[str, str | os.PathLike]) -> list[str]:
    """The rules whose code versions the archived parts record (paths of ``manifest.json``).

    Raises
    ------
    ValueError
        If a manifest is not readable JSON (naming the file).
    """
    rules = set()
    for path in manifests.values():
        try:
            manifest = json.loads(Path(path).read_text())
        except (OSError, json.JSONDecodeError) as err:
            raise ValueError(f"{path}: not a readable archive manifest ({err})") from err
        rules |= set(manifest.get("code") or {})
    return sorted(rules)


#: What a part's sentence says when nothing it records differs from the checkout.
CURRENT = "the rule code and config values of this checkout"


def archive_states(
    manifests: Mapping[str, Mapping],
    code: Mapping[str, str],
    config: Mapping[str, str] | None,
    paper_rules: Mapping[str, Collection[str]],
) -> dict[str, str]:
    """Per archived part, its commit and date and what this checkout changed since.

    Parameters
    ----------
    manifests : mapping of part to mapping
        The parts' ``manifest.json`` contents (:mod:`bnstudy.studies.archive`): papers, and
        ``"study"``, whose rules outside every paper's (data, network samples, the report's own
        tables) are the shared rules that every paper's results rest on.
    code : mapping of rule to str
        The code version of the archived rules in this checkout (``params.code``).
    config : mapping or None
        This checkout's config file of the archived scale, hashed
        (:func:`bnstudy.studies.archive.config_digest`); None where the file is not in it.
    paper_rules : mapping of paper to collection of str
        Each paper's rules (``workflow/rules/<paper>.smk``).

    Returns
    -------
    dict of part to str
        ``"commit <sha>, <date>: "`` (``(dirty tree)`` after the sha where it was), then either
        :data:`CURRENT` or what changed since (:func:`~bnstudy.studies.archive.changed_since`;
        a paper's sentence adds its shared rules'), and what could not be checked: the code of a
        part that records no code versions, the shared rules where no study part records them.
        Compared are each rule's script with the library modules it reaches, and the config's
        values; not the rule's definition in ``workflow/rules/`` nor the packages' versions
        (the provenance table records those).

    Examples
    --------
    >>> part = {"git": {"commit": "586f844abc", "dirty": False}, "date": "2026-12-04T01:00:00Z",
    ...         "config": {"file": "config/paper_cpu.yaml", "sha256": "cc"},
    ...         "code": {"fit_mrf": "aa"}}
    >>> study = {**part, "code": {"fit_mrf": "aa", "sample_network": "ss"}}
    >>> rules = {"mrf": ["fit_mrf"]}
    >>> archive_states({"mrf": part, "study": study}, {"fit_mrf": "aa", "sample_network": "ss"},
    ...                {"sha256": "cc"}, rules)["mrf"]
    'commit 586f844, 2026-12-04: the rule code and config values of this checkout'
    >>> archive_states({"mrf": part, "study": study}, {"fit_mrf": "a2", "sample_network": "s2"},
    ...                {"sha256": "cc"}, rules)["mrf"]
    'commit 586f844, 2026-12-04: changed since: the code of fit_mrf; the shared rules: the code of sample_network'
    >>> archive_states({"mrf": part}, {"fit_mrf": "aa"}, {"sha256": "cc"}, rules)["mrf"]
    'commit 586f844, 2026-12-04: the rule code and config values of this checkout; not checked: the shared rules (no study part)'
    """
    in_papers = {r for rules in paper_rules.values() for r in rules}
    study = manifests.get("study")
    shared = None  # the study part's shared rules, as a part to compare
    if study is not None and study.get("code"):
        shared = {"code": {r: c for r, c in study["code"].items() if r not in in_papers}}
    states = {}
    for part, manifest in manifests.items():
        recorded = bool(manifest.get("code"))
        if part == "study":
            manifest = {**manifest, **(shared or {"code": {}})}
        changes = changed_since(manifest, code, config)
        if config is None:
            changes.append(f"{(manifest.get('config') or {}).get('file')} is not in this checkout")
        unchecked = [] if recorded else ["the code (no code versions recorded: an older archive)"]
        if part != "study" and recorded:
            if shared is None:
                unchecked.append(
                    "the shared rules (no study part)"
                    if study is None
                    else "the shared rules (the study part records no code versions)"
                )
            else:
                changes += [f"the shared rules: {c}" for c in changed_since(shared, code)]
        git = manifest.get("git") or {}
        commit = str(git.get("commit") or "unknown")[:7] + (
            " (dirty tree)" if git.get("dirty") else ""
        )
        what = "changed since: " + "; ".join(changes) if changes else CURRENT
        if unchecked:
            what += "; not checked: " + "; ".join(unchecked)
        states[part] = f"commit {commit}, {str(manifest.get('date') or 'undated')[:10]}: {what}"
    return states


def read_deviations(path: str | os.PathLike) -> pd.DataFrame:
    """The study's deviations from the papers (a TSV with :data:`DEVIATION_COLUMNS`)."""
    table = read_paper_table(path, DEVIATION_COLUMNS)
    bad_kinds = sorted(set(table["kind"]) - set(_KINDS))
    if bad_kinds:
        raise ValueError(f"{path}: unknown kinds {bad_kinds}; expected {_KINDS}")
    return table[list(DEVIATION_COLUMNS)]


def scorecard(
    claims: Mapping[str, pd.DataFrame],
    archived: Mapping[str, pd.DataFrame],
    states: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One row per claim of every paper: this run's verdict beside the archived run's.

    Parameters
    ----------
    claims : mapping of paper to DataFrame
        This run's claims table per paper (columns of :data:`bnstudy.studies.claims.COLUMNS`).
    archived : mapping of paper to DataFrame
        The claims tables of an archived run at another scale, where one exists; a claim missing
        from it gets :data:`NOT_RUN`.
    states : mapping of paper to str, optional
        Each archived part's commit and what changed since (:func:`archive_states`).

    Returns
    -------
    DataFrame
        The claims columns plus ``archive_verdict``, ``archive_scale``, ``archive_ours`` (the
        archived run's value), ``archive_note`` (the archived run's notes, or why the claim
        has no verdict there) and ``archive_state`` (the paper's entry of ``states``, or
        empty), papers in the order of :data:`bnstudy.studies.claims.PAPERS`.
    """
    unknown = sorted(set(claims) - set(PAPERS))
    if unknown:
        raise ValueError(f"unknown papers {unknown}; expected some of {PAPERS}")
    frames = []
    for paper in (p for p in PAPERS if p in claims):
        table = claims[paper]
        missing = [c for c in COLUMNS if c not in table.columns]
        if missing:
            raise ValueError(f"claims table of {paper!r}: missing columns {missing}")
        if (table["paper"] != paper).any():
            raise ValueError(f"claims table of {paper!r} holds rows of another paper")
        frame = beside_archive(table[list(COLUMNS)], archived.get(paper), paper)
        frame["archive_state"] = (states or {}).get(paper, "")
        frames.append(frame)
    if not frames:
        raise ValueError("no claims tables given")
    return pd.concat(frames, ignore_index=True)


def beside_archive(table: pd.DataFrame, other: pd.DataFrame | None, paper: str) -> pd.DataFrame:
    """A paper's claims with the archived run's verdict, value and notes beside each claim.

    Adds ``archive_verdict``, ``archive_scale``, ``archive_ours`` and ``archive_note`` (the
    archived notes, or why the claim has no archived verdict: :data:`NOT_RUN` with the reason).
    ``other`` is the archived claims table of ``paper``, or None where none is archived.
    """
    table = table.copy()
    if other is None or other.empty:
        table["archive_verdict"] = NOT_RUN
        table["archive_scale"] = ""
        table["archive_ours"] = ""
        table["archive_note"] = f"no archived run of {paper} at another scale"
        return table
    by_id = other.set_index("claim_id")
    table["archive_verdict"] = table["claim_id"].map(by_id["verdict"]).fillna(NOT_RUN)
    table["archive_scale"] = str(other["scale"].iloc[0])
    table["archive_ours"] = table["claim_id"].map(by_id["ours"]).fillna("")
    table["archive_note"] = (
        table["claim_id"].map(by_id["notes"].fillna("")).fillna("not in the archived claims table")
    )
    return table


def with_archived_claims(
    claims: pd.DataFrame, paper: str, archived: Sequence[str], archive_scale: str
) -> pd.DataFrame:
    """A claims table to write: the archived columns of :func:`beside_archive` added, unless
    ``archive_scale`` is empty (a run at the archived scale itself). ``archived``: the archived
    claims table's path, or nothing where none is archived."""
    if not archive_scale:
        return claims
    return beside_archive(claims, read_claims(archived[0]) if archived else None, paper)


def tally_table(card: pd.DataFrame) -> pd.DataFrame:
    """Per paper: the number of claims and of each verdict, at this run's scale and archived."""
    rows = []
    for paper, group in card.groupby("paper", sort=False):
        row = {"paper": paper, "scale": group["scale"].iloc[0], "claims": len(group)}
        row |= tally(group["verdict"])
        archived = group["archive_verdict"][group["archive_verdict"] != NOT_RUN]
        row["archive_scale"] = group["archive_scale"].iloc[0]
        row["archive_state"] = group["archive_state"].iloc[0] if "archive_state" in group else ""
        row["archive"] = (
            ", ".join(f"{n} {v}" for v, n in tally(archived).items() if n)
            if len(archived)
            else NOT_RUN
        )
        rows.append(row)
    return pd.DataFrame(rows)


def _md_cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _relative(evidence: str, base: str) -> str:
    """A link from ``base`` (the folder of the page) to ``evidence``; Markdown tables for CSVs."""
    target = evidence[:-4] + ".md" if evidence.endswith(".csv") else evidence
    return os.path.relpath(target, base) if evidence else ""


def _archive_tally(row: Mapping) -> str:
    """A tally row's archived cell: the archived scale and its verdict counts, or that none is."""
    return f"{row['archive_scale']}: {row['archive']}" if row["archive_scale"] else NO_ARCHIVE


def _archived_cell(r) -> str:
    """The archived verdict with the archived value, or with why there is none."""
    if not r.archive_scale:  # nothing archived at another scale: only say so
        return r.archive_note or NO_ARCHIVE
    if r.archive_verdict == NOT_RUN or r.archive_verdict == "not tested":
        return f"{r.archive_verdict} ({r.archive_note})" if r.archive_note else r.archive_verdict
    return f"{r.archive_verdict} (ours: {r.archive_ours})" if r.archive_ours else r.archive_verdict


def _state_lines(tallies: pd.DataFrame, study_state: str) -> list[tuple[str, str]]:
    """(part, state) of every archived part with a state: the papers', then the study's."""
    pairs = [(r["paper"], r["archive_state"]) for r in tallies.to_dict("records")]
    pairs.append(("shared rules (the study's part)", study_state))
    return [(part, state) for part, state in pairs if state]


def render_markdown(
    card: pd.DataFrame, deviations: pd.DataFrame, *, base: str = "reports", study_state: str = ""
) -> str:
    """The scorecard as a Markdown page: the tally, then per paper its claims and deviations.

    ``base`` is the folder the page is written to (links to the evidence are relative to it);
    ``study_state``: the study's archived part against this checkout (:func:`archive_states`).
    """
    tallies = tally_table(card)
    lines = [
        "# Scorecard: do the papers' claims hold?",
        "",
        "Each claim a paper makes about its results, checked on this run through one contract "
        "(`bnstudy.studies.claims`). Verdicts: **agrees** (holds on all the paper's evidence), "
        "**partial** (holds on the part we ran), **disagrees**, **not tested** (our runs cannot "
        "test it, or the number calibrated our method). The paper's values come from "
        "`workflow/published/claims.tsv`; the tolerances are named in `bnstudy.studies.claims`.",
        "",
        "| paper | scale | claims | " + " | ".join(VERDICTS) + " | archived scale |",
        "|---|---|---|" + "---|" * len(VERDICTS) + "---|",
    ]
    for row in tallies.to_dict("records"):
        values = [str(row[v]) for v in VERDICTS]
        archive = _archive_tally(row)
        lines.append(
            f"| {row['paper']} | {row['scale']} | {row['claims']} | "
            + " | ".join(values)
            + f" | {archive} |"
        )
    states = _state_lines(tallies, study_state)
    if states:
        lines += [
            "",
            f"The archived run, part by part, against this checkout (`archive/{ARCHIVE_SCALE}/`; "
            "a part whose code or config changed since reports what other code or config made):",
            "",
        ]
        lines += [f"- {part}: {_md_cell(state)}" for part, state in states]
    for paper, group in card.groupby("paper", sort=False):
        scale = group["scale"].iloc[0]
        archive_scale = group["archive_scale"].iloc[0] or "archived"
        lines += [
            "",
            f"## {paper}: {PAPER_TITLES[paper]}",
            "",
            f"| claim | source | paper | ours | {scale} | {archive_scale} | notes | evidence |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in group.itertuples(index=False):
            verdict = r.verdict + (" (calibrated)" if r.calibrated else "")
            link = f"[{os.path.basename(r.evidence)}]({_relative(r.evidence, base)})"
            cells = [r.claim, r.source, r.paper_value, r.ours, verdict, _archived_cell(r)]
            cells += [r.notes, link if r.evidence else ""]
            lines.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
        dev = deviations[deviations["paper"] == paper]
        if len(dev):
            lines += [
                "",
                f"Deviations from the paper ({paper}):",
                "",
                "| kind | item | the paper | the study | where |",
                "|---|---|---|---|---|",
            ]
            for d in dev.to_dict("records"):
                cells = [d[c] for c in DEVIATION_COLUMNS[1:]]
                lines.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _rst_escape(text: object) -> str:
    return (
        str(text).replace("\\", "\\\\").replace("*", "\\*").replace("`", "\\`").replace("|", "\\|")
    )


def render_rst(card: pd.DataFrame, deviations: pd.DataFrame, *, study_state: str = "") -> str:
    """The scorecard summary for the HTML report's landing text (reStructuredText).

    The tally per paper, the archived parts against this checkout, then every claim with its
    verdict, linking to the report entry of the table or figure behind it, and each paper's
    deviations.
    """
    tallies = tally_table(card)
    header = ["paper", "scale", "claims", *VERDICTS, "archived"]
    lines = [
        "Scorecard: do the papers' claims hold?",
        "---------------------------------------",
        "",
        ".. list-table::",
        "   :header-rows: 1",
        "",
        "   * - " + "\n     - ".join(header),
    ]
    for row in tallies.to_dict("records"):
        values = [row["paper"], row["scale"], row["claims"], *(row[v] for v in VERDICTS)]
        values.append(_archive_tally(row))
        lines.append("   * - " + "\n     - ".join(_rst_escape(v) for v in values))
    states = _state_lines(tallies, study_state)
    if states:
        lines += ["", f"The archived run (archive/{ARCHIVE_SCALE}/) against this checkout:", ""]
        lines += [f"- {_rst_escape(part)}: {_rst_escape(state)}" for part, state in states]
    for paper, group in card.groupby("paper", sort=False):
        lines += ["", f"**{paper}**: {_rst_escape(PAPER_TITLES[paper])}", ""]
        for r in group.itertuples(index=False):
            verdict = r.verdict + (" (calibrated)" if r.calibrated else "")
            archived = f"; {r.archive_scale}: {r.archive_verdict}" if r.archive_scale else ""
            link = (
                f" (`{_rst_escape(os.path.basename(r.evidence))} "
                f"<javascript:app.showResultInfo('{r.evidence}')>`__)"
                if r.evidence
                else ""
            )
            lines.append(f"- *{verdict}*{_rst_escape(archived)}: {_rst_escape(r.claim)}{link}")
        dev = deviations[deviations["paper"] == paper]
        if len(dev):
            lines += ["", f"Deviations ({paper}):", ""]
            for d in dev.to_dict("records"):
                lines.append(
                    f"- {_rst_escape(d['kind'])}, {_rst_escape(d['item'])}: "
                    f"{_rst_escape(d['the study'])}"
                )
    return "\n".join(lines) + "\n"
