"""The scorecard: every paper's claims with their verdicts, beside the study's deviations.

Outputs: ``reports/scorecard.{csv,md}`` and ``reports/scorecard.rst`` (the summary that opens the
HTML report, included by ``workflow/report/workflow.rst``). Beside an archived run at another
scale, each archived part is compared with this checkout: its commit, and which rules' code or
which config changed since (:func:`bnstudy.studies.scorecard.archive_states`).

The archive's scorecard (``archive_scorecard``, workflow/rules/archive.smk) is this script on the
archived parts' claims tables: its evidence is the parts' copies (``evidence_root``), linked from
the folder the page is published in (``page``).
"""

import json
import logging
import os
from pathlib import Path

from bnstudy.logs import configure_logging
from bnstudy.studies.archive import config_digest
from bnstudy.studies.claims import read_claims
from bnstudy.studies.scorecard import (
    archive_states,
    read_deviations,
    render_markdown,
    render_rst,
    scorecard,
)
from bnstudy.utils import atomic_path

logger = logging.getLogger(__name__)


def _manifest(path: str) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(f"{path}: not a readable archive manifest ({err})") from err


def main(
    claims: dict,
    archived: dict,
    deviations: str,
    out: dict,
    manifests: dict | None = None,
    rule_code: dict | None = None,
    archive_config: str | None = None,
    paper_rules: dict | None = None,
    evidence_root: str | None = None,
    page: str | None = None,
) -> None:
    parts = {part: _manifest(path) for part, path in (manifests or {}).items()}
    # None: this checkout has no config file of the archived scale (the states say so)
    config = config_digest(archive_config) if archive_config else None
    states = archive_states(parts, rule_code or {}, config, paper_rules or {}) if parts else {}
    card = scorecard(
        {paper: read_claims(path) for paper, path in claims.items()},
        {paper: read_claims(path) for paper, path in archived.items()},
        states,
    )
    if evidence_root:  # reports/<paper>/... -> <evidence_root>/<paper>/...
        card["evidence"] = card["evidence"].str.replace(
            r"^reports/", f"{evidence_root}/", regex=True
        )
    dev = read_deviations(deviations)
    study = states.get("study", "")
    with atomic_path(out["csv"]) as tmp:
        card.to_csv(tmp, index=False)
    with atomic_path(out["md"]) as tmp:
        tmp.write_text(
            render_markdown(card, dev, base=page or os.path.dirname(out["md"]), study_state=study)
        )
    with atomic_path(out["rst"]) as tmp:
        tmp.write_text(render_rst(card, dev, study_state=study))
    for part, state in states.items():
        logger.info("archived part %s: %s", part, state)
    logger.info("%s", card.groupby("paper", sort=False)["verdict"].value_counts().to_dict())


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    papers = snakemake.params.papers
    # the archive's scorecard names its parts' claims tables (its inputs order the parts first)
    claims = snakemake.params.get("claims") or {p: snakemake.input[f"claims_{p}"] for p in papers}
    main(
        claims,
        {p: path for p in papers if (path := snakemake.params.archived.get(p))},
        snakemake.input.deviations,
        snakemake.output,
        manifests=snakemake.params.manifests,
        rule_code=snakemake.params.rule_code,
        archive_config=snakemake.input.archive_config[0]
        if snakemake.input.archive_config
        else None,
        paper_rules=snakemake.params.paper_rules,
        evidence_root=snakemake.params.get("evidence_root"),
        page=snakemake.params.get("page"),
    )
