"""Benchmark: LSBN's Markov blankets and LocalLearn runs on this code against an earlier commit.

The CI tests behind IAMB (LSBN's Markov blankets), MMHC's MMPC and PC fold each conditioning set
into a compact key of the configurations that occur. This compares two copies of the library on
the same inputs in one run: this checkout's ``src`` and the ``src`` of ``--ref`` (default
``dc91d1e``, whose keys were compressed by sorting, :func:`numpy.unique`), exported with
``git archive``. Each copy runs in its own process (``PYTHONPATH`` pointing at it), alternating
copy by copy for ``--repeats`` rounds so that both see the same machine load.

Each process forward-samples ``--n`` rows of ``--network`` (fixed seed), runs LSBN's
learner-independent phases (:func:`bnstudy.structure.lsbn.prepare`: ROPART, then IAMB on every
node, "markov_blankets"), draws the sub-communities as an LSBN call does, and runs every
``--learners`` LocalLearn on the ``--runs`` largest distinct ones. Every blanket and every run's
skeleton and orientation votes must be equal bit for bit between the copies, or the script
exits 1. Times are process CPU seconds; printed per phase are the median of each copy and the
ratio reference / new (> 1: this code is faster).

Usage::

    .venv/bin/python benchmarks/bench_local_learn.py [--ref dc91d1e] [--network pigs]
        [--n 20000] [--learners mmhc pc] [--runs 4] [--repeats 3] [--config config/paper_cpu.yaml]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from against_ref import DATA_MIRROR, report, run_both

ROOT = Path(__file__).resolve().parents[1]
SEED = 20201229


def child(out: Path, args: argparse.Namespace) -> None:
    """Blankets and LocalLearn runs of one copy of the library; save results and CPU times."""
    import yaml

    from bnstudy.networks import forward_sample, load_network
    from bnstudy.structure.citests import as_discrete_data
    from bnstudy.structure.lsbn import (
        check_settings,
        learn_local,
        prepare,
        sample_subcommunities,
        settings_from_config,
    )

    settings = settings_from_config(yaml.safe_load(args.config.read_text())["lsbn"])
    bn = load_network(args.data / "bif" / f"{args.network}.bif.gz")
    x = forward_sample(bn, args.n, rng=np.random.default_rng(SEED))
    t0 = time.process_time()
    prep = prepare(x, **settings)
    times = {"prepare (ROPART + blankets)": time.process_time() - t0}
    arrays = {"blankets": prep.blankets}
    xk = x[:, prep.columns]
    data = as_discrete_data(xk, xk.max(axis=0) + 1)
    s = check_settings("pc", settings)
    w = prep.ropart.weights[s["mb_weight"]].astype(float).copy()
    np.fill_diagonal(w, np.nan)
    rng = np.random.default_rng(SEED)
    subs = {
        sub.tobytes(): sub
        for comm in prep.ropart.second_order
        for sub in sample_subcommunities(comm, prep.blankets, w, max_size=s["max_size"], rng=rng)
    }
    largest = sorted(subs.values(), key=lambda a: (-a.size, a.tolist()))[: args.runs]
    for learner in args.learners:
        ls = check_settings(learner, settings)
        t0 = time.process_time()
        for i, nodes in enumerate(largest):
            skel, votes = learn_local(data, nodes, learner, ls, np.random.default_rng(i))
            arrays[f"{learner}/{i}/skeleton"] = skel
            arrays[f"{learner}/{i}/votes"] = votes
        times[f"{learner} LocalLearn"] = (time.process_time() - t0) / len(largest)
    times["sizes"] = [int(a.size) for a in largest]
    np.savez(out.with_suffix(".npz"), **arrays)
    out.with_suffix(".json").write_text(json.dumps(times))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ref", default="dc91d1e")
    ap.add_argument("--network", default="pigs")
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--learners", nargs="+", default=["mmhc", "pc"])
    ap.add_argument("--runs", type=int, default=4, help="largest sub-communities learned")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--config", type=Path, default=ROOT / "config" / "paper_cpu.yaml")
    ap.add_argument("--data", type=Path, default=DATA_MIRROR, help="data mirror (with bif/)")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args)
        return 0
    times, differ, n_arrays = run_both(__file__, sys.argv[1:], args.ref, args.repeats)
    sizes = times["new"][0]["sizes"]
    print(
        f"{args.network}, {args.n} rows; LocalLearn on the {len(sizes)} largest sub-communities "
        f"(sizes {sizes}); {args.repeats} rounds; CPU seconds (median; LocalLearn per run)"
    )
    phases = [k for k in times["new"][0] if k != "sizes"]
    return report(times, phases, args.ref, differ, n_arrays)


if __name__ == "__main__":
    sys.exit(main())
