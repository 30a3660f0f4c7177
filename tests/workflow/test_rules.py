"""Every rule that runs a script declares the script's code version and keeps its benchmark
file under logs/benchmarks/, so a library edit reruns it and its cost is measured."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

RULES = sorted((Path(__file__).resolve().parents[2] / "workflow" / "rules").glob("*.smk"))
# The archive sums the run's benchmark files: a file of its own would change its second run.
# archive_{_paper}, archive_provenance_{_paper}: the per-paper archive rules, made in a loop
# (workflow/rules/archive.smk); the others make the study part's scorecard and provenance.
NO_BENCHMARK = {
    "archive",
    "archive_{_paper}",
    "archive_provenance_{_paper}",
    "archive_scorecard",
    "archive_provenance_study",
}
# a rule at any indentation (rules made in a loop are indented and named by `name:`); its body is
# every following line indented deeper
RULE = re.compile(r"^( *)(?:rule|checkpoint) ?(\w*):\n((?:\1 +\S.*\n|\s*\n)*)", re.M)


def _script_rules():
    for path in RULES:
        for _, name, body in RULE.findall(path.read_text()):
            if not name:
                name = re.search(r'name:\s*f?"([^"]+)"', body).group(1)
            script = re.search(r'script:\s*"\.\./scripts/([\w.]+)"', body)
            if script:
                yield pytest.param(name, body, script.group(1), id=name)


@pytest.mark.parametrize(("name", "body", "script"), list(_script_rules()))
def test_script_rules_declare_code_version_and_benchmark(name, body, script):
    assert f'code=code_version("{script}")' in body, f"rule {name}: params.code of {script}"
    bench = re.search(r'benchmark:\s*"([^"]+)"', body)
    if name in NO_BENCHMARK:
        assert bench is None
        return
    assert bench, f"rule {name} has no benchmark:"
    assert bench.group(1).startswith(f"logs/benchmarks/{name}"), f"rule {name}: {bench.group(1)}"


def test_some_rules_found():
    names = {p.id for p in _script_rules()}
    assert len(names) > 30
    assert {"archive", "archive_{_paper}", "train_tan", "make_scorecard"} <= names
