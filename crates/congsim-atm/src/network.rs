//! The ATM network: ports joined into virtual-circuit paths, AAL5 at both ends (spec `atm.md`
//! §2–3).
//!
//! A datagram handed to [`AtmNetwork::send`] becomes a frame of cells offered, at once and in
//! order, to the first port of its VC (the host adapter). A cell that leaves a port either
//! propagates in the link's pipe until an event brings it to the next port or, when the next
//! port is fed by this link alone, is offered there at once, ahead of time (an exact shortcut:
//! nothing else can reach that port in between). A cell admitted by the last port of its path is
//! reassembled at once, since nothing can change its fate any more; a frame that completes is
//! delivered by an event at its EOM's arrival time. So a cell costs one event at each port that
//! merges traffic and none elsewhere.

use crate::aal5::{Cell, Reassembled, Reassembler, Segmenter};
use crate::port::{Port, PortConfig, PortStats};
use congsim_core::time::SimTime;
use congsim_core::wire::Packet;
use std::collections::VecDeque;

/// A virtual circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VcId(pub u32);

/// What the caller must schedule for the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtmEvent {
    /// The head of port `.0`'s pipe reaches the next port: call [`AtmNetwork::pipe_head`].
    PipeHead(u32),
    /// A frame of VC `.0` reaches its destination: call [`AtmNetwork::take_delivery`].
    Deliver(VcId),
}

/// Per-VC frame counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VcStats {
    pub frames_sent: u64,
    pub cells_sent: u64,
    /// Cells admitted by the last port of the path (they reach the destination).
    pub cells_delivered: u64,
    pub frames_delivered: u64,
    /// EOMs that closed an accumulation that was not one whole frame.
    pub frames_corrupted: u64,
}

#[derive(Debug)]
struct Vc {
    /// Port indices from the source host's adapter to the last switch port.
    path: Vec<u32>,
    segmenter: Segmenter<Packet>,
    reassembler: Reassembler,
    /// Frames reassembled whose delivery event is pending, oldest first.
    deliveries: VecDeque<Packet>,
    stats: VcStats,
}

#[derive(Debug)]
pub struct AtmNetwork {
    /// Indexed like the caller's links; `None` for links that are not ATM.
    ports: Vec<Option<Port>>,
    /// `fed_by_one_link[p]`: every cell reaching port `p` comes through the same upstream link
    /// (no VC starts at `p`), so offers to `p` may be made ahead of time.
    fed_by_one_link: Vec<bool>,
    vcs: Vec<Option<Vc>>,
    scheduled: Vec<(SimTime, AtmEvent)>,
    /// The end of the run: cells that would reach a port after it stay in the pipe, so that
    /// offering ahead of time changes no counter.
    horizon: SimTime,
}

impl AtmNetwork {
    /// `ports[i]` configures link `i` if it is an ATM link; `fed_by_one_link[i]` says whether
    /// one upstream link feeds it (see the field); the run ends at `horizon`.
    pub fn new(
        ports: Vec<Option<PortConfig>>,
        fed_by_one_link: Vec<bool>,
        horizon: SimTime,
    ) -> Self {
        assert_eq!(ports.len(), fed_by_one_link.len(), "one entry per link");
        Self {
            ports: ports.into_iter().map(|c| c.map(Port::new)).collect(),
            fed_by_one_link,
            vcs: Vec::new(),
            scheduled: Vec::new(),
            horizon,
        }
    }

    /// `true` if link `i` is an ATM link.
    pub fn is_atm(&self, link: usize) -> bool {
        self.ports.get(link).is_some_and(Option::is_some)
    }

    pub fn has_vc(&self, vc: VcId) -> bool {
        self.vcs.get(vc.0 as usize).is_some_and(Option::is_some)
    }

    /// Sets up `vc` along `path`, the links from the source host to the destination host.
    pub fn open_vc(&mut self, vc: VcId, path: Vec<u32>) {
        assert!(
            path.iter().all(|&p| self.is_atm(p as usize)),
            "a VC runs over ATM links only"
        );
        let i = vc.0 as usize;
        if i >= self.vcs.len() {
            self.vcs.resize_with(i + 1, || None);
        }
        self.vcs[i] = Some(Vc {
            path,
            segmenter: Segmenter::default(),
            reassembler: Reassembler::default(),
            deliveries: VecDeque::new(),
            stats: VcStats::default(),
        });
    }

    /// The host hands `pkt` to VC `vc` at `now`: its cells enter the host adapter.
    pub fn send(&mut self, now: SimTime, vc: VcId, pkt: Packet) {
        let v = self.vcs[vc.0 as usize].as_mut().expect("an open VC");
        v.stats.frames_sent += 1;
        let cells = v.segmenter.segment(vc.0, pkt.size_bytes, pkt);
        for cell in cells {
            self.vcs[vc.0 as usize]
                .as_mut()
                .expect("an open VC")
                .stats
                .cells_sent += 1;
            self.forward(now, cell, 0);
        }
    }

