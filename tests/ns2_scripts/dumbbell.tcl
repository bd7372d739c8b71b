# A dumbbell of N Reno flows built by a proc called in a loop, sharing a RED bottleneck with a
# CBR source whose rate changes during the run; one access link fails and is repaired. It runs
# in ns-2.35 as it stands (`ns dumbbell.tcl`); `congsim import-ns2 dumbbell.tcl` translates it.
set ns [new Simulator]
set tf [open dumbbell.tr w]
$ns trace-all $tf

set N 4
Agent/TCP set window_ 40
Agent/TCP set packetSize_ 1460
Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 15
Queue/RED set q_weight_ 0.002
Queue/RED set gentle_ false
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 10Mb 20ms RED
$ns queue-limit $r1 $r2 60

# Flow i: sender s(i) with a 2i ms access link, receiver d(i), FTP over Reno from 0.5 i s.
proc flow {i delay} {
    global ns r1 r2 s d tcp ftp
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 100Mb $delay DropTail
    $ns duplex-link $r2 $d($i) 100Mb 1ms DropTail
    set tcp($i) [new Agent/TCP/Reno]
    $ns attach-agent $s($i) $tcp($i)
    set sink [new Agent/TCPSink]
    $ns attach-agent $d($i) $sink
    $ns connect $tcp($i) $sink
    set ftp($i) [$tcp($i) attach-app FTP]
    $ns at [expr {0.5 * ($i - 1)}] "$ftp($i) start"
}

for {set i 1} {$i <= $N} {incr i} {
    flow $i [expr {2 * $i}]ms
}

# A CBR source from u to d(1): 1 Mbit/s from 1 s to 4 s, 2 Mbit/s from 2 s.
set u [$ns node]
$ns duplex-link $u $r1 100Mb 1ms DropTail
set udp [new Agent/UDP]
$ns attach-agent $u $udp
set null [new Agent/Null]
$ns attach-agent $d(1) $null
$ns connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 500
$cbr set rate_ 1Mb
$ns at 1.0 "$cbr start"
$ns at 2.0 "$cbr set rate_ 2Mb"
$ns at 4.0 "$cbr stop"

# Flow 2's access link fails at 3 s and is repaired at 4 s; flow 4 stops at 5 s.
$ns rtmodel-at 3.0 down $s(2) $r1
$ns rtmodel-at 4.0 up $s(2) $r1
$ns at 5.0 "$ftp(4) stop"

proc finish {} {
    global ns tf
    $ns flush-trace
    close $tf
    exit 0
}
$ns at 6.0 "finish"
$ns run
