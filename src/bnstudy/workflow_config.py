"""Checks of the workflow's config that a JSON schema cannot express, run when the DAG is built.

The schema (``workflow/schemas/config.schema.yaml``) fixes each key's type and range and which keys
must be present. :func:`check_config` adds what relates keys to one another: every per-dataset or
per-network map covers the datasets or networks the study runs on, ranges are ordered, a figure's
run is one of the runs the table computes, and lists that would leave a paper's tables empty are
rejected. Every problem names its keys; all problems are reported at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["ConfigError", "check_config", "config_problems"]

# Models of the tan paper fit in closed form; every other model draws from a hyperparameter table.
_TAN_ML_MODELS = ("nb_ml", "chow_liu_ml")
_TAN_GRID_MAPS = ("settings", "K", "orderings", "draws")
# Rows of the authors' hyperparameter draws (workflow/published/tan_hparams_set{A,B}.csv); AB is
# set A then set B (the paper's hybrid Chow-Liu grid).
_TAN_HPARAM_ROWS = {"A": 500, "B": 100, "AB": 600}
_MRF_SIMULATIONS = ("tree", "small_grid", "large_grid")


class ConfigError(ValueError):
    """A config whose keys contradict one another; the message lists every problem."""


def _missing(value: object, names: Iterable[str]) -> list[str]:
    """The names a per-dataset/per-network mapping lacks (none when ``value`` is not a mapping)."""
    if not isinstance(value, Mapping):
        return []
    return [name for name in names if name not in value]


def _cover(problems: list[str], key: str, value: object, names: Iterable[str], what: str) -> None:
    for name in _missing(value, names):
        problems.append(f"{key} has no entry for {what} {name!r} (listed in the config)")


def _nonempty(problems: list[str], key: str, value: object, why: str) -> None:
    if isinstance(value, list) and not value:
        problems.append(f"{key} is empty: {why}")


def _tan_problems(cfg: Mapping) -> list[str]:
    problems: list[str] = []
    datasets = list(cfg["datasets"])
    _nonempty(problems, "tan.datasets", datasets, "list the datasets the paper trains on")
    if not cfg["models"]:
        problems.append("tan.models is empty: configure at least one model")
    _cover(problems, "tan.epochs", cfg["epochs"], datasets, "dataset")
    recovery = cfg["recover_chow_liu"]
    _nonempty(
        problems, "tan.recover_chow_liu.datasets", recovery["datasets"], "list at least one dataset"
    )
    _cover(
        problems,
        "tan.batch_size",
        cfg["batch_size"],
        dict.fromkeys([*datasets, *recovery["datasets"]]),
        "dataset",
    )
    mi_users: list[str] = [d for d in recovery["datasets"] if d.startswith("bnc_")]
    for model, grid in cfg["models"].items():
        key = f"tan.models.{model}"
        model_datasets = list(grid["datasets"])
        _nonempty(problems, f"{key}.datasets", model_datasets, "leave the model out to skip it")
        for name in model_datasets:
            if name not in datasets:
                problems.append(
                    f"{key}.datasets lists {name!r}, which tan.datasets does not: add it there "
                    "or remove it here"
                )
        if model not in _TAN_ML_MODELS:
            for needed in ("hparams", "settings"):
                if needed not in grid:
                    problems.append(f"{key}.{needed} is missing (model {model!r} needs it)")
            rows = _TAN_HPARAM_ROWS.get(grid.get("hparams"))
            settings = grid.get("settings")
            counts = settings.items() if isinstance(settings, Mapping) else [(None, settings)]
            for name, count in counts:
                if rows and isinstance(count, int) and count > rows:
                    where = f"{key}.settings" + ("" if name is None else f".{name}")
                    problems.append(
                        f"{where} = {count}, but hparams {grid['hparams']} has only {rows} draws"
                    )
        for name in _TAN_GRID_MAPS:
            if name in grid:
                _cover(problems, f"{key}.{name}", grid[name], model_datasets, "dataset")
        if model in ("chow_liu", "chow_liu_ml"):
            mi_users += [d for d in model_datasets if d.startswith("bnc_")]
    for name in dict.fromkeys(mi_users):
        if name not in cfg["mi_graphs"]:
            problems.append(
                f"tan.mi_graphs lacks {name!r}: Chow-Liu on {name} reads the authors' MI graph"
            )
    if "mnist" in datasets and "bnc_mnist_mi" not in cfg["mi_graphs"]:
        problems.append(
            "tan.mi_graphs lacks 'bnc_mnist_mi': with mnist in tan.datasets our MNIST MI graph "
            "is compared with the authors'"
        )
    return problems


def _em_problems(cfg: Mapping) -> list[str]:
    problems: list[str] = []
    sharing = cfg["sharing"]
    _nonempty(problems, "em.sharing.networks", sharing["networks"], "Table 3 needs a network")
    _nonempty(
        problems, "em.sharing.sample_sizes", sharing["sample_sizes"], "Table 3 needs a sample size"
    )
    for name in ("hidden_group", "first", "step"):
        _cover(problems, f"em.sharing.{name}", sharing[name], sharing["networks"], "network")
    endpoints = cfg["endpoints"]
    if endpoints["network"] not in sharing["hidden_group"]:
        problems.append(
            f"em.sharing.hidden_group has no entry for em.endpoints.network "
            f"{endpoints['network']!r} (its hidden nodes are drawn from that group)"
        )
    figures = cfg["figures"]
    if figures["network"] not in sharing["networks"]:
        problems.append(
            f"em.figures.network {figures['network']!r} is not one of em.sharing.networks "
            f"{list(sharing['networks'])}"
        )
    if figures["n_samples"] not in sharing["sample_sizes"]:
        problems.append(
            f"em.figures.n_samples {figures['n_samples']} is not one of em.sharing.sample_sizes "
            f"{list(sharing['sample_sizes'])} (the figures plot runs of Table 3)"
        )
    return problems


def _mrf_problems(cfg: Mapping) -> list[str]:
    problems: list[str] = []
    if list(cfg["datasets"]) != ["senate"]:
        # the branch's rules are those of section 5, on the Senate's roll calls
        problems.append(
            f"mrf.datasets is {list(cfg['datasets'])}: the paper's one real dataset, the "
            "Senate's roll calls (section 5), is what the branch's rules fit: it must be [senate]"
        )
    for simulation in _MRF_SIMULATIONS:
        _nonempty(
            problems,
            f"mrf.{simulation}.estimators",
            cfg[simulation]["estimators"],
            "the simulation's tables and figures need an estimator",
        )
    return problems


def _lsbn_problems(cfg: Mapping) -> list[str]:
    problems: list[str] = []
    _nonempty(
        problems,
        "lsbn.networks",
        cfg["networks"],
        "the paper's tables need a network (to skip the paper, build the targets tan, em, mrf)",
    )
    if "MI" not in cfg["weight_functions"]:
        problems.append("lsbn.weight_functions lacks 'MI' (ROPART's MI graph is always built)")
    if cfg["mcmc_burn_in"] >= cfg["mcmc_steps"]:
        problems.append(
            f"lsbn.mcmc_burn_in ({cfg['mcmc_burn_in']}) must be below lsbn.mcmc_steps "
            f"({cfg['mcmc_steps']})"
        )
    return problems


def config_problems(config: Mapping) -> list[str]:
    """Every cross-key problem of a config that already validates against the schema.

    Parameters
    ----------
    config : mapping
        The whole workflow config.

    Returns
    -------
    list of str
        One message per problem, each naming the keys involved; empty for a sound config.
    """
    problems: list[str] = []
    senate = config["data"]["senate"]
    if senate["min_yeas"] > senate["max_yeas"]:
        problems.append(
            f"data.senate.min_yeas ({senate['min_yeas']}) exceeds data.senate.max_yeas "
            f"({senate['max_yeas']}): no roll call would be kept"
        )
    problems += _tan_problems(config["tan"])
    problems += _em_problems(config["em"])
    problems += _mrf_problems(config["mrf"])
    problems += _lsbn_problems(config["lsbn"])
    return problems


def check_config(config: Mapping, source: str = "the config") -> None:
    """Raise :class:`ConfigError` listing every problem :func:`config_problems` finds.

    Parameters
    ----------
    config : mapping
        The whole workflow config (already validated against the schema).
    source : str
        Where the config came from, for the message (e.g. the config file's path).
    """
    problems = config_problems(config)
    if problems:
        lines = "\n".join(f"  - {p}" for p in problems)
        raise ConfigError(f"{source} is inconsistent:\n{lines}")
