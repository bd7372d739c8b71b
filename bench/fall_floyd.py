"""The Fall & Floyd (1996) multiple-drop experiments in congsim and ns-2, side by side.

`scenarios/fall-floyd.toml`: one flow (ns2_2000 switches, 1000-byte packets, window 20) sends
100 KB over an 8 Mbps / 0.1 ms link and a 0.8 Mbps / 100 ms bottleneck; 1 to 4 consecutive
packets of one window (the 14th data packet on) are dropped. For Tahoe, Reno and NewReno the
script prints timeouts, retransmitted packets and completion time from both simulators. Needs
ns-2 for its column.

    python bench/fall_floyd.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from ns2_script import NS2_2000_SETTINGS  # noqa: E402

import congsim  # noqa: E402

FIRST_DROP = 14  # 1-based data packet number
VARIANTS = {"tahoe": "Agent/TCP", "reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno"}


def scenario(variant: str, drops: int) -> congsim.Scenario:
    """`scenarios/fall-floyd.toml` with `drops` consecutive packets dropped from one window."""
    listed = [{"from": "r", "to": "b", "flow": "f", "packet": FIRST_DROP + k} for k in range(drops)]
    return congsim.load(ROOT / "scenarios" / "fall-floyd.toml", {"tcp.variant": variant, "drops": listed})


def ns2(variant: str, drops: int) -> dict[str, float]:
    # ns-2's ErrorModel/List counts packets from 0.
    droplist = " ".join(str(FIRST_DROP - 1 + k) for k in range(drops))
    tcl = f"""
set ns [new Simulator]
{NS2_2000_SETTINGS}
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 20
set a [$ns node]
set r [$ns node]
set b [$ns node]
$ns duplex-link $a $r 8000000 0.0001 DropTail
$ns duplex-link $r $b 800000 0.1 DropTail
$ns queue-limit $r $b 100
set em [new ErrorModel/List]
$em droplist {{{droplist}}}
$ns lossmodel $em $r $b
set tcp [new {VARIANTS[variant]}]
$ns attach-agent $a $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $b $sink
$ns connect $tcp $sink
set ftp [$tcp attach-app FTP]
set done_at -1
Agent/TCP instproc done {{}} {{ global ns done_at; set done_at [$ns now] }}
$ns at 0.0 "$ftp produce 103"
proc finish {{}} {{
    global tcp done_at
    puts "timeouts [$tcp set nrexmit_]"
    puts "retx [$tcp set nrexmitpack_]"
    puts "done $done_at"
    exit 0
}}
$ns at 10.0 finish
$ns run
"""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ff.tcl"
        path.write_text(tcl)
        out = subprocess.run(["ns", str(path)], capture_output=True, text=True, check=True).stdout
    values = dict(line.split() for line in out.splitlines() if len(line.split()) == 2)
    return {k: float(v) for k, v in values.items()}


def main() -> None:
    have_ns2 = shutil.which("ns") is not None
    columns = f"{'timeouts':>8} {'retx':>5} {'done (s)':>9}"
    print(f"{'variant':8} {'drops':>5} | {columns} | ns-2: {columns}")
    for variant in VARIANTS:
        for drops in range(1, 5):
            flows = congsim.run(scenario(variant, drops)).flows.iloc[0]
            ours = (
                f"{int(flows['timeouts']):8d} {int(flows['retx_pkts']):5d} {flows['completion_time_s']:9.3f}"
            )
            theirs = "not installed"
            if have_ns2:
                n = ns2(variant, drops)
                theirs = f"{int(n['timeouts']):8d} {int(n['retx']):5d} {n['done']:9.3f}"
            print(f"{variant:8} {drops:5d} | {ours} |       {theirs}")


if __name__ == "__main__":
    main()
