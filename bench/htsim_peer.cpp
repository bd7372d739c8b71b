// The benchmark's networks in htsim (Broadcom/csg-htsim), for bench/scale.py: the same shapes
// congsim runs, built from htsim's own Queue, Pipe, TcpSrc and TcpSink, with source routes as
// htsim's data-center drivers use them. Prints the bytes the sinks received in order.
//
//   htsim_peer dumbbell FLOWS RATE_MBPS DURATION_S QUEUE_PKTS PACKET_BYTES
//   htsim_peer fat_tree K RATE_MBPS DURATION_S QUEUE_PKTS PACKET_BYTES DELAY_US stride|all_to_all
//              [dctcp MARK_PKTS]
//
// Dumbbell: sender i's access link delays 3 + 4(i-1)/(n-1) ms, a 5 ms bottleneck with QUEUE_PKTS
// of buffer, 5 ms receiver links, every link at RATE_MBPS (bench/make_dumbbell.py).
// Fat tree: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores, k^3/4 hosts, every
// link at RATE_MBPS and DELAY_US with QUEUE_PKTS of buffer per direction; each flow takes one
// shortest path drawn at random (htsim's way; congsim hashes the flow, which spreads alike).
// With `dctcp MARK_PKTS` (the second peer: DCTCP with step marking) every queue is htsim's
// ECNQueue, which sets CE on a packet leaving while the queue, that packet included, holds more
// than MARK_PKTS packets' bytes, and every sender is htsim's DCTCPSrc (dctcp.cpp); TcpSink
// already echoes each packet's CE on its ACK.
//
// Built by bench/scale.py against a checkout's sim/libhtsim.a.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "config.h"
#include "dctcp.h"
#include "ecnqueue.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "route.h"
#include "tcp.h"

namespace {

// One direction of a link: its output queue and its propagation delay.
struct Hop {
    Queue* queue;
    Pipe* pipe;
};

// 0 when queues only drop; else the step-marking threshold of every queue (packets).
uint64_t mark_packets = 0;

Hop make_hop(EventList& events, uint64_t rate_mbps, uint64_t queue_packets, simtime_picosec delay) {
    Queue* queue =
        mark_packets == 0
            ? new Queue(speedFromMbps(rate_mbps), memFromPkt(queue_packets), events, nullptr)
            : new ECNQueue(speedFromMbps(rate_mbps), memFromPkt(queue_packets), events, nullptr,
                           memFromPkt(mark_packets));
    return Hop{queue, new Pipe(delay, events)};
}

Route* route_over(const std::vector<Hop>& hops, PacketSink* end) {
    Route* route = new Route();
    for (const Hop& hop : hops) {
        route->push_back(hop.queue);
        route->push_back(hop.pipe);
    }
    route->push_back(end);
    return route;
}

struct Connection {
    std::vector<Hop> out;
    std::vector<Hop> back;
};

int usage() {
    std::fprintf(stderr,
                 "usage: htsim_peer dumbbell FLOWS RATE_MBPS DURATION_S QUEUE_PKTS PACKET_BYTES\n"
                 "       htsim_peer fat_tree K RATE_MBPS DURATION_S QUEUE_PKTS PACKET_BYTES "
                 "DELAY_US stride|all_to_all [dctcp MARK_PKTS]\n");
    return 2;
}

std::vector<Connection> dumbbell(EventList& events, uint32_t flows, uint64_t rate_mbps,
                                 uint64_t queue_packets) {
    // Access links never hold more than a window: a buffer no flow fills.
    const uint64_t roomy = 100000;
    Hop forward = make_hop(events, rate_mbps, queue_packets, timeFromMs(5.0));
    Hop reverse = make_hop(events, rate_mbps, queue_packets, timeFromMs(5.0));
    std::vector<Connection> connections;
    for (uint32_t i = 1; i <= flows; i++) {
        double access_ms = 3.0 + 4.0 * (i - 1) / (flows > 1 ? flows - 1 : 1);
        Hop up = make_hop(events, rate_mbps, roomy, timeFromMs(access_ms));
        Hop down = make_hop(events, rate_mbps, roomy, timeFromMs(5.0));
        Hop down_back = make_hop(events, rate_mbps, roomy, timeFromMs(5.0));
        Hop up_back = make_hop(events, rate_mbps, roomy, timeFromMs(access_ms));
        connections.push_back(Connection{{up, forward, down}, {down_back, reverse, up_back}});
    }
    return connections;
}

std::vector<Connection> fat_tree(EventList& events, uint32_t k, uint64_t rate_mbps,
                                 uint64_t queue_packets, simtime_picosec delay, bool all_to_all) {
    const uint32_t half = k / 2, hosts = k * half * half, edges = k * half;
    auto hop = [&]() { return make_hop(events, rate_mbps, queue_packets, delay); };
    // Both directions of every link: host-edge, edge-aggregation (within a pod), aggregation-core.
    std::vector<Hop> host_up(hosts), host_down(hosts);
    for (uint32_t h = 0; h < hosts; h++) {
        host_up[h] = hop();
        host_down[h] = hop();
    }
    // [edge][a]: edge switch (pod-major index) to/from aggregation switch a of its pod.
    std::vector<std::vector<Hop>> edge_up(edges), edge_down(edges);
    for (uint32_t e = 0; e < edges; e++) {
        for (uint32_t a = 0; a < half; a++) {
            edge_up[e].push_back(hop());
            edge_down[e].push_back(hop());
        }
    }
    // [aggregation][c]: aggregation switch (pod-major index) to/from its c-th core.
    std::vector<std::vector<Hop>> agg_up(edges), agg_down(edges);
    for (uint32_t a = 0; a < edges; a++) {
        for (uint32_t c = 0; c < half; c++) {
            agg_up[a].push_back(hop());
            agg_down[a].push_back(hop());
        }
    }
    auto path = [&](uint32_t src, uint32_t dst) {
        uint32_t src_edge = src / half, dst_edge = dst / half;
        uint32_t src_pod = src_edge / half, dst_pod = dst_edge / half;
        std::vector<Hop> hops{host_up[src]};
        if (src_edge != dst_edge) {
            uint32_t a = std::rand() % half;
            hops.push_back(edge_up[src_edge][a]);
            if (src_pod != dst_pod) {
                uint32_t c = std::rand() % half;
                hops.push_back(agg_up[src_pod * half + a][c]);
                hops.push_back(agg_down[dst_pod * half + a][c]);
            }
            hops.push_back(edge_down[dst_edge][a]);
        }
        hops.push_back(host_down[dst]);
        return hops;
    };
    std::vector<Connection> connections;
    for (uint32_t src = 0; src < hosts; src++) {
        for (uint32_t dst = 0; dst < hosts; dst++) {
            bool wanted = all_to_all ? dst != src : dst == (src + hosts / 2) % hosts;
            if (wanted) {
                connections.push_back(Connection{path(src, dst), path(dst, src)});
            }
        }
    }
    return connections;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 7) {
        return usage();
    }
    const std::string shape = argv[1];
    const uint32_t size = std::strtoul(argv[2], nullptr, 10);
    const uint64_t rate_mbps = std::strtoull(argv[3], nullptr, 10);
    const double duration_s = std::strtod(argv[4], nullptr);
    const uint64_t queue_packets = std::strtoull(argv[5], nullptr, 10);
    Packet::set_packet_size(std::atoi(argv[6]));
    std::srand(1);

