"""BIF reader: agreement with pgmpy, the LSBN paper's network statistics, error locations."""

from __future__ import annotations

import gzip
import logging

import numpy as np
import pytest
from pgmpy.readwrite import BIFReader

from bnstudy.networks import DiscreteBayesianNetwork, load_network, parse_bif, read_bif

NETWORKS = ["alarm", "insurance", "win95pts", "pigs", "link"]


def _pgmpy_model(path):
    # pgmpy's BIFReader(path=...) cannot read .gz, so hand it the text.
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return BIFReader(string=fh.read()).get_model()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["alarm", "insurance"])
def test_agrees_with_pgmpy(mirror, name):
    path = mirror / "bif" / f"{name}.bif.gz"
    ours = read_bif(path)
    model = _pgmpy_model(path)
    assert ours.name == name
    assert set(ours.nodes) == set(model.nodes())
    for v in ours.nodes:
        cpd = model.get_cpds(v)
        assert ours.parents[v] == list(cpd.variables[1:]), v
        assert set(ours.parents[v]) == set(model.get_parents(v)), v
        assert ours.state_names[v] == list(cpd.state_names[v]), v
        # pgmpy values are (card, *parent cards); ours put the child last
        np.testing.assert_allclose(ours.cpts[v], np.moveaxis(cpd.values, 0, -1), rtol=0, atol=1e-9)
    assert ours.allclose(DiscreteBayesianNetwork.from_pgmpy(model), atol=1e-9)


# Table "Benchmark networks" of the LSBN paper: nodes, arcs, max in-degree, average Markov blanket
# size. All printed values match the bnlearn files exactly (avg MB to the 2 printed decimals).
LSBN_TABLE = {
    "alarm": (37, 46, 4, 3.51),
    "insurance": (27, 52, 3, 5.19),
    "win95pts": (76, 112, 7, 5.92),
    "pigs": (441, 592, 2, 3.66),
    "link": (724, 1125, 3, 4.80),
}


@pytest.mark.parametrize("name", NETWORKS)
def test_summary_matches_lsbn_table(mirror, name):
    s = load_network(mirror / "bif" / f"{name}.bif.gz").summary()
    nodes, arcs, max_in, avg_mb = LSBN_TABLE[name]
    assert (s["nodes"], s["arcs"], s["max_in_degree"]) == (nodes, arcs, max_in)
    assert round(s["avg_markov_blanket"], 2) == avg_mb
    assert s["avg_degree"] == pytest.approx(2 * arcs / nodes)
    assert s["free_parameters"] < s["cpt_parameters"]


def test_large_networks_parse_to_the_same_network_twice(mirror):
    """pigs and link parse whole and repeatably (their speed against pgmpy's BIFReader is
    ``benchmarks/bench_net_parser.py``'s, not a test's)."""
    for name in ["pigs", "link"]:
        a, b = (read_bif(mirror / "bif" / f"{name}.bif.gz") for _ in range(2))
        assert a.nodes == b.nodes and a.parents == b.parents and a.allclose(b, atol=0.0)
        for v in a.nodes:
            np.testing.assert_allclose(a.cpts[v].sum(-1), 1.0, atol=1e-6, err_msg=f"{name}: {v}")


# ----------------------------------------------------------------------------- a small file
VALID = """\
network test {
} // end of the network block
variable A {
  type discrete [ 2 ] { yes, no };
}
variable B {
  type discrete [ 3 ] { low, mid, high };
}
variable C {
  type discrete [ 2 ] { off, on };
  property weight = 2 ; /* ignored */
}
probability ( A ) {
  table 0.3, 0.7;
}
probability ( B | A ) {
  (yes) 0.1, 0.2, 0.7;
  (no) 0.5, 0.25, 0.25;
}
probability ( C | A, B ) {
  (yes, low) 0.9, 0.1;
  (no, low) 0.8, 0.2;
  (yes, mid) 0.7, 0.3;
  (no, mid) 0.6, 0.4;
  default 0.5, 0.5;
}
"""


def _with_line(lineno: int, new: str) -> str:
    lines = VALID.splitlines()
    lines[lineno - 1] = new
    return "\n".join(lines) + "\n"


def test_small_file_with_default_and_comments(tmp_path):
    path = tmp_path / "small.bif"
    path.write_text(VALID)
    bn = read_bif(path)
    assert bn.name == "small"
    assert bn.nodes == ["A", "B", "C"]
    assert bn.parents == {"A": [], "B": ["A"], "C": ["A", "B"]}
    np.testing.assert_array_equal(bn.cpts["A"], [0.3, 0.7])
    np.testing.assert_array_equal(bn.cpts["B"][1], [0.5, 0.25, 0.25])
    np.testing.assert_array_equal(bn.cpts["C"][1, 0], [0.8, 0.2])  # (no, low)
    np.testing.assert_array_equal(bn.cpts["C"][0, 1], [0.7, 0.3])  # (yes, mid)
    np.testing.assert_array_equal(bn.cpts["C"][:, 2], [[0.5, 0.5], [0.5, 0.5]])  # default


