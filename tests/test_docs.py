"""The README and docs/ name files, benchmark flags, make targets and library objects that exist.

Documentation drifts when code moves: a renamed script, a dropped flag or a module split leaves
a command that fails for the reader who copies it. These tests read every Markdown file the
study ships (README.md, docs/*.md) and check what they name against the tree.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Folders of the repository whose files the docs name by path.
TRACKED = ("benchmarks/", "config/", "workflow/", "src/", "tests/", "envs/", ".ci/", "docs/")


def _text(doc: Path) -> str:
    return doc.read_text(encoding="utf-8")


def code_spans(text: str) -> list[str]:
    """Inline code spans (``like this``), a span broken over lines joined by single spaces.

    >>> code_spans("run `python a.py\\n  --x 1` and `b`, not ```bash blocks```")
    ['python a.py --x 1', 'b']
    """
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", text)]


def commands(text: str) -> list[str]:
    """Shell commands: inline spans and the lines of fenced blocks, continuations joined."""
    lines = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S):
        lines += block.replace("\\\n", " ").splitlines()
    return [" ".join(line.split("#")[0].split()) for line in lines] + code_spans(text)


def named_paths(text: str) -> set[str]:
    """Repository paths named in code spans: no placeholders (``<paper>``), globs or spaces."""
    paths = set()
    for span in code_spans(text):
        for word in span.split():
            word = word.rstrip(".,;:)")
            if word.startswith(TRACKED) and not re.search(r"[<>*{}]|\.\.\.", word):
                paths.add(word)
    return paths


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_named_paths_exist(doc):
    missing = sorted(p for p in named_paths(_text(doc)) if not (ROOT / p).exists())
    assert not missing, f"{doc.name} names paths that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_benchmark_scripts_exist(doc):
    """Bare script names (``bench_mrf.py``, ``cost_model.py``) are files of the study's scripts."""
    names = {
        word
        for span in code_spans(_text(doc))
        for word in re.findall(r"(?<![/\w])([a-z_]+\.py)\b", span)
    }
    folders = [ROOT / "benchmarks", ROOT / "workflow" / "scripts"]
    missing = sorted(n for n in names if not any((f / n).exists() for f in folders))
    assert not missing, f"{doc.name} names scripts that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_links_resolve(doc):
    """Relative Markdown links point at files of the repository."""
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", _text(doc))
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    missing = sorted(t for t in local if not (doc.parent / t).exists())
    assert not missing, f"{doc.name} links to files that do not exist: {missing}"


def benchmark_calls(text: str) -> list[tuple[str, list[str]]]:
    """``(script, flags)`` of every ``python benchmarks/<script>.py ...`` command."""
    calls = []
    for command in commands(text):
        for match in re.finditer(r"python benchmarks/([\w]+\.py)((?:\s+[^\s|;&]+)*)", command):
            calls.append((match.group(1), re.findall(r"(?<!\S)(--[\w-]+)", match.group(2))))
    return calls


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_benchmark_commands_use_flags_the_scripts_take(doc):
    calls = benchmark_calls(_text(doc))
    assert calls or doc.name != "README.md", "the README shows no benchmark command"
    wrong = []
    for script, flags in calls:
        path = ROOT / "benchmarks" / script
        if not path.exists():
            wrong.append(f"{script} (no such script)")
            continue
        source = path.read_text(encoding="utf-8")
        wrong += [f"{script} {flag}" for flag in flags if f'"{flag}"' not in source]
    assert not wrong, f"{doc.name} shows benchmark flags that the scripts do not define: {wrong}"


def test_benchmark_calls_are_parsed():
    text = "run `python benchmarks/bench_x.py --ref 851e128\n  --ns 100 1000` then\n" + (
        "```bash\npython benchmarks/cost_model.py --measured a b \\\n    --against c  # note\n```\n"
    )
    assert sorted(benchmark_calls(text)) == [
        ("bench_x.py", ["--ref", "--ns"]),
        ("cost_model.py", ["--measured", "--against"]),
    ]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_make_targets_exist(doc):
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    defined = set(re.findall(r"^([\w.-]+):", makefile, flags=re.M))
    named = {
        target
        for command in commands(_text(doc))
        for target in re.findall(r"(?:^|\s)make ([\w-]+)", command)
    }
    assert not named - defined, (
        f"{doc.name} names make targets that do not exist: {named - defined}"
    )


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_library_names_resolve(doc):
    """``bnstudy.x.y`` named in the docs imports (a module, or an attribute of one)."""
    names = {
        word.rstrip(".,;:)")
        for span in code_spans(_text(doc))
        for word in re.findall(r"(?<![/\w])bnstudy(?:\.\w+)+", span)
    }
    missing = sorted(n for n in names if not _resolves(n))
    assert not missing, f"{doc.name} names library objects that do not exist: {missing}"


#: Options of ``snakemake`` that take one value, and those that take every value up to the next
#: option; the other options the docs use take none.
ONE_VALUE = {"--cores", "-c", "--report", "--workflow-profile", "--slurm-status-command", "-j"}
MANY_VALUES = {"--configfile", "--config", "--forcerun", "-R", "--set-resources", "--resources"}
MANY_VALUES |= {"--default-resources", "--until", "--omit-from", "--list-changes"}


