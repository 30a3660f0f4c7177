"""Cost model: the expected CPU-hours of a config, per paper and per rule, from a smaller run.

    python benchmarks/cost_model.py --measured config/smoke.yaml DIR \\
        --config config/config.yaml --config config/paper.yaml

``DIR`` holds the ``benchmark:`` files of a finished run of the measured config (Snakemake's
TSVs: columns ``s``, ``h:m:s``, ..., ``cpu_time``; one row per repeat); ``--measured`` may be
given several times, for runs of several sizes. For every ``--config`` the
command builds the DAG of the whole config (every job forced, as a first run from scratch does)
with Snakemake's API in a throw-away copy of the workflow, and prints per rule and per paper the
planned jobs and the expected CPU-hours.

Method
------
1. *Which job a file measures.* Each rule's ``benchmark:`` pattern, from the first path component
   that names the rule (``run_em_sharing/{network}/n={n}.tsv``), is matched against the end of the
   file's path under ``DIR``; the match gives the rule and the job's wildcards. So ``DIR`` may be
   any folder the files were moved to, as long as the part from the rule name on is kept.
2. *Job size.* :data:`SIZES` gives, per rule, a size computed from the job's wildcards and the
   effective config (the one the workflow runs, after Snakemake merged the files): trials x
   sharing levels x samples for EM, settings x learning rates x grid x epochs x training rows x
   features for TAN training, graph nodes x steps for MRF fits, samples x network nodes for
   structure learning, and so on (each entry says what it assumes). A rule not in the table costs
   the same for every job. Sizes are *at least linear* in the obvious size parameter; costs that
   grow faster (structure search in the number of nodes, TAN All in the number of features)
   are underestimated when the target is larger than the measured run in that parameter.
3. *Startup.* A job's CPU time is ``startup + rate x size``. The startup is the intercept of a
   least-squares line through the measured jobs of the group (step 4), else of the rule, when
   their sizes span a factor of 2 or more and the line rises (clipped to ``[0, smallest measured
   time]``);
   otherwise the median CPU time of the measured jobs of fixed-size rules (Python, NumPy and
   pandas imports), clipped likewise. ``--startup`` sets it for every rule. Measured runs of two
   sizes (``--measured`` twice, e.g. the smoke and the laptop config) make these fits possible.
4. *Rate.* ``sum(cpu - startup) / sum(size)`` over the measured jobs of the same rule that share
   the target job's *group* (e.g. the same dataset and model for ``train_tan``); when none was
   measured, the last group key is dropped until some are (the ``basis`` column says which keys
   held). A rule with no measured job is predicted at the startup time only (``unmeasured``).
5. *Upper column.* ``all_linear`` scales the whole measured time with the size (no startup): an
   upper bound when the target jobs are larger than the measured ones.

*Checked against a run.* ``--against archive/<name>`` (an archive written by the ``archive_<paper>``
targets of the same config) prints, for the papers archived there, the predicted CPU-hours beside
the measured ones of each rule (summed from the run's benchmark files, as the manifests record
them) and their ratio. ``--against-run DIR`` does the same for a run of the last config that has
not finished (or was not archived): the benchmark files under ``DIR`` (its ``logs/benchmarks``),
each job's prediction beside its measured time, summed per rule.

CPU time is the benchmark's ``cpu_time`` (user + system of the job's processes, so threads are
counted), or its wall time ``s`` where ``cpu_time`` is missing. Predictions from a tiny run (the
smoke config) rest on jobs that last about a second, mostly startup: they give the order of
magnitude; benchmarks of the laptop config give better ones.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "SIZES",
    "Job",
    "Measured",
    "SizeRule",
    "job_size",
    "match_benchmarks",
    "measure",
    "plan",
    "predict",
    "read_benchmark",
    "run",
    "summarize",
]

REPO = Path(__file__).resolve().parents[1]

# ---------------------------------------------------------------------------- data sizes
#: Training rows of one fold (the authors' files; satimage: fold 2, the largest of five).
TRAIN_ROWS = {"bnc_satimage": 5153, "bnc_letter": 13342, "bnc_usps": 7340, "mnist": 60000}
#: Features of the TAN datasets (mnist: the 14 x 14 images of the study).
FEATURES = {"bnc_satimage": 36, "bnc_letter": 16, "bnc_usps": 256, "mnist": 196}
#: Nodes of the benchmark networks (counted in the files of the data mirror).
NETWORK_NODES = {
    "alarm": 37,
    "insurance": 27,
    "win95pts": 76,
    "pigs": 441,
    "link": 724,
    "adapt": 493,
    "mini_adapt": 18,
}
#: Sizes of the sets of identical-CPT nodes, largest first (bnstudy.parameters.sharing), for the
#: EM hidden sets (``em.sharing.hidden_group`` is a rank in this list).
IDENTICAL_CPT_SETS = {"pigs": (296, 145), "adapt": (99, 42, 27), "alarm": (3, 3, 2)}
#: Smallest ratio of the largest to the smallest measured size for fitting a startup.
MIN_SIZE_SPAN = 2.0
#: Which paper a rule belongs to, by the rule file it is defined in.
PAPER_OF_FILE = {"tan.smk": "tan", "em.smk": "em", "mrf.smk": "mrf", "lsbn.smk": "lsbn"}


# ---------------------------------------------------------------------------- job sizes
def _per(value, key):
    """A config value given once, or per dataset/network as a mapping."""
    return value[key] if isinstance(value, Mapping) else value


def _count(value) -> int:
    return len(value) if isinstance(value, list | tuple) else 1


def tan_specs(config: Mapping, model: str, dataset: str) -> int:
    """Settings a ``train_tan`` job trains (bnstudy.studies.tan.protocol.expand_grid)."""
    if model in ("nb_ml", "chow_liu_ml"):
        return 1
    grid = config["tan"]["models"][model]
    n = int(_per(grid.get("settings", 1), dataset)) if "lam" not in grid else 1
    for key in ("K", "orderings", "draws", "roots"):
        if key in grid:
            n *= _count(_per(grid[key], dataset))
    return n * len(config["tan"]["learning_rates"])


def tan_rows(config: Mapping, dataset: str, cap) -> float:
    """Training rows: all of a fold's, at most ``cap`` (``max_train_samples``; null: all)."""
    rows = TRAIN_ROWS[dataset]
    return float(min(rows, cap) if cap else rows)


