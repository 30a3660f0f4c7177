"""EM trials of one design on one sampled dataset (Reed & Mengshoel 2014, Sec. 5.2 and 5.3).

The design (gradual sharing, the endpoints of Fig. 6, or a mini-ADAPT condition of Table 4) comes
from the rule's ``params.design``; see :mod:`bnstudy.studies.em.runner`. Outputs: ``trials.csv``
(one row per trial and sharing level) and ``traces.npz`` (log-likelihood and error after every
iteration, for the path figures).
"""

from bnstudy.logs import configure_logging
from bnstudy.studies.em.runner import run_em_job
from bnstudy.studies.em.trials import EMSettings


def main(network, samples, trials_csv, traces_npz, *, design, em, seed, n_trials):
    run_em_job(
        network,
        samples,
        trials_csv,
        traces_npz,
        design=design,
        settings=EMSettings.from_config(em),
        seed=seed,
        n_trials=n_trials,
    )


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        snakemake.input.network,
        snakemake.input.samples,
        snakemake.output.trials,
        snakemake.output.traces,
        design=snakemake.params.design,
        em=snakemake.params.em,
        seed=snakemake.params.seed,
        n_trials=snakemake.params.trials,
    )