def test_table_with_parents_follows_pgmpy():
    text = _with_line(17, "  table 0.1, 0.5, 0.2, 0.25, 0.7, 0.25;").replace(
        "  (no) 0.5, 0.25, 0.25;\n", ""
    )
    ours = parse_bif(text)
    np.testing.assert_array_equal(ours.cpts["B"], [[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    model = BIFReader(string=text.replace("  default 0.5, 0.5;\n", _ROWS_HIGH)).get_model()
    np.testing.assert_array_equal(np.moveaxis(model.get_cpds("B").values, 0, -1), ours.cpts["B"])


_ROWS_HIGH = "  (yes, high) 0.5, 0.5;\n  (no, high) 0.5, 0.5;\n"


@pytest.mark.parametrize(
    ("lineno", "new", "error_line", "message"),
    [
        (18, "  (no) 0.5, 0.25, 0.25", 18, r"expected ';', got '\}'"),
        (20, "probability ( C | A, D ) {", 20, r"unknown variable 'D'"),
        (17, "  (yes) 0.1, 0.2;", 17, r"row of 'B' has 2 probabilities, expected 3"),
        (5, "", 6, r"expected '\}' closing variable 'A', got 'variable'"),
        (19, "", 20, r"expected .*'\}' in the probability block of 'B', got 'probability'"),
        (26, "", 25, r"expected '\}' closing the probability block of 'C', got end of file"),
        (22, "  (no, lo) 0.8, 0.2;", 22, r"unknown state 'lo' of parent 'B'"),
        (
            25,
            "",
            20,
            r"no probabilities for 2 of 6 parent configurations \(first missing: \(yes, high\)\)",
        ),
        (17, "  (yes) 0.1, 0.2, 0.8;", 17, r"probabilities of 'B' sum to 1\.1"),
        (14, "  table 0.3, x;", 14, r"expected a probability, got 'x'"),
        (7, "  type discrete [ 2 ] { low, mid, high };", 7, r"declares 2 states but lists 3"),
        (22, "  (yes, low) 0.8, 0.2;", 22, r"\(yes, low\) of 'C' given twice"),
        (11, '  property "weight ;', 11, r"unterminated string"),
        (21, "  (yes) 0.9, 0.1;", 21, r"has 1 states, expected 2"),
        (3, "varable A {", 3, r"expected 'network', 'variable' or 'probability', got 'varable'"),
    ],
)
def test_malformed_bif_reports_file_and_line(tmp_path, lineno, new, error_line, message):
    path = tmp_path / "broken.bif"
    path.write_text(_with_line(lineno, new))
    with pytest.raises(ValueError, match=rf"broken\.bif line {error_line}: .*{message}"):
        read_bif(path)


def test_cycle_in_file_is_reported(tmp_path):
    text = _with_line(13, "probability ( A | C ) {").replace(
        "  table 0.3, 0.7;", "  (off) 0.3, 0.7;\n  (on) 0.5, 0.5;"
    )
    path = tmp_path / "cyclic.bif"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"cyclic\.bif: .*cycle: .*A"):
        read_bif(path)


def test_small_round_off_is_renormalised_with_a_warning(caplog):
    text = _with_line(17, "  (yes) 0.1, 0.2, 0.7005;")
    with caplog.at_level(logging.WARNING, logger="bnstudy.networks.bif"):
        bn = parse_bif(text, source="x.bif")
    assert "x.bif line 17: renormalised 1 CPT row(s) of 'B'" in caplog.text
    np.testing.assert_allclose(bn.cpts["B"][0], np.array([0.1, 0.2, 0.7005]) / 1.0005)
    assert bn.cpts["B"][0].sum() == pytest.approx(1.0, abs=1e-15)


def test_load_network_rejects_unknown_suffix(tmp_path):
    with pytest.raises(ValueError, match=r"net\.xml.*supported suffixes: \.bif, \.bif\.gz, \.net"):
        load_network(tmp_path / "net.xml")


@pytest.mark.parametrize(
    "text",
    ["", "   \n// only a comment\n", "network unknown {\n}\n", 'network "x" { property p; }\n'],
)
def test_empty_or_header_only_bif_is_an_error(tmp_path, text):
    path = tmp_path / "empty.bif"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"empty\.bif: no variable declared"):
        read_bif(path)
    with pytest.raises(ValueError, match="no variable declared"):
        parse_bif(text)


def test_truncated_bif_gz_names_the_file(mirror, tmp_path):
    # a copy outside the registry layout: not verified, so the gzip error itself must name the file
    path = tmp_path / "mine.bif.gz"
    data = (mirror / "bif" / "alarm.bif.gz").read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"mine\.bif\.gz: not a readable gzip file"):
        read_bif(path)
    path.write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match=r"mine\.bif\.gz: not a readable gzip file"):
        load_network(path)


def test_binary_bif_names_the_file(tmp_path):
    path = tmp_path / "blob.bif"
    path.write_bytes(bytes(range(256)))
    with pytest.raises(ValueError, match=r"blob\.bif: not a BIF text file"):
        read_bif(path)
