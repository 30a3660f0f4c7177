"""What a config's TAN runs cost on the device that ``bench_tan_training.py --json`` measured.

``cost_model.py`` predicts CPU-hours from a finished run's benchmark files; for the TAN runs that
only a GPU makes affordable (``paper.yaml``'s usps and mnist), no such run exists. This script
counts the config's training runs per dataset, structure and protocol (the settings of each
``train_tan`` job, as ``cost_model.py``'s :func:`~cost_model.tan_specs` counts them) and divides
them by the
paper runs per hour that ``bench_tan_training.py`` measured at one number of settings per batch:

- naive Bayes at its own rate, a fixed TAN (random TAN, Chow-Liu) at random TAN's;
- a learned structure (TAN Subset, TAN All, TAN Heuristic, pseudo TAN) at TAN Subset's, K = 8:
  an upper bound for smaller K, whose tables are fewer;
- the closed-form ML models (``nb_ml``, ``chow_liu_ml``) at no cost.

A run of the ``validation`` protocol trains on ``1 - validation_fraction`` of the rows, and
``epochs`` other than the benchmark's 500 scale the rate. The rates count training steps only
(no set-up, no evaluation), so the hours are a lower bound on what the jobs take.

Run from the repository root (``PYTHONPATH=src`` outside the installed environment), with the
``--json`` of a ``bench_tan_training.py`` run on the device, for example the throughput step of
``device_tan.sh``::

    python benchmarks/tan_gpu_cost.py --config config/paper.yaml --datasets bnc_usps mnist \\
        --rates OUT/throughput.json --settings 16
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd
import yaml
from bench_tan_training import SHAPES
from cost_model import _per, tan_specs

from bnstudy.data.registry import DATASETS

#: The shape of ``bench_tan_training.py`` that stands for each dataset of the study.
SHAPE_OF = {
    "bnc_letter": "letter",
    "bnc_satimage": "satimage",
    "bnc_usps": "usps",
    "mnist": "mnist",
}
#: The measured model whose rate each trained model of the study takes.
RATE_MODEL = {
    "nb": "nb",
    "tan_random": "tan_random",
    "chow_liu": "tan_random",
    **dict.fromkeys(("tan_subset", "tan_all", "tan_heuristic", "pseudo_tan"), "tan_subset"),
}
ML_MODELS = ("nb_ml", "chow_liu_ml")


def run_counts(config: dict, datasets: list[str]) -> pd.DataFrame:
    """Training runs of the config's ``tan`` block: one row per dataset, rate and protocol.

    ``rate`` is the measured model whose rate the runs take (:data:`RATE_MODEL`).
    """
    tan, rows = config["tan"], []
    for ds in datasets:
        folds = min(DATASETS[ds].folds, tan["max_folds"])  # the workflow's tan_folds
        for model, grid in tan["models"].items():
            if ds not in grid["datasets"] or model in ML_MODELS:
                continue
            n = tan_specs(config, model, ds)
            if model not in RATE_MODEL:
                raise ValueError(f"tan.models.{model}: no measured model stands for it")
            for protocol in tan["protocols"]:
                rows.append(
                    {"dataset": ds, "rate": RATE_MODEL[model], "protocol": protocol,
                     "runs": n * folds}
                )  # fmt: skip
    if not rows:
        raise ValueError(f"no TAN training runs on {datasets} in this config")
    return pd.DataFrame(rows).groupby(["dataset", "rate", "protocol"], as_index=False).sum()


def read_rates(path: Path, settings: int) -> tuple[dict[tuple[str, str], float], list[str]]:
    """``(shape, model) -> paper runs per hour`` at ``settings`` settings, from ``--json``, and
    the devices they were measured on."""
    results = [r for r in json.loads(path.read_text()) if "paper_runs_per_hour" in r]
    rates = {
        (r["shape"], r["model"]): r["paper_runs_per_hour"] for r in results if r["S"] == settings
    }
    if not rates:
        raise ValueError(f"{path}: no batched-vs-sequential result at {settings} settings")
    return rates, sorted({r["device"] for r in results})


def gpu_hours(counts: pd.DataFrame, rates: dict, tan: dict) -> pd.DataFrame:
    """Hours per row of ``counts``: runs times their share of the rows over the measured rate."""
    out = counts.copy()
    share = out["protocol"].map(
        lambda p: 1 - tan["validation_fraction"] if p == "validation" else 1
    )
    epochs = out["dataset"].map(lambda d: float(_per(tan["epochs"], d)))
    keys = [(SHAPE_OF[d], m) for d, m in zip(out["dataset"], out["rate"], strict=True)]
    missing = sorted(set(keys) - set(rates))
    if missing:
        raise ValueError(f"no measured rate for (shape, model) {missing}")
    per_hour = pd.Series([rates[key] for key in keys], index=out.index)
    out["hours"] = out["runs"] * share * (epochs / 500) / per_hour
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--datasets", nargs="+", required=True, choices=SHAPE_OF)
    parser.add_argument("--rates", type=Path, required=True, help="bench_tan_training.py --json")
    parser.add_argument("--settings", type=int, default=16, help="settings per batch measured")
    args = parser.parse_args(argv)
    config = yaml.safe_load(args.config.read_text())
    rates, devices = read_rates(args.rates, args.settings)
    table = gpu_hours(run_counts(config, args.datasets), rates, config["tan"])
    print(
        f"{args.config}: TAN training runs of {', '.join(args.datasets)}, at the rates of "
        f"{args.rates} ({', '.join(devices)}, {args.settings} settings per batch)"
    )
    print(table.to_string(index=False, float_format=lambda v: f"{v:,.1f}"))
    by = table.groupby(["dataset", "rate"])[["runs", "hours"]].sum()
    print("\n" + by.to_string(float_format=lambda v: f"{v:,.0f}"))
    print(f"\ntotal: {table['runs'].sum():,} runs, {table['hours'].sum():,.1f} hours")
    # the shapes' training rows the rates assume, for the reader to check against the data
    rows = {SHAPE_OF[d]: SHAPES[SHAPE_OF[d]][3] for d in args.datasets}
    print(f"training rows per run (test protocol) as measured: {rows}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
