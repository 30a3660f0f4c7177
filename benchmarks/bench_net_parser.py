"""Benchmark: bnstudy's Hugin ``.net`` (and BIF) parsers against pgmpy's readers.

1. ``read_net`` on the ADAPT network (``adapt10_v7e.net``, 493 nodes): median of ``--repeats``.
2. pgmpy's ``NETReader(...).get_model()`` on ADAPT, in a subprocess killed after
   ``--pgmpy-timeout`` seconds (it re-scans the whole file once per node).
3. Both readers on small networks (asia written by pgmpy's ``NETWriter``; alarm and
   win95pts written by our ``write_net``), for a ratio (pgmpy needs 72 s for pigs' 441 nodes);
   and both BIF readers on alarm, pigs and link.

Usage::

    .venv/bin/python benchmarks/bench_net_parser.py [--repeats 10] [--pgmpy-timeout 60] [--data DIR]
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from timing import median_time

from bnstudy.networks import DiscreteBayesianNetwork, read_bif, read_net, write_net

DEFAULT_DATA = Path(
    os.environ.get(
        "BNSTUDY_DATA_MIRROR", Path(__file__).resolve().parents[1].parent / "shared" / "data"
    )
)

_PGMPY_CHILD = """
import sys, time, warnings
warnings.simplefilter("ignore")
from pgmpy.readwrite import NETReader
t0 = time.perf_counter()
NETReader(sys.argv[1]).get_model()
print(time.perf_counter() - t0)
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=10, help="repeats of our reader")
    parser.add_argument("--pgmpy-repeats", type=int, default=3, help="repeats of pgmpy's readers")
    parser.add_argument(
        "--pgmpy-timeout", type=float, default=60.0, help="seconds for pgmpy on ADAPT"
    )
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="data mirror (adapt/, bif/)"
    )
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.readwrite import BIFReader, NETReader, NETWriter
        from pgmpy.utils import get_example_model

        asia = get_example_model("asia")

    adapt = args.data / "adapt" / "adapt10_v7e.net"
    ours = median_time(lambda: read_net(adapt), args.repeats).median
    bn = read_net(adapt)
    print(
        f"read_net(ADAPT): median {ours:.4f} s over {args.repeats} ({len(bn.nodes)} nodes, "
        f"{len(bn.edges)} arcs, {bn.n_cpt_parameters} CPT entries)",
        flush=True,
    )

    try:
        out = subprocess.run(
            [sys.executable, "-c", _PGMPY_CHILD, str(adapt)],
            capture_output=True,
            text=True,
            timeout=args.pgmpy_timeout,
            check=True,
        )
        theirs = float(out.stdout.strip().splitlines()[-1])
        print(f"pgmpy NETReader(ADAPT): {theirs:.2f} s, ratio pgmpy/ours {theirs / ours:.0f}x")
    except subprocess.TimeoutExpired:
        print(
            f"pgmpy NETReader(ADAPT): did not finish in {args.pgmpy_timeout:g} s "
            f"(ratio pgmpy/ours > {args.pgmpy_timeout / ours:.0f}x)"
        )
    except subprocess.CalledProcessError as exc:
        print(f"pgmpy NETReader(ADAPT): failed: {exc.stderr.strip().splitlines()[-1]}")

    print(f"\n{'.net file':<22} {'nodes':>5} {'ours (s)':>9} {'pgmpy (s)':>10} {'pgmpy/ours':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        files = {"asia (NETWriter)": Path(tmp) / "asia.net"}
        NETWriter(asia).write(str(files["asia (NETWriter)"]))
        for name in ("alarm", "win95pts"):
            files[f"{name} (write_net)"] = Path(tmp) / f"{name}.net"
            write_net(read_bif(args.data / "bif" / f"{name}.bif.gz"), files[f"{name} (write_net)"])
        for label, path in files.items():
            n_nodes = len(read_net(path).nodes)
            o = median_time(lambda path=path: read_net(path), args.repeats).median
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = median_time(
                    lambda path=path: NETReader(str(path)).get_model(), args.pgmpy_repeats
                ).median
            print(f"{label:<22} {n_nodes:>5} {o:>9.4f} {t:>10.3f} {t / o:>10.0f}x", flush=True)

    print(
        f"\n{'.bif.gz file':<22} {'nodes':>5} {'ours (s)':>9} {'pgmpy (s)':>10} {'pgmpy/ours':>11}"
    )
    for name in ("alarm", "pigs", "link"):
        path = args.data / "bif" / f"{name}.bif.gz"
        o = median_time(lambda path=path: read_bif(path), args.repeats).median

        def pgmpy_read(path: Path = path) -> DiscreteBayesianNetwork:
            with gzip.open(path, "rt", encoding="utf-8") as fh:  # BIFReader cannot read .gz itself
                return BIFReader(string=fh.read()).get_model()

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = median_time(pgmpy_read, args.pgmpy_repeats).median
        print(
            f"{name:<22} {len(read_bif(path).nodes):>5} {o:>9.4f} {t:>10.3f} {t / o:>10.0f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
