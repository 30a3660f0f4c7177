# Shared by all the rules below: config validation, wildcard constraints, config accessors, seeds.
# Validation runs first, before any other code reads the config.

import os
import re
from pathlib import Path

from snakemake.utils import validate

from bnstudy.data.registry import DATASETS, NETWORKS, RAW_FILES
from bnstudy.utils import derive_seed

validate(config, schema="../schemas/config.schema.yaml")

# pgmpy's HillClimbSearch depends on Python's hash seed: fix it for every job this workflow starts.
os.environ.setdefault("PYTHONHASHSEED", str(config["seed"]))
# Jobs run side by side on the cores Snakemake hands out; a BLAS that also spawns a thread per
# core oversubscribes them and runs several times slower. Rules that want more threads ask for
# them with `threads:` and set their library's thread count from it.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

CLASSIFICATION_KINDS = ("classification", "discretized_classification")

# Networks the workflow builds from a raw one (Reed & Mengshoel's mini-ADAPT, from ADAPT).
DERIVED_NETWORKS = {"mini_adapt": "resources/networks/mini_adapt.net"}


def _alternatives(names):
    """A regex matching exactly one of ``names``."""
    return "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))


# Every wildcard is pinned to what it may be.
wildcard_constraints:
    rawpath=_alternatives(RAW_FILES),
    dataset=_alternatives(
        name
        for name, ds in DATASETS.items()
        if ds.kind in CLASSIFICATION_KINDS + ("votes",)
    ),
    network=_alternatives([*NETWORKS, *DERIVED_NETWORKS]),
    observables=r"O_C|O_P|O_T",
    sharing=r"none|SB",
    h=r"[1-9][0-9]*",
    n=r"[1-9][0-9]*",
    rep=r"[0-9]+",


def seed_for(*keys):
    """Seed of one job: the config seed combined with the job's wildcard values."""
    return derive_seed(config["seed"], *keys)


def data_mirror():
    """The offline mirror: config ``data.mirror``, else ``$BNSTUDY_DATA_MIRROR``, else None."""
    mirror = config["data"].get("mirror") or os.environ.get("BNSTUDY_DATA_MIRROR")
    return str(Path(mirror).resolve()) if mirror else None


def raw_path(relpath):
    """Where the verified copy of one raw file of the registry lives."""
    return f"resources/raw/{relpath}"


def raw_inputs(name):
    """The verified raw files of a dataset or network, in the registry's order."""
    return [raw_path(path) for path in DATASETS[name].files]


def network_file(name):
    """The file a benchmark network is read from (mini-ADAPT is built by the workflow)."""
    if name in DERIVED_NETWORKS:
        return DERIVED_NETWORKS[name]
    return raw_inputs(name)[0]


def network_input(wildcards):
    return network_file(wildcards.network)


def prepared_dataset(name):
    return f"resources/datasets/{name}.npz"


def network_samples(network, n, rep):
    return f"results/samples/{network}/n={n}/rep={rep}.npz"


def configured_datasets():
    """Every prepared dataset some configured part of the study reads, in a stable order."""
    names = list(config["datasets"])
    for paper in ("tan", "mrf"):
        names += [d for d in config[paper]["datasets"] if d not in names]
    return names


def configured_networks():
    """Every benchmark network some configured part of the study reads, in a stable order."""
    names = list(config["networks"])
    for paper in ("em", "lsbn"):
        names += [n for n in config[paper]["networks"] if n not in names]
    return names


def table(paper, name):
    """A report table written twice from one dataframe: CSV for machines, Markdown for people."""
    return {
        "csv": f"reports/{paper}/tables/{name}.csv",
        "md": f"reports/{paper}/tables/{name}.md",
    }


def foundation_tables():
    tables = [
        *table("data", "datasets").values(),
        *table("networks", "networks").values(),
    ]
    if config["data"]["compare_with_authors"]:
        tables += table("data", "mdl_vs_authors").values()
    return tables


def discretization_comparison_inputs(wildcards):
    """Raw files and the authors' release of every dataset compared with the authors'."""
    inputs = {}
    for name in config["data"]["compare_with_authors"]:
        inputs[f"raw_{name}"] = raw_inputs(name)
        inputs[f"authors_{name}"] = raw_inputs(f"bnc_{name}")[0]
    return inputs


# Paper em ------------------------------------------------------------------------------


def em_settings():
    """The EM hyperparameters every experiment of this paper uses."""
    return {
        k: config["em"][k]
        for k in ("tol", "min_iter", "max_iter", "pseudo_count", "error_metric")
    }


def em_sharing_runs():
    cfg = config["em"]["sharing"]
    return expand(
        "results/em/sharing/{network}/n={n}/trials.csv",
        network=cfg["networks"],
        n=cfg["sample_sizes"],
    )


def em_endpoint_runs():
    cfg = config["em"]["endpoints"]
    return [
        f"results/em/endpoints/{cfg['network']}/hidden={cfg['hidden']}/n={cfg['n_samples']}/{name}"
        for name in ("trials.csv", "traces.npz")
    ]


def em_mini_adapt_runs(name="trials.csv"):
    return expand(
        "results/em/mini_adapt/{observables}/sharing={sharing}/{name}",
        observables=["O_C", "O_P", "O_T"],
        sharing=["none", "SB"],
        name=name,
    )
