"""The registry agrees with the mirror's MANIFEST.tsv and rejects unknown names."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from bnstudy.data import registry
from bnstudy.data.registry import (
    DATASETS,
    NETWORKS,
    RAW_FILES,
    dataset,
    network_file,
    raw_file,
)


def _manifest(mirror: Path) -> dict[str, dict[str, str]]:
    with open(mirror / "MANIFEST.tsv", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return {row["path"]: row for row in rows if not row["path"].startswith("adapt/cpt_counts/")}


def test_raw_files_match_manifest(mirror):
    manifest = _manifest(mirror)
    assert set(RAW_FILES) == set(manifest)
    for path, row in manifest.items():
        raw = RAW_FILES[path]
        assert raw.path == path
        assert raw.sha256_content == row["sha256_content"], path
        url = row["canonical_url"]
        if url.startswith(("http://", "https://")) and " " not in url:
            assert raw.urls == (url,), path
        else:
            assert raw.urls == (), path
            assert raw.note == url, path
        assert raw.compressed == path.endswith(".gz")


def test_bundled_copies_are_the_bifs():
    bundled = {path for path, raw in RAW_FILES.items() if raw.bundled}
    assert bundled == {f"bif/{name}.bif.gz" for name in NETWORKS[:-1]}
    assert raw_file("bif/alarm.bif.gz").bundled == "pgmpy:utils/example_models/alarm.bif.gz"


def test_datasets_reference_registered_files():
    expected = {
        "satimage",
        "letter",
        "usps",
        "mnist",
        "bnc_satimage",
        "bnc_letter",
        "bnc_usps",
        "bnc_mnist_mi",
        "senate",
        *NETWORKS,
    }
    assert set(DATASETS) == expected
    for name, ds in DATASETS.items():
        assert ds.name == name
        assert ds.files and all(path in RAW_FILES for path in ds.files)
    for name in ("bnc_satimage", "bnc_letter", "bnc_usps"):
        assert dataset(name).files[1].endswith("_mi.npz")
    assert {dataset(name).kind for name in NETWORKS} == {"network"}


def test_network_file():
    assert network_file("alarm").path == "bif/alarm.bif.gz"
    adapt = network_file("adapt")
    assert adapt.path == "adapt/adapt10_v7e.net"
    assert adapt.urls == () and "ADAPT" in adapt.note


@pytest.mark.parametrize(
    ("lookup", "bad", "known"),
    [
        (dataset, "satimage2", "bnc_letter"),
        (network_file, "asia", "win95pts"),
        (raw_file, "uci/nope.data", "uci/satimage/sat.trn"),
    ],
)
def test_unknown_names_list_known_ones(lookup, bad, known):
    with pytest.raises(ValueError, match="unknown") as info:
        lookup(bad)
    assert repr(bad) in str(info.value)
    assert known in str(info.value)


def test_unknown_dataset_message_lists_all():
    with pytest.raises(ValueError) as info:
        dataset("nope")
    message = str(info.value)
    assert message.startswith("unknown dataset 'nope'; known datasets: ")
    assert all(name in message for name in registry.DATASETS)
