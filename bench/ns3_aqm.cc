// AQM queue disciplines in ns-3.37 beside congsim: bench/aqm_ns3.py builds this program, runs it
// for DropTail, CoDel, FQ-CoDel, PIE and FQ-PIE, and tabulates it beside the same network in
// congsim.
//
// Network: sender i -- access link (access_rate, access_delay) -- r0 -- bottleneck (rate,
// bottleneck_delay) -- r1 -- egress link (access_rate, access_delay) -- dst. N TCP senders and
// one CBR sender, each on its own access link; one receiving node with a PacketSink per flow.
//
// Queues: the bottleneck's r0 side has the queue disc under test (`--queue`) over a point-to-point
// device queue of `deviceQueue` packets (default 1). ns-3 puts its queue discs above the device
// queue and moves a packet down only while the device queue is not full (flow control), so a
// deep device queue would hold the standing queue where the AQM cannot see it; with 1 packet the
// device holds at most one packet waiting beside the one in transmission and the backlog builds
// in the queue disc. Every other queue is a device queue of `accessQueue` packets with no queue
// disc (bench/ns3_common.h's Links uninstalls the default pfifo_fast).
//
// Queue discs (every parameter the cross-check fixes is set explicitly; each is printed back as
// an `attr` line read from the object after the run):
//   droptail  FifoQueueDisc, MaxSize `limit` packets
//   codel     CoDelQueueDisc: Target, Interval, MaxSize, UseEcn false, MinBytes 1515 (congsim's
//             1514-byte mtu test: ns-3 tests `bytes < MinBytes`, Linux `bytes <= mtu`; FQ-CoDel's
//             per-flow CoDels get it by Config::SetDefault)
//   fq_codel  FqCoDelQueueDisc: the same, Flows, DropBatchSize, Perturbation, no set-associative
//             hash, and the quantum (not an attribute in ns-3.37: SetQuantum before the start;
//             unset it would be the device MTU, 1500). ns-3 charges a packet its IP size
//             (Ipv4QueueDiscItem::GetSize: no link-layer header), so a quantum of 1514 is one
//             1500-byte IP packet and 14 bytes.
//   pie       PieQueueDisc: QueueDelayReference, Tupdate, A, B, MaxBurstAllowance,
//             DequeueThreshold, UseDequeueRateEstimator, UseCapDropAdjustment, UseDerandomization,
//             UseEcn false, MaxSize (MeanPktSize only matters in byte mode; ActiveThreshold off)
//   fq_pie    FqPieQueueDisc: FQ-CoDel's FQ parameters with PIE's, UseEcn false (its default is
//             true). Its overflow drops from the fattest queue's head (FqPieDrop, as FQ-CoDel's).
//   PIE's defaults here are congsim's (timestamps, derandomization on), not ns-3's (derandomization
//   off); bench/aqm_ns3.py also passes them explicitly.
// ns-3.37's Perturbation attribute is a fixed salt (default 0): the RNG run does not change the
// FQ hash by itself. `--perturbation=-1` (the default) draws it from the run's random stream, as
// Linux draws it when the qdisc is created, so that RngRun varies it; the value is printed.
//
// TCP (bench/ns3_common.h's Tcp): TcpNewReno with TcpPrrRecovery (ns-3's default recovery, set
// explicitly), segment size, initial window, delayed ACKs (2 segments or 200 ms), SACK, no
// timestamps, window scaling, RTO floor 1 s, one size for both buffers. `--ssthresh=flight` runs
// FlightSizeNewReno instead (the RFC 5681 cut congsim makes; see the class). Flow i's BulkSend
// starts at the i-th time of `--starts` (seconds).
//
// CBR: a UdpClient sending `cbrPacket`-byte IP packets (UDP payload cbrPacket - 28 bytes: the
// 12-byte SeqTs header carries the send time) every 8 · cbrPacket / cbrRate, from time 0, to a
// UDP PacketSink on dst.
//
// Link rates count IP bytes: ns-3 puts a 2-byte PPP header on every packet, so each device runs
// at rate · (ip + 2) / ip with ip = segment + 40.
//
// Measured over [from, duration): per packet that starts transmission on the bottleneck in the
// window, the time it waited at r0 (queue disc enqueue to start of transmission: the queue disc's
// sojourn and the wait in the device queue) and the queue disc's own sojourn (enqueue to dequeue,
// what the AQM controls); per flow the same means; the queue (queue disc + device queue packets,
// and the queue disc alone) sampled every `queueSampleMs`; drops and marks of the queue disc by
// its reason string; the CBR's one-way delay (sink time minus SeqTs time, for packets sent in the
// window) and loss (1 - received / sent, packets sent in [from, duration - 1 s)).
//
// Output, one item per line (times in seconds):
//   attr <name> <value>
//   flow <i> goodput_bps <x> wait_mean_s <x> wait_p99_s <x> qdisc_mean_s <x> packets <n>
//        drops <n> recoveries <n> rtos <n>
//   cbr sent <n> received <n> delay_mean_s <x> delay_p99_s <x> wait_mean_s <x> wait_p99_s <x>
//       drops <n>
//   queue wait_mean_s <x> wait_p99_s <x> qdisc_mean_s <x> qdisc_p99_s <x> packets <n>
//         mean_packets <x> qdisc_mean_packets <x> samples <n>
//   drop <reason, spaces as _> <n>
//   bottleneck drops <n> marks <n> device_drops <n> other_drops <n> fq_queues <n>

