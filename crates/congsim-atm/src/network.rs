//! The ATM network: ports joined into virtual-circuit paths, AAL5 at both ends (spec `atm.md`
//! §2–5).
//!
//! A datagram handed to [`AtmNetwork::send`] becomes a frame of cells. On a UBR network they are
//! offered at once, in order, to the first port of the VC (the host adapter); on an ABR network
//! they wait in the VC's ABR source, which paces them at its allowed cell rate with RM cells
//! among them ([`crate::abr`]).
//!
//! A cell that leaves a port either propagates in the link's pipe until an event brings it to
//! the next port or, when the next port is fed by this link alone, is offered there at once,
//! ahead of time (an exact shortcut: nothing else can reach that port in between). On a UBR
//! network a cell admitted by the last port of its path is reassembled at once, since nothing
//! can change its fate any more, and a frame that completes is delivered by an event at its
//! EOM's arrival time; so a cell costs one event at each port that merges traffic and none
//! elsewhere. ABR feedback depends on when cells pass, so on an ABR network every hop between
//! switches is an event; only a data cell's arrival at its destination is taken early as on
//! UBR, and a source whose host adapter is its alone sends the cells no feedback can reach in
//! time ahead, each at its own time ([`AtmNetwork::source_wake`]).
//!
//! Backward RM cells ride the reverse VC's path but speak for their owner: at each switch on
//! the way, the port that carries the owner forward writes its feedback into them.

use crate::aal5::{Cell, Reassembled, Reassembler, RmCells, Segmenter};
use crate::abr::{AbrDestination, AbrParams, AbrSource, AbrStats, Emitted};
use crate::erica::IntervalRecord;
use crate::port::{Port, PortConfig, PortStats};
use congsim_core::rng::RngStream;
use congsim_core::time::SimTime;
use congsim_core::wire::Packet;
use std::collections::VecDeque;

/// A virtual circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VcId(pub u32);

/// What the caller must schedule for the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AtmEvent {
    /// The head of port `.0`'s pipe reaches the next port: call [`AtmNetwork::pipe_head`].
    PipeHead(u32),
    /// A frame of VC `.0` reaches its destination: call [`AtmNetwork::take_delivery`].
    Deliver(VcId),
    /// VC `.0`'s ABR source may send: call [`AtmNetwork::source_wake`].
    SourceWake(VcId),
    /// A backward RM cell with CI reached VC `.0`'s source: the hook for BCN-TCP (spec
    /// `atm.md` §2.4), for the caller to pass to the transport above.
    CongestionIndication(VcId),
}

/// Per-VC frame counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VcStats {
    pub frames_sent: u64,
    pub cells_sent: u64,
    /// Cells admitted by the last port of the path (they reach the destination).
    pub cells_delivered: u64,
    pub frames_delivered: u64,
    /// EOMs that closed an accumulation that was not one whole frame.
    pub frames_corrupted: u64,
    /// The ABR source's counters, on an ABR network.
    pub abr: Option<AbrStats>,
}

/// The hop index a cell in a pipe carries when its next stop is the destination host.
const AT_DESTINATION: u16 = u16::MAX;

#[derive(Debug)]
struct Vc {
    /// Port indices from the source host's adapter to the last switch port.
    path: Vec<u32>,
    /// `feedback[k]`: the port that carries the reverse VC forward out of the node hop `k`
    /// leaves (it writes feedback into the reverse VC's backward RM cells riding this VC).
    feedback: Vec<Option<u32>>,
    reverse: Option<u32>,
    segmenter: Segmenter<Packet>,
    reassembler: Reassembler,
    /// Frames reassembled whose delivery event is pending, oldest first.
    deliveries: VecDeque<Packet>,
    source: Option<AbrSource>,
    destination: AbrDestination,
    /// The source's pending wake-up.
    wake: Option<SimTime>,
    stats: VcStats,
}

/// The ABR service of a network: every VC is an ABR connection with these source parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct AbrService {
    pub params: AbrParams,
    /// Seed 003's UNI buffer in front of each source, in datagram bytes (`None`: unbounded).
    pub uni_buffer_bytes: Option<u64>,
}

