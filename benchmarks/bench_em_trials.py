"""Benchmark: the EM sharing trials on this code against an earlier commit, same inputs.

Reed & Mengshoel (2014), Sec. 5.3.2 (Table 3): EM with gradual sharing of a hidden set, as the
``run_em_sharing`` jobs of ``workflow/rules/em.smk`` run it at paper scale
(``config/paper_cpu.yaml``: pigs hides its 145 root nodes, ADAPT the 99 nodes of its largest
identical-CPT set; levels of shared nodes, random starts, tolerance 1e-3, at most 100
iterations). For each network the design (:func:`bnstudy.studies.em.runner.trial_design`) and
``--n`` forward samples are drawn from fixed seeds, and
:func:`bnstudy.studies.em.trials.run_em_trials` runs ``--trials`` random starts at the first
``--levels`` sharing levels, with the error trace of every iteration, as the jobs do.

Two copies of the library run it: this checkout's ``src`` and the ``src`` of ``--ref`` (default
``d567971``, where the M-step normalised, and the error metric and log-prior summed, one CPT at
a time), exported with ``git archive``, each in its own process, alternating for ``--repeats``
rounds. Every trial's row (but its wall-clock ``seconds``) and the log-likelihood and error
traces must be equal bit for bit between the copies, or the script exits 1. Printed: process CPU
seconds per EM fit (median over rounds) of each copy, and their ratio reference / new.

Usage::

    .venv/bin/python benchmarks/bench_em_trials.py [--ref d567971] [--networks pigs adapt]
        [--n 400] [--trials 2] [--levels 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from against_ref import DATA_MIRROR, report, run_both

# config/paper_cpu.yaml's em block (the sharing design and the EM settings)
EM = {
    "tol": 1.0e-3,
    "min_iter": 3,
    "max_iter": 100,
    "pseudo_count": 1.0,
    "error_metric": "l2_per_row_sum",
    "sharing": {
        "hidden_group": {"pigs": 2, "adapt": 1},
        "first": {"pigs": 10, "adapt": 2},
        "step": {"pigs": 15, "adapt": 4},
    },
}
FILES = {"pigs": "bif/pigs.bif.gz", "adapt": "adapt/adapt10_v7e.net"}


def child(out: Path, data_dir: Path, networks: list[str], n: int, trials: int, levels: int):
    """Run the trials of each network; save every trial's results and the CPU per fit."""
    from bnstudy.networks import forward_sample, load_network
    from bnstudy.studies.em.runner import job_design, trial_design
    from bnstudy.studies.em.trials import EMSettings, run_em_trials

    settings = EMSettings.from_config(EM)
    times, arrays = {}, {}
    for name in networks:
        bn = load_network(data_dir / FILES[name])
        data = forward_sample(bn, n, rng=np.random.default_rng(n))
        plan = trial_design(bn, job_design("sharing", EM, {"network": name}), seed=1)
        t0 = time.process_time()
        frame, traces = run_em_trials(
            bn, data, plan.hidden, plan.levels[:levels], n_trials=trials, seed=2, settings=settings
        )
        times[name] = (time.process_time() - t0) / len(frame)
        frame = frame.drop(columns="seconds")
        for col in frame.columns:
            arrays[f"{name}/{col}"] = frame[col].to_numpy()
        arrays |= {f"{name}/trace_{k}": v for k, v in traces.items()}
    np.savez(out.with_suffix(".npz"), **arrays)
    out.with_suffix(".json").write_text(json.dumps(times))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ref", default="d567971")
    ap.add_argument(
        "--data",
        type=Path,
        default=DATA_MIRROR,
        help="data mirror with bif/ and adapt/ (default $BNSTUDY_DATA_MIRROR or ../shared/data)",
    )
    ap.add_argument("--networks", nargs="+", choices=sorted(FILES), default=["pigs", "adapt"])
    ap.add_argument("--n", type=int, default=400, help="samples (the paper: 25 to 400)")
    ap.add_argument("--trials", type=int, default=2, help="random starts per level")
    ap.add_argument("--levels", type=int, default=3, help="the first sharing levels")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.data, args.networks, args.n, args.trials, args.levels)
        return 0
    argv = ["--data", str(args.data.resolve()), "--n", str(args.n), "--trials", str(args.trials)]
    argv += ["--levels", str(args.levels), "--networks", *args.networks]
    times, differ, n_arrays = run_both(__file__, argv, args.ref, args.repeats)
    print(
        f"EM sharing trials: n = {args.n}, {args.trials} starts x {args.levels} levels per "
        f"network, {args.repeats} rounds; CPU seconds per EM fit (median); "
        f"{n_arrays} arrays compared"
    )
    return report(times, args.networks, args.ref, differ, n_arrays)


if __name__ == "__main__":
    sys.exit(main())