#include "ns3_common.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/// TcpNewReno with the RFC 5681 cut congsim's `rfc` profile makes (DEVIATIONS D33):
/// ssthresh = max(2·SMSS, min(FlightSize, cwnd) / 2), FlightSize = HighData − SND.UNA. ns-3.37
/// hands GetSsThresh its BytesInFlight, which with SACK is RFC 6675's pipe (the SACKed segments
/// and the head just marked lost left out, about FlightSize − 4 segments at a fast retransmit),
/// so it cuts deeper than RFC 5681 when windows are small (`--ssthresh=flight` selects this).
class FlightSizeNewReno : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CongsimFlightSizeNewReno")
                                .SetParent<TcpNewReno>()
                                .SetGroupName("Internet")
                                .AddConstructor<FlightSizeNewReno>();
        return tid;
    }

    FlightSizeNewReno() = default;
    FlightSizeNewReno(const FlightSizeNewReno&) = default;

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t) override
    {
        uint32_t flight = tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq;
        return std::max(2 * tcb->m_segmentSize, std::min(flight, tcb->m_cWnd.Get()) / 2);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<FlightSizeNewReno>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(FlightSizeNewReno);

} // namespace ns3

namespace
{

struct Flow : bench::FlowBase
{
    uint32_t rtos = 0;
};

/// A packet in the bottleneck's queue disc: when it entered, when it left the queue disc (-1
/// while in it), whose it is (a TCP flow's index, or the CBR's: the number of TCP flows).
struct Pending
{
    double enqueued_s;
    double dequeued_s;
    uint32_t flow;
};

/// Per source of packets at the bottleneck: waits and drops in the window.
struct Waits
{
    std::vector<double> wait_s;
    double qdisc_sum_s = 0;
    uint64_t drops = 0;
};

std::vector<Flow> g_flows;
bench::Tcp g_tcp;
double g_from_s = 10;
double g_until_s = 60;
bool g_measuring = false;

std::map<uint32_t, uint32_t> g_flow_of_address;  // sender's IPv4 address -> flow index
std::unordered_map<const Packet*, Pending> g_pending;
std::vector<Waits> g_waits;  // TCP flows, then the CBR
std::vector<double> g_all_wait_s, g_all_qdisc_s;
std::map<std::string, uint64_t> g_drop_reasons;
uint64_t g_marks = 0, g_device_drops = 0, g_other_drops = 0;

Ptr<QueueDisc> g_qdisc;
Ptr<Queue<Packet>> g_device_queue;
double g_queue_sum = 0, g_qdisc_queue_sum = 0;
uint64_t g_queue_samples = 0;

uint64_t g_cbr_sent = 0, g_cbr_received = 0;
std::vector<double> g_cbr_delay_s;

uint32_t
FlowOf(Ptr<const QueueDiscItem> item)
{
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    NS_ABORT_MSG_UNLESS(ip, "a non-IPv4 packet at the bottleneck");
    auto it = g_flow_of_address.find(ip->GetHeader().GetSource().Get());
    NS_ABORT_MSG_IF(it == g_flow_of_address.end(), "a packet from an unknown sender at the bottleneck");
    return it->second;
}

void
OnEnqueue(Ptr<const QueueDiscItem> item)
{
    g_pending[PeekPointer(item->GetPacket())] = {Simulator::Now().GetSeconds(), -1, FlowOf(item)};
}

void
OnDequeue(Ptr<const QueueDiscItem> item)
{
    auto it = g_pending.find(PeekPointer(item->GetPacket()));
    if (it != g_pending.end())
        it->second.dequeued_s = Simulator::Now().GetSeconds();
}

void
OnDrop(Ptr<const QueueDiscItem> item, const char* reason)
{
    g_pending.erase(PeekPointer(item->GetPacket()));
    if (!g_measuring)
        return;
    ++g_drop_reasons[reason];
    ++g_waits[FlowOf(item)].drops;
}

void
OnMark(Ptr<const QueueDiscItem>, const char*)
{
    if (g_measuring)
        ++g_marks;
}

/// A packet starts transmission on the bottleneck: its wait at r0 is over.
void
OnTxBegin(Ptr<const Packet> packet)
{
    auto it = g_pending.find(PeekPointer(packet));
    if (it == g_pending.end())
        return;
    const Pending p = it->second;
    g_pending.erase(it);
    if (!g_measuring)
        return;
    double now = Simulator::Now().GetSeconds();
    double wait = now - p.enqueued_s;
    double qdisc = (p.dequeued_s < 0 ? now : p.dequeued_s) - p.enqueued_s;
    g_all_wait_s.push_back(wait);
    g_all_qdisc_s.push_back(qdisc);
    g_waits[p.flow].wait_s.push_back(wait);
    g_waits[p.flow].qdisc_sum_s += qdisc;
}

void
OnDeviceDrop(Ptr<const Packet>)
{
    ++g_device_drops;
}

void
OnOtherDrop(Ptr<const Packet>)
{
    if (g_measuring)
        ++g_other_drops;
}

void
OnCongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (!g_measuring)
        return;
    if (now == TcpSocketState::CA_RECOVERY)
        ++g_flows[i].recoveries;
    else if (now == TcpSocketState::CA_LOSS)
        ++g_flows[i].rtos;
}

