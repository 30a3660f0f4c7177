# Rules that run where Snakemake runs (a cluster's login node) rather than as cluster jobs: fetching
# (compute nodes are often offline), the small jobs that write tables and figures (seconds each, less
# than a SLURM job's start-up), building mini-ADAPT and archiving. Every rule named make_table_*,
# plot_* or archive_* is such a rule; a local run is unaffected. Included after every other rule file.

SMALL_RULES = {
    "fetch_raw_file",
    "build_mini_adapt",
    "summarize_networks",
    "compare_mi_graphs",
    "make_scorecard",
    "effective_config",
    "archive",
}
SMALL_RULE_PREFIXES = ("make_table_", "plot_", "archive_")
CLUSTER_LOCAL_RULES = sorted(
    name
    for name in (r.name for r in workflow.rules)
    if name in SMALL_RULES or name.startswith(SMALL_RULE_PREFIXES)
)
workflow.localrules(*CLUSTER_LOCAL_RULES)