    /// Offers `cell` to hop `hop` of its path at `at`, and on while the next port is fed by one
    /// link alone.
    fn forward(&mut self, mut at: SimTime, cell: Cell, mut hop: usize) {
        let v = self.vcs[cell.vc as usize].as_mut().expect("an open VC");
        loop {
            let p = v.path[hop] as usize;
            let port = self.ports[p].as_mut().expect("an ATM port");
            let Some(arrive) = port.offer(at, &cell) else {
                return;
            };
            let Some(&next) = v.path.get(hop + 1) else {
                v.stats.cells_delivered += 1;
                match v.reassembler.push(&cell) {
                    None => {}
                    Some(Reassembled::Corrupted) => v.stats.frames_corrupted += 1,
                    Some(Reassembled::Frame(frame)) => {
                        let pkt = v
                            .segmenter
                            .take(frame)
                            .expect("a reassembled frame was sent");
                        v.stats.frames_delivered += 1;
                        v.deliveries.push_back(pkt);
                        self.scheduled
                            .push((arrive, AtmEvent::Deliver(VcId(cell.vc))));
                    }
                }
                return;
            };
            hop += 1;
            if self.fed_by_one_link[next as usize] && arrive < self.horizon {
                at = arrive;
                continue;
            }
            if port.push_pipe(arrive, cell, hop as u16) {
                self.scheduled.push((arrive, AtmEvent::PipeHead(p as u32)));
            }
            return;
        }
    }

    /// The head of port `port`'s pipe reaches the next port at `now`.
    pub fn pipe_head(&mut self, now: SimTime, port: u32) {
        let p = self.ports[port as usize].as_mut().expect("an ATM port");
        let ((cell, hop), next_head) = p.pop_pipe(now);
        if let Some(t) = next_head {
            self.scheduled.push((t, AtmEvent::PipeHead(port)));
        }
        self.forward(now, cell, usize::from(hop));
    }

    /// The datagram whose delivery event fell due for `vc`.
    pub fn take_delivery(&mut self, vc: VcId) -> Packet {
        self.vcs[vc.0 as usize]
            .as_mut()
            .and_then(|v| v.deliveries.pop_front())
            .expect("a delivery event has its frame")
    }

    /// Moves the events to schedule into `out` (left empty here).
    pub fn drain_scheduled(&mut self, out: &mut Vec<(SimTime, AtmEvent)>) {
        out.append(&mut self.scheduled);
    }

    /// Port `link`'s counters at `end` (`None` for a link that is not ATM).
    pub fn port_stats(&self, link: usize, end: SimTime) -> Option<PortStats> {
        self.ports[link].as_ref().map(|p| p.stats_at(end))
    }