void
Hook(uint32_t i)
{
    Flow& f = g_flows[i];
    bench::ConnectSocket(f, i);
    f.socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
}

/// The CBR sender's access device accepted a packet (sent, as congsim counts it).
void
OnCbrSent(Ptr<const Packet>)
{
    double now = Simulator::Now().GetSeconds();
    if (now >= g_from_s && now < g_until_s - 1)
        ++g_cbr_sent;
}

void
OnCbrReceived(Ptr<const Packet> packet, const Address&)
{
    Ptr<Packet> copy = packet->Copy();
    SeqTsHeader header;
    copy->RemoveHeader(header);
    double sent_s = header.GetTs().GetSeconds();
    if (sent_s < g_from_s)
        return;
    g_cbr_delay_s.push_back(Simulator::Now().GetSeconds() - sent_s);
    if (sent_s < g_until_s - 1)
        ++g_cbr_received;
}

void
SampleQueue()
{
    uint32_t qdisc = g_qdisc->GetNPackets();
    g_qdisc_queue_sum += qdisc;
    g_queue_sum += qdisc + g_device_queue->GetNPackets();
    ++g_queue_samples;
}

void
StartMeasuring()
{
    g_measuring = true;
    for (Flow& f : g_flows)
        f.rx_at_from = f.sink->GetTotalRx();
}

double
Mean(const std::vector<double>& values)
{
    double sum = 0;
    for (double v : values)
        sum += v;
    return values.empty() ? NAN : sum / values.size();
}

/// Nearest rank: the smallest value with at least 99 % of the values at or below it.
double
P99(std::vector<double> values)
{
    if (values.empty())
        return NAN;
    std::sort(values.begin(), values.end());
    size_t rank = size_t(std::ceil(0.99 * values.size()));
    return values[std::max<size_t>(rank, 1) - 1];
}

std::vector<double>
ParseList(const std::string& text)
{
    std::vector<double> values;
    std::istringstream list(text);
    std::string item;
    while (std::getline(list, item, ','))
        values.push_back(std::stod(item));
    return values;
}

