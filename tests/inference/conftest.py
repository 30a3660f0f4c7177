"""Small networks for the inference tests: asia and cancer (bnlearn CPTs) and a hand-made net."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.networks import DiscreteBayesianNetwork


def _yes_no(p_yes: float) -> list[float]:
    return [p_yes, 1.0 - p_yes]


@pytest.fixture(scope="session")
def asia() -> DiscreteBayesianNetwork:
    """Lauritzen & Spiegelhalter's chest-clinic network (bnlearn CPTs; ``either`` is a logical OR)."""
    yn = ["yes", "no"]
    either = np.zeros((2, 2, 2))  # (lung, tub, either)
    either[0, 0] = either[0, 1] = either[1, 0] = [1.0, 0.0]
    either[1, 1] = [0.0, 1.0]
    return DiscreteBayesianNetwork(
        nodes=["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"],
        parents={
            "tub": ["asia"],
            "lung": ["smoke"],
            "bronc": ["smoke"],
            "either": ["lung", "tub"],
            "xray": ["either"],
            "dysp": ["bronc", "either"],
        },
        cpts={
            "asia": np.array(_yes_no(0.01)),
            "tub": np.array([_yes_no(0.05), _yes_no(0.01)]),
            "smoke": np.array(_yes_no(0.5)),
            "lung": np.array([_yes_no(0.1), _yes_no(0.01)]),
            "bronc": np.array([_yes_no(0.6), _yes_no(0.3)]),
            "either": either,
            "xray": np.array([_yes_no(0.98), _yes_no(0.05)]),
            "dysp": np.array([[_yes_no(0.9), _yes_no(0.8)], [_yes_no(0.7), _yes_no(0.1)]]),
        },
        state_names={
            v: yn for v in ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]
        },
        name="asia",
    )


@pytest.fixture(scope="session")
def cancer() -> DiscreteBayesianNetwork:
    """Korb & Nicholson's cancer network (bnlearn CPTs)."""
    return DiscreteBayesianNetwork(
        nodes=["Pollution", "Smoker", "Cancer", "Xray", "Dyspnoea"],
        parents={"Cancer": ["Pollution", "Smoker"], "Xray": ["Cancer"], "Dyspnoea": ["Cancer"]},
        cpts={
            "Pollution": np.array([0.9, 0.1]),
            "Smoker": np.array([0.3, 0.7]),
            "Cancer": np.array([[_yes_no(0.03), _yes_no(0.001)], [_yes_no(0.05), _yes_no(0.02)]]),
            "Xray": np.array([_yes_no(0.9), _yes_no(0.2)]),
            "Dyspnoea": np.array([_yes_no(0.65), _yes_no(0.3)]),
        },
        state_names={
            "Pollution": ["low", "high"],
            "Smoker": ["True", "False"],
            "Cancer": ["True", "False"],
            "Xray": ["positive", "negative"],
            "Dyspnoea": ["True", "False"],
        },
        name="cancer",
    )


@pytest.fixture(scope="session")
def handmade() -> DiscreteBayesianNetwork:
    """Six nodes, cardinalities 2-4, a three-parent node, a v-structure, a loop and a zero entry.

    Arcs: A->C, B->C, A->D, C->E, D->E, B->E (E has three parents), D->F. The moral graph has the
    loop A-C-E-D-A; F hangs off D.
    """
    rng = np.random.default_rng(20140701)
    card = {"A": 2, "B": 3, "C": 4, "D": 2, "E": 3, "F": 2}
    parents = {"C": ["A", "B"], "D": ["A"], "E": ["C", "D", "B"], "F": ["D"]}
    nodes = ["A", "B", "C", "D", "E", "F"]
    cpts = {}
    for v in nodes:
        shape = (*[card[p] for p in parents.get(v, [])], card[v])
        cpts[v] = rng.dirichlet(np.ones(card[v]), size=shape[:-1])
    # A structural zero: C is never in state 3 when A=0, B=2.
    cpts["C"][0, 2] = [0.5, 0.3, 0.2, 0.0]
    return DiscreteBayesianNetwork(
        nodes=nodes,
        parents=parents,
        cpts=cpts,
        state_names={v: [f"{v.lower()}{k}" for k in range(card[v])] for v in nodes},
        name="handmade",
    )
