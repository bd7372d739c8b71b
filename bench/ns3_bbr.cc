// BBR v1 in ns-3 beside congsim: bench/bbr_ns3.py builds this program, runs it and the same
// network in congsim, and tabulates both.
//
// Network: a point-to-point dumbbell. Sender i -- access link (accessRate, accessDelayMs) -- r1
// -- bottleneck (rate, bottleneckDelayMs) -- r2 -- egress link (accessRate, accessDelayMs) --
// receiver i: one receiving node per sender, so that no link but the bottleneck carries two
// flows' data.
//
// Queues: every link's queue is its point-to-point device queue, DropTail in packets, with no
// queue disc above it (the traffic-control layer's default pfifo_fast is uninstalled, as in
// bench/ns3_cubic.cc: bench/ns3_common.h's Links). A device queue of N packets holds N packets
// waiting beside the one in transmission (congsim's `semantics = "waiting"`), so the bottleneck's
// device queue (r1 -> r2, `buffer` packets) is the whole bottleneck queue and its length is the
// number of packets waiting, the one in transmission excluded: the same count as the queue
// columns of bench/ns3_dctcp.cc (queue disc + device queue). A full device queue stops, and the
// traffic-control layer drops what arrives for it: r1's drops are the bottleneck's (r1's other
// outputs carry ACKs only, into queues of `accessQueue` packets), every other node's are counted
// apart.
//
// TCP (bench/ns3_common.h's Tcp): segment size, initial window, delayed ACKs (2 segments or
// 200 ms), SACK, no timestamps, window scaling, one size for the send and receive buffers, RTO
// floor 1 s, clock granularity 1 ms; everything else as ns-3.37 ships it. Per flow
// (`--flows=bbr,cubic`): ns3::TcpBbr or ns3::TcpCubic (HyStart on, PRR recovery, as shipped),
// set as the sender node's socket type. TcpBbr sets the window itself in loss recovery:
// TcpSocketBase runs no recovery algorithm (PRR) for a congestion control with CongControl, as
// Linux runs no tcp_cwnd_reduction for BBR. Pacing: TcpBbr needs no attribute: its InitPacingRate
// (called on the connection's first CA_OPEN) sets the socket's m_pacing itself ("BBR must use
// pacing"), so TcpSocketState::EnablePacing keeps its default (false) and the CUBIC flow is not
// paced; PaceInitialWindow keeps its default (false) as well, so the first 10 segments of every
// flow leave unpaced (TcpSocketBase::IsPacingEnabled paces only above the initial window).
// TcpBbr's attributes as shipped: HighGain 2.89, BwWindowLength 10 rounds, RttWindowLength 10 s,
// ProbeRttDuration 200 ms, ExtraAckedRttWindowLength 5, AckEpochAckedResetThresh 4096 bytes,
// Stream 4 (the cycle-phase draw, see below). `--rngRun` sets ns-3's RngRun (default 1).
//
// `--upstreamFixes` runs the BBR flows on TcpBbr with four later ns-3-dev bug fixes applied
// around it, without rebuilding ns-3 (FixedRateLinux and FixedBbr below): the rate sampler's ACK
// phase (#1026, computed as Linux computes it), invalid rate samples discarded (#735), the
// min-RTT filter fed RTT samples rather than the smoothed RTT (#1043), PROBE_RTT marked
// application-limited in the rate sampler (#1013). TcpBbr's own code runs unchanged.
//
// Reading TcpBbr's estimates: ns-3.37's TcpBbr has no trace source and no attribute for its
// state, its max-bandwidth filter or its min RTT (trace sources came in ns-3-dev in 2024), and
// those members are private, so a subclass cannot read them either. This program reads them
// through pointers to the private members, formed by explicit template instantiation (the one
// place C++ does not check access: see `Expose` below): the flows run ns3::TcpBbr itself, no
// subclass, and the reads change nothing in the simulation. `--inspect=false` skips every read
// (goodput, cwnd and the queue are then the same to the last digit, which shows it).
//
// Flow i's application (BulkSend, unlimited) starts at i · staggerMs; it opens with a SYN.
//
// Measured over [from, duration): goodput (bytes the sink received); every `sampleMs` (and at
// `from` first): the bottleneck queue (packets waiting) and, per flow, cwnd (segments), and for
// BBR flows the pacing rate (the socket's PacingRate trace), TcpBbr's m_maxBwFilter.GetBest()
// (bit/s of payload: DataRate of delivered bytes · 8 over the sample's interval), m_rtProp (s),
// m_state and m_cycleIndex; state shares are the fractions of those samples in each state;
// PROBE_RTT entries are samples in PROBE_RTT whose previous sample was not (a PROBE_RTT lasts at
// least ProbeRttDuration = 200 ms, so none is missed at 1 ms); recoveries are entries into
// CA_RECOVERY and rtos entries into CA_LOSS (a timeout repeated in CA_LOSS is not counted again).
// The bottleneck's drops are counted in the window and over the whole run.
//
// Output, one item per line:
//   flow <i> <kind> goodput_bps <x> mean_cwnd <x> recoveries <n> rtos <n> final_cwnd <x>
//        [BBR flows:] pacing_mean_bps <x> bw_mean_bps <x> bw_last_bps <x> min_rtt_mean_s <x>
//        min_rtt_last_s <x> startup <x> drain <x> probe_bw <x> probe_rtt <x>
//        probe_rtt_entries <n> probe_rtt_entries_total <n> last_state <name>
//   queue mean <x> p99 <x> max <x> samples <n>
//   bottleneck drops <n> other_drops <n> drops_total <n>
// `--trace=FILE` writes every sample (whole run) as CSV: time_s, flow, kind, cwnd, pacing_bps,
// state, cycle_index, bw_bps, min_rtt_s, target_cwnd (segments), queue (pacing_bps and the five
// BBR columns empty for CUBIC, the BBR columns also with `--inspect=false`).

