"""The provenance table of the report: one row per table and figure, from its sidecar.

Each report file's job wrote ``<file>.provenance.json`` beside it (bnstudy.provenance.write_sidecar):
the rule, the job's code hash (its script and the library modules it imports), the git commit and
whether the tree had uncommitted changes, the package versions and the config seed. A file without
its record is an error: every number in the report must say what produced it.

Outputs: ``reports/provenance/tables/provenance.{csv,md}``.
"""

import json
import logging

import pandas as pd

from bnstudy.logs import configure_logging
from bnstudy.provenance import PACKAGES, sidecar_path
from bnstudy.report import write_table

logger = logging.getLogger(__name__)


def record_row(path):
    sidecar = sidecar_path(path)
    if not sidecar.is_file():
        raise ValueError(f"{path}: no provenance record ({sidecar} is missing); rerun its rule")
    record = json.loads(sidecar.read_text())
    row = {
        "file": str(path),
        "rule": record.get("rule"),
        "code_hash": record.get("code_hash"),
        "git_commit": str(record.get("git_commit", ""))[:12],
        "git_dirty": record.get("git_dirty"),
        "config_seed": record.get("config_seed"),
    }
    row.update({name: record.get("packages", {}).get(name) for name in PACKAGES})
    return row


def main(files, csv, md):
    frame = pd.DataFrame([record_row(path) for path in files])
    dirty = frame["git_dirty"].fillna(False).astype(bool)
    if dirty.any():
        logger.warning("%d of %d files were computed from a modified tree", dirty.sum(), len(frame))
    write_table(frame, csv, md, title="Provenance of every table and figure")


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    main(
        [*snakemake.input.files, snakemake.input.config], snakemake.output.csv, snakemake.output.md
    )