def _train_tan(w: Mapping, c: Mapping) -> float:
    ds, model = w["dataset"], w["model"]
    rows = tan_rows(c, ds, c["tan"]["max_train_samples"])
    if w["protocol"] == "validation":
        rows *= 1 - c["tan"]["validation_fraction"]
    if model in ("nb_ml", "chow_liu_ml"):  # closed form: one pass over the rows
        return rows * FEATURES[ds]
    epochs = _per(c["tan"]["epochs"], ds)
    return tan_specs(c, model, ds) * epochs * rows * FEATURES[ds]


def _recover_chow_liu(w: Mapping, c: Mapping) -> float:
    ds, cfg = w["dataset"], c["tan"]["recover_chow_liu"]
    roots = FEATURES[ds] if cfg["roots"] == "all" else _count(cfg["roots"])
    folds = min(5 if ds == "bnc_satimage" else 1, c["tan"]["max_folds"])
    rows = tan_rows(c, ds, cfg["max_train_samples"])
    return roots * len(cfg["learning_rates"]) * cfg["epochs"] * rows * FEATURES[ds] * folds


def _compute_mi_graph(w: Mapping, c: Mapping) -> float:
    ds = w["dataset"]  # every pair of features, over the rows
    return TRAIN_ROWS.get(ds, 1) * FEATURES.get(ds, 1) ** 2


def mrf_nodes(c: Mapping, simulation: str) -> int:
    """Nodes of a simulation's graph: a perfect binary tree of height h, or a side x side grid."""
    cfg = c["mrf"][simulation]
    return 2 ** (cfg["height"] + 1) - 1 if "height" in cfg else cfg["side"] ** 2


def _pcd_work(c: Mapping) -> float:
    return c["mrf"]["pcd"]["n_iter"] * c["mrf"]["pcd"]["n_particles"]


def _sampler_work(settings: Mapping) -> float:
    """Steps times the inner loops a step runs (MH_AuxVar: proposals x particle sweeps)."""
    work = settings.get("n_steps", 1)
    for key in ("n_proposals", "particle_sweeps"):
        work *= settings.get(key, 1)
    return float(work)


def mrf_block_replicates(c: Mapping, simulation: str, block) -> int:
    """Replicates of one ``fit_mrf`` job (workflow/rules/common.smk: mrf_block_reps)."""
    cfg = c["mrf"][simulation]
    size = int(cfg["replicates_per_job"])
    return max(0, min(size, int(cfg["replicates"]) - int(block) * size))


