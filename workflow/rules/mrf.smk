# Paper `mrf`: Liu & Page (2013), latently-grouped parameters in binary pairwise MRFs.
#
# results/mrf/<simulation>/block=<block>/data.npz                truth, training and test samples
#                                                                 of a block of replicates
# results/mrf/<simulation>/<estimator>/block=<block>/             one estimator on every training
#                                                                 size of a block's replicates
# results/mrf/senate/train=<session>/graph.npz                    Senate graph of the training session
# results/mrf/senate/train=<session>/<estimator>/                 MLE or Gibbs_SBA on the Senate votes
# <simulation>: tree (Sec. 4.1, Figs. 1-2), small_grid (Sec. 4.2, Figs. 3-4, Table 1),
# large_grid (Sec. 4.3, Figs. 5-6); the Senate is Sec. 5, Table 2.
#
# A job handles a block of replicates (config mrf.<simulation>.replicates_per_job, else the
# defaults below) so that the paper's 500 tree replicates do not make thousands of short jobs; each
# replicate and each run keeps its own seed, derived from the config seed, the simulation and the
# replicate (and the estimator and n for a fit), so the blocking changes no result.

# Replicates per job: a tree block of 50 is ~10 minutes per estimator at the paper's scale.
MRF_REPLICATES_PER_JOB = {"tree": 50, "small_grid": 5, "large_grid": 5}


def mrf_block_size(simulation):
    cfg = config["mrf"][simulation]
    size = int(cfg.get("replicates_per_job", MRF_REPLICATES_PER_JOB[simulation]))
    if size < 1:
        raise ValueError(
            f"config mrf.{simulation}.replicates_per_job must be >= 1, got {size}"
        )
    return size


def mrf_block_reps(simulation, block):
    """The replicate numbers of one block: [block * size, (block + 1) * size) within replicates."""
    size, total = mrf_block_size(simulation), config["mrf"][simulation]["replicates"]
    reps = list(range(int(block) * size, min((int(block) + 1) * size, total)))
    if not reps:
        raise ValueError(
            f"{simulation} has {total} replicates in blocks of {size}: no block {block}"
        )
    return reps


