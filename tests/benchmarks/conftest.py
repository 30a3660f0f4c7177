"""The scripts of benchmarks/ are importable by name in these tests (as they import each other)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
