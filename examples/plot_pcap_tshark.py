"""
A packet capture read with tshark
=================================

A ``[[captures]]`` entry writes the packets that cross chosen links as a classic pcap file
with real IPv4 and TCP headers, which Wireshark and tshark read as they would a capture from
a real network. Here the first 3 s of the tutorial's scenario (``scenarios/reno-sawtooth.toml``:
one Reno flow, a 15-packet bottleneck buffer) are captured on the sender's link, both ways,
and tshark's own TCP analysis finds the retransmissions and duplicate ACKs that congsim
counted. Without tshark (``apt-get install tshark``) the example says so and stops after the
run.
"""

# %%
# A run with a capture
# --------------------
# The override adds the capture: data out of ``src`` and ACKs back, headers only (the
# payload, all zeros, is left out of the records). ``results.write`` puts the pcap file beside
# the tables.
import io
import shutil
import subprocess
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import congsim

root = Path(congsim.__file__).resolve().parents[2]
capture = {"file": "sender.pcap", "links": ["src->router", "router->src"], "headers_only": True}
overrides = {"captures": [capture], "simulation.duration": "3s"}
results = congsim.run(congsim.load(root / "scenarios" / "reno-sawtooth.toml", overrides=overrides))
folder = Path(tempfile.mkdtemp())
results.write(folder)
pcap = folder / "sender.pcap"
print(f"{pcap.name}: {pcap.stat().st_size} bytes")

# %%
# tshark's fields
# ---------------
# ``tshark -T fields`` prints one line per frame with the fields asked for; its TCP analysis
# marks retransmissions and duplicate ACKs. The sender's port is 10000 + the flow's index, the
# receiver's 5001, and sequence numbers are relative to the first byte.
fields = [
    "frame.time_relative",
    "tcp.srcport",
    "tcp.seq",
    "tcp.ack",
    "tcp.len",
    "tcp.analysis.retransmission",
    "tcp.analysis.fast_retransmission",
    "tcp.analysis.duplicate_ack",
]
tshark = shutil.which("tshark")
if tshark is None:
    frames = None
    print("tshark is not installed: the rest of this example needs it (apt-get install tshark)")
else:
    command = [tshark, "-r", str(pcap), "-T", "fields"]
    for option in ("header=y", "separator=,", "occurrence=f"):
        command += ["-E", option]
    for name in fields:
        command += ["-e", name]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    frames = pd.read_csv(io.StringIO(done.stdout))
    for flag in fields[5:]:
        frames[flag] = frames[flag].notna()  # tshark prints 1 for a flagged frame, nothing else
shutil.rmtree(folder)
frames.head() if frames is not None else None

# %%
# The same counts, two ways
# -------------------------
# Every frame, every retransmission and every duplicate ACK that tshark finds in the file is
# one congsim counted (the ``links`` table's departures, the ``flows`` table's ``retx_pkts``
# and ``dupacks_rcvd``).
if frames is not None:
    flow = results.flows.iloc[0]
    links = results.links.set_index("link")
    retransmitted = frames["tcp.analysis.retransmission"] | frames["tcp.analysis.fast_retransmission"]
    comparison = pd.DataFrame(
        {
            "congsim": [
                int(links.loc["src->router", "departures"] + links.loc["router->src", "departures"]),
                int(flow["retx_pkts"]),
                int(flow["dupacks_rcvd"]),
            ],
            "tshark": [
                len(frames),
                int(retransmitted.sum()),
                int(frames["tcp.analysis.duplicate_ack"].sum()),
            ],
        },
        index=["frames", "retransmissions", "duplicate ACKs"],
    )
    print(comparison)

# %%
# The time-sequence plot
# ----------------------
# Each data segment's sequence number (in 1000-byte packets) at the time it left the sender,
# the retransmissions tshark flagged, and the ACK number of each returning ACK; on the left
# the first 0.8 s, on the right 0.15 s around the next loss. The slow start ends in a burst
# of losses; fast retransmit repairs the first, the sender then waits for a timeout (the long
# flat stretch of the ACK line) and sends the rest again, in slow start. The next overflow
# costs one packet: the ACK number stops while duplicate ACKs come back, and one fast
# retransmit repairs the hole.
if frames is not None:
    data = frames[frames["tcp.srcport"] == 10000]
    acks = frames[frames["tcp.srcport"] == 5001]
    again = data[data["tcp.analysis.retransmission"] | data["tcp.analysis.fast_retransmission"]]
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.8))
    for ax, (start, end) in zip(axes, [(0.0, 0.8), (1.35, 1.5)], strict=True):
        sent, acked, resent = (
            part[part["frame.time_relative"].between(start, end)] for part in (data, acks, again)
        )
        ax.plot(sent["frame.time_relative"], sent["tcp.seq"] / 1000, ".", markersize=3, label="data sent")
        ax.step(acked["frame.time_relative"], acked["tcp.ack"] / 1000, where="post", label="ACK number")
        ax.plot(
            resent["frame.time_relative"], resent["tcp.seq"] / 1000, "x", color="C3", label="retransmitted"
        )
        ax.set_xlabel("time (s)")
    axes[0].set_ylabel("sequence number (packets)")
    axes[0].legend(loc="upper left")
    fig.tight_layout()