def mrf_run_work(c: Mapping, simulation: str, estimator: str, n: int) -> float:
    """Work of one run (one replicate at training size ``n``), in node-updates.

    MLE and oracle: PCD sweeps of the particles (the data enter as statistics, so ``n`` does not
    count). The samplers, per step: MH_AuxVar sweeps ``n`` auxiliary chains ``particle_sweeps``
    times for each of ``M`` proposals per edge and each of the ``S`` phi proposals (with exact
    particles: ``S`` draws from the enumerated states), and refits by ``step_iter`` PCD
    iterations; Gibbs_SBA refits by ``step_iter`` PCD iterations; Gibbs_ExactL
    and the tree's DP sampler update every edge (taken as nodes).
    """
    nodes = mrf_nodes(c, simulation)
    pcd = c["mrf"]["pcd"]
    if estimator in ("mle", "oracle"):
        return nodes * _pcd_work(c)
    s = c["mrf"][simulation].get(estimator, {})
    steps = s.get("n_steps", 1)
    refit = pcd["step_iter"] * pcd["n_particles"] * nodes
    if estimator == "mh_auxvar":
        if s.get("particles", "gibbs") == "exact":
            # moves of c cost O(1); a phi proposal draws n samples from the enumerated states
            # (calibrated on the 4x4 grid: a tenth of the 2^(p-1) states plus 5 per sample)
            draws = s["n_phi_steps"] * (2 ** (nodes - 1) / 10 + 5 * n)
            return steps * (draws + nodes * 1.5 * s["n_proposals"] + refit)
        proposals = nodes * 1.5 * s["n_proposals"] + s["n_phi_steps"]  # edges ~ 1.5 nodes
        return steps * (proposals * s["particle_sweeps"] * n * nodes + refit)
    if estimator == "gibbs_sba":
        return steps * refit
    return steps * nodes * s.get("truncation", 1)


def _fit_mrf(w: Mapping, c: Mapping) -> float:
    sim, est = w["simulation"], w["estimator"]
    reps = mrf_block_replicates(c, sim, w["block"])
    return reps * sum(mrf_run_work(c, sim, est, n) for n in c["mrf"][sim]["sample_sizes"])


def _simulate_mrf_data(w: Mapping, c: Mapping) -> float:
    cfg = c["mrf"][w["simulation"]]
    rows = max(cfg["sample_sizes"]) + cfg["n_test"]
    return mrf_nodes(c, w["simulation"]) * rows * max(1, cfg.get("gibbs_sweeps", 0))


def _fit_mrf_senate(w: Mapping, c: Mapping) -> float:
    if w["estimator"] in ("mle", "oracle"):
        return _pcd_work(c)
    return _sampler_work(c["mrf"]["senate"].get(w["estimator"], {}))


def em_levels(c: Mapping, network: str) -> int:
    """Sharing levels of gradual sharing: none, first, first + step, ..., all hidden nodes."""
    cfg = c["em"]["sharing"]
    rank = cfg["hidden_group"][network]
    hidden = IDENTICAL_CPT_SETS[network][rank - 1]
    first, step = cfg["first"][network], cfg["step"][network]
    sizes = list(range(first, hidden, step)) + [hidden]
    return 1 + len([s for s in sizes if s >= 2])


def _run_em_sharing(w: Mapping, c: Mapping) -> float:
    # every trial: iterations (to convergence, not scaled) x E-step over the distinct rows (<= n)
    return c["em"]["sharing"]["trials"] * em_levels(c, w["network"]) * int(w["n"])


def _run_em_endpoints(w: Mapping, c: Mapping) -> float:
    # two levels (none, all shared); the junction tree grows with the hidden count (linear here)
    return c["em"]["endpoints"]["trials"] * 2 * int(w["n"]) * int(w["h"])


def _run_em_mini_adapt(w: Mapping, c: Mapping) -> float:
    return c["em"]["mini_adapt"]["trials"] * c["em"]["mini_adapt"]["n_samples"]


def _network_rows(w: Mapping, c: Mapping) -> float:
    return int(w["n"]) * NETWORK_NODES[w["network"]]


def _run_lsbn(w: Mapping, c: Mapping) -> float:
    size = _network_rows(w, c)
    if w.get("learner") == "model_averaging":
        size *= c["lsbn"]["mcmc_steps"]
    return size


@dataclass(frozen=True)
class SizeRule:
    """How one rule's job size is computed, and the wildcards that group its measured jobs."""

    size: Callable[[Mapping, Mapping], float]
    group: tuple[str, ...] = ()
    assumes: str = ""


