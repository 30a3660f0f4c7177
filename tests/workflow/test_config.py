"""Every shipped config validates against the schema and is consistent; a bad or missing key, or keys
that contradict one another, are errors that name the keys."""

import copy

import jsonschema
import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from bnstudy.workflow_config import ConfigError, check_config, config_problems

CONFIGS = ["config.yaml", "paper.yaml", "paper_cpu.yaml", "smoke.yaml"]


@pytest.fixture(scope="module")
def schema(repo_root):
    return str(repo_root / "workflow" / "schemas" / "config.schema.yaml")


def _load(repo_root, name):
    return yaml.safe_load((repo_root / "config" / name).read_text())


@pytest.mark.parametrize("name", CONFIGS)
def test_shipped_configs_validate(repo_root, schema, name):
    validate(_load(repo_root, name), schema)


def test_unknown_top_level_key_is_named(repo_root, schema):
    config = _load(repo_root, "smoke.yaml")
    config["sed"] = 3
    with pytest.raises(WorkflowError, match="'sed' was unexpected"):
        validate(config, schema)


def test_mistyped_nested_key_is_named(repo_root, schema):
    config = copy.deepcopy(_load(repo_root, "smoke.yaml"))
    config["lsbn"]["n_sample"] = config["lsbn"].pop("n_samples")
    with pytest.raises(WorkflowError, match="n_sample"):
        validate(config, schema)


def test_unknown_network_name_lists_known_names(repo_root, schema):
    config = _load(repo_root, "smoke.yaml")
    config["lsbn"]["networks"] = ["alarn"]
    with pytest.raises(WorkflowError, match="'alarn' is not one of.*alarm"):
        validate(config, schema)


def test_every_schema_property_is_described(repo_root):
    schema = yaml.safe_load((repo_root / "workflow" / "schemas" / "config.schema.yaml").read_text())
    missing = []

    def walk(node, where):
        if not isinstance(node, dict):
            return
        if node.get("type") == "object":
            assert node.get("additionalProperties") is False, f"{where} accepts unknown keys"
        for key, prop in node.get("properties", {}).items():
            if "description" not in prop:
                missing.append(f"{where}.{key}")
            walk(prop, f"{where}.{key}")

    walk(schema, "config")
    assert missing == []


# Required keys and cross-key checks -------------------------------------------------------------

# Objects whose keys are optional by design; check_config covers the per-dataset/per-network maps
# (each listed dataset or network must be present) and the keys each tan model needs.
OPTIONAL_KEY_OBJECTS = {
    "config.tan.batch_size",
    "config.tan.models",
    "$defs.tan_model",
    "$defs.tan_per_dataset_count",
    "$defs.tan_per_dataset_k_list",
    "$defs.tan_per_dataset_ordering_list",
    "$defs.tan_per_dataset_draw_list",
    "$defs.per_network_integer",
}


def test_every_object_requires_its_keys(repo_root):
    """A key missing from a config file is an error, unless the object is a map checked by name."""
    schema = yaml.safe_load((repo_root / "workflow" / "schemas" / "config.schema.yaml").read_text())
    loose = []

    def walk(node, where):
        if not isinstance(node, dict):
            return
        if "properties" in node and where not in OPTIONAL_KEY_OBJECTS:
            if set(node.get("required", [])) != set(node["properties"]):
                loose.append(where)
        for key, prop in node.get("properties", {}).items():
            walk(prop, f"{where}.{key}")
        for key, sub in node.get("$defs", {}).items():
            walk(sub, f"$defs.{key}")

    walk(schema, "config")
    assert loose == []


def _leaf_paths(node, prefix=()):
    for key, value in node.items():
        yield (*prefix, key)
        if isinstance(value, dict) and key not in ("models", "epochs", "batch_size"):
            yield from _leaf_paths(value, (*prefix, key))


def _required_paths(repo_root):
    """Key paths of smoke.yaml that the schema requires (maps of datasets/networks left out)."""
    skip = {"hidden_group", "first", "step", "models", "epochs", "batch_size"}
    return [
        p
        for p in _leaf_paths(_load(repo_root, "smoke.yaml"))
        if not (set(p[:-1]) & skip or p[-1] in {"pigs", "adapt", "bnc_letter", "bnc_usps"})
    ]