#[derive(Debug)]
pub struct AtmNetwork {
    /// Indexed like the caller's links; `None` for links that are not ATM.
    ports: Vec<Option<Port>>,
    /// `fed_by_one_link[p]`: every cell reaching port `p` comes through the same upstream link
    /// (no VC starts at `p`), so offers to `p` may be made ahead of time.
    fed_by_one_link: Vec<bool>,
    vcs: Vec<Option<Vc>>,
    /// The RM fields of the RM cells in flight.
    rm_cells: RmCells,
    scheduled: Vec<(SimTime, AtmEvent)>,
    /// The end of the run: cells that would reach a port after it stay in the pipe, so that
    /// offering ahead of time changes no counter.
    horizon: SimTime,
    abr: Option<AbrService>,
    /// On an ABR network, a data cell reaches its destination host as soon as the last port
    /// admits it, as every cell does on a UBR network, instead of in an event at its arrival:
    /// the destination only reassembles data cells (its delivery is an event at the arrival
    /// time) and keeps their EFCI bit, which no switch here sets, so only RM cells, which it
    /// turns around, need their own event (one event fewer per data cell: a quarter of an ABR
    /// network's). Off with hop fusion, so that the shortcut tests compare both.
    early_data_cells: bool,
    /// Per port: one VC alone can ever start there and none crosses it, so the port may take
    /// that VC's ABR source's cells ahead of time (see [`Self::send_ahead`]). The caller knows
    /// every VC the run can open; none by default.
    private_adapter: Vec<bool>,
}

impl AtmNetwork {
    /// `ports[i]` configures link `i` if it is an ATM link; `fed_by_one_link[i]` says whether
    /// one upstream link feeds it (see the field); the run ends at `horizon`; with `abr` every
    /// VC is an ABR connection; `shortcuts` lets ABR data cells reach their destination early
    /// (see `early_data_cells`).
    pub fn new(
        ports: Vec<Option<PortConfig>>,
        fed_by_one_link: Vec<bool>,
        horizon: SimTime,
        abr: Option<AbrService>,
        shortcuts: bool,
    ) -> Self {
        assert_eq!(ports.len(), fed_by_one_link.len(), "one entry per link");
        let ubr = abr.is_none();
        let private_adapter = vec![false; ports.len()];
        Self {
            ports: ports
                .into_iter()
                .map(|c| c.map(|c| Port::new(c, horizon)))
                .collect(),
            fed_by_one_link: fed_by_one_link.into_iter().map(|f| f && ubr).collect(),
            vcs: Vec::new(),
            rm_cells: RmCells::default(),
            scheduled: Vec::new(),
            horizon,
            abr,
            early_data_cells: shortcuts,
            private_adapter,
        }
    }

    /// Makes the cells arriving within one cell time at link `link`'s port draw for its
    /// buffer's last free place (deviation D25).
    pub fn set_contention(&mut self, link: usize, rng: RngStream) {
        if let Some(port) = self.ports.get_mut(link).and_then(Option::as_mut) {
            port.set_contention(rng);
        }
    }

    /// Says which ports are a host adapter that at most one VC can ever start at and none
    /// crosses (see `private_adapter`), one entry per link.
    pub fn set_private_adapters(&mut self, private: Vec<bool>) {
        assert_eq!(private.len(), self.ports.len(), "one entry per link");
        self.private_adapter = private;
    }

    /// `true` if link `i` is an ATM link.
    pub fn is_atm(&self, link: usize) -> bool {
        self.ports.get(link).is_some_and(Option::is_some)
    }

    pub fn has_vc(&self, vc: VcId) -> bool {
        self.vcs.get(vc.0 as usize).is_some_and(Option::is_some)
    }

