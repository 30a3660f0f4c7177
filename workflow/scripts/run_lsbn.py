"""One structure-learning run of the LSBN paper: a global baseline or an LSBN-wrapped learner.

Outputs: ``structure.npz`` (the learned DAG ``adjacency`` and ``skeleton``, node names) and
``metrics.csv`` (one row: hit / additional / missing edges, precision, recall, F, run time of the
learning call, seed and provenance).

LSBN reads ROPART and the Markov blankets from the dataset's ``prepare_lsbn`` output and counts
their seconds in its run time, as if it had computed them. It makes its LocalLearn runs side by
side in the rule's ``threads`` processes (the same result for any number; the run time is then
wall-clock time over that many cores). The global baselines run in one process.
"""

import logging
import time

import numpy as np
import pandas as pd

from bnstudy.data.integrity import load_verified_npz
from bnstudy.logs import configure_logging
from bnstudy.metrics.structure import skeleton_metrics
from bnstudy.networks import load_network
from bnstudy.structure.lsbn import learn_global, lsbn
from bnstudy.studies.lsbn.prepared import load_prepared
from bnstudy.utils import atomic_path, provenance, save_npz

logger = logging.getLogger(__name__)


def main(
    network,
    samples,
    structure,
    metrics,
    *,
    name,
    framework,
    method,
    rep,
    seed,
    settings,
    prepared=None,
    threads=1,
):
    bn = load_network(network)
    data = load_verified_npz(samples)
    nodes = [str(v) for v in data["nodes"]]
    index = {v: i for i, v in enumerate(nodes)}
    true_edges = [(index[u], index[v]) for u, v in bn.edges]
    rng = np.random.default_rng(seed)
    phases = load_prepared(prepared) if prepared is not None else None
    start = time.perf_counter()
    if framework == "global":
        dag, skeleton = learn_global(data["samples"], method=method, rng=rng, **settings)
        extra = {}
    else:
        res = lsbn(
            data["samples"],
            local_learner=method,
            rng=rng,
            prepared=phases,
            n_jobs=int(threads),
            **settings,
        )
        dag, skeleton = res.adjacency, res.skeleton
        extra = {
            "n_communities": len(res.communities),
            "n_subcommunities": len(res.subcommunities),
            "n_conflicts": res.n_conflicts,
            "n_relearned": res.n_relearned,
            "n_local_calls": res.n_local_calls,
            **{f"time_{k}_s": v for k, v in res.timings.items()},
        }
    runtime = time.perf_counter() - start
    if phases is not None:  # ROPART and the blankets, computed by prepare_lsbn
        runtime += sum(phases.timings.values())
    row = skeleton_metrics(skeleton, true_edges, len(nodes))
    logger.info("%s %s on %s rep %s: %s, %.2f s", framework, method, name, rep, row, runtime)
    frame = pd.DataFrame(
        [
            {
                "network": name,
                "framework": framework,
                "method": method,
                "n_samples": len(data["samples"]),
                "rep": int(rep),
                **row,
                "runtime_s": runtime,
                **extra,
                **provenance(seed),
            }
        ]
    )
    save_npz(structure, adjacency=dag, skeleton=skeleton, nodes=np.array(nodes))
    with atomic_path(metrics) as tmp:
        frame.to_csv(tmp, index=False)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.network,
        snakemake.input.samples,
        snakemake.output.structure,
        snakemake.output.metrics,
        name=snakemake.wildcards.network,
        framework=snakemake.params.framework,
        method=snakemake.params.method,
        rep=snakemake.wildcards.rep,
        seed=snakemake.params.seed,
        settings=snakemake.params.settings,
        prepared=snakemake.input.get("prepared"),
        threads=snakemake.threads,
    )
