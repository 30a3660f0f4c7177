"""JunctionTree on alarm against pgmpy's VariableElimination (posteriors and P(e))."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.inference import JunctionTree
from bnstudy.networks import forward_sample, load_network

HIDDEN_SETS = {
    "three": ["HYPOVOLEMIA", "LVEDVOLUME", "STROKEVOLUME"],
    "ten": [
        "HYPOVOLEMIA",
        "LVFAILURE",
        "LVEDVOLUME",
        "STROKEVOLUME",
        "CO",
        "HR",
        "CATECHOL",
        "TPR",
        "SAO2",
        "VENTLUNG",
    ],
}


@pytest.fixture(scope="module")
def alarm(mirror):
    return load_network(mirror / "bif" / "alarm.bif.gz")


@pytest.fixture(scope="module")
def alarm_ve(alarm):
    from pgmpy.inference import VariableElimination

    return VariableElimination(alarm.to_pgmpy())


def _prob_of_evidence(ve, evidence: dict[str, str]) -> float:
    """``P(e)`` by the chain rule ``prod_k P(e_k | e_1..e_{k-1})`` of VE queries."""
    logp, seen = 0.0, {}
    for var, state in evidence.items():
        q = ve.query([var], evidence=dict(seen), show_progress=False)
        logp += np.log(q.values[q.state_names[var].index(state)])
        seen[var] = state
    return logp


@pytest.mark.parametrize("which", sorted(HIDDEN_SETS))
def test_alarm_matches_variable_elimination(alarm, alarm_ve, which):
    hidden = HIDDEN_SETS[which]
    jt = JunctionTree(alarm, hidden)
    x = forward_sample(alarm, 4, rng=np.random.default_rng(2014))
    ev = x[:, [alarm.index(v) for v in jt.observed_]]
    post = jt.hidden_marginals(ev)
    ll = jt.log_likelihood(ev)
    for i, row in enumerate(ev):
        evidence = {v: alarm.state_names[v][s] for v, s in zip(jt.observed_, row, strict=True)}
        for h in hidden:
            q = alarm_ve.query([h], evidence=evidence, show_progress=False)
            want = np.array([q.values[q.state_names[h].index(s)] for s in alarm.state_names[h]])
            np.testing.assert_allclose(post[h][i], want, rtol=0, atol=1e-10, err_msg=h)
        np.testing.assert_allclose(ll[i], _prob_of_evidence(alarm_ve, evidence), rtol=1e-10)
