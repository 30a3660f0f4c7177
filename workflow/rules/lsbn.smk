# Paper `lsbn`: LSBN, divide-and-conquer structure learning with model averaging.
#
# results/lsbn/ropart/<network>/n=<n>/rep=<rep>/statistics.csv   Tables I-IV: LSBN's ROPART partitions
# results/lsbn/prepared/<network>/n=<n>/rep=<rep>.npz             ROPART and Markov blankets,
#   computed once for the five LSBN runs of the dataset
# results/lsbn/global/<network>/<baseline>/n=<n>/rep=<rep>/         a baseline on all variables
# results/lsbn/lsbn/<network>/<learner>/n=<n>/rep=<rep>/           LSBN with that LocalLearn
#   structure.npz (learned DAG and skeleton), metrics.csv (P/R/F, hit/additional/missing, time)


# ROPART on one dataset as LSBN partitions it (prepare_lsbn's): thresholds, remaining edges,
# partition quality and sizes (Alg. 1).
rule summarize_lsbn_ropart:
    input:
        network=network_input,
        samples=network_samples("{network}", "{n}", "{rep}"),
        prepared="results/lsbn/prepared/{network}/n={n}/rep={rep}.npz",
    output:
        statistics="results/lsbn/ropart/{network}/n={n}/rep={rep}/statistics.csv",
    log:
        "logs/summarize_lsbn_ropart/{network}/n={n}/rep={rep}.log",
    benchmark:
        "logs/benchmarks/summarize_lsbn_ropart/{network}/n={n}/rep={rep}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=4000,
    params:
        code=code_version("summarize_lsbn_ropart.py"),
    message:
        "ROPART statistics of {wildcards.network}, {wildcards.n} samples, replicate {wildcards.rep}"
    script:
        "../scripts/summarize_lsbn_ropart.py"


# ROPART and the Markov blankets (Alg. 1, Alg. 2 step 1): they do not depend on LocalLearn, so
# every LSBN run of a dataset reads them from here instead of computing them again.
rule prepare_lsbn:
    input:
        samples=network_samples("{network}", "{n}", "{rep}"),
    output:
        prepared="results/lsbn/prepared/{network}/n={n}/rep={rep}.npz",
    log:
        "logs/prepare_lsbn/{network}/n={n}/rep={rep}.log",
    benchmark:
        "logs/benchmarks/prepare_lsbn/{network}/n={n}/rep={rep}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=4000,
    params:
        code=code_version("prepare_lsbn.py"),
        settings=lsbn_prepare_settings(),
    message:
        "ROPART and Markov blankets of {wildcards.network}, replicate {wildcards.rep}"
    script:
        "../scripts/prepare_lsbn.py"


# A baseline (ARACNE, PC, greedy search, MMHC) on all variables: the paper's "global" columns.
rule run_lsbn_global:
    input:
        network=network_input,
        samples=network_samples("{network}", "{n}", "{rep}"),
    output:
        structure="results/lsbn/global/{network}/{baseline}/n={n}/rep={rep}/structure.npz",
        metrics="results/lsbn/global/{network}/{baseline}/n={n}/rep={rep}/metrics.csv",
    log:
        "logs/run_lsbn_global/{network}/{baseline}/n={n}/rep={rep}.log",
    benchmark:
        "logs/benchmarks/run_lsbn_global/{network}/{baseline}/n={n}/rep={rep}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=4000,
    params:
        code=code_version("run_lsbn.py"),
        framework="global",
        method=lambda wildcards: wildcards.baseline,
        seed=lambda wildcards: seed_for(
            "run_lsbn_global",
            wildcards.network,
            wildcards.baseline,
            wildcards.n,
            wildcards.rep,
        ),
        settings=lsbn_settings(),
    message:
        "Global {wildcards.baseline} on {wildcards.network}, replicate {wildcards.rep}"
    script:
        "../scripts/run_lsbn.py"


# LSBN (Alg. 1-3) with one LocalLearn: model averaging, or a baseline ("LSBN-wrapped").
rule run_lsbn:
    input:
        network=network_input,
        samples=network_samples("{network}", "{n}", "{rep}"),
        prepared="results/lsbn/prepared/{network}/n={n}/rep={rep}.npz",
    output:
        structure="results/lsbn/lsbn/{network}/{learner}/n={n}/rep={rep}/structure.npz",
        metrics="results/lsbn/lsbn/{network}/{learner}/n={n}/rep={rep}/metrics.csv",
    log:
        "logs/run_lsbn/{network}/{learner}/n={n}/rep={rep}.log",
    benchmark:
        "logs/benchmarks/run_lsbn/{network}/{learner}/n={n}/rep={rep}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 4
    resources:
        mem_mb=4000,
    params:
        code=code_version("run_lsbn.py"),
        framework="lsbn",
        method=lambda wildcards: wildcards.learner,
        seed=lambda wildcards: seed_for(
            "run_lsbn",
            wildcards.network,
            wildcards.learner,
            wildcards.n,
            wildcards.rep,
        ),
        settings=lsbn_settings(),
    message:
        "LSBN with {wildcards.learner} on {wildcards.network}, replicate {wildcards.rep}"
    script:
        "../scripts/run_lsbn.py"