    /// Sets up `vc` along `path` (the links from its source host to its destination host), and
    /// `reverse` (the VC back, with its own path) when given. `nodes_left[k]` is the node the
    /// `k`-th link of a path leaves, for each of the two paths. A `greedy` ABR source always has
    /// data (for switch tests without TCP).
    pub fn open_vc(
        &mut self,
        vc: VcId,
        path: Vec<u32>,
        reverse: Option<(VcId, Vec<u32>)>,
        greedy: bool,
    ) {
        for (id, p) in std::iter::once((vc, &path)).chain(reverse.iter().map(|(r, p)| (*r, p))) {
            assert!(
                p.iter().all(|&l| self.is_atm(l as usize)),
                "a VC runs over ATM links only"
            );
            let i = id.0 as usize;
            if i >= self.vcs.len() {
                self.vcs.resize_with(i + 1, || None);
            }
            let source = self.abr.as_ref().map(|a| {
                AbrSource::new(
                    id.0,
                    a.params.clone(),
                    greedy && id == vc,
                    a.uni_buffer_bytes,
                )
            });
            self.vcs[i] = Some(Vc {
                path: p.clone(),
                feedback: vec![None; p.len()],
                reverse: None,
                segmenter: Segmenter::default(),
                reassembler: Reassembler::default(),
                deliveries: VecDeque::new(),
                source,
                destination: AbrDestination::default(),
                wake: None,
                stats: VcStats::default(),
            });
        }
        if let Some((r, _)) = reverse {
            self.vcs[vc.0 as usize].as_mut().expect("opened").reverse = Some(r.0);
            self.vcs[r.0 as usize].as_mut().expect("opened").reverse = Some(vc.0);
        }
        if greedy {
            self.wake_source(SimTime::ZERO, vc.0);
        }
    }

    /// Tells VC `vc` which port writes feedback into the reverse VC's backward RM cells at each
    /// of its hops: at hop `k`, the port that carries the reverse VC forward out of the node hop
    /// `k` leaves. Ports without a switch algorithm are left out.
    pub fn set_feedback_ports(&mut self, vc: VcId, ports: Vec<Option<u32>>) {
        let ports = ports
            .into_iter()
            .map(|p| {
                p.filter(|&p| {
                    self.ports[p as usize]
                        .as_ref()
                        .is_some_and(Port::has_switch)
                })
            })
            .collect();
        self.vcs[vc.0 as usize]
            .as_mut()
            .expect("an open VC")
            .feedback = ports;
    }

    /// The host hands `pkt` to VC `vc` at `now`: its cells enter the host adapter, or the ABR
    /// source's queue.
    pub fn send(&mut self, now: SimTime, vc: VcId, pkt: Packet) {
        let v = self.vcs[vc.0 as usize].as_mut().expect("an open VC");
        v.stats.frames_sent += 1;
        let bytes = u64::from(pkt.size_bytes);
        let frame = v.segmenter.segment(vc.0, pkt.size_bytes, pkt);
        let n_cells = u64::from(frame.cell_count());
        if let Some(source) = &mut v.source {
            // A datagram the UNI buffer refuses is lost; reassembly skips its frame number.
            if source.push_frame(bytes, frame) {
                v.stats.cells_sent += n_cells;
            }
            self.wake_source(now, vc.0);
            return;
        }
        v.stats.cells_sent += n_cells;
        // A port that takes every cell (a host's adapter) sends the frame's cells back to back;
        // when they wait in its pipe for a port that merges traffic, they enter it as one burst.
        let first = v.path[0] as usize;
        let next = v.path.get(1).map(|&p| p as usize);
        let port = self.ports[first].as_mut().expect("an ATM port");
        match next {
            Some(next) if !self.fed_by_one_link[next] && port.takes_every_cell() => {
                if let Some(head) = port.offer_frame(now, frame, 1) {
                    self.scheduled
                        .push((head, AtmEvent::PipeHead(first as u32)));
                }
            }
            _ => frame.iter().for_each(|cell| self.forward(now, cell, 0)),
        }
    }

    /// Schedules VC `vc`'s source for its next opportunity, unless an earlier wake-up is
    /// pending.
    fn wake_source(&mut self, now: SimTime, vc: u32) {
        let v = self.vcs[vc as usize].as_mut().expect("an open VC");
        let Some(next) = v.source.as_ref().and_then(|s| s.next_opportunity(now)) else {
            return;
        };
        if next < self.horizon && v.wake.is_none_or(|w| next < w) {
            v.wake = Some(next);
            self.scheduled.push((next, AtmEvent::SourceWake(VcId(vc))));
        }
    }

