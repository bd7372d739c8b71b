//! Forwarding: routes, offers to links with hop fusion and early delivery, arrivals at
//! nodes, the ATM network's VCs, and handing TCP output to the network.

use super::*;

impl Simulation<'_> {
    /// Puts `pkt` on the link towards its destination.
    pub(super) fn forward(&mut self, now: SimTime, node: NodeId, pkt: Packet) {
        let link = self.routing.route(node, &pkt);
        if self.atm.as_ref().is_some_and(|a| a.is_atm(link.index())) {
            self.send_atm(now, node, pkt);
            return;
        }
        self.offer(now, now, link, pkt);
    }

    pub(super) fn atm_mut(&mut self) -> &mut AtmNetwork {
        self.atm.as_mut().expect("the scenario has ATM links")
    }

    /// Hands `pkt` from host `node` to its VC: one per flow and direction (`vc_ids`), set up
    /// with its reverse along the routes on first use.
    pub(super) fn send_atm(&mut self, now: SimTime, node: NodeId, pkt: Packet) {
        let (direction, back_direction) = if pkt.tcp().is_some_and(|h| !h.is_data) {
            (VcDirection::Ack, VcDirection::Data)
        } else {
            (VcDirection::Data, VcDirection::Ack)
        };
        let vc = vc_ids::of(pkt.flow, direction);
        if !self.atm_mut().has_vc(vc) {
            let reverse = vc_ids::of(pkt.flow, back_direction);
            let path = self.path(node, pkt.dst).expect("routes were validated");
            // One-way traffic (CBR) may have no way back.
            let back = self.path(pkt.dst, node).unwrap_or_default();
            // A backward RM cell riding one direction gets its feedback from the other
            // direction's port out of the same switch.
            let feedback = |carrier: &[u32], owner: &[u32]| -> Vec<Option<u32>> {
                carrier
                    .iter()
                    .map(|&l| {
                        let from = self.scenario.links[l as usize].from;
                        owner
                            .iter()
                            .copied()
                            .find(|&o| self.scenario.links[o as usize].from == from)
                    })
                    .collect()
            };
            let (fwd_feedback, back_feedback) = (feedback(&path, &back), feedback(&back, &path));
            let atm = self.atm_mut();
            let has_back = !back.is_empty();
            atm.open_vc(vc, path, has_back.then_some((reverse, back)), false);
            atm.set_feedback_ports(vc, fwd_feedback);
            if has_back {
                atm.set_feedback_ports(reverse, back_feedback);
            }
        }
        self.atm_mut().send(now, vc, pkt);
        self.schedule_atm();
    }

    /// The links from `from` to `to` as the ATM network numbers them, if there is a route.
    pub(super) fn path(&self, from: NodeId, to: NodeId) -> Option<Vec<u32>> {
        let links = self.scenario.path(from, to)?;
        Some(links.into_iter().map(|l| l.0).collect())
    }

    /// Schedules the wake-ups the ATM network asked for.
    pub(super) fn schedule_atm(&mut self) {
        let Some(atm) = &mut self.atm else {
            return;
        };
        for (t, e) in atm.drain_scheduled() {
            self.queue.schedule(
                t,
                match e {
                    AtmEvent::PipeHead(port) => Event::AtmPipe(port),
                    AtmEvent::Deliver(vc) => Event::AtmDeliver(vc),
                    AtmEvent::SourceWake(vc) => Event::AtmSource(vc),
                    AtmEvent::CongestionIndication(vc) => Event::AtmCongestion(vc),
                },
            );
        }
    }

    /// Offers `pkt` to `link` at `at` and, while the next hop is fed by this link alone, offers
    /// it on at once (hop fusion: an exact shortcut, see `Link::offer`); the last link of the
    /// chain gets the packet into its pipe.
    pub(super) fn offer(
        &mut self,
        now: SimTime,
        mut at: SimTime,
        mut link: LinkId,
        mut pkt: Packet,
    ) {
        loop {
            match self.links[link.index()].offer(now, at, &mut pkt) {
                Offer::Departs { arrive_at } => {
                    if let Some(next) = self.depart(arrive_at, link, pkt) {
                        (at, link) = (arrive_at, next);
                        continue;
                    }
                }
                Offer::StartedTx { tx_done_at } => {
                    self.queue.schedule(tx_done_at, Event::TxDone(link));
                    self.record_inside_drops(now, link);
                }
                Offer::Queued => {
                    self.schedule_wake(link);
                    self.record_inside_drops(now, link);
                }
                Offer::Dropped { .. } => {
                    self.schedule_wake(link);
                    // `at`, when the packet reached the dropping link (the trace turns hop
                    // fusion off, so that is also `now`).
                    self.record_drop(at, &pkt);
                }
            }
            return;
        }
    }

    /// `pkt` leaves `link` and reaches its far node at `arrive_at`. While the next hop is fed by
    /// this link alone, returns that link, for the caller to offer the packet to at once (hop
    /// fusion); otherwise the packet is delivered early or enters the pipe.
    #[inline(always)]
    fn depart(&mut self, arrive_at: SimTime, link: LinkId, pkt: Packet) -> Option<LinkId> {
        let end = SimTime::ZERO + self.scenario.duration;
        if arrive_at < end
            && let Some(next) = self.routing.fused_next(link, pkt.dst)
        {
            if self.measurement.crosses_boundary(arrive_at) {
                self.measurement.defer(Deferred::Offer {
                    at: arrive_at,
                    link: next,
                    pkt,
                });
                return None;
            }
            return Some(next);
        }
        if self.routing.link_to(link) == pkt.dst
            && self.links[link.index()].pipe_is_empty()
            && self.early_delivery(arrive_at, &pkt)
        {
            if self.measurement.crosses_boundary(arrive_at) {
                (self.measurement).defer(Deferred::Delivery { at: arrive_at, pkt });
            } else {
                self.deliver_early(arrive_at, pkt);
            }
            return None;
        }
        if let Some(head) = self.links[link.index()].enter_pipe(arrive_at, pkt) {
            self.schedule_arrival(head, link);
        }
        None
    }

    /// A packet dropped at a link at `at`: a CBR source's loss, a TCP segment in the trace.
    fn record_drop(&mut self, at: SimTime, pkt: &Packet) {
        let Some(header) = pkt.tcp() else {
            self.cbr[self.connections.ids.cbr(pkt.flow)].packets_dropped += 1;
            return;
        };
        let event = if header.is_data { "drop" } else { "ack_drop" };
        let connections = &self.connections;
        (self.recorders).record_sequence(at, pkt.flow, event, header, || {
            &connections.get(pkt.flow).sender
        });
    }

    /// Records the packets `link`'s discipline dropped from inside its queue at `now` (CoDel,
    /// FQ-CoDel's overflow).
    #[inline]
    pub(super) fn record_inside_drops(&mut self, now: SimTime, link: LinkId) {
        if self.links[link.index()].has_inside_drops() {
            for pkt in self.links[link.index()].take_inside_drops() {
                self.record_drop(now, &pkt);
            }
        }
    }

    /// A segment entering its last pipe at `now` may reach its endpoint at once, at its arrival
    /// time `arrive_at`, when nothing that happens before then can see the difference but the
    /// order of events at one instant (deviation D26): the pipe is empty (a packet still
    /// propagating must arrive first), the endpoint has no timer due by then, what it sends in
    /// reply has a first link to itself (so offers there stay in time order), the run has not
    /// ended by then. One that would cross a measurement boundary waits for it
    /// (`release_deferred`).
    #[inline(always)]
    pub(super) fn early_delivery(&self, arrive_at: SimTime, pkt: &Packet) -> bool {
        let f = pkt.flow.index();
        let (Some(ends), Some(header)) = (self.early_endpoints.get(f), pkt.tcp()) else {
            return false;
        };
        let end = Self::at(self.scenario.duration);
        if self.in_early_delivery || arrive_at >= end {
            return false;
        }
        let due_after = |next: Option<SimTime>| next.is_none_or(|t| t > arrive_at);
        if header.is_data {
            ends.receiver && due_after(self.connections.flows[f].receiver.next_timeout())
        } else {
            ends.sender && due_after(self.connections.flows[f].sender.next_timeout())
        }
    }

    fn deliver_early(&mut self, at: SimTime, pkt: Packet) {
        self.in_early_delivery = true;
        self.arrive(at, pkt.dst, pkt);
        self.in_early_delivery = false;
    }

    /// At a measurement boundary, once its reading is taken: the hop-fusion offers and early
    /// deliveries that would have crossed it, in the order they were made (a link fed by one
    /// link gets its offers in that link's order still).
    pub(super) fn release_deferred(&mut self, now: SimTime) {
        for deferred in self.measurement.release(now) {
            match deferred {
                Deferred::Offer { at, link, pkt } => self.offer(now, at, link, pkt),
                Deferred::Delivery { at, pkt } => self.deliver_early(at, pkt),
            }
        }
    }

    /// The packet at the head of `link`'s pipe reaches the far node at `at`. With
    /// `tie_order = "random"`, arrivals at one instant are ranked by a draw from the link's
    /// stream instead of taken in scheduling order.
    #[inline]
    pub(super) fn schedule_arrival(&mut self, at: SimTime, link: LinkId) {
        if self.tie_streams.is_none() {
            self.queue.schedule(at, Event::LinkArrival(link));
        } else {
            self.schedule_ranked_arrival(at, link);
        }
    }

    #[cold]
    #[inline(never)]
    fn schedule_ranked_arrival(&mut self, at: SimTime, link: LinkId) {
        let streams = self.tie_streams.as_mut().expect("random tie order");
        let rank = streams[link.index()].next_u64() as u32;
        self.queue
            .schedule_ranked(at, rank, Event::LinkArrival(link));
    }

    // Kept out of the event loop: only the scheduled path gets here.
    #[inline(never)]
    pub(super) fn tx_done(&mut self, now: SimTime, link: LinkId) {
        // A link that went down cut this transmission short.
        if self.links_change && !self.links[link.index()].transmission_ends_at(now) {
            return;
        }
        let ((arrive_at, pkt), next) = self.links[link.index()].complete_tx(now);
        // Offered on at once where the next hop is fed by this link alone, as on the fast path.
        if let Some(fused) = self.depart(arrive_at, link, pkt) {
            self.offer(now, arrive_at, fused, pkt);
        }
        if let Some(t) = next {
            self.queue.schedule(t, Event::TxDone(link));
        }
        self.schedule_wake(link);
        self.record_inside_drops(now, link);
    }

    /// Schedules the wake-up a link asked for, if any (CBQ holding packets back).
    pub(super) fn schedule_wake(&mut self, link: LinkId) {
        if let Some(t) = self.links[link.index()].take_wake() {
            self.queue.schedule(t, Event::LinkWake(link));
        }
    }

    pub(super) fn arrive(&mut self, now: SimTime, node: NodeId, pkt: Packet) {
        if node != pkt.dst {
            self.forward(now, node, pkt);
            return;
        }
        let Some(header) = pkt.tcp().copied() else {
            // A CBR datagram reaches its sink.
            let c = &mut self.cbr[self.connections.ids.cbr(pkt.flow)];
            c.packets_delivered += 1;
            c.bytes_delivered += u64::from(pkt.size_bytes);
            return;
        };
        let f = pkt.flow;
        if header.is_data {
            self.receiver(f).on_data(now, &header, pkt.ecn.ce);
            self.flush(now, f, End::Receiver);
        } else {
            self.sender(f).on_ack(now, &header);
            let connections = &self.connections;
            (self.recorders).record_sequence(now, f, "ack", &header, || &connections.get(f).sender);
            self.flush(now, f, End::Sender);
        }
    }

    /// The sender of connection `f`, lent the senders' buffer for its turn: a network of a
    /// million connections holds one send buffer, not one a connection. Every call that may
    /// make it send goes through here, and [`Self::flush`] follows it.
    #[inline]
    pub(super) fn sender(&mut self, f: FlowId) -> &mut TcpSender {
        let sender = &mut self.connections.get_mut(f).sender;
        sender.lend_buffer(&mut self.segments);
        sender
    }

    /// The receiver of connection `f`, lent the receivers' buffer for its turn (as
    /// [`Self::sender`]).
    #[inline]
    pub(super) fn receiver(&mut self, f: FlowId) -> &mut TcpReceiver {
        let receiver = &mut self.connections.get_mut(f).receiver;
        receiver.lend_buffer(&mut self.acks);
        receiver
    }

    /// Sends what one end of connection `f` produced and keeps that end's wake-up scheduled.
    #[inline]
    pub(super) fn flush(&mut self, now: SimTime, f: FlowId, end: End) {
        match end {
            End::Sender => self.flush_end::<SenderEnd>(now, f),
            End::Receiver => self.flush_end::<ReceiverEnd>(now, f),
        }
    }

    /// `flush` compiled once per end, so that the hot path makes no choice per segment. Each
    /// end has its own buffer: a data segment delivered early makes the receiver flush while
    /// the sender's segments are still being sent. The segments come in the buffer lent to the
    /// end for its turn, which goes back to the simulation once they are sent.
    fn flush_end<E: ConnectionEnd>(&mut self, now: SimTime, f: FlowId) {
        let flow = self.connections.get_mut(f);
        let (mut out, next) = E::take(flow);
        let (from, to) = E::ends(flow);
        keep_awake(&mut self.queue, now, next, E::wakeup(flow), E::timer(f));
        for seg in &out {
            E::trace(self, now, f, seg);
            let mut pkt = Packet::tcp_segment(f, to, seg.wire_bytes, seg.header);
            pkt.ecn.ect = seg.ect;
            self.forward(now, from, pkt);
        }
        out.clear();
        *E::buffer(self) = out;
    }
}