@pytest.mark.slow
def test_deleting_any_required_key_fails_naming_it(repo_root, schema):
    """Every key of smoke.yaml, deleted in turn, is named by the schema (one compiled validator)."""
    validator = jsonschema.Draft202012Validator(yaml.safe_load(open(schema).read()))
    paths = _required_paths(repo_root)
    assert ("em", "tol") in paths and ("lsbn", "n_samples") in paths
    for path in paths:
        config = copy.deepcopy(_load(repo_root, "smoke.yaml"))
        node = config
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
        messages = [e.message for e in validator.iter_errors(config)]
        assert f"'{path[-1]}' is a required property" in messages, path


def test_deleted_key_error_through_snakemake_validate(repo_root, schema):
    config = copy.deepcopy(_load(repo_root, "smoke.yaml"))
    del config["em"]["tol"]
    with pytest.raises(WorkflowError, match="'tol' is a required property"):
        validate(config, schema)


@pytest.mark.parametrize("name", CONFIGS)
def test_shipped_configs_are_consistent(repo_root, name):
    assert config_problems(_load(repo_root, name)) == []


def _edit(repo_root, edit):
    config = copy.deepcopy(_load(repo_root, "smoke.yaml"))
    edit(config)
    return config


CROSS_KEY_CASES = {
    "senate_range": (
        lambda c: c["data"]["senate"].update(min_yeas=95, max_yeas=90),
        r"data\.senate\.min_yeas \(95\) exceeds data\.senate\.max_yeas \(90\)",
    ),
    "tan_epochs": (
        lambda c: c["tan"]["epochs"].pop("bnc_usps"),
        r"tan\.epochs has no entry for dataset 'bnc_usps'",
    ),
    "tan_batch_size": (
        lambda c: c["tan"]["batch_size"].pop("bnc_letter"),
        r"tan\.batch_size has no entry for dataset 'bnc_letter'",
    ),
    "tan_model_map": (
        lambda c: c["tan"]["models"]["tan_subset"]["orderings"].pop("bnc_letter"),
        r"tan\.models\.tan_subset\.orderings has no entry for dataset 'bnc_letter'",
    ),
    "tan_model_dataset": (
        lambda c: c["tan"]["models"]["nb_ml"]["datasets"].append("mnist"),
        r"tan\.models\.nb_ml\.datasets lists 'mnist', which tan\.datasets does not",
    ),
    "tan_model_settings": (
        lambda c: c["tan"]["models"]["chow_liu"].pop("settings"),
        r"tan\.models\.chow_liu\.settings is missing",
    ),
    "em_hidden_group": (
        lambda c: c["em"]["sharing"]["hidden_group"].pop("pigs"),
        r"em\.sharing\.hidden_group has no entry for network 'pigs'",
    ),
    "em_step": (
        lambda c: c["em"]["sharing"]["step"].pop("adapt"),
        r"em\.sharing\.step has no entry for network 'adapt'",
    ),
    "em_figures_n": (
        lambda c: c["em"]["figures"].update(n_samples=400),
        r"em\.figures\.n_samples 400 is not one of em\.sharing\.sample_sizes \[25, 50\]",
    ),
    "em_figures_network": (
        lambda c: c["em"]["figures"].update(network="alarm"),
        r"em\.figures\.network 'alarm' is not one of em\.sharing\.networks",
    ),
    "lsbn_networks_empty": (
        lambda c: c["lsbn"].update(networks=[]),
        r"lsbn\.networks is empty",
    ),
    "em_sizes_empty": (
        lambda c: c["em"]["sharing"].update(sample_sizes=[]),
        r"em\.sharing\.sample_sizes is empty",
    ),
    "mrf_estimators_empty": (
        lambda c: c["mrf"]["tree"].update(estimators=[]),
        r"mrf\.tree\.estimators is empty",
    ),
    "mrf_datasets": (
        lambda c: c["mrf"].update(datasets=["letter"]),
        r"mrf\.datasets is \['letter'\]: .* it must be \[senate\]",
    ),
    "lsbn_burn_in": (
        lambda c: c["lsbn"].update(mcmc_burn_in=100),
        r"lsbn\.mcmc_burn_in \(100\) must be below lsbn\.mcmc_steps \(100\)",
    ),
}


@pytest.mark.parametrize("case", sorted(CROSS_KEY_CASES))
def test_cross_key_error_names_the_keys(repo_root, case):
    edit, message = CROSS_KEY_CASES[case]
    with pytest.raises(ConfigError, match=message):
        check_config(_edit(repo_root, edit), source="smoke.yaml")


def test_all_problems_are_reported_at_once(repo_root):
    def edit(config):
        config["lsbn"]["networks"] = []
        config["data"]["senate"]["min_yeas"] = 99

    problems = config_problems(_edit(repo_root, edit))
    assert len(problems) == 2
