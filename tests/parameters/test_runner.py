"""One EM job of the study: designs (sharing, endpoints, mini-ADAPT) and the files a job writes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bnstudy.data.integrity import save_verified_npz
from bnstudy.networks import forward_sample
from bnstudy.networks.hugin import write_net
from bnstudy.studies.em.mini_adapt import hidden_nodes, shared_node_set
from bnstudy.studies.em.runner import job_design, run_em_job, trial_design
from bnstudy.studies.em.trials import EMSettings, choose_hidden

SETTINGS = EMSettings(tol=1e-3, min_iter=3, max_iter=10, pseudo_count=1.0, error_metric="l1")


def test_sharing_design_draws_from_the_job_seed(small_bn):
    design = {"kind": "sharing", "network": "small", "hidden_group": 1, "first": 2, "step": 1}
    plan = trial_design(small_bn, design, seed=5)
    assert plan.hidden == ["A", "A2"]
    assert [len(s) for s in plan.levels] == [0, 2]
    assert plan.columns == {"network": "small"}
    assert trial_design(small_bn, design, seed=5) == plan


def test_endpoints_design_hides_a_random_subset(small_bn):
    design = {"kind": "endpoints", "network": "small", "hidden_group": 1, "hidden_count": 1}
    plan = trial_design(small_bn, design, seed=3)
    expected = choose_hidden(small_bn, 1, count=1, rng=np.random.default_rng(3))
    assert plan.hidden == expected
    assert plan.levels == [[], expected]


def test_mini_adapt_design(mini_adapt):
    plan = trial_design(
        mini_adapt, {"kind": "mini_adapt", "observables": "O_P", "sharing": "SB"}, seed=0
    )
    assert plan.hidden == hidden_nodes("O_P")
    assert plan.levels == [shared_node_set()]
    assert plan.columns == {"observables": "O_P", "sharing": "SB"}
    none = trial_design(
        mini_adapt, {"kind": "mini_adapt", "observables": "O_P", "sharing": "none"}, seed=0
    )
    assert none.levels == [[]]


@pytest.mark.parametrize(
    ("design", "match"),
    [
        ({"kind": "gradual"}, "unknown EM design kind 'gradual'"),
        (
            {"kind": "sharing", "network": "small", "hidden_group": 1},
            r"lacks the keys \['first', 'step'\]",
        ),
    ],
)
def test_bad_design_raises(small_bn, design, match):
    with pytest.raises(ValueError, match=match):
        trial_design(small_bn, design, seed=0)


def test_job_writes_trials_and_traces(small_bn, tmp_path):
    network = tmp_path / "small.net"
    write_net(small_bn, network)
    samples = tmp_path / "samples.npz"
    save_verified_npz(samples, samples=forward_sample(small_bn, 60, rng=np.random.default_rng(2)))
    design = {"kind": "endpoints", "network": "small", "hidden_group": 1, "hidden_count": 2}
    returned = run_em_job(
        network,
        samples,
        tmp_path / "trials.csv",
        tmp_path / "traces.npz",
        design=design,
        settings=SETTINGS,
        seed=7,
        n_trials=2,
    )
    written = pd.read_csv(tmp_path / "trials.csv")
    assert len(written) == len(returned) == 4
    assert written.columns[len(returned.columns) :][:3].tolist() == [
        "network",
        "n_hidden",
        "n_samples",
    ]
    assert written["n_hidden"].eq(2).all() and written["n_samples"].eq(60).all()
    assert written["n_shared"].tolist() == [0, 0, 2, 2]
    with np.load(tmp_path / "traces.npz") as traces:
        assert traces["loglik"].shape == (4, SETTINGS.max_iter + 1)


EM_BLOCK = {"sharing": {"hidden_group": {"pigs": 2}, "first": {"pigs": 10}, "step": {"pigs": 15}}}


def test_job_design_from_the_config_and_wildcards():
    assert job_design("sharing", EM_BLOCK, {"network": "pigs", "n": "25"}) == {
        "kind": "sharing",
        "network": "pigs",
        "hidden_group": 2,
        "first": 10,
        "step": 15,
    }
    assert job_design("endpoints", EM_BLOCK, {"network": "pigs", "h": "6", "n": "50"}) == {
        "kind": "endpoints",
        "network": "pigs",
        "hidden_group": 2,
        "hidden_count": 6,
    }
    assert job_design("mini_adapt", EM_BLOCK, {"observables": "O_T", "sharing": "none"}) == {
        "kind": "mini_adapt",
        "observables": "O_T",
        "sharing": "none",
    }
    with pytest.raises(ValueError, match="'adapt' has no entry in em.sharing.hidden_group"):
        job_design("sharing", EM_BLOCK, {"network": "adapt", "n": "25"})
    with pytest.raises(ValueError, match="unknown EM design kind 'gradual'"):
        job_design("gradual", EM_BLOCK, {})
