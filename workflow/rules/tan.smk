# Paper `tan`: Roth & Pernkopf (2020), differentiable TAN structure learning.
#
# results/tan/mi/<dataset>.npz                             conditional-MI graphs we compute (mnist)
# results/tan/<dataset>/<model>/fold=<k>/<protocol>.csv    one row per hyperparameter setting
# results/tan/recover_chow_liu/<dataset>.csv               lambda = 0 runs from every root
# reports/tan/tables, reports/tan/figures                  Table 1, claims, Figures 2-3


# I(Xi;Xj|C) per fold of a dataset we prepared ourselves (the authors' bnc_* ship theirs).
rule compute_mi_graph:
    input:
        dataset=prepared_dataset("{dataset}"),
    output:
        mi="results/tan/mi/{dataset}.npz",
    log:
        "logs/compute_mi_graph/{dataset}.log",
    benchmark:
        "logs/benchmarks/compute_mi_graph/{dataset}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=4000,
    params:
        code=code_version("compute_mi_graph.py"),
    message:
        "Conditional mutual-information graphs of {wildcards.dataset}"
    script:
        "../scripts/compute_mi_graph.py"


# Our MNIST MI graph against the authors' (their mnist.npz is not public, their MI graph is).
rule compare_mi_graphs:
    input:
        ours="results/tan/mi/mnist.npz",
        authors=raw_path("bnc/mnist_mi.npz"),
    output:
        csv=report(
            table("tan", "mnist_mi_agreement")["csv"],
            caption="../report/tan_mnist_mi.rst",
            category="tan: differentiable TAN",
            labels={"table": "MNIST MI graph"},
        ),
        md=table("tan", "mnist_mi_agreement")["md"],
    log:
        "logs/compare_mi_graphs.log",
    benchmark:
        "logs/benchmarks/compare_mi_graphs.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("compare_mi_graphs.py"),
    message:
        "Comparing our MNIST MI graph with the authors'"
    script:
        "../scripts/compare_mi_graphs.py"


# Every setting of one model on one fold: batched over settings on the CPU or a GPU.
rule train_tan:
    input:
        unpack(tan_train_inputs),
    output:
        runs="results/tan/{dataset}/{model}/fold={fold}/{protocol}.csv",
    log:
        "logs/train_tan/{dataset}/{model}/fold={fold}/{protocol}.log",
    benchmark:
        "logs/benchmarks/train_tan/{dataset}/{model}/fold={fold}/{protocol}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=8000,
    params:
        code=code_version("train_tan.py"),
        grid=lambda wildcards: tan_grid(wildcards.model, wildcards.dataset),
        hparams=lambda wildcards: tan_hparams(wildcards.model),
        settings=lambda wildcards: tan_settings(wildcards.dataset),
        seed=lambda wildcards: seed_for(
            "train_tan",
            wildcards.dataset,
            wildcards.model,
            wildcards.fold,
            wildcards.protocol,
        ),
        # the training subsample and validation rows: the same for every model and protocol
        split_seed=lambda wildcards: tan_split_seed(wildcards.dataset, wildcards.fold),
    message:
        "TAN study: {wildcards.model} on {wildcards.dataset}, fold {wildcards.fold} ({wildcards.protocol})"
    script:
        "../scripts/train_tan.py"


# Chow-Liu recovery with the generative loss (lambda = 0), the Chow-Liu ordering, every root;
# the target is the Chow-Liu tree of the training rows used (the authors' MI graph: a cross-check).
rule recover_chow_liu:
    input:
        dataset=prepared_dataset("{dataset}"),
        mi=lambda wildcards: tan_mi_input(wildcards.dataset),
    output:
        runs="results/tan/recover_chow_liu/{dataset}.csv",
    log:
        "logs/recover_chow_liu/{dataset}.log",
    benchmark:
        "logs/benchmarks/recover_chow_liu/{dataset}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=4000,
    params:
        code=code_version("recover_chow_liu.py"),
        roots=config["tan"]["recover_chow_liu"]["roots"],
        learning_rates=config["tan"]["recover_chow_liu"]["learning_rates"],
        epochs=config["tan"]["recover_chow_liu"]["epochs"],
        batch_size=lambda wildcards: config["tan"]["batch_size"][wildcards.dataset],
        max_train=config["tan"]["recover_chow_liu"]["max_train_samples"],
        max_folds=config["tan"]["max_folds"],
        seed=lambda wildcards: seed_for("recover_chow_liu", wildcards.dataset),
        # per fold: train_tan's split seeds, so a subsample keeps the rows train_tan's has
        split_seeds=lambda wildcards: [
            tan_split_seed(wildcards.dataset, k)
            for k in range(config["tan"]["max_folds"])
        ],
    message:
        "Chow-Liu recovery on {wildcards.dataset}"
    script:
        "../scripts/recover_chow_liu.py"


