"""Logging set-up for the workflow's glue scripts (the library itself only uses module loggers)."""

from __future__ import annotations

import logging
import os
import sys
from types import TracebackType

__all__ = ["configure_logging"]


def configure_logging(log_path: str | os.PathLike | None, level: int = logging.INFO) -> None:
    """Send log records to ``log_path`` (the rule's ``log:`` file) and to stderr.

    Uncaught exceptions are logged too, so a failing job's traceback lands in its log file.

    Parameters
    ----------
    log_path : path-like or None
        The log file; None logs to stderr only.
    level : int, default logging.INFO
        Root logger level.
    """
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path is not None:
        handlers.append(logging.FileHandler(log_path, mode="w"))
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )

    def _log_uncaught(
        exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        logging.getLogger("bnstudy").error("uncaught exception", exc_info=(exc_type, exc, tb))

    sys.excepthook = _log_uncaught
