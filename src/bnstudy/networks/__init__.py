"""Discrete Bayesian networks: a numpy container, BIF and Hugin ``.net`` I/O, forward sampling.

>>> from bnstudy.networks import load_network, forward_sample  # doctest: +SKIP
>>> bn = load_network("alarm.bif.gz")  # doctest: +SKIP
>>> x = forward_sample(bn, 20000, rng=np.random.default_rng(0))  # doctest: +SKIP
"""

from bnstudy.networks.bif import parse_bif, read_bif
from bnstudy.networks.bn import DiscreteBayesianNetwork
from bnstudy.networks.hugin import parse_net, read_net, write_net
from bnstudy.networks.io import load_network
from bnstudy.networks.sampling import forward_sample, samples_to_frame

__all__ = [
    "DiscreteBayesianNetwork",
    "forward_sample",
    "load_network",
    "parse_bif",
    "parse_net",
    "read_bif",
    "read_net",
    "samples_to_frame",
    "write_net",
]
