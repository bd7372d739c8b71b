// CUBIC in ns-3 beside congsim (issue #29): bench/cubic_ns3.py builds this program, runs it and
// the same network in congsim, and tabulates both.
//
// Network: a point-to-point dumbbell. Sender i -- access link (access_rate, delay a_i) -- r1 --
// bottleneck (rate, bottleneck_delay_ms) -- r2 -- egress link (access_rate, bottleneck_delay_ms)
// -- one receiving node with a PacketSink per flow. a_i = rtt_i / 2 - 2 · bottleneck_delay_ms,
// so flow i's propagation round trip is rtt_i.
//
// Queues: every link's queue is its point-to-point device queue, DropTail in packets, and nothing
// else: the traffic-control layer's default pfifo_fast (1000 packets) is uninstalled, as in
// bench/ns3_dumbbell.cc (bench/ns3_common.h's Links). A device queue of N packets holds N packets
// waiting beside the one being transmitted (congsim's `semantics = "waiting"`). The bottleneck's
// queue (both directions) holds `buffer` packets; every other link's `access_queue`. A full device
// queue stops, and the traffic-control layer drops what arrives for it: drops are counted there.
//
// TCP (bench/ns3_common.h's Tcp): segment size, initial window, delayed ACKs (2 segments or
// 200 ms), RTO floor 1 s, clock granularity 1 ms, no timestamps, window scaling, SACK on or off, and
// one size for the send and receive buffers; everything else (HyStart on or off by --hystart, PRR
// recovery, fast convergence, β, C) as ns-3.37 ships it. `--recovery=classic` sets
// TcpL4Protocol::RecoveryType to TcpClassicRecovery (cwnd set to ssthresh at once, then one
// segment more per duplicate ACK) instead of ns-3's default TcpPrrRecovery (`--recovery=prr`).
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

#include "ns3_common.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

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

struct Flow : bench::FlowBase
{
    std::string kind;
    double rtt_ms;
    uint32_t ssthresh_bytes = 0;
};

std::vector<Flow> g_flows;
bench::Tcp g_tcp;
uint64_t g_bottleneck_drops = 0;
uint64_t g_other_drops = 0;

void
OnCongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_RECOVERY)
    {
        ++g_flows[i].recoveries;
        g_events.push_back({Simulator::Now().GetSeconds(), i, "recovery",
                            g_tcp.Segments(g_flows[i].cwnd_bytes)});
    }
}

void
Hook(uint32_t i)
{
    Flow& f = g_flows[i];
    bench::ConnectSocket(f, i);
    if (auto c = DynamicCast<CountingCubic>(f.ops))
        c->flow = i;
    else if (auto r = DynamicCast<CountingNewReno>(f.ops))
        r->flow = i;
    else
        NS_ABORT_MSG("flow " << i << " runs " << f.ops->GetName() << ", not a counting class");
    f.socket->TraceConnectWithoutContext("SlowStartThreshold",
                                         MakeBoundCallback(&bench::Store, &f.ssthresh_bytes));
    f.socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
}

std::ofstream g_trace;

