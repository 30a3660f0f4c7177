"""Fault injection: corrupt cached files under a small part of the smoke DAG.

One prepared dataset (bnc_letter, read by naive Bayes) and one forward sample of alarm (read by
global PC) are built in a copy of the workflow; then raw files are cut after the fetch and prepared
files are changed behind Snakemake's back with their old modification time (issue 10). Every
corruption must stop the run with a non-zero exit and an error naming the file, both hashes and
the command that rebuilds it; nothing may be built from the corrupt file; and the rebuild command
(or restoring the good file) must bring the run back to the original results.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bnstudy.data.integrity import (
    CONTENT_HASH_KEY,
    arrays_sha256,
    load_verified_npz,
    npz_content_sha256,
)
from bnstudy.data.registry import raw_file

pytestmark = pytest.mark.workflow

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
CONFIG = ["--configfile", "config/smoke.yaml"]
LETTER_RAW = "resources/raw/bnc/letter.npz"
ALARM_RAW = "resources/raw/bif/alarm.bif.gz"
LETTER = "resources/datasets/bnc_letter.npz"
SAMPLES = "results/samples/alarm/n=500/rep=0.npz"
NB = "results/tan/bnc_letter/nb_ml/fold=0/test.csv"
PC = "results/lsbn/global/alarm/pc/n=500/rep=0/metrics.csv"
TARGETS = [NB, PC]


def _snakemake(workdir: Path, mirror: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "BNSTUDY_DATA_MIRROR": str(mirror), "CI": "true"}
    return subprocess.run(
        [SNAKEMAKE, *args, "--cores", "2", *CONFIG],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _ok(run: subprocess.CompletedProcess) -> None:
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]


def _keep_mtime(path: Path, write) -> None:
    """Rewrite ``path`` with ``write(path)`` and give it back its modification time."""
    stat = path.stat()
    write(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _cut(path: Path) -> None:
    data = path.read_bytes()
    _keep_mtime(path, lambda p: p.write_bytes(data[: len(data) // 2]))


def _rewrite_npz(path: Path, change) -> None:
    """Change one array of a verified npz, keeping every key (the recorded hash too)."""
    with np.load(path) as npz:
        arrays = {key: npz[key] for key in npz.files}
    change(arrays)
    _keep_mtime(path, lambda p: np.savez_compressed(p, **arrays))


def _content(path: Path) -> str:
    return arrays_sha256(load_verified_npz(path))


@pytest.fixture(scope="module")
def workdir(repo_root, mirror, tmp_path_factory):
    """The two targets built from scratch in a copy of the workflow."""
    work = tmp_path_factory.mktemp("corruption")
    for item in ("Snakefile", "workflow", "config", "envs"):
        src = repo_root / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, work / item)
    _ok(_snakemake(work, mirror, *TARGETS))
    return work


def test_raw_files_cut_after_the_fetch_stop_the_run(workdir, mirror):
    letter, alarm = workdir / LETTER_RAW, workdir / ALARM_RAW
    good_letter, letter_stat = letter.read_bytes(), letter.stat()
    prepared_before = _content(workdir / LETTER)
    _cut(letter)
    _cut(alarm)
    # any rerun that reads them (here: forced) fails; --keep-going runs whatever does not
    run = _snakemake(
        workdir, mirror, *TARGETS, "--forcerun", "prepare_dataset", "sample_network", "-k"
    )
    out = run.stdout + run.stderr
    assert run.returncode != 0
    for path, relpath in ((LETTER_RAW, "bnc/letter.npz"), (ALARM_RAW, "bif/alarm.bif.gz")):
        assert f"{path}: raw file {relpath!r} does not match the registry" in out
        assert raw_file(relpath).sha256_content in out
        assert f"snakemake --cores 1 --force {path}" in out
    # nothing was derived from them: the forced outputs are gone, not rebuilt from bad bytes
    assert not (workdir / LETTER).exists()
    assert not (workdir / SAMPLES).exists()

    # restoring the good raw file with its old mtime rebuilds the dataset from it
    letter.write_bytes(good_letter)
    os.utime(letter, ns=(letter_stat.st_atime_ns, letter_stat.st_mtime_ns))
    # and the rebuild command in the message re-fetches the network file; the missing
    # intermediate files and the results are asked for again
    _ok(_snakemake(workdir, mirror, "--force", ALARM_RAW, LETTER, SAMPLES, *TARGETS))
    assert _content(workdir / LETTER) == prepared_before
    load_verified_npz(workdir / SAMPLES)
    dry = _snakemake(workdir, mirror, *TARGETS, "-n")
    _ok(dry)
    assert "Nothing to be done" in dry.stdout + dry.stderr


def test_changed_prepared_files_stop_the_run(workdir, mirror):
    letter, samples = workdir / LETTER, workdir / SAMPLES
    letter_before, nb_before = _content(letter), (workdir / NB).read_text()
    recorded = str(np.load(letter)[CONTENT_HASH_KEY])

    def shuffle_labels(arrays):
        arrays["y_train_0"] = np.random.default_rng(0).permutation(arrays["y_train_0"])

    def flip_a_column(arrays):
        arrays["samples"][:, 0] = arrays["samples"].max() - arrays["samples"][:, 0]

    _rewrite_npz(letter, shuffle_labels)
    _rewrite_npz(samples, flip_a_column)
    # Snakemake sees nothing (old mtimes): a job that reads them again must refuse them
    run = _snakemake(workdir, mirror, *TARGETS, "--forcerun", "train_tan", "run_lsbn_global", "-k")
    out = run.stdout + run.stderr
    assert run.returncode != 0
    assert f"{LETTER}: content changed after it was written: expected sha256 {recorded}" in out
    assert npz_content_sha256(letter.read_bytes()) in out
    assert f"{SAMPLES}: content changed after it was written" in out
    for path in (LETTER, SAMPLES):
        assert f"snakemake --cores 1 --force {path}" in out
    # no result was computed from them
    assert not (workdir / NB).exists()
    assert not (workdir / PC).exists()

    # the commands in the messages rebuild them, and the results come back
    _ok(_snakemake(workdir, mirror, "--force", LETTER, SAMPLES, *TARGETS))
    assert _content(letter) == letter_before
    load_verified_npz(samples)
    rows = (workdir / NB).read_text().splitlines()
    assert rows[0] == nb_before.splitlines()[0]
    assert len(rows) == len(nb_before.splitlines())
