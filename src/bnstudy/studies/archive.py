"""The archive of a run: its reports copied beside a manifest that says how they were made.

An archive has one part per paper and one for the study as a whole, each written by its own
target, so that a paper whose branch has finished can be archived while the others still run:

- ``snakemake archive_<paper> --configfile config/<name>.yaml`` (``archive_tan``,
  ``archive_em``, ``archive_mrf``, ``archive_lsbn``) writes ``archive/<name>/<paper>/`` once the
  paper's target has been built;
- ``snakemake archive --configfile config/<name>.yaml`` writes every paper's part and the
  study's (``archive/<name>/study/``).

Nothing in the archive is edited by hand: rerunning a target rewrites its part from the run's
files, and only the date and the machine differ between two archives of the same run (every list
is sorted). Layout of ``archive/<name>/``::

    <paper>/manifest.json, <paper>/MANIFEST.md   how the paper's part was made, its rules' time
    <paper>/tables/*.{csv,md}, <paper>/figures/*.png   (reports/<paper>/; claims: tables/claims.*)
    <paper>/tables/<name>.csv.gz                  a CSV table over the per-file cap, gzip-compressed
    study/manifest.json, study/MANIFEST.md        the whole run: every rule's time and code, the parts
    study/scorecard.{csv,md}, study/{data,networks,provenance}/tables/*   (the rest of reports/)
    study/report.html                             (only when at most ``html_cap`` bytes)
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import pandas as pd

__all__ = [
    "ARCHIVED_SUFFIXES",
    "archive_layout",
    "benchmark_times",
    "build_manifest",
    "changed_since",
    "config_digest",
    "file_sha256",
    "git_state",
    "gzip_bytes",
    "machine_info",
    "render_markdown",
    "write_archive",
]

#: File types copied from ``reports/`` (PDFs, HTML other than report.html and the rest are not).
ARCHIVED_SUFFIXES = (".csv", ".md", ".png")
#: Largest single file copied (bytes); a larger table or figure is an error.
FILE_CAP = 2_000_000
#: Largest archive (bytes, all copied files together).
TOTAL_CAP = 10_000_000
#: report.html is copied only when at most this large, else listed under ``skipped``.
HTML_CAP = 2_000_000


def file_sha256(path: str | os.PathLike) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def config_digest(path: str | os.PathLike) -> dict[str, str]:
    """The sha256 of a config file's bytes and of its values (``sha256``, ``values_sha256``).

    The values' hash is that of the parsed YAML with every mapping's keys sorted, so an edit to
    the file's comments or key order changes the first and not the second: only the second
    decides whether the config that an archive's run used has changed.

    Raises
    ------
    ValueError
        If the file is not valid YAML (naming the file).
    """
    import yaml  # PyYAML, a dependency of Snakemake

    text = Path(path).read_bytes()
    try:
        values = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ValueError(f"{path}: not a readable YAML config ({err})") from err
    try:
        canonical = json.dumps(values, sort_keys=True, separators=(",", ":"), default=str)
    except TypeError as err:  # a mapping with keys of mixed types cannot be sorted
        raise ValueError(f"{path}: a mapping's keys cannot be ordered ({err})") from err
    return {
        "sha256": hashlib.sha256(text).hexdigest(),
        "values_sha256": hashlib.sha256(canonical.encode()).hexdigest(),
    }


def gzip_bytes(path: str | os.PathLike) -> bytes:
    """A file's bytes gzip-compressed, the same bytes on every run (no name, mtime 0).

    Compressed once per version of the file: the size check, the manifest and the copy of an
    archive all ask for the same table's bytes.
    """
    stat = os.stat(path)
    return _gzip_bytes(os.fspath(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _gzip_bytes(path: str, mtime_ns: int, size: int) -> bytes:
    buffer = io.BytesIO()
    with (
        open(path, "rb") as src,
        gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as gz,
    ):
        shutil.copyfileobj(src, gz)
    return buffer.getvalue()


def _compressed(rel: str, src: Path) -> bool:
    """Whether an archive entry is a gzip of its source (``tables/runs.csv.gz`` <- runs.csv)."""
    return rel.endswith(".csv.gz") and src.suffix == ".csv"


def archive_layout(
    reports: str | os.PathLike,
    *,
    exclude: Sequence[str] = (),
    file_cap: int = FILE_CAP,
    total_cap: int = TOTAL_CAP,
    html_cap: int = HTML_CAP,
) -> tuple[dict[str, Path], dict[str, str]]:
    """Which files of a reports folder go where in an archive part.

    Parameters
    ----------
    reports : path
        The folder the part copies: ``reports/<paper>`` for a paper's part, ``reports`` for the
        study's.
    exclude : sequence of str
        Top-level entries of ``reports`` left out (the study's part leaves out the papers'
        folders, which have parts of their own).
    file_cap, total_cap, html_cap : int
        Size limits in bytes: one file, all files, and ``report.html`` (skipped when larger).

    Returns
    -------
    files : dict
        Archive path (posix, relative to the part) -> source file, sorted by archive path. A CSV
        table over ``file_cap`` whose gzip fits under it is archived as ``<path>.gz`` (pandas
        reads it as is); the per-run tables of a paper-scale run can be that large.
    skipped : dict
        Report path -> why it was left out (``report.html`` over its cap).

    Raises
    ------
    ValueError
        When ``reports`` is not a folder, holds no table, or a file (a CSV table: its gzip) or the
        whole exceeds its cap (the message names the file and the sizes).
    """
    root = Path(reports)
    if not root.is_dir():
        raise ValueError(f"archive: reports folder {root} does not exist; run the workflow first")
    files: dict[str, Path] = {}
    skipped: dict[str, str] = {}
    for src in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = src.relative_to(root).as_posix()
        if rel.split("/")[0] in exclude:
            continue
        if rel == "report.html":
            size = src.stat().st_size
            if size > html_cap:
                skipped[rel] = f"{size} bytes > {html_cap} (html cap)"
                continue
            files[rel] = src
        elif src.suffix in ARCHIVED_SUFFIXES:
            files[rel] = src
    if not any(k.endswith(".csv") for k in files):
        raise ValueError(f"archive: no CSV table under {root}; run the workflow first")
    total = 0
    for rel, src in list(files.items()):
        size = src.stat().st_size
        if size > file_cap and src.suffix == ".csv":
            packed = len(gzip_bytes(src))
            if packed > file_cap:
                raise ValueError(
                    f"archive: {src} is {size} bytes ({packed} gzip-compressed), over the cap "
                    f"of {file_cap} bytes per file"
                )
            del files[rel]
            files[f"{rel}.gz"] = src
            size = packed
        elif size > file_cap:
            raise ValueError(
                f"archive: {src} is {size} bytes, over the cap of {file_cap} bytes per file"
            )
        total += size
    if total > total_cap:
        raise ValueError(
            f"archive: {len(files)} files of {root} total {total} bytes, over the cap of "
            f"{total_cap} bytes"
        )
    return dict(sorted(files.items())), skipped


def benchmark_times(
    bench_dir: str | os.PathLike, rules: Collection[str] | None = None
) -> pd.DataFrame:
    """Wall and CPU seconds per rule, summed over a run's ``benchmark:`` files.

    ``rules``: only these rules' files (a paper's part counts its own rules); all when None.

    The rule of a file is the first path component under ``bench_dir`` (the stem for files at
    its top level: ``logs/benchmarks/make_table_tan.tsv``). A file's time is the mean over its
    rows (Snakemake writes one row per repeat); CPU time is the ``cpu_time`` column, or the wall
    time ``s`` where it is missing (the ``cpu_measured`` column counts the files that had it).

    Returns
    -------
    DataFrame
        Columns ``rule, jobs, wall_s, cpu_s, cpu_measured``, sorted by rule; empty when the
        folder does not exist.

    Raises
    ------
    ValueError
        When a benchmark file has no ``s`` column.
    """
    root = Path(bench_dir)
    rows = []
    for path in sorted(root.rglob("*.tsv")) if root.is_dir() else []:
        rel = path.relative_to(root)
        rule = rel.parts[0] if len(rel.parts) > 1 else path.stem
        if rules is not None and rule not in rules:
            continue
        table = pd.read_csv(path, sep="\t")
        if "s" not in table.columns:
            raise ValueError(f"archive: benchmark file {path} has no 's' column")
        wall = float(table["s"].mean())
        cpu = pd.to_numeric(table.get("cpu_time"), errors="coerce") if "cpu_time" in table else None
        has_cpu = cpu is not None and cpu.notna().all()
        rows.append(
            {
                "rule": rule,
                "jobs": 1,
                "wall_s": wall,
                "cpu_s": float(cpu.mean()) if has_cpu else wall,
                "cpu_measured": int(has_cpu),
            }
        )
    columns = ["rule", "jobs", "wall_s", "cpu_s", "cpu_measured"]
    if not rows:
        return pd.DataFrame(columns=columns)
    frame = pd.DataFrame(rows).groupby("rule", sort=True, as_index=False).sum()
    return frame[columns].round({"wall_s": 2, "cpu_s": 2})


def machine_info(cpuinfo: str, meminfo: str, cores: int) -> dict:
    """The machine from ``/proc/cpuinfo`` and ``/proc/meminfo`` texts and the usable cores.

    Returns
    -------
    dict
        ``cores`` (usable by this process), ``logical_cpus`` (processors listed), ``cpu_model``
        (the first ``model name``; "unknown" when absent) and ``memory_gib``.
    """
    models = [
        line.split(":", 1)[1].strip()
        for line in cpuinfo.splitlines()
        if line.lower().startswith("model name")
    ]
    processors = sum(1 for line in cpuinfo.splitlines() if line.startswith("processor"))
    mem_kib = next(
        (int(line.split()[1]) for line in meminfo.splitlines() if line.startswith("MemTotal:")),
        None,
    )
    return {
        "cores": int(cores),
        "logical_cpus": processors,
        "cpu_model": models[0] if models else "unknown",
        "memory_gib": round(mem_kib / 2**20, 1) if mem_kib is not None else None,
    }


def git_state(repo: str | os.PathLike) -> dict:
    """The commit checked out in ``repo`` and whether tracked files differ from it.

    ``archive/`` is left out of the dirty check (the archive being written is not a change of
    the code that made it). Outside a git checkout both fields are None.
    """

    def git(*args):
        return subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        status = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!archive")
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": bool(status)}


def _file_entry(rel: str, src: Path) -> dict:
    """A manifest's record of one archived file: its bytes and sha256 as stored, and for a
    gzip-compressed table those of the CSV it holds (what a rerun's report is compared with)."""
    if not _compressed(rel, src):
        return {"path": rel, "bytes": src.stat().st_size, "sha256": file_sha256(src)}
    packed = gzip_bytes(src)
    return {
        "path": rel,
        "bytes": len(packed),
        "sha256": hashlib.sha256(packed).hexdigest(),
        "csv_bytes": src.stat().st_size,
        "csv_sha256": file_sha256(src),
    }


def build_manifest(
    *,
    name: str,
    part: str,
    config_file: str,
    config_sha256: str | Mapping[str, str],
    git: Mapping,
    machine: Mapping,
    times: pd.DataFrame,
    files: Mapping[str, Path],
    skipped: Mapping[str, str],
    date: str,
    parts: Mapping[str, str | os.PathLike] | None = None,
    code: Mapping[str, str] | None = None,
) -> dict:
    """The manifest of an archive part: how its files were made, in a fixed order.

    ``config_sha256``: the config file's sha256, or its :func:`config_digest` (the sha256 of
    its values too). ``part`` is a paper or ``"study"``; ``parts`` (the study's part) maps each
    paper to its part's ``manifest.json``, whose sha256 the study's manifest records. ``code``
    maps each rule of the part to its code version (``params.code``: the hash of its script and
    every library module the script reaches, :func:`bnstudy.provenance.code_version`); the
    archive is written after every job of its DAG is up to date, so each job ran that code.
    :func:`changed_since` compares it with a later checkout's; None leaves it out. Only
    ``date`` and ``machine`` depend on when and where the archive is written; everything else
    follows from the run's files, the config, the commit and the code.
    """
    per_rule = [
        {
            "rule": r.rule,
            "jobs": int(r.jobs),
            "wall_s": float(r.wall_s),
            "cpu_s": float(r.cpu_s),
            "cpu_measured": int(r.cpu_measured),
        }
        for r in times.sort_values("rule").itertuples()
    ]
    return {
        "name": name,
        "part": part,
        "date": date,
        "git": {"commit": git.get("commit"), "dirty": git.get("dirty")},
        "config": {
            "file": config_file,
            **(
                {"sha256": config_sha256}
                if isinstance(config_sha256, str)
                else {k: config_sha256[k] for k in sorted(config_sha256)}
            ),
        },
        **({"code": {rule: str(code[rule]) for rule in sorted(code)}} if code is not None else {}),
        "machine": dict(machine),
        "time": {
            "jobs": sum(r["jobs"] for r in per_rule),
            "wall_s": round(sum(r["wall_s"] for r in per_rule), 2),
            "cpu_s": round(sum(r["cpu_s"] for r in per_rule), 2),
            "cpu_h": round(sum(r["cpu_s"] for r in per_rule) / 3600, 3),
            "per_rule": per_rule,
        },
        "files": [_file_entry(rel, src) for rel, src in sorted(files.items())],
        "skipped": [{"path": k, "reason": v} for k, v in sorted(skipped.items())],
        "parts": [
            {"part": k, "manifest_sha256": file_sha256(v)} for k, v in sorted((parts or {}).items())
        ],
    }


def render_markdown(manifest: Mapping) -> str:
    """MANIFEST.md: the manifest for people (the JSON beside it is the same content)."""
    g, c, m, t = manifest["git"], manifest["config"], manifest["machine"], manifest["time"]
    dirty = {True: "yes (uncommitted changes)", False: "no", None: "unknown"}[g["dirty"]]
    part = manifest["part"]
    target = "archive" if part == "study" else f"archive_{part}"
    lines = [
        f"# Archive `{manifest['name']}`: {part}",
        "",
        f"Written by `snakemake {target}`; nothing here is edited by hand. Rerunning the target",
        "rewrites it: only the date and the machine can differ.",
        "",
        f"- date: {manifest['date']}",
        f"- git commit: `{g['commit']}`, dirty: {dirty}",
        f"- config: `{c['file']}` (sha256 `{c['sha256']}`)",
        f"- machine: {m.get('cpu_model')}, {m.get('cores')} cores usable "
        f"({m.get('logical_cpus')} logical CPUs), {m.get('memory_gib')} GiB memory",
        f"- time: {t['jobs']} benchmarked jobs, {t['wall_s']:.0f} s wall summed over jobs, "
        f"{t['cpu_s']:.0f} s CPU ({t['cpu_h']:.3f} CPU-hours)",
        "",
        "## Time per rule (sums over the run's benchmark files)",
        "",
        (
            "Every rule of the run."
            if part == "study"
            else f"The rules of `workflow/rules/{part}.smk`; the shared inputs (data, network "
            "samples) count in the study's part."
        ),
        "Every file under `logs/benchmarks/` counts: a checkout that also ran another config",
        "adds the jobs of that config that this one does not have.",
        "",
        "| rule | jobs | wall s | CPU s |",
        "|:--|--:|--:|--:|",
    ]
    for r in t["per_rule"]:
        cpu = f"{r['cpu_s']:.2f}" + ("" if r["cpu_measured"] == r["jobs"] else " (wall)")
        lines.append(f"| {r['rule']} | {r['jobs']} | {r['wall_s']:.2f} | {cpu} |")
    lines += ["", "## Files", "", "| file | bytes | sha256 |", "|:--|--:|:--|"]
    lines += [f"| {f['path']} | {f['bytes']} | `{f['sha256'][:16]}` |" for f in manifest["files"]]
    packed = [f for f in manifest["files"] if "csv_sha256" in f]
    if packed:
        lines += ["", "## Compressed", "", "Tables over the per-file cap, stored gzip-compressed:"]
        lines += ["", "| file | CSV bytes | CSV sha256 |", "|:--|--:|:--|"]
        lines += [f"| {f['path']} | {f['csv_bytes']} | `{f['csv_sha256'][:16]}` |" for f in packed]
    if manifest.get("code"):
        lines += [
            "",
            "## Code",
            "",
            "The code version of each rule (its script and the library modules the script reaches,",
            "hashed): a later checkout whose version of a rule differs runs other code.",
            "",
            "| rule | code |",
            "|:--|:--|",
        ]
        lines += [f"| {rule} | `{code}` |" for rule, code in manifest["code"].items()]
    if manifest["parts"]:
        lines += ["", "## Parts", "", "| part | manifest sha256 |", "|:--|:--|"]
        lines += [f"| {p['part']} | `{p['manifest_sha256'][:16]}` |" for p in manifest["parts"]]
    if manifest["skipped"]:
        lines += ["", "## Left out", ""]
        lines += [f"- {s['path']}: {s['reason']}" for s in manifest["skipped"]]
    return "\n".join(lines) + "\n"


def changed_since(
    manifest: Mapping, code: Mapping[str, str], config: Mapping[str, str] | None = None
) -> list[str]:
    """What differs between an archive part and a checkout: empty when nothing compared does.

    Parameters
    ----------
    manifest : mapping
        The part's ``manifest.json`` (:func:`build_manifest`).
    code : mapping of rule to str
        The code version of each rule in the checkout (``params.code``).
    config : mapping, optional
        The :func:`config_digest` of the checkout's config file of the archived run (its
        ``config.file``): compared by its values where the part records their hash, else by
        the file's bytes; not compared when None.

    Returns
    -------
    list of str
        One phrase per difference: the archived rules whose code changed or that are gone from
        the checkout, and the config file if it changed. Rules of the checkout that the part
        does not have are not compared: a rule outside the archived run's DAG is not part of it
        (``tests/test_committed_archive.py`` checks the DAG). A part that records no code
        versions (an archive written before they were recorded) has its config compared only;
        :func:`bnstudy.studies.scorecard.archive_states` says that its code was not checked.

    Examples
    --------
    >>> part = {"code": {"fit_mrf": "aa", "old": "bb"},
    ...         "config": {"file": "config/paper_cpu.yaml", "sha256": "cc", "values_sha256": "vv"}}
    >>> changed_since(part, {"fit_mrf": "aa", "old": "bb", "other": "dd"},
    ...               {"sha256": "c2", "values_sha256": "vv"})  # only comments changed
    []
    >>> changed_since(part, {"fit_mrf": "a2"}, {"sha256": "c3", "values_sha256": "v3"})
    ['the code of fit_mrf', 'rules removed since: old', 'config/paper_cpu.yaml']
    """
    changes = []
    archived = manifest.get("code") or {}
    changed = sorted(r for r in archived if r in code and archived[r] != code[r])
    gone = sorted(set(archived) - set(code))
    if changed:
        changes.append("the code of " + ", ".join(changed))
    if gone:
        changes.append("rules removed since: " + ", ".join(gone))
    archived_config = manifest.get("config", {})
    if config is not None:
        name = str(archived_config.get("file", "the config file"))
        if "values_sha256" in archived_config:
            if archived_config["values_sha256"] != config.get("values_sha256"):
                changes.append(name)
        elif archived_config.get("sha256") != config.get("sha256"):
            changes.append(f"{name} (its text: the part records no hash of its values)")
    return changes


def write_archive(dest: str | os.PathLike, files: Mapping[str, Path], manifest: Mapping) -> None:
    """Write the archive folder whole: copy into a sibling temporary folder, then swap it in.

    A failure leaves the previous archive (if any) untouched; files of an earlier archive that
    are no longer produced do not survive.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        for rel, src in files.items():
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            # copy2 keeps the report's modification time: a scorecard that reads archived
            # claims sees them no newer than the run that made them, so it is not rerun
            if _compressed(rel, src):
                target.write_bytes(gzip_bytes(src))
                shutil.copystat(src, target)
            else:
                shutil.copy2(src, target)
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        (tmp / "MANIFEST.md").write_text(render_markdown(manifest))
        os.chmod(tmp, 0o755)
        old = None
        if dest.exists():
            old = dest.with_name(f".{dest.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            dest.rename(old)
        tmp.rename(dest)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
