"""CPU seconds per run and epoch of the TAN study's training, the basis of paper_cpu.yaml's grid.

For each prepared dataset given and each model (nb, tan_random, tan_subset with K = 8, tan_all),
trains ``--runs`` specs of the authors' first hyperparameter draws as ``train_tan`` does
(:func:`bnstudy.studies.tan.experiments.run_tan_experiments`, batched over the specs, one torch
thread, fold 0, all training rows, the paper's batch size) for ``--epochs`` epochs, and prints
the process CPU time divided by runs x epochs. A paper-scale job then costs about this rate x
500 epochs x runs x (1 + 0.8 for the validation protocol), per fold.

    python benchmarks/tan_epoch_cost.py resources/datasets/bnc_letter.npz \\
        resources/datasets/bnc_satimage.npz

This is a cost measurement, not a speed claim: it compares nothing.
"""

import argparse
import json
import time
from pathlib import Path

import pandas as pd
import torch

from bnstudy.data.prepared import load_prepared
from bnstudy.studies.tan.experiments import run_tan_experiments
from bnstudy.studies.tan.protocol import expand_grid

HPARAMS = Path(__file__).resolve().parents[1] / "workflow" / "published"
BATCH = {"bnc_satimage": 50, "bnc_letter": 100, "bnc_usps": 100, "mnist": 250}
MODELS = {
    "nb": ({"orderings": None}, "A"),
    "tan_random": ({"orderings": [0], "draws": [0]}, "B"),
    "tan_subset": ({"K": [8], "orderings": [0], "draws": [0]}, "B"),
    "tan_all": ({"orderings": [0]}, "A"),
}


def _train(data, model, grid, which, epochs, name):
    table = pd.read_csv(HPARAMS / f"tan_hparams_set{which}.csv")
    specs = expand_grid(model, grid, table, [3e-3])
    run_tan_experiments(
        specs,
        data.folds[0],
        data.n_states[0],
        data.n_classes,
        mi_graph=None,
        image_shape=data.image_shape,
        seed=list(range(len(specs))),
        device="cpu",
        n_epochs=epochs,
        batch_size=BATCH[name],
    )
    return specs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", help="prepared dataset files (name = file stem)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--runs", type=int, default=4, help="specs trained together")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    for path in args.datasets:
        name = Path(path).stem
        data = load_prepared(path)
        _train(data, "nb", {"settings": 1}, "A", 1, name)  # warm-up: torch's first-call costs
        for model, (grid, which) in MODELS.items():
            grid = {k: v for k, v in grid.items() if v is not None} | {"settings": args.runs}
            cpu, wall = time.process_time(), time.perf_counter()
            specs = _train(data, model, grid, which, args.epochs, name)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            row = {"dataset": name, "model": model, "runs": len(specs), "epochs": args.epochs}
            row |= {"cpu_s": round(cpu, 2), "wall_s": round(wall, 2)}
            row["cpu_s_per_run_epoch"] = round(cpu / len(specs) / args.epochs, 3)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