#: Per-rule job sizes; rules not listed cost the same for every job (tables, figures, downloads).
SIZES: dict[str, SizeRule] = {
    "train_tan": SizeRule(
        _train_tan,
        ("model", "dataset"),
        "specs x lrs x epochs x rows x features (ML models: rows x features)",
    ),
    "recover_chow_liu": SizeRule(
        _recover_chow_liu, ("dataset",), "roots x lrs x epochs x rows x features x folds"
    ),
    "compute_mi_graph": SizeRule(_compute_mi_graph, ("dataset",), "rows x features^2"),
    "fit_mrf": SizeRule(
        _fit_mrf,
        ("estimator", "simulation"),
        "replicates x sum over n of a run's node-updates (bench: mrf_run_work)",
    ),
    "simulate_mrf_data": SizeRule(
        _simulate_mrf_data, ("simulation",), "nodes x (largest n + n_test) x Gibbs sweeps"
    ),
    "fit_mrf_senate": SizeRule(_fit_mrf_senate, ("estimator",), "PCD work or sampler steps"),
    "run_em_sharing": SizeRule(_run_em_sharing, ("network",), "trials x sharing levels x n"),
    "run_em_endpoints": SizeRule(_run_em_endpoints, ("network",), "trials x 2 x n x hidden"),
    "run_em_mini_adapt": SizeRule(_run_em_mini_adapt, (), "trials x n"),
    "sample_network": SizeRule(_network_rows, ("network",), "n x nodes"),
    "summarize_lsbn_ropart": SizeRule(_network_rows, ("network",), "n x nodes"),
    "prepare_lsbn": SizeRule(_network_rows, ("network",), "n x nodes"),
    "run_lsbn_global": SizeRule(_network_rows, ("baseline", "network"), "n x nodes"),
    "run_lsbn": SizeRule(_run_lsbn, ("learner", "network"), "n x nodes (x MCMC steps)"),
    "prepare_dataset": SizeRule(lambda w, c: 1.0, ("dataset",), "per dataset"),
}


def job_size(rule: str, wildcards: Mapping, config: Mapping) -> float:
    entry = SIZES.get(rule)
    return 1.0 if entry is None else float(entry.size(wildcards, config))


# ---------------------------------------------------------------------------- benchmarks
@dataclass(frozen=True)
class Job:
    """One job of a DAG: its rule, wildcards, and the paper the rule belongs to."""

    rule: str
    wildcards: dict = field(hash=False)
    paper: str = "shared"


def read_benchmark(path: Path) -> float:
    """CPU seconds of one benchmark file: mean ``cpu_time`` over its rows (``s`` if missing)."""
    table = pd.read_csv(path, sep="\t")
    if "s" not in table.columns or table.empty:
        raise ValueError(f"{path}: not a Snakemake benchmark file (no 's' column or no rows)")
    cpu = pd.to_numeric(table.get("cpu_time"), errors="coerce") if "cpu_time" in table else None
    if cpu is None or cpu.isna().all():
        return float(pd.to_numeric(table["s"], errors="coerce").mean())
    return float(cpu.mean())


def pattern_tail(rule: str, pattern: str) -> str:
    """The part of a benchmark pattern from the first path component that names the rule."""
    parts = pattern.split("/")
    for i, part in enumerate(parts):
        if part == rule or part.startswith(rule + "."):
            return "/".join(parts[i:])
    return parts[-1]


def _tail_regex(tail: str) -> re.Pattern:
    out, last = [], 0
    for m in re.finditer(
        r"\{(?P<name>\w+)(?:,(?P<constraint>[^{}]*(?:\{[^{}]*\}[^{}]*)*))?\}", tail
    ):
        out.append(re.escape(tail[last : m.start()]))
        out.append(f"(?P<{m['name']}>{m['constraint'] or '[^/]+'})")
        last = m.end()
    out.append(re.escape(tail[last:]))
    return re.compile(r"(?:^|/)" + "".join(out) + r"$")


def match_benchmarks(
    bench_dir: Path, patterns: Mapping[str, str]
) -> tuple[list[tuple[Job, float]], list[str]]:
    """Every benchmark file under ``bench_dir`` as (job, CPU seconds); and the unmatched files.

    ``patterns`` maps a rule to its ``benchmark:`` pattern (wildcards, optionally with Snakemake
    constraints ``{name,regex}``). A file matches when its path relative to ``bench_dir`` ends with
    the pattern's tail (:func:`pattern_tail`); the longest tail wins.
    """
    bench_dir = Path(bench_dir)
    if not bench_dir.is_dir():
        raise ValueError(f"benchmark directory {bench_dir} does not exist")
    regexes = sorted(
        ((rule, _tail_regex(pattern_tail(rule, p))) for rule, p in patterns.items() if p),
        key=lambda item: -len(item[1].pattern),
    )
    measured, unmatched = [], []
    for path in sorted(bench_dir.rglob("*.tsv")):
        rel = path.relative_to(bench_dir).as_posix()
        for rule, regex in regexes:
            m = regex.search(rel)
            if m:
                measured.append((Job(rule, m.groupdict()), read_benchmark(path)))
                break
        else:
            unmatched.append(rel)
    return measured, unmatched


