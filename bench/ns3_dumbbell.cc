// The benchmark scenario in ns-3, for side-by-side timing (bench/dumbbell.py builds and runs it;
// bench/ns3_scenario.py writes its input from a congsim scenario file).
//
// Input on stdin, one item per line:
//   param duration_s <seconds> | param packet_bytes <bytes on the wire> | param window <packets>
//   param congestion bbr                     (every flow on ns3::TcpBbr; without it TcpLinuxReno)
//   node <name>
//   link <from> <to> <rate bps> <delay ns> <queue limit, packets>   (duplex, DropTail)
//   flow <from> <to>                                                   (persistent TCP)
//
// What makes it the same scenario as congsim's and ns-2's: point-to-point links whose device
// queue (DropTail, in packets) is the only queue (no traffic-control layer), Reno congestion
// control (TcpLinuxReno, classic recovery) without timestamps or delayed ACKs, an initial
// window of one segment, and segments sized so that an IP packet is `packet_bytes` long like
// ns-2's (ns-3 adds a 2-byte PPP header on the wire). One difference is deliberate: SACK stays
// on. ns-3 builds its loss recovery on a SACK scoreboard; without SACK its Reno moves only
// 52 Mbps through this network (congsim and ns-2: 94 Mbps), and a run carrying half the
// packets would flatter congsim's speed-up. Prints `total_bytes`, the bytes of the IP packets
// the sinks received (as ns-2's sinks count), and `events`, the events ns-3 executed.
//
// `param congestion bbr` (bench/ns3_scenario.py writes it for congestion_control = "bbr")
// runs every flow on ns3::TcpBbr instead, as ns-3.37 ships it (bench/ns3_bbr.cc describes
// it): TcpBbr switches pacing on itself on the connection's first CA_OPEN (no EnablePacing
// attribute; PaceInitialWindow stays false, so the initial window leaves unpaced), and
// TcpSocketBase runs no recovery algorithm for a congestion control with CongControl, so the
// classic-recovery setting below does not reach BBR flows; SACK is on as for Reno. Everything
// else (segments, window, initial window, no delayed ACKs, timers, links) is unchanged.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    double duration_s = 20;
    uint32_t packet_bytes = 500;
    uint32_t window = 20;
    std::string congestion = "reno";
    std::map<std::string, Ptr<Node>> nodes;
    struct LinkSpec
    {
        std::string from, to;
        uint64_t rate_bps, delay_ns, limit;
    };
    std::vector<LinkSpec> links;
    std::vector<std::pair<std::string, std::string>> flows;

    std::string line;
    while (std::getline(std::cin, line))
    {
        std::istringstream in(line);
        std::string kind;
        in >> kind;
        if (kind == "param")
        {
            std::string name;
            in >> name;
            if (name == "duration_s")
                in >> duration_s;
            else if (name == "packet_bytes")
                in >> packet_bytes;
            else if (name == "window")
                in >> window;
            else if (name == "congestion")
                in >> congestion;
        }
        else if (kind == "node")
        {
            std::string name;
            in >> name;
            nodes[name] = CreateObject<Node>();
        }
        else if (kind == "link")
        {
            LinkSpec l;
            in >> l.from >> l.to >> l.rate_bps >> l.delay_ns >> l.limit;
            links.push_back(l);
        }
        else if (kind == "flow")
        {
            std::string from, to;
            in >> from >> to;
            flows.emplace_back(from, to);
        }
    }

    // IP (20) and TCP (20) headers, no options: a segment of `packet_bytes - 40` payload
    // bytes is a `packet_bytes` IP packet, as ns-2's TCP packets are.
    const uint32_t segment = packet_bytes - 40;
    NS_ABORT_MSG_UNLESS(congestion == "reno" || congestion == "bbr",
                        "param congestion must be reno or bbr, not " << congestion);
    TypeId socket_type = congestion == "bbr" ? TcpBbr::GetTypeId() : TcpLinuxReno::GetTypeId();
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(socket_type));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    // The advertised window is ns-2's `window_`. The send buffer is left at ns-3's default
    // (128 KB, far above any window this network lets a flow reach): a window-sized one makes
    // every ACK walk thousands of buffered segments, which measures a buffer no other
    // simulator has.
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(window * segment));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    // ns-2's Reno recovery (not ns-3's default, proportional rate reduction) and a timer close
    // to ns2_2000's: RTT samples on a 100 ms tick (RFC 6298's G), no 1 s minimum.
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(100)));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));

    NodeContainer all;
    for (auto& [name, node] : nodes)
        all.Add(node);
    InternetStackHelper stack;
    stack.Install(all);

    Ipv4AddressHelper addresses;
    addresses.SetBase("10.0.0.0", "255.255.255.252");
    std::map<std::string, Ipv4Address> host_address;
    TrafficControlHelper no_qdisc;
    for (const auto& l : links)
    {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(l.rate_bps)));
        p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(l.delay_ns)));
        p2p.SetQueue("ns3::DropTailQueue",
                     "MaxSize",
                     QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, l.limit)));
        NetDeviceContainer devices = p2p.Install(nodes[l.from], nodes[l.to]);
        Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
        // Assign installed the default queue discipline (pfifo_fast, 1000 packets): without it
        // the device's DropTail queue is the link's only queue.
        no_qdisc.Uninstall(devices);
        addresses.NewNetwork();
        host_address.emplace(l.from, interfaces.GetAddress(0));
        host_address.emplace(l.to, interfaces.GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::vector<Ptr<PacketSink>> sinks;
    uint16_t port = 5000;
    for (const auto& [from, to] : flows)
    {
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sink_app = sink.Install(nodes[to]);
        sinks.push_back(DynamicCast<PacketSink>(sink_app.Get(0)));
        BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(host_address[to], port));
        source.SetAttribute("MaxBytes", UintegerValue(0));
        source.SetAttribute("SendSize", UintegerValue(segment));
        source.Install(nodes[from]).Start(Seconds(0));
        ++port;
    }

    Simulator::Stop(Seconds(duration_s));
    Simulator::Run();
    uint64_t payload = 0;
    for (const auto& sink : sinks)
        payload += sink->GetTotalRx();
    // The sinks count payload; ns-2's count whole packets: report the IP bytes they carried.
    std::cout << "total_bytes " << payload / segment * packet_bytes + payload % segment << std::endl;
    std::cout << "events " << Simulator::GetEventCount() << std::endl;
    Simulator::Destroy();
    return 0;
}