#include "ns3_common.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace
{

// Access to TcpBbr's private members. An explicit instantiation may name a private member
// ([temp.spec]/6 in C++17): `Expose<Tag, &TcpBbr::m_x>` defines the friend `Member(Tag)`, which
// returns that pointer to member.
template <class Tag, typename Tag::type Pointer>
struct Expose
{
    friend typename Tag::type Member(Tag)
    {
        return Pointer;
    }
};

struct BbrState
{
    using type = TcpBbr::BbrMode_t TcpBbr::*;
    friend type Member(BbrState);
};

struct BbrBandwidth
{
    using type = TcpBbr::MaxBandwidthFilter_t TcpBbr::*;
    friend type Member(BbrBandwidth);
};

struct BbrMinRtt
{
    using type = Time TcpBbr::*;
    friend type Member(BbrMinRtt);
};

struct BbrCycleIndex
{
    using type = uint32_t TcpBbr::*;
    friend type Member(BbrCycleIndex);
};

struct BbrTargetCwnd
{
    using type = uint32_t TcpBbr::*;
    friend type Member(BbrTargetCwnd);
};

struct SocketRateOps
{
    using type = Ptr<TcpRateOps> TcpSocketBase::*;
    friend type Member(SocketRateOps);
};

struct SocketHistory
{
    using type = std::deque<RttHistory> TcpSocketBase::*;
    friend type Member(SocketHistory);
};

struct RateSample
{
    using type = TcpRateOps::TcpRateSample TcpRateLinux::*;
    friend type Member(RateSample);
};

struct RateConnection
{
    using type = TcpRateOps::TcpRateConnection TcpRateLinux::*;
    friend type Member(RateConnection);
};

template struct Expose<BbrState, &TcpBbr::m_state>;
template struct Expose<BbrBandwidth, &TcpBbr::m_maxBwFilter>;
template struct Expose<BbrMinRtt, &TcpBbr::m_rtProp>;
template struct Expose<BbrCycleIndex, &TcpBbr::m_cycleIndex>;
template struct Expose<BbrTargetCwnd, &TcpBbr::m_targetCWnd>;
template struct Expose<SocketRateOps, &TcpSocketBase::m_rateOps>;
template struct Expose<SocketHistory, &TcpSocketBase::m_history>;
template struct Expose<RateSample, &TcpRateLinux::m_rateSample>;
template struct Expose<RateConnection, &TcpRateLinux::m_rate>;

} // namespace

