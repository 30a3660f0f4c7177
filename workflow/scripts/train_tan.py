"""Train every setting of one model of the TAN study on one fold, under one protocol.

Protocol ``test`` trains on the full training split and records the test error; ``validation``
trains on a stratified part of it and records the error on the held-out rest (for honest model
selection). The training subsample (``max_train_samples``) and the validation rows depend on the
dataset and fold only (``split_seed``), not on the model or protocol. Output:
``results/tan/<dataset>/<model>/fold=<k>/<protocol>.csv``, one row per setting, with the device
it trained on (``cuda`` or ``cpu``: a learned structure's runs differ between the two).
"""

import json
import logging
import os

import pandas as pd
import torch

from bnstudy.classifiers import retain_freed_memory
from bnstudy.data.prepared import load_prepared
from bnstudy.logs import configure_logging
from bnstudy.studies.tan.experiments import run_tan_experiments
from bnstudy.studies.tan.protocol import (
    expand_grid,
    load_mi_graphs,
    read_hparams,
    spec_id,
    training_split,
)
from bnstudy.utils import atomic_path, derive_seed, provenance

logger = logging.getLogger(__name__)


def training_device() -> str:
    """``"cuda"`` when a GPU is present, with torch's deterministic kernels; else ``"cpu"``.

    On a GPU, torch's default kernels for the backward of the models' gathers add by atomics, in
    an order that varies from run to run: two runs of the same job differ in their losses' last
    bits, and a learned structure's runs part within the first epoch (different parents after
    three epochs). With the deterministic kernels every run of a job gives the same output, as on
    the CPU, whose kernels are deterministic already and are left as they are
    (``benchmarks/check_tan_device.py`` shows both on a GPU).
    """
    if not torch.cuda.is_available():
        return "cpu"
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # before cuBLAS starts
    torch.use_deterministic_algorithms(True)
    return "cuda"


def main(
    inp,
    dest,
    *,
    dataset,
    model,
    fold,
    protocol,
    grid,
    hparams,
    settings,
    seed,
    split_seed,
    threads,
):
    """``hparams``: the path of the model's hyperparameter table, a list of paths to concatenate
    in order (``AB``), or None; ``split_seed``: the dataset and fold's (rows subsampled and held
    out); ``seed``: the job's (each setting's training seed derives from it)."""
    torch.set_num_threads(threads)
    retain_freed_memory()  # steps reuse their temporaries' pages; changes no result
    ds = load_prepared(inp["dataset"])
    split = training_split(
        ds.folds[fold],
        protocol=protocol,
        max_train_samples=settings["max_train_samples"],
        validation_fraction=settings["validation_fraction"],
        seed=split_seed,
    )
    n_states = ds.n_states[fold]
    mi = load_mi_graphs(inp["mi"])[fold] if "mi" in inp.keys() else None
    table = read_hparams(hparams)  # None for the closed-form models
    specs = expand_grid(model, grid, table, settings["learning_rates"])
    device = training_device()
    results = run_tan_experiments(
        specs,
        split,
        n_states,
        ds.n_classes,
        mi_graph=mi,
        image_shape=ds.image_shape,
        seed=[derive_seed(seed, spec_id(s)) for s in specs],
        device=device,
        n_epochs=settings["epochs"],
        batch_size=settings["batch_size"],
    )
    rows = [
        {
            **spec,
            "spec": spec_id(spec),
            "fold": fold,
            "protocol": protocol,
            "error": res["test_error"],
            "train_error": res["train_error"],
            "seconds": res["seconds"],
            "epochs": res["epochs"],
            "parents": json.dumps(list(map(int, res["parents"]))),
            "device": device,
        }
        for spec, res in zip(specs, results, strict=True)
    ]
    frame = pd.DataFrame(rows).assign(dataset=dataset, **provenance(seed))
    with atomic_path(dest) as tmp:
        frame.to_csv(tmp, index=False)
    logger.info(
        "%s %s fold %d (%s): %d settings, best error %.4f",
        dataset,
        model,
        fold,
        protocol,
        len(rows),
        frame["error"].min(),
    )


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input,
        snakemake.output.runs,
        dataset=snakemake.wildcards.dataset,
        model=snakemake.wildcards.model,
        fold=int(snakemake.wildcards.fold),
        protocol=snakemake.wildcards.protocol,
        grid=snakemake.params.grid,
        hparams=snakemake.params.hparams,
        settings=snakemake.params.settings,
        seed=snakemake.params.seed,
        split_seed=snakemake.params.split_seed,
        threads=snakemake.threads,
    )
