# The archive of a finished run, in parts (src/bnstudy/studies/archive.py): one per paper and the
# study's. Each part copies its reports into archive/<name>/<part>/ beside a manifest (commit,
# config hash, machine, time and code version per rule) and the provenance of every file it copies
# (package versions, seed).
#
#   snakemake --cores all archive_tan --configfile config/paper_cpu.yaml   # run tan, publish it
#   snakemake --cores 1 archive --configfile config/paper_cpu.yaml         # then the study's part
#
# A paper's part needs that paper's target only, so a paper-scale run can publish the papers that
# have finished while the others still run, and one paper can be rerun and published again alone.
# The study's part needs no paper's results: it times the shared rules (data, network samples:
# what every paper rests on), copies their tables, builds the scorecard from the claims tables of
# the parts as they lie in the archive, and adds every part's time and code to the shared rules'
# (the whole run's), recording the hash of each part's manifest. It refuses a part archived from
# other config values or that ran other shared code than this checkout's.
# So it is rebuilt in minutes after any part, from a fresh checkout too, and it never summarizes a
# part other than the one committed beside it (tests/test_committed_archive.py). It builds a
# part that does not exist yet; a part that exists is rebuilt by its own target (first, as above:
# the study's part reads it as a plain file, so one command naming both does not order them).
# An archive rule's declared output is a copy of the manifest in results/archive/ (archive_marker),
# not the committed folder: Snakemake removes a job's outputs before it runs, and a part whose
# job then failed would be left without its manifest. A part copies only the files the config's
# DAG makes, and a run changed by --config is refused (archived_config_file).
# A run's own report rules (its scorecard of the working copy's claims, its provenance table of
# every report file, its effective config) are not archived. Archive rules run where Snakemake
# runs (workflow/rules/cluster.smk).

for _paper in PAPERS:

    rule:
        name:
            f"archive_provenance_{_paper}"
        input:
            files=[f for f in provenance_inputs() if f.startswith(f"reports/{_paper}/")],
            config="results/config/effective.yaml",
        output:
            csv=f"{archive_staging(_paper)}/provenance.csv",
            md=f"{archive_staging(_paper)}/provenance.md",
        log:
            f"logs/archive/{ARCHIVE_NAME}/provenance_{_paper}.log",
        conda:
            "../../envs/bnstudy.yaml"
        threads: 1
        params:
            code=code_version("make_table_provenance.py"),
        message:
            f"Provenance of the {_paper} reports for archive/{ARCHIVE_NAME}/{_paper}/"
        script:
            "../scripts/make_table_provenance.py"

    rule:
        name:
            f"archive_{_paper}"
        input:
            targets=getattr(rules, _paper).input,
            claims=table(_paper, "claims")["csv"],
            provenance=getattr(rules, f"archive_provenance_{_paper}").output,
        output:
            manifest=archive_marker(_paper),
        log:
            f"logs/archive/{ARCHIVE_NAME}/{_paper}.log",
        conda:
            "../../envs/bnstudy.yaml"
        threads: 1
        params:
            code=code_version("make_archive.py"),
            folder=archive_folder(_paper),
            name=ARCHIVE_NAME,
            part=_paper,
            config_file=archived_config_file,
            # reports/<paper>: the folder of the paper's tables/ (and figures/)
            reports=lambda wildcards, input: str(Path(input.claims).parent.parent),
            include=None,
            # what this config's DAG makes there (a file left by another config is not copied)
            made=lambda wildcards, input: sorted(set(input.targets) | {input.claims}),
            extra=lambda wildcards, input: {
                "provenance.csv": input.provenance[0],
                "provenance.md": input.provenance[1],
            },
            rules=paper_rules(_paper),
            # the paper's rules are defined above: their code versions are known here
            rule_code=rule_code_versions(paper_rules(_paper)),
            # the code of the shared rules upstream of its results, as they ran (every job of
            # the part's DAG is up to date)
            shared_code=rule_code_versions(upstream_rules()),
            recorded_shared_code=None,
            parts={},
            benchmarks="logs/benchmarks",
            repo=workflow.basedir,
        message:
            f"Archiving the {_paper} reports of {{params.config_file}} into archive/{ARCHIVE_NAME}/{_paper}/"
        script:
            "../scripts/make_archive.py"