namespace ns3
{

/// `--upstreamFixes`, part 1: TcpRateLinux with its ACK phase measured as Linux's tcp_rate_gen
/// measures it, from the sample's prior delivery time to the ACK that generates the sample
/// (issue #1026). ns-3.37 computes it in SkbDelivered from the previous sample's m_priorTime,
/// which GenerateSample sets to 0 when it invalidates a sample (interval below min RTT): the next
/// sample's interval is then the time since the simulation began, and its rate near 0. ns-3-dev's
/// fix (175945030, 2024) takes the delivered skb's own delivery time, but still in SkbDelivered:
/// ns-3 keeps one rate sample across ACKs and takes a new prior only from an skb sent after the
/// last prior one, so on an ACK whose skbs were sent between the same two ACKs as the last
/// prior's (every second ACK with delayed ACKs) the ACK phase stays one ACK interval short while
/// the delivered count grows, and the rate comes out up to one ACK's worth high (about 5 % here,
/// found in this program's first runs with that fix). Computing the phase at generation, as Linux
/// does, gives the same prior as Linux's fresh per-ACK sample and neither error.
class FixedRateLinux : public TcpRateLinux
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CongsimFixedRateLinux")
                                .SetParent<TcpRateLinux>()
                                .SetGroupName("Internet")
                                .AddConstructor<FixedRateLinux>();
        return tid;
    }

    const TcpRateSample& GenerateSample(uint32_t delivered,
                                        uint32_t lost,
                                        bool is_sack_reneg,
                                        uint32_t priorInFlight,
                                        const Time& minRtt) override
    {
        TcpRateOps::TcpRateSample& rs = this->*Member(RateSample());
        if (!rs.m_priorTime.IsZero())
            rs.m_ackElapsed = Simulator::Now() - rs.m_priorTime;
        return TcpRateLinux::GenerateSample(delivered, lost, is_sack_reneg, priorInFlight, minRtt);
    }
};

NS_OBJECT_ENSURE_REGISTERED(FixedRateLinux);