# ---------------------------------------------------------------------------- the model
@dataclass(frozen=True)
class Measured:
    """One benchmark file: the job it measured, its CPU seconds and its size in its run's config."""

    job: Job
    cpu: float
    size: float


def measure(
    bench_dir: Path, patterns: Mapping[str, str], config: Mapping
) -> tuple[list[Measured], list[str]]:
    """The benchmark files of one run with their job sizes, and the files no rule claims."""
    found, unmatched = match_benchmarks(bench_dir, patterns)
    return [Measured(job, cpu, job_size(job.rule, job.wildcards, config)) for job, cpu in found], (
        unmatched
    )


def fit_startup(points: Sequence[tuple[float, float]]) -> float | None:
    """Intercept of the least-squares line through (size, cpu), clipped to ``[0, min cpu]``.

    None when the sizes span less than a factor of :data:`MIN_SIZE_SPAN` (a line through nearly
    equal sizes is noise) or the line does not rise.
    """
    sizes = np.array([s for s, _ in points], float)
    cpus = np.array([c for _, c in points], float)
    if sizes.min() <= 0 or sizes.max() < MIN_SIZE_SPAN * sizes.min():
        return None
    slope, intercept = np.polyfit(sizes, cpus, 1)
    if slope <= 0:
        return None
    return float(min(max(intercept, 0.0), cpus.min()))


def rule_startup(points: Sequence[tuple[float, float]], default: float) -> float:
    """A rule's startup CPU seconds from its measured (size, cpu) points (see the module doc)."""
    fitted = fit_startup(points)
    return fitted if fitted is not None else float(min(default, min(c for _, c in points)))


def default_startup(measured: Sequence[Measured]) -> float:
    """Median CPU time of the measured jobs of fixed-size rules (those not in :data:`SIZES`)."""
    fixed = [m.cpu for m in measured if m.job.rule not in SIZES and m.cpu > 0]
    return float(np.median(fixed)) if fixed else 0.0


def predict(
    measured: Sequence[Measured],
    jobs: Sequence[Job],
    config: Mapping,
    *,
    startup: float | None = None,
) -> pd.DataFrame:
    """Expected CPU seconds of every job of ``jobs`` (one row per job) in ``config``.

    Columns: ``paper``, ``rule``, ``size``, ``cpu_s`` (startup + rate x size), ``all_linear_s``
    (measured time per size unit x size, no startup), ``basis`` (which group keys the rate came
    from; ``fit`` where the startup was fitted within the group; ``unmeasured`` when the rule has
    no benchmark).
    """
    by_rule: dict[str, list[Measured]] = {}
    for m in measured:
        by_rule.setdefault(m.job.rule, []).append(m)
    base = default_startup(measured) if startup is None else startup
    starts = {
        rule: startup if startup is not None else rule_startup([(m.size, m.cpu) for m in pts], base)
        for rule, pts in by_rule.items()
    }
    cache: dict[tuple, tuple[float, float, float, str]] = {}
    rows = []
    for job in jobs:
        size = job_size(job.rule, job.wildcards, config)
        group = SIZES[job.rule].group if job.rule in SIZES else ()
        key = (job.rule, tuple(str(job.wildcards.get(g)) for g in group))
        if key not in cache:
            cache[key] = _rates(
                by_rule.get(job.rule, []),
                job,
                group,
                starts.get(job.rule, base),
                fit=startup is None,
            )
        start, rate, rate_all, basis = cache[key]
        unmeasured = basis == "unmeasured"
        rows.append(
            {
                "paper": job.paper,
                "rule": job.rule,
                "size": size,
                "cpu_s": base if unmeasured else start + rate * size,
                "all_linear_s": base if unmeasured else rate_all * size,
                "basis": basis,
            }
        )
    return pd.DataFrame(rows)