    /// VC `vc`'s source wake-up falls due at `now`: it sends what is due, and the data cells
    /// after it that it may send ahead (`send_ahead`).
    pub fn source_wake(&mut self, now: SimTime, vc: VcId) {
        let v = self.vcs[vc.0 as usize].as_mut().expect("an open VC");
        if v.wake != Some(now) {
            return;
        }
        v.wake = None;
        let source = v.source.as_mut().expect("an ABR VC");
        if let Some(emitted) = source.send(now) {
            let cell = match emitted {
                Emitted::Data(cell) => cell,
                Emitted::Rm(rm) => Cell {
                    vc: vc.0,
                    frame: 0,
                    index: 0,
                    eom: false,
                    efci: false,
                    rm: Some(self.rm_cells.insert(rm)),
                },
            };
            self.forward(now, cell, 0);
            let last = self.send_ahead(now, vc.0);
            self.wake_source(last, vc.0);
            return;
        }
        self.wake_source(now, vc.0);
    }

    /// After VC `vc`'s source sent a cell at `now`, sends the data cells that follow at once,
    /// each at its own time, while nothing could change them, and returns when the last went.
    ///
    /// Exact, as hop fusion is (and off with it, so that the shortcut tests compare both):
    /// its host adapter carries this VC alone (the caller said none other can start there or
    /// cross it) and takes every cell, so a cell offered there ahead of time meets only its own
    /// predecessors, still in the pipe (each goes within the adapter link's delay of the one
    /// before, so no wake-up of the pipe moves); the source
    /// only sends data cells that leave data behind, at an unchanged rate (no RM cell, no
    /// turn-around, no out-of-rate cell: `AbrSource::next_is_data_with_more`), so a datagram
    /// the host hands it meanwhile only lengthens its queue (no UNI buffer, whose room depends
    /// on when cells leave); and what could change its rate, a backward RM cell or a forward
    /// one to turn around, reaches the host through the last port of the reverse VC's path, no
    /// earlier than the head of that port's pipe or its delay from now. Every wake-up left to
    /// the event queue, the one after the last cell sent here included, falls strictly before
    /// that, so no such arrival shares its instant either. ATM statistics are read only at the
    /// run's end (the horizon bounds it too), and series, which read ACR, turn shortcuts off.
    fn send_ahead(&mut self, now: SimTime, vc: u32) -> SimTime {
        let v = self.vcs[vc as usize].as_ref().expect("an open VC");
        let adapter = v.path[0] as usize;
        let private = self.private_adapter[adapter]
            && self.ports[adapter]
                .as_ref()
                .is_some_and(Port::takes_every_cell);
        let source = v.source.as_ref().expect("an ABR VC");
        if !self.early_data_cells || !private || source.has_uni_limit() {
            return now;
        }
        let feedback = v.reverse.map_or(SimTime::MAX, |r| {
            let back = self.vcs[r as usize].as_ref().expect("the reverse VC");
            let last = *back.path.last().expect("a path");
            self.ports[last as usize]
                .as_ref()
                .expect("an ATM port")
                .earliest_arrival(now)
        });
        let bound = feedback.min(self.horizon);
        let pipe_delay = self.ports[adapter].as_ref().expect("an ATM port").delay();
        let mut last = now;
        loop {
            let v = self.vcs[vc as usize].as_mut().expect("an open VC");
            let source = v.source.as_mut().expect("an ABR VC");
            let (Some(t), Some(gap)) = (source.next_opportunity(last), source.cell_gap()) else {
                return last;
            };
            if !(t + gap < bound && t < last + pipe_delay && source.next_is_data_with_more(t)) {
                return last;
            }
            let Some(Emitted::Data(cell)) = source.send(t) else {
                unreachable!("a data cell was due");
            };
            self.forward(t, cell, 0);
            last = t;
        }
    }

