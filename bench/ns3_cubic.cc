// CUBIC in ns-3 beside congsim (issue #29): bench/cubic_ns3.py builds this program, runs it and
// the same network in congsim, and tabulates both.
//
// Network: a point-to-point dumbbell. Sender i -- access link (access_rate, delay a_i) -- r1 --
// bottleneck (rate, bottleneck_delay_ms) -- r2 -- egress link (access_rate, bottleneck_delay_ms)
// -- one receiving node with a PacketSink per flow. a_i = rtt_i / 2 - 2 · bottleneck_delay_ms,
// so flow i's propagation round trip is rtt_i.
//
// Queues: every link's queue is its point-to-point device queue, DropTail in packets, and
// nothing else: the traffic-control layer's default pfifo_fast (1000 packets) is uninstalled,
// as in bench/ns3_dumbbell.cc. A device queue of N packets holds N packets waiting beside the
// one being transmitted (congsim's `semantics = "waiting"`). The bottleneck's queue (both
// directions) holds `buffer` packets; every other link's `access_queue`. A full device queue
// stops, and the traffic-control layer drops what arrives for it: drops are counted there.
//
// TCP: segment size, initial window, delayed ACKs (2 segments or 200 ms), RTO floor 1 s, clock
// granularity 1 ms, no timestamps, window scaling, SACK on or off, and one size for the send
// and receive buffers; everything else (HyStart on or off by --hystart, PRR recovery, fast
// convergence, β, C) as ns-3.37 ships it.
//
// Link rates count IP bytes: ns-3 puts a 2-byte PPP header on every packet, so each device runs
// at rate · (ip + 2) / ip with ip = segment + 40, the rate congsim's link has for IP packets.
//
// Per flow (`--flows=cubic:20,newreno:40`, kind and round trip in ms): TcpCubic or TcpNewReno,
// through subclasses that count every retransmission timeout (TcpSocketBase::ReTxTimeout calls
// CongestionStateSet(CA_LOSS) on each one, also repeated ones); recoveries are counted from
// the socket's CongState trace (transitions into CA_RECOVERY).
//
// Output, one item per line:
//   flow <i> <kind> <rtt_ms> goodput_bps <bps> goodput_from_bps <bps> rtos <n> recoveries <n>
//        mean_cwnd <segments>
//        final_cwnd <segments> final_ssthresh <segments>
//   event <time_s> <i> recovery|rto <cwnd the socket holds as the event is recorded, segments>
//   drops bottleneck <n> other <n>
// goodput: payload bytes the sink delivered to the application in [0, duration] / duration;
// goodput_from: the same over [from, duration] (default from 10 s);
// mean_cwnd: mean of cwnd sampled every sample_ms from 0 to duration (segments); --cwndTrace
// writes those samples (and ssthresh) as CSV.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct Event
{
    double time_s;
    uint32_t flow;
    const char* kind;
    double cwnd_segments;
};

std::vector<Event> g_events;

} // namespace

namespace ns3
{

/// An ns-3 congestion controller that counts its retransmission timeouts (entries to
/// CA_LOSS) and records each with the window; `Name` is its TypeId name.
template <class Base>
class Counting : public Base
{
  public:
    static const char* Name();

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId(Name())
                                .template SetParent<Base>()
                                .SetGroupName("Internet")
                                .template AddConstructor<Counting<Base>>();
        return tid;
    }

    Counting() = default;
    Counting(const Counting&) = default;

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override
    {
        if (newState == TcpSocketState::CA_LOSS)
        {
            ++rtos;
            g_events.push_back({Simulator::Now().GetSeconds(), flow, "rto",
                                double(tcb->m_cWnd.Get()) / tcb->m_segmentSize});
        }
        Base::CongestionStateSet(tcb, newState);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<Counting<Base>>(this);
    }

    uint32_t rtos = 0;
    uint32_t flow = 0;
};

template <>
const char*
Counting<TcpCubic>::Name()
{
    return "ns3::CongsimCountingCubic";
}

template <>
const char*
Counting<TcpNewReno>::Name()
{
    return "ns3::CongsimCountingNewReno";
}

using CountingCubic = Counting<TcpCubic>;
using CountingNewReno = Counting<TcpNewReno>;