def _rates(
    points: Sequence[Measured], job: Job, group: Sequence[str], start: float, *, fit: bool
) -> tuple[float, float, float, str]:
    """(startup, rate over startup, rate of the whole time, basis) from the closest group."""
    if not points:
        return 0.0, 0.0, 0.0, "unmeasured"
    for k in range(len(group), -1, -1):
        keys = group[:k]
        same = [
            m
            for m in points
            if all(str(m.job.wildcards.get(g)) == str(job.wildcards.get(g)) for g in keys)
        ]
        if not same:
            continue
        basis = "same " + ", ".join(keys) if keys else "rule"
        if k < len(group):
            basis += f" (other {', '.join(group[k:])})"
        fitted = fit_startup([(m.size, m.cpu) for m in same]) if fit else None
        if fitted is not None:
            start, basis = fitted, basis + ", fit"
        total = sum(m.size for m in same)
        work = sum(max(m.cpu - start, 0.0) for m in same)
        return start, work / total, sum(m.cpu for m in same) / total, basis
    raise AssertionError("unreachable: k = 0 matches every point")


def summarize(pred: pd.DataFrame, measured: Sequence[Measured]) -> pd.DataFrame:
    """Per rule: jobs planned and measured, CPU-hours expected and all-linear, and the basis."""
    counts = pd.Series([m.job.rule for m in measured], dtype=object).value_counts()
    table = (
        pred.groupby(["paper", "rule"], sort=True)
        .agg(
            jobs=("rule", "size"),
            cpu_h=("cpu_s", "sum"),
            all_linear_h=("all_linear_s", "sum"),
            basis=("basis", lambda b: "; ".join(sorted(set(b)))),
        )
        .reset_index()
    )
    table["cpu_h"] /= 3600
    table["all_linear_h"] /= 3600
    table.insert(3, "measured", table["rule"].map(counts).fillna(0).astype(int))
    return table


def paper_totals(table: pd.DataFrame) -> pd.DataFrame:
    totals = table.groupby("paper", sort=True)[["jobs", "measured", "cpu_h", "all_linear_h"]].sum()
    totals.loc["total"] = totals.sum()
    return totals.reset_index()


def archived_times(archive: Path) -> pd.DataFrame:
    """Measured CPU-hours per rule of the papers archived under ``archive`` (their manifests).

    Returns a frame with ``paper, rule, measured_jobs, measured_h``; empty when no paper's part
    is there. A paper's part times only its own rules (``workflow/rules/<paper>.smk``); the
    study's part, when written, times every rule (the papers' as their parts record them), and
    its rules that no paper's part has (the shared inputs: data, network samples, foundation
    tables) count as paper ``shared``.
    """
    manifests = [json.loads(p.read_text()) for p in sorted(Path(archive).glob("*/manifest.json"))]
    rows = [
        _measured_row(m["part"], r)
        for m in manifests
        if m["part"] != "study"
        for r in m["time"]["per_rule"]
    ]
    own = {row["rule"] for row in rows}
    rows += [
        _measured_row("shared", r)
        for m in manifests
        if m["part"] == "study" and rows
        for r in m["time"]["per_rule"]
        if r["rule"] not in own
    ]
    return pd.DataFrame(rows, columns=["paper", "rule", "measured_jobs", "measured_h"])


def _measured_row(paper: str, rule: Mapping) -> dict:
    """A manifest's time of one rule as a row of :func:`archived_times`."""
    return {
        "paper": paper,
        "rule": rule["rule"],
        "measured_jobs": int(rule["jobs"]),
        "measured_h": float(rule["cpu_s"]) / 3600,
    }


def compare_with_archive(table: pd.DataFrame, measured: pd.DataFrame) -> pd.DataFrame:
    """Predicted beside measured CPU-hours, per archived paper and rule, with totals per paper.

    ``table`` is :func:`summarize`'s prediction, ``measured`` :func:`archived_times`. Rules of an
    archived paper that the prediction lacks (or the archive lacks) count as 0 on that side.
    Columns: ``paper, rule, jobs, measured_jobs, predicted_h, measured_h, ratio``
    (predicted / measured); one ``total`` row per paper, and an ``all`` one over them when there
    are several.
    """
    papers = sorted(set(measured["paper"]))
    pred = table[table["paper"].isin(papers)][["paper", "rule", "jobs", "cpu_h"]]
    both = pred.merge(measured, on=["paper", "rule"], how="outer").fillna(
        {"jobs": 0, "cpu_h": 0.0, "measured_jobs": 0, "measured_h": 0.0}
    )
    both = both.rename(columns={"cpu_h": "predicted_h"})
    sums = ["jobs", "measured_jobs", "predicted_h", "measured_h"]
    rows = []
    for paper in papers:
        part = both[both["paper"] == paper].sort_values("rule")
        rows += [*part.to_dict("records"), {"paper": paper, "rule": "total", **part[sums].sum()}]
    if len(papers) > 1:
        rows.append({"paper": "all", "rule": "total", **both[sums].sum()})
    out = pd.DataFrame(rows)
    out[["jobs", "measured_jobs"]] = out[["jobs", "measured_jobs"]].astype(int)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["ratio"] = out["predicted_h"] / out["measured_h"].where(out["measured_h"] > 0)
    return out[["paper", "rule", "jobs", "measured_jobs", "predicted_h", "measured_h", "ratio"]]


