# Tables of the report. Each table is written twice from one dataframe (CSV + Markdown);
# `snakemake --report reports/report.html` collects every output wrapped in report(...).


# Every prepared dataset: sizes, features, classes, states per feature, checksums re-verified.
rule summarize_datasets:
    input:
        datasets=[prepared_dataset(name) for name in configured_datasets()],
        raw=lambda wildcards: sorted(
            {path for name in configured_datasets() for path in raw_inputs(name)}
        ),
    output:
        csv=report(
            table("data", "datasets")["csv"],
            caption="../report/datasets.rst",
            category="Foundation",
            subcategory="Datasets",
            labels={"table": "prepared datasets", "format": "CSV"},
        ),
        md=table("data", "datasets")["md"],
    log:
        "logs/summarize_datasets.log",
    benchmark:
        "logs/benchmarks/summarize_datasets.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        code=code_version("summarize_datasets.py"),
        names=configured_datasets(),
        raw_root=raw_path(""),
    message:
        "Summarizing the prepared datasets"
    script:
        "../scripts/summarize_datasets.py"


# Every benchmark network: nodes, arcs, CPT parameters, in-degree, Markov blankets, beside the papers.
rule summarize_networks:
    input:
        networks=[raw_inputs(name)[0] for name in configured_networks()],
        published="workflow/published/networks.tsv",
    output:
        csv=report(
            table("networks", "networks")["csv"],
            caption="../report/networks.rst",
            category="Foundation",
            subcategory="Benchmark networks",
            labels={"table": "benchmark networks", "format": "CSV"},
        ),
        md=table("networks", "networks")["md"],
    log:
        "logs/summarize_networks.log",
    benchmark:
        "logs/benchmarks/summarize_networks.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        code=code_version("summarize_networks.py"),
        names=configured_networks(),
    message:
        "Summarizing the benchmark networks"
    script:
        "../scripts/summarize_networks.py"


# Our MDL against the TAN authors' released discretization, fit on the same rows as theirs.
rule compare_discretization:
    input:
        unpack(discretization_comparison_inputs),
    output:
        csv=report(
            table("data", "mdl_vs_authors")["csv"],
            caption="../report/mdl_vs_authors.rst",
            category="Foundation",
            subcategory="Datasets",
            labels={"table": "MDL vs the authors' discretization", "format": "CSV"},
        ),
        md=table("data", "mdl_vs_authors")["md"],
    log:
        "logs/compare_discretization.log",
    benchmark:
        "logs/benchmarks/compare_discretization.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=2000,
    params:
        code=code_version("compare_discretization.py"),
        names=config["data"]["compare_with_authors"],
    message:
        "Comparing our MDL discretization with the authors'"
    script:
        "../scripts/compare_discretization.py"


# The scorecard: every claim of the four papers with its verdict, the deviations beside it. Its
# summary (scorecard.rst) is the landing text of the HTML report (workflow/report/workflow.rst).
rule make_scorecard:
    input:
        claims_tan=table("tan", "claims")["csv"],
        claims_em=table("em", "claims")["csv"],
        claims_mrf=table("mrf", "claims")["csv"],
        claims_lsbn=table("lsbn", "claims")["csv"],
        archived=lambda wildcards: list(scorecard_archive().values()),
        # the archived parts' manifests and the archived scale's config, to compare with this
        # checkout's code and config (which rules changed since the archived run)
        manifests=lambda wildcards: list(scorecard_manifests().values()),
        archive_config=lambda wildcards: scorecard_archive_config(),
        deviations="workflow/published/deviations.tsv",
    output:
        csv=report(
            "reports/scorecard.csv",
            caption="../report/scorecard.rst",
            category="Claims scorecard",
            labels={"table": "scorecard: every claim and its verdict"},
        ),
        md="reports/scorecard.md",
        rst="reports/scorecard.rst",
    log:
        "logs/make_scorecard.log",
    benchmark:
        "logs/benchmarks/make_scorecard.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        code=code_version("make_scorecard.py"),
        papers=list(PAPERS),
        archived=lambda wildcards: scorecard_archive(),
        manifests=lambda wildcards: scorecard_manifests(),
        # this checkout's code versions of the rules the archived parts record (and no other:
        # an edit to a rule outside them does not rerun the scorecard)
        rule_code=lambda wildcards: rule_code_versions(
            recorded_rules(scorecard_manifests())
        ),
        paper_rules={paper: paper_rules(paper) for paper in PAPERS},
    message:
        "The claims scorecard"
    script:
        "../scripts/make_scorecard.py"
