//! Assembling a simulation from a resolved scenario: links with their disciplines, TCP
//! endpoints, sources, clocks, hop fusion and early delivery tables.

use super::*;
use crate::scenario::model::TieOrder;

impl<'a> Simulation<'a> {
    pub(super) fn new(scenario: &'a Scenario, replication: u32) -> Self {
        let streams = StreamFactory::new(scenario.seed, replication);
        // First: the flows' paths it reads are freed before the network is built.
        let maxmin_shares = super::results::max_min_shares_of(scenario, replication);
        let links: Vec<Link> = (scenario.links.iter())
            // A link that records sojourns counts each flow's drops and marks too (`sojourn_flows`).
            .map(|l| {
                let flow_monitor = scenario.flow_monitor || l.record_sojourns;
                build_link(l, &scenario.nodes, &streams, flow_monitor)
            })
            .collect();
        let (flows, slow_clocks, fast_tick_flows) = build_flows(scenario, &streams);
        let cbr = build_cbr(scenario, &streams);
        let routing = Routing::new(scenario, &links, replication);
        let mut sim = Self {
            scenario,
            queue: EventQueue::new(),
            links,
            routing,
            connections: Connections {
                ids: FlowIds {
                    tcp_flows: flows.len(),
                    cbr_sources: cbr.len(),
                },
                flows,
                transfers: Vec::new(),
            },
            cbr,
            transfer_info: Vec::new(),
            group_started: vec![0; scenario.transfers.len()],
            groups: scenario
                .transfers
                .iter()
                .map(|g| GroupState {
                    arrivals: streams.stream(&format!("transfers/{}/arrivals", g.name)),
                    sizes: streams.stream(&format!("transfers/{}/sizes", g.name)),
                    boot_phases: streams.stream(&format!("transfers/{}/boot_phase", g.name)),
                    controllers: streams.stream(&format!("transfers/{}/controller", g.name)),
                })
                .collect(),
            slow_clocks,
            fast_tick_flows,
            early_endpoints: Vec::new(),
            in_early_delivery: false,
            recorders: Recorders::new(scenario),
            links_change: !scenario.events.is_empty(),
            failures: (scenario.events.iter().enumerate())
                .filter(|(_, e)| matches!(e.change, NetworkChange::LinkFailures { .. }))
                .map(|(event, _)| FailureProcess {
                    event,
                    rng: streams.stream(&format!("events/{event}/failures")),
                    down: false,
                })
                .collect(),
            link_changes: Vec::new(),
            segments: Vec::new(),
            acks: Vec::new(),
            atm: scenario.links.iter().any(|l| l.atm.is_some()).then(|| {
                let ports = scenario
                    .links
                    .iter()
                    .map(|l| {
                        l.atm.as_ref().map(|port| PortConfig {
                            rate: l.rate,
                            delay: l.delay,
                            capacity_cells: port.capacity_cells,
                            policy: port.policy,
                            ppd_after_overflow: port.ppd_after_overflow,
                            switch: port.switch.clone(),
                            vbr: port.vbr.clone(),
                        })
                    })
                    .collect();
                // A cell offered ahead of its arrival would be counted in the sampled queue
                // early, and release the cells before it early: no fusion under series.
                let fusion = scenario.hop_fusion && scenario.series_interval.is_none();
                let fed_by_one_link = (scenario.links.iter())
                    .map(|l| fusion && l.single_feeder.is_some())
                    .collect();
                let mut network = AtmNetwork::new(
                    ports,
                    fed_by_one_link,
                    SimTime::ZERO + scenario.duration,
                    scenario.atm_abr.clone(),
                    fusion,
                );
                network.set_private_adapters(private_adapters(scenario));
                for (i, l) in scenario.links.iter().enumerate() {
                    if l.atm
                        .as_ref()
                        .is_some_and(|p| p.random_contention && p.capacity_cells.is_some())
                    {
                        network.set_contention(
                            i,
                            streams.stream(&format!("atm/{}/contention", l.name(&scenario.nodes))),
                        );
                    }
                }
                network
            }),
            tie_streams: (scenario.tie_order == TieOrder::Random).then(|| {
                (scenario.links.iter())
                    .map(|l| streams.stream(&format!("link/{}/ties", l.name(&scenario.nodes))))
                    .collect()
            }),
            measurement: Measurement::new(scenario),
            maxmin_shares,
        };
        sim.early_endpoints = sim.early_endpoints();
        sim
    }

