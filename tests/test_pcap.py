"""Packet capture: tshark reads the file and its TCP analysis agrees with congsim's counters."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

import congsim

SCENARIO = """
nodes = ["a", "r", "b"]
[simulation]
duration = "20s"
seed = 3
[[links]]
from = "a"
to = "r"
rate = "10Mbps"
delay = "2ms"
[[links]]
from = "r"
to = "b"
rate = "2Mbps"
delay = "20ms"
queue = { limit_packets = 15 }
[tcp]
profile = "{profile}"
window = 40
[[flows]]
name = "f"
from = "a"
to = "b"
# The sender's side of the bottleneck: every transmission and every ACK that returns.
[[captures]]
file = "sender.pcap"
links = ["a->r", "r->a"]
"""


def tshark_count(tshark: str, pcap: str, display_filter: str) -> int:
    done = subprocess.run(
        [
            tshark,
            "-r",
            pcap,
            "-o",
            "tcp.check_checksum:TRUE",
            "-o",
            "ip.check_checksum:TRUE",
            "-Y",
            display_filter,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return len(done.stdout.splitlines())


@pytest.mark.parametrize("profile", ["ns2_2000", "ns2_2002"])
def test_tshark_sees_what_congsim_counted(tmp_path, profile):
    tshark = shutil.which("tshark")
    if tshark is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install tshark (see .ci/run)")
        pytest.skip("tshark is not installed")
    results = congsim.run(congsim.loads(SCENARIO.replace("{profile}", profile)))
    results.write(tmp_path)
    pcap = str(tmp_path / "sender.pcap")
    flows, links = results.flows.iloc[0], results.links.set_index("link")
    assert flows["retx_pkts"] > 10 and flows["dupacks_rcvd"] > 100, "the check needs losses"
    frames = int(links.loc["a->r", "departures"] + links.loc["r->a", "departures"])
    assert tshark_count(tshark, pcap, "frame") == frames
    assert tshark_count(
        tshark, pcap, "tcp.analysis.retransmission || tcp.analysis.fast_retransmission"
    ) == int(flows["retx_pkts"])
    assert tshark_count(tshark, pcap, "tcp.analysis.duplicate_ack") == int(flows["dupacks_rcvd"])
    assert tshark_count(tshark, pcap, "tcp.checksum.status == 1 && ip.checksum.status == 1") == frames


def test_capture_of_an_unknown_link_is_reported():
    bad = SCENARIO.replace("{profile}", "ns2_2000").replace('links = ["a->r", "r->a"]', 'links = ["a->b"]')
    with pytest.raises(
        congsim.ScenarioError, match=r'captures\[0\]\.links\[0\]: unknown link "a->b"; links are: a->r'
    ):
        congsim.loads(bad)


def test_tshark_reads_the_sack_blocks(tmp_path):
    tshark = shutil.which("tshark")
    if tshark is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install tshark (see .ci/run)")
        pytest.skip("tshark is not installed")
    text = SCENARIO.replace("{profile}", "ns2_2002").replace("window = 40", 'window = 40\nvariant = "sack"')
    results = congsim.run(congsim.loads(text + "[metrics]\nsequence_trace = true\n"))
    results.write(tmp_path)
    acks = results.sequence[results.sequence["event"] == "ack"]
    with_blocks = int((acks["sack"] != "").sum())
    assert with_blocks > 100, "the check needs SACK blocks"
    pcap = str(tmp_path / "sender.pcap")
    assert tshark_count(tshark, pcap, "tcp.options.sack_le && tcp.checksum.status == 1") == with_blocks
