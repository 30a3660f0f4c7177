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


# One block of replicates: grouped true parameters, the largest training set and the test set.
rule simulate_mrf_data:
    output:
        data="results/mrf/{simulation}/block={block}/data.npz",
    log:
        "logs/simulate_mrf_data/{simulation}/block={block}.log",
    benchmark:
        "logs/benchmarks/simulate_mrf_data/{simulation}/block={block}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        code=code_version("simulate_mrf_data.py"),
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
        "logs/benchmarks/fit_mrf/{simulation}/{estimator}/block={block}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=3000,
    params:
        code=code_version("fit_mrf.py"),
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
        "logs/benchmarks/learn_mrf_senate_graph/train={session}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("learn_mrf_senate_graph.py"),
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
        "logs/benchmarks/fit_mrf_senate/train={session}/{estimator}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("fit_mrf_senate.py"),
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
        "logs/benchmarks/make_table_mrf_summary.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("make_table_mrf_summary.py"),
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
        "logs/benchmarks/make_table_mrf_runtime.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        code=code_version("make_table_mrf_runtime.py"),
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
        "logs/benchmarks/make_table_mrf_senate.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        code=code_version("make_table_mrf_senate.py"),
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
        "logs/benchmarks/plot_mrf_figures.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("plot_mrf_figures.py"),
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
        catalog="workflow/published/claims.tsv",
        archived=lambda wildcards: paper_archive("mrf"),
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
        "logs/benchmarks/make_table_mrf_claims.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        code=code_version("make_table_mrf_claims.py"),
        scale=lambda wildcards: study_scale([config_source()]),
        archive_scale=lambda wildcards: archive_scale(),
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