void
Sample()
{
    for (uint32_t i = 0; i < g_flows.size(); ++i)
    {
        Flow& f = g_flows[i];
        f.cwnd_sum += g_tcp.Segments(f.cwnd_bytes);
        ++f.samples;
        if (g_trace.is_open())
            g_trace << Simulator::Now().GetSeconds() << "," << i << ","
                    << g_tcp.Segments(f.cwnd_bytes) << "," << g_tcp.Segments(f.ssthresh_bytes)
                    << "\n";
    }
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
    bench::Run run{100e6, 1e9, 100000, 30, 10};
    double bottleneck_delay_ms = 1;
    uint32_t buffer = 167;
    std::string flows = "cubic:20";
    bool hystart = true;
    g_tcp.initial_cwnd = 3;
    double sample_ms = 10;
    bool print_events = true;
    std::string cwnd_trace;
    std::string recovery = "prr";

    CommandLine cmd(__FILE__);
    cmd.AddValue("bottleneckDelayMs", "delay of the bottleneck and of the egress link", bottleneck_delay_ms);
    cmd.AddValue("buffer", "bottleneck DropTail queue (packets waiting)", buffer);
    cmd.AddValue("flows", "comma-separated kind:rtt_ms, kind cubic or newreno", flows);
    cmd.AddValue("hystart", "TcpCubic::HyStart", hystart);
    cmd.AddValue("recovery", "prr (ns-3's default) or classic", recovery);
    run.AddOptions(cmd);
    g_tcp.AddOptions(cmd);
    cmd.AddValue("sampleMs", "cwnd sampling interval (ms)", sample_ms);
    cmd.AddValue("events", "print every recovery and timeout", print_events);
    cmd.AddValue("cwndTrace", "write time_s,flow,cwnd,ssthresh (segments) at every sample here", cwnd_trace);
    cmd.Parse(argc, argv);

    g_tcp.SetDefaults();
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart));
    NS_ABORT_MSG_IF(recovery != "prr" && recovery != "classic", "unknown recovery " << recovery);
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                     : TcpClassicRecovery::GetTypeId()));

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
        f.cwnd_bytes = g_tcp.initial_cwnd * g_tcp.segment;
        g_flows.push_back(f);
    }

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

    bench::Links links(g_tcp.segment);
    auto ms = [](double delay_ms) { return MicroSeconds(int64_t(delay_ms * 1000)); };
    links.Add(r1, r2, run.rate_bps, ms(bottleneck_delay_ms), buffer);
    Ipv4Address dst_address =
        links.Add(r2, dst, run.access_rate_bps, ms(bottleneck_delay_ms), run.access_queue)
            .GetAddress(1);
    for (Flow& f : g_flows)
    {
        double access_ms = f.rtt_ms / 2 - 2 * bottleneck_delay_ms;
        links.Add(f.sender, r1, run.access_rate_bps, ms(access_ms), run.access_queue);
    }
    // r1's outputs other than the bottleneck carry ACKs only, so its drops are the bottleneck's.
    bench::TraceDrops(links, all, MakeCallback(&OnOtherDrop), [&](Ptr<Node> node) {
        return MakeCallback(node == r1 ? &OnBottleneckDrop : &OnOtherDrop);
    });
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    uint16_t port = 5000;
    for (uint32_t i = 0; i < g_flows.size(); ++i)
    {
        Flow& f = g_flows[i];
        TypeId type = f.kind == "cubic" ? CountingCubic::GetTypeId() : CountingNewReno::GetTypeId();
        std::ostringstream path;
        path << "/NodeList/" << f.sender->GetId() << "/$ns3::TcpL4Protocol/SocketType";
        Config::Set(path.str(), TypeIdValue(type));

        bench::InstallBulkFlow(f, dst, dst_address, port, Seconds(0), g_tcp.segment);
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
    const Time until = Seconds(run.duration_s);
    Simulator::Schedule(NanoSeconds(2), &bench::Repeat, &Sample, MilliSeconds(sample_ms), until);
    Simulator::Schedule(Seconds(run.from_s) + NanoSeconds(3), &MarkFrom);
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
        double goodput = double(f.sink->GetTotalRx()) * 8 / run.duration_s;
        double late = double(f.sink->GetTotalRx() - f.rx_at_from) * 8 / (run.duration_s - run.from_s);
        std::cout.precision(1);
        std::cout << "flow " << i << " " << f.kind << " " << f.rtt_ms << " goodput_bps " << goodput
                  << " goodput_from_bps " << late
                  << " rtos " << rtos << " recoveries " << f.recoveries;
        std::cout.precision(3);
        std::cout << " mean_cwnd " << f.cwnd_sum / std::max<uint64_t>(f.samples, 1)
                  << " final_cwnd " << g_tcp.Segments(f.cwnd_bytes) << " final_ssthresh "
                  << g_tcp.Segments(f.ssthresh_bytes) << "\n";
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
