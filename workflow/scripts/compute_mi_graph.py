"""Conditional mutual-information graphs I(Xi;Xj|C) of a prepared dataset, one per fold.

Output: ``results/tan/mi/<dataset>.npz`` (the edge weights of Chow-Liu TANs).
"""

import logging

from bnstudy.classifiers.structures import conditional_mutual_information
from bnstudy.data.prepared import load_prepared
from bnstudy.logs import configure_logging
from bnstudy.studies.tan.protocol import save_mi_graphs

logger = logging.getLogger(__name__)


def main(dataset: str, dest: str) -> None:
    ds = load_prepared(dataset)
    graphs = [
        conditional_mutual_information(f.x_train, f.y_train, n_states, ds.n_classes)
        for f, n_states in zip(ds.folds, ds.n_states, strict=True)
    ]
    save_mi_graphs(dest, graphs)
    logger.info("%s: %d MI graph(s) of %d features", ds.name, len(graphs), ds.n_features)


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(snakemake.input.dataset, snakemake.output.mi)
