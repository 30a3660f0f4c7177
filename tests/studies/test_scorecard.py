"""The scorecard: tallies, the archived scale beside this run's, and the rendered pages."""

from __future__ import annotations

import pandas as pd
import pytest
from docutils.core import publish_parts

from bnstudy.studies.claims import Catalog, Finding, assemble
from bnstudy.studies.scorecard import (
    CURRENT,
    NO_ARCHIVE,
    NOT_RUN,
    archive_states,
    archived_claims,
    archived_manifests,
    read_deviations,
    recorded_rules,
    render_markdown,
    render_rst,
    scorecard,
    study_scale,
    tally_table,
)


def _claims(paper, verdicts, scale="laptop"):
    ids = [f"{paper}.c{i}" for i in range(len(verdicts))]
    rows = pd.DataFrame(
        {
            "paper": paper,
            "claim_id": ids,
            "claim": [f"claim {i} | with a pipe" for i in range(len(ids))],
            "source": "Table 1",
            "paper_value": "1",
            "value": "",
            "evidence": f"reports/{paper}/tables/table1.csv",
        }
    )
    findings = {
        i: Finding("2", v, calibrated=(v == "not tested"))
        for i, v in zip(ids, verdicts, strict=True)
    }
    return assemble(Catalog(paper, rows), findings, scale=scale)


@pytest.fixture
def card():
    return scorecard(
        {
            "em": _claims("em", ["agrees", "disagrees", "not tested"]),
            "tan": _claims("tan", ["partial"]),
        },
        {"em": _claims("em", ["agrees", "agrees"], scale="paper_cpu")},
    )


def test_scorecard_orders_papers_and_puts_the_archived_verdict_beside(card):
    assert list(card["paper"]) == ["tan", "em", "em", "em"]
    em = card[card["paper"] == "em"].set_index("claim_id")
    assert list(em["archive_verdict"]) == ["agrees", "agrees", NOT_RUN]
    assert set(em["archive_scale"]) == {"paper_cpu"}
    tan = card[card["paper"] == "tan"]
    assert list(tan["archive_verdict"]) == [NOT_RUN]


def test_scorecard_gives_the_archived_value_or_why_there_is_none(card):
    em = card[card["paper"] == "em"].set_index("claim_id")
    assert list(em["archive_ours"]) == ["2", "2", ""]
    assert em.loc["em.c2", "archive_note"] == "not in the archived claims table"
    tan = card[card["paper"] == "tan"].iloc[0]
    assert tan["archive_note"] == "no archived run of tan at another scale"
    page = render_markdown(card, read_deviations_empty())
    assert "| agrees (ours: 2) |" in page
    # no archive at another scale: the page says so, not "not run" (the paper_cpu run's own page)
    assert "| no archived run of tan at another scale |" in page
    assert f"| tan | laptop | 1 | 0 | 1 | 0 | 0 | {NO_ARCHIVE} |" in page
    assert "| em | laptop | 3 | 1 | 0 | 1 | 1 | paper_cpu: 2 agrees |" in page
    assert f"| {NOT_RUN} (not in the archived claims table) |" in page


def test_claims_tables_carry_the_archived_columns_except_at_the_archived_scale(tmp_path):
    from bnstudy.studies.scorecard import with_archived_claims

    ours = _claims("em", ["agrees", "disagrees"])
    assert with_archived_claims(ours, "em", [], "") is ours  # the archived run itself
    none = with_archived_claims(ours, "em", [], "paper_cpu")
    assert set(none["archive_verdict"]) == {NOT_RUN}
    path = tmp_path / "claims.csv"
    _claims("em", ["disagrees"], scale="paper_cpu").to_csv(path, index=False)
    both = with_archived_claims(ours, "em", [str(path)], "paper_cpu")
    assert list(both["archive_verdict"]) == ["disagrees", NOT_RUN]
    assert list(both.columns[: len(ours.columns)]) == list(ours.columns)


def read_deviations_empty():
    return pd.DataFrame(columns=["paper", "kind", "item", "the paper", "the study", "where"])


def test_tally_table(card):
    tallies = tally_table(card).set_index("paper")
    assert tallies.loc["em", ["claims", "agrees", "disagrees", "not tested"]].tolist() == [
        3,
        1,
        1,
        1,
    ]
    assert tallies.loc["em", "archive"] == "2 agrees"
    assert tallies.loc["tan", "archive"] == NOT_RUN
    assert tallies.loc["tan", "partial"] == 1