/// `--upstreamFixes`, part 2: TcpBbr with three later ns-3-dev fixes applied around it (its own
/// code runs unchanged):
/// - #735 (90634468b): an invalid rate sample (m_delivered < 0 or a zero interval) is
///   discarded. ns-3.37 tests m_deliveryRate == 0, but TcpRateLinux keeps the previous sample's
///   rate in an invalid sample, so the old rate is fed to the filter again and the round
///   counter advances on it. Here such a sample reaches TcpBbr with rate 0, which makes its
///   UpdateBtlBw return before UpdateRound, as the fix does.
/// - #1043 (3be702f76): the min-RTT filter takes the RTT of the latest-sent segment the ACK
///   acknowledges cumulatively (Karn's rule: not if retransmitted). ns-3.37 passes
///   TcpSocketState::m_lastRtt, which TcpSocketBase::EstimateRtt sets to the smoothed RTT. The
///   sample is computed as the fix computes it, from the socket's RTT history as the ACK
///   arrives (the socket's Rx trace fires before EstimateRtt consumes the history), and stands
///   in for m_lastRtt while TcpBbr::CongControl runs.
/// - #1013 (0bf177fff): while in PROBE_RTT the connection is marked application-limited in the
///   rate sampler (TcpRateLinux's m_appLimited = delivered + in flight), so the low delivery
///   rates of PROBE_RTT do not enter the max filter. ns-3.37 sets a private m_appLimited of its
///   own that the rate sampler never sees.
class FixedBbr : public TcpBbr
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CongsimFixedBbr")
                                .SetParent<TcpBbr>()
                                .SetGroupName("Internet")
                                .AddConstructor<FixedBbr>();
        return tid;
    }

    FixedBbr() = default;
    FixedBbr(const FixedBbr&) = default;

    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override
    {
        TcpRateOps::TcpRateSample sample = rs;
        if (sample.m_delivered < 0 || sample.m_interval.IsZero())
            sample.m_deliveryRate = DataRate(0);
        Time smoothed = tcb->m_lastRtt.Get();
        if (!last_rtt.IsZero())
            tcb->m_lastRtt = last_rtt;
        TcpBbr::CongControl(tcb, rc, sample);
        tcb->m_lastRtt = smoothed;
        if (rate && this->*Member(BbrState()) == TcpBbr::BBR_PROBE_RTT)
        {
            TcpRateOps::TcpRateConnection& connection = (*rate).*Member(RateConnection());
            connection.m_appLimited =
                std::max<uint32_t>(connection.m_delivered + tcb->m_bytesInFlight.Get(), 1);
        }
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<FixedBbr>(this);
    }

    Time last_rtt{0};           // the latest RTT sample, as ns-3-dev's m_lastRtt
    Ptr<TcpRateLinux> rate;     // the socket's rate sampler
};

NS_OBJECT_ENSURE_REGISTERED(FixedBbr);

} // namespace ns3

namespace
{

/// FixedBbr's RTT sample (#1043), from the socket's history before EstimateRtt consumes it: the
/// latest-sent entry the ACK covers, if not retransmitted (TcpSocketBase::CalculateRttSample in
/// ns-3-dev, without timestamps).
void
OnAckForRtt(Ptr<FixedBbr> bbr, Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase> socket)
{
    if (!(header.GetFlags() & TcpHeader::ACK))
        return;
    const std::deque<RttHistory>& history = (*socket).*Member(SocketHistory());
    const SequenceNumber32 ack = header.GetAckNumber();
    const RttHistory* latest = nullptr;
    for (const RttHistory& h : history)
    {
        if (h.seq + SequenceNumber32(h.count) > ack)
            break;
        latest = &h;
    }
    if (latest == nullptr && !history.empty())
        latest = &history.front();  // as ns-3-dev: the front entry, usable only if covered
    if (latest && !latest->retx && ack >= latest->seq + SequenceNumber32(latest->count))
    {
        Time rtt = Simulator::Now() - latest->time;
        if (!rtt.IsZero())
            bbr->last_rtt = rtt;
    }
}

const char* const STATE_NAMES[4] = {"startup", "drain", "probe_bw", "probe_rtt"};

struct Flow : bench::FlowBase
{
    std::string kind;  // "bbr" or "cubic"
    Ptr<Node> receiver;
    Ptr<TcpBbr> bbr;
    DataRate pacing{0};  // as the socket's PacingRate trace last gave it
    // Over the measurement window.
    uint32_t rtos = 0;
    double pacing_sum = 0, bw_sum = 0, min_rtt_sum = 0;
    uint64_t bbr_samples = 0;  // samples with a min RTT known (m_rtProp below Time::Max)
    std::array<uint64_t, 4> state_samples{};
    uint32_t probe_rtt_entries = 0;
    // Over the whole run.
    uint32_t probe_rtt_entries_total = 0;
    int last_state = -1;
};

std::vector<Flow> g_flows;
bench::Tcp g_tcp;
bool g_inspect = true;
bool g_fixes = false;
bool g_measuring = false;
Ptr<Queue<Packet>> g_queue;
std::vector<uint32_t> g_queue_samples;
uint64_t g_bottleneck_drops = 0, g_other_drops = 0;
uint64_t g_bottleneck_drops_at_from = 0, g_other_drops_at_from = 0;
std::ofstream g_trace;

void
StorePacing(DataRate* where, DataRate, DataRate now)
{
    *where = now;
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
    f.socket->TraceConnectWithoutContext("PacingRate", MakeBoundCallback(&StorePacing, &f.pacing));
    if (f.kind == "bbr")
    {
        f.bbr = DynamicCast<TcpBbr>(f.ops);
        NS_ABORT_MSG_IF(!f.bbr, "flow " << i << " runs " << f.ops->GetName() << ", not TcpBbr");
        if (g_fixes)
        {
            Ptr<FixedBbr> fixed = DynamicCast<FixedBbr>(f.ops);
            NS_ABORT_MSG_IF(!fixed, "flow " << i << " does not run FixedBbr");
            // Before the first data segment (the SYN does not pass the rate sampler).
            Ptr<FixedRateLinux> rate = CreateObject<FixedRateLinux>();
            (*f.socket).*Member(SocketRateOps()) = rate;
            fixed->rate = rate;
            f.socket->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnAckForRtt, fixed));
        }
    }
    else
        NS_ABORT_MSG_IF(!DynamicCast<TcpCubic>(f.ops), "flow " << i << " does not run TcpCubic");
}

