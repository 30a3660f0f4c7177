# Paper `em`: Reed & Mengshoel (2014), EM with parameter sharing.
#
# results/em/sharing/<network>/n=<n>/            Table 3, Fig. 2 and 5: gradual sharing of the hidden set
# results/em/endpoints/<network>/hidden=<h>/n=<n>/ Fig. 6: h hidden nodes, no sharing vs all shared
# results/em/mini_adapt/<observables>/sharing=<s>/ Table 4, Fig. 3 and 4


# mini-ADAPT: three breaker fragments of ADAPT, the outside parent summed out.
rule build_mini_adapt:
    input:
        adapt=raw_inputs("adapt")[0],
    output:
        network="resources/networks/mini_adapt.net",
    log:
        "logs/build_mini_adapt.log",
    benchmark:
        "logs/benchmarks/build_mini_adapt.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("build_mini_adapt.py"),
    message:
        "Building mini-ADAPT from ADAPT"
    script:
        "../scripts/build_mini_adapt.py"


# Batches of random EM trials at every level of gradual sharing (Sec. 5.2).
rule run_em_sharing:
    input:
        network=network_input,
        samples=network_samples("{network}", "{n}", 0),
    output:
        trials="results/em/sharing/{network}/n={n}/trials.csv",
        traces="results/em/sharing/{network}/n={n}/traces.npz",
    log:
        "logs/run_em_sharing/{network}/n={n}.log",
    benchmark:
        "logs/benchmarks/run_em_sharing/{network}/n={n}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        code=code_version("run_em_trials.py"),
        seed=lambda wildcards: seed_for(
            "run_em_sharing", wildcards.network, wildcards.n
        ),
        design=lambda wildcards: em_design("sharing", wildcards),
        em=em_settings(),
        trials=config["em"]["sharing"]["trials"],
    message:
        "EM with gradual sharing on {wildcards.network}, {wildcards.n} samples"
    script:
        "../scripts/run_em_trials.py"


# No sharing vs sharing every hidden node, for a random hidden subset of a given size (Fig. 6).
rule run_em_endpoints:
    input:
        network=network_input,
        samples=network_samples("{network}", "{n}", 0),
    output:
        trials="results/em/endpoints/{network}/hidden={h}/n={n}/trials.csv",
        traces="results/em/endpoints/{network}/hidden={h}/n={n}/traces.npz",
    log:
        "logs/run_em_endpoints/{network}/hidden={h}/n={n}.log",
    benchmark:
        "logs/benchmarks/run_em_endpoints/{network}/hidden={h}/n={n}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        code=code_version("run_em_trials.py"),
        seed=lambda wildcards: seed_for(
            "run_em_endpoints", wildcards.network, wildcards.h, wildcards.n
        ),
        design=lambda wildcards: em_design("endpoints", wildcards),
        em=em_settings(),
        trials=config["em"]["endpoints"]["trials"],
    message:
        "EM, {wildcards.h} hidden nodes of {wildcards.network}, no sharing vs all shared"
    script:
        "../scripts/run_em_trials.py"


# mini-ADAPT: one observable set (O_C, O_P, O_T), SB shared or not (Sec. 5.3.1, Table 4).
rule run_em_mini_adapt:
    input:
        network="resources/networks/mini_adapt.net",
        samples=network_samples(
            "mini_adapt", config["em"]["mini_adapt"]["n_samples"], 0
        ),
    output:
        trials="results/em/mini_adapt/{observables}/sharing={sharing}/trials.csv",
        traces="results/em/mini_adapt/{observables}/sharing={sharing}/traces.npz",
    log:
        "logs/run_em_mini_adapt/{observables}/sharing={sharing}.log",
    benchmark:
        "logs/benchmarks/run_em_mini_adapt/{observables}/sharing={sharing}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("run_em_trials.py"),
        seed=lambda wildcards: seed_for(
            "run_em_mini_adapt", wildcards.observables, wildcards.sharing
        ),
        design=lambda wildcards: em_design("mini_adapt", wildcards),
        em=em_settings(),
        trials=config["em"]["mini_adapt"]["trials"],
    message:
        "EM on mini-ADAPT, {wildcards.observables}, sharing {wildcards.sharing}"
    script:
        "../scripts/run_em_trials.py"


# Table 3: Pearson r between the number of shared nodes and each metric's mean and std.
rule make_table_em_sharing:
    input:
        trials=em_sharing_runs(),
        published="workflow/published/em_table3.tsv",
    output:
        summary="reports/em/tables/sharing_levels.csv",
        csv=report(
            table("em", "table3_sharing_correlations")["csv"],
            caption="../report/em_table3.rst",
            category="em: EM with parameter sharing",
            labels={"table": "Table 3"},
        ),
        md=table("em", "table3_sharing_correlations")["md"],
    log:
        "logs/make_table_em_sharing.log",
    benchmark:
        "logs/benchmarks/make_table_em_sharing.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("make_table_em_sharing.py"),
    message:
        "Table 3 of the EM paper"
    script:
        "../scripts/make_table_em_sharing.py"


