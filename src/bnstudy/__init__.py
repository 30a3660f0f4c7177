"""bnstudy: the library behind a reproducible study of four papers on learning graphical models.

Subpackages
-----------
data        dataset registry, verified download, readers, MDL discretization
networks    discrete Bayesian networks: BIF / Hugin .net I/O, pgmpy interop, forward sampling
inference   exact inference
parameters  parameter learning (MLE, EM with parameter sharing)
classifiers Bayesian network classifiers (naive Bayes, TAN, differentiable TAN)
mrf         binary pairwise Markov random fields
structure   structure learning
metrics     evaluation metrics
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("bnstudy")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"

__all__ = ["__version__"]
