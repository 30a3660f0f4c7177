"""Training throughput of TAN classifiers: batched settings vs one after another.

Data: synthetic, with the shapes of the authors' datasets (targets.md A.2, A.4): letter (16
features with the states of the authors' letter fold, 26 classes, batch 100, 13,342 training
rows), satimage (36 features with the states of fold 1, 6 classes, batch 50, 5,151 rows), usps
(256 features with its 2..6 states, 10 classes, batch 100, 7,340 rows) and mnist (196 features
with 2..15 states, 10 classes, batch 250, 60,000 rows). States and labels are uniform at
random: throughput depends only on the shapes, not on the values. Every setting
has its own ``(lambda, gamma)`` and seed, as one chunk of
:func:`bnstudy.studies.tan.run_tan_experiments`. The model (``--model``): differentiable TAN
Subset at K = 8 (default; every setting with the same candidate parents, one ordering and draw,
``C = K + 1 = 9`` columns), or a fixed structure trained with the hybrid loss: naive Bayes
(``nb``) or a random TAN (``tan_random``, each setting its own draw).

Cases
-----
batched vs sequential (default)
    For every shape and every number of settings ``S`` in ``--settings``:
    :func:`bnstudy.classifiers.train_batched` on the ``S`` settings at once, versus the same
    ``S`` settings trained one after another (``train_batched`` with one setting each). Timed
    is one epoch over ``--n-train`` rows (training steps only, from the run's history), after one
    untimed epoch of each; the two alternate ``--repeats`` times so both see the same machine
    load. Printed: median seconds per
    setting-epoch of each, and the throughput ratio batched / sequential (> 1: batching wins).
learning rates together (``--lr-pair``)
    As above, but the settings take the paper's two CPT learning rates in turn (3e-3, 3e-2):
    batched, they share one model with the per-setting Adam (:class:`~bnstudy.classifiers.
    StackedAdam`); one after another, each runs alone with the fused Adam. At ``--settings 2``
    this is one setting of ``paper_cpu.yaml`` at both learning rates, the choice
    :func:`~bnstudy.studies.tan.run_tan_experiments` makes per structure kind (together for
    fixed structures, apart for learned ones).
phases (``--phases``)
    Where a step's time goes: the steps of one epoch of the ``S`` settings as one batch and of
    one setting alone, each step cut into its phases (forward, loss, backward, optimizer update),
    as :meth:`~bnstudy.classifiers.BatchedTrainer.step` runs them. Printed per phase: seconds per
    setting-step of each (the batch's divided by ``S``) and their ratio, the speed-up batching
    gives that phase. A phase whose work is per setting has a ratio near 1; one that is mostly
    dispatch has a ratio near ``S``.
per-setting work (``--floor``, TAN Subset)
    The kernels of a step whose arithmetic grows with every setting's tables, so that a batch
    shares their dispatch but not their work: the normalization of every table and the gather
    of every candidate's value and its product with the loss gradient (the structure gradient,
    ``_WeightGradient``'s backward), the normalization of the chosen tables, and the Adam update
    of every table. Each is timed as the batch of ``S`` settings runs it, after one epoch of
    training, and printed per setting-step beside the batch's whole step. From one setting's
    step alone (``a``) and the batch's per setting (``b``), with ``a = shared + work`` and ``b =
    shared / S + work`` (:func:`batching_limits`): the time a step that the batch shares,
    ``shared = (a - b) S / (S - 1)``, and the per-setting work ``work``; the ceiling of batching
    were the kernels the only per-setting work, ``(shared + kernels) / (shared / S +
    kernels)``; the bound ``a / kernels``, which no batch can pass while it runs these kernels;
    and the most per-setting work at which the ratio reaches 3x, ``shared (1 - 3 / S) / 2``.
    The ratio grows as the per-setting work shrinks, so the last figure says how far it must.
    Beside it: the least work of the paper's step (an exp of every table entry, the gather,
    Adam), and the same in one pass over each table, which takes at least the larger of the
    exp and Adam's memory floor (the 28 bytes an entry a one-pass Adam moves, at the rate an
    in-place add streams over as many entries), then the gather.
vectorized vs loop (``--vs-loop``)
    One setting of our vectorized model (one gather per mini-batch) versus a per-feature
    Python-loop model, the authors' design (``TanBayesNetClassifierSubset`` in
    ``pgm-2020/BNCModels.py``) in torch, same rows and batch size.

Runs/hour are extrapolated to the paper's protocol: 500 epochs over the full training rows.

Run from the repository root (``PYTHONPATH=src`` outside the installed environment)::

    .venv/bin/python benchmarks/bench_tan_training.py --shapes letter satimage --settings 1 4 10 16
    .venv/bin/python benchmarks/bench_tan_training.py --model nb tan_random --settings 10
    .venv/bin/python benchmarks/bench_tan_training.py --lr-pair --settings 2 \\
        --model nb tan_random tan_subset --repeats 5
    .venv/bin/python benchmarks/bench_tan_training.py --phases --settings 10 --repeats 5
    .venv/bin/python benchmarks/bench_tan_training.py --floor --settings 10 32 --repeats 5
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np
import torch
from timed_script import run_json_script

from bnstudy.classifiers import (
    PAD,
    candidate_parents,
    hybrid_loss,
    random_tan_parents,
    temperature_schedule,
)

logger = logging.getLogger("bench_tan_training")

K = 8
PAPER_EPOCHS = 500
LETTER_STATES = [1, 3, 4, 5, 5, 8, 8, 9, 9, 13, 13, 13, 13, 14, 14, 14]
SATIMAGE_STATES = [10] * 4 + [11] * 16 + [12] * 11 + [13] * 2 + [14] * 2 + [15]
USPS_STATES = [2] * 39 + [3] * 106 + [4] * 89 + [5] * 20 + [6] * 2  # targets.md A.4
#: name -> (states per feature or None for mnist's random 2..15, classes, batch, training rows)
SHAPES = {
    "letter": (LETTER_STATES, 26, 100, 13342),
    "satimage": (SATIMAGE_STATES, 6, 50, 5151),
    "usps": (USPS_STATES, 10, 100, 7340),
    "mnist": (None, 10, 250, 60000),
}


def make_data(shape: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Synthetic data of a dataset's shape: (x, y, n_states)."""
    states, n_classes, _, _ = SHAPES[shape]
    rng = np.random.default_rng(seed)
    if states is None:
        n_states = rng.integers(2, 16, size=196)
        n_states[0] = 15
    else:
        n_states = np.array(states)
    x = (rng.random((n, n_states.size)) * n_states).astype(np.int64)
    y = rng.integers(0, n_classes, size=n)
    return x, y, n_states


