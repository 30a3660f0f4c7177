# Shared by all the rules below: config validation, wildcard constraints, config accessors, seeds.
# Validation runs first, before any other code reads the config.
# A rule's params built from a config mapping go through bnstudy.utils.canonical (keys sorted):
# Snakemake compares params as written, so reordering a config file's keys would rerun jobs.

import hashlib
import json
import os
import re
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from bnstudy.data.registry import DATASETS, NETWORKS, RAW_FILES
from bnstudy.provenance import code_version as _code_version
from bnstudy.structure.lsbn import GLOBAL_LEARNERS, LOCAL_LEARNERS
from bnstudy.structure.lsbn import settings_from_config as lsbn_settings_from_config
from bnstudy.studies.claims import PAPERS
from bnstudy.studies.em.runner import job_design
from bnstudy.studies.em.trials import EMSettings
from bnstudy.studies.lsbn.prepared import PREPARE_SETTINGS as LSBN_PREPARE_SETTINGS
from bnstudy.studies.mrf.experiments import ESTIMATORS as MRF_ESTIMATORS
from bnstudy.studies.mrf.experiments import FROM_MLE as MRF_FROM_MLE
from bnstudy.studies.mrf.experiments import SIMULATIONS as MRF_SIMULATIONS

# study_scale: the scale of this run (the config file's name), a param of every claims rule;
# archived_claims: the paper-scale claims tables that exist, set beside this run's.
from bnstudy.studies.scorecard import (
    ARCHIVE_SCALE,
    archived_claims,
    archived_manifests,
    recorded_rules,
    study_scale,
)
from bnstudy.studies.tan.names import ML_MODELS as TAN_ML_MODELS
from bnstudy.studies.tan.names import MODELS as TAN_MODELS
from bnstudy.utils import canonical, derive_seed
from bnstudy.workflow_config import check_config


def config_source():
    """The one file the config of this run comes from (see the Snakefile)."""
    files = workflow.overwrite_configfiles
    return str(files[0]) if files else "config/config.yaml"


def archive_scale():
    """The archived scale set beside this run's claims ("" in a run at that scale itself)."""
    return "" if study_scale([config_source()]) == ARCHIVE_SCALE else ARCHIVE_SCALE


def scorecard_archive():
    """The archived claims tables (archive/paper_cpu/<paper>/tables/claims.csv) that exist, per
    paper, to set beside this run's; none in a run at the archived scale."""
    return archived_claims() if archive_scale() else {}


def scorecard_manifests():
    """The manifests of the archived parts that exist (papers and study), beside the archived
    claims tables; none in a run at the archived scale."""
    return archived_manifests() if archive_scale() else {}


def scorecard_archive_config():
    """This checkout's config file of the archived scale, as a list of zero or one path (an
    input): the scorecard says whether it changed since the archived run."""
    path = Path("config") / f"{ARCHIVE_SCALE}.yaml"
    return [str(path)] if scorecard_manifests() and path.is_file() else []


def paper_archive(paper):
    """The archived claims table of one paper, as a list of zero or one path (an input)."""
    path = scorecard_archive().get(paper)
    return [path] if path else []


# The archive of this config's run (workflow/rules/archive.smk): archive/<config name>/<part>/.
ARCHIVE_NAME = Path(config_source()).stem


def archive_part(part):
    """The manifest of one part of this config's archive."""
    return f"archive/{ARCHIVE_NAME}/{part}/manifest.json"


def archive_folder(part):
    """One part's folder of this config's archive."""
    return str(Path(archive_part(part)).parent)


def archive_marker(part):
    """The declared output of an archive part's rule, a copy of the manifest it wrote in the
    run's results. The part's folder is no declared output, so Snakemake never deletes the
    committed manifest before the job runs, and a job that fails leaves the folder as it was
    (make_archive swaps in a new folder only once it is whole)."""
    return f"{archive_staging(part)}/manifest.json"


def archived_config_file(wildcards=None):
    """The config file an archive part records, as the archive's params: the archive stands for
    that file's values, so a run changed by ``--config key=value`` is refused when its DAG is
    built, before any job runs."""
    # --config key=value only (overwrite_config also holds the config file's values)
    overrides = workflow.config_settings.config
    if overrides:
        raise WorkflowError(
            f"archive/{ARCHIVE_NAME}/ records the values of {config_source()}, and this run "
            f"changes them with --config ({', '.join(sorted(overrides))}): write the values "
            "into a config file and archive from it (--configfile FILE)"
        )
    return config_source()


def paper_rules(paper):
    """The rules a paper's part times: those of workflow/rules/<paper>.smk."""
    return sorted(
        r.name for r in workflow.rules if Path(r.snakefile).name == f"{paper}.smk"
    )