# The scorecard of the archived parts: every claim with the verdict its part's claims table gives.
rule archive_scorecard:
    input:
        parts=[archived_part_input(paper) for paper in PAPERS],
        # no other scale's config to compare with: the archive is the scale
        archive_config=[],
        deviations="workflow/published/deviations.tsv",
    output:
        csv=f"{archive_staging('study')}/scorecard.csv",
        md=f"{archive_staging('study')}/scorecard.md",
        rst=f"{archive_staging('study')}/scorecard.rst",
    log:
        f"logs/archive/{ARCHIVE_NAME}/scorecard.log",
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    params:
        code=code_version("make_scorecard.py"),
        papers=list(PAPERS),
        claims={paper: part_claims(paper) for paper in PAPERS},
        digests=archived_part_digests(),
        # the archive's own scale: no other archive beside it
        archived={},
        manifests={},
        rule_code={},
        paper_rules={},
        # its evidence: the parts' copies, linked from the study's part
        evidence_root=lambda wildcards: f"archive/{ARCHIVE_NAME}",
        page=lambda wildcards: f"archive/{ARCHIVE_NAME}/study",
    message:
        f"The scorecard of the parts of archive/{ARCHIVE_NAME}/"
    script:
        "../scripts/make_scorecard.py"


# The provenance of the study part's tables (the foundation tables).
rule archive_provenance_study:
    input:
        files=[f for f in foundation_tables() if not f.endswith(".md")],
        config="results/config/effective.yaml",
    output:
        csv=f"{archive_staging('study')}/provenance.csv",
        md=f"{archive_staging('study')}/provenance.md",
    log:
        f"logs/archive/{ARCHIVE_NAME}/provenance_study.log",
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    params:
        code=code_version("make_table_provenance.py"),
    message:
        f"Provenance of the study's tables for archive/{ARCHIVE_NAME}/study/"
    script:
        "../scripts/make_table_provenance.py"


rule archive:
    input:
        targets=foundation_tables(),
        scorecard=rules.archive_scorecard.output,
        provenance=rules.archive_provenance_study.output,
    output:
        manifest=archive_marker("study"),
    log:
        f"logs/archive/{ARCHIVE_NAME}/study.log",
    conda:
        "../../envs/bnstudy.yaml"
    threads: 1
    params:
        code=code_version("make_archive.py"),
        folder=archive_folder("study"),
        name=ARCHIVE_NAME,
        part="study",
        config_file=archived_config_file,
        # reports/, of reports/<folder>/tables/<table>
        reports=lambda wildcards, input: str(Path(input.targets[0]).parents[2]),
        # the foundation tables' folders of reports/ (no paper's, no run's own report)
        include=["data", "networks"],
        made=lambda wildcards, input: sorted(input.targets),
        extra=lambda wildcards, input: {
            "scorecard.csv": input.scorecard[0],
            "scorecard.md": input.scorecard[1],
            "provenance.csv": input.provenance[0],
            "provenance.md": input.provenance[1],
        },
        rules=shared_rules(),
        rule_code=lambda wildcards: rule_code_versions(shared_rules()),
        shared_code=lambda wildcards: rule_code_versions(upstream_rules()),
        recorded_shared_code=recorded_shared_code(),
        parts={paper: archive_part(paper) for paper in PAPERS},
        benchmarks="logs/benchmarks",
        repo=workflow.basedir,
    message:
        "Archiving the study's reports of {params.config_file} into archive/{params.name}/study/"
    script:
        "../scripts/make_archive.py"
