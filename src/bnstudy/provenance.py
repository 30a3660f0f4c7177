"""What produced a result: the code a job ran, the commit, the packages and the seed.

Two halves:

* **Code versions.** :func:`import_closure` follows a script's imports of ``bnstudy`` through the
  library (statically, with :mod:`ast`), and :func:`code_version` hashes the script and every module
  it reaches by content. The workflow passes that hash to each job as ``params.code``, so editing a
  module reruns exactly the jobs whose scripts reach it, and a ``touch`` or a revert reruns nothing.
* **Records.** :func:`provenance` is the one record every result carries (columns of run tables);
  :func:`write_sidecar` writes the fuller record, with package versions, beside a report file.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = [
    "LIBRARY_ROOT",
    "PACKAGES",
    "code_version",
    "git_state",
    "import_closure",
    "job_code",
    "package_versions",
    "provenance",
    "sidecar_path",
    "write_sidecar",
]

#: The directory of the ``bnstudy`` package whose code runs (``src/bnstudy`` in a checkout).
LIBRARY_ROOT = Path(__file__).resolve().parent

#: Distributions whose versions a full record lists.
PACKAGES = ("bnstudy", "numpy", "scipy", "pandas", "torch", "pgmpy", "networkx", "snakemake")

_PACKAGE = "bnstudy"


def _module_file(name: str, root: Path) -> Path | None:
    """The file of module ``name`` (``bnstudy.a.b``) under ``root`` (the package directory)."""
    parts = name.split(".")
    if parts[0] != _PACKAGE:
        return None
    base = root.joinpath(*parts[1:])
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file() and parts[1:]:
        return base.with_suffix(".py")
    return None


def _module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = [_PACKAGE, *rel.parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _import_statements(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement in ``node``, at any depth of nested statements (functions, ifs, trys).

    Only statements are visited (imports cannot hide in expressions), which is several times faster
    than :func:`ast.walk` on the library's modules.
    """
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, field, ()) or ():
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child
            elif isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                yield from _import_statements(child)