    /// Offers `cell` to hop `hop` of its path at `at`, and on while the next port is fed by one
    /// link alone.
    fn forward(&mut self, mut at: SimTime, cell: Cell, mut hop: usize) {
        let v = self.vcs[cell.vc as usize].as_ref().expect("an open VC");
        let arrive = loop {
            let p = v.path[hop] as usize;
            if let Some(slot) = cell.rm
                && let Some(f) = v.feedback[hop]
            {
                let rm = self.rm_cells.get_mut(slot);
                if rm.backward {
                    let switch = self.ports[f as usize].as_mut().expect("an ATM port");
                    switch.feedback(at, rm);
                }
            }
            let rm = cell.rm.map(|slot| self.rm_cells.get(slot));
            let port = self.ports[p].as_mut().expect("an ATM port");
            let Some(arrive) = port.offer(at, &cell, rm) else {
                if let Some(slot) = cell.rm {
                    self.rm_cells.remove(slot);
                }
                return;
            };
            hop += 1;
            if hop == v.path.len() {
                let early = cell.rm.is_none() && self.early_data_cells && arrive < self.horizon;
                if self.abr.is_none() || early {
                    // The destination's turn-arounds read the last data cell's EFCI: taken early,
                    // a cell behind an RM cell could set it first (see `early_data_cells`).
                    debug_assert!(!cell.efci, "early delivery assumes no switch sets EFCI");
                    break arrive;
                }
                if port.push_pipe(arrive, cell, AT_DESTINATION) {
                    self.scheduled.push((arrive, AtmEvent::PipeHead(p as u32)));
                }
                return;
            }
            let next = v.path[hop] as usize;
            if self.fed_by_one_link[next] && arrive < self.horizon {
                at = arrive;
                continue;
            }
            if port.push_pipe(arrive, cell, hop as u16) {
                self.scheduled.push((arrive, AtmEvent::PipeHead(p as u32)));
            }
            return;
        };
        self.arrive(arrive, cell);
    }