def job_count_differences(
    planned: Mapping[str, int], archived: Mapping[str, int]
) -> dict[str, tuple[int, int]]:
    """Rules whose job count in a config's DAG and in an archived run differ: ``rule ->
    (planned, archived)``, a rule missing on one side counting 0 there (stale benchmark files in
    the run, or a DAG that changed since)."""
    return {
        rule: (planned.get(rule, 0), archived.get(rule, 0))
        for rule in sorted(set(planned) | set(archived))
        if planned.get(rule, 0) != archived.get(rule, 0)
    }


def compare_with_run(
    calibration: Sequence[Measured],
    run: Sequence[Measured],
    config: Mapping,
    papers: Mapping[str, str],
) -> pd.DataFrame:
    """Predicted beside measured CPU-hours for the jobs a run of ``config`` has finished.

    Each job of ``run`` (its benchmark files, :func:`measure`) is predicted from ``calibration``
    alone, so that a partly finished run checks the model job by job; the sums per paper
    (``papers``: rule -> paper) and rule are set side by side as in :func:`compare_with_archive`.
    """
    if not run:
        raise ValueError("the run has no benchmark file of a rule of the workflow")
    jobs = [Job(m.job.rule, m.job.wildcards, papers.get(m.job.rule, "shared")) for m in run]
    table = summarize(predict(calibration, jobs, config), calibration)
    measured = pd.DataFrame(
        {
            "paper": [j.paper for j in jobs],
            "rule": [j.rule for j in jobs],
            "measured_jobs": 1,
            "measured_h": [m.cpu / 3600 for m in run],
        }
    )
    measured = measured.groupby(["paper", "rule"], as_index=False).sum()
    return compare_with_archive(table, measured)


# ---------------------------------------------------------------------------- the DAG
def plan(configfile: Path, *, repo: Path = REPO, dag: bool = True) -> dict:
    """Jobs (rule, wildcards, paper), benchmark patterns and effective config of one config.

    Runs Snakemake's API in a child process, in a throw-away copy of the workflow (Snakefile,
    workflow/, config/, envs/), with every job forced.
    """
    with tempfile.TemporaryDirectory(prefix="cost_model_") as tmp:
        work = Path(tmp)
        for item in ("Snakefile", "workflow", "config", "envs"):
            src = repo / item
            if src.is_dir():
                shutil.copytree(src, work / item)
            elif src.exists():
                shutil.copy(src, work / item)
        out = work / "plan.json"
        cmd = [sys.executable, __file__, "_plan", str(Path(configfile).resolve()), str(work)]
        cmd += [str(out), "1" if dag else "0"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"building the DAG of {configfile} failed:\n{done.stderr[-4000:]}")
        return json.loads(out.read_text())


def _plan_in_process(configfile: str, workdir: str, out: str, dag: str) -> None:
    from snakemake.api import SnakemakeApi
    from snakemake.settings.enums import Quietness
    from snakemake.settings.types import (
        ConfigSettings,
        DAGSettings,
        OutputSettings,
        ResourceSettings,
    )

    work = Path(workdir)
    with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
        wf = api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(configfiles=[Path(configfile)]),
            snakefile=work / "Snakefile",
            workdir=work,
        )
        wf.dag(DAGSettings(forceall=True))  # sets the workflow's DAG settings
        workflow = wf._workflow
        paper = {
            r.name: PAPER_OF_FILE.get(Path(r.snakefile).name, "shared") for r in workflow.rules
        }
        patterns = {r.name: str(r.benchmark) if r.benchmark else "" for r in workflow.rules}
        jobs = []
        if dag == "1":
            workflow._prepare_dag(
                forceall=True, ignore_incomplete=True, lock_warn_only=True, nolock=True
            )
            workflow._build_dag()
            jobs = [
                {"rule": j.rule.name, "wildcards": dict(j.wildcards_dict)}
                for j in workflow.dag.jobs
                if not j.rule.norun  # target rules (all, em, ...) run nothing
            ]
        Path(out).write_text(
            json.dumps(
                {
                    "jobs": [{**j, "paper": paper[j["rule"]]} for j in jobs],
                    "patterns": patterns,
                    "papers": paper,
                    "config": dict(workflow.config),
                },
                default=str,
            )
        )


