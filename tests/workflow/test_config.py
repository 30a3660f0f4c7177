"""Every shipped config validates against the schema; a bad key is an error that names it."""

import copy

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

CONFIGS = ["config.yaml", "paper.yaml", "smoke.yaml"]


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