    /// `cell` reaches the end of its VC's path at `at` (on a UBR network, as soon as the last
    /// port admits it).
    fn arrive(&mut self, at: SimTime, cell: Cell) {
        let v = self.vcs[cell.vc as usize].as_mut().expect("an open VC");
        if let Some(slot) = cell.rm {
            let rm = self.rm_cells.remove(slot);
            if rm.backward {
                // Home: the owner's source takes its feedback.
                let owner = rm.owner;
                let o = self.vcs[owner as usize].as_mut().expect("the owner VC");
                if let Some(source) = &mut o.source {
                    source.on_backward_rm(at, &rm);
                }
                if rm.ci {
                    self.scheduled
                        .push((at, AtmEvent::CongestionIndication(VcId(owner))));
                }
                self.wake_source(at, owner);
            } else if let Some(reverse) = v.reverse {
                let back = v.destination.turn_around(&rm);
                let r = self.vcs[reverse as usize].as_mut().expect("the reverse VC");
                if let Some(source) = &mut r.source {
                    source.push_turnaround(back);
                }
                self.wake_source(at, reverse);
            }
            return;
        }
        v.destination.on_data(&cell);
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
                self.scheduled.push((at, AtmEvent::Deliver(VcId(cell.vc))));
            }
        }
    }

    /// The head of port `port`'s pipe reaches the next port (or the destination) at `now`; so
    /// do the cells behind it, one after another, while nothing else could happen first: the
    /// caller has no event before `before`, and this call scheduled none that would come first.
    ///
    /// A run of cells handled in one call is exact: each cell is served at once only when its
    /// wake-up would have been the next event anyway: strictly
    /// before `before` (an event already queued at the same instant goes first) and before
    /// everything scheduled ahead of it, and no later than what was scheduled behind it;
    /// otherwise its wake-up is put where it would have been scheduled (in front of what its
    /// predecessor's passage scheduled) and the run stops. Every other event keeps its order,
    /// so a caller that passes `before = now` (no run) gets the same results with one event
    /// per cell.
    pub fn pipe_head(&mut self, mut now: SimTime, port: u32, before: SimTime) {
        // What this call's earlier cells scheduled (and anything pending before it) precedes
        // the next cell's wake-up in the event order.
        let earliest = |events: &[(SimTime, AtmEvent)]| events.iter().map(|&(t, _)| t).min();
        let mut ahead = earliest(&self.scheduled).unwrap_or(SimTime::MAX);
        loop {
            let p = self.ports[port as usize].as_mut().expect("an ATM port");
            let ((cell, hop), next_head) = p.pop_pipe(now);
            // The next head's wake-up belongs here, in front of what this cell schedules; it
            // is put there only if the run stops.
            let wake_at = self.scheduled.len();
            if hop == AT_DESTINATION {
                self.arrive(now, cell);
            } else {
                self.forward(now, cell, usize::from(hop));
            }
            let Some(next) = next_head else {
                return;
            };
            let behind = earliest(&self.scheduled[wake_at..]).unwrap_or(SimTime::MAX);
            let first = next < before && next < ahead && next <= behind;
            if !first {
                self.scheduled
                    .insert(wake_at, (next, AtmEvent::PipeHead(port)));
                return;
            }
            ahead = ahead.min(behind);
            now = next;
        }
    }

    /// The datagram whose delivery event fell due for `vc`.
    pub fn take_delivery(&mut self, vc: VcId) -> Packet {
        self.vcs[vc.0 as usize]
            .as_mut()
            .and_then(|v| v.deliveries.pop_front())
            .expect("a delivery event has its frame")
    }

    /// The events to schedule, in order, taken out of the network.
    pub fn drain_scheduled(&mut self) -> std::vec::Drain<'_, (SimTime, AtmEvent)> {
        self.scheduled.drain(..)
    }

    /// Cells in port `link`'s buffer at `now` (0 for a link that is not ATM).
    pub fn queue_cells(&self, link: usize, now: SimTime) -> u64 {
        self.ports[link].as_ref().map_or(0, |p| p.queue_cells(now))
    }

    /// Port `link`'s counters at `end` (`None` for a link that is not ATM).
    pub fn port_stats(&self, link: usize, end: SimTime) -> Option<PortStats> {
        self.ports[link].as_ref().map(|p| p.stats_at(end))
    }

    /// The counters of every open VC.
    pub fn vc_stats(&self) -> impl Iterator<Item = (VcId, VcStats)> + '_ {
        self.vcs.iter().enumerate().filter_map(|(i, v)| {
            v.as_ref().map(|v| {
                let stats = VcStats {
                    abr: v.source.as_ref().map(|s| s.stats().clone()),
                    ..v.stats.clone()
                };
                (VcId(i as u32), stats)
            })
        })
    }

    /// Every ABR source's allowed cell rate (cells/s), by VC, on an ABR network.
    pub fn abr_sources(&self) -> impl Iterator<Item = (VcId, f64)> + '_ {
        self.vcs.iter().enumerate().filter_map(|(i, v)| {
            let source = v.as_ref()?.source.as_ref()?;
            Some((VcId(i as u32), source.acr()))
        })
    }

    /// ERICA's last closed averaging interval at port `link` (`None` without ERICA there).
    pub fn erica_interval(&self, link: usize) -> Option<IntervalRecord> {
        self.ports.get(link)?.as_ref()?.erica_interval()
    }

    /// The ABR source's allowed cell rate of `vc` (cells/s), on an ABR network.
    pub fn acr(&self, vc: VcId) -> Option<f64> {
        self.vcs
            .get(vc.0 as usize)?
            .as_ref()?
            .source
            .as_ref()
            .map(AbrSource::acr)
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
                switch: None,
                vbr: None,
            })
        };
        let mut ports: Vec<Option<PortConfig>> = (0..n).map(|_| port(None)).collect();
        ports.push(port(Some(capacity)));
        ports.push(port(None));
        let mut fed_by_one = vec![false; n + 1];
        fed_by_one.push(true);
        let mut net = AtmNetwork::new(ports, fed_by_one, SimTime::MAX, None, true);
        for i in 0..n {
            net.open_vc(
                VcId(i as u32),
                vec![i as u32, n as u32, n as u32 + 1],
                None,
                false,
            );
        }
        net
    }

    fn datagram(seq: u64) -> Packet {
        Packet::tcp_segment(FlowId(0), NodeId(9), 552, TcpHeader::data(seq, 512))
    }

    /// A caller's event loop: the network's pending events in (time, order) order.
    #[derive(Default)]
    struct Events {
        heap: BinaryHeap<Reverse<(SimTime, u64, AtmEvent)>>,
        order: u64,
        /// Let a pipe pass its cells on while nothing else is due (else one event a cell).
        runs: bool,
        handled: u64,
    }

    impl Events {
        /// Runs the events due before `until`; returns the deliveries as (time, VC, seq).
        fn run_until(&mut self, net: &mut AtmNetwork, until: SimTime) -> Vec<(SimTime, u32, u64)> {
            let mut delivered = Vec::new();
            loop {
                for (t, e) in net.drain_scheduled() {
                    self.order += 1;
                    self.heap.push(Reverse((t, self.order, e)));
                }
                match self.heap.peek() {
                    Some(Reverse((t, ..))) if *t < until => {}
                    _ => return delivered,
                }
                let Reverse((t, _, event)) = self.heap.pop().expect("peeked");
                self.handled += 1;
                match event {
                    AtmEvent::PipeHead(p) => {
                        // The caller's sends at `until` come after everything before it.
                        let next = self.heap.peek().map_or(until, |Reverse(e)| e.0.min(until));
                        net.pipe_head(t, p, if self.runs { next } else { t });
                    }
                    AtmEvent::SourceWake(vc) => net.source_wake(t, vc),
                    AtmEvent::CongestionIndication(_) => {}
                    AtmEvent::Deliver(vc) => {
                        let pkt = net.take_delivery(vc);
                        delivered.push((t, vc.0, pkt.tcp().unwrap().seq));
                    }
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
        for policy in UbrPolicy::every_kind(0.9, 0.8) {
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
            let vcs: Vec<VcStats> = net.vc_stats().map(|(_, s)| s).collect();
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

    #[test]
    fn passing_a_pipes_cells_on_in_one_event_changes_nothing() {
        // Random frame sizes and send times from 2 to 6 sources into a small buffer: every
        // delivery and every counter is the same with runs of cells as with one event a cell.
        let mut rng = congsim_core::rng::StreamFactory::new(7, 0).stream("runs-test");
        for _ in 0..20 {
            let n = 2 + rng.below(5) as usize;
            let capacity = 20 + rng.below(200);
            let policy = UbrPolicy::every_kind(0.8, 0.8)[rng.below(4) as usize];
            let sends: Vec<(SimTime, u32, u32)> = (0..200)
                .scan(0, |at, _| {
                    *at += rng.below(30_000_000);
                    let bytes = 40 + rng.below(1460) as u32;
                    Some((SimTime::from_ps(*at), rng.below(n as u64) as u32, bytes))
                })
                .collect();
            let outcome = |runs: bool| {
                let mut net = n_source(n, capacity, policy);
                let mut events = Events {
                    runs,
                    ..Events::default()
                };
                let mut delivered = Vec::new();
                for (seq, &(at, vc, bytes)) in sends.iter().enumerate() {
                    delivered.extend(events.run_until(&mut net, at));
                    let mut pkt = datagram(seq as u64);
                    pkt.size_bytes = bytes;
                    net.send(at, VcId(vc), pkt);
                }
                delivered.extend(events.run_until(&mut net, SimTime::MAX));
                let ports: Vec<PortStats> = (0..n + 2)
                    .map(|l| net.port_stats(l, SimTime::MAX).expect("a port"))
                    .collect();
                let vcs: Vec<(VcId, VcStats)> = net.vc_stats().collect();
                (delivered, ports, vcs, events.handled)
            };
            let (runs, each_cell) = (outcome(true), outcome(false));
            assert!(runs.0 == each_cell.0, "deliveries differ");
            assert!(runs.1 == each_cell.1, "port counters differ");
            assert!(runs.2 == each_cell.2, "VC counters differ");
            assert!(runs.3 < each_cell.3, "{} vs {} events", runs.3, each_cell.3);
        }
    }
}
