"""One helper of the benchmark scripts: a reference run in a subprocess, with a timeout."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence


def run_json_script(
    script: str, args: Sequence[str], timeout: float, env: Mapping[str, str] | None = None
) -> dict | None:
    """Run ``python -c script *args`` and parse the last line it prints as JSON.

    Returns ``None`` when it runs past ``timeout`` seconds; a failing script raises
    :class:`subprocess.CalledProcessError`.
    """
    try:
        out = subprocess.run(
            [sys.executable, "-c", script, *map(str, args)],
            capture_output=True,
            text=True,
            env=None if env is None else dict(env),
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])