    EventList events;
    events.setEndtime(timeFromSec(duration_s));
    std::vector<Connection> connections;
    if (shape == "dumbbell") {
        connections = dumbbell(events, size, rate_mbps, queue_packets);
    } else if (shape == "fat_tree" && (argc == 9 || argc == 11) && size >= 2 && size % 2 == 0) {
        const std::string traffic = argv[8];
        if (traffic != "stride" && traffic != "all_to_all") {
            return usage();
        }
        if (argc == 11) {
            mark_packets = std::strtoull(argv[10], nullptr, 10);
            if (std::string(argv[9]) != "dctcp" || mark_packets == 0) {
                return usage();
            }
        }
        connections = fat_tree(events, size, rate_mbps, queue_packets,
                               timeFromUs(std::strtod(argv[7], nullptr)), traffic == "all_to_all");
    } else {
        return usage();
    }

    TcpRtxTimerScanner scanner(timeFromMs(10), events);
    std::vector<TcpSink*> sinks;
    for (const Connection& c : connections) {
        TcpSrc* source = mark_packets == 0 ? new TcpSrc(nullptr, nullptr, events)
                                           : new DCTCPSrc(nullptr, nullptr, events);
        TcpSink* sink = new TcpSink();
        scanner.registerTcp(*source);
        // Starts spread over the first millisecond, as htsim's own drivers do.
        source->connect(*route_over(c.out, sink), *route_over(c.back, source), *sink,
                        timeFromMs(drand() * 1.0));
        sinks.push_back(sink);
    }
    while (events.doNextEvent()) {
    }
    uint64_t delivered = 0;
    for (TcpSink* sink : sinks) {
        delivered += sink->_cumulative_ack;
    }
    std::printf("flows %zu\ndelivered_bytes %llu\n", sinks.size(),
                static_cast<unsigned long long>(delivered));
    return 0;
}