# ---------------------------------------------------------------------------- command line
def _fmt(frame: pd.DataFrame) -> str:
    return frame.to_markdown(index=False, floatfmt=".3g")


def run(
    runs: Sequence[tuple[Path, Path]],
    configs: Sequence[Path],
    *,
    startup: float | None = None,
    repo: Path = REPO,
    against: Path | None = None,
    against_run: Path | None = None,
) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """Tables per rule and per paper for every config in ``configs``.

    ``runs`` are the measured runs, each (its config file, its benchmark folder); with runs of
    several sizes, the startup of a group is fitted on its jobs of every run. ``against``: an
    archive of a run of the (last) config, whose measured time is printed beside the prediction;
    ``against_run``: the benchmark folder of such a run, finished or not (job by job).
    """
    measured: list[Measured] = []
    for configfile, bench_dir in runs:
        ref = plan(configfile, repo=repo, dag=False)
        found, unmatched = measure(bench_dir, ref["patterns"], ref["config"])
        print(
            f"measured: {len(found)} benchmark files of {configfile} under {bench_dir}, "
            f"{sum(m.cpu for m in found) / 3600:.3g} CPU-hours; unmatched files: {len(unmatched)}"
        )
        for rel in unmatched[:10]:
            print(f"  unmatched: {rel}")
        measured += found
    if not measured:
        raise ValueError("no benchmark file of the measured runs matches a rule of the workflow")
    out = {}
    for configfile in configs:
        target = plan(configfile, repo=repo)
        jobs = [Job(j["rule"], j["wildcards"], j["paper"]) for j in target["jobs"]]
        table = summarize(predict(measured, jobs, target["config"], startup=startup), measured)
        totals = paper_totals(table)
        out[str(configfile)] = (table, totals)
        print(f"\n## {configfile}: {len(jobs)} jobs\n")
        print(_fmt(table))
        print()
        print(_fmt(totals))
    if against is not None:
        archived = archived_times(against)
        if archived.empty:
            raise ValueError(f"no paper's part with a manifest under {against}")
        table = out[str(configs[-1])][0]
        print(f"\n## {configs[-1]}: predicted against the run archived in {against}\n")
        compared = compare_with_archive(table, archived)
        print(_fmt(compared))
        rules = compared[compared["rule"] != "total"]
        differ = job_count_differences(
            dict(zip(rules["rule"], rules["jobs"], strict=True)),
            dict(zip(rules["rule"], rules["measured_jobs"], strict=True)),
        )
        if differ:
            print(
                "\njobs planned and jobs archived differ (benchmark files of jobs the config no "
                "longer has, or a DAG changed since the run): "
                + ", ".join(f"{rule} {a} planned, {b} archived" for rule, (a, b) in differ.items())
            )
    if against_run is not None:
        target = plan(configs[-1], repo=repo, dag=False)
        done, _ = measure(against_run, target["patterns"], target["config"])
        print(
            f"\n## {configs[-1]}: predicted against the {len(done)} jobs measured in {against_run}\n"
        )
        print(_fmt(compare_with_run(measured, done, target["config"], target["papers"])))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["_plan"]:
        _plan_in_process(*argv[1:5])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--measured",
        nargs=2,
        action="append",
        required=True,
        metavar=("CONFIG", "BENCHMARKS"),
        help="a finished run: its config file and the folder of its benchmark TSVs (repeatable)",
    )
    parser.add_argument(
        "--config", type=Path, action="append", required=True, help="config(s) to predict"
    )
    parser.add_argument("--startup", type=float, default=None, help="startup CPU s per job")
    parser.add_argument(
        "--against",
        type=Path,
        default=None,
        help="archive/<name> of a run of the last --config: measured time beside the prediction",
    )
    parser.add_argument(
        "--against-run",
        type=Path,
        default=None,
        help="logs/benchmarks of a run of the last --config, finished or not: job by job",
    )
    args = parser.parse_args(argv)
    runs = [(Path(c), Path(d)) for c, d in args.measured]
    for path in [*(c for c, _ in runs), *args.config]:
        if not path.is_file():
            raise SystemExit(f"config file {path} does not exist")
    run(runs, args.config, startup=args.startup, against=args.against, against_run=args.against_run)


if __name__ == "__main__":
    main()