    /// With hop fusion on, for a persistent flow without a stop time and no trace or capture
    /// that records events in time order: its receiver may take data early when it is outside
    /// the BSD fast tick and its ACKs' first link carries nothing else on the FIFO fast path;
    /// its sender may take ACKs early when it is outside the BSD slow clock and its data's first
    /// link is such a link.
    pub(super) fn early_endpoints(&self) -> Vec<EarlyEndpoints> {
        let s = self.scenario;
        // Like hop fusion, a shortcut that `hop_fusion = false` turns off for comparison.
        let traced = !s.hop_fusion
            || s.series_interval.is_some()
            || s.sequence_trace
            || s.tcp_events
            || !s.captures.is_empty()
            || s.links.iter().any(|l| l.atm.is_some());
        // Traffic directions per link: every flow's data and ACK paths, CBR, transfers (with
        // ECMP, every link a direction may take).
        let mut users = vec![0u32; s.links.len()];
        let ends = s.flows.iter().map(|f| (f.src, f.dst));
        for (a, b) in ends.chain(s.transfers.iter().map(|g| (g.src, g.dst))) {
            for l in s
                .reachable_links(a, b)
                .into_iter()
                .chain(s.reachable_links(b, a))
            {
                users[l.index()] += 1;
            }
        }
        for c in &s.cbr {
            for l in s.reachable_links(c.src, c.dst) {
                users[l.index()] += 1;
            }
        }
        let exclusive_first_link = |from: NodeId, to: NodeId| match s.routes.choices(from, to) {
            &[l] => users[l as usize] == 1 && self.links[l as usize].accepts_early_offers(),
            _ => false,
        };
        s.flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let id = FlowId(i as u32);
                if traced || f.size_bytes.is_some() || f.stop.is_some() {
                    return EarlyEndpoints::default();
                }
                EarlyEndpoints {
                    receiver: !self.fast_tick_flows.contains(&id)
                        && exclusive_first_link(f.dst, f.src),
                    sender: !self.slow_clocks.iter().any(|(_, m)| m.contains(&id))
                        && exclusive_first_link(f.src, f.dst),
                }
            })
            .collect()
    }
}

/// Gives a running discipline the settings of a `queue_params` event, of its own kind (the
/// scenario checked that, and what else must stay).
pub(super) fn reconfigure(qdisc: &mut Qdisc, settings: &QueueDiscipline) {
    match (qdisc, settings) {
        (
            Qdisc::DropTail(q),
            QueueDiscipline::DropTail {
                limit,
                semantics,
                drop_front,
            },
        ) => q.set_config(*limit, *semantics, *drop_front),
        (Qdisc::Red(q), QueueDiscipline::Red(params)) => q.set_params((**params).clone()),
        (
            Qdisc::Codel(q),
            QueueDiscipline::Codel {
                params,
                limit_packets,
            },
        ) => q.set_params(params, *limit_packets),
        (Qdisc::FqCodel(q), QueueDiscipline::FqCodel { params, .. }) => q.set_params(params),
        (
            Qdisc::Pie(q),
            QueueDiscipline::Pie {
                params,
                limit_packets,
            },
        ) => q.set_params((**params).clone(), *limit_packets),
        (Qdisc::FqPie(q), QueueDiscipline::FqPie { params, .. }) => q.set_params(params),
        (_, settings) => unreachable!("new {} settings for another kind", settings.kind_name()),
    }
}

/// A link with its discipline, its random streams and its instruments.
fn build_link(
    l: &ResolvedLink,
    nodes: &[String],
    streams: &StreamFactory,
    flow_monitor: bool,
) -> Link {
    Link::new(LinkConfig {
        rate: l.rate,
        delay: l.delay,
        qdisc: match &l.queue {
            QueueDiscipline::DropTail {
                limit,
                semantics,
                drop_front,
            } => Qdisc::DropTail(DropTail::new(*limit, *semantics, *drop_front)),
            QueueDiscipline::Priority(p) => Qdisc::Priority(Priority::new(
                (p.limits.iter())
                    .map(|&l| DropTail::packets(l, LimitSemantics::Waiting))
                    .collect(),
                Classifier::new(p.class_of.clone(), p.default_class),
            )),
            QueueDiscipline::Cbq(c) => Qdisc::Cbq(Box::new(Cbq::new(
                &c.config,
                Classifier::new(c.class_of.clone(), c.default_class),
            ))),
            QueueDiscipline::Red(params) => Qdisc::Red(Box::new(Red::new(
                (**params).clone(),
                streams.stream(&format!("link/{}/red", l.name(nodes))),
            ))),
            QueueDiscipline::Codel {
                params,
                limit_packets,
            } => Qdisc::Codel(Box::new(Codel::new(params, *limit_packets))),
            QueueDiscipline::FqCodel { params, hash_seed } => {
                let hash_seed = hash_seed.unwrap_or_else(|| {
                    (streams.stream(&format!("link/{}/fq_hash", l.name(nodes)))).next_u64()
                });
                let mut params = (**params).clone();
                params.fq.hash_seed = hash_seed;
                Qdisc::FqCodel(Box::new(FqCodel::new(&params)))
            }
            QueueDiscipline::Pie {
                params,
                limit_packets,
            } => Qdisc::Pie(Box::new(Pie::new(
                (**params).clone(),
                *limit_packets,
                streams.stream(&format!("link/{}/pie", l.name(nodes))),
            ))),
            QueueDiscipline::FqPie { params, hash_seed } => {
                let hash_seed = hash_seed.unwrap_or_else(|| {
                    (streams.stream(&format!("link/{}/fq_hash", l.name(nodes)))).next_u64()
                });
                let mut params = (**params).clone();
                params.fq.hash_seed = hash_seed;
                Qdisc::FqPie(Box::new(FqPie::new(
                    &params,
                    streams.stream(&format!("link/{}/pie", l.name(nodes))),
                )))
            }
        },
        scripted: (l.script.as_ref()).map_or_else(Vec::new, |s| s.scripted.clone()),
        random_loss: (l.random_loss > 0.0).then(|| {
            (
                l.random_loss,
                streams.stream(&format!("link/{}/loss", l.name(nodes))),
            )
        }),
        fifo_fast_path: l.fifo_fast_path,
        capture: l.capture,
        flow_monitor,
        record_sojourns: l.record_sojourns,
    })
}

