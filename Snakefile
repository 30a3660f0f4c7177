# bnstudy: a reproducible study of four papers on learning graphical models.
#
#   snakemake --cores all                               # the laptop-scale study (config/config.yaml)
#   snakemake --cores all --configfile config/paper.yaml  # the papers' scale
#   snakemake --cores all tan                           # one paper: tan, em, mrf or lsbn
#   snakemake --report reports/report.html              # the HTML report of everything above
#   snakemake --cores 1 effective_config --configfile config/smoke.yaml  # the config that runs,
#                                                       # written to results/config/effective.yaml
#
# The config of a run is exactly one file: the one given with --configfile, else
# config/config.yaml. Files are never merged, so a key missing from the file is an error naming
# it, not a value silently taken from another file; `--config key=value` still overrides one key.
# This file is a table of contents; the rules live in workflow/rules/.

from snakemake.utils import min_version

min_version("9.0")


if len(workflow.overwrite_configfiles) > 1:
    raise ValueError(
        "give one --configfile, not "
        f"{len(workflow.overwrite_configfiles)} ({', '.join(map(str, workflow.overwrite_configfiles))}):"
        " the config of a run is exactly one file, never a merge of several"
    )
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/networks.smk"
include: "workflow/rules/tan.smk"
include: "workflow/rules/em.smk"
include: "workflow/rules/mrf.smk"
include: "workflow/rules/lsbn.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/provenance.smk"
include: "workflow/rules/archive.smk"
include: "workflow/rules/cluster.smk"


rule all:
    default_target: True
    input:
        foundation_tables(),
        rules.tan.input,
        rules.em.input,
        rules.mrf.input,
        rules.lsbn.input,
        rules.provenance.input,
        rules.make_scorecard.output,
