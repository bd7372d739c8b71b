// DCTCP (RFC 8257) in ns-3 beside congsim: bench/dctcp_ns3.py builds this program, runs it and
// the same network in congsim, and tabulates both.
//
// Network: a point-to-point dumbbell. Sender i -- access link (access_rate, access_delay) -- r1
// -- bottleneck (rate, bottleneck_delay) -- r2 -- egress link (access_rate, access_delay) --
// receiver i: one receiving node per sender, so that no link but the bottleneck is shared by
// two flows' data.
//
// Queues: the bottleneck (r1 -> r2) has a RedQueueDisc that marks as a step on the
// instantaneous queue: MinTh = MaxTh = K, QW = 1, UseEcn, no hard drop, MeanPktSize 1500,
// MaxSize `limit` packets; under it the point-to-point device queue holds `deviceQueue`
// packets (default 1) so that the queue builds in the queue disc. RED compares the queue disc's
// own length (the arrival not counted, the device's packets not counted either) with K: with a
// backlog the device holds one packet waiting beside the one in transmission, so a packet is
// marked when it finds K + deviceQueue packets waiting in all. Every other link's queue is its
// device queue, DropTail of `accessQueue` packets, with no queue disc (the default pfifo_fast is
// uninstalled, as in bench/ns3_cubic.cc); drops there are counted apart.
//
// TCP: every node's socket type is TcpDctcp (ns-3.37), whose Init switches ECN on in its DCTCP
// mode (every packet ECT(0), the receiver's CE state machine). Segment size, initial window,
// delayed ACKs (`delAckCount` segments or 200 ms), SACK, no timestamps, window scaling, one size
// for the send and receive buffers; everything else as ns-3.37 ships it (RTO floor 1 s, clock
// granularity 1 ms, PRR as the recovery algorithm, which also paces the DCTCP cut in CA_CWR,
// DctcpShiftG 1/16, DctcpAlphaOnInit 1); `--recovery=classic` sets TcpClassicRecovery instead,
// which sets cwnd to the new ssthresh at once. ns-3.37's TcpDctcp cuts to cwnd · (1 − alpha/2)
// with no floor, so a window can fall below one segment: the socket then sends nothing (its
// silly-window check wants a whole segment) and, with nothing in flight, arms no timer either, so
// the flow stops for good; `--floorSegments=2` puts Linux's floor of 2 segments under the cut.
//
// Link rates count IP bytes: ns-3 puts a 2-byte PPP header on every packet, so each device runs
// at rate · (ip + 2) / ip with ip = segment + 40.
//
// Flow i's application (BulkSend, unlimited) starts at i · stagger.
//
// Measured over [from, duration): goodput (bytes the sink received); the queue sampled every
// `queueSampleUs` (queue disc + device queue = packets waiting, and the queue disc alone):
// mean, 99th percentile (nearest rank) and maximum; CE marks and drops of the bottleneck queue
// disc; drops anywhere else; per flow, alpha and cwnd sampled every `sampleUs` (alpha is the
// last value TcpDctcp's CongestionEstimate trace gave, 1 before the first), the marked fraction
// of the bytes the alpha updates saw, the number of alpha updates, of CWR entries (ECN
// reductions), of recoveries and of retransmission timeouts.
//
// Output, one item per line:
//   flow <i> goodput_bps <x> alpha_mean <x> alpha_last <x> alpha_updates <n>
//        marked_fraction <x> mean_cwnd <x> cwr <n> recoveries <n> rtos <n> final_cwnd <x>
//   queue mean <x> p99 <x> max <x> qdisc_mean <x> qdisc_p99 <x> qdisc_max <x> samples <n>
//   bottleneck marks <n> drops <n> other_drops <n> marks_total <n> drops_total <n>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace ns3
{

/// TcpDctcp with a floor under the window after a reduction, as Linux's dctcp_ssthresh has
/// (max(cwnd · (1 − alpha/2), 2 segments)); ns-3.37's TcpDctcp has none, so a flow's window can
/// fall below one segment. The floor is `s_floorSegments` (0: none, TcpDctcp as it ships).
class FlooredDctcp : public TcpDctcp
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CongsimFlooredDctcp")
                                .SetParent<TcpDctcp>()
                                .SetGroupName("Internet")
                                .AddConstructor<FlooredDctcp>();
        return tid;
    }

    FlooredDctcp() = default;
    FlooredDctcp(const FlooredDctcp&) = default;

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        return std::max(TcpDctcp::GetSsThresh(tcb, bytesInFlight),
                        s_floorSegments * tcb->m_segmentSize);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<FlooredDctcp>(this);
    }

    static uint32_t s_floorSegments;
};

