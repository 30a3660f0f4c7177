"""A job's code is its script plus the bnstudy modules it imports, hashed by content."""

from __future__ import annotations

import json
import os
import stat
import textwrap
from pathlib import Path

import pytest

from bnstudy import provenance as prov
from bnstudy.utils import atomic_path, save_npz


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def library(tmp_path):
    """A small bnstudy package: relative imports, a submodule imported by name, a lazy import."""
    root = tmp_path / "src" / "bnstudy"
    _write(root / "__init__.py", '"""top"""\n')
    _write(root / "utils.py", "X = 1\n")
    _write(root / "unused.py", "Y = 2\n")
    _write(root / "pkg" / "__init__.py", "from .core import f\n")
    _write(root / "pkg" / "core.py", "from ..utils import X\n\ndef f():\n    return X\n")
    _write(root / "pkg" / "extra.py", "def g():\n    from bnstudy.lazy import h\n    return h\n")
    _write(root / "lazy.py", "def h():\n    return 3\n")
    _write(root / "other" / "__init__.py", "")
    _write(root / "other" / "mod.py", "Z = 3\n")
    script = _write(
        tmp_path / "scripts" / "job.py",
        """
        import numpy
        from bnstudy.pkg import extra
        from bnstudy import other

        print(extra.g())
        """,
    )
    prov._code_version.cache_clear()
    yield root, script
    prov._code_version.cache_clear()


def _names(paths, root):
    return sorted(str(p.relative_to(root)) for p in paths)


def test_closure_follows_relative_submodule_and_lazy_imports(library):
    root, script = library
    assert _names(prov.import_closure(script, root), root) == [
        "__init__.py",
        "lazy.py",  # imported inside a function of pkg/extra.py
        "other/__init__.py",  # `from bnstudy import other`: a subpackage
        "pkg/__init__.py",  # parent package of pkg.extra: Python runs it
        "pkg/core.py",  # `from .core import f` in pkg/__init__.py
        "pkg/extra.py",  # `from bnstudy.pkg import extra`: a submodule
        "utils.py",  # `from ..utils import X` in pkg/core.py
    ]


def _version(script, root):
    prov._code_version.cache_clear()
    return prov.code_version(script, root)


def test_hash_follows_content_not_times(library):
    root, script = library
    before = _version(script, root)
    core = root / "pkg" / "core.py"
    original = core.read_text()

    os.utime(core, (1, 1))  # a touch (here: an old mtime) changes nothing
    assert _version(script, root) == before

    core.write_text(original + "\ndef f2():\n    return 2\n")
    edited = _version(script, root)
    assert edited != before

    core.write_text(original)  # a revert gives back the old value
    assert _version(script, root) == before


def test_hash_ignores_modules_the_script_does_not_reach(library):
    root, script = library
    before = _version(script, root)
    (root / "unused.py").write_text("Y = 3\n")
    (root / "other" / "mod.py").write_text("Z = 4\n")  # other/__init__.py does not import it
    assert _version(script, root) == before
    (root / "lazy.py").write_text("def h():\n    return 4\n")
    assert _version(script, root) != before


def test_hash_changes_with_the_script(library):
    root, script = library
    before = _version(script, root)
    script.write_text(script.read_text() + "print(2)\n")
    assert _version(script, root) != before


def test_invalid_script_is_named(tmp_path):
    bad = _write(tmp_path / "bad.py", "def (:\n")
    with pytest.raises(ValueError, match="bad.py.*not valid Python"):
        prov.import_closure(bad)
    with pytest.raises(ValueError, match="no such script"):
        prov.import_closure(tmp_path / "missing.py")


SCRIPTS = Path(__file__).resolve().parents[2] / "workflow" / "scripts"


@pytest.mark.parametrize(
    ("script", "reaches", "avoids"),
    [
        ("train_tan.py", "classifiers", ("structure", "mrf", "parameters")),
        ("run_lsbn.py", "structure", ("classifiers", "mrf", "parameters")),
        ("fit_mrf.py", "mrf", ("classifiers", "structure", "parameters")),
        ("run_em_trials.py", "parameters", ("classifiers", "structure", "mrf")),
    ],
)
def test_each_paper_reaches_only_its_own_library(script, reaches, avoids):
    """Editing a module that only one paper uses changes only that paper's code hashes."""
    parts = {
        p.relative_to(prov.LIBRARY_ROOT).parts[0] for p in prov.import_closure(SCRIPTS / script)
    }
    assert reaches in parts
    assert not parts & set(avoids)


def test_every_script_has_a_code_version():
    versions = {s.name: prov.code_version(s) for s in SCRIPTS.glob("*.py")}
    assert all(len(v) == 16 for v in versions.values())
    assert len(set(versions.values())) == len(versions)  # a script's own content enters its hash


def test_record_names_commit_dirty_tree_and_code(tmp_path):
    record = prov.provenance(5, code="abc")
    assert record["code_hash"] == "abc" and record["seed"] == 5
    assert record["git_dirty"] in (True, False, None)
    sidecar = prov.write_sidecar(tmp_path / "table.csv", seed=5)
    assert sidecar.name == "table.csv.provenance.json"
    full = json.loads(sidecar.read_text())
    assert {"numpy", "torch", "pgmpy", "snakemake", "bnstudy"} <= set(full["packages"])
    assert full["git_commit"] == record["git_commit"]


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_atomic_outputs_honour_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        with atomic_path(tmp_path / "a.txt") as tmp:
            tmp.write_text("x")
        save_npz(tmp_path / "b.npz", x=[1])
        plain = tmp_path / "c.txt"
        plain.write_text("x")
    finally:
        os.umask(old)
    expected = stat.S_IMODE(plain.stat().st_mode)
    assert expected == 0o666 & ~umask
    for name in ("a.txt", "b.npz"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == expected, name