using Attributes = std::vector<std::pair<std::string, Ptr<AttributeValue>>>;

} // namespace

int
main(int argc, char* argv[])
{
    bench::Run run{10e6, 100e6, 100000, 60, 10};
    std::string queue = "codel";
    uint32_t n_flows = 1;
    std::string starts;
    double bottleneck_delay_ms = 50, access_delay_ms = 1;
    uint32_t limit = 0;  // 0: the kind's default
    uint32_t device_queue = 1;
    int64_t perturbation = -1;
    double cbr_rate_bps = 1e6;
    uint32_t cbr_packet = 200;
    double queue_sample_ms = 1;
    std::string ssthresh = "pipe";
    // The AQM parameters (RFC 8289 / RFC 8033 / Linux defaults, as congsim's).
    double codel_target_ms = 5, codel_interval_ms = 100;
    // ns-3 drops only while `bytes >= MinBytes`, Linux and congsim while `bytes > mtu`: congsim's
    // mtu (1514 B) plus one (spec ip.md 8.1).
    uint32_t codel_min_bytes = 1515;
    uint32_t fq_flows = 1024, fq_quantum = 1514, fq_drop_batch = 64;
    double pie_target_ms = 15, pie_update_ms = 15, pie_alpha = 0.125, pie_beta = 1.25;
    double pie_max_burst_ms = 150;
    uint32_t pie_dq_threshold = 16384;
    // Timestamps (ns-3's, Linux's and RFC 8033 Appendix A's default), derandomization on (RFC
    // 8033 §5.4, always on in Linux; ns-3's default is off), cap on: congsim's defaults.
    bool pie_dq_rate = false, pie_derandomize = true, pie_cap_drop = true;

    CommandLine cmd(__FILE__);
    cmd.AddValue("queue", "droptail, codel, fq_codel, pie or fq_pie", queue);
    cmd.AddValue("flows", "number of TCP flows", n_flows);
    cmd.AddValue("starts", "comma-separated start time of each TCP flow (s)", starts);
    cmd.AddValue("bottleneckDelayMs", "bottleneck propagation delay (ms)", bottleneck_delay_ms);
    cmd.AddValue("accessDelayMs", "delay of every access and egress link (ms)", access_delay_ms);
    cmd.AddValue("limit", "queue disc limit in packets (0: 100 DropTail, 1000 CoDel/PIE, 10240 FQ)", limit);
    cmd.AddValue("deviceQueue", "bottleneck device queue under the queue disc (packets)", device_queue);
    cmd.AddValue("perturbation", "FQ hash salt (-1: drawn from the run's random stream)", perturbation);
    cmd.AddValue("cbrRate", "CBR rate (bit/s of IP packets)", cbr_rate_bps);
    cmd.AddValue("cbrPacket", "CBR IP packet size (bytes)", cbr_packet);
    cmd.AddValue("queueSampleMs", "queue sampling interval (ms)", queue_sample_ms);
    cmd.AddValue("ssthresh", "pipe (TcpNewReno as ns-3.37 ships it) or flight (RFC 5681)", ssthresh);
    cmd.AddValue("codelTargetMs", "CoDel Target (ms)", codel_target_ms);
    cmd.AddValue("codelIntervalMs", "CoDel Interval (ms)", codel_interval_ms);
    cmd.AddValue("codelMinBytes", "CoDel MinBytes (bytes; FQ-CoDel's per-queue CoDels too)", codel_min_bytes);
    cmd.AddValue("fqFlows", "FQ Flows", fq_flows);
    cmd.AddValue("fqQuantum", "FQ quantum (bytes of IP packets)", fq_quantum);
    cmd.AddValue("fqDropBatch", "FQ DropBatchSize", fq_drop_batch);
    cmd.AddValue("pieTargetMs", "PIE QueueDelayReference (ms)", pie_target_ms);
    cmd.AddValue("pieUpdateMs", "PIE Tupdate (ms)", pie_update_ms);
    cmd.AddValue("pieAlpha", "PIE A", pie_alpha);
    cmd.AddValue("pieBeta", "PIE B", pie_beta);
    cmd.AddValue("pieMaxBurstMs", "PIE MaxBurstAllowance (ms)", pie_max_burst_ms);
    cmd.AddValue("pieDqThreshold", "PIE DequeueThreshold (bytes)", pie_dq_threshold);
    cmd.AddValue("pieDqRate", "PIE UseDequeueRateEstimator", pie_dq_rate);
    cmd.AddValue("pieDerandomize", "PIE UseDerandomization", pie_derandomize);
    cmd.AddValue("pieCapDrop", "PIE UseCapDropAdjustment", pie_cap_drop);
    run.AddOptions(cmd);
    g_tcp.AddOptions(cmd);
    cmd.Parse(argc, argv);
    g_from_s = run.from_s;
    g_until_s = run.duration_s;

    std::vector<double> start_s = ParseList(starts);
    if (start_s.empty())
        for (uint32_t i = 0; i < n_flows; ++i)
            start_s.push_back(0.1 * i);
    NS_ABORT_MSG_IF(start_s.size() != n_flows, "--starts needs one time per flow");

    NS_ABORT_MSG_IF(ssthresh != "pipe" && ssthresh != "flight", "unknown --ssthresh " << ssthresh);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(ssthresh == "pipe" ? TcpNewReno::GetTypeId()
                                                      : FlightSizeNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpPrrRecovery::GetTypeId()));
    g_tcp.SetDefaults();
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));

    Ptr<Node> r0 = CreateObject<Node>();
    Ptr<Node> r1 = CreateObject<Node>();
    Ptr<Node> dst = CreateObject<Node>();
    Ptr<Node> cbr = CreateObject<Node>();
    NodeContainer all(r0, r1, dst, cbr);
    g_flows.resize(n_flows);
    for (Flow& f : g_flows)
    {
        f.sender = CreateObject<Node>();
        all.Add(f.sender);
    }
    InternetStackHelper stack;
    stack.Install(all);

    bench::Links links(g_tcp.segment);
    auto ms = [](double delay_ms) { return MicroSeconds(int64_t(delay_ms * 1000)); };
    links.Add(r0, r1, run.rate_bps, ms(bottleneck_delay_ms), run.access_queue, device_queue);
    NetDeviceContainer bottleneck = links.all.back();
    Ipv4Address dst_address =
        links.Add(r1, dst, run.access_rate_bps, ms(access_delay_ms), run.access_queue).GetAddress(1);
    for (uint32_t i = 0; i < n_flows; ++i)
    {
        Ipv4InterfaceContainer access = links.Add(
            g_flows[i].sender, r0, run.access_rate_bps, ms(access_delay_ms), run.access_queue);
        g_flow_of_address[access.GetAddress(0).Get()] = i;
    }
    Ipv4InterfaceContainer cbr_access =
        links.Add(cbr, r0, run.access_rate_bps, ms(access_delay_ms), run.access_queue);
    g_flow_of_address[cbr_access.GetAddress(0).Get()] = n_flows;
    NetDeviceContainer cbr_devices = links.all.back();
    g_waits.resize(n_flows + 1);

    // The queue disc under test, on r0's side of the bottleneck.
    const std::map<std::string, std::string> types = {{"droptail", "ns3::FifoQueueDisc"},
                                                      {"codel", "ns3::CoDelQueueDisc"},
                                                      {"fq_codel", "ns3::FqCoDelQueueDisc"},
                                                      {"pie", "ns3::PieQueueDisc"},
                                                      {"fq_pie", "ns3::FqPieQueueDisc"}};
    NS_ABORT_MSG_IF(types.count(queue) == 0, "unknown queue " << queue);
    const bool fq = queue == "fq_codel" || queue == "fq_pie";
    if (limit == 0)
        limit = queue == "droptail" ? 100 : fq ? 10240 : 1000;
    if (fq && perturbation < 0)
    {
        // Drawn under the run's seed and run number (RngRun), as Linux draws its hash salt.
        Ptr<UniformRandomVariable> draw = CreateObject<UniformRandomVariable>();
        perturbation = int64_t(draw->GetInteger(0, 0xFFFFFFFFu));
    }
    Attributes attributes = {
        {"MaxSize", Create<QueueSizeValue>(QueueSize(QueueSizeUnit::PACKETS, limit))}};
    auto add = [&attributes](const std::string& name, Ptr<AttributeValue> value) {
        attributes.emplace_back(name, value);
    };
    if (queue == "codel" || queue == "fq_codel")
    {
        add("Target", Create<StringValue>(std::to_string(codel_target_ms) + "ms"));
        add("Interval", Create<StringValue>(std::to_string(codel_interval_ms) + "ms"));
    }
    if (queue == "codel")
        add("MinBytes", Create<UintegerValue>(codel_min_bytes));
    // FQ-CoDel's per-flow CoDelQueueDiscs are created with the defaults.
    Config::SetDefault("ns3::CoDelQueueDisc::MinBytes", UintegerValue(codel_min_bytes));
    if (queue == "codel" || queue == "pie")
        add("UseEcn", Create<BooleanValue>(false));
    if (queue == "pie" || queue == "fq_pie")
    {
        add("QueueDelayReference", Create<TimeValue>(ms(pie_target_ms)));
        add("Tupdate", Create<TimeValue>(ms(pie_update_ms)));
        add("A", Create<DoubleValue>(pie_alpha));
        add("B", Create<DoubleValue>(pie_beta));
        add("MaxBurstAllowance", Create<TimeValue>(ms(pie_max_burst_ms)));
        add("DequeueThreshold", Create<UintegerValue>(pie_dq_threshold));
        add("UseDequeueRateEstimator", Create<BooleanValue>(pie_dq_rate));
        add("UseCapDropAdjustment", Create<BooleanValue>(pie_cap_drop));
        add("UseDerandomization", Create<BooleanValue>(pie_derandomize));
    }
    if (fq)
    {
        // FqCoDel's and FqPie's UseEcn default to true (they hand it to their per-flow queues).
        add("UseEcn", Create<BooleanValue>(false));
        add("Flows", Create<UintegerValue>(fq_flows));
        add("DropBatchSize", Create<UintegerValue>(fq_drop_batch));
        add("Perturbation", Create<UintegerValue>(uint32_t(perturbation)));
        add("EnableSetAssociativeHash", Create<BooleanValue>(false));
    }
    TrafficControlHelper tch;
    tch.SetRootQueueDisc(types.at(queue));
    g_qdisc = tch.Install(bottleneck.Get(0)).Get(0);
    // Attributes set on the object before the simulation starts: the queue disc reads them when
    // it is initialised (CheckConfig, InitializeParams) at the start.
    for (const auto& [name, value] : attributes)
        g_qdisc->SetAttribute(name, *value);
    if (auto q = DynamicCast<FqCoDelQueueDisc>(g_qdisc))
        q->SetQuantum(fq_quantum);
    if (auto q = DynamicCast<FqPieQueueDisc>(g_qdisc))
        q->SetQuantum(fq_quantum);
    Ptr<PointToPointNetDevice> bottleneck_device = DynamicCast<PointToPointNetDevice>(bottleneck.Get(0));
    g_device_queue = bottleneck_device->GetQueue();

    g_qdisc->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
    g_qdisc->TraceConnectWithoutContext("Dequeue", MakeCallback(&OnDequeue));
    g_qdisc->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDrop));
    g_qdisc->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDrop));
    g_qdisc->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    bottleneck_device->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnTxBegin));
    bench::TraceDrops(links, all, MakeCallback(&OnDeviceDrop), [](Ptr<Node>) {
        return MakeCallback(&OnOtherDrop);
    });
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    uint16_t port = 5000;
    for (uint32_t i = 0; i < n_flows; ++i)
    {
        Flow& f = g_flows[i];
        Time start = NanoSeconds(int64_t(std::llround(start_s[i] * 1e9)));
        bench::InstallBulkFlow(f, dst, dst_address, port++, start, g_tcp.segment);
        // The application creates its socket when it starts; connect the traces just after.
        Simulator::Schedule(start + NanoSeconds(1), &Hook, i);
    }

    // The CBR: IP packets of cbr_packet bytes = 20 (IP) + 8 (UDP) + UDP payload.
    NS_ABORT_MSG_IF(cbr_packet < 28 + 12, "CBR packets must hold the 12-byte SeqTs header");
    PacketSinkHelper cbr_sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer cbr_sink_app = cbr_sink.Install(dst);
    cbr_sink_app.Start(Seconds(0));
    cbr_sink_app.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&OnCbrReceived));
    UdpClientHelper cbr_source(dst_address, port);
    cbr_source.SetAttribute("MaxPackets", UintegerValue(0xFFFFFFFFu));
    cbr_source.SetAttribute("Interval", TimeValue(Seconds(8.0 * cbr_packet / cbr_rate_bps)));
    cbr_source.SetAttribute("PacketSize", UintegerValue(cbr_packet - 28));
    ApplicationContainer cbr_app = cbr_source.Install(cbr);
    cbr_app.Start(Seconds(0));
    cbr_devices.Get(0)->TraceConnectWithoutContext("MacTx", MakeCallback(&OnCbrSent));

    const Time until = Seconds(run.duration_s);
    Simulator::Schedule(Seconds(run.from_s), &StartMeasuring);
    Simulator::Schedule(Seconds(run.from_s), &bench::Repeat, &SampleQueue, ms(queue_sample_ms), until);
    Simulator::Stop(until);
    Simulator::Run();

    for (const auto& [name, value] : attributes)
    {
        // Read back what the object holds, serialised by the attribute's own checker.
        TypeId::AttributeInformation info;
        NS_ABORT_MSG_UNLESS(g_qdisc->GetInstanceTypeId().LookupAttributeByName(name, &info),
                            "no attribute " << name);
        Ptr<AttributeValue> held = info.checker->Create();
        g_qdisc->GetAttribute(name, *held);
        std::cout << "attr " << name << " " << held->SerializeToString(info.checker) << "\n";
    }
    if (auto q = DynamicCast<FqCoDelQueueDisc>(g_qdisc))
        std::cout << "attr Quantum(SetQuantum) " << q->GetQuantum() << "\n";
    if (auto q = DynamicCast<FqPieQueueDisc>(g_qdisc))
        std::cout << "attr Quantum(SetQuantum) " << q->GetQuantum() << "\n";
    std::cout << "attr DeviceQueue " << g_device_queue->GetMaxSize() << "\n";

    const double window_s = run.duration_s - run.from_s;
    std::cout.setf(std::ios::fixed);
    for (uint32_t i = 0; i < n_flows; ++i)
    {
        Flow& f = g_flows[i];
        const Waits& w = g_waits[i];
        double goodput = double(f.sink->GetTotalRx() - f.rx_at_from) * 8 / window_s;
        std::cout.precision(1);
        std::cout << "flow " << i << " goodput_bps " << goodput;
        std::cout.precision(7);
        std::cout << " wait_mean_s " << Mean(w.wait_s) << " wait_p99_s " << P99(w.wait_s)
                  << " qdisc_mean_s " << (w.wait_s.empty() ? NAN : w.qdisc_sum_s / w.wait_s.size())
                  << " packets " << w.wait_s.size() << " drops " << w.drops << " recoveries "
                  << f.recoveries << " rtos " << f.rtos << "\n";
    }
    const Waits& c = g_waits[n_flows];
    std::cout << "cbr sent " << g_cbr_sent << " received " << g_cbr_received << " delay_mean_s "
              << Mean(g_cbr_delay_s) << " delay_p99_s " << P99(g_cbr_delay_s) << " wait_mean_s "
              << Mean(c.wait_s) << " wait_p99_s " << P99(c.wait_s) << " drops " << c.drops << "\n";
    double samples = double(std::max<uint64_t>(g_queue_samples, 1));
    std::cout << "queue wait_mean_s " << Mean(g_all_wait_s) << " wait_p99_s " << P99(g_all_wait_s)
              << " qdisc_mean_s " << Mean(g_all_qdisc_s) << " qdisc_p99_s " << P99(g_all_qdisc_s)
              << " packets " << g_all_wait_s.size() << " mean_packets " << g_queue_sum / samples
              << " qdisc_mean_packets " << g_qdisc_queue_sum / samples << " samples "
              << g_queue_samples << "\n";
    uint64_t drops = 0;
    for (const auto& [reason, n] : g_drop_reasons)
    {
        std::string name = reason;
        std::replace(name.begin(), name.end(), ' ', '_');
        std::cout << "drop " << name << " " << n << "\n";
        drops += n;
    }
    std::cout << "bottleneck drops " << drops << " marks " << g_marks << " device_drops "
              << g_device_drops << " other_drops " << g_other_drops << " fq_queues "
              << g_qdisc->GetNQueueDiscClasses() << std::endl;
    Simulator::Destroy();
    return 0;
}
