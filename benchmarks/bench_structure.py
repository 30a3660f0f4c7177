"""Benchmark: the global structure-learning baselines of LSBN against pgmpy's and pyAgrum's.

For each network, ``--n`` rows (default 20000) are forward-sampled with a fixed seed. Ours, timed
``--repeats`` times in this process (median): ARACNE (``tau=0``), PC (``variant="orig"``, the
algorithm pgmpy's ``variant="stable"`` runs, and PC-stable), hill climbing with BDeu(10) (the
study's default: tabu search from two tie-breaking orders, "HC BDeu"; and plain greedy steps from
one, pyAgrum's algorithm, "HC greedy") and MMHC. pgmpy 1.1.2, once each in a subprocess with
``PYTHONHASHSEED=0`` and a timeout
(``--pgmpy-timeout``): ``PC.estimate(variant="stable", ci_test="g_sq", significance_level=0.01)``,
``HillClimbSearch.estimate(scoring_method=BDeu(10))`` and ``MmhcEstimator.estimate()``. Data
preparation (sampling, the pgmpy DataFrame) is not timed; our times include data validation.
pyAgrum 3.3.1 (C++; ``pip install -e '.[bench]'``), in this process, median of ``--repeats``:
``BNLearner`` reading a CSV of the same rows (reading not timed), ``usePC`` with ``useG2Test``,
alpha 0.01 and the same conditioning bound (its PC is PC-stable), and ``useGreedyHillClimbing``
with ``useScoreBDeu`` (its BDeu score's own prior; pyAgrum rejects an added BDeu prior), on
``--pyagrum-threads`` threads (default 1, as ours: on a shared machine more threads only add
contention), each in a subprocess with a timeout (``--pyagrum-timeout``). Without
pyAgrum installed its columns say so; ``--skip-pyagrum`` leaves them out.

Printed per method: median seconds, the ratio pgmpy / ours (``>`` when pgmpy timed out), pyAgrum's
seconds and the ratio ours / pyAgrum, skeleton F1 against the true network for all three, and the
agreement: PC skeletons compared edge by edge (our PC uses pgmpy's test for this: G² with Yates'
correction on 2 x 2 strata, see :mod:`bnstudy.structure.citests`), hill climbing by our BDeu(10)
score of each result.

Usage::

    .venv/bin/python benchmarks/bench_structure.py [--networks alarm pigs] [--n 20000]
        [--repeats 3] [--pgmpy-timeout 300] [--skip-pgmpy] [--skip-pyagrum]
        [--pyagrum-threads 1] [--pyagrum-timeout 600] [--data DIR]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import textwrap
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
from timed_script import run_json_script
from timing import median_time

from bnstudy.metrics.structure import skeleton_metrics
from bnstudy.networks import forward_sample, load_network
from bnstudy.structure.aracne import aracne
from bnstudy.structure.citests import as_discrete_data
from bnstudy.structure.hill_climb import hill_climb
from bnstudy.structure.mmhc import mmhc
from bnstudy.structure.pc import pc_skeleton
from bnstudy.structure.scores import BDeuScore

DEFAULT_DATA = Path(
    os.environ.get(
        "BNSTUDY_DATA_MIRROR", Path(__file__).resolve().parents[1].parent / "shared" / "data"
    )
)
SEED = 20240601
# Conditioning-set bound of PC for both libraries: pgmpy's default (5) on alarm; 3 on pigs, where
# a variable with 41 neighbours makes 5 exponentially expensive (our PC's default is 3).
PC_MAX_COND = {"alarm": 5, "pigs": 3}

PGMPY_SCRIPT = textwrap.dedent(
    """
    import json, sys, time, warnings
    import numpy as np
    warnings.simplefilter("ignore")
    from bnstudy.networks import load_network, samples_to_frame
    from pgmpy.estimators import BDeu, HillClimbSearch, MmhcEstimator, PC
    bn = load_network(sys.argv[1])
    frame = samples_to_frame(bn, np.load(sys.argv[2]))
    method, max_cond = sys.argv[3], int(sys.argv[4])
    t0 = time.perf_counter()
    if method == "pc":
        graph, _ = PC(frame).estimate(
            variant="stable", ci_test="g_sq", significance_level=0.01, max_cond_vars=max_cond,
            return_type="skeleton", show_progress=False,
        )
    elif method == "hc":
        graph = HillClimbSearch(frame).estimate(
            scoring_method=BDeu(frame, equivalent_sample_size=10), show_progress=False
        )
    else:
        graph = MmhcEstimator(frame).estimate()
    seconds = time.perf_counter() - t0
    idx = {v: i for i, v in enumerate(bn.nodes)}
    print(json.dumps({"seconds": seconds, "edges": [[idx[u], idx[v]] for u, v in graph.edges()]}))
    """
)


def _run_pgmpy(
    bif: Path, samples: Path, method: str, max_cond: int, timeout: float
) -> tuple[float | None, np.ndarray | None]:
    """Seconds and edge list of one pgmpy estimator in a subprocess; (None, None) on timeout."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    res = run_json_script(PGMPY_SCRIPT, [bif, samples, method, max_cond], timeout, env=env)
    if res is None:
        return None, None
    return res["seconds"], np.array(res["edges"], dtype=np.int64).reshape(-1, 2)