def mrf_blocks(simulation):
    size, total = mrf_block_size(simulation), config["mrf"][simulation]["replicates"]
    return list(range(-(-total // size)))


def mrf_block_runs():
    """Per-run metrics (one row per training size and replicate) of every block."""
    return [
        f"results/mrf/{simulation}/{estimator}/block={block}/metrics.csv"
        for simulation in MRF_SIMULATIONS
        for estimator in config["mrf"][simulation]["estimators"]
        for block in mrf_blocks(simulation)
    ]


def mrf_block_inputs(wildcards):
    """The block's replicates, and the grouping-blind MLEs a sampler starts from."""
    root = f"results/mrf/{wildcards.simulation}"
    inputs = {"data": f"{root}/block={wildcards.block}/data.npz"}
    if wildcards.estimator in MRF_FROM_MLE:
        inputs["mle"] = f"{root}/mle/block={wildcards.block}/estimates.npz"
    return inputs


def mrf_simulation_seeds(wildcards):
    return {
        rep: seed_for("simulate_mrf_data", wildcards.simulation, rep)
        for rep in mrf_block_reps(wildcards.simulation, wildcards.block)
    }


def mrf_fit_seeds(wildcards):
    sim, est = wildcards.simulation, wildcards.estimator
    return [
        ((n, rep), seed_for("fit_mrf", sim, est, n, rep))
        for n in config["mrf"][sim]["sample_sizes"]
        for rep in mrf_block_reps(sim, wildcards.block)
    ]


wildcard_constraints:
    block=r"\d+",


# One block of replicates: grouped true parameters, the largest training set and the test set.
rule simulate_mrf_data:
    output:
        data="results/mrf/{simulation}/block={block}/data.npz",
    log:
        "logs/simulate_mrf_data/{simulation}/block={block}.log",
    benchmark:
        "benchmarks/results/simulate_mrf_data/{simulation}/block={block}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        seeds=mrf_simulation_seeds,
        graph=lambda wildcards: mrf_graph(wildcards.simulation),
        n_groups=lambda wildcards: config["mrf"][wildcards.simulation]["n_groups"],
        n_train=lambda wildcards: max(
            config["mrf"][wildcards.simulation]["sample_sizes"]
        ),
        n_test=lambda wildcards: config["mrf"][wildcards.simulation]["n_test"],
        gibbs_sweeps=lambda wildcards: mrf_gibbs_sweeps(wildcards.simulation),
    message:
        "Simulating MRF data: {wildcards.simulation}, replicate block {wildcards.block}"
    script:
        "../scripts/simulate_mrf_data.py"


# One estimator (MLE, oracle or a DP grouping sampler) on every training size of a block.
rule fit_mrf:
    input:
        unpack(mrf_block_inputs),
    output:
        metrics="results/mrf/{simulation}/{estimator}/block={block}/metrics.csv",
        estimate="results/mrf/{simulation}/{estimator}/block={block}/estimates.npz",
    log:
        "logs/fit_mrf/{simulation}/{estimator}/block={block}.log",
    benchmark:
        "benchmarks/results/fit_mrf/{simulation}/{estimator}/block={block}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=3000,
    params:
        seeds=mrf_fit_seeds,
        sample_sizes=lambda wildcards: config["mrf"][wildcards.simulation][
            "sample_sizes"
        ],
        graph=lambda wildcards: mrf_graph(wildcards.simulation),
        settings=lambda wildcards: mrf_settings(
            wildcards.simulation, wildcards.estimator
        ),
        common=mrf_common(),
    message:
        "MRF {wildcards.estimator} on {wildcards.simulation}, replicate block {wildcards.block}"
    script:
        "../scripts/fit_mrf.py"


# The Senate graph (~279 edges) by neighbourhood selection on the training session's votes.
rule learn_mrf_senate_graph:
    input:
        senate=prepared_dataset("senate"),
    output:
        graph="results/mrf/senate/train={session}/graph.npz",
    log:
        "logs/learn_mrf_senate_graph/train={session}.log",
    benchmark:
        "benchmarks/results/learn_mrf_senate_graph/train={session}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        target_edges=config["mrf"]["senate"]["target_edges"],
    message:
        "Learning the Senate graph from session {wildcards.session}"
    script:
        "../scripts/learn_mrf_senate_graph.py"


# MLE (PCD) or Gibbs_SBA on one session, log pseudo-likelihood on both (Table 2).
rule fit_mrf_senate:
    input:
        unpack(mrf_senate_inputs),
    output:
        metrics="results/mrf/senate/train={session}/{estimator}/metrics.csv",
        estimate="results/mrf/senate/train={session}/{estimator}/estimate.npz",
    log:
        "logs/fit_mrf_senate/train={session}/{estimator}.log",
    benchmark:
        "benchmarks/results/fit_mrf_senate/train={session}/{estimator}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        seed=lambda wildcards: seed_for(
            "fit_mrf_senate", wildcards.session, wildcards.estimator
        ),
        settings=lambda wildcards: mrf_settings("senate", wildcards.estimator),
        common=mrf_common(),
    message:
        "Senate: {wildcards.estimator} trained on session {wildcards.session}"
    script:
        "../scripts/fit_mrf_senate.py"


# Every simulation run in one tidy table, and means over replicates (the data of Figs. 1-6).
rule make_table_mrf_summary:
    input:
        runs=mrf_block_runs(),
    output:
        runs="reports/mrf/tables/runs.csv",
        csv=report(
            table("mrf", "summary")["csv"],
            caption="../report/mrf_summary.rst",
            category="mrf: latently-grouped MRF parameters",
            labels={"table": "simulations"},
        ),
        md=table("mrf", "summary")["md"],
    log:
        "logs/make_table_mrf_summary.log",
    benchmark:
        "benchmarks/results/make_table_mrf_summary.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    message:
        "Summarizing the MRF simulations"
    script:
        "../scripts/make_table_mrf_summary.py"


# Table 1: run times on the small grid beside the paper's.
rule make_table_mrf_runtime:
    input:
        runs="reports/mrf/tables/runs.csv",
        published="workflow/published/mrf_table1.tsv",
    output:
        csv=report(
            table("mrf", "table1_runtime")["csv"],
            caption="../report/mrf_table1.rst",
            category="mrf: latently-grouped MRF parameters",
            labels={"table": "Table 1"},
        ),
        md=table("mrf", "table1_runtime")["md"],
    log:
        "logs/make_table_mrf_runtime.log",
    benchmark:
        "benchmarks/results/make_table_mrf_runtime.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    message:
        "Table 1 of the MRF paper"
    script:
        "../scripts/make_table_mrf_runtime.py"


# Table 2: Senate log pseudo-likelihoods beside the paper's.
rule make_table_mrf_senate:
    input:
        runs=mrf_senate_runs(),
        published="workflow/published/mrf_table2.tsv",
    output:
        csv=report(
            table("mrf", "table2_senate")["csv"],
            caption="../report/mrf_table2.rst",
            category="mrf: latently-grouped MRF parameters",
            labels={"table": "Table 2"},
        ),
        md=table("mrf", "table2_senate")["md"],
    log:
        "logs/make_table_mrf_senate.log",
    benchmark:
        "benchmarks/results/make_table_mrf_senate.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    message:
        "Table 2 of the MRF paper"
    script:
        "../scripts/make_table_mrf_senate.py"


# Figures 1-6: metrics against n, groups inferred, run times.
rule plot_mrf_figures:
    input:
        runs="reports/mrf/tables/runs.csv",
    output:
        fig1=report(
            "reports/mrf/figures/fig1_tree.png",
            caption="../report/mrf_fig1.rst",
            category="mrf: latently-grouped MRF parameters",
            labels={"figure": "Figure 1"},
        ),
        fig2=report(
            "reports/mrf/figures/fig2_tree_groups_runtime.png",
            caption="../report/mrf_fig2.rst",
            category="mrf: latently-grouped MRF parameters",
            labels={"figure": "Figure 2"},
        ),
        fig3=report(
            "reports/mrf/figures/fig3_small_grid_groups.png",
            caption="../report/mrf_fig3.rst",
            category="mrf: latently-grouped MRF parameters",
            labels={"figure": "Figure 3"},
        ),
        fig4=report(
            "reports/mrf/figures/fig4_small_grid.png",
            caption="../report/mrf_fig4.rst",
            category="mrf: latently-grouped MRF parameters",
            labels={"figure": "Figure 4"},
        ),
        fig5=report(
            "reports/mrf/figures/fig5_large_grid.png",
            caption="../report/mrf_fig5.rst",
            category="mrf: latently-grouped MRF parameters",
            labels={"figure": "Figure 5"},
        ),
        fig6=report(
            "reports/mrf/figures/fig6_large_grid_groups_runtime.png",
            caption="../report/mrf_fig6.rst",
            category="mrf: latently-grouped MRF parameters",
            labels={"figure": "Figure 6"},
        ),
    log:
        "logs/plot_mrf_figures.log",
    benchmark:
        "benchmarks/results/plot_mrf_figures.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    message:
        "Figures 1-6 of the MRF paper"
    script:
        "../scripts/plot_mrf_figures.py"


# The paper's statements about its results, checked on ours.
rule make_table_mrf_claims:
    input:
        summary=table("mrf", "summary")["csv"],
        runtime=table("mrf", "table1_runtime")["csv"],
        senate=table("mrf", "table2_senate")["csv"],
    output:
        csv=report(
            table("mrf", "claims")["csv"],
            caption="../report/mrf_claims.rst",
            category="mrf: latently-grouped MRF parameters",
            labels={"table": "claims"},
        ),
        md=table("mrf", "claims")["md"],
    log:
        "logs/make_table_mrf_claims.log",
    benchmark:
        "benchmarks/results/make_table_mrf_claims.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    message:
        "Checking the MRF paper's claims"
    script:
        "../scripts/make_table_mrf_claims.py"


rule mrf:
    input:
        rules.make_table_mrf_claims.output,
        rules.make_table_mrf_summary.output,
        rules.make_table_mrf_runtime.output,
        rules.make_table_mrf_senate.output,
        rules.plot_mrf_figures.output,
        datasets=[prepared_dataset(name) for name in config["mrf"]["datasets"]],