def rule_code_versions(names=None):
    """The code version (``params.code``) of the named rules that have one (every such rule of
    the workflow when None), by rule name. An archive part records the code its rules ran, and
    the scorecard compares the archived code with this checkout's. It sees the rules defined so
    far: a rule's params call it directly only for rules included before its own (a paper's
    archive part, in archive.smk), and from a params function otherwise."""
    codes = {}
    for r in workflow.rules:
        params = dict(r.params.items())
        if (names is None or r.name in names) and isinstance(params.get("code"), str):
            codes[r.name] = params["code"]
    return canonical(codes)


# The archive's parts (workflow/rules/archive.smk).
#: The rules of a run's report that no part records (the archive has its own scorecard and
#: provenance, and records the config file's hash).
RUN_REPORT_RULES = ("make_scorecard", "make_table_provenance", "effective_config")


def rules_of(*files):
    """The names of the rules defined in the given rule files."""
    return sorted(r.name for r in workflow.rules if Path(r.snakefile).name in files)


def shared_rules():
    """The rules no paper owns that the study's part times: data and network samples
    (upstream_rules) and the foundation tables (report.smk). Like every archive rule, those
    that make the archive's scorecard and provenance are not timed: they read the run, they are
    not part of it."""
    own = {f"{paper}.smk" for paper in PAPERS} | {"archive.smk", "cluster.smk"}
    return sorted(
        r.name
        for r in workflow.rules
        if Path(r.snakefile).name not in own and r.name not in RUN_REPORT_RULES
    )


def upstream_rules():
    """The shared rules a paper's results rest on: data and network samples."""
    return rules_of("data.smk", "networks.smk")


def part_claims(paper):
    """A paper's claims table in its part of this config's archive."""
    return str(Path(archive_part(paper)).parent / "tables" / "claims.csv")


def archived_part_input(paper):
    """What the study's scorecard needs of a paper's part: its claims table when the part exists
    (a plain file: the study's part does not rebuild the paper's results), else the output of
    the part's rule, so that Snakemake builds the part first."""
    return (
        part_claims(paper)
        if Path(archive_part(paper)).is_file()
        else archive_marker(paper)
    )


def archived_part_digests():
    """The sha256 of each existing part's manifest (a param: a part rewritten since reruns the
    study's scorecard and part)."""
    return {
        paper: hashlib.sha256(Path(archive_part(paper)).read_bytes()).hexdigest()
        for paper in PAPERS
        if Path(archive_part(paper)).is_file()
    }


def recorded_shared_code():
    """The shared rules' code versions that this config's study part records (None without
    one): a paper part archived before parts recorded their own shared code rests on them.
    """
    path = Path(archive_part("study"))
    if not path.is_file():
        return None
    code = json.loads(path.read_text()).get("code") or {}
    upstream = set(upstream_rules())
    return {rule: version for rule, version in sorted(code.items()) if rule in upstream}


def archive_staging(part):
    """Where the files an archive part adds to its reports are made (scorecard, provenance)."""
    return f"results/archive/{ARCHIVE_NAME}/{part}"


validate(config, schema="../schemas/config.schema.yaml")
# What the schema cannot say: per-dataset/per-network maps cover what is listed, ordered ranges,
# figures drawn from the tables' runs, no empty lists that would leave a paper's tables empty.
check_config(config, source=config_source())

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
    model=_alternatives(TAN_MODELS),
    fold=r"[0-9]+",
    protocol=r"test|validation",
    n=r"[1-9][0-9]*",
    rep=r"[0-9]+",
    block=r"[0-9]+",
    simulation=_alternatives(MRF_SIMULATIONS),
    estimator=_alternatives(MRF_ESTIMATORS),
    session=r"1|2",
    baseline=_alternatives(GLOBAL_LEARNERS),
    learner=_alternatives(LOCAL_LEARNERS),


def code_version(script):
    """Content hash of a script of workflow/scripts and the bnstudy modules it imports.

    Each script-running rule passes it as ``params.code``, so an edit to the library reruns
    exactly the jobs whose scripts import the edited module (reason: params changed), and a touch
    or a revert reruns nothing. ``snakemake -n`` lists them.
    """
    return _code_version(Path(workflow.basedir) / "workflow" / "scripts" / script)


def seed_for(*keys):
    """Seed of one job: the config seed combined with the job's wildcard values."""
    return derive_seed(config["seed"], *keys)


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


def provenance_inputs():
    """Every table and figure of the report (not the Markdown twins: same job, same record)."""
    targets = [
        *foundation_tables(),
        *rules.tan.input,
        *rules.em.input,
        *rules.mrf.input,
        *rules.lsbn.input,
    ]
    return sorted(
        {
            str(path)
            for path in targets
            if str(path).startswith("reports/") and not str(path).endswith(".md")
        }
    )