def snakemake_targets(command: str) -> tuple[list[str], list[str], list[str]]:
    """``(targets, rules, config files)`` a ``snakemake ...`` command names.

    Rules: those of ``--forcerun`` and ``--set-resources rule:resource=value``.

    >>> snakemake_targets("snakemake --cores 1 archive_em --configfile config/a.yaml")
    (['archive_em'], [], ['config/a.yaml'])
    >>> snakemake_targets("snakemake -n tan --forcerun fit_mrf --set-resources train_tan:gpu=1")
    (['tan'], ['fit_mrf', 'train_tan'], [])
    >>> snakemake_targets("snakemake --configfile config/a.yaml em")  # em read as a config file
    ([], [], ['config/a.yaml', 'em'])
    """
    words = command.split()[1:]
    targets, rules, configs = [], [], []
    option = None
    for word in words:
        if word.startswith("-"):
            option = word if word in ONE_VALUE | MANY_VALUES else None
            continue
        if option in ONE_VALUE:
            option = None
        elif option in ("--forcerun", "-R"):
            rules.append(word)
        elif option == "--set-resources":
            rules.append(word.split(":")[0])
        elif option == "--configfile":
            configs.append(word)
        elif option is None:
            targets.append(word)
    return targets, rules, configs


def snakemake_commands() -> list[tuple[str, str]]:
    """``(doc name, command)`` of every ``snakemake`` command the docs show."""
    found = []
    for doc in DOCS:
        for command in commands(_text(doc)):
            start = command.find("snakemake ")
            if start >= 0 and not command[start - 1 : start].strip("/ "):
                found.append((doc.name, command[start:].split(";")[0].split("&&")[0].strip()))
    return found


def test_snakemake_commands_are_parsed():
    import doctest

    results = doctest.testmod(sys.modules[__name__], verbose=False)
    assert results.attempted >= 4 and results.failed == 0
    assert len(snakemake_commands()) >= 10
    assert snakemake_targets("snakemake --cores 4 --forcerun summarize_networks") == (
        [],
        ["summarize_networks"],
        [],
    )


@pytest.mark.workflow
def test_snakemake_commands_name_rules_that_exist(repo_root, mirror):
    """Targets and rules of the docs' ``snakemake`` commands are rules of the workflow (or paths)."""
    env = {**os.environ, "BNSTUDY_DATA_MIRROR": str(mirror)}
    listed = subprocess.run(
        [str(Path(sys.executable).with_name("snakemake")), "--list-rules"],
        cwd=repo_root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert listed.returncode == 0, listed.stderr[-3000:]
    rules = set(listed.stdout.split())
    assert {"all", "tan", "archive_em", "train_tan"} <= rules
    wrong = []
    for doc, command in snakemake_commands():
        targets, named_rules, configs = snakemake_targets(command)
        for target in targets:
            if "/" not in target and "<" not in target and target not in rules:
                wrong.append(f"{doc}: {command!r}: no rule {target}")
        wrong += [f"{doc}: {command!r}: no rule {r}" for r in named_rules if r not in rules]
        wrong += [
            f"{doc}: {command!r}: no file {c}"
            for c in configs
            if "<" not in c and not (repo_root / c).exists()
        ]
    assert not wrong, "\n".join(wrong)


def measured_column(text: str) -> dict[str, str]:
    """The README's "prediction beside what was measured" table: paper -> measured, as written.

    >>> measured_column("| paper | cost model | measured | how |\\n|:--|--:|--:|:--|\\n"
    ...                 "| em | 0.79 | 1,200.5 | a run |\\n\\nafter")
    {'em': '1,200.5'}
    """
    match = re.search(
        r"^\| paper \| cost model \| measured \|.*\n\|[-:| ]+\|\n((?:\|.*\n?)+)", text, re.M
    )
    if match is None:
        return {}
    rows = [line.split("|")[1:-1] for line in match.group(1).splitlines()]
    return {cells[0].strip(): cells[2].strip() for cells in rows}


def test_readme_measured_cpu_hours_are_the_archives():
    """Each branch's measured CPU-hours in the README are its archived manifest's, as rounded.

    A new archived run changes the manifests; this fails until the README says what it measured.
    """
    written = measured_column(_text(ROOT / "README.md"))
    archive = ROOT / "archive" / "paper_cpu"

    def cpu_h(part: str) -> float:
        return json.loads((archive / part / "manifest.json").read_text())["time"]["cpu_h"]

    papers = ("em", "lsbn", "mrf", "tan")
    expected = {p: cpu_h(p) for p in papers}
    expected["total"] = cpu_h("study")
    expected["shared"] = expected["total"] - sum(expected[p] for p in papers)
    assert set(written) == set(expected), (
        f"README.md: the measured table has rows {sorted(written)}"
    )
    wrong = {}
    for row, value in written.items():
        decimals = len(value.partition(".")[2])
        if value != f"{expected[row]:,.{decimals}f}":
            wrong[row] = (value, round(expected[row], 4))
    assert not wrong, f"README.md: measured CPU-hours (written, in the manifests): {wrong}"
