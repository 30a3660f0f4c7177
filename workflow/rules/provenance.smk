# What produced the report: the config that ran and the provenance of every table and figure.
#
# results/config/effective.yaml            the whole config of this run (one file, see Snakefile)
# reports/provenance/tables/provenance.*   per report file: rule, code hash, commit, dirty tree,
#                                          package versions, config seed (from its sidecar)


# The config this run uses, exactly as the rules see it.
rule effective_config:
    output:
        report(
            "results/config/effective.yaml",
            caption="../report/effective_config.rst",
            category="Provenance",
            labels={"file": "effective config"},
        ),
    log:
        "logs/effective_config.log",
    benchmark:
        "logs/benchmarks/effective_config.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        code=code_version("write_effective_config.py"),
        config=canonical(config),
        source=config_source(),
    message:
        "Writing the effective config (from {params.source})"
    script:
        "../scripts/write_effective_config.py"


# One row per report file: the provenance its job recorded beside it.
rule make_table_provenance:
    input:
        files=provenance_inputs(),
        config="results/config/effective.yaml",
    output:
        csv=report(
            table("provenance", "provenance")["csv"],
            caption="../report/provenance.rst",
            category="Provenance",
            labels={"table": "provenance"},
        ),
        md=table("provenance", "provenance")["md"],
    log:
        "logs/make_table_provenance.log",
    benchmark:
        "logs/benchmarks/make_table_provenance.tsv"
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    resources:
        mem_mb=500,
    params:
        code=code_version("make_table_provenance.py"),
    message:
        "Provenance of every table and figure"
    script:
        "../scripts/make_table_provenance.py"


rule provenance:
    input:
        rules.make_table_provenance.output,
        rules.effective_config.output,
