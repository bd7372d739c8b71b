"""
An ns-2 script imported
=======================

``congsim import-ns2 script.tcl --out scenario.toml`` runs an ns-2 script in a real Tcl
interpreter (Python's bundled Tcl) against a recording stand-in for ns-2's ``Simulator``, so
that its loops, procs and ``expr`` work as in ns-2, and writes the scenario the script builds.
Here a classic ns-2 dumbbell: four Reno flows started in a ``for`` loop 0.5 s apart through a
1.5 Mb bottleneck with a 20-packet DropTail queue, an Exponential on/off source beside them,
and the bottleneck taken down for a second with ``rtmodel-at``. The same import runs from
Python as ``congsim.ns2import.import_script``.
"""

# %%
# The script and the scenario it becomes
# --------------------------------------
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

import congsim
from congsim.ns2import import import_script

SCRIPT = """\
set ns [new Simulator]
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 1.5Mb 20ms DropTail
$ns queue-limit $r1 $r2 20
for {set i 0} {$i < 4} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 10Mb [expr {2 + 3 * $i}]ms DropTail
    $ns duplex-link $r2 $d($i) 10Mb 2ms DropTail
    set tcp($i) [new Agent/TCP/Reno]
    $tcp($i) set window_ 40
    $ns attach-agent $s($i) $tcp($i)
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [$tcp($i) attach-app FTP]
    $ns at [expr {0.5 * $i}] "$ftp($i) start"
}
set udp [new Agent/UDP]
$ns attach-agent $s(0) $udp
set null [new Agent/Null]
$ns attach-agent $d(0) $null
$ns connect $udp $null
set voice [new Application/Traffic/Exponential]
$voice attach-agent $udp
$voice set packetSize_ 200
$voice set burst_time_ 400ms
$voice set idle_time_ 600ms
$voice set rate_ 64k
$ns at 0.0 "$voice start"
$ns rtmodel-at 12.0 down $r1 $r2
$ns rtmodel-at 13.0 up $r1 $r2
proc finish {} {
    exit 0
}
$ns at 20.0 "finish"
$ns run
"""

with tempfile.TemporaryDirectory() as folder:
    script = Path(folder) / "dumbbell.tcl"
    script.write_text(SCRIPT)
    imported = import_script(script)
print(imported.text)

# %%
# The imported scenario, run
# --------------------------
# The flows take the names of the script's variables (``tcp0`` ... ``tcp3``), the source its
# own (``voice``). The loop's growing access delays give the four flows base round trips of 48
# to 66 ms. ``tcp0``, the nearest and the first to start, takes more than twice what each of
# the others gets, and every flow times out several times: four windows of up to 40 packets
# share a 20-packet buffer. At 12 s the bottleneck goes down for a second (the dip below).
scenario = congsim.loads(imported.text, "dumbbell.toml", {"metrics.series_interval": "100ms"})
results = congsim.run(scenario)
results.flows[["flow", "goodput_bps", "timeouts", "fast_retransmits", "rtt_mean_s"]]

# %%
series = results.flow_series
fig, ax = plt.subplots(figsize=(7, 3.2))
for flow, rows in series.groupby("flow", sort=False):
    ax.plot(rows["time_s"], rows["throughput_bps"] * 1e-6, label=flow, linewidth=1)
ax.axvspan(12.0, 13.0, color="0.9", zorder=0, label="bottleneck down")
ax.set_xlabel("time (s)")
ax.set_ylabel("throughput (Mbps)")
ax.legend(ncols=3, fontsize=8)
fig.tight_layout()
