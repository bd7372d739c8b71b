// What bench/ns3_cubic.cc and bench/ns3_dctcp.cc share: the TCP settings both match to congsim,
// the rates and times, and their command-line options; the point-to-point links (rates counting IP
// bytes, DropTail device queues, no queue disc), the drop traces outside a queue disc, a flow's
// BulkSend and PacketSink, the socket's congestion-window trace and a sampler that repeats until
// the end. Each program includes it once (bench/cubic_ns3.py and bench/dctcp_ns3.py build them).

#ifndef CONGSIM_BENCH_NS3_COMMON_H
#define CONGSIM_BENCH_NS3_COMMON_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

using namespace ns3;

namespace bench
{

/// TCP as both programs set it: segment size, initial window, delayed ACKs (`del_ack_count`
/// segments or 200 ms), one size for the send and receive buffers, SACK on or off, no
/// timestamps, window scaling, RTO floor 1 s and clock granularity 1 ms (ns-3's defaults, set
/// to be sure); everything else as ns-3.37 ships it.
struct Tcp
{
    uint32_t segment = 1460;
    uint32_t initial_cwnd = 10;
    uint32_t del_ack_count = 2;
    uint32_t buffers_bytes = 16 << 20;
    bool sack = true;

    void AddOptions(CommandLine& cmd)
    {
        cmd.AddValue("segment", "segment size (bytes of payload)", segment);
        cmd.AddValue("initialCwnd", "TcpSocket::InitialCwnd (segments)", initial_cwnd);
        cmd.AddValue("delAckCount", "TcpSocket::DelAckCount", del_ack_count);
        cmd.AddValue("buffers", "send and receive buffer of every socket (bytes)", buffers_bytes);
        cmd.AddValue("sack", "SACK on (true) or off", sack);
    }

    void SetDefaults() const
    {
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
        Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initial_cwnd));
        Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(del_ack_count));
        Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
        // One size for both buffers: with SACK off and a send buffer larger than the receive
        // buffer, ns-3.37 as Debian builds it crashes in TcpRateLinux::SkbSent (segmentation
        // fault).
        Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buffers_bytes));
        Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buffers_bytes));
        Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
        Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
        Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
        Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
        Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    }

    /// Bytes in segments.
    double Segments(uint32_t bytes) const
    {
        return double(bytes) / segment;
    }
};

/// The rates, the queue of every link but the bottleneck and the times, as both programs take
/// them.
struct Run
{
    double rate_bps;                 // the bottleneck's, for IP packets
    double access_rate_bps;          // every other link's
    uint32_t access_queue = 100000;  // device queue of every other link (packets)
    double duration_s;               // simulated seconds
    double from_s;                   // start of the measurement window (s)

    void AddOptions(CommandLine& cmd)
    {
        cmd.AddValue("rate", "bottleneck rate for IP packets (bit/s)", rate_bps);
        cmd.AddValue("accessRate", "rate of every other link (bit/s)", access_rate_bps);
        cmd.AddValue("accessQueue", "device queue of every other link (packets)", access_queue);
        cmd.AddValue("duration", "simulated seconds", duration_s);
        cmd.AddValue("from", "start of the measurement window (s)", from_s);
    }
};

/// Point-to-point links, numbered 10.0.0.0/30 on; each device queue is DropTail in packets
/// and holds that many waiting beside the one in transmission, with no queue disc above it
/// (the traffic-control layer's default pfifo_fast is uninstalled). Rates count IP bytes:
/// ns-3 puts a 2-byte PPP header on every packet, so a device runs at bps · (ip + 2) / ip with
/// ip = segment + 40, the rate congsim's link has for IP packets.
class Links
{
  public:
    explicit Links(uint32_t segment)
        : m_ip_bytes(segment + 40)
    {
        m_addresses.SetBase("10.0.0.0", "255.255.255.252");
    }

