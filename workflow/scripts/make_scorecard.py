"""The scorecard: every paper's claims with their verdicts, beside the study's deviations.

Outputs: ``reports/scorecard.{csv,md}`` and ``reports/scorecard.rst`` (the summary that opens the
HTML report, included by ``workflow/report/workflow.rst``).
"""

import logging
import os

from bnstudy.logs import configure_logging
from bnstudy.studies.claims import read_claims
from bnstudy.studies.scorecard import read_deviations, render_markdown, render_rst, scorecard
from bnstudy.utils import atomic_path

logger = logging.getLogger(__name__)


def main(claims: dict, archived: dict, deviations: str, out: dict) -> None:
    card = scorecard(
        {paper: read_claims(path) for paper, path in claims.items()},
        {paper: read_claims(path) for paper, path in archived.items()},
    )
    dev = read_deviations(deviations)
    with atomic_path(out["csv"]) as tmp:
        card.to_csv(tmp, index=False)
    with atomic_path(out["md"]) as tmp:
        tmp.write_text(render_markdown(card, dev, base=os.path.dirname(out["md"])))
    with atomic_path(out["rst"]) as tmp:
        tmp.write_text(render_rst(card, dev))
    logger.info("%s", card.groupby("paper", sort=False)["verdict"].value_counts().to_dict())


if __name__ == "__main__":
    configure_logging(snakemake.log[0])
    papers = snakemake.params.papers
    main(
        {p: snakemake.input[f"claims_{p}"] for p in papers},
        {p: path for p in papers if (path := snakemake.params.archived.get(p))},
        snakemake.input.deviations,
        snakemake.output,
    )
