"""Hugin .net reader/writer: ADAPT, round trips, interop with pgmpy's NETWriter/NETReader."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest
from pgmpy.readwrite import NETReader, NETWriter

from bnstudy.networks import DiscreteBayesianNetwork, load_network, parse_net, read_net, write_net


@pytest.fixture(scope="module")
def adapt_path(mirror):
    return mirror / "adapt" / "adapt10_v7e.net"


@pytest.fixture(scope="module")
def adapt(adapt_path):
    return read_net(adapt_path)


@pytest.fixture(scope="module")
def asia_model():
    from pgmpy.utils import get_example_model

    with warnings.catch_warnings():  # deprecated in favour of load_model, which needs the network
        warnings.simplefilter("ignore", FutureWarning)
        return get_example_model("asia")


def test_adapt_size(adapt):
    assert adapt.name == "adapt10_v7e"
    s = adapt.summary()
    assert (s["nodes"], s["arcs"], s["cpt_parameters"]) == (493, 599, 10913)
    # ADAPT's rows are exactly normalised: nothing was rescaled
    for v in adapt.nodes:
        assert np.all(adapt.cpts[v].sum(axis=-1) == 1.0), v


def test_adapt_layout_follows_the_file(adapt):
    # potential ( Closed_relay_ey344_cl | Health_relay_ey344_cl Command_relay_ey344_cl )
    # data = (((1.0 0.0) (0.0 1.0)) ((1.0 0.0) (1.0 0.0)) ((0.0 1.0) (0.0 1.0)));
    v = "Closed_relay_ey344_cl"
    assert adapt.parents[v] == ["Health_relay_ey344_cl", "Command_relay_ey344_cl"]
    assert adapt.state_names["Health_relay_ey344_cl"] == ["healthy", "stuckOpen", "stuckClosed"]
    assert adapt.state_names["Command_relay_ey344_cl"] == ["cmdOpen", "cmdClose"]
    assert adapt.state_names[v] == ["open", "closed"]
    expected = [[[1, 0], [0, 1]], [[1, 0], [1, 0]], [[0, 1], [0, 1]]]
    np.testing.assert_array_equal(adapt.cpts[v], expected)  # healthy relay follows the command


def test_adapt_round_trip(adapt, tmp_path):
    path = tmp_path / "adapt_copy.net"
    write_net(adapt, path)
    back = load_network(path)
    assert back.name == "adapt_copy"
    assert back.nodes == adapt.nodes
    assert back.parents == adapt.parents
    assert back.state_names == adapt.state_names
    for v in adapt.nodes:
        np.testing.assert_array_equal(back.cpts[v], adapt.cpts[v])  # bit-identical (repr floats)


def test_reads_what_pgmpy_writes(asia_model, tmp_path):
    path = tmp_path / "asia.net"
    NETWriter(asia_model).write(str(path))
    ours = read_net(path)
    assert set(ours.nodes) == set(asia_model.nodes())
    for v in ours.nodes:
        cpd = asia_model.get_cpds(v)
        assert ours.parents[v] == list(cpd.variables[1:])
        assert ours.state_names[v] == list(cpd.state_names[v])
        # NETWriter rounds to 8 decimals
        np.testing.assert_allclose(ours.cpts[v], np.moveaxis(cpd.values, 0, -1), rtol=0, atol=1e-8)


def test_pgmpy_reads_what_we_write(asia_model, tmp_path):
    bn = DiscreteBayesianNetwork.from_pgmpy(asia_model, name="asia")
    path = tmp_path / "asia.net"
    write_net(bn, path)
    model = NETReader(str(path)).get_model()
    assert model.check_model()
    assert set(model.edges()) == set(bn.edges)
    assert DiscreteBayesianNetwork.from_pgmpy(model).allclose(bn, atol=0.0)


def test_write_net_rejects_names_hugin_cannot_read(tmp_path):
    bn = DiscreteBayesianNetwork(["a b"], {}, {"a b": np.array([0.5, 0.5])}, {"a b": ["x", "y"]})
    with pytest.raises(ValueError, match="not valid in the Hugin format"):
        write_net(bn, tmp_path / "x.net")
    assert not (tmp_path / "x.net").exists()


def test_quoted_state_names_round_trip(tmp_path):
    states = ['say "hi"', "back\\slash", "plain"]
    bn = DiscreteBayesianNetwork(["A"], {}, {"A": np.array([0.2, 0.3, 0.5])}, {"A": states})
    write_net(bn, tmp_path / "q.net")
    assert read_net(tmp_path / "q.net").state_names["A"] == states


# ----------------------------------------------------------------------------- a small file
VALID = """\
% a small network in Hugin's NET language
net
{
    node_size = (80 40);
    label = "small";
}
node A
{
    label = "A";
    position = (10 20);
    states = ("yes" "no");
}
discrete node B
{
    states = ("low" "mid" "high");
    HR_Extra = "1"; % user attribute
}
potential ( A | )
{
    data = ( 0.3 0.7 );
}
potential ( B | A )
{
    data = (( 0.1 0.2 0.7 )    % A = yes
            ( 0.5 0.25 0.25 )); % A = no
}
"""


def _with_line(lineno: int, new: str) -> str:
    lines = VALID.splitlines()
    lines[lineno - 1] = new
    return "\n".join(lines) + "\n"


def test_small_file(tmp_path):
    path = tmp_path / "small.net"
    path.write_text(VALID)
    bn = read_net(path)
    assert bn.nodes == ["A", "B"]
    assert bn.parents == {"A": [], "B": ["A"]}
    assert bn.state_names == {"A": ["yes", "no"], "B": ["low", "mid", "high"]}
    np.testing.assert_array_equal(bn.cpts["B"], [[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])


@pytest.mark.parametrize(
    ("lineno", "new", "error_line", "message"),
    [
        (11, '    states = ("yes" "no")', 11, r"expected ';', got '\}'"),
        (22, "potential ( B | C )", 22, r"unknown node 'C'"),
        (25, "            ( 0.5 0.25 ));", 24, r"data of 'B' has 5 numbers, expected 6 \(2 x 3\)"),
        (12, "", 13, r"expected '\}' closing node 'A', got 'discrete'"),
        (26, "", 25, r"expected '\}' closing potential of 'B', got end of file"),
        (7, "continuous node A", 7, r"unsupported declaration 'continuous'"),
        (20, "    data = ( 0.3 x );", 20, r"expected a number in the data of 'A', got 'x'"),
        (25, "            ( 0.5 0.25 0.35 )); % A = no", 25, r"probabilities of 'B' sum to 1\.1"),
        (9, '    label = "A;', 9, r"unterminated string"),
        (20, "    data = (( 0.3 0.7 );", 20, r"expected '\)' closing the value of 'data', got ';'"),
        (
            15,
            '    states = ("low" "mid" high);',
            15,
            r"expected a quoted state name of 'B', got 'high'",
        ),
    ],
)
def test_malformed_net_reports_file_and_line(tmp_path, lineno, new, error_line, message):
    path = tmp_path / "broken.net"
    path.write_text(_with_line(lineno, new))
    with pytest.raises(ValueError, match=rf"broken\.net line {error_line}: .*(?:{message})"):
        read_net(path)


def test_missing_potential_and_small_round_off(caplog):
    text = VALID.replace("potential ( A | )\n{\n    data = ( 0.3 0.7 );\n}\n", "")
    with pytest.raises(ValueError, match=r"x\.net line 7: node 'A' has no potential"):
        parse_net(text, source="x.net")
    text = _with_line(25, "            ( 0.5 0.25 0.2505 ));")
    with caplog.at_level(logging.WARNING, logger="bnstudy.networks.bif"):
        bn = parse_net(text, source="x.net")
    assert "x.net line 25: renormalised 1 CPT row(s) of 'B'" in caplog.text
    assert bn.cpts["B"][1].sum() == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("text", ["", "% a comment only\n", "net\n{\n}\n", 'net { label = "x"; }'])
def test_empty_or_header_only_net_is_an_error(tmp_path, text):
    path = tmp_path / "empty.net"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"empty\.net: no node declared"):
        read_net(path)
    with pytest.raises(ValueError, match="no node declared"):
        parse_net(text)


def test_binary_net_names_the_file(tmp_path):
    path = tmp_path / "blob.net"
    path.write_bytes(b"net {\n}\n" + bytes(range(128, 256)))
    with pytest.raises(ValueError, match=r"blob\.net: not a Hugin \.net text file"):
        read_net(path)
    with pytest.raises(ValueError, match=r"blob\.net: not a Hugin \.net text file"):
        load_network(path)


def test_readers_share_one_text_module():
    """The BIF and .net readers use the shared helpers, not each other's private names."""
    import inspect

    import bnstudy.networks._text as text
    import bnstudy.networks.bif as bif
    import bnstudy.networks.hugin as hugin

    for name in ("TokenStream", "parse_header", "check_rows", "build_network", "stem"):
        assert getattr(bif, name) is getattr(text, name)
        assert getattr(hugin, name) is getattr(text, name)
    assert "from bnstudy.networks.bif import" not in inspect.getsource(hugin)