@functools.cache
def _parsed_imports(
    path: Path, stamp: tuple[int, int], module: str | None, is_package: bool, root: Path
) -> frozenset[str]:
    """:func:`_imported_modules` of one file, cached per (path, mtime, size) within a process."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as exc:
        raise ValueError(f"{path}: not valid Python ({exc.msg}, line {exc.lineno})") from exc
    return frozenset(_imported_modules(tree, module, is_package, root))


def _imported_modules(tree: ast.AST, module: str | None, is_package: bool, root: Path) -> set[str]:
    """Names of the ``bnstudy`` modules a parsed file imports, anywhere in it.

    ``module`` is the file's own module name (None for a script outside the package), used to
    resolve relative imports. ``from bnstudy.x import y`` counts ``bnstudy.x.y`` when ``y`` is a
    submodule. Every parent package of an imported module counts too: Python runs its
    ``__init__``.
    """
    names: set[str] = set()
    for node in _import_statements(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if module is None:
                    continue  # a relative import in a script is not one of ours
                package = module.split(".") if is_package else module.split(".")[:-1]
                if node.level > 1:
                    package = package[: len(package) - (node.level - 1)]
                base = ".".join([*package, node.module] if node.module else package)
            else:
                base = node.module or ""
            names.add(base)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                if _module_file(candidate, root) is not None:
                    names.add(candidate)
    found: set[str] = set()
    for name in names:
        parts = name.split(".")
        if parts[0] != _PACKAGE:
            continue
        for i in range(1, len(parts) + 1):
            prefix = ".".join(parts[:i])
            if _module_file(prefix, root) is not None:
                found.add(prefix)
    return found


def import_closure(script: str | os.PathLike, root: str | os.PathLike = LIBRARY_ROOT) -> list[Path]:
    """Every ``bnstudy`` module file a script imports, directly or through other modules.

    Parameters
    ----------
    script : path-like
        A Python file (a workflow script, or a module of the library itself).
    root : path-like
        The ``bnstudy`` package directory the imports resolve in.

    Returns
    -------
    list of pathlib.Path
        The module files, sorted; parent packages' ``__init__.py`` included, ``script`` not.

    Raises
    ------
    ValueError
        If ``script`` does not exist or is not valid Python (the error names the file).
    """
    root = Path(root).resolve()
    script = Path(script).resolve()
    if not script.is_file():
        raise ValueError(f"{script}: no such script")
    seen: dict[Path, None] = {}
    stack: list[tuple[Path, str | None, bool]] = [(script, None, False)]
    if script.is_relative_to(root):
        stack = [(script, _module_name(script, root), script.name == "__init__.py")]
    while stack:
        path, module, is_package = stack.pop()
        info = path.stat()
        stamp = (info.st_mtime_ns, info.st_size)
        for name in sorted(_parsed_imports(path, stamp, module, is_package, root)):
            target = _module_file(name, root)
            if target is None or target in seen or target == script:
                continue
            seen[target] = None
            stack.append((target, name, target.name == "__init__.py"))
    return sorted(seen)


def _content_hash(files: Iterable[Path], base: Path) -> str:
    digest = hashlib.sha256()
    for path in files:
        data = Path(path).read_bytes()
        digest.update(str(path.relative_to(base)).encode() + b"\0")
        digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


@functools.cache
def _code_version(script: Path, root: Path) -> str:
    modules = import_closure(script, root)
    digest = hashlib.sha256()
    digest.update(b"script\0" + hashlib.sha256(script.read_bytes()).digest())
    digest.update(_content_hash(modules, root.parent).encode())
    return digest.hexdigest()[:16]


def code_version(script: str | os.PathLike, root: str | os.PathLike = LIBRARY_ROOT) -> str:
    """Content hash (16 hex digits) of a script and every ``bnstudy`` module it reaches.

    Only file contents and module paths enter the hash, never times, so touching a file or
    reverting an edit gives back the same value. Cached per process: it is computed once per
    script when the workflow's DAG is built.
    """
    return _code_version(Path(script).resolve(), Path(root).resolve())


def job_code(snakemake: object | None = None) -> str | None:
    """``params.code`` of the running Snakemake job (the code hash the workflow computed), or None.

    Without an argument, the ``snakemake`` object of the script Snakemake runs as ``__main__``.
    """
    job = snakemake if snakemake is not None else _running_job()
    params = getattr(job, "params", None)
    if params is None:
        return None
    code = dict(params.items()).get("code") if hasattr(params, "items") else None
    return str(code) if code is not None else None


def _running_job() -> object | None:
    main = sys.modules.get("__main__")
    return getattr(main, "snakemake", None)


@functools.lru_cache(maxsize=1)
def git_state() -> tuple[str, bool | None]:
    """``(commit, dirty)`` of the checkout holding the library: ``("unknown", None)`` outside git.

    ``dirty`` is True when tracked files differ from the commit or untracked, non-ignored files
    exist under ``src/`` or ``workflow/`` (both change what a job computes).
    """
    cwd = LIBRARY_ROOT

    def git(*args: str) -> str:
        out = subprocess.run(
            ["git", *args], capture_output=True, text=True, check=True, cwd=cwd, timeout=10
        )
        return out.stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        top = Path(git("rev-parse", "--show-toplevel"))
        paths = [p for p in ("src", "workflow", "Snakefile") if (top / p).exists()]
        status = git("-C", str(top), "status", "--porcelain", "--", *paths)
    except (OSError, subprocess.SubprocessError):
        return "unknown", None
    return commit, bool(status)


def package_versions(packages: Iterable[str] = PACKAGES) -> dict[str, str]:
    """Installed version of each distribution (``"absent"`` when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    versions = {}
    for name in packages:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "absent"
    return versions


def provenance(seed: int | None = None, *, code: str | None = None) -> dict[str, object]:
    """The record every result row carries.

    Parameters
    ----------
    seed : int, optional
        The job's seed (derived from the config seed and its wildcards).
    code : str, optional
        The job's code hash; by default the running Snakemake job's ``params.code``, or, outside
        Snakemake, the hash of the calling script (``sys.argv[0]``) and the modules it imports.

    Returns
    -------
    dict
        ``bnstudy_version``, ``git_commit``, ``git_dirty``, ``code_hash`` and, given one, ``seed``.
    """
    from bnstudy import __version__

    commit, dirty = git_state()
    if code is None:
        code = job_code()
    if code is None and sys.argv and Path(sys.argv[0]).is_file():
        code = code_version(sys.argv[0])
    record: dict[str, object] = {
        "bnstudy_version": __version__,
        "git_commit": commit,
        "git_dirty": dirty,
        "code_hash": code if code is not None else "unknown",
    }
    if seed is not None:
        record["seed"] = int(seed)
    return record


def full_record(seed: int | None = None, *, code: str | None = None) -> dict[str, object]:
    """:func:`provenance` plus the package versions, and the job's rule, wildcards and config seed."""
    record = provenance(seed, code=code)
    job = _running_job()
    if job is not None:
        record["rule"] = getattr(job, "rule", None)
        wildcards = getattr(job, "wildcards", None)
        record["wildcards"] = dict(wildcards.items()) if wildcards is not None else {}
        config = getattr(job, "config", None) or {}
        if "seed" in config:
            record["config_seed"] = int(config["seed"])
    record["packages"] = package_versions()
    record["python"] = sys.version.split()[0]
    return record


def sidecar_path(path: str | os.PathLike) -> Path:
    """Where the provenance of ``path`` is kept: ``<path>.provenance.json`` beside it."""
    path = Path(path)
    return path.with_name(path.name + ".provenance.json")


def write_sidecar(path: str | os.PathLike, seed: int | None = None) -> Path:
    """Write :func:`full_record` beside ``path`` (atomically) and return the sidecar's path."""
    from bnstudy.utils import atomic_path

    record = full_record(seed)
    record["file"] = Path(path).name
    dest = sidecar_path(path)
    with atomic_path(dest) as tmp:
        tmp.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return dest


def npz_provenance() -> str:
    """The running job's record and package versions as JSON, for a ``provenance`` npz member."""
    return json.dumps({**provenance(), "packages": package_versions()}, sort_keys=True)
