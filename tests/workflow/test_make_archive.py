"""The study part's checks of the paper parts it summarizes (workflow/scripts/make_archive.py).

The study's part is built from the parts as they lie in the archive, so it must refuse parts
that do not belong to the checkout writing it: archived from other config values, or resting on
other code of the shared rules (data, network samples) than the code it records for them.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from .conftest import load_script

SHARED = {"fetch_raw_file": "f1", "prepare_dataset": "p1", "sample_network": "s1"}
CONFIG = {"sha256": "bytes", "values_sha256": "values"}


@pytest.fixture(scope="module")
def make_archive(repo_root):
    """workflow/scripts/make_archive.py as a module (its ``__main__`` block does not run)."""
    return load_script(repo_root, "make_archive")


def _part(tmp_path, paper, *, shared=SHARED, values="values", per_rule=()):
    manifest = {
        "part": paper,
        "config": {"file": "config/x.yaml", "sha256": "bytes", "values_sha256": values},
        "code": {r["rule"]: f"{r['rule']}-code" for r in per_rule},
        "time": {"per_rule": list(per_rule)},
    }
    if shared is not None:
        manifest["shared_code"] = dict(shared)
    path = tmp_path / f"{paper}.json"
    path.write_text(json.dumps(manifest))
    return str(path)


def test_parts_of_this_checkout_pass(make_archive, tmp_path):
    parts = {"em": _part(tmp_path, "em"), "tan": _part(tmp_path, "tan")}
    make_archive.check_parts(parts, CONFIG, SHARED, None)


def test_a_part_of_other_config_values_is_refused(make_archive, tmp_path):
    parts = {"em": _part(tmp_path, "em"), "tan": _part(tmp_path, "tan", values="other")}
    with pytest.raises(ValueError, match=r"the parts \['tan'\] were archived from other values"):
        make_archive.check_parts(parts, CONFIG, SHARED, None)


def test_a_part_that_ran_other_shared_code_is_refused(make_archive, tmp_path):
    ran = {**SHARED, "sample_network": "s0"}
    parts = {"lsbn": _part(tmp_path, "lsbn", shared=ran), "tan": _part(tmp_path, "tan")}
    with pytest.raises(ValueError, match=r"lsbn \(ran other code of sample_network\)"):
        make_archive.check_parts(parts, CONFIG, SHARED, None)


def test_a_part_without_shared_code_rests_on_the_study_parts_record(make_archive, tmp_path):
    parts = {"mrf": _part(tmp_path, "mrf", shared=None)}
    make_archive.check_parts(parts, CONFIG, SHARED, dict(SHARED))  # the record is this code
    with pytest.raises(ValueError, match=r"mrf \(ran other code of prepare_dataset\)"):
        make_archive.check_parts(parts, CONFIG, SHARED, {**SHARED, "prepare_dataset": "p0"})
    with pytest.raises(ValueError, match="mrf .it records no shared code and no study part does"):
        make_archive.check_parts(parts, CONFIG, SHARED, None)


def _times(*rules):
    return pd.DataFrame(
        [{"rule": r, "jobs": 1, "wall_s": 2.0, "cpu_s": 1.0, "cpu_measured": 1} for r in rules],
        columns=["rule", "jobs", "wall_s", "cpu_s", "cpu_measured"],
    )


def test_study_times_and_code_add_every_parts(make_archive, tmp_path):
    tan = _times("train_tan").to_dict("records")
    parts = {"tan": _part(tmp_path, "tan", per_rule=tan)}
    times, code = make_archive.with_parts(_times("fetch_raw_file"), {"fetch_raw_file": "f1"}, parts)
    assert times["rule"].tolist() == ["fetch_raw_file", "train_tan"]
    assert code == {"fetch_raw_file": "f1", "train_tan": "train_tan-code"}


def test_a_rule_timed_by_two_parts_is_an_error(make_archive, tmp_path):
    parts = {"tan": _part(tmp_path, "tan", per_rule=_times("fetch_raw_file").to_dict("records"))}
    with pytest.raises(ValueError, match=r"rules \['fetch_raw_file'\] .* another part too"):
        make_archive.with_parts(_times("fetch_raw_file"), {}, parts)


def test_only_the_files_the_dag_makes_are_archived(make_archive, tmp_path, monkeypatch, caplog):
    # paths as the workflow names them (relative to the run's folder) or absolute
    monkeypatch.chdir(tmp_path)
    tables = tmp_path / "reports" / "tan" / "tables"
    tables.mkdir(parents=True)
    for name in ("claims.csv", "table1.csv", "mnist_mi_agreement.csv"):
        (tables / name).write_text("a\n1\n")
    files = {f"tables/{p.name}": p for p in sorted(tables.iterdir())}
    made = ["reports/tan/tables/claims.csv", tables / "table1.csv"]
    with caplog.at_level("WARNING"):
        kept = make_archive.made_only(files, made)
    assert list(kept) == ["tables/claims.csv", "tables/table1.csv"]
    assert "left out: tables/mnist_mi_agreement.csv" in caplog.text