    /// a -- b; b's device queue holds `queue` packets, a's as many or `queue_a` if not 0. The
    /// interfaces: b's address is GetAddress(1).
    Ipv4InterfaceContainer Add(Ptr<Node> a,
                               Ptr<Node> b,
                               double bps,
                               Time delay,
                               uint32_t queue,
                               uint32_t queue_a = 0)
    {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate",
                               DataRateValue(DataRate(uint64_t(bps * (m_ip_bytes + 2) / m_ip_bytes))));
        p2p.SetChannelAttribute("Delay", TimeValue(delay));
        p2p.SetQueue("ns3::DropTailQueue",
                     "MaxSize",
                     QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queue)));
        NetDeviceContainer devices = p2p.Install(a, b);
        if (queue_a != 0 && queue_a != queue)
            DynamicCast<PointToPointNetDevice>(devices.Get(0))
                ->GetQueue()
                ->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, queue_a));
        Ipv4InterfaceContainer interfaces = m_addresses.Assign(devices);
        m_no_qdisc.Uninstall(devices);
        m_addresses.NewNetwork();
        all.push_back(devices);
        return interfaces;
    }

    /// Every link's two devices, in the order they were added.
    std::vector<NetDeviceContainer> all;

  private:
    double m_ip_bytes;
    Ipv4AddressHelper m_addresses;
    TrafficControlHelper m_no_qdisc;
};

using DropSink = Callback<void, Ptr<const Packet>>;

/// Counts the drops outside any queue disc. A point-to-point device stops its queue when it
/// cannot take another packet, and the traffic-control layer of a device with no queue disc
/// drops what arrives for a stopped device: every node's TcDrop goes to `at_node(node)`. A drop
/// inside a device queue would be a bug of ns-3's flow control (it logs one): every device
/// queue's Drop goes to `in_device`.
inline void
TraceDrops(const Links& links,
           const NodeContainer& nodes,
           DropSink in_device,
           const std::function<DropSink(Ptr<Node>)>& at_node)
{
    for (const NetDeviceContainer& devices : links.all)
        for (uint32_t d = 0; d < 2; ++d)
            DynamicCast<PointToPointNetDevice>(devices.Get(d))
                ->GetQueue()
                ->TraceConnectWithoutContext("Drop", in_device);
    for (uint32_t n = 0; n < nodes.GetN(); ++n)
    {
        Ptr<Node> node = nodes.Get(n);
        bool ok = node->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop", at_node(node));
        NS_ABORT_MSG_UNLESS(ok, "no TcDrop trace on the traffic-control layer");
    }
}

/// What both programs keep per flow.
struct FlowBase
{
    Ptr<Node> sender;
    Ptr<BulkSendApplication> app;
    Ptr<PacketSink> sink;
    Ptr<TcpSocketBase> socket;
    Ptr<TcpCongestionOps> ops;
    uint32_t cwnd_bytes = 0;  // as the socket's CongestionWindow trace last gave it
    double cwnd_sum = 0;      // of the samples, in segments
    uint64_t samples = 0;
    uint32_t recoveries = 0;
    uint64_t rx_at_from = 0;  // bytes the sink had received when the measurement began
};

/// A PacketSink on `receiver` at `port`, and an unlimited BulkSend of `segment`-byte writes
/// from f.sender to address:port that starts at `start` (it opens its socket then).
inline void
InstallBulkFlow(FlowBase& f,
                Ptr<Node> receiver,
                Ipv4Address address,
                uint16_t port,
                Time start,
                uint32_t segment)
{
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sink_app = sink.Install(receiver);
    sink_app.Start(Seconds(0));
    f.sink = DynamicCast<PacketSink>(sink_app.Get(0));
    BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(address, port));
    source.SetAttribute("MaxBytes", UintegerValue(0));
    source.SetAttribute("SendSize", UintegerValue(segment));
    ApplicationContainer source_app = source.Install(f.sender);
    source_app.Start(start);
    f.app = DynamicCast<BulkSendApplication>(source_app.Get(0));
}

/// Trace sink: keeps a traced value's new value at `where`.
inline void
Store(uint32_t* where, uint32_t, uint32_t now)
{
    *where = now;
}

/// Takes flow i's socket and congestion controller once its application has opened the socket,
/// and has cwnd_bytes follow the socket's CongestionWindow trace.
inline void
ConnectSocket(FlowBase& f, uint32_t i)
{
    f.socket = DynamicCast<TcpSocketBase>(f.app->GetSocket());
    NS_ABORT_MSG_IF(!f.socket, "flow " << i << " has no TCP socket yet");
    PointerValue ops;
    f.socket->GetAttribute("CongestionOps", ops);
    f.ops = ops.Get<TcpCongestionOps>();
    f.socket->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&Store, &f.cwnd_bytes));
}

/// Calls `what` now and every `interval` after while before `until`.
inline void
Repeat(void (*what)(), Time interval, Time until)
{
    what();
    if (Simulator::Now() + interval < until)
        Simulator::Schedule(interval, &Repeat, what, interval, until);
}

} // namespace bench

#endif