def test_scorecard_rejects_bad_tables():
    with pytest.raises(ValueError, match="unknown papers"):
        scorecard({"xyz": _claims("em", ["agrees"])}, {})
    with pytest.raises(ValueError, match="another paper"):
        scorecard({"tan": _claims("em", ["agrees"])}, {})
    with pytest.raises(ValueError, match="missing columns"):
        scorecard({"em": _claims("em", ["agrees"]).drop(columns="verdict")}, {})
    with pytest.raises(ValueError, match="no claims"):
        scorecard({}, {})


def test_markdown_links_evidence_and_lists_deviations(card, repo_root):
    dev = read_deviations(repo_root / "workflow/published/deviations.tsv")
    text = render_markdown(card, dev, base="reports")
    assert text.index("## tan") < text.index("## em")
    assert "[table1.csv](em/tables/table1.md)" in text
    assert "claim 0 \\| with a pipe" in text
    assert "not tested (calibrated)" in text
    assert "Deviations from the paper (em):" in text
    assert "| 3 | 1 | 0 | 1 | 1 | paper_cpu: 2 agrees |" in text


def test_rst_renders_without_errors(card, repo_root):
    dev = read_deviations(repo_root / "workflow/published/deviations.tsv")
    html = publish_parts(
        render_rst(card, dev), writer="html", settings_overrides={"report_level": 1}
    )["html_body"]
    assert "System Message" not in html
    assert "javascript:app.showResultInfo('reports/em/tables/table1.csv')" in html
    assert "<table" in html


def test_read_deviations_checks_kinds_and_papers(tmp_path, repo_root):
    dev = read_deviations(repo_root / "workflow/published/deviations.tsv")
    assert set(dev["paper"]) == {"tan", "em", "mrf", "lsbn"}
    bad = tmp_path / "dev.tsv"
    dev.assign(kind="whim").to_csv(bad, sep="\t", index=False)
    with pytest.raises(ValueError, match="unknown kinds"):
        read_deviations(bad)
    dev.assign(paper="xyz").to_csv(bad, sep="\t", index=False)
    with pytest.raises(ValueError, match="unknown papers"):
        read_deviations(bad)


def test_study_scale_is_the_config_name():
    assert study_scale(["config/config.yaml"]) == "laptop"
    assert study_scale(["config/smoke.yaml", "config/paper_cpu.yaml"]) == "paper_cpu"
    with pytest.raises(ValueError, match="config file"):
        study_scale([])


def test_archived_claims_lists_the_existing_tables(tmp_path):
    assert archived_claims(tmp_path) == {}
    folder = tmp_path / "archive" / "paper_cpu" / "em" / "tables"
    folder.mkdir(parents=True)
    (folder / "claims.csv").write_text("x")
    (tmp_path / "archive" / "paper_cpu" / "study").mkdir()
    assert archived_claims(tmp_path) == {"em": str(folder / "claims.csv")}
    assert archived_claims(tmp_path, scale="paper") == {}


def _manifest(commit, code, sha="cc"):
    return {
        "git": {"commit": commit, "dirty": False},
        "date": "2026-12-04T01:02:03Z",
        "config": {"file": "config/paper_cpu.yaml", "sha256": sha},
        "code": code,
    }


RULES = {"em": ["run_em_sharing"], "mrf": ["fit_mrf"], "tan": ["train_tan"], "lsbn": []}
HEAD = "commit {}, 2026-12-04: "


def _parts():
    return {
        "em": _manifest("aaaaaaa1111", {"run_em_sharing": "e1"}),
        "mrf": _manifest("bbbbbbb2222", {"fit_mrf": "m1"}),
        # the study's part times every rule; those of no paper are the shared ones
        "study": _manifest(
            "bbbbbbb2222", {"run_em_sharing": "e1", "fit_mrf": "m1", "prepare_dataset": "d1"}
        ),
    }


def test_archive_states_compare_each_part_with_this_checkout():
    parts = _parts()
    code = {"run_em_sharing": "e1", "fit_mrf": "m2", "prepare_dataset": "d1"}
    states = archive_states(parts, code, {"sha256": "cc"}, RULES)
    assert states["em"] == HEAD.format("aaaaaaa") + CURRENT
    assert states["mrf"] == HEAD.format("bbbbbbb") + "changed since: the code of fit_mrf"
    assert states["study"] == HEAD.format("bbbbbbb") + CURRENT  # fit_mrf is mrf's, not shared
    states = archive_states(parts, {**code, "prepare_dataset": "d2"}, {"sha256": "other"}, RULES)
    text = "config/paper_cpu.yaml (its text: the part records no hash of its values)"
    assert states["study"].endswith(f"changed since: the code of prepare_dataset; {text}")
    # a shared rule's change reaches every paper's sentence
    assert states["em"].endswith(
        f"changed since: {text}; the shared rules: the code of prepare_dataset"
    )


