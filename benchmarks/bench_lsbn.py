"""Benchmark: LSBN against the same baseline run globally, on a large network (link by default).

For ``--network``, ``--n`` rows are forward-sampled with a fixed seed. The learner-independent
phases of LSBN, ROPART and the Markov blankets (:func:`bnstudy.structure.lsbn.prepare`), are
computed once and timed. Then, for every method of ``--methods``, once each (these runs take
minutes): the baseline on all variables (in a subprocess with a timeout, ``--global-timeout``;
model averaging has no global run, as in the paper) and LSBN with it as LocalLearn. LSBN's time
counts the shared phases as well, as a workflow job computes them. The settings are the ``lsbn``
section of ``--config`` (default ``config/config.yaml``).

Printed per method: seconds of the global run and of LSBN, the ratio global / LSBN (> 1: LSBN is
faster), skeleton precision, recall and F of both, and LSBN's LocalLearn seconds, run count and
conflicts.

Usage::

    .venv/bin/python benchmarks/bench_lsbn.py [--network link] [--n 20000]
        [--methods pc aracne hill_climb mmhc model_averaging] [--config config/config.yaml]
        [--global-timeout 1800] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
import yaml
from timed_script import run_json_script

from bnstudy.metrics.structure import skeleton_metrics
from bnstudy.networks import forward_sample, load_network
from bnstudy.structure.lsbn import LOCAL_LEARNERS, lsbn, prepare, settings_from_config

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("BNSTUDY_DATA_MIRROR", ROOT.parent / "shared" / "data"))
SEED = 20240601

GLOBAL_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    import numpy as np
    from bnstudy.structure.lsbn import learn_global
    x = np.load(sys.argv[1])
    settings = json.loads(sys.argv[3])
    t0 = time.perf_counter()
    _, skel = learn_global(x, method=sys.argv[2], rng=np.random.default_rng(0), **settings)
    seconds = time.perf_counter() - t0
    iu, ju = np.nonzero(np.triu(skel, 1))
    print(json.dumps({"seconds": seconds, "edges": np.column_stack([iu, ju]).tolist()}))
    """
)


def _global(x_path: Path, method: str, settings: dict, timeout: float):
    """Seconds and skeleton edges of one global baseline in a subprocess; (None, None) on timeout."""
    res = run_json_script(GLOBAL_SCRIPT, [x_path, method, json.dumps(settings)], timeout)
    if res is None:
        return None, None
    return res["seconds"], np.array(res["edges"], dtype=np.int64).reshape(-1, 2)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--network", default="link")
    parser.add_argument("--n", type=int, default=20000, help="forward samples")
    parser.add_argument("--methods", nargs="+", default=list(LOCAL_LEARNERS))
    parser.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml")
    parser.add_argument("--global-timeout", type=float, default=1800.0, help="seconds per run")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="data mirror (with bif/)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.methods) - set(LOCAL_LEARNERS))
    if unknown:
        parser.error(f"unknown method(s) {unknown}; expected some of {LOCAL_LEARNERS}")

    settings = settings_from_config(yaml.safe_load(args.config.read_text())["lsbn"])
    bn = load_network(args.data / "bif" / f"{args.network}.bif.gz")
    p = len(bn.nodes)
    idx = {v: i for i, v in enumerate(bn.nodes)}
    true = [(idx[u], idx[v]) for u, v in bn.edges]
    x = forward_sample(bn, args.n, rng=np.random.default_rng(SEED))

    def prf(skel: np.ndarray) -> str:
        m = skeleton_metrics(skel, true, p)
        return f"{m['precision']:.3f}/{m['recall']:.3f}/{m['f_score']:.3f}"

    t0 = time.perf_counter()
    prepared = prepare(x, **settings)
    print(
        f"LSBN on {args.network} ({p} variables, {args.n} rows, seed {SEED}), settings of "
        f"{args.config.name}; shared phases once: ROPART {prepared.timings['ropart']:.1f} s, "
        f"Markov blankets {prepared.timings['markov_blankets']:.1f} s "
        f"({time.perf_counter() - t0:.1f} s)",
        flush=True,
    )
    print(
        f"{'method':<16} {'global s':>9} {'LSBN s':>8} {'global/LSBN':>11} "
        f"{'P/R/F global':>18} {'P/R/F LSBN':>18} {'LocalLearn s':>12} {'runs':>6} {'conflicts':>9}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        x_path = Path(tmp) / "samples.npy"
        np.save(x_path, x)
        for method in args.methods:
            secs, edges = (None, None)
            if method != "model_averaging":
                secs, edges = _global(x_path, method, settings, args.global_timeout)
            res = lsbn(
                x,
                local_learner=method,
                rng=np.random.default_rng(SEED),
                prepared=prepared,
                **settings,
            )
            t_lsbn = res.timings["total"]
            if method == "model_averaging":
                g_s, ratio, g_prf = "NA", "NA", "NA"
            elif secs is None:
                g_s = f">{args.global_timeout:.0f}"
                ratio = f">{args.global_timeout / t_lsbn:.2f}x"
                g_prf = "-"
            else:
                skel = np.zeros((p, p), dtype=bool)
                skel[edges[:, 0], edges[:, 1]] = True
                g_s, ratio, g_prf = f"{secs:.1f}", f"{secs / t_lsbn:.2f}x", prf(skel | skel.T)
            print(
                f"{method:<16} {g_s:>9} {t_lsbn:>8.1f} {ratio:>11} {g_prf:>18} "
                f"{prf(res.skeleton):>18} {res.timings['local_learn']:>12.1f} "
                f"{res.n_local_calls:>6} {res.n_conflicts:>9}",
                flush=True,
            )


if __name__ == "__main__":
    main()