uint32_t FlooredDctcp::s_floorSegments = 0;

NS_OBJECT_ENSURE_REGISTERED(FlooredDctcp);

} // namespace ns3

namespace
{

struct Flow
{
    Ptr<Node> sender;
    Ptr<Node> receiver;
    Ptr<BulkSendApplication> app;
    Ptr<PacketSink> sink;
    Ptr<TcpSocketBase> socket;
    uint32_t cwnd_bytes = 0;
    double alpha = 1.0;
    // Counters over the measurement window.
    double alpha_sum = 0;
    double cwnd_sum = 0;
    uint64_t samples = 0;
    uint64_t alpha_updates = 0;
    uint64_t bytes_acked = 0;
    uint64_t bytes_marked = 0;
    uint32_t cwr = 0;
    uint32_t recoveries = 0;
    uint32_t rtos = 0;
    uint64_t rx_at_from = 0;
};

std::vector<Flow> g_flows;
uint32_t g_segment = 1460;
bool g_measuring = false;
uint64_t g_other_drops = 0;
Ptr<QueueDisc> g_qdisc;
Ptr<Queue<Packet>> g_device_queue;
std::vector<uint32_t> g_queue_total;
std::vector<uint32_t> g_queue_qdisc;
uint64_t g_marks_at_from = 0;
uint64_t g_drops_at_from = 0;
uint64_t g_other_drops_at_from = 0;

void
OnCwnd(uint32_t i, uint32_t, uint32_t now)
{
    g_flows[i].cwnd_bytes = now;
}

void
OnCongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (!g_measuring)
        return;
    if (now == TcpSocketState::CA_CWR)
        ++g_flows[i].cwr;
    else if (now == TcpSocketState::CA_RECOVERY)
        ++g_flows[i].recoveries;
    else if (now == TcpSocketState::CA_LOSS)
        ++g_flows[i].rtos;
}

void
OnEstimate(uint32_t i, uint32_t bytes_marked, uint32_t bytes_acked, double alpha)
{
    Flow& f = g_flows[i];
    f.alpha = alpha;
    if (!g_measuring)
        return;
    ++f.alpha_updates;
    f.bytes_acked += bytes_acked;
    f.bytes_marked += bytes_marked;
}

void
Hook(uint32_t i)
{
    Flow& f = g_flows[i];
    f.socket = DynamicCast<TcpSocketBase>(f.app->GetSocket());
    NS_ABORT_MSG_IF(!f.socket, "flow " << i << " has no TCP socket yet");
    PointerValue ops;
    f.socket->GetAttribute("CongestionOps", ops);
    Ptr<TcpDctcp> dctcp = DynamicCast<TcpDctcp>(ops.Get<TcpCongestionOps>());
    NS_ABORT_MSG_IF(!dctcp, "flow " << i << " does not run TcpDctcp");
    bool ok = dctcp->TraceConnectWithoutContext("CongestionEstimate",
                                                MakeBoundCallback(&OnEstimate, i));
    NS_ABORT_MSG_UNLESS(ok, "no CongestionEstimate trace");
    f.socket->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    f.socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
}