# Paper em ------------------------------------------------------------------------------


def em_settings():
    """The EM settings block every experiment of this paper uses, checked once at DAG build."""
    return EMSettings.from_config(config["em"]).as_dict()


def em_design(kind, wildcards):
    """One EM job's design (bnstudy.studies.em.runner.job_design)."""
    return job_design(kind, config["em"], dict(wildcards.items()))


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


# Paper mrf ------------------------------------------------------------------------------

# Simulations, estimators and the samplers that start from the MLE: bnstudy.studies.mrf.experiments.


def mrf_graph(simulation):
    """The size of a simulation's graph: a binary tree's height or a square grid's side."""
    cfg = config["mrf"][simulation]
    return {"height": cfg["height"]} if "height" in cfg else {"side": cfg["side"]}


def mrf_gibbs_sweeps(simulation):
    """Gibbs sweeps per sample where a simulation's data cannot be drawn exactly."""
    return config["mrf"][simulation].get("gibbs_sweeps", 0)


def mrf_common():
    """What every MRF estimator shares: alpha0, the burn-in fraction and the PCD settings."""
    return canonical(
        {k: config["mrf"][k] for k in ("alpha0", "burn_in_fraction", "pcd")}
    )


def mrf_settings(block, estimator):
    """A sampler's settings, config["mrf"][block][estimator]; none for the MLEs."""
    return canonical(config["mrf"][block].get(estimator, {}))


def mrf_senate_runs():
    return expand(
        "results/mrf/senate/train={session}/{estimator}/metrics.csv",
        session=[1, 2],
        estimator=["mle", "gibbs_sba"],
    )


def mrf_senate_inputs(wildcards):
    """The Senate votes, the training session's graph, and the MLE Gibbs_SBA starts from."""
    inputs = {
        "senate": prepared_dataset("senate"),
        "graph": f"results/mrf/senate/train={wildcards.session}/graph.npz",
    }
    if wildcards.estimator in MRF_FROM_MLE:
        inputs["mle"] = f"results/mrf/senate/train={wildcards.session}/mle/estimate.npz"
    return inputs


def mrf_block_size(simulation):
    """Replicates one MRF job fits (config mrf.<simulation>.replicates_per_job)."""
    return int(config["mrf"][simulation]["replicates_per_job"])


def mrf_block_reps(simulation, block):
    """The replicate numbers of one block: [block * size, (block + 1) * size) within replicates."""
    size, total = mrf_block_size(simulation), config["mrf"][simulation]["replicates"]
    reps = list(range(int(block) * size, min((int(block) + 1) * size, total)))
    if not reps:
        raise ValueError(
            f"{simulation} has {total} replicates in blocks of {size}: no block {block}"
        )
    return reps


