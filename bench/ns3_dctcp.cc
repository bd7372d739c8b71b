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
// uninstalled, as in bench/ns3_cubic.cc: bench/ns3_common.h's Links); drops there are counted
// apart.
//
// TCP: every node's socket type is TcpDctcp (ns-3.37), whose Init switches ECN on in its DCTCP
// mode (every packet ECT(0), the receiver's CE state machine). As bench/ns3_common.h's Tcp sets
// them: segment size, initial window, delayed ACKs (`delAckCount` segments or 200 ms), SACK, no
// timestamps, window scaling, one size for the send and receive buffers; everything else as
// ns-3.37 ships it (RTO floor 1 s, clock granularity 1 ms, PRR as the recovery algorithm, which
// also paces the DCTCP cut in CA_CWR, DctcpShiftG 1/16, DctcpAlphaOnInit 1); `--recovery=classic`
// sets TcpClassicRecovery instead, which sets cwnd to the new ssthresh at once. ns-3.37's TcpDctcp
// cuts to cwnd · (1 − alpha/2) with no floor, so a window can fall below one segment: the socket
// then sends nothing (its silly-window check wants a whole segment) and, with nothing in flight,
// arms no timer either, so the flow stops for good; `--floorSegments=2` puts Linux's floor of 2
// segments under the cut.
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

#include "ns3_common.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

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

struct Flow : bench::FlowBase
{
    Ptr<Node> receiver;
    double alpha = 1.0;
    // Counters over the measurement window.
    double alpha_sum = 0;
    uint64_t alpha_updates = 0;
    uint64_t bytes_acked = 0, bytes_marked = 0;  // as the alpha updates saw them
    uint32_t cwr = 0, rtos = 0;                  // entries into CA_CWR and CA_LOSS
};

std::vector<Flow> g_flows;
bench::Tcp g_tcp;
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
    bench::ConnectSocket(f, i);
    Ptr<TcpDctcp> dctcp = DynamicCast<TcpDctcp>(f.ops);
    NS_ABORT_MSG_IF(!dctcp, "flow " << i << " does not run TcpDctcp");
    bool ok = dctcp->TraceConnectWithoutContext("CongestionEstimate",
                                                MakeBoundCallback(&OnEstimate, i));
    NS_ABORT_MSG_UNLESS(ok, "no CongestionEstimate trace");
    f.socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
}

void
SampleFlows()
{
    for (Flow& f : g_flows)
    {
        f.alpha_sum += f.alpha;
        f.cwnd_sum += g_tcp.Segments(f.cwnd_bytes);
        ++f.samples;
    }
}

void
SampleQueue()
{
    uint32_t qdisc = g_qdisc->GetNPackets();
    g_queue_qdisc.push_back(qdisc);
    g_queue_total.push_back(qdisc + g_device_queue->GetNPackets());
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
    bench::Run run{10e9, 10e9, 100000, 1, 0.5};
    uint32_t n_flows = 2;
    double bottleneck_delay_us = 20, access_delay_us = 10;
    double k = 65;
    uint32_t limit = 1000;
    uint32_t device_queue = 1;
    std::string recovery = "prr";
    double stagger_us = 1;
    double sample_us = 100, queue_sample_us = 10;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of DCTCP flows", n_flows);
    cmd.AddValue("bottleneckDelayUs", "bottleneck propagation delay (us)", bottleneck_delay_us);
    cmd.AddValue("accessDelayUs", "delay of every access and egress link (us)", access_delay_us);
    cmd.AddValue("k", "RED MinTh = MaxTh (packets in the queue disc)", k);
    cmd.AddValue("limit", "RED MaxSize (packets)", limit);
    cmd.AddValue("deviceQueue", "bottleneck device queue under the queue disc (packets)", device_queue);
    run.AddOptions(cmd);
    g_tcp.AddOptions(cmd);
    cmd.AddValue("recovery", "prr (ns-3's default) or classic", recovery);
    cmd.AddValue("floorSegments",
                 "least window after a DCTCP reduction (segments; 0: none, as ns-3.37 ships)",
                 FlooredDctcp::s_floorSegments);
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
    g_tcp.SetDefaults();
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));

    Ptr<Node> r1 = CreateObject<Node>();
    Ptr<Node> r2 = CreateObject<Node>();
    NodeContainer all(r1, r2);
    g_flows.resize(n_flows);
    for (Flow& f : g_flows)
    {
        f.sender = CreateObject<Node>();
        f.receiver = CreateObject<Node>();
        f.cwnd_bytes = g_tcp.initial_cwnd * g_tcp.segment;
        all.Add(f.sender);
        all.Add(f.receiver);
    }
    InternetStackHelper stack;
    stack.Install(all);

    bench::Links links(g_tcp.segment);
    auto us = [](double delay_us) { return NanoSeconds(int64_t(delay_us * 1000)); };
    links.Add(r1, r2, run.rate_bps, us(bottleneck_delay_us), run.access_queue, device_queue);
    NetDeviceContainer bottleneck = links.all.back();
    std::vector<Ipv4Address> receiver_address;
    for (Flow& f : g_flows)
    {
        links.Add(f.sender, r1, run.access_rate_bps, us(access_delay_us), run.access_queue);
        Ipv4InterfaceContainer egress =
            links.Add(r2, f.receiver, run.access_rate_bps, us(access_delay_us), run.access_queue);
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
                         "LinkBandwidth", DataRateValue(DataRate(uint64_t(run.rate_bps))),
                         "LinkDelay", TimeValue(NanoSeconds(int64_t(bottleneck_delay_us * 1000))));
    g_qdisc = red.Install(bottleneck.Get(0)).Get(0);
    g_device_queue = DynamicCast<PointToPointNetDevice>(bottleneck.Get(0))->GetQueue();

    // Drops other than the bottleneck queue disc's (under it, the device queue should drop none).
    bench::TraceDrops(links, all, MakeCallback(&OnOtherDrop), [](Ptr<Node>) {
        return MakeCallback(&OnOtherDrop);
    });
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5000;
    for (uint32_t i = 0; i < n_flows; ++i)
    {
        Flow& f = g_flows[i];
        Time start = NanoSeconds(int64_t(i * stagger_us * 1000));
        bench::InstallBulkFlow(f, f.receiver, receiver_address[i], port, start, g_tcp.segment);
        // The application creates its socket when it starts; connect the traces just after.
        Simulator::Schedule(start + NanoSeconds(1), &Hook, i);
    }

    const Time until = Seconds(run.duration_s);
    const Time from = Seconds(run.from_s);
    Simulator::Schedule(from, &StartMeasuring);
    Simulator::Schedule(from, &bench::Repeat, &SampleFlows, MicroSeconds(sample_us), until);
    Simulator::Schedule(from, &bench::Repeat, &SampleQueue, us(queue_sample_us), until);
    Simulator::Stop(until);
    Simulator::Run();

    const double window_s = run.duration_s - run.from_s;
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
                  << g_tcp.Segments(f.cwnd_bytes) << "\n";
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