void
SampleFlows(Time interval, Time until)
{
    for (Flow& f : g_flows)
    {
        f.alpha_sum += f.alpha;
        f.cwnd_sum += double(f.cwnd_bytes) / g_segment;
        ++f.samples;
    }
    if (Simulator::Now() + interval < until)
        Simulator::Schedule(interval, &SampleFlows, interval, until);
}

void
SampleQueue(Time interval, Time until)
{
    uint32_t qdisc = g_qdisc->GetNPackets();
    g_queue_qdisc.push_back(qdisc);
    g_queue_total.push_back(qdisc + g_device_queue->GetNPackets());
    if (Simulator::Now() + interval < until)
        Simulator::Schedule(interval, &SampleQueue, interval, until);
}

void
StartMeasuring()
{
    g_measuring = true;
    for (Flow& f : g_flows)
        f.rx_at_from = f.sink->GetTotalRx();
    const QueueDisc::Stats& stats = g_qdisc->GetStats();
    g_marks_at_from = stats.nTotalMarkedPackets;
    g_drops_at_from = stats.nTotalDroppedPackets;
    g_other_drops_at_from = g_other_drops;
}

void
OnOtherDrop(Ptr<const Packet>)
{
    ++g_other_drops;
}

struct Summary
{
    double mean;
    double p99;
    double max;
};