PYAGRUM_SCRIPT = textwrap.dedent(
    """
    import json, statistics, sys, time
    import pyagrum as gum
    csv, method, max_cond, repeats, threads = sys.argv[1:6]
    gum.setNumberOfThreads(int(threads))
    times = []
    for _ in range(int(repeats)):
        learner = gum.BNLearner(csv)  # reads the CSV: not timed
        t0 = time.perf_counter()
        if method == "pc":
            learner.usePC()
            learner.useG2Test()
            learner.setPCAlpha(0.01)
            learner.setPCMaxCondSetSize(int(max_cond))
            graph = learner.learnPDAG()
            pairs = list(graph.arcs()) + list(graph.edges())
        else:
            learner.useGreedyHillClimbing()
            learner.useScoreBDeu()
            learner.useNoPrior()
            graph = learner.learnBN()
            pairs = list(graph.arcs())
        times.append(time.perf_counter() - t0)
    # pyAgrum's node ids follow the CSV's column order
    print(json.dumps({"seconds": statistics.median(times), "edges": [list(e) for e in pairs]}))
    """
)


def _pyagrum_learners(
    x: np.ndarray, max_cond: int, args: argparse.Namespace
) -> dict[str, tuple[float | None, np.ndarray | None]] | str:
    """Median seconds and adjacency of pyAgrum's PC and greedy BDeu search, each in a subprocess
    with a timeout ((None, None) when it runs out); a reason if pyAgrum is absent."""
    try:
        import pyagrum  # noqa: F401
    except ImportError:
        return "not installed (pip install -e '.[bench]')"
    p = x.shape[1]
    names = [f"v{i}" for i in range(p)]
    out: dict[str, tuple[float | None, np.ndarray | None]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "samples.csv"
        np.savetxt(csv, x, fmt="%d", delimiter=",", header=",".join(names), comments="")
        for method in ("pc", "hc"):
            run_args = [csv, method, max_cond, args.repeats, args.pyagrum_threads]
            res = run_json_script(PYAGRUM_SCRIPT, run_args, args.pyagrum_timeout)
            if res is None:
                out[method] = (None, None)
                print(f"  pyAgrum {method}: timeout", flush=True)
                continue
            edges = np.array(res["edges"], dtype=np.int64).reshape(-1, 2)
            out[method] = (res["seconds"], _adjacency(edges, p))
    return out


def _adjacency(edges: np.ndarray, p: int) -> np.ndarray:
    adj = np.zeros((p, p), dtype=bool)
    if len(edges):
        adj[edges[:, 0], edges[:, 1]] = True
    return adj


def bench_network(name: str, args: argparse.Namespace) -> list[dict[str, object]]:
    """All methods on one network; one row per method."""
    bif = args.data / "bif" / f"{name}.bif.gz"
    bn = load_network(bif)
    p = len(bn.nodes)
    idx = {v: i for i, v in enumerate(bn.nodes)}
    true = _adjacency(np.array([[idx[u], idx[v]] for u, v in bn.edges]), p)
    x = forward_sample(bn, args.n, rng=np.random.default_rng(SEED))
    cards = [bn.cardinality[v] for v in bn.nodes]
    max_cond = PC_MAX_COND.get(name, 3)
    f1 = lambda g: skeleton_metrics(g, true)["f_score"]  # noqa: E731
    rows: list[dict[str, object]] = []

    def ours(fn: Callable[[], np.ndarray]) -> tuple[float, np.ndarray]:
        timing = median_time(fn, args.repeats)
        return timing.median, timing.result  # type: ignore[return-value]

    t, g = ours(lambda: aracne(x, cards=cards))
    rows.append({"method": "ARACNE", "ours": t, "f1": f1(g)})

    t_orig, g_orig = ours(
        lambda: pc_skeleton(
            x, cards=cards, alpha=0.01, max_cond_vars=max_cond, variant="orig", correction=True
        )[0]
    )
    t_stab, g_stab = ours(
        lambda: pc_skeleton(x, cards=cards, alpha=0.01, max_cond_vars=max_cond, variant="stable")[0]
    )
    score = BDeuScore(as_discrete_data(x, cards))
    t_hc, g_hc = ours(lambda: hill_climb(x, cards=cards))
    t_gr, g_gr = ours(lambda: hill_climb(x, cards=cards, tabu_length=0, patience=0, restarts=1))
    t_mm, g_mm = ours(lambda: mmhc(x, cards=cards))

    theirs: dict[str, tuple[float | None, np.ndarray | None]] = {}
    if not args.skip_pgmpy:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "samples.npy"
            np.save(path, x)
            for method in ("pc", "hc", "mmhc"):
                secs, edges = _run_pgmpy(bif, path, method, max_cond, args.pgmpy_timeout)
                theirs[method] = (secs, None if edges is None else _adjacency(edges, p))
                print(f"  pgmpy {method} on {name}: {secs if secs else 'timeout'}", flush=True)
    agrum = {} if args.skip_pyagrum else _pyagrum_learners(x, max_cond, args)
    if isinstance(agrum, str):
        print(f"  pyAgrum: {agrum}", flush=True)
        agrum = {}

    def row(
        method: str, t: float, g: np.ndarray, key: str, agree: Callable, agrum_key: str = ""
    ) -> dict:
        secs, gp = theirs.get(key, (None, None))
        t_agrum, ga = agrum.get(agrum_key, (None, None))
        notes = [] if gp is None else [agree(g, gp)]
        if ga is not None and agrum_key == "hc":
            notes.append(f"BDeu ours {score.score(g):.1f} vs pyAgrum {score.score(ga):.1f}")
        elif ga is not None:
            diff = int(np.triu((g | g.T) != (ga | ga.T), 1).sum())
            notes.append(f"{diff} edges differ from pyAgrum's")
        return {
            "method": method,
            "ours": t,
            "pgmpy": secs,
            "pyagrum": t_agrum,
            "pyagrum_timed_out": agrum_key in agrum and t_agrum is None,
            "f1": f1(g),
            "f1_pgmpy": None if gp is None else f1(gp),
            "f1_pyagrum": None if ga is None else f1(ga),
            "agreement": "; ".join(notes),
        }

    def same_skeleton(g: np.ndarray, gp: np.ndarray) -> str:
        diff = int(np.triu((g | g.T) != (gp | gp.T), 1).sum())
        return "skeleton equal" if diff == 0 else f"{diff} edges differ"

    def by_score(g: np.ndarray, gp: np.ndarray) -> str:
        return f"BDeu ours {score.score(g):.1f} vs pgmpy {score.score(gp):.1f}"

    rows.append(row("PC (orig)", t_orig, g_orig, "pc", same_skeleton))
    rows.append(row("PC-stable", t_stab, g_stab, "", same_skeleton, agrum_key="pc"))
    rows.append(row("HC BDeu", t_hc, g_hc, "hc", by_score))
    rows.append(row("HC greedy", t_gr, g_gr, "", by_score, agrum_key="hc"))
    rows.append(row("MMHC", t_mm, g_mm, "mmhc", same_skeleton))
    for r in rows:
        r["network"] = name
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--networks", nargs="+", default=["alarm", "pigs"])
    parser.add_argument("--n", type=int, default=20000, help="forward samples")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of our learners")
    parser.add_argument("--pgmpy-timeout", type=float, default=300.0, help="seconds per call")
    parser.add_argument("--skip-pgmpy", action="store_true")
    parser.add_argument("--skip-pyagrum", action="store_true")
    parser.add_argument(
        "--pyagrum-threads", type=int, default=1, help="pyAgrum's threads (ours use one)"
    )
    parser.add_argument("--pyagrum-timeout", type=float, default=600.0, help="seconds per call")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="data mirror (with bif/)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", FutureWarning)

    print(
        f"structure learning, n = {args.n} (seed {SEED}); median seconds of ours "
        f"(x{args.repeats}), pgmpy x1 (timeout {args.pgmpy_timeout:.0f} s), pyAgrum "
        f"x{args.repeats}; 'pgmpy/ours' > 1 and 'ours/agrum' < 1 mean ours is faster"
    )
    header = (
        f"{'network':<8} {'method':<10} {'ours s':>8} {'pgmpy s':>9} {'pgmpy/ours':>10} "
        f"{'agrum s':>8} {'ours/agrum':>10} {'F1 ours':>8} {'F1 pgmpy':>9} {'F1 agrum':>9}"
        "  agreement"
    )
    print(header, flush=True)
    for name in args.networks:
        for r in bench_network(name, args):
            secs = r.get("pgmpy")
            if "pgmpy" not in r or args.skip_pgmpy:
                pg, ratio = "-", "-"
            elif secs is None and r["method"] in ("PC (orig)", "HC BDeu", "MMHC"):
                pg = f">{args.pgmpy_timeout:.0f}"
                ratio = f">{args.pgmpy_timeout / r['ours']:.0f}x"
            elif secs is None:
                pg, ratio = "-", "-"
            else:
                pg, ratio = f"{secs:.2f}", f"{secs / r['ours']:.1f}x"
            f1p = "-" if r.get("f1_pgmpy") is None else f"{r['f1_pgmpy']:.3f}"
            ta = r.get("pyagrum")
            ag, ag_ratio = ("-", "-") if ta is None else (f"{ta:.3f}", f"{r['ours'] / ta:.2f}x")
            if r.get("pyagrum_timed_out"):
                ag = f">{args.pyagrum_timeout:.0f}"
                ag_ratio = f"<{r['ours'] / args.pyagrum_timeout:.2f}x"
            f1a = "-" if r.get("f1_pyagrum") is None else f"{r['f1_pyagrum']:.3f}"
            print(
                f"{r['network']:<8} {r['method']:<10} {r['ours']:>8.3f} {pg:>9} {ratio:>10} "
                f"{ag:>8} {ag_ratio:>10} {r['f1']:>8.3f} {f1p:>9} {f1a:>9}  "
                f"{r.get('agreement', '')}",
                flush=True,
            )


if __name__ == "__main__":
    main()