# Table 1 (best by test error, as the paper, and by validation error), settings.
rule make_table_tan:
    input:
        runs=tan_runs(),
        published="workflow/published/tan_table1.tsv",
    output:
        runs="results/tan/runs.csv",
        csv=report(
            table("tan", "table1")["csv"],
            caption="../report/tan_table1.rst",
            category="tan: differentiable TAN",
            labels={"table": "Table 1"},
        ),
        md=table("tan", "table1")["md"],
        selected_csv=table("tan", "selected_settings")["csv"],
        selected_md=table("tan", "selected_settings")["md"],
    log:
        "logs/make_table_tan.log",
    benchmark:
        "logs/benchmarks/make_table_tan.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        code=code_version("make_table_tan.py"),
        datasets=config["tan"]["datasets"],
        protocols=config["tan"]["protocols"],
    message:
        "Table 1 of the TAN paper"
    script:
        "../scripts/make_table_tan.py"


# The paper's statements about its results, checked on ours.
rule make_table_tan_claims:
    input:
        selected=table("tan", "selected_settings")["csv"],
        runs="results/tan/runs.csv",
        recovery=table("tan", "chow_liu_recovery")["csv"],
        catalog="workflow/published/claims.tsv",
        archived=lambda wildcards: paper_archive("tan"),
    output:
        csv=report(
            table("tan", "claims")["csv"],
            caption="../report/tan_claims.rst",
            category="tan: differentiable TAN",
            labels={"table": "claims"},
        ),
        md=table("tan", "claims")["md"],
    log:
        "logs/make_table_tan_claims.log",
    benchmark:
        "logs/benchmarks/make_table_tan_claims.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        code=code_version("make_table_tan_claims.py"),
        scale=lambda wildcards: study_scale([config_source()]),
        archive_scale=lambda wildcards: archive_scale(),
    message:
        "Checking the TAN paper's claims"
    script:
        "../scripts/make_table_tan_claims.py"


# Chow-Liu recovery table.
rule make_table_tan_recovery:
    input:
        runs=expand(
            "results/tan/recover_chow_liu/{dataset}.csv",
            dataset=config["tan"]["recover_chow_liu"]["datasets"],
        ),
    output:
        csv=report(
            table("tan", "chow_liu_recovery")["csv"],
            caption="../report/tan_recovery.rst",
            category="tan: differentiable TAN",
            labels={"table": "Chow-Liu recovery"},
        ),
        md=table("tan", "chow_liu_recovery")["md"],
    log:
        "logs/make_table_tan_recovery.log",
    benchmark:
        "logs/benchmarks/make_table_tan_recovery.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        code=code_version("make_table_tan_recovery.py"),
    message:
        "Chow-Liu recovery table"
    script:
        "../scripts/make_table_tan_recovery.py"


# Figures 2 and 3.
rule plot_tan_figures:
    input:
        runs="results/tan/runs.csv",
    output:
        fig2=report(
            "reports/tan/figures/fig2_runs.png",
            caption="../report/tan_fig2.rst",
            category="tan: differentiable TAN",
            labels={"figure": "Figure 2"},
        ),
        fig3=report(
            "reports/tan/figures/fig3_settings.png",
            caption="../report/tan_fig3.rst",
            category="tan: differentiable TAN",
            labels={"figure": "Figure 3"},
        ),
    log:
        "logs/plot_tan_figures.log",
    benchmark:
        "logs/benchmarks/plot_tan_figures.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("plot_tan_figures.py"),
        datasets=config["tan"]["datasets"],
        seed=seed_for("plot_tan_figures"),
    message:
        "Figures 2 and 3 of the TAN paper"
    script:
        "../scripts/plot_tan_figures.py"


rule tan:
    input:
        rules.make_table_tan.output,
        rules.make_table_tan_claims.output,
        rules.make_table_tan_recovery.output,
        rules.plot_tan_figures.output,
        tan_mi_comparison(),