Summary
Summarise(std::vector<uint32_t> values)
{
    if (values.empty())
        return {0, 0, 0};
    double sum = 0;
    for (uint32_t v : values)
        sum += v;
    std::sort(values.begin(), values.end());
    // Nearest rank: the smallest value with at least 99 % of the samples at or below it.
    size_t rank = size_t(std::ceil(0.99 * values.size()));
    return {sum / values.size(), double(values[std::max<size_t>(rank, 1) - 1]),
            double(values.back())};
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t n_flows = 2;
    double rate_bps = 10e9;
    double access_rate_bps = 10e9;
    double bottleneck_delay_us = 20;
    double access_delay_us = 10;
    double k = 65;
    uint32_t limit = 1000;
    uint32_t device_queue = 1;
    uint32_t access_queue = 100000;
    uint32_t initial_cwnd = 10;
    uint32_t del_ack_count = 2;
    uint32_t buffers_bytes = 16 << 20;
    bool sack = true;
    std::string recovery = "prr";
    double duration_s = 1;
    double from_s = 0.5;
    double stagger_us = 1;
    double sample_us = 100;
    double queue_sample_us = 10;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of DCTCP flows", n_flows);
    cmd.AddValue("rate", "bottleneck rate for IP packets (bit/s)", rate_bps);
    cmd.AddValue("accessRate", "rate of every other link (bit/s)", access_rate_bps);
    cmd.AddValue("bottleneckDelayUs", "bottleneck propagation delay (us)", bottleneck_delay_us);
    cmd.AddValue("accessDelayUs", "delay of every access and egress link (us)", access_delay_us);
    cmd.AddValue("k", "RED MinTh = MaxTh (packets in the queue disc)", k);
    cmd.AddValue("limit", "RED MaxSize (packets)", limit);
    cmd.AddValue("deviceQueue", "bottleneck device queue under the queue disc (packets)", device_queue);
    cmd.AddValue("accessQueue", "device queue of every other link (packets)", access_queue);
    cmd.AddValue("segment", "segment size (bytes of payload)", g_segment);
    cmd.AddValue("initialCwnd", "TcpSocket::InitialCwnd (segments)", initial_cwnd);
    cmd.AddValue("delAckCount", "TcpSocket::DelAckCount", del_ack_count);
    cmd.AddValue("buffers", "send and receive buffer of every socket (bytes)", buffers_bytes);
    cmd.AddValue("sack", "SACK on (true) or off", sack);
    cmd.AddValue("recovery", "prr (ns-3's default) or classic", recovery);
    cmd.AddValue("floorSegments",
                 "least window after a DCTCP reduction (segments; 0: none, as ns-3.37 ships)",
                 FlooredDctcp::s_floorSegments);
    cmd.AddValue("duration", "simulated seconds", duration_s);
    cmd.AddValue("from", "start of the measurement window (s)", from_s);
    cmd.AddValue("staggerUs", "flow i starts at i times this (us)", stagger_us);
    cmd.AddValue("sampleUs", "alpha and cwnd sampling interval (us)", sample_us);
    cmd.AddValue("queueSampleUs", "queue sampling interval (us)", queue_sample_us);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(recovery != "prr" && recovery != "classic", "unknown recovery " << recovery);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(FlooredDctcp::s_floorSegments ? FlooredDctcp::GetTypeId()
                                                                 : TcpDctcp::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                     : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(g_segment));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initial_cwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(del_ack_count));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buffers_bytes));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buffers_bytes));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));

    const double ip_bytes = g_segment + 40;
    auto device_rate = [&](double bps) { return DataRate(uint64_t(bps * (ip_bytes + 2) / ip_bytes)); };

    Ptr<Node> r1 = CreateObject<Node>();
    Ptr<Node> r2 = CreateObject<Node>();
    NodeContainer all(r1, r2);
    g_flows.resize(n_flows);
    for (Flow& f : g_flows)
    {
        f.sender = CreateObject<Node>();
        f.receiver = CreateObject<Node>();
        f.cwnd_bytes = initial_cwnd * g_segment;
        all.Add(f.sender);
        all.Add(f.receiver);
    }
    InternetStackHelper stack;
    stack.Install(all);

    Ipv4AddressHelper addresses;
    addresses.SetBase("10.0.0.0", "255.255.255.252");
    TrafficControlHelper no_qdisc;
    std::vector<NetDeviceContainer> links;
    auto link = [&](Ptr<Node> a, Ptr<Node> b, double bps, double delay_us, uint32_t queue_a) {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(device_rate(bps)));
        p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(int64_t(delay_us * 1000))));
        p2p.SetQueue("ns3::DropTailQueue",
                     "MaxSize",
                     QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, access_queue)));
        NetDeviceContainer devices = p2p.Install(a, b);
        DynamicCast<PointToPointNetDevice>(devices.Get(0))
            ->GetQueue()
            ->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, queue_a));
        Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
        no_qdisc.Uninstall(devices);
        addresses.NewNetwork();
        links.push_back(devices);
        return interfaces;
    };

    link(r1, r2, rate_bps, bottleneck_delay_us, device_queue);
    NetDeviceContainer bottleneck = links.back();
    std::vector<Ipv4Address> receiver_address;
    for (Flow& f : g_flows)
    {
        link(f.sender, r1, access_rate_bps, access_delay_us, access_queue);
        Ipv4InterfaceContainer egress = link(r2, f.receiver, access_rate_bps, access_delay_us, access_queue);
        receiver_address.push_back(egress.GetAddress(1));
    }

    TrafficControlHelper red;
    red.SetRootQueueDisc("ns3::RedQueueDisc",
                         "MinTh", DoubleValue(k),
                         "MaxTh", DoubleValue(k),
                         "QW", DoubleValue(1),
                         "UseEcn", BooleanValue(true),
                         "UseHardDrop", BooleanValue(false),
                         "Gentle", BooleanValue(false),
                         "ARED", BooleanValue(false),
                         "MeanPktSize", UintegerValue(1500),
                         "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)),
                         "LinkBandwidth", DataRateValue(DataRate(uint64_t(rate_bps))),
                         "LinkDelay", TimeValue(NanoSeconds(int64_t(bottleneck_delay_us * 1000))));
    g_qdisc = red.Install(bottleneck.Get(0)).Get(0);
    g_device_queue = DynamicCast<PointToPointNetDevice>(bottleneck.Get(0))->GetQueue();

    // Drops other than the bottleneck queue disc's: in any device queue (a bug of ns-3's flow
    // control if it happens under the queue disc), and at the traffic-control layer of a device
    // with no queue disc whose queue is stopped (full).
    for (auto& devices : links)
        for (uint32_t d = 0; d < 2; ++d)
            DynamicCast<PointToPointNetDevice>(devices.Get(d))
                ->GetQueue()
                ->TraceConnectWithoutContext("Drop", MakeCallback(&OnOtherDrop));
    for (uint32_t n = 0; n < all.GetN(); ++n)
    {
        bool ok = all.Get(n)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop", MakeCallback(&OnOtherDrop));
        NS_ABORT_MSG_UNLESS(ok, "no TcDrop trace on the traffic-control layer");
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5000;
    for (uint32_t i = 0; i < n_flows; ++i)
    {
        Flow& f = g_flows[i];
        Time start = NanoSeconds(int64_t(i * stagger_us * 1000));
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sink_app = sink.Install(f.receiver);
        sink_app.Start(Seconds(0));
        f.sink = DynamicCast<PacketSink>(sink_app.Get(0));
        BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(receiver_address[i], port));
        source.SetAttribute("MaxBytes", UintegerValue(0));
        source.SetAttribute("SendSize", UintegerValue(g_segment));
        ApplicationContainer source_app = source.Install(f.sender);
        source_app.Start(start);
        f.app = DynamicCast<BulkSendApplication>(source_app.Get(0));
        // The application creates its socket when it starts; connect the traces just after.
        Simulator::Schedule(start + NanoSeconds(1), &Hook, i);
    }

    const Time until = Seconds(duration_s);
    const Time from = Seconds(from_s);
    Simulator::Schedule(from, &StartMeasuring);
    Simulator::Schedule(from, &SampleFlows, MicroSeconds(sample_us), until);
    Simulator::Schedule(from, &SampleQueue, NanoSeconds(int64_t(queue_sample_us * 1000)), until);
    Simulator::Stop(until);
    Simulator::Run();

    const double window_s = duration_s - from_s;
    std::cout.setf(std::ios::fixed);
    for (uint32_t i = 0; i < n_flows; ++i)
    {
        Flow& f = g_flows[i];
        double goodput = double(f.sink->GetTotalRx() - f.rx_at_from) * 8 / window_s;
        double samples = double(std::max<uint64_t>(f.samples, 1));
        std::cout.precision(1);
        std::cout << "flow " << i << " goodput_bps " << goodput;
        std::cout.precision(6);
        std::cout << " alpha_mean " << f.alpha_sum / samples << " alpha_last " << f.alpha
                  << " alpha_updates " << f.alpha_updates << " marked_fraction "
                  << (f.bytes_acked ? double(f.bytes_marked) / f.bytes_acked : 0.0);
        std::cout.precision(3);
        std::cout << " mean_cwnd " << f.cwnd_sum / samples << " cwr " << f.cwr << " recoveries "
                  << f.recoveries << " rtos " << f.rtos << " final_cwnd "
                  << double(f.cwnd_bytes) / g_segment << "\n";
    }
    Summary total = Summarise(g_queue_total);
    Summary qdisc = Summarise(g_queue_qdisc);
    std::cout.precision(3);
    std::cout << "queue mean " << total.mean << " p99 " << total.p99 << " max " << total.max
              << " qdisc_mean " << qdisc.mean << " qdisc_p99 " << qdisc.p99 << " qdisc_max "
              << qdisc.max << " samples " << g_queue_total.size() << "\n";
    const QueueDisc::Stats& stats = g_qdisc->GetStats();
    std::cout << "bottleneck marks " << stats.nTotalMarkedPackets - g_marks_at_from << " drops "
              << stats.nTotalDroppedPackets - g_drops_at_from << " other_drops "
              << g_other_drops - g_other_drops_at_from << " marks_total "
              << stats.nTotalMarkedPackets << " drops_total " << stats.nTotalDroppedPackets
              << std::endl;
    Simulator::Destroy();
    return 0;
}