void
Sample()
{
    uint32_t queue = g_queue->GetNPackets();
    if (g_measuring)
        g_queue_samples.push_back(queue);
    const double now = Simulator::Now().GetSeconds();
    for (uint32_t i = 0; i < g_flows.size(); ++i)
    {
        Flow& f = g_flows[i];
        double cwnd = g_tcp.Segments(f.cwnd_bytes);
        if (g_measuring)
        {
            f.cwnd_sum += cwnd;
            ++f.samples;
        }
        int state = -1;
        uint32_t cycle = 0, target = 0;
        double bw = 0, min_rtt = -1;
        if (f.bbr && g_inspect)
        {
            TcpBbr& b = *f.bbr;
            state = int(b.*Member(BbrState()));
            cycle = b.*Member(BbrCycleIndex());
            target = b.*Member(BbrTargetCwnd());
            bw = double((b.*Member(BbrBandwidth())).GetBest().GetBitRate());
            Time rt = b.*Member(BbrMinRtt());
            if (rt != Time::Max())
                min_rtt = rt.GetSeconds();
            bool entered = state == TcpBbr::BBR_PROBE_RTT && f.last_state != state;
            f.probe_rtt_entries_total += entered;
            if (g_measuring)
            {
                ++f.state_samples[state];
                f.probe_rtt_entries += entered;
                f.pacing_sum += double(f.pacing.GetBitRate());
                f.bw_sum += bw;
                if (min_rtt >= 0)
                {
                    f.min_rtt_sum += min_rtt;
                    ++f.bbr_samples;
                }
            }
            f.last_state = state;
        }
        if (g_trace.is_open())
        {
            g_trace << now << "," << i << "," << f.kind << "," << cwnd << ",";
            if (f.bbr)
                g_trace << f.pacing.GetBitRate();
            g_trace << ",";
            if (state >= 0)
            {
                g_trace << STATE_NAMES[state] << "," << cycle << "," << bw << ",";
                if (min_rtt >= 0)
                    g_trace << min_rtt;
                g_trace << "," << g_tcp.Segments(target);
            }
            else
                g_trace << ",,,,";
            g_trace << "," << queue << "\n";
        }
    }
}