/// One end of a connection as the send path sees it: what it sends, from where to where, its
/// wake-up and its timer's event. The sender and the receiver differ only here.
trait ConnectionEnd {
    /// What the end has to send, and when it next wants to be woken.
    fn take(flow: &mut FlowState) -> (Vec<Segment>, Option<SimTime>);
    /// The nodes its packets leave from and go to.
    fn ends(flow: &FlowState) -> (NodeId, NodeId);
    fn wakeup(flow: &mut FlowState) -> &mut Option<SimTime>;
    fn timer(f: FlowId) -> Event;
    /// The buffer lent to it for its turns.
    fn buffer<'s>(sim: &'s mut Simulation<'_>) -> &'s mut Vec<Segment>;
    /// Records a segment it sends in the sequence trace, if it is traced.
    fn trace(sim: &mut Simulation<'_>, now: SimTime, f: FlowId, seg: &Segment);
}

struct SenderEnd;
struct ReceiverEnd;

impl ConnectionEnd for SenderEnd {
    #[inline]
    fn take(flow: &mut FlowState) -> (Vec<Segment>, Option<SimTime>) {
        (flow.sender.take_transmit(), flow.sender.next_timeout())
    }
    #[inline]
    fn ends(flow: &FlowState) -> (NodeId, NodeId) {
        (flow.src, flow.dst)
    }
    #[inline]
    fn wakeup(flow: &mut FlowState) -> &mut Option<SimTime> {
        &mut flow.sender_wakeup
    }
    #[inline]
    fn timer(f: FlowId) -> Event {
        Event::SenderTimer(f)
    }
    #[inline]
    fn buffer<'s>(sim: &'s mut Simulation<'_>) -> &'s mut Vec<Segment> {
        &mut sim.segments
    }
    #[inline]
    fn trace(sim: &mut Simulation<'_>, now: SimTime, f: FlowId, seg: &Segment) {
        let event = if seg.retransmission {
            "retransmit"
        } else {
            "send"
        };
        let connections = &sim.connections;
        (sim.recorders).record_sequence(now, f, event, &seg.header, || &connections.get(f).sender);
    }
}

impl ConnectionEnd for ReceiverEnd {
    #[inline]
    fn take(flow: &mut FlowState) -> (Vec<Segment>, Option<SimTime>) {
        (flow.receiver.take_transmit(), flow.receiver.next_timeout())
    }
    #[inline]
    fn ends(flow: &FlowState) -> (NodeId, NodeId) {
        (flow.dst, flow.src)
    }
    #[inline]
    fn wakeup(flow: &mut FlowState) -> &mut Option<SimTime> {
        &mut flow.receiver_wakeup
    }
    #[inline]
    fn timer(f: FlowId) -> Event {
        Event::ReceiverTimer(f)
    }
    #[inline]
    fn buffer<'s>(sim: &'s mut Simulation<'_>) -> &'s mut Vec<Segment> {
        &mut sim.acks
    }
    #[inline]
    fn trace(_sim: &mut Simulation<'_>, _now: SimTime, _f: FlowId, _seg: &Segment) {}
}
