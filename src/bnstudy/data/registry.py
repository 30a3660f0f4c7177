"""Registry of every raw data file of the study and of the datasets built from them.

Hashes and URLs are copied from the offline mirror's ``MANIFEST.tsv`` (a test checks that they
agree). ``sha256_content`` is the hash of the decompressed payload for ``.gz`` files, so a file whose
gzip wrapper was rebuilt (MNIST's training images in the mirror) still verifies.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DATASETS",
    "NETWORKS",
    "RAW_FILES",
    "Dataset",
    "RawFile",
    "dataset",
    "network_file",
    "raw_file",
]


@dataclass(frozen=True)
class RawFile:
    """One raw input file, laid out as in the data mirror.

    Parameters
    ----------
    path : str
        Relative path, e.g. ``"uci/satimage/sat.trn"``.
    sha256_content : str
        sha256 of the payload (decompressed for ``.gz`` files).
    urls : tuple of str
        Canonical download URLs; empty where there is no upstream copy to download.
    bundled : str or None
        A copy shipped inside an installed package, as ``"package:relative/path"``.
    note : str
        Where the file comes from when that is not a URL.
    """

    path: str
    sha256_content: str
    urls: tuple[str, ...]
    bundled: str | None = None
    note: str = ""

    @property
    def compressed(self) -> bool:
        """Whether the file is gzipped (its path ends with ``.gz``)."""
        return self.path.endswith(".gz")


@dataclass(frozen=True)
class Dataset:
    """A named dataset and the raw files it is read from.

    Parameters
    ----------
    name : str
        Registry key.
    files : tuple of str
        ``RawFile`` paths, in the order the matching reader takes them.
    kind : str
        ``"classification"``, ``"discretized_classification"``, ``"mutual_information"``,
        ``"votes"`` or ``"network"``.
    description : str
        One line for people.
    folds : int, default 1
        Train/test splits the dataset comes in (the TAN authors' satimage has 5).
    """

    name: str
    files: tuple[str, ...]
    kind: str
    description: str
    folds: int = 1


_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
_ESL = "https://web.stanford.edu/~hastie/ElemStatLearn/datasets"
_MNIST = "http://yann.lecun.com/exdb/mnist"
_BNC = "https://github.com/wroth8/bnc/raw/28cc0e193f96c2147524a93cf82dc9dec328b9d2/datasets"
_BNLEARN = "https://www.bnlearn.com/bnrepository"
_PSCL = "https://github.com/cran/pscl/raw/8220d032b199d0a9ce625c6c48a0f714e07bc432/data"

_ADAPT_NOTE = (
    "https://works.bepress.com/ole_mengshoel/ (ADAPT Bayesian networks, O. J. Mengshoel; "
    "exact item URL not verified offline)"
)


def _bif(name: str, sha: str) -> RawFile:
    return RawFile(
        path=f"bif/{name}.bif.gz",
        sha256_content=sha,
        urls=(f"{_BNLEARN}/{name}/{name}.bif.gz",),
        bundled=f"pgmpy:utils/example_models/{name}.bif.gz",
    )


_RAW: tuple[RawFile, ...] = (
    RawFile(
        "adapt/adapt10_v7e.net",
        "5ed289e27f5fdf342d754050a119dd0689ba9087c3672765b16bc7739e84d47d",
        (),
        note=_ADAPT_NOTE,
    ),
    _bif("alarm", "701e6c561f71b55669070c29614f0724b761289aa2c4a35bcc97b638ee881fa2"),
    _bif("insurance", "39f9e706e9208e720a55a98b6811188b33a7292335a53373a9343a0c7065dab4"),
    _bif("link", "19299d5710d9a59b8812e0c811bbabb1230d3e42801d297c7f90dffb4fc1c59e"),
    _bif("pigs", "1d474376703784f755048daa0fd1ce0be89b5676254e08256c3424e3e4caf805"),
    _bif("win95pts", "14d2195e0c4613e0beb1f06e9199c8cd39a1154171a215c38b47c0fd773d0b36"),
    RawFile(
        "bnc/letter.npz",
        "78acde0551cb111bdda72e4648631d0bab90178c3f18f0eb9423d03d46fad4aa",
        (f"{_BNC}/letter.npz",),
    ),
    RawFile(
        "bnc/letter_mi.npz",
        "9caf71608f3bf072fab64ff78f8ddd46c4ae3429e63f2ecd0d23fc59017b9e6c",
        (f"{_BNC}/letter_mi.npz",),
    ),
    RawFile(
        "bnc/mnist_mi.npz",
        "13774fe1aa49e5ac126123247ae0c25d3953728cb60fcac1e035e21eb2b4a24f",
        (f"{_BNC}/mnist_mi.npz",),
    ),
    RawFile(
        "bnc/satimage.npz",
        "b236d2dd2291a24906da42ada8353692d3cf6ba57d35f7ef2e160bacdeebe8fb",
        (f"{_BNC}/satimage.npz",),
    ),
    RawFile(
        "bnc/satimage_mi.npz",
        "765012d10e8ef2b4c4c0fbebea79eeae8eebcf0b42be1b9b6bfb38059b2b8c4b",
        (f"{_BNC}/satimage_mi.npz",),
    ),
    RawFile(
        "bnc/usps.npz",
        "7b815cd9fe9f0597e5be0aada3ae4d060dc531a0c64f010a14a1e80bd65f0d18",
        (f"{_BNC}/usps.npz",),
    ),
    RawFile(
        "bnc/usps_mi.npz",
        "ad23030b285682025319f88c583ae07e41b94fbb0fe8f156d3b316eab1b0543a",
        (f"{_BNC}/usps_mi.npz",),
    ),
    RawFile(
        "mnist/t10k-images-idx3-ubyte.gz",
        "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
        (f"{_MNIST}/t10k-images-idx3-ubyte.gz",),
    ),
    RawFile(
        "mnist/t10k-labels-idx1-ubyte.gz",
        "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
        (f"{_MNIST}/t10k-labels-idx1-ubyte.gz",),
    ),
    RawFile(
        "mnist/train-images-idx3-ubyte.gz",
        "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
        (f"{_MNIST}/train-images-idx3-ubyte.gz",),
    ),
    RawFile(
        "mnist/train-labels-idx1-ubyte.gz",
        "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
        (f"{_MNIST}/train-labels-idx1-ubyte.gz",),
    ),
    RawFile(
        "senate/s109.rda",
        "7092f472325f2e393b05bf46353673df99f205f2c56a842863604ace31801c75",
        (f"{_PSCL}/s109.rda",),
    ),
    RawFile(
        "uci/letter/letter-recognition.data",
        "2b89f3602cf768d3c8355267d2f13f2417809e101fc2b5ceee10db19a60de6e2",
        (f"{_UCI}/letter-recognition/letter-recognition.data",),
    ),
    RawFile(
        "uci/satimage/sat.trn",
        "e896dc88a960fa2404160fc4c3cb3dc53fcf4afd80ba920bf2d261bd42d12613",
        (f"{_UCI}/statlog/satimage/sat.trn",),
    ),
    RawFile(
        "uci/satimage/sat.tst",
        "4b9167b8a92baafafed7c8809aef86d0683a5e685c19d98d119fa6974f0f2479",
        (f"{_UCI}/statlog/satimage/sat.tst",),
    ),
    RawFile(
        "usps/zip.info.txt",
        "927ca750c4117b61a71def180d5e4f00f1323a4b2c9cd990f576aa8def3505f1",
        (f"{_ESL}/zip.info.txt",),
    ),
    RawFile(
        "usps/zip.test.gz",
        "6bde17b4f1cd68e0630cd2751d6495b5795d9165ab2dc4a0be8b7002b732f4cc",
        (f"{_ESL}/zip.test.gz",),
    ),
    RawFile(
        "usps/zip.train.gz",
        "abc9f5c75b997cabe66b5d01727d5a681c69298e1641a8d37b55433a52129dc0",
        (f"{_ESL}/zip.train.gz",),
    ),
)

RAW_FILES: dict[str, RawFile] = {raw.path: raw for raw in _RAW}
"""Every raw file of the study, keyed by its mirror path."""

NETWORKS: tuple[str, ...] = ("alarm", "insurance", "win95pts", "pigs", "link", "adapt")
"""The benchmark Bayesian networks, in the order the study lists them."""

_NETWORK_FILES = {name: f"bif/{name}.bif.gz" for name in NETWORKS[:-1]}
_NETWORK_FILES["adapt"] = "adapt/adapt10_v7e.net"

_BNC_DESCRIPTION = "MDL-discretized {} released with Roth & Pernkopf (2020), with its MI graphs"

_DATASET_LIST: tuple[Dataset, ...] = (
    Dataset(
        "satimage",
        ("uci/satimage/sat.trn", "uci/satimage/sat.tst"),
        "classification",
        "UCI Statlog Landsat Satellite: 4435 train / 2000 test, 36 features, 6 classes",
    ),
    Dataset(
        "letter",
        ("uci/letter/letter-recognition.data",),
        "classification",
        "UCI Letter Recognition: 20000 rows, 16 features, 26 classes",
    ),
    Dataset(
        "usps",
        ("usps/zip.train.gz", "usps/zip.test.gz"),
        "classification",
        "USPS digits (ESL version): 7291 train / 2007 test, 256 grey values in [-1, 1]",
    ),
    Dataset(
        "mnist",
        (
            "mnist/train-images-idx3-ubyte.gz",
            "mnist/train-labels-idx1-ubyte.gz",
            "mnist/t10k-images-idx3-ubyte.gz",
            "mnist/t10k-labels-idx1-ubyte.gz",
        ),
        "classification",
        "MNIST digits: 60000 train / 10000 test, 28x28 uint8",
    ),
    Dataset(
        "bnc_satimage",
        ("bnc/satimage.npz", "bnc/satimage_mi.npz"),
        "discretized_classification",
        _BNC_DESCRIPTION.format("satimage (5 folds)"),
        folds=5,
    ),
    Dataset(
        "bnc_letter",
        ("bnc/letter.npz", "bnc/letter_mi.npz"),
        "discretized_classification",
        _BNC_DESCRIPTION.format("letter (13342 / 6658)"),
    ),
    Dataset(
        "bnc_usps",
        ("bnc/usps.npz", "bnc/usps_mi.npz"),
        "discretized_classification",
        _BNC_DESCRIPTION.format("usps (7340 / 3660)"),
    ),
    Dataset(
        "bnc_mnist_mi",
        ("bnc/mnist_mi.npz",),
        "mutual_information",
        "conditional MI graph of the authors' 14x14 MNIST (the data itself is not mirrored)",
    ),
    Dataset(
        "senate",
        ("senate/s109.rda",),
        "votes",
        "US Senate, 109th Congress roll calls (pscl::s109)",
    ),
    *(
        Dataset(
            name, (_NETWORK_FILES[name],), "network", f"{name} network from the bnlearn repository"
        )
        for name in NETWORKS[:-1]
    ),
    Dataset(
        "adapt",
        (_NETWORK_FILES["adapt"],),
        "network",
        "NASA ADAPT electrical power system network adapt10_v7e (Hugin .net)",
    ),
)

DATASETS: dict[str, Dataset] = {ds.name: ds for ds in _DATASET_LIST}
"""Every dataset of the study, keyed by name."""


def raw_file(path: str) -> RawFile:
    """Look up a raw file by its mirror path.

    Raises
    ------
    ValueError
        If ``path`` is not registered; the message lists the known paths.
    """
    try:
        return RAW_FILES[path]
    except KeyError:
        known = ", ".join(sorted(RAW_FILES))
        raise ValueError(f"unknown raw file {path!r}; known raw files: {known}") from None


def dataset(name: str) -> Dataset:
    """Look up a dataset by name.

    Raises
    ------
    ValueError
        If ``name`` is not registered; the message lists the known datasets.
    """
    try:
        return DATASETS[name]
    except KeyError:
        known = ", ".join(sorted(DATASETS))
        raise ValueError(f"unknown dataset {name!r}; known datasets: {known}") from None


def network_file(name: str) -> RawFile:
    """The raw file (BIF or Hugin ``.net``) of a benchmark network.

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`NETWORKS`.
    """
    if name not in _NETWORK_FILES:
        raise ValueError(f"unknown network {name!r}; known networks: {', '.join(NETWORKS)}")
    return RAW_FILES[_NETWORK_FILES[name]]