def mrf_blocks(simulation):
    size, total = mrf_block_size(simulation), config["mrf"][simulation]["replicates"]
    return list(range(-(-total // size)))


def mrf_block_runs():
    """Per-run metrics (one row per training size and replicate) of every block."""
    return [
        f"results/mrf/{simulation}/{estimator}/block={block}/metrics.csv"
        for simulation in MRF_SIMULATIONS
        for estimator in config["mrf"][simulation]["estimators"]
        for block in mrf_blocks(simulation)
    ]


def mrf_block_inputs(wildcards):
    """The block's replicates, and the grouping-blind MLEs a sampler starts from."""
    root = f"results/mrf/{wildcards.simulation}"
    inputs = {"data": f"{root}/block={wildcards.block}/data.npz"}
    if wildcards.estimator in MRF_FROM_MLE:
        inputs["mle"] = f"{root}/mle/block={wildcards.block}/estimates.npz"
    return inputs


def mrf_simulation_seeds(wildcards):
    return {
        rep: seed_for("simulate_mrf_data", wildcards.simulation, rep)
        for rep in mrf_block_reps(wildcards.simulation, wildcards.block)
    }


def mrf_fit_seeds(wildcards):
    sim, est = wildcards.simulation, wildcards.estimator
    return [
        ((n, rep), seed_for("fit_mrf", sim, est, n, rep))
        for n in config["mrf"][sim]["sample_sizes"]
        for rep in mrf_block_reps(sim, wildcards.block)
    ]


# Paper tan -----------------------------------------------------------------------------


def tan_mi_input(dataset):
    """The conditional-MI graphs of a dataset: the authors' for bnc_*, else ours."""
    if dataset.startswith("bnc_"):
        return raw_path(f"bnc/{dataset.removeprefix('bnc_')}_mi.npz")
    return f"results/tan/mi/{dataset}.npz"


def tan_hparams(model):
    """The authors' random hyperparameter draws a model uses, or None (the ML models).

    Set A or B: its CSV. AB (the paper's hybrid Chow-Liu grid): the list of set A's CSV and set
    B's, whose rows train_tan concatenates in that order (500 + 100 settings).
    """
    which = config["tan"]["models"][model].get("hparams")
    if not which:
        return None
    paths = [f"workflow/published/tan_hparams_set{part}.csv" for part in which]
    return paths[0] if len(paths) == 1 else paths


def tan_split_seed(dataset, fold):
    """Seed of a fold's training subsample and validation rows: the same for every model and
    protocol (train_tan), and for the Chow-Liu recovery's subsample of that fold."""
    return seed_for("tan_split", dataset, fold)


def tan_train_inputs(wildcards):
    inputs = {"dataset": prepared_dataset(wildcards.dataset)}
    if wildcards.model in ("chow_liu", "chow_liu_ml"):
        inputs["mi"] = tan_mi_input(wildcards.dataset)
    hparams = tan_hparams(wildcards.model)
    if hparams:
        inputs["hparams"] = hparams
    return inputs


def tan_per_dataset(value, dataset, what):
    """A tan config value given once for all datasets, or per dataset as a mapping."""
    if not isinstance(value, dict):
        return value
    if dataset not in value:
        raise ValueError(
            f"{what} is given per dataset but has no entry for {dataset!r}"
        )
    return value[dataset]


def tan_grid(model, dataset):
    """A model's grid on one dataset: per-dataset values (settings, K, ...) resolved.

    The model's ``datasets`` list is left out: it decides which jobs exist, not what one job
    does, so adding a dataset to a model leaves its jobs on the other datasets as they are.
    """
    grid = config["tan"]["models"][model]
    return canonical(
        {
            key: tan_per_dataset(value, dataset, f"tan.models.{model}.{key}")
            for key, value in grid.items()
            if key != "datasets"
        }
    )


def tan_settings(dataset):
    cfg = config["tan"]
    return {
        "epochs": tan_per_dataset(cfg["epochs"], dataset, "tan.epochs"),
        "batch_size": cfg["batch_size"][dataset],
        "learning_rates": cfg["learning_rates"],
        "validation_fraction": cfg["validation_fraction"],
        "max_train_samples": cfg["max_train_samples"],
    }


def tan_folds(dataset):
    """Fold indices trained: all of the dataset's (the registry's count), at most tan.max_folds."""
    return list(range(min(DATASETS[dataset].folds, config["tan"]["max_folds"])))


def tan_runs():
    """Every (dataset, model, fold, protocol) run of the configured grid."""
    runs = []
    for model, grid in config["tan"]["models"].items():
        protocols = ["test"] if model in TAN_ML_MODELS else config["tan"]["protocols"]
        for dataset in grid["datasets"]:
            if dataset not in config["tan"]["datasets"]:
                continue
            # a per-dataset value without this dataset fails here, when the DAG is built
            tan_settings(dataset), tan_grid(model, dataset)
            for fold in tan_folds(dataset):
                runs += [
                    f"results/tan/{dataset}/{model}/fold={fold}/{protocol}.csv"
                    for protocol in protocols
                ]
    return runs


def tan_mi_comparison():
    if "mnist" in config["tan"]["datasets"]:
        return list(table("tan", "mnist_mi_agreement").values())
    return []


# Paper lsbn ----------------------------------------------------------------------------
# Its learners (GLOBAL_LEARNERS run globally too; model averaging only within LSBN) and settings
# are defined once, in bnstudy.structure.lsbn.


def lsbn_settings():
    """The LSBN and baseline settings every learning run of this paper uses."""
    return canonical(lsbn_settings_from_config(config["lsbn"]))


def lsbn_prepare_settings():
    """The settings ROPART and the Markov blankets read: changing any other one leaves the
    prepare_lsbn jobs as they are."""
    return {k: v for k, v in lsbn_settings().items() if k in LSBN_PREPARE_SETTINGS}


def lsbn_ropart_runs():
    cfg = config["lsbn"]
    return expand(
        "results/lsbn/ropart/{network}/n={n}/rep={rep}/statistics.csv",
        network=cfg["networks"],
        n=cfg["n_samples"],
        rep=range(cfg["replicates"]),
    )


def lsbn_learning_runs():
    """Metrics of every global baseline and every LSBN run of the configured grid."""
    cfg = config["lsbn"]
    runs = []
    for network in cfg["networks"]:
        for rep in range(cfg["replicates"]):
            tail = f"n={cfg['n_samples']}/rep={rep}/metrics.csv"
            runs += [
                f"results/lsbn/global/{network}/{m}/{tail}"
                for m in cfg["methods"]
                if m in GLOBAL_LEARNERS
            ]
            runs += [f"results/lsbn/lsbn/{network}/{m}/{tail}" for m in cfg["methods"]]
    return runs
