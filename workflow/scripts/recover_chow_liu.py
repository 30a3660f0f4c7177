"""Chow-Liu recovery on one dataset (see :mod:`bnstudy.studies.tan.recovery`).

With ``max_train`` set, fold ``k`` trains on the stratified subsample that ``train_tan`` draws for
that fold (``split_seeds[k]``): the same rows as the study's models when they keep as many.

Output: ``results/tan/recover_chow_liu/<dataset>.csv``, one row per fold, root and learning rate.
"""

import pandas as pd
import torch

from bnstudy.data.prepared import load_prepared
from bnstudy.logs import configure_logging
from bnstudy.studies.tan.protocol import load_mi_graphs
from bnstudy.studies.tan.recovery import recover_chow_liu
from bnstudy.utils import atomic_path, provenance


def main(dataset, mi_path, dest, *, seed, threads, **settings):
    torch.set_num_threads(threads)
    rows = recover_chow_liu(load_prepared(dataset), load_mi_graphs(mi_path), seed=seed, **settings)
    with atomic_path(dest) as tmp:
        pd.DataFrame(rows).assign(**provenance(seed)).to_csv(tmp, index=False)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.dataset,
        snakemake.input.mi,
        snakemake.output.runs,
        name=snakemake.wildcards.dataset,
        roots=snakemake.params.roots,
        learning_rates=snakemake.params.learning_rates,
        epochs=snakemake.params.epochs,
        batch_size=snakemake.params.batch_size,
        max_train=snakemake.params.max_train,
        max_folds=snakemake.params.max_folds,
        seed=snakemake.params.seed,
        split_seeds=snakemake.params.split_seeds,
        threads=snakemake.threads,
    )