void
StartMeasuring()
{
    g_measuring = true;
    for (Flow& f : g_flows)
        f.rx_at_from = f.sink->GetTotalRx();
    g_bottleneck_drops_at_from = g_bottleneck_drops;
    g_other_drops_at_from = g_other_drops;
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
    bench::Run run{10e6, 100e6, 100000, 60, 20};
    std::string flows = "bbr";
    double bottleneck_delay_ms = 16, access_delay_ms = 2;
    uint32_t buffer = 17;
    double stagger_ms = 1;
    double sample_ms = 1;
    uint32_t rng_run = 1;
    std::string trace;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "comma-separated kinds, bbr or cubic, one per flow", flows);
    cmd.AddValue("bottleneckDelayMs", "bottleneck propagation delay (ms)", bottleneck_delay_ms);
    cmd.AddValue("accessDelayMs", "delay of every access and egress link (ms)", access_delay_ms);
    cmd.AddValue("buffer", "bottleneck DropTail device queue (packets waiting)", buffer);
    run.AddOptions(cmd);
    g_tcp.AddOptions(cmd);
    cmd.AddValue("staggerMs", "flow i starts at i times this (ms)", stagger_ms);
    cmd.AddValue("sampleMs", "queue, cwnd and BBR state sampling interval (ms)", sample_ms);
    cmd.AddValue("inspect", "read TcpBbr's private state (false: no reads at all)", g_inspect);
    cmd.AddValue("upstreamFixes",
                 "BBR flows run TcpBbr with ns-3-dev's fixes #735, #1013, #1026, #1043",
                 g_fixes);
    cmd.AddValue("rngRun", "ns-3's RngRun (TcpBbr's cycle-phase draw)", rng_run);
    cmd.AddValue("trace", "write every sample as CSV here", trace);
    cmd.Parse(argc, argv);

    RngSeedManager::SetRun(rng_run);
    g_tcp.SetDefaults();
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));

    std::istringstream list(flows);
    std::string kind;
    while (std::getline(list, kind, ','))
    {
        NS_ABORT_MSG_IF(kind != "bbr" && kind != "cubic", "unknown kind " << kind);
        Flow f;
        f.kind = kind;
        f.cwnd_bytes = g_tcp.initial_cwnd * g_tcp.segment;
        g_flows.push_back(f);
    }

    Ptr<Node> r1 = CreateObject<Node>();
    Ptr<Node> r2 = CreateObject<Node>();
    NodeContainer all(r1, r2);
    for (Flow& f : g_flows)
    {
        f.sender = CreateObject<Node>();
        f.receiver = CreateObject<Node>();
        all.Add(f.sender);
        all.Add(f.receiver);
    }
    InternetStackHelper stack;
    stack.Install(all);

    bench::Links links(g_tcp.segment);
    auto ms = [](double delay_ms) { return MicroSeconds(int64_t(delay_ms * 1000)); };
    links.Add(r1, r2, run.rate_bps, ms(bottleneck_delay_ms), buffer);
    g_queue = DynamicCast<PointToPointNetDevice>(links.all.back().Get(0))->GetQueue();
    std::vector<Ipv4Address> receiver_address;
    for (Flow& f : g_flows)
    {
        links.Add(f.sender, r1, run.access_rate_bps, ms(access_delay_ms), run.access_queue);
        Ipv4InterfaceContainer egress =
            links.Add(r2, f.receiver, run.access_rate_bps, ms(access_delay_ms), run.access_queue);
        receiver_address.push_back(egress.GetAddress(1));
    }
    bench::TraceDrops(links, all, MakeCallback(&OnOtherDrop), [&](Ptr<Node> node) {
        return MakeCallback(node == r1 ? &OnBottleneckDrop : &OnOtherDrop);
    });
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5000;
    for (uint32_t i = 0; i < g_flows.size(); ++i)
    {
        Flow& f = g_flows[i];
        TypeId type = f.kind == "cubic" ? TcpCubic::GetTypeId()
                      : g_fixes         ? FixedBbr::GetTypeId()
                                        : TcpBbr::GetTypeId();
        std::ostringstream path;
        path << "/NodeList/" << f.sender->GetId() << "/$ns3::TcpL4Protocol/SocketType";
        Config::Set(path.str(), TypeIdValue(type));
        Time start = MicroSeconds(int64_t(i * stagger_ms * 1000));
        bench::InstallBulkFlow(f, f.receiver, receiver_address[i], port, start, g_tcp.segment);
        // The application creates its socket when it starts; connect the traces just after.
        Simulator::Schedule(start + NanoSeconds(1), &Hook, i);
    }

    if (!trace.empty())
    {
        g_trace.open(trace);
        NS_ABORT_MSG_UNLESS(g_trace, "cannot write " << trace);
        g_trace << "time_s,flow,kind,cwnd,pacing_bps,state,cycle_index,bw_bps,min_rtt_s,"
                   "target_cwnd,queue\n";
    }
    const Time until = Seconds(run.duration_s);
    const Time from = Seconds(run.from_s);
    // Samples at k · sampleMs + 2 ns (after the last flow's hook at 1 ns past its start), those
    // at or after `from` measured; StartMeasuring runs just before the sample at `from`.
    const Time offset = NanoSeconds(2);
    Simulator::Schedule(from + offset - NanoSeconds(1), &StartMeasuring);
    Simulator::Schedule(offset, &bench::Repeat, &Sample, ms(sample_ms), until);
    Simulator::Stop(until);
    Simulator::Run();

    const double window_s = run.duration_s - run.from_s;
    std::cout.setf(std::ios::fixed);
    for (uint32_t i = 0; i < g_flows.size(); ++i)
    {
        Flow& f = g_flows[i];
        double goodput = double(f.sink->GetTotalRx() - f.rx_at_from) * 8 / window_s;
        std::cout.precision(1);
        std::cout << "flow " << i << " " << f.kind << " goodput_bps " << goodput;
        std::cout.precision(3);
        std::cout << " mean_cwnd " << f.cwnd_sum / std::max<uint64_t>(f.samples, 1)
                  << " recoveries " << f.recoveries << " rtos " << f.rtos << " final_cwnd "
                  << g_tcp.Segments(f.cwnd_bytes);
        if (f.bbr && g_inspect)
        {
            TcpBbr& b = *f.bbr;
            double samples = double(std::max<uint64_t>(f.samples, 1));
            Time rt = b.*Member(BbrMinRtt());
            std::cout.precision(1);
            std::cout << " pacing_mean_bps " << f.pacing_sum / samples << " bw_mean_bps "
                      << f.bw_sum / samples << " bw_last_bps "
                      << double((b.*Member(BbrBandwidth())).GetBest().GetBitRate());
            std::cout.precision(6);
            std::cout << " min_rtt_mean_s " << f.min_rtt_sum / std::max<uint64_t>(f.bbr_samples, 1)
                      << " min_rtt_last_s " << (rt == Time::Max() ? -1.0 : rt.GetSeconds());
            for (int s = 0; s < 4; ++s)
                std::cout << " " << STATE_NAMES[s] << " " << f.state_samples[s] / samples;
            std::cout << " probe_rtt_entries " << f.probe_rtt_entries << " probe_rtt_entries_total "
                      << f.probe_rtt_entries_total << " last_state "
                      << STATE_NAMES[int(b.*Member(BbrState()))];
        }
        std::cout << "\n";
    }
    Summary queue = Summarise(g_queue_samples);
    std::cout.precision(3);
    std::cout << "queue mean " << queue.mean << " p99 " << queue.p99 << " max " << queue.max
              << " samples " << g_queue_samples.size() << "\n";
    std::cout << "bottleneck drops " << g_bottleneck_drops - g_bottleneck_drops_at_from
              << " other_drops " << g_other_drops - g_other_drops_at_from << " drops_total "
              << g_bottleneck_drops << std::endl;
    Simulator::Destroy();
    return 0;
}
