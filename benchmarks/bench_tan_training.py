"""Training throughput of differentiable TAN Subset (K = 8) on mnist-sized data.

Data: synthetic, 196 features (14 x 14 mnist), 10 classes, each feature with 2..15 states (drawn
once), states and labels uniform at random. Throughput does not depend on the values, only on
the shapes: D = 196, C = K + 1 = 9 candidate parents per feature, batch size 250 (the paper's
mnist setting), states up to 15 (the authors' 14 x 14 mnist has at least one feature with >= 15
states, targets.md A.4).

Cases
-----
vectorized
    bnstudy's :func:`bnstudy.classifiers.train_classifier`: one ``BNClassifier`` holding every
    table in one tensor, one gather per mini-batch, Keras-form Adam.
loop
    A straightforward per-feature Python-loop model in torch, the authors' design
    (``TanBayesNetClassifierSubset`` in ``pgm-2020/BNCModels.py``): one parameter per (feature,
    candidate) table, a loop over features and candidates with one gather each, per-feature
    straight-through Gumbel-softmax, ``torch.optim.Adam``; the same rows and batch size.
batched
    ``--settings`` hyperparameter settings trained as one module by
    :func:`bnstudy.classifiers.train_batched` versus the same settings one after another.

Throughput is samples x epochs / s from the median epoch time (training steps only; epochs of
the two models alternate so that both see the same machine load). Runs/hour are extrapolated to
the paper's protocol: 500 epochs over 60,000 mnist training rows.

Run from the repository root::

    .venv/bin/python benchmarks/bench_tan_training.py --device cpu
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time

import numpy as np
import torch

from bnstudy.classifiers import (
    PAD,
    candidate_parents,
    hybrid_loss,
    learning_rate_schedule,
    temperature_schedule,
    train_batched,
    train_classifier,
)

logger = logging.getLogger("bench_tan_training")

D, N_CLASSES, K, BATCH = 196, 10, 8, 250
PAPER_ROWS, PAPER_EPOCHS = 60000, 500


def make_data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Synthetic mnist-shaped data: (x, y, n_states)."""
    rng = np.random.default_rng(seed)
    n_states = rng.integers(2, 16, size=D)
    n_states[0] = 15
    x = (rng.random((n, D)) * n_states).astype(np.int64)
    y = rng.integers(0, N_CLASSES, size=n)
    return x, y, n_states


class LoopTAN(torch.nn.Module):
    """Per-feature Python-loop TAN Subset (the authors' TensorFlow design, in torch)."""

    def __init__(self, n_states, candidates, generator, device) -> None:
        super().__init__()
        self.cands = [[int(c) for c in row if c != PAD] for row in candidates]
        self.generator = generator

        def uniform(*shape):
            return torch.nn.Parameter(
                (torch.rand(shape, generator=generator) * 0.2 - 0.1).to(device)
            )

        self.class_logits = uniform(N_CLASSES)
        self.tables = torch.nn.ParameterList()
        for d, cands in enumerate(self.cands):
            for pa in cands:
                shape = (
                    (n_states[d], N_CLASSES) if pa < 0 else (n_states[d], n_states[pa], N_CLASSES)
                )
                self.tables.append(uniform(*shape))
        self.structure = torch.nn.ParameterList(
            [torch.nn.Parameter(torch.zeros(len(c), device=device)) for c in self.cands]
        )

    def forward(self, x: torch.Tensor, tau: float, training: bool) -> torch.Tensor:
        out = torch.log_softmax(self.class_logits, 0).expand(x.shape[0], -1)
        t = 0
        for d, cands in enumerate(self.cands):
            phi = self.structure[d]
            if len(cands) == 1:
                w = None
            elif training:
                u = torch.rand(phi.shape, generator=self.generator).to(phi.device)
                g = -torch.log(-torch.log(u + 1e-6) + 1e-6)
                soft = torch.softmax((phi + g) / tau, 0)
                hard = torch.nn.functional.one_hot(soft.argmax(), len(cands)).to(soft.dtype)
                w = hard - soft.detach() + soft  # straight-through
            else:
                w = torch.nn.functional.one_hot(phi.argmax(), len(cands)).to(phi.dtype)
            for j, pa in enumerate(cands):
                table = torch.log_softmax(self.tables[t], 0)
                t += 1
                val = table[x[:, d]] if pa < 0 else table[x[:, d], x[:, pa]]
                out = out + (val if w is None else val * w[j])
        return out


