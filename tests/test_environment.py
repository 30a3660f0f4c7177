"""pyproject.toml and envs/bnstudy.yaml pin the same packages."""

import tomllib

import yaml


def _requirements(repo_root):
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    return set(project["dependencies"]) | set(project["optional-dependencies"]["dev"])


def test_conda_env_pins_what_pyproject_pins(repo_root):
    env = yaml.safe_load((repo_root / "envs" / "bnstudy.yaml").read_text())
    pip_block = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    pinned = {line for line in pip_block if not line.startswith("-")}
    assert pinned == _requirements(repo_root)
    assert "python=3.11" in env["dependencies"]


def test_every_dependency_is_pinned_exactly(repo_root):
    unpinned = [req for req in _requirements(repo_root) if "==" not in req]
    assert unpinned == []
    assert "torch==2.13.0" in _requirements(repo_root)