def test_archive_states_say_what_could_not_be_checked():
    parts, code = _parts(), {"run_em_sharing": "e1", "fit_mrf": "m1", "prepare_dataset": "d1"}
    alone = archive_states({"em": parts["em"]}, code, {"sha256": "cc"}, RULES)
    assert (
        alone["em"]
        == HEAD.format("aaaaaaa") + f"{CURRENT}; not checked: the shared rules (no study part)"
    )
    old_study = {k: v for k, v in parts["study"].items() if k != "code"}
    states = archive_states({**parts, "study": old_study}, code, {"sha256": "cc"}, RULES)
    assert states["em"].endswith(
        "not checked: the shared rules (the study part records no code versions)"
    )
    assert states["study"].endswith(
        "not checked: the code (no code versions recorded: an older archive)"
    )
    old_em = {k: v for k, v in parts["em"].items() if k != "code"}
    states = archive_states({"em": old_em}, code, {"sha256": "cc"}, RULES)
    assert states["em"] == (
        HEAD.format("aaaaaaa")
        + f"{CURRENT}; not checked: the code (no code versions recorded: an older archive)"
    )
    # no config file of the archived scale in this checkout; a part from a dirty tree
    dirty = {**parts["em"], "git": {"commit": "aaaaaaa1111", "dirty": True}}
    states = archive_states({**parts, "em": dirty}, code, None, RULES)
    assert states["em"] == (
        "commit aaaaaaa (dirty tree), 2026-12-04: changed since: config/paper_cpu.yaml is not "
        "in this checkout"
    )
    # a paper part missing: its rules are still not taken for shared ones
    states = archive_states(
        {"em": parts["em"], "study": parts["study"]}, code, {"sha256": "cc"}, RULES
    )
    assert states["study"] == HEAD.format("bbbbbbb") + CURRENT
    states = archive_states(
        {"em": parts["em"], "study": parts["study"]},
        {**code, "fit_mrf": "m9"},
        {"sha256": "cc"},
        RULES,
    )
    assert states["em"] == HEAD.format("aaaaaaa") + CURRENT


def test_recorded_rules_reads_the_manifests(tmp_path):
    a, b, bad = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "bad.json"
    a.write_text('{"code": {"fit_mrf": "1", "simulate_mrf_data": "2"}}')
    b.write_text('{"git": {}}')
    bad.write_text("{")
    assert recorded_rules({"mrf": a, "study": b}) == ["fit_mrf", "simulate_mrf_data"]
    with pytest.raises(ValueError, match="bad.json: not a readable archive manifest"):
        recorded_rules({"em": bad})


def test_archive_states_appear_in_the_scorecard_and_its_pages(repo_root):
    states = {"em": "commit aaaaaaa, 2026-12-04: changed since: the code of run_em_sharing"}
    card = scorecard(
        {"em": _claims("em", ["agrees"]), "tan": _claims("tan", ["partial"])},
        {"em": _claims("em", ["agrees"], scale="paper_cpu")},
        states,
    )
    assert card.set_index("paper")["archive_state"].to_dict() == {"tan": "", "em": states["em"]}
    dev = read_deviations(repo_root / "workflow/published/deviations.tsv")
    study = "commit aaaaaaa, 2026-12-04: " + CURRENT
    text = render_markdown(card, dev, study_state=study)
    assert f"- em: {states['em']}" in text
    assert f"- shared rules (the study's part): {study}" in text
    assert "- tan:" not in text  # no archived part: nothing to compare
    html = publish_parts(
        render_rst(card, dev, study_state=study),
        writer="html",
        settings_overrides={"report_level": 1},
    )["html_body"]
    assert "System Message" not in html
    assert "changed since: the code of run_em_sharing" in html
    plain = render_markdown(scorecard({"em": _claims("em", ["agrees"])}, {}), dev)
    assert "against this checkout" not in plain


def test_archived_manifests_lists_the_existing_parts(tmp_path):
    assert archived_manifests(tmp_path) == {}
    for part in ("mrf", "study"):
        folder = tmp_path / "archive" / "paper_cpu" / part
        folder.mkdir(parents=True)
        (folder / "manifest.json").write_text("{}")
    assert list(archived_manifests(tmp_path)) == ["mrf", "study"]