NS_OBJECT_ENSURE_REGISTERED(CountingCubic);
NS_OBJECT_ENSURE_REGISTERED(CountingNewReno);

} // namespace ns3

namespace
{

struct Flow
{
    std::string kind;
    double rtt_ms;
    Ptr<Node> sender;
    Ptr<BulkSendApplication> app;
    Ptr<PacketSink> sink;
    Ptr<TcpCongestionOps> ops;
    uint32_t cwnd_bytes = 0;
    uint32_t ssthresh_bytes = 0;
    uint32_t recoveries = 0;
    double cwnd_sum = 0;
    uint64_t cwnd_samples = 0;
    uint64_t rx_at_from = 0;
};

std::vector<Flow> g_flows;
uint32_t g_segment = 1460;
uint64_t g_bottleneck_drops = 0;
uint64_t g_other_drops = 0;

void
OnCwnd(uint32_t i, uint32_t, uint32_t now)
{
    g_flows[i].cwnd_bytes = now;
}

void
OnSsthresh(uint32_t i, uint32_t, uint32_t now)
{
    g_flows[i].ssthresh_bytes = now;
}

void
OnCongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_RECOVERY)
    {
        ++g_flows[i].recoveries;
        g_events.push_back({Simulator::Now().GetSeconds(), i, "recovery",
                            double(g_flows[i].cwnd_bytes) / g_segment});
    }
}

void
Hook(uint32_t i)
{
    Flow& f = g_flows[i];
    Ptr<TcpSocketBase> socket = DynamicCast<TcpSocketBase>(f.app->GetSocket());
    NS_ABORT_MSG_IF(!socket, "flow " << i << " has no TCP socket yet");
    PointerValue ops;
    socket->GetAttribute("CongestionOps", ops);
    f.ops = ops.Get<TcpCongestionOps>();
    if (auto c = DynamicCast<CountingCubic>(f.ops))
        c->flow = i;
    else if (auto r = DynamicCast<CountingNewReno>(f.ops))
        r->flow = i;
    else
        NS_ABORT_MSG("flow " << i << " runs " << f.ops->GetName() << ", not a counting class");
    socket->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    socket->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, i));
    socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
}

std::ofstream g_trace;

void
Sample(Time interval, Time until)
{
    for (uint32_t i = 0; i < g_flows.size(); ++i)
    {
        Flow& f = g_flows[i];
        f.cwnd_sum += double(f.cwnd_bytes) / g_segment;
        ++f.cwnd_samples;
        if (g_trace.is_open())
            g_trace << Simulator::Now().GetSeconds() << "," << i << ","
                    << double(f.cwnd_bytes) / g_segment << ","
                    << double(f.ssthresh_bytes) / g_segment << "\n";
    }
    if (Simulator::Now() + interval < until)
        Simulator::Schedule(interval, &Sample, interval, until);
}

void
MarkFrom()
{
    for (Flow& f : g_flows)
        f.rx_at_from = f.sink->GetTotalRx();
}

void
OnBottleneckDrop(Ptr<const Packet>)
{
    ++g_bottleneck_drops;
}

void
OnOtherDrop(Ptr<const Packet>)
{
    ++g_other_drops;
}

} // namespace

