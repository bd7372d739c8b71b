# Exponential and Pareto on/off sources over UDP beside a Newreno flow with a delayed-ACK sink.
set ns [new Simulator]
set a [$ns node]
set b [$ns node]
$ns duplex-link $a $b 2Mb 10ms DropTail
$ns queue-limit $a $b 20

set tcp [new Agent/TCP/Newreno]
$tcp set window_ 30
$ns attach-agent $a $tcp
set sink [new Agent/TCPSink/DelAck]
$ns attach-agent $b $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

foreach {name law} {exp Exponential par Pareto} {
    set udp($name) [new Agent/UDP]
    $ns attach-agent $a $udp($name)
    set lm($name) [new Agent/LossMonitor]
    $ns attach-agent $b $lm($name)
    $ns connect $udp($name) $lm($name)
    set $name [new Application/Traffic/$law]
    [set $name] attach-agent $udp($name)
    [set $name] set packetSize_ 400
    [set $name] set burst_time_ 500ms
    [set $name] set idle_time_ 0.5
    [set $name] set rate_ 100k
    $ns at 0.0 "[set $name] start"
}
$par set shape_ 1.4

proc finish {} {
    global lm
    puts "lost [$lm(exp) set nlost_]"
    exit 0
}
$ns at 0.0 "$ftp start"
$ns at 10.0 "finish"
$ns run
