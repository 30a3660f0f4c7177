# The archive of a finished run, in parts (src/bnstudy/studies/archive.py): one per paper, written
# by `snakemake archive_<paper> --configfile config/<name>.yaml` once that paper's target is built
# (a paper-scale run can publish the papers that have finished while the others still run), and
# the study's, written by `snakemake archive`, which needs every part and every target of
# `rule all`. Each part copies its reports into archive/<name>/<part>/ beside a manifest (commit,
# config hash, machine, time and code version per rule). They run where Snakemake runs
# (workflow/rules/cluster.smk).

for _paper in PAPERS:

    rule:
        name:
            f"archive_{_paper}"
        input:
            targets=getattr(rules, _paper).input,
            claims=table(_paper, "claims")["csv"],
        output:
            manifest=archive_part(_paper),
        log:
            f"logs/archive/{ARCHIVE_NAME}/{_paper}.log",
        conda:
            "../../envs/bnstudy.yaml"
        threads: 1
        params:
            code=code_version("make_archive.py"),
            name=ARCHIVE_NAME,
            part=_paper,
            config_file=config_source(),
            # reports/<paper>: the folder of the paper's tables/ (and figures/)
            reports=lambda wildcards, input: str(Path(input.claims).parent.parent),
            exclude=[],
            rules=paper_rules(_paper),
            # the paper's rules are defined above: their code versions are known here
            rule_code=rule_code_versions(paper_rules(_paper)),
            parts={},
            benchmarks="logs/benchmarks",
            repo=workflow.basedir,
        message:
            f"Archiving the {_paper} reports of {{params.config_file}} into archive/{ARCHIVE_NAME}/{_paper}/"
        script:
            "../scripts/make_archive.py"


rule archive:
    input:
        parts=[archive_part(paper) for paper in PAPERS],
        targets=lambda wildcards: rules.all.input,
    output:
        manifest=archive_part("study"),
    log:
        f"logs/archive/{ARCHIVE_NAME}/study.log",
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    params:
        code=code_version("make_archive.py"),
        name=ARCHIVE_NAME,
        part="study",
        config_file=config_source(),
        reports="reports",
        exclude=list(PAPERS),
        rules=None,
        rule_code=lambda wildcards: rule_code_versions(),
        parts={paper: archive_part(paper) for paper in PAPERS},
        benchmarks="logs/benchmarks",
        repo=workflow.basedir,
    message:
        "Archiving the study's reports of {params.config_file} into archive/{params.name}/study/"
    script:
        "../scripts/make_archive.py"