    /// The counters of every open VC.
    pub fn vc_stats(&self) -> impl Iterator<Item = (VcId, &VcStats)> {
        self.vcs
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_ref().map(|v| (VcId(i as u32), &v.stats)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aal5::cells_for;
    use crate::ubr::UbrPolicy;
    use congsim_core::time::SimDuration;
    use congsim_core::units::Rate;
    use congsim_core::wire::TcpHeader;
    use congsim_core::{FlowId, NodeId};
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    const OC3: Rate = Rate::from_bps(155_520_000).expect("a positive rate");

    /// Hosts 0..n each on their own link into switch 1 (links 0..n), the bottleneck to switch
    /// 2 (link n, `capacity` cells under `policy`), and one link on to the destination host
    /// (link n + 1, fed by the bottleneck alone). VC i runs from host i.
    fn n_source(n: usize, capacity: u64, policy: UbrPolicy) -> AtmNetwork {
        let port = |capacity_cells| {
            Some(PortConfig {
                rate: OC3,
                delay: SimDuration::from_micros(5),
                capacity_cells,
                policy,
                ppd_after_overflow: policy.default_ppd_after_overflow(),
            })
        };
        let mut ports: Vec<Option<PortConfig>> = (0..n).map(|_| port(None)).collect();
        ports.push(port(Some(capacity)));
        ports.push(port(None));
        let mut fed_by_one = vec![false; n + 1];
        fed_by_one.push(true);
        let mut net = AtmNetwork::new(ports, fed_by_one, SimTime::MAX);
        for i in 0..n {
            net.open_vc(VcId(i as u32), vec![i as u32, n as u32, n as u32 + 1]);
        }
        net
    }

    fn datagram(seq: u64) -> Packet {
        Packet::tcp_segment(FlowId(0), NodeId(9), 552, TcpHeader::data(seq, 512))
    }

    /// A caller's event loop: the network's pending events in (time, order) order.
    #[derive(Default)]
    struct Events {
        heap: BinaryHeap<Reverse<(SimTime, u64, bool, u32)>>,
        order: u64,
        due: Vec<(SimTime, AtmEvent)>,
    }

    impl Events {
        /// Runs the events due before `until`; returns the deliveries as (time, VC, seq).
        fn run_until(&mut self, net: &mut AtmNetwork, until: SimTime) -> Vec<(SimTime, u32, u64)> {
            let mut delivered = Vec::new();
            loop {
                net.drain_scheduled(&mut self.due);
                for (t, e) in self.due.drain(..) {
                    self.order += 1;
                    let (is_delivery, id) = match e {
                        AtmEvent::PipeHead(p) => (false, p),
                        AtmEvent::Deliver(vc) => (true, vc.0),
                    };
                    self.heap.push(Reverse((t, self.order, is_delivery, id)));
                }
                match self.heap.peek() {
                    Some(Reverse((t, ..))) if *t < until => {}
                    _ => return delivered,
                }
                let Reverse((t, _, is_delivery, id)) = self.heap.pop().expect("peeked");
                if is_delivery {
                    let pkt = net.take_delivery(VcId(id));
                    delivered.push((t, id, pkt.tcp().unwrap().seq));
                } else {
                    net.pipe_head(t, id);
                }
            }
        }
    }

    #[test]
    fn an_uncongested_path_delivers_every_frame_at_the_exact_time() {
        let mut net = n_source(1, 1000, UbrPolicy::TailDrop);
        net.send(SimTime::ZERO, VcId(0), datagram(0));
        let delivered = Events::default().run_until(&mut net, SimTime::MAX);
        // 12 cells back to back on the first link (12 cell times), then the last cell is one
        // cell time behind on each of the two further links: 14 cell times of 2.7263374 us,
        // plus 3 × 5 us of propagation.
        let cell_ps: f64 = 424.0e12 / 155.52e6;
        let expected = (14.0 * cell_ps).round() as u64 + 15_000_000;
        assert_eq!(delivered.len(), 1);
        assert!(
            delivered[0].0.as_ps().abs_diff(expected) <= 2,
            "{delivered:?}"
        );
    }

    #[test]
    fn cells_and_frames_balance_under_congestion() {
        for policy in [
            UbrPolicy::TailDrop,
            UbrPolicy::Epd { threshold: 0.9 },
            UbrPolicy::SelectiveDrop {
                threshold: 0.9,
                z: 0.8,
            },
            UbrPolicy::Fba {
                threshold: 0.9,
                z: 0.8,
            },
        ] {
            // Five hosts each send a frame every 40 us (14.7 cell times; staggered by 7 us) into a
            // 100-cell bottleneck buffer: four times what it can carry.
            let mut net = n_source(5, 100, policy);
            let mut events = Events::default();
            let mut delivered = Vec::new();
            for seq in 0..20 {
                for vc in 0..5 {
                    let at = SimTime::from_ps((seq * 40 + u64::from(vc) * 7) * 1_000_000);
                    delivered.extend(events.run_until(&mut net, at));
                    net.send(at, VcId(vc), datagram(seq));
                }
            }
            delivered.extend(events.run_until(&mut net, SimTime::MAX));
            let bottleneck = net.port_stats(5, SimTime::MAX).unwrap();
            let vcs: Vec<VcStats> = net.vc_stats().map(|(_, s)| s.clone()).collect();
            let sum = |f: fn(&VcStats) -> u64| vcs.iter().map(f).sum::<u64>();
            assert_eq!(sum(|s| s.cells_sent), 5 * 20 * u64::from(cells_for(552)));
            assert_eq!(bottleneck.cells_in, sum(|s| s.cells_sent), "{policy:?}");
            assert_eq!(
                bottleneck.cells_in,
                sum(|s| s.cells_delivered) + bottleneck.cells_dropped(),
                "{policy:?}"
            );
            assert_eq!(bottleneck.cells_queued, 0);
            // Every frame not discarded whole and whose EOM survived closes one reassembly,
            // delivered or corrupted.
            assert_eq!(sum(|s| s.frames_delivered), delivered.len() as u64);
            assert_eq!(
                sum(|s| s.frames_sent) - bottleneck.frames_discarded - bottleneck.eoms_dropped,
                sum(|s| s.frames_delivered) + sum(|s| s.frames_corrupted),
                "{policy:?}"
            );
            assert!(
                sum(|s| s.frames_delivered)
                    <= sum(|s| s.frames_sent)
                        - bottleneck.frames_discarded
                        - bottleneck.frames_damaged
            );
            assert!(bottleneck.max_queue_cells <= 100);
            // Frames of one VC arrive in order.
            for vc in 0..5 {
                let seqs: Vec<u64> = delivered
                    .iter()
                    .filter(|d| d.1 == vc)
                    .map(|d| d.2)
                    .collect();
                assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
            }
            if policy == UbrPolicy::TailDrop {
                // Tail drop carries the remains of damaged frames; the frame-aware policies
                // waste no cell on a frame they have damaged.
                assert!(sum(|s| s.frames_corrupted) > 0);
            } else {
                assert!(bottleneck.frames_discarded > 0, "{policy:?}");
            }
        }
    }
}
