"""Checks of a run of .ci/slurm-test: every job that is not a local rule went through sbatch and
ended with exit status 0 on SLURM, and the tables equal those of the local run.

    python tests/slurm/check_run.py WORK STATE TARGET

WORK holds slurm/ and local/ (the two runs' directories) and slurm.log (the driver's output);
STATE holds slurmctld.log; TARGET is the branch that ran. Exits with 1 and names each problem.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import yte

# Measured times, the only values allowed to differ between the two runs: columns named for a
# time (or for the paper's time over ours), and the numbers of a text cell that gives seconds
# ("n=100: ExactL 0.5, MH 26.4, SBA 0.6 s" in a claims table).
TIMING = re.compile(r"(^|_)(seconds|runtime|time|elapsed|wall)(_|$)|_s$|_over_ours$", re.I)
SECONDS_IN_TEXT = re.compile(r"\d[\d.,]*\s?s\b")
NUMBER = re.compile(r"\d[\d.,]*")


def declared_local_rules(cluster_smk: Path, rules: list[str]) -> set[str]:
    """The rules that ``workflow/rules/cluster.smk`` (plain Python) declares local.

    Parameters
    ----------
    cluster_smk : Path
        The rule file to evaluate.
    rules : list of str
        Names of the workflow's rules.

    Returns
    -------
    set of str
        The names it passes to ``workflow.localrules``.
    """
    declared: list[str] = []
    workflow = SimpleNamespace(
        rules=[SimpleNamespace(name=rule) for rule in rules],
        localrules=lambda *names: declared.extend(names),
    )
    exec(cluster_smk.read_text(), {"workflow": workflow})
    return set(declared)


def check_submissions(
    log: str, local_rules_file: Path, groups: dict[str, str], target: str
) -> tuple[list[str], list[str]]:
    """Compare the driver's plan with what it sent to SLURM.

    Parameters
    ----------
    log : str
        The driver's output: its "Job stats" table, a "Job N: ..." line (or a "jobid: N" line) per
        job it started and "Job N has been submitted with SLURM jobid M (log: .../rule_NAME/...)"
        per sbatch.
    local_rules_file : Path
        ``workflow/rules/cluster.smk`` of the run.
    groups : dict of str to str
        The profile's ``groups``: rule to group; such rules go to SLURM in group jobs
        (".../group_GROUP_RULES/..." in the submission's log path).
    target : str
        The target rule of the run (it has no action and runs locally).

    Returns
    -------
    jobids : list of str
        The SLURM job ids of the submissions.
    errors : list of str
        One line per problem.
    """
    errors = []
    stats = log[log.index("Job stats:") :].split("\n\n")[0]
    planned = {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)$", stats, flags=re.M)}
    total = planned.pop("total")
    started = set(re.findall(r"^\s*Job (\d+): ", log, flags=re.M))
    started |= set(re.findall(r"^\s+jobid: (\d+)$", log, flags=re.M))
    submissions = re.findall(
        r"^Job \S+ has been submitted with SLURM jobid (\d+) \(log: \S*/(rule|group)_(\w+?)/",
        log,
        re.M,
    )
    jobids = [jobid for jobid, _, _ in submissions]
    sent = dict.fromkeys(planned, 0)
    sent_groups = dict.fromkeys(set(groups.values()), 0)
    for _, kind, name in submissions:
        if kind == "rule":
            sent[name] += 1
        else:
            group = next((g for g in sent_groups if name.startswith(f"{g}_")), name)
            if group not in sent_groups:
                errors.append(f"group job {name} of no group in the profile")
                continue
            sent_groups[group] += 1
    local = declared_local_rules(local_rules_file, list(planned))
    for rule, count in planned.items():
        expected = 0 if rule in local or rule == target or rule in groups else count
        if sent[rule] != expected:
            errors.append(f"{rule}: {count} jobs, {sent[rule]} sent to SLURM, {expected} expected")
        if rule in groups and not sent_groups[groups[rule]]:
            errors.append(f"{rule}: {count} jobs, no group job {groups[rule]} sent to SLURM")
    if len(started) < total or len(set(jobids)) != len(jobids) or not jobids:
        errors.append(f"{total} jobs planned, {len(started)} started, {len(jobids)} sbatch calls")
    print(
        f"{total} jobs planned, {len(started)} started; {len(jobids)} through sbatch ("
        + ", ".join(f"{rule} {n}" for rule, n in sent.items() if n)
        + "".join(f", group {group} {n}" for group, n in sent_groups.items() if n)
        + "); local: "
        + ", ".join(
            f"{rule} {planned[rule]}" for rule, n in sent.items() if not n and rule not in groups
        )
    )
    return jobids, errors


def check_slurm_jobs(slurmctld_log: str, jobids: list[str]) -> list[str]:
    """Each job was accepted, allocated on the node and ended with exit status 0.

    Read from slurmctld's log: ``squeue`` forgets a job MinJobAge seconds after it ends, and
    ``sacct`` has no database to ask.

    Parameters
    ----------
    slurmctld_log : str
        The text of slurmctld's log file.
    jobids : list of str
        The SLURM job ids the driver reported.

    Returns
    -------
    list of str
        One line per problem.
    """
    accepted = set(re.findall(r"_slurm_rpc_submit_batch_job: JobId=(\d+) ", slurmctld_log))
    allocated = set(
        re.findall(r"(?:sched: Allocate|_start_job: Started) JobId=(\d+) ", slurmctld_log)
    )
    exited_0 = set(re.findall(r"_job_complete: JobId=(\d+) WEXITSTATUS 0$", slurmctld_log, re.M))
    print(
        f"slurmctld: {len(accepted)} batch jobs accepted, {len(allocated)} allocated, "
        f"{len(exited_0)} exited with 0"
    )
    return [
        f"SLURM jobs never {what}: {sorted(set(jobids) - seen, key=int)}"
        for what, seen in (("accepted", accepted), ("allocated", allocated), ("exited 0", exited_0))
        if set(jobids) - seen
    ]


def _without_times(table: pd.DataFrame) -> pd.DataFrame:
    """The table with the numbers of each text cell that gives seconds replaced by "<n>"."""

    def mask(value):
        if isinstance(value, str) and SECONDS_IN_TEXT.search(value):
            return NUMBER.sub("<n>", value)
        return value

    return table.map(mask)


def check_tables(ours: Path, theirs: Path) -> list[str]:
    """The same CSV tables under ``reports/*/tables``, equal apart from timing columns.

    Parameters
    ----------
    ours, theirs : Path
        The run directories of the SLURM run and of the local run.

    Returns
    -------
    list of str
        One line per problem.
    """
    names = sorted(p.relative_to(ours) for p in ours.glob("reports/*/tables/*.csv"))
    other = sorted(p.relative_to(theirs) for p in theirs.glob("reports/*/tables/*.csv"))
    if not names or names != other:
        return [f"tables differ: SLURM run {list(map(str, names))}, local {list(map(str, other))}"]
    errors = []
    for name in names:
        a, b = pd.read_csv(ours / name), pd.read_csv(theirs / name)
        timing = [column for column in a.columns if TIMING.search(str(column))]
        same_columns = list(a.columns) == list(b.columns)
        a, b = (_without_times(table.drop(columns=timing)) for table in (a, b))
        if not same_columns or not a.equals(b):
            errors.append(f"{name} differs from the local run's")
    print(f"{len(names)} tables compared: " + ", ".join(map(str, names)))
    return errors


def main(work: Path, state: Path, target: str) -> int:
    """Run every check; print the problems; 0 when there are none."""
    log = (work / "slurm.log").read_text()
    with open(work / "slurm/workflow/profiles/slurm/config.yaml") as profile:
        groups = yte.process_yaml(profile, require_use_yte=True).get("groups", {})
    local_rules = work / "slurm/workflow/rules/cluster.smk"
    jobids, errors = check_submissions(log, local_rules, groups, target)
    errors += check_slurm_jobs((state / "slurmctld.log").read_text(), jobids)
    errors += check_tables(work / "slurm", work / "local")
    for error in errors:
        print("ERROR:", error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]))