def time_loop(x, y, n_states, cand, epochs: int, device: torch.device, seed: int) -> list[float]:
    """Per-epoch training times of the loop model (same protocol as ours)."""
    gen = torch.Generator().manual_seed(seed)
    model = LoopTAN(n_states, cand, gen, device)
    opt = torch.optim.Adam([model.class_logits, *model.tables], lr=3e-3, eps=1e-7)
    opt_phi = torch.optim.Adam(list(model.structure), lr=1e-3, eps=1e-7)
    xt = torch.as_tensor(x, device=device)
    yt = torch.as_tensor(y, device=device)
    lrs = learning_rate_schedule(3e-3, epochs)
    taus = temperature_schedule(epochs)
    times = []
    for e in range(epochs):
        for group in opt.param_groups:
            group["lr"] = float(lrs[e])
        t0 = time.perf_counter()
        perm = torch.randperm(len(y), generator=gen).to(device)
        for b in range(len(y) // BATCH):
            idx = perm[b * BATCH : (b + 1) * BATCH]
            loss = hybrid_loss(model(xt[idx], float(taus[e]), True), yt[idx], 10.0, 1.0, 10.0)
            opt.zero_grad()
            opt_phi.zero_grad()
            loss.backward()
            opt.step()
            opt_phi.step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return times


def settings_for(cand: np.ndarray, n: int) -> list[dict]:
    rng = np.random.default_rng(1)
    return [
        {
            "lam": float(10 ** rng.uniform(1, 3)),
            "gamma": float(10 ** rng.uniform(-1, 2)),
            "eta": 10.0,
            "lr": 3e-3,  # one lr per batch, as run_tan_experiments groups them
            "candidates": cand,
        }
        for i in range(n)
    ]


def time_vectorized(x, y, xs, ys, n_states, cand, device, seed) -> float:
    """Training time of one epoch of our vectorized model (steps only, from its history)."""
    res = train_classifier(
        x, y, xs, ys, n_states, N_CLASSES, candidates=cand, lam=10.0, gamma=1.0, eta=10.0,
        lr=3e-3, seed=seed, n_epochs=1, batch_size=BATCH, eval_every=0, device=device,
    )  # fmt: skip
    return res.history["seconds"][0]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--n-train", type=int, default=10000, help="rows per timed epoch")
    parser.add_argument("--repeats", type=int, default=5, help="epochs timed per model")
    parser.add_argument("--settings", type=int, default=8, help="settings S of the batched case")
    parser.add_argument("--batched-train", type=int, default=10000)
    parser.add_argument("--batched-epochs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    parser.add_argument("--skip-loop", action="store_true")
    parser.add_argument("--skip-batched", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    print(
        f"python {sys.version.split()[0]}, torch {torch.__version__}, device {device}, "
        f"{os.cpu_count()} CPUs, {torch.get_num_threads()} torch threads"
    )
    x, y, n_states = make_data(max(args.n_train, args.batched_train), args.seed)
    cand = candidate_parents("subset", D, K=K, rng=np.random.default_rng(args.seed))
    print(
        f"TAN Subset K={K}: D={D}, {cand.shape[1]} candidates/feature, states 2..{n_states.max()}, "
        f"{N_CLASSES} classes, batch {BATCH}; synthetic uniform data, {args.n_train} rows/epoch"
    )
    xs, ys = x[:2000], y[:2000]
    xt, yt = x[: args.n_train], y[: args.n_train]
    rows = (args.n_train // BATCH) * BATCH

    # vectorized and loop epochs alternate, so both see the same machine load
    t_vec, t_loop = [], []
    for r in range(args.repeats):
        t_vec.append(time_vectorized(xt, yt, xs, ys, n_states, cand, device, args.seed + r))
        if not args.skip_loop:
            t_loop += time_loop(xt, yt, n_states, cand, 1, device, args.seed + r)
    thr_vec = rows / statistics.median(t_vec)
    print(
        f"{'vectorized (ours)':<20} median epoch {statistics.median(t_vec):7.2f} s "
        f"{thr_vec:9.0f} samples*epochs/s  (epochs: {np.round(t_vec, 2).tolist()})"
    )
    if not args.skip_loop:
        thr_loop = rows / statistics.median(t_loop)
        print(
            f"{'per-feature loop':<20} median epoch {statistics.median(t_loop):7.2f} s "
            f"{thr_loop:9.0f} samples*epochs/s  (epochs: {np.round(t_loop, 2).tolist()})"
        )
        print(f"speed-up vectorized / loop: {thr_vec / thr_loop:.1f}x")
    per_run_vec = PAPER_ROWS * PAPER_EPOCHS / thr_vec
    print(
        f"paper scale (500 epochs x 60,000 rows), one run: {per_run_vec / 3600:.2f} h "
        f"-> {3600 / per_run_vec:.2f} runs/hour sequential"
    )

    if not args.skip_batched:
        n_b = args.batched_train
        settings = settings_for(cand, args.settings)
        seeds = list(range(args.settings))
        common = dict(n_epochs=args.batched_epochs, batch_size=BATCH, eval_every=0, device=device)
        data = (x[:n_b], y[:n_b], xs, ys, n_states, N_CLASSES)
        t0 = time.perf_counter()
        batched = train_batched(settings, *data, seeds=seeds, **common)
        t_batched = time.perf_counter() - t0
        t0 = time.perf_counter()
        epochs_seq = []
        for setting, seed in zip(settings, seeds, strict=True):
            res = train_batched([setting], *data, seeds=[seed], **common)[0]
            epochs_seq.append(statistics.median(res.history["seconds"]))
        t_seq = time.perf_counter() - t0
        rows_b = (n_b // BATCH) * BATCH
        ep_b = statistics.median(batched[0].history["seconds"])
        print(
            f"batched S={args.settings}: {t_batched:.1f} s total vs {t_seq:.1f} s for the same "
            f"settings one by one ({t_seq / t_batched:.2f}x); median epoch {ep_b:.2f} s vs "
            f"{sum(epochs_seq):.2f} s ({args.batched_epochs} epochs x {rows_b} rows)"
        )
        runs_b = 3600 / (PAPER_ROWS * PAPER_EPOCHS / (rows_b * args.settings / ep_b))
        runs_s = 3600 / (PAPER_ROWS * PAPER_EPOCHS / (rows_b * args.settings / sum(epochs_seq)))
        print(f"paper-scale runs/hour: batched {runs_b:.2f} vs sequential {runs_s:.2f}")


if __name__ == "__main__":
    main()
