"""Benchmark: what verifying the cache on every read costs a whole study run.

Every job that reads a raw file or a prepared file first checks its content hash
(:mod:`bnstudy.data.integrity`). This script prices that for one config (default: the laptop
config, ``config/config.yaml``):

1. The study's job graph: ``snakemake --dag --forceall`` in a throw-away copy of the workflow. Every
   edge out of a ``fetch_raw_file``, ``prepare_dataset`` or ``sample_network`` job is one read of
   that job's file by the job it points to (``prepare_dataset`` reading its raw files,
   ``train_tan`` its prepared dataset, ``run_lsbn`` its samples, the data summary re-verifying the
   raw files, ...).
2. The files themselves: raw files from the data mirror (same bytes as ``resources/raw``); the
   prepared datasets built with the config's settings and the forward samples drawn at the config's
   sizes, both written as the workflow writes them (in ``--cache``, reused on later runs).
3. For every distinct file, the median over ``--repeats`` of the verification alone and, beside
   it, of the plain read it guards. Raw files: the readers hash the payload they read
   (:func:`~bnstudy.data.integrity.read_raw_payload`), so the cost is the sha256 of the payload
   (the R data file, read by ``rdata``, is verified by a separate read: there the whole
   :func:`~bnstudy.data.integrity.verify_raw_file`); the plain read is reading and decompressing
   it. Prepared files and samples: the sha256 of the stored members
   (:func:`~bnstudy.data.integrity.npz_content_sha256`), which
   :func:`~bnstudy.data.integrity.load_verified_npz` adds to reading and loading the arrays.
4. The total, reads x median per file, against the study's CPU time: the sum of the ``cpu_time``
   column of a run's Snakemake benchmark files (``--benchmarks DIR``), else ``--cpu-minutes``
   (default 36, the laptop run's CPU time reported in issue 10).

Usage::

    .venv/bin/python benchmarks/bench_verification.py [--config config/config.yaml]
        [--repeats 5] [--cache DIR] [--benchmarks DIR | --cpu-minutes 36] [--data DIR]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import yaml

from bnstudy.data.build import prepare_dataset
from bnstudy.data.integrity import npz_content_sha256, save_verified_npz, verify_raw_file
from bnstudy.data.registry import DATASETS, network_file
from bnstudy.networks import forward_sample, load_network

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("BNSTUDY_DATA_MIRROR", REPO.parent / "shared" / "data"))
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))

_NODE = re.compile(r'^\s*(\d+)\[label = "([^"]*)"', re.M)
_EDGE = re.compile(r"^\s*(\d+) -> (\d+)", re.M)
#: Raw files whose reader does not take the verified bytes (rdata reads the file itself).
SEPARATELY_VERIFIED = frozenset({"senate/s109.rda"})


def study_reads(config: Path, mirror: Path) -> Counter:
    """Reads per file of the study's job graph: ``(kind, key) -> number of reading jobs``.

    ``kind`` is ``"raw"`` (key: registry path), ``"prepared"`` (key: dataset) or ``"samples"``
    (key: ``(network, n, rep)``).
    """
    with tempfile.TemporaryDirectory(prefix="bench-verification-dag-") as work:
        for item in ("Snakefile", "workflow", "config", "envs"):
            src = REPO / item
            (shutil.copytree if src.is_dir() else shutil.copy)(src, Path(work) / item)
        env = {**os.environ, "BNSTUDY_DATA_MIRROR": str(mirror), "CI": "true"}
        args = ["--configfile", str(config.resolve()), "--dag", "--forceall", "--cores", "1"]
        out = subprocess.run(
            [SNAKEMAKE, *args], cwd=work, env=env, capture_output=True, text=True, check=True
        ).stdout
    labels = {}
    for node, label in _NODE.findall(out):
        rule, *pairs = label.split("\\n")
        labels[node] = (rule, dict(pair.split(": ", 1) for pair in pairs))
    reads: Counter = Counter()
    for src, _dst in set(_EDGE.findall(out)):
        rule, wildcards = labels[src]
        if rule == "fetch_raw_file":
            reads["raw", wildcards["rawpath"]] += 1
        elif rule == "prepare_dataset":
            reads["prepared", wildcards["dataset"]] += 1
        elif rule == "sample_network":
            key = (wildcards["network"], int(wildcards["n"]), int(wildcards["rep"]))
            reads["samples", key] += 1
    return reads


def _network(name: str, mirror: Path, cache: dict):
    if name not in cache:
        if name == "mini_adapt":
            from bnstudy.studies.em.mini_adapt import build_mini_adapt

            cache[name] = build_mini_adapt(_network("adapt", mirror, cache))
        else:
            cache[name] = load_network(mirror / network_file(name).path)
    return cache[name]


def materialize(reads: Counter, config: dict, mirror: Path, cache: Path) -> dict:
    """The file behind every key of ``reads``, written as the workflow writes it if missing."""
    data = config["data"]
    paths: dict = {}
    networks: dict = {}
    for kind, key in reads:
        if kind == "raw":
            paths[kind, key] = mirror / key
        elif kind == "prepared":
            dest = cache / "datasets" / f"{key}.npz"
            if not dest.exists():
                print(f"  preparing {key} ...", flush=True)
                files = [mirror / f for f in DATASETS[key].files]
                prepare_dataset(key, files, dest, **data["senate"], **data["discretization"])
            paths[kind, key] = dest
        else:
            network, n, rep = key
            dest = cache / "samples" / network / f"n={n}" / f"rep={rep}.npz"
            if not dest.exists():
                bn = _network(network, mirror, networks)
                samples = forward_sample(bn, n, rng=np.random.default_rng(rep))
                save_verified_npz(
                    dest,
                    samples=samples,
                    nodes=np.array(bn.nodes),
                    cardinality=np.array([bn.cardinality[v] for v in bn.nodes]),
                    provenance=np.array("x" * 300),  # about the size of the recorded provenance
                )
            paths[kind, key] = dest
    return paths


def _median(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _plain_raw(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def _load_arrays(path: Path) -> dict:
    with np.load(io.BytesIO(path.read_bytes()), allow_pickle=False) as npz:
        return {key: npz[key] for key in npz.files}


def time_files(paths: dict, repeats: int) -> dict:
    """``key -> (verify seconds, plain read seconds)``, medians over ``repeats``."""
    out = {}
    for (kind, key), path in paths.items():
        if kind == "raw" and key in SEPARATELY_VERIFIED:
            verify = _median(lambda p=path: verify_raw_file(p), repeats)
            plain = _median(lambda p=path: _plain_raw(p), repeats)
        elif kind == "raw":
            payload = _plain_raw(path)
            verify = _median(lambda b=payload: hashlib.sha256(b).hexdigest(), repeats)
            plain = _median(lambda p=path: _plain_raw(p), repeats)
        else:
            data = path.read_bytes()
            verify = _median(lambda b=data: npz_content_sha256(b), repeats)
            plain = _median(lambda p=path: _load_arrays(p), repeats)
        out[kind, key] = (verify, plain)
    return out


def study_cpu_seconds(benchmarks: Path | None, cpu_minutes: float) -> tuple[float, str]:
    if benchmarks is None:
        return cpu_minutes * 60.0, f"--cpu-minutes {cpu_minutes:g}"
    total, files = 0.0, 0
    for tsv in benchmarks.rglob("*.tsv"):
        with open(tsv) as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                total += float(row.get("cpu_time") or 0.0)
        files += 1
    return total, f"cpu_time of {files} benchmark files under {benchmarks}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", type=Path, default=REPO / "config" / "config.yaml")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "bnstudy-bench-verification",
        help="where the prepared datasets and samples are built (reused when present)",
    )
    parser.add_argument("--benchmarks", type=Path, default=None)
    parser.add_argument("--cpu-minutes", type=float, default=36.0)
    args = parser.parse_args()
    config = yaml.safe_load(args.config.read_text())

    t0 = time.perf_counter()
    reads = study_reads(args.config, args.data)
    print(f"job graph of {args.config}: {sum(reads.values())} verified reads of {len(reads)} files")
    paths = materialize(reads, config, args.data, args.cache)
    timings = time_files(paths, args.repeats)

    rows = []
    for kind in ("raw", "prepared", "samples"):
        keys = sorted(k for k in reads if k[0] == kind)
        for k in keys:
            verify, plain = timings[k]
            rows.append((kind, k[1], reads[k], verify, plain, paths[k].stat().st_size))
    print(
        f"\n{'kind':9} {'file':42} {'reads':>5} {'verify ms':>10} {'read ms':>9} "
        f"{'verify/read':>11} {'total s':>8}"
    )
    for kind, key, n, verify, plain, _ in rows:
        name = "/".join(map(str, key)) if isinstance(key, tuple) else key
        print(
            f"{kind:9} {name[:42]:42} {n:5d} {verify * 1e3:10.2f} {plain * 1e3:9.2f} "
            f"{verify / plain:11.2f} {n * verify:8.3f}"
        )
    total = sum(n * verify for _, _, n, verify, _, _ in rows)
    by_kind = {
        kind: sum(n * v for k, _, n, v, _, _ in rows if k == kind)
        for kind in ("raw", "prepared", "samples")
    }
    cpu, source = study_cpu_seconds(args.benchmarks, args.cpu_minutes)
    print(
        f"\nverification per study run: {total:.3f} s (raw {by_kind['raw']:.3f} s, prepared "
        f"{by_kind['prepared']:.3f} s, samples {by_kind['samples']:.3f} s), medians of "
        f"{args.repeats} runs"
    )
    print(f"study CPU time: {cpu:.0f} s ({source})")
    print(f"verification / study CPU time: {100 * total / cpu:.3f} %")
    print(f"(benchmark wall time {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
