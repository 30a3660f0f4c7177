"""Time one EM E-step: bnstudy's batched junction tree against pgmpy 1.1.2's ExpectationMaximization.

Cases
-----
alarm
    HYPOVOLEMIA, LVEDVOLUME and STROKEVOLUME hidden, ``--samples`` forward samples (default 1000).
    Ours: one :meth:`bnstudy.inference.JunctionTree.expected_counts` call with the true CPTs, timed
    *warm* (tree compiled, distinct evidence rows cached: every EM iteration after the first) and
    *cold* (compile + deduplicate + call: the first iteration). pgmpy: one full
    ``ExpectationMaximization(...).get_parameters(max_iter=1)`` (initialisation, E-step, M-step) and
    its E-step alone (``_compute_weights``), on the data with the hidden columns removed and the
    hidden nodes declared latent.
pigs
    Hidden = the largest set of nodes with identical CPTs (296 nodes) and the second largest (the
    145 founders, the set Reed & Mengshoel hide), ``--pigs-samples`` samples (default 400). pgmpy
    enumerates every joint state of the latent nodes per distinct row (3**145 here); it is run in a
    child process with a time limit (``--pgmpy-timeout``) and an address-space limit, and reported as
    not finished when it exceeds either.
adapt
    adapt10_v7e with its largest identical-CPT set (99 nodes), ``--pigs-samples`` samples (ours only).

Run from the repository root::

    .venv/bin/python benchmarks/bench_estep.py --repeats 20 --pgmpy-repeats 3
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing as mp
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from timing import median_time

from bnstudy.inference import JunctionTree
from bnstudy.networks import DiscreteBayesianNetwork, forward_sample, load_network, samples_to_frame
from bnstudy.parameters.sharing import identical_cpt_sets

logger = logging.getLogger("bench_estep")

ALARM_HIDDEN = ["HYPOVOLEMIA", "LVEDVOLUME", "STROKEVOLUME"]


def _data(bn: DiscreteBayesianNetwork, n: int, seed: int) -> np.ndarray:
    return forward_sample(bn, n, rng=np.random.default_rng(seed))


def time_ours(
    bn: DiscreteBayesianNetwork, hidden: list[str], x: np.ndarray, repeats: int
) -> dict[str, float]:
    """Cold (compile + first call) and warm (cached evidence, true CPTs) E-step times."""

    def cold() -> None:
        jt = JunctionTree(bn, hidden)
        jt.expected_counts(x[:, [bn.index(v) for v in jt.observed_]], bn.cpts)

    t_cold = median_time(cold, max(1, min(repeats, 5))).median
    t0 = time.perf_counter()
    jt = JunctionTree(bn, hidden)
    t_compile = time.perf_counter() - t0
    ev = x[:, [bn.index(v) for v in jt.observed_]]
    jt.expected_counts(ev, bn.cpts)
    t_warm = median_time(lambda: jt.expected_counts(ev, bn.cpts), repeats).median
    counts, ll = jt.expected_counts(ev, bn.cpts)
    return {
        "hidden": len(jt.hidden_),
        "cliques": len(jt.cliques_),
        "treewidth": jt.treewidth_,
        "max_clique_size": jt.max_clique_size_,
        "distinct_rows": len(np.unique(ev, axis=0)),
        "compile_s": t_compile,
        "cold_s": t_cold,
        "warm_s": t_warm,
        "loglik": float(ll.sum()),
    }


def _pgmpy_estimator(bn: DiscreteBayesianNetwork, hidden: list[str], x: np.ndarray):
    """pgmpy's EM estimator on ``x`` without the hidden columns, hidden nodes latent."""
    from pgmpy.estimators import ExpectationMaximization
    from pgmpy.models import DiscreteBayesianNetwork as PgmpyBN

    model = PgmpyBN(bn.edges, latents=set(hidden))
    model.add_nodes_from(bn.nodes)
    frame = samples_to_frame(bn, x).drop(columns=hidden)
    observed = [v for v in bn.nodes if v not in set(hidden)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return ExpectationMaximization(
            model, frame, state_names={v: bn.state_names[v] for v in observed}
        )


def time_pgmpy(
    bn: DiscreteBayesianNetwork, hidden: list[str], x: np.ndarray, repeats: int
) -> dict[str, float]:
    """One full EM iteration (``max_iter=1``) and the E-step alone, median over ``repeats``."""
    latent_card = {h: bn.cardinality[h] for h in hidden}
    holder = {}

    def iteration() -> None:
        est = _pgmpy_estimator(bn, hidden, x)
        est.get_parameters(latent_card=latent_card, max_iter=1, seed=0, show_progress=False)
        holder["est"] = est

    t_iter = median_time(iteration, repeats).median
    est = holder["est"]  # its model_copy holds CPDs for every node, as inside get_parameters
    t_e = median_time(lambda: est._compute_weights(1, latent_card, 1000), repeats).median
    return {"iteration_s": t_iter, "estep_s": t_e}


def _pgmpy_child(path: str, hidden: list[str], n: int, seed: int, mem_bytes: int, queue) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
    try:
        bn = load_network(path)
        res = time_pgmpy(bn, hidden, _data(bn, n, seed), 1)
        queue.put(("ok", res))
    except MemoryError:
        queue.put(("memory", None))
    except Exception as exc:  # report any pgmpy failure as text
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


def time_pgmpy_limited(
    path: Path, hidden: list[str], n: int, seed: int, timeout: float, mem_gib: float
) -> str:
    """One pgmpy iteration in a child process, with a time and an address-space limit."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(
        target=_pgmpy_child, args=(str(path), hidden, n, seed, int(mem_gib * 2**30), queue)
    )
    t0 = time.perf_counter()
    proc.start()
    proc.join(timeout)
    elapsed = time.perf_counter() - t0
    if proc.is_alive():
        proc.terminate()
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        return f"did not finish within {timeout:.0f} s"
    if queue.empty():
        return f"child exited with code {proc.exitcode} after {elapsed:.1f} s"
    status, res = queue.get()
    if status == "ok":
        return f"iteration {res['iteration_s']:.2f} s, E-step {res['estep_s']:.2f} s"
    if status == "memory":
        return f"ran out of its {mem_gib:g} GiB address space after {elapsed:.1f} s"
    return f"failed after {elapsed:.1f} s: {res}"


def _row(name: str, r: dict[str, float]) -> str:
    return (
        f"{name:<24} hidden={r['hidden']:>3}  cliques={r['cliques']:>3}  tw={r['treewidth']:>2}  "
        f"maxclique={r['max_clique_size']:>5}  distinct={r['distinct_rows']:>4}  "
        f"compile={r['compile_s'] * 1e3:7.2f} ms  cold={r['cold_s'] * 1e3:8.2f} ms  "
        f"warm={r['warm_s'] * 1e3:8.2f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(
            os.environ.get(
                "BNSTUDY_DATA_MIRROR", Path(__file__).resolve().parents[2] / "shared" / "data"
            )
        ),
        help="data mirror with bif/ and adapt/ (default $BNSTUDY_DATA_MIRROR or ../shared/data)",
    )
    parser.add_argument("--repeats", type=int, default=20, help="repeats of our E-step (median)")
    parser.add_argument("--pgmpy-repeats", type=int, default=3, help="repeats of pgmpy's iteration")
    parser.add_argument("--samples", type=int, default=1000, help="alarm samples")
    parser.add_argument("--pigs-samples", type=int, default=400, help="pigs and ADAPT samples")
    parser.add_argument(
        "--pgmpy-timeout", type=float, default=60.0, help="seconds for pgmpy on pigs"
    )
    parser.add_argument(
        "--pgmpy-mem-gib", type=float, default=8.0, help="address space for pgmpy on pigs"
    )
    parser.add_argument("--skip-pgmpy", action="store_true", help="time bnstudy only")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("pgmpy").setLevel(logging.WARNING)  # its data-type notes are not results

    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPUs")
    # ---- alarm
    alarm_path = args.data / "bif" / "alarm.bif.gz"
    alarm = load_network(alarm_path)
    x = _data(alarm, args.samples, args.seed)
    ours = time_ours(alarm, ALARM_HIDDEN, x, args.repeats)
    print(f"\nalarm, hidden {ALARM_HIDDEN}, {args.samples} samples")
    print(_row("bnstudy JunctionTree", ours))
    if not args.skip_pgmpy:
        theirs = time_pgmpy(alarm, ALARM_HIDDEN, x, args.pgmpy_repeats)
        print(
            f"{'pgmpy 1.1.2 EM':<24} one iteration (max_iter=1) {theirs['iteration_s']:.3f} s, "
            f"E-step alone {theirs['estep_s']:.3f} s  (median of {args.pgmpy_repeats})"
        )
        print(
            f"speed-up: pgmpy iteration / ours warm = {theirs['iteration_s'] / ours['warm_s']:.0f}x, "
            f"pgmpy E-step / ours warm = {theirs['estep_s'] / ours['warm_s']:.0f}x, "
            f"pgmpy iteration / ours cold = {theirs['iteration_s'] / ours['cold_s']:.0f}x"
        )

    # ---- pigs
    pigs_path = args.data / "bif" / "pigs.bif.gz"
    pigs = load_network(pigs_path)
    xp = _data(pigs, args.pigs_samples, args.seed)
    groups = [g for g in identical_cpt_sets(pigs) if len(g) > 1]
    print(
        f"\npigs, {args.pigs_samples} samples; identical-CPT groups of sizes {[len(g) for g in groups]}"
    )
    for label, group in zip(["largest", "second (founders)"], groups[:2], strict=False):
        print(_row(f"bnstudy {label}", time_ours(pigs, group, xp, args.repeats)))
    if not args.skip_pgmpy:
        for label, group in zip(["largest", "second (founders)"], groups[:2], strict=False):
            combos = np.prod([float(pigs.cardinality[v]) for v in group])
            print(f"pgmpy enumerates {combos:.3g} latent joint states per distinct row ({label})")
            msg = time_pgmpy_limited(
                pigs_path,
                group,
                args.pigs_samples,
                args.seed,
                args.pgmpy_timeout,
                args.pgmpy_mem_gib,
            )
            print(f"{'pgmpy 1.1.2 EM ' + label:<24} {msg}")

    # ---- ADAPT
    adapt = load_network(args.data / "adapt" / "adapt10_v7e.net")
    xa = _data(adapt, args.pigs_samples, args.seed)
    groups = [g for g in identical_cpt_sets(adapt) if len(g) > 1]
    print(
        f"\nadapt10_v7e, {args.pigs_samples} samples; largest identical-CPT groups "
        f"{[len(g) for g in groups[:5]]}"
    )
    print(_row("bnstudy largest", time_ours(adapt, groups[0], xa, args.repeats)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