# Table 4 (mini-ADAPT), which error metric reproduces the paper's complete-data error, and where
# the trials of Figs. 3-4 end (error regions).
rule make_table_em_mini_adapt:
    input:
        trials=em_mini_adapt_runs(),
        published="workflow/published/em_table4.tsv",
    output:
        csv=report(
            table("em", "table4_mini_adapt")["csv"],
            caption="../report/em_table4.rst",
            category="em: EM with parameter sharing",
            labels={"table": "Table 4"},
        ),
        md=table("em", "table4_mini_adapt")["md"],
        metrics_csv=report(
            table("em", "error_metrics")["csv"],
            caption="../report/em_error_metrics.rst",
            category="em: EM with parameter sharing",
            labels={"table": "error metric"},
        ),
        metrics_md=table("em", "error_metrics")["md"],
        regions_csv=report(
            table("em", "error_regions")["csv"],
            caption="../report/em_error_regions.rst",
            category="em: EM with parameter sharing",
            labels={"table": "Figs. 3-4 error regions"},
        ),
        regions_md=table("em", "error_regions")["md"],
    log:
        "logs/make_table_em_mini_adapt.log",
    benchmark:
        "logs/benchmarks/make_table_em_mini_adapt.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("make_table_em_mini_adapt.py"),
    message:
        "Table 4 of the EM paper, and the error regions of its Figs. 3-4"
    script:
        "../scripts/make_table_em_mini_adapt.py"


# Figures 2-6: metric trends under sharing, log-likelihood/error paths, error histograms.
rule plot_em_figures:
    input:
        sharing="reports/em/tables/sharing_levels.csv",
        paths_trials=f"results/em/sharing/{config['em']['figures']['network']}/n={config['em']['figures']['n_samples']}/trials.csv",
        paths_traces=f"results/em/sharing/{config['em']['figures']['network']}/n={config['em']['figures']['n_samples']}/traces.npz",
        endpoints=em_endpoint_runs(),
        mini_trials=em_mini_adapt_runs("trials.csv"),
        mini_traces=em_mini_adapt_runs("traces.npz"),
    output:
        fig2=report(
            "reports/em/figures/fig2_sharing_trends.png",
            caption="../report/em_fig2.rst",
            category="em: EM with parameter sharing",
            labels={"figure": "Figure 2"},
        ),
        fig3=report(
            "reports/em/figures/fig3_mini_adapt_paths.png",
            caption="../report/em_fig3.rst",
            category="em: EM with parameter sharing",
            labels={"figure": "Figure 3"},
        ),
        fig4=report(
            "reports/em/figures/fig4_mini_adapt_error_histograms.png",
            caption="../report/em_fig4.rst",
            category="em: EM with parameter sharing",
            labels={"figure": "Figure 4"},
        ),
        fig5=report(
            "reports/em/figures/fig5_adapt_paths.png",
            caption="../report/em_fig5.rst",
            category="em: EM with parameter sharing",
            labels={"figure": "Figure 5"},
        ),
        fig6=report(
            "reports/em/figures/fig6_adapt_subset_paths.png",
            caption="../report/em_fig6.rst",
            category="em: EM with parameter sharing",
            labels={"figure": "Figure 6"},
        ),
    log:
        "logs/plot_em_figures.log",
    benchmark:
        "logs/benchmarks/plot_em_figures.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("plot_em_figures.py"),
        figures=canonical(config["em"]["figures"]),
        seed=seed_for("plot_em_figures"),
    message:
        "Figures 2-6 of the EM paper"
    script:
        "../scripts/plot_em_figures.py"


# Figs. 5 and 6 as a table: the error and log-likelihood where the trials end, no sharing vs all
# hidden nodes shared (the gradual-sharing run of the figures' network and the endpoints run).
rule make_table_em_endpoints:
    input:
        fig5=f"results/em/sharing/{config['em']['figures']['network']}/n={config['em']['figures']['n_samples']}/trials.csv",
        fig6=em_endpoint_runs()[0],
    output:
        csv=report(
            table("em", "endpoints")["csv"],
            caption="../report/em_endpoints.rst",
            category="em: EM with parameter sharing",
            labels={"table": "Figs. 5-6 endpoints"},
        ),
        md=table("em", "endpoints")["md"],
    log:
        "logs/make_table_em_endpoints.log",
    benchmark:
        "logs/benchmarks/make_table_em_endpoints.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        code=code_version("make_table_em_endpoints.py"),
    message:
        "Figs. 5 and 6 of the EM paper: where the trials end"
    script:
        "../scripts/make_table_em_endpoints.py"


# The paper's statements about its results, checked on ours.
rule make_table_em_claims:
    input:
        table3=table("em", "table3_sharing_correlations")["csv"],
        table4=table("em", "table4_mini_adapt")["csv"],
        metrics=table("em", "error_metrics")["csv"],
        endpoints=table("em", "endpoints")["csv"],
        regions=table("em", "error_regions")["csv"],
        paper3="workflow/published/em_table3.tsv",
        catalog="workflow/published/claims.tsv",
        archived=lambda wildcards: paper_archive("em"),
    output:
        csv=report(
            table("em", "claims")["csv"],
            caption="../report/em_claims.rst",
            category="em: EM with parameter sharing",
            labels={"table": "claims"},
        ),
        md=table("em", "claims")["md"],
    log:
        "logs/make_table_em_claims.log",
    benchmark:
        "logs/benchmarks/make_table_em_claims.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        code=code_version("make_table_em_claims.py"),
        scale=lambda wildcards: study_scale([config_source()]),
        archive_scale=lambda wildcards: archive_scale(),
    message:
        "Checking the EM paper's claims"
    script:
        "../scripts/make_table_em_claims.py"


rule em:
    input:
        rules.make_table_em_claims.output,
        rules.make_table_em_sharing.output,
        rules.make_table_em_mini_adapt.output,
        rules.make_table_em_endpoints.output,
        rules.plot_em_figures.output,
        table=table("networks", "networks")["csv"],
