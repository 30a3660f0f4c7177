# The archive of a finished run: `snakemake archive --configfile config/<name>.yaml` copies the
# run's reports into archive/<name>/ with a manifest (commit, config hash, machine, time per
# rule); see src/bnstudy/studies/archive.py. Its input is every target of `rule all` (read when the
# DAG is built). It runs where Snakemake runs, also on a cluster (workflow/rules/cluster.smk).

ARCHIVE_NAME = Path(config_source()).stem


rule archive:
    input:
        lambda wildcards: rules.all.input,
    output:
        manifest=f"archive/{ARCHIVE_NAME}/manifest.json",
    log:
        f"logs/archive/{ARCHIVE_NAME}.log",
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    params:
        code=code_version("make_archive.py"),
        name=ARCHIVE_NAME,
        config_file=config_source(),
        reports="reports",
        benchmarks="logs/benchmarks",
        repo=workflow.basedir,
    message:
        "Archiving the reports of {params.config_file} into archive/{params.name}/"
    script:
        "../scripts/make_archive.py"