def bench_data(shape: str, args) -> tuple[tuple, np.ndarray]:
    """Training rows, 1,000 test rows and TAN Subset's candidates of one shape, from ``args``.

    Returns ``(x_train, y_train, x_test, y_test, n_states, n_classes)`` and the candidates.
    """
    n_classes = SHAPES[shape][1]
    x, y, n_states = make_data(shape, args.n_train + 1000, args.seed)
    cand = candidate_parents("subset", n_states.size, K=K, rng=np.random.default_rng(args.seed))
    data = (x[: args.n_train], y[: args.n_train], x[-1000:], y[-1000:], n_states, n_classes)
    return data, cand


class LoopTAN(torch.nn.Module):
    """Per-feature Python-loop TAN Subset (the authors' TensorFlow design, in torch)."""

    def __init__(self, n_states, n_classes, candidates, generator, device) -> None:
        super().__init__()
        self.cands = [[int(c) for c in row if c != PAD] for row in candidates]
        self.generator = generator

        def uniform(*shape):
            return torch.nn.Parameter(
                (torch.rand(shape, generator=generator) * 0.2 - 0.1).to(device)
            )

        self.class_logits = uniform(n_classes)
        self.tables = torch.nn.ParameterList()
        for d, cands in enumerate(self.cands):
            for pa in cands:
                shape = (
                    (n_states[d], n_classes) if pa < 0 else (n_states[d], n_states[pa], n_classes)
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


def time_loop(x, y, n_states, n_classes, cand, batch, device, seed) -> float:
    """Training time of one epoch of the loop model (same protocol as ours)."""
    gen = torch.Generator().manual_seed(seed)
    model = LoopTAN(n_states, n_classes, cand, gen, device)
    opt = torch.optim.Adam([model.class_logits, *model.tables], lr=3e-3, eps=1e-7)
    opt_phi = torch.optim.Adam(list(model.structure), lr=1e-3, eps=1e-7)
    xt = torch.as_tensor(x, device=device)
    yt = torch.as_tensor(y, device=device)
    tau = float(temperature_schedule(1)[0])
    t0 = time.perf_counter()
    perm = torch.randperm(len(y), generator=gen).to(device)
    for b in range(len(y) // batch):
        idx = perm[b * batch : (b + 1) * batch]
        loss = hybrid_loss(model(xt[idx], tau, True), yt[idx], 10.0, 1.0, 10.0)
        opt.zero_grad()
        opt_phi.zero_grad()
        loss.backward()
        opt.step()
        opt_phi.step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - t0


#: Models ``--model`` can time, and how the printout names them.
MODELS = {
    "tan_subset": f"TAN Subset K={K} ({K + 1} candidates/feature)",
    "nb": "naive Bayes (fixed structure)",
    "tan_random": "random TAN (fixed structure, one draw per setting)",
}


def settings_for(
    cand: np.ndarray, n: int, model: str = "tan_subset", lrs: tuple[float, ...] = (3e-3,)
) -> list[dict]:
    """``n`` settings with the authors' set-B ranges, taking the learning rates ``lrs`` in turn.

    ``tan_subset`` learns the structure among ``cand``; ``nb`` and ``tan_random`` fix it (the
    class as every feature's only parent, or each setting's own random TAN over ``cand``'s
    features).
    """
    rng = np.random.default_rng(1)
    n_features = cand.shape[0]
    out = []
    for i in range(n):
        setting = {
            "lam": float(10 ** rng.uniform(1, 3)),
            "gamma": float(10 ** rng.uniform(-1, 2)),
            "eta": 10.0,
            "lr": lrs[i % len(lrs)],
        }
        if model == "nb":
            setting["parents"] = np.full(n_features, -1)
        elif model == "tan_random":
            setting["parents"] = random_tan_parents(n_features, rng=np.random.default_rng(i))
        else:
            setting["candidates"] = cand
        out.append(setting)
    return out


def epoch_seconds(settings, seeds, data, batch, device, clock) -> float:
    """Seconds of the training steps of one epoch of these settings trained as one batch.

    The run is :func:`bnstudy.classifiers.train_batched`'s own trainer; only
    :meth:`~bnstudy.classifiers.BatchedTrainer.train_epoch` is timed (no set-up, no evaluation),
    by ``clock`` (``time.process_time``: CPU seconds of this process, steadier than wall time
    on a shared machine; ``time.perf_counter``: wall time).
    """
    trainer = make_trainer(settings, seeds, data, batch, device)
    if device.type == "cuda":
        torch.cuda.synchronize()
    t0 = clock()
    trainer.train_epoch(0)  # ends by copying the losses to the host (synchronizes)
    return clock() - t0


#: The phases of :meth:`~bnstudy.classifiers.BatchedTrainer.step`, in order.
PHASES = ("forward", "loss", "backward", "update")


def make_trainer(settings, seeds, data, batch, device):
    """:func:`bnstudy.classifiers.train_batched`'s trainer for these settings, as one batch."""
    # imported here: the reference script imports this module with an older bnstudy
    from bnstudy.classifiers import BatchedTrainer, TrainSetting

    specs = [TrainSetting.from_mapping(st, i, data[4].size) for i, st in enumerate(settings)]
    return BatchedTrainer(
        specs, *data, seeds=seeds, n_epochs=1, batch_size=batch, lr_structure=1e-3,
        lr_decay=1e-3, tau_start=10.0, tau_end=0.1, init="uniform", adam="auto", device=device,
        dtype=torch.float32,
    )  # fmt: skip


def phase_step(trainer, xb, yb, noise, tau, clock, sync) -> tuple[torch.Tensor, np.ndarray]:
    """:meth:`~bnstudy.classifiers.BatchedTrainer.step`, its phases timed by ``clock``.

    The same operations in the same order (a test holds the two to equal parameters); returns
    the loss per setting and the seconds of each phase of :data:`PHASES`.
    """
    from bnstudy.classifiers import straight_through_gumbel_softmax

    model, marks = trainer.model, [clock()]

    def mark():
        sync()
        marks.append(clock())

    if noise is None:
        log_joint = model.log_joint_states(xb)
    else:
        one_hot = straight_through_gumbel_softmax(model.phi, noise, tau)
        log_joint = model.log_joint_straight_through(xb, one_hot)
    mark()
    loss = hybrid_loss(log_joint, yb, trainer.lam, trainer.gamma, trainer.eta)
    mark()
    loss.sum().backward()
    mark()
    trainer.opt_theta.step()
    trainer.opt_theta.zero_grad(set_to_none=not trainer.learned)
    if trainer.opt_phi is not None:
        trainer.opt_phi.step()
        trainer.opt_phi.zero_grad()
    mark()
    return loss.detach(), np.diff(marks)


def phase_seconds(trainer, clock) -> np.ndarray:
    """Seconds of each phase, summed over the steps of one epoch of ``trainer``."""
    sync = torch.cuda.synchronize if trainer.device.type == "cuda" else (lambda: None)
    tau = float(trainer.taus[0])
    trainer.set_epoch_lr(0)
    perms, noise = trainer.epoch_draws()
    total, bs = np.zeros(len(PHASES)), trainer.batch_size
    for b in range(trainer.n_batches):
        idx = perms[:, b * bs : (b + 1) * bs]
        xb, yb = trainer.x_train[idx], trainer.y_train[idx]
        noise_b = None if noise is None else noise[b]
        total += phase_step(trainer, xb, yb, noise_b, tau, clock, sync)[1]
    return total


def trained_pair(cand, n_set, model, data, batch, device, args):
    """Trainers of ``n_set`` settings as one batch and of the first alone, one epoch trained.

    The untimed first epoch pays for the allocations and moves the tables off their start.
    """
    settings = settings_for(cand, n_set, model, args.lrs)
    together = make_trainer(settings, list(range(n_set)), data, batch, device)
    alone = make_trainer(settings[:1], [0], data, batch, device)
    phase_seconds(together, args.clock_fn)
    phase_seconds(alone, args.clock_fn)
    return together, alone


def bench_phases(shape: str, args, device: torch.device, model: str = "tan_subset") -> list[dict]:
    """Per-phase seconds per setting-step, batched and alone, at every ``S`` of ``args.settings``."""
    batch = SHAPES[shape][2]
    data, cand = bench_data(shape, args)
    steps = args.n_train // batch
    print(f"\n{shape}, {MODELS[model]}: phases of {steps} steps, {args.repeats} repeats")
    out = []
    for n_set in args.settings:
        together, alone = trained_pair(cand, n_set, model, data, batch, device, args)
        t_b, t_a = [], []
        for _ in range(args.repeats):  # alternate, so both see the same machine load
            t_b.append(phase_seconds(together, args.clock_fn) / (n_set * steps))
            t_a.append(phase_seconds(alone, args.clock_fn) / steps)
        med_b, med_a = np.median(t_b, axis=0), np.median(t_a, axis=0)
        print(
            f"S = {n_set}: {'phase':<9} {'batched ms/setting-step':>24} {'alone ms/step':>14} "
            f"{'alone/batched':>14} {'share of alone':>15}"
        )
        rows = zip([*PHASES, "step"], [*med_b, med_b.sum()], [*med_a, med_a.sum()], strict=True)
        for name, b, a in rows:
            print(
                f"{'':>{len(str(n_set)) + 6}} {name:<9} {1e3 * b:>24.3f} {1e3 * a:>14.3f} "
                f"{a / b:>13.2f}x {a / med_a.sum():>14.0%}"
            )
            out.append(
                {
                    "shape": shape,
                    "model": model,
                    "S": n_set,
                    "phase": name,
                    "batched": b,
                    "alone": a,
                }
            )
    return out


def floor_kernels(trainer, xb: torch.Tensor, grad: torch.Tensor) -> dict[str, Callable]:
    """The per-setting kernels of a TAN Subset step on the mini-batch ``xb``, as the batch runs them.

    Each entry is a call that runs one kernel for every setting of ``trainer``'s batch, as
    :meth:`~bnstudy.classifiers.BNClassifier.log_joint_straight_through`, its backward and the
    update do: its seconds divided by ``S`` are its cost per setting-step. ``grad`` (``S, n,
    n_classes``) stands for the loss gradient w.r.t. the log-joint. The structure-gradient
    kernels return what ``_WeightGradient``'s backward returns for the same tables, rows and
    gradient (a test holds them equal).
    """
    model = trainer.model
    theta, K, starts = model.theta.detach(), model.n_classes, model.setting_starts
    S, n, _ = xb.shape
    with torch.no_grad():
        flat = model._all_index(xb, local=True)  # (S, J, n): every candidate at every row
        _, offset, count = model._chosen_index(xb, model.structure_choice())
    J, P = flat.shape[1], model.P
    steps = torch.minimum(model.row_steps.view(1, 1, P), (count - 1).unsqueeze(-1))
    rows = (offset.unsqueeze(-1) + steps).reshape(-1)  # the chosen tables, padded to P rows
    for p in trainer.opt_theta.params:  # a fixed step's update skips parameters without one
        if p.grad is None:
            p.grad = torch.zeros_like(p)

    def normalize_every_table():
        return [torch.log_softmax(theta[:, starts[s] : starts[s + 1]], 0) for s in range(S)]

    tables = normalize_every_table()

    def gather_every_candidate():
        return [tables[s].view(-1, K).index_select(0, flat[s].reshape(-1)) for s in range(S)]

    values = gather_every_candidate()

    def product_with_the_gradient():
        return torch.stack(
            [
                torch.bmm(values[s].view(1, J, n * K), grad[s].reshape(1, n * K, 1)).view(J)
                for s in range(S)
            ]
        )

    return {
        "normalize every table": normalize_every_table,
        "gather every candidate": gather_every_candidate,
        "product with the gradient": product_with_the_gradient,
        "normalize the chosen tables": lambda: torch.log_softmax(theta.index_select(1, rows), 0),
        "Adam update of every table": trainer.opt_theta.step,
    }


#: The throughput of batched over sequential training that the study's cost cuts aim at (the
#: fixed structures reach it on a CPU, TAN Subset on a GPU).
TARGET = 3.0
#: ``--floor``'s name for one exp of every table entry, the least a normalization costs.
EXP = "exp of every table entry"
#: ``--floor``'s name for the least time a one-pass Adam over every table entry can take: the
#: bytes it moves at the rate the machine streams memory (:data:`ADAM_BYTES`, :data:`ADD_BYTES`).
ADAM_MEMORY = "Adam's memory floor"
#: Bytes a one-pass (fused) Adam moves per float32 entry: it reads the parameter, its gradient
#: and both moments and writes back the parameter and both moments, in place.
ADAM_BYTES = 28
#: Bytes an in-place ``a += b`` moves per float32 entry (reads ``a`` and ``b``, writes ``a``):
#: ``--floor`` times it to measure the machine's streaming rate.
ADD_BYTES = 12


def batching_limits(
    alone: float, batched: float, kernels: float, n_set: int, target: float = TARGET
) -> dict[str, float]:
    """What a batch of ``n_set`` settings can gain, from one step's seconds alone and batched.

    Model: a step costs ``shared + work`` alone and ``shared / S + work`` per setting in a
    batch of ``S``, where ``shared`` is what the batch runs once (the dispatch of its
    operations) and ``work`` what it runs per setting. The ratio ``(shared + work) / (shared /
    S + work)`` grows as ``work`` shrinks, so it reaches ``target`` only when ``work <= shared
    (1 - target / S) / (target - 1)``.

    Parameters
    ----------
    alone, batched : float
        Seconds of one setting's step alone, and of the batch's step per setting.
    kernels : float
        Seconds per setting-step of the per-setting kernels (:func:`floor_kernels`).
    n_set : int
        Settings in the batch (> 1).
    target : float, default :data:`TARGET`

    Returns
    -------
    dict
        ``shared`` and ``per_setting`` (the model's two terms, solved from ``alone`` and
        ``batched``); ``ceiling``, the ratio at ``n_set`` if the kernels were the only
        per-setting work; ``bound``, ``alone / kernels``, which no batch passes while it runs
        them; ``needed``, the most per-setting work at which the ratio reaches ``target`` (0
        or less where ``n_set <= target``: a batch that small reaches it only without any).
    """
    if n_set < 2:
        raise ValueError(f"batching_limits needs a batch of 2 or more settings, got {n_set}")
    shared = (alone - batched) * n_set / (n_set - 1)
    return {
        "shared": shared,
        "per_setting": batched - shared / n_set,
        "ceiling": (shared + kernels) / (shared / n_set + kernels),
        "bound": alone / kernels,
        "needed": shared * (1 - target / n_set) / (target - 1),
    }


def kernel_seconds(fn: Callable, steps: int, clock: Callable, sync: Callable) -> float:
    """Seconds by ``clock`` of ``steps`` calls of ``fn``, after one untimed call."""
    fn()
    sync()
    t0 = clock()
    for _ in range(steps):
        fn()
    sync()
    return clock() - t0


def bench_floor(shape: str, args, device: torch.device, model: str = "tan_subset") -> list[dict]:
    """Per-setting kernels of a step beside the batch's step and one setting's, at every ``S``."""
    batch = SHAPES[shape][2]
    data, cand = bench_data(shape, args)
    steps = args.n_train // batch
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    print(f"\n{shape}, {MODELS[model]}: per-setting kernels of a step, {args.repeats} repeats")
    out = []
    for n_set in args.settings:
        together, alone = trained_pair(cand, n_set, model, data, batch, device, args)
        xb = together.x_train[together.epoch_draws()[0][:, :batch]]  # (S, batch, D)
        grad = torch.randn(
            (n_set, batch, together.model.n_classes), generator=torch.Generator().manual_seed(0)
        ).to(device)
        kernels = floor_kernels(together, xb, grad)
        times: dict[str, list[float]] = {name: [] for name in [*kernels, EXP, ADAM_MEMORY]}
        per_step = steps * n_set
        t_b, t_a = [], []
        for _ in range(args.repeats):  # alternate, so all see the same machine load
            for name, fn in kernels.items():
                times[name].append(kernel_seconds(fn, steps, args.clock_fn, sync) / per_step)
            t_b.append(phase_seconds(together, args.clock_fn).sum() / per_step)
            t_a.append(phase_seconds(alone, args.clock_fn).sum() / steps)
        # the least any normalization of every table costs: one exp of every entry that exists
        # (not of the -inf at states a feature lacks, exp's slow path), all settings' at once;
        # timed last, as its copy of the tables slows the steps of one setting alone
        theta = together.model.theta.detach()
        finite = theta[theta > float("-inf")]
        entries = finite.numel() // n_set
        # and the machine's streaming rate over as many entries, in place as Adam runs, scaled
        # to the bytes a one-pass Adam moves per entry: no Adam over them, however fused, is
        # faster; each kernel with the factor that turns its seconds into the figure's
        passes = {
            EXP: (functools.partial(torch.exp, finite, out=torch.empty_like(finite)), 1.0),
            ADAM_MEMORY: (
                functools.partial(
                    torch.Tensor.add_, torch.rand_like(finite), torch.rand_like(finite)
                ),
                ADAM_BYTES / ADD_BYTES,
            ),
        }
        for _ in range(args.repeats):
            for name, (fn, scale) in passes.items():
                seconds = kernel_seconds(fn, steps, args.clock_fn, sync) / per_step
                times[name].append(seconds * scale)
        del finite, passes
        med = {name: statistics.median(t) for name, t in times.items()}
        exp_s, memory = med.pop(EXP), med.pop(ADAM_MEMORY)
        gather = med["gather every candidate"]
        # what the paper's step cannot skip: normalizing every table (at least its exp), reading
        # every candidate's value at every row (the structure gradient) and Keras's Adam
        least = exp_s + gather + med["Adam update of every table"]
        # the same in one pass over each table that updates it and takes the exp of the result
        # for the next step (exp and memory traffic overlapped at best), then the gather
        fused = max(exp_s, memory) + gather
        med_b, med_a = statistics.median(t_b), statistics.median(t_a)
        floor = sum(med.values())
        lim = batching_limits(med_a, med_b, floor, n_set)
        pad = " " * (len(str(n_set)) + 6)
        if lim["needed"] > 0:
            reach = (
                f"{TARGET:g}x at {n_set} settings needs at most {1e3 * lim['needed']:.3f} ms of "
                f"per-setting work a step: the kernels above are "
                f"{floor / lim['needed']:.1f} times that\n"
                f"{pad} least per-setting work of the paper's step (an exp of every table entry, "
                f"the gather of every candidate, Adam): {1e3 * least:.3f} ms, "
                f"{least / lim['needed']:.1f} times that\n"
                f"{pad} the same with one pass per table (the larger of the exp and Adam's "
                f"memory floor), and the gather: {1e3 * fused:.3f} ms, "
                f"{fused / lim['needed']:.1f} times that"
            )
        else:  # S <= TARGET, or a batch no faster than one setting alone
            reach = (
                f"{TARGET:g}x at {n_set} settings is out of reach at any per-setting work "
                f"(least of the paper's step: {1e3 * least:.3f} ms; with one pass per table: "
                f"{1e3 * fused:.3f} ms)"
            )
        rate = ADAM_BYTES * entries / memory  # bytes a second, as the in-place add streamed
        print(f"S = {n_set}: {'kernel':<28} {'ms/setting-step':>16} {'of the batch step':>18}")
        for name, t in [*med.items(), ("sum", floor)]:
            print(f"{pad} {name:<28} {1e3 * t:>16.3f} {t / med_b:>17.0%}")
        print(
            f"{pad} step: alone {1e3 * med_a:.3f} ms, batched {1e3 * med_b:.3f} ms per setting "
            f"({med_a / med_b:.2f}x); shared by the batch {1e3 * lim['shared']:.3f} ms a step, "
            f"per setting {1e3 * lim['per_setting']:.3f} ms\n"
            f"{pad} ceiling with only the kernels above per setting: {lim['ceiling']:.2f}x; "
            f"bound: alone / sum = {lim['bound']:.2f}x\n"
            f"{pad} {entries:,} table entries a setting: their exp {1e3 * exp_s:.3f} ms; "
            f"{ADAM_MEMORY} {1e3 * memory:.3f} ms ({ADAM_BYTES} bytes an entry at the "
            f"{rate / 1e9:.1f} GB/s an in-place add streams here)\n"
            f"{pad} {reach}"
        )
        out.append(
            {"shape": shape, "model": model, "S": n_set, "kernels": med, "batched": med_b,
             "alone": med_a, "least": least, "exp": exp_s, "adam_memory": memory,
             "fused": fused, "entries": entries, **lim}
        )  # fmt: skip
    return out


#: Times one epoch of ``train_batched`` of another source tree (``--reference-src``, e.g. a
#: checkout of the code before this benchmark's changes), on the same data and settings: the
#: training module's clock is replaced by ``time.process_time``, so the history's epoch seconds
#: are CPU seconds of the training steps, as :func:`epoch_seconds` measures ours.
REFERENCE_SCRIPT = """
import json, sys, time, types
import numpy as np, torch
sys.path.insert(0, sys.argv[1])
import bench_tan_training as b
import bnstudy.classifiers.training as tr
tr.time = types.SimpleNamespace(perf_counter=time.process_time)
shape, n_set, n_train, seed, batched = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1"
torch.set_num_threads(1)
_, n_classes, batch, _ = b.SHAPES[shape]
x, y, n_states = b.make_data(shape, n_train + 1000, seed)
cand = b.candidate_parents("subset", n_states.size, K=b.K, rng=np.random.default_rng(seed))
data = (x[:n_train], y[:n_train], x[-1000:], y[-1000:], n_states, n_classes)
settings = b.settings_for(cand, n_set)
kw = dict(n_epochs=1, batch_size=batch, eval_every=0)
if batched:
    t = tr.train_batched(settings, *data, seeds=list(range(n_set)), **kw)[0].history["seconds"][0]
else:
    t = sum(tr.train_batched([s], *data, seeds=[i], **kw)[0].history["seconds"][0]
            for i, s in enumerate(settings))
print(json.dumps(t / n_set))
"""


def reference_seconds(src: str, shape: str, n_set: int, args, batched: bool) -> float | None:
    """CPU seconds per setting-epoch of the reference tree (None if it ran past 10 minutes)."""
    env = {**os.environ, "PYTHONPATH": src}
    argv = [os.path.dirname(os.path.abspath(__file__)), shape, n_set, args.n_train, args.seed]
    return run_json_script(REFERENCE_SCRIPT, [*argv, int(batched)], 600, env)


def bench_batched(shape: str, args, device: torch.device, model: str = "tan_subset") -> list[dict]:
    """Batched vs sequential epochs at every ``S`` of ``args.settings``; prints one line per S."""
    _, n_classes, batch, paper_rows = SHAPES[shape]
    data, cand = bench_data(shape, args)
    n_states = data[4]
    rows_per_epoch = (args.n_train // batch) * batch
    print(
        f"\n{shape}: D={n_states.size}, states {n_states.min()}..{n_states.max()}, {n_classes} "
        f"classes, batch {batch}, {MODELS[model]}; {rows_per_epoch} rows per timed epoch, "
        f"{args.repeats} repeats, learning rate(s) {', '.join(map(str, args.lrs))}"
    )
    ref_head = (
        f" {'reference batched':>18} {'reference sequential':>21} {'ours batched/ref seq':>21}"
        if args.reference_src
        else ""
    )
    print(
        f"{'S':>4} {'batched s/setting-epoch':>24} {'sequential s/setting-epoch':>27} "
        f"{'batched/sequential':>19} {'paper runs/h batched':>21} {'sequential':>11}{ref_head}"
    )
    out = []
    for n_set in args.settings:
        settings = settings_for(cand, n_set, model, args.lrs)
        seeds = list(range(n_set))
        # one untimed epoch of each first: the first call of a shape pays for allocations
        epoch_seconds(settings, seeds, data, batch, device, args.clock_fn)
        epoch_seconds(settings[:1], seeds[:1], data, batch, device, args.clock_fn)
        t_b, t_s, r_b, r_s = [], [], [], []
        for _ in range(args.repeats):  # alternate, so all see the same machine load
            if args.reference_src:
                r_b.append(reference_seconds(args.reference_src, shape, n_set, args, True))
                r_s.append(reference_seconds(args.reference_src, shape, n_set, args, False))
            t_b.append(epoch_seconds(settings, seeds, data, batch, device, args.clock_fn) / n_set)
            t_s.append(
                sum(
                    epoch_seconds([st], [sd], data, batch, device, args.clock_fn)
                    for st, sd in zip(settings, seeds, strict=True)
                )
                / n_set
            )
        med_b, med_s = statistics.median(t_b), statistics.median(t_s)
        per_run = PAPER_EPOCHS * paper_rows / rows_per_epoch  # epochs of this size per paper run
        ref = ""
        if args.reference_src:
            ref_b, ref_s = statistics.median(r_b), statistics.median(r_s)
            ref = f" {ref_b:>18.4f} {ref_s:>21.4f} {ref_s / med_b:>20.2f}x"
        print(
            f"{n_set:>4} {med_b:>24.4f} {med_s:>27.4f} {med_s / med_b:>18.2f}x "
            f"{3600 / (per_run * med_b):>21.1f} {3600 / (per_run * med_s):>11.1f}{ref}"
        )
        out.append(
            {
                "shape": shape, "model": model, "S": n_set, "batched": med_b,
                "sequential": med_s, "device": str(device),
                "deterministic": torch.are_deterministic_algorithms_enabled(),
                "paper_runs_per_hour": 3600 / (per_run * med_b),
            }
        )  # fmt: skip
    return out


def bench_loop(shape: str, args, device: torch.device) -> None:
    """Our vectorized model vs the per-feature loop model, one setting, alternating epochs."""
    batch = SHAPES[shape][2]
    data, cand = bench_data(shape, args)
    xt, yt, _, _, n_states, n_classes = data
    setting = settings_for(cand, 1)
    t_vec, t_loop = [], []
    for r in range(args.repeats):
        t_vec.append(
            epoch_seconds(setting, [args.seed + r], data, batch, device, time.perf_counter)
        )
        t_loop.append(time_loop(xt, yt, n_states, n_classes, cand, batch, device, args.seed + r))
    med_v, med_l = statistics.median(t_vec), statistics.median(t_loop)
    print(
        f"\n{shape}, one setting: vectorized (ours) median epoch {med_v:.3f} s, per-feature loop "
        f"{med_l:.3f} s; speed-up {med_l / med_v:.1f}x"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--shapes", nargs="+", default=["letter", "satimage"], choices=SHAPES)
    parser.add_argument("--settings", nargs="+", type=int, default=[1, 4, 10, 16])
    parser.add_argument(
        "--model", nargs="+", default=["tan_subset"], choices=MODELS, help="models to time"
    )
    parser.add_argument("--n-train", type=int, default=3000, help="training rows per timed epoch")
    parser.add_argument("--repeats", type=int, default=3, help="timed epochs per case (median)")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument("--vs-loop", action="store_true", help="also time the per-feature loop")
    parser.add_argument(
        "--phases",
        action="store_true",
        help="time each phase of a step (forward, loss, backward, update) instead",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="time the kernels of a TAN Subset step whose work is per setting instead",
    )
    parser.add_argument(
        "--lr-pair",
        action="store_true",
        help="settings alternate the learning rates 3e-3 and 3e-2 (default: all 3e-3)",
    )
    parser.add_argument(
        "--clock",
        choices=["cpu", "wall"],
        default="cpu",
        help="time by process CPU seconds (default; with --threads 1) or wall seconds",
    )
    parser.add_argument(
        "--reference-src",
        default=None,
        help="src/ folder of another checkout (e.g. the previous commit) to time beside ours",
    )
    parser.add_argument(
        "--deterministic",
        action="store_true",
        help="torch's deterministic kernels (on a GPU: runs that repeat to the bit)",
    )
    parser.add_argument(
        "--json",
        default=None,
        help="also write the batched-vs-sequential results to this file (for tan_gpu_cost.py)",
    )
    parser.add_argument(
        "--default-malloc",
        action="store_true",
        help="leave glibc's malloc thresholds as they are (default: retain_freed_memory(), as "
        "the train_tan jobs do)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    torch.set_num_threads(args.threads)
    # imported here: the reference script imports this module with an older bnstudy
    from bnstudy.classifiers import retain_freed_memory

    retained = False if args.default_malloc else retain_freed_memory()
    device = torch.device(args.device)
    args.clock_fn = time.process_time if args.clock == "cpu" else time.perf_counter
    args.lrs = (3e-3, 3e-2) if args.lr_pair else (3e-3,)
    print(
        f"python {sys.version.split()[0]}, torch {torch.__version__}, device {device}, "
        f"{os.cpu_count()} CPUs, {torch.get_num_threads()} torch threads, load average "
        f"{os.getloadavg()[0]:.1f}; {args.clock} seconds; freed memory "
        + ("retained" if retained else "returned to the system (malloc's defaults)")
        + ("; deterministic kernels" if args.deterministic else "")
    )
    if args.reference_src and args.model != ["tan_subset"]:
        parser.error("--reference-src times TAN Subset only")
    if args.floor and min(args.settings) < 2:
        parser.error("--floor compares a batch with one setting alone: --settings must be >= 2")
    if args.floor and args.model != ["tan_subset"]:
        parser.error(
            "--floor times TAN Subset only (the fixed structures have no structure gradient)"
        )
    if args.floor and args.phases:
        parser.error("--floor and --phases are two modes: give one")
    results = []
    for shape in args.shapes:
        for model in args.model:
            bench = bench_floor if args.floor else bench_phases if args.phases else bench_batched
            results += bench(shape, args, device, model)
        if args.vs_loop:
            bench_loop(shape, args, device)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