int
main(int argc, char* argv[])
{
    double rate_bps = 100e6;
    double access_rate_bps = 1e9;
    double bottleneck_delay_ms = 1;
    uint32_t buffer = 167;
    uint32_t access_queue = 100000;
    std::string flows = "cubic:20";
    bool sack = true;
    bool hystart = true;
    uint32_t initial_cwnd = 3;
    uint32_t buffers_bytes = 16 << 20;
    double duration_s = 30;
    double sample_ms = 10;
    bool print_events = true;
    std::string cwnd_trace;
    double from_s = 10;

    CommandLine cmd(__FILE__);
    cmd.AddValue("rate", "bottleneck rate for IP packets (bit/s)", rate_bps);
    cmd.AddValue("accessRate", "rate of every other link (bit/s)", access_rate_bps);
    cmd.AddValue("bottleneckDelayMs", "delay of the bottleneck and of the egress link", bottleneck_delay_ms);
    cmd.AddValue("buffer", "bottleneck DropTail queue (packets waiting)", buffer);
    cmd.AddValue("accessQueue", "DropTail queue of every other link (packets)", access_queue);
    cmd.AddValue("flows", "comma-separated kind:rtt_ms, kind cubic or newreno", flows);
    cmd.AddValue("sack", "SACK on (true) or off", sack);
    cmd.AddValue("hystart", "TcpCubic::HyStart", hystart);
    cmd.AddValue("segment", "segment size (bytes of payload)", g_segment);
    cmd.AddValue("initialCwnd", "TcpSocket::InitialCwnd (segments)", initial_cwnd);
    cmd.AddValue("buffers", "send and receive buffer of every socket (bytes)", buffers_bytes);
    cmd.AddValue("duration", "simulated seconds", duration_s);
    cmd.AddValue("sampleMs", "cwnd sampling interval (ms)", sample_ms);
    cmd.AddValue("events", "print every recovery and timeout", print_events);
    cmd.AddValue("cwndTrace", "write time_s,flow,cwnd,ssthresh (segments) at every sample here", cwnd_trace);
    cmd.AddValue("from", "also report goodput from this time to the end (s)", from_s);
    cmd.Parse(argc, argv);

    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(g_segment));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initial_cwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    // One size for both buffers: with SACK off and a send buffer larger than the receive
    // buffer, ns-3.37 as Debian builds it crashes in TcpRateLinux::SkbSent (segmentation fault).
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buffers_bytes));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buffers_bytes));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart));

    std::istringstream list(flows);
    std::string item;
    while (std::getline(list, item, ','))
    {
        auto colon = item.find(':');
        NS_ABORT_MSG_IF(colon == std::string::npos, "flow " << item << " is not kind:rtt_ms");
        Flow f;
        f.kind = item.substr(0, colon);
        f.rtt_ms = std::stod(item.substr(colon + 1));
        NS_ABORT_MSG_IF(f.kind != "cubic" && f.kind != "newreno", "unknown kind " << f.kind);
        NS_ABORT_MSG_IF(f.rtt_ms / 2 - 2 * bottleneck_delay_ms <= 0, "rtt too short: " << item);
        f.cwnd_bytes = initial_cwnd * g_segment;
        g_flows.push_back(f);
    }

    const double ip_bytes = g_segment + 40;
    auto device_rate = [&](double bps) { return DataRate(uint64_t(bps * (ip_bytes + 2) / ip_bytes)); };

    Ptr<Node> r1 = CreateObject<Node>();
    Ptr<Node> r2 = CreateObject<Node>();
    Ptr<Node> dst = CreateObject<Node>();
    NodeContainer all(r1, r2, dst);
    for (Flow& f : g_flows)
    {
        f.sender = CreateObject<Node>();
        all.Add(f.sender);
    }
    InternetStackHelper stack;
    stack.Install(all);

    Ipv4AddressHelper addresses;
    addresses.SetBase("10.0.0.0", "255.255.255.252");
    TrafficControlHelper no_qdisc;
    auto link = [&](Ptr<Node> a, Ptr<Node> b, double bps, double delay_ms, uint32_t limit) {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(device_rate(bps)));
        p2p.SetChannelAttribute("Delay", TimeValue(MicroSeconds(int64_t(delay_ms * 1000))));
        p2p.SetQueue("ns3::DropTailQueue",
                     "MaxSize",
                     QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)));
        NetDeviceContainer devices = p2p.Install(a, b);
        Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
        no_qdisc.Uninstall(devices);
        addresses.NewNetwork();
        return std::make_pair(devices, interfaces);
    };

    std::vector<NetDeviceContainer> others;
    others.push_back(link(r1, r2, rate_bps, bottleneck_delay_ms, buffer).first);
    auto [egress, egress_if] = link(r2, dst, access_rate_bps, bottleneck_delay_ms, access_queue);
    others.push_back(egress);
    Ipv4Address dst_address = egress_if.GetAddress(1);
    for (Flow& f : g_flows)
    {
        double access_ms = f.rtt_ms / 2 - 2 * bottleneck_delay_ms;
        others.push_back(link(f.sender, r1, access_rate_bps, access_ms, access_queue).first);
    }
    // A point-to-point device stops its queue when it cannot take another packet, and the
    // traffic-control layer, with no queue disc, drops what arrives for a stopped device: the
    // drops are counted there. r1's outputs other than the bottleneck carry ACKs only, so its
    // drops are the bottleneck's. A drop inside a device queue would be a bug of ns-3's flow
    // control (it logs one); they are counted too.
    for (auto& devices : others)
        for (uint32_t d = 0; d < 2; ++d)
            DynamicCast<PointToPointNetDevice>(devices.Get(d))
                ->GetQueue()
                ->TraceConnectWithoutContext("Drop", MakeCallback(&OnOtherDrop));
    for (uint32_t n = 0; n < all.GetN(); ++n)
    {
        Ptr<Node> node = all.Get(n);
        bool ok = node->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop",
            MakeCallback(node == r1 ? &OnBottleneckDrop : &OnOtherDrop));
        NS_ABORT_MSG_UNLESS(ok, "no TcDrop trace on the traffic-control layer");
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    uint16_t port = 5000;
    for (uint32_t i = 0; i < g_flows.size(); ++i)
    {
        Flow& f = g_flows[i];
        TypeId type = f.kind == "cubic" ? CountingCubic::GetTypeId() : CountingNewReno::GetTypeId();
        std::ostringstream path;
        path << "/NodeList/" << f.sender->GetId() << "/$ns3::TcpL4Protocol/SocketType";
        Config::Set(path.str(), TypeIdValue(type));

        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sink_app = sink.Install(dst);
        f.sink = DynamicCast<PacketSink>(sink_app.Get(0));
        BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(dst_address, port));
        source.SetAttribute("MaxBytes", UintegerValue(0));
        source.SetAttribute("SendSize", UintegerValue(g_segment));
        ApplicationContainer source_app = source.Install(f.sender);
        source_app.Start(Seconds(0));
        f.app = DynamicCast<BulkSendApplication>(source_app.Get(0));
        // The application creates its socket at its start (t = 0); connect the traces just after.
        Simulator::Schedule(NanoSeconds(1), &Hook, i);
        ++port;
    }

    if (!cwnd_trace.empty())
    {
        g_trace.open(cwnd_trace);
        NS_ABORT_MSG_UNLESS(g_trace, "cannot write " << cwnd_trace);
        g_trace << "time_s,flow,cwnd,ssthresh\n";
    }
    const Time until = Seconds(duration_s);
    Simulator::Schedule(NanoSeconds(2), &Sample, MilliSeconds(sample_ms), until);
    Simulator::Schedule(Seconds(from_s) + NanoSeconds(3), &MarkFrom);
    Simulator::Stop(until + NanoSeconds(3));
    Simulator::Run();

    std::cout.setf(std::ios::fixed);
    for (uint32_t i = 0; i < g_flows.size(); ++i)
    {
        Flow& f = g_flows[i];
        uint32_t rtos = 0;
        if (auto c = DynamicCast<CountingCubic>(f.ops))
            rtos = c->rtos;
        else if (auto r = DynamicCast<CountingNewReno>(f.ops))
            rtos = r->rtos;
        double goodput = double(f.sink->GetTotalRx()) * 8 / duration_s;
        double late = double(f.sink->GetTotalRx() - f.rx_at_from) * 8 / (duration_s - from_s);
        std::cout.precision(1);
        std::cout << "flow " << i << " " << f.kind << " " << f.rtt_ms << " goodput_bps " << goodput
                  << " goodput_from_bps " << late
                  << " rtos " << rtos << " recoveries " << f.recoveries;
        std::cout.precision(3);
        std::cout << " mean_cwnd " << f.cwnd_sum / std::max<uint64_t>(f.cwnd_samples, 1)
                  << " final_cwnd " << double(f.cwnd_bytes) / g_segment << " final_ssthresh "
                  << double(f.ssthresh_bytes) / g_segment << "\n";
    }
    if (print_events)
    {
        std::cout.precision(6);
        for (const Event& e : g_events)
            std::cout << "event " << e.time_s << " " << e.flow << " " << e.kind << " "
                      << e.cwnd_segments << "\n";
    }
    std::cout << "drops bottleneck " << g_bottleneck_drops << " other " << g_other_drops << std::endl;
    Simulator::Destroy();
    return 0;
}