/// The scenario's TCP connections, with the flows of each slow clock (ticks) and those
/// that need the BSD fast timer.
type BuiltFlows = (Vec<FlowState>, Vec<(SimDuration, Vec<FlowId>)>, Vec<FlowId>);

fn build_flows(scenario: &Scenario, streams: &StreamFactory) -> BuiltFlows {
    let mut slow_clocks: Vec<(SimDuration, Vec<FlowId>)> = Vec::new();
    let mut fast_tick_flows = Vec::new();
    let flows: Vec<FlowState> = scenario
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let id = FlowId(i as u32);
            let tick = f.sender.tick;
            // The ns-2 tick-clock phase, from the flow's own stream (deviation D5).
            let boot_phase = if f.random_boot_phase {
                let mut rng = streams.stream(&format!("tcp/{}/boot_phase", f.name));
                SimDuration::from_ps(rng.below(tick.as_ps()))
            } else {
                SimDuration::ZERO
            };
            if f.sender.timer_mode == TimerMode::Tick {
                match slow_clocks.iter_mut().find(|(p, _)| *p == tick) {
                    Some((_, members)) => members.push(id),
                    None => slow_clocks.push((tick, vec![id])),
                }
            }
            if f.receiver.ack_policy == AckPolicy::DelayedBsd {
                fast_tick_flows.push(id);
            }
            let mut sender = TcpSender::new(f.sender.clone(), boot_phase);
            if Controller::draws_random(f.sender.congestion_control) {
                let mut rng = streams.stream(&format!("tcp/{}/controller", f.name));
                sender.seed_controller(rng.next_u64());
            }
            if scenario.tcp_events {
                sender.enable_trace();
            }
            if f.trace_changes {
                sender.enable_change_trace();
            }
            let jitter = if f.start_jitter.is_zero() {
                SimDuration::ZERO
            } else {
                let mut rng = streams.stream(&format!("flow/{}/start", f.name));
                SimDuration::from_ps(rng.below(f.start_jitter.as_ps()))
            };
            let receiver = TcpReceiver::new(f.receiver.clone());
            FlowState::new(
                sender,
                receiver,
                (f.src, f.dst),
                SimTime::ZERO + f.start + jitter,
            )
        })
        .collect();
    (flows, slow_clocks, fast_tick_flows)
}

/// The CBR sources, each with its stream and, when drawn, its grid's phase.
fn build_cbr(scenario: &Scenario, streams: &StreamFactory) -> Vec<CbrState> {
    scenario
        .cbr
        .iter()
        .map(|c| {
            let mut rng = streams.stream(&format!("cbr/{}", c.name));
            let mut config = c.config.clone();
            if c.random_phase {
                let bits = u64::from(config.packet_bytes) * 8;
                let interval_ps = bits * 1_000_000_000_000 / config.rate.bps();
                config.phase = SimDuration::from_ps(rng.below(interval_ps.max(1)));
            }
            CbrState {
                source: CbrSource::new(config, rng),
                src: c.src,
                dst: c.dst,
                pending_packets: 0,
                next_seq: 0,
                packets_delivered: 0,
                packets_dropped: 0,
                bytes_delivered: 0,
            }
        })
        .collect()
}

/// Per link: whether at most one VC can ever start there and none crosses it, so that its
/// port is one ABR source's alone (`AtmNetwork::set_private_adapters`). Each flow and CBR
/// source opens a VC each way (the reverse one carries the ACKs, or the RM turn-arounds);
/// a transfer group opens a pair per transfer, so its hosts' links are never private.
fn private_adapters(s: &Scenario) -> Vec<bool> {
    let mut starts = vec![0u32; s.links.len()];
    let mut crossed = vec![false; s.links.len()];
    let ends = (s.flows.iter().map(|f| (f.src, f.dst, 1)))
        .chain(s.cbr.iter().map(|c| (c.src, c.dst, 1)))
        .chain(s.transfers.iter().map(|t| (t.src, t.dst, 2)));
    for (src, dst, vcs) in ends {
        for path in [s.path(src, dst), s.path(dst, src)].into_iter().flatten() {
            if let Some((first, rest)) = path.split_first() {
                starts[first.index()] += vcs;
                rest.iter().for_each(|l| crossed[l.index()] = true);
            }
        }
    }
    starts
        .iter()
        .zip(&crossed)
        .map(|(&n, &c)| n == 1 && !c)
        .collect()
}
