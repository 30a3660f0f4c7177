# Raw data in, verified and prepared datasets out.
#
# resources/raw/<path>            one verified raw file of the registry (mirror, pgmpy's bundled copy,
#                                 or the canonical URL; the payload's sha256 is checked before it lands)
# resources/datasets/<name>.npz   a prepared dataset: discretized folds, or the senate vote matrices


# Fetch one raw file and verify its checksum; nothing is written unless it verifies.
rule fetch_raw_file:
    output:
        "resources/raw/{rawpath}",
    log:
        "logs/fetch_raw_file/{rawpath}.log",
    benchmark:
        "logs/benchmarks/fetch_raw_file/{rawpath}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        code=code_version("fetch_raw_file.py"),
    message:
        "Fetching and verifying {wildcards.rawpath}"
    script:
        "../scripts/fetch_raw_file.py"


# Parse, discretize (MDL fit on each training split) and cache one dataset.
rule prepare_dataset:
    input:
        lambda wildcards: raw_inputs(wildcards.dataset),
    output:
        prepared_dataset("{dataset}"),
    log:
        "logs/prepare_dataset/{dataset}.log",
    benchmark:
        "logs/benchmarks/prepare_dataset/{dataset}.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=4000,
    params:
        code=code_version("prepare_dataset.py"),
        senate=canonical(config["data"]["senate"]),
        mdl=canonical(config["data"]["discretization"]),
    message:
        "Preparing dataset {wildcards.dataset}"
    script:
        "../scripts/prepare_dataset.py"