# Tables I-IV: thresholds, partition quality with ranks, community sizes beside the text.
rule make_table_lsbn_ropart:
    input:
        statistics=lsbn_ropart_runs(),
        published_sizes="workflow/published/lsbn_community_sizes.tsv",
        published_ranks="workflow/published/lsbn_partition_ranks.tsv",
    output:
        table1_csv=report(
            table("lsbn", "table1_thresholds")["csv"],
            caption="../report/lsbn_table1.rst",
            category="lsbn: LSBN structure learning",
            labels={"table": "Table I"},
        ),
        table1_md=table("lsbn", "table1_thresholds")["md"],
        table2_3_csv=report(
            table("lsbn", "table2_3_partition_quality")["csv"],
            caption="../report/lsbn_table2_3.rst",
            category="lsbn: LSBN structure learning",
            labels={"table": "Tables II-III"},
        ),
        table2_3_md=table("lsbn", "table2_3_partition_quality")["md"],
        ranks_csv=report(
            table("lsbn", "partition_ranks")["csv"],
            caption="../report/lsbn_ranks.rst",
            category="lsbn: LSBN structure learning",
            labels={"table": "partition ranks"},
        ),
        ranks_md=table("lsbn", "partition_ranks")["md"],
        table4_csv=report(
            table("lsbn", "table4_community_sizes")["csv"],
            caption="../report/lsbn_table4.rst",
            category="lsbn: LSBN structure learning",
            labels={"table": "Table IV"},
        ),
        table4_md=table("lsbn", "table4_community_sizes")["md"],
    log:
        "logs/make_table_lsbn_ropart.log",
    benchmark:
        "logs/benchmarks/make_table_lsbn_ropart.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("make_table_lsbn_ropart.py"),
    message:
        "Tables I-IV of the LSBN paper"
    script:
        "../scripts/make_table_lsbn_ropart.py"


# Tables V-XIII: ARACNE's threshold; per network and method, global vs LSBN; summaries of P, R,
# F and run time.
rule make_table_lsbn_comparison:
    input:
        metrics=lsbn_learning_runs(),
    output:
        runs="reports/lsbn/tables/runs.csv",
        comparison_csv=report(
            table("lsbn", "comparison")["csv"],
            caption="../report/lsbn_comparison.rst",
            category="lsbn: LSBN structure learning",
            labels={"table": "Tables VI-X"},
        ),
        comparison_md=table("lsbn", "comparison")["md"],
        precision_csv=report(
            table("lsbn", "precision")["csv"],
            caption="../report/lsbn_summary.rst",
            category="lsbn: LSBN structure learning",
            labels={"table": "Table XI"},
        ),
        precision_md=table("lsbn", "precision")["md"],
        recall_csv=report(
            table("lsbn", "recall")["csv"],
            caption="../report/lsbn_summary.rst",
            category="lsbn: LSBN structure learning",
            labels={"table": "Table XII"},
        ),
        recall_md=table("lsbn", "recall")["md"],
        f_score_csv=report(
            table("lsbn", "f_score")["csv"],
            caption="../report/lsbn_summary.rst",
            category="lsbn: LSBN structure learning",
            labels={"table": "Table XIII"},
        ),
        f_score_md=table("lsbn", "f_score")["md"],
        runtime_csv=report(
            table("lsbn", "runtime")["csv"],
            caption="../report/lsbn_summary.rst",
            category="lsbn: LSBN structure learning",
            labels={"table": "run time"},
        ),
        runtime_md=table("lsbn", "runtime")["md"],
        table5_csv=report(
            table("lsbn", "table5_aracne_thresholds")["csv"],
            caption="../report/lsbn_table5.rst",
            category="lsbn: LSBN structure learning",
            labels={"table": "Table V"},
        ),
        table5_md=table("lsbn", "table5_aracne_thresholds")["md"],
    log:
        "logs/make_table_lsbn_comparison.log",
    benchmark:
        "logs/benchmarks/make_table_lsbn_comparison.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=1000,
    params:
        code=code_version("make_table_lsbn_comparison.py"),
        tau=config["lsbn"]["tau"],
    message:
        "Tables V-XIII of the LSBN paper"
    script:
        "../scripts/make_table_lsbn_comparison.py"


# The paper's statements about its results (comparisons and ROPART), checked on ours.
rule make_table_lsbn_claims:
    input:
        runs="reports/lsbn/tables/runs.csv",
        thresholds=table("lsbn", "table1_thresholds")["csv"],
        quality=table("lsbn", "table2_3_partition_quality")["csv"],
        sizes=table("lsbn", "table4_community_sizes")["csv"],
        catalog="workflow/published/claims.tsv",
        archived=lambda wildcards: paper_archive("lsbn"),
    output:
        csv=report(
            table("lsbn", "claims")["csv"],
            caption="../report/lsbn_claims.rst",
            category="lsbn: LSBN structure learning",
            labels={"table": "claims"},
        ),
        md=table("lsbn", "claims")["md"],
    log:
        "logs/make_table_lsbn_claims.log",
    benchmark:
        "logs/benchmarks/make_table_lsbn_claims.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        code=code_version("make_table_lsbn_claims.py"),
        scale=lambda wildcards: study_scale([config_source()]),
        archive_scale=lambda wildcards: archive_scale(),
    message:
        "Checking the LSBN paper's claims"
    script:
        "../scripts/make_table_lsbn_claims.py"


rule lsbn:
    input:
        rules.make_table_lsbn_ropart.output,
        rules.make_table_lsbn_comparison.output,
        rules.make_table_lsbn_claims.output,
