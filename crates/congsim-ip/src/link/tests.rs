//! The link's unit tests.
use super::*;
use crate::qdisc::{DropTail, LimitSemantics};
use congsim_core::NodeId;
use congsim_core::wire::TcpHeader;

fn link(limit: u64, forced: Vec<(FlowId, u64, ScriptedAction)>, fast: bool) -> Link {
    Link::new(LinkConfig {
        rate: Rate::from_bps(8_000_000).unwrap(), // 1 byte per microsecond
        delay: SimDuration::from_millis(5),
        qdisc: Qdisc::DropTail(DropTail::packets(limit, LimitSemantics::Waiting)),
        scripted: forced,
        random_loss: None,
        fifo_fast_path: fast,
        capture: false,
        flow_monitor: false,
        record_sojourns: false,
    })
}

fn data(flow: u32, seq: u64) -> Packet {
    let header = TcpHeader::data(seq, 960);
    Packet::tcp_segment(FlowId(flow), NodeId(1), 1000, header)
}

fn us(v: u64) -> SimDuration {
    SimDuration::from_micros(v)
}

/// Offers at `now`, putting an admitted packet into the pipe.
fn offer(l: &mut Link, now: SimTime, mut pkt: Packet) -> Offer {
    let offer = l.offer(now, now, &mut pkt);
    if let Offer::Departs { arrive_at } = offer {
        l.enter_pipe(arrive_at, pkt);
    }
    offer
}

#[test]
fn scheduled_path_serializes_then_propagates_exactly() {
    let mut l = link(10, vec![], false);
    let t0 = SimTime::from_millis(1);
    assert_eq!(
        offer(&mut l, t0, data(0, 0)),
        Offer::StartedTx {
            tx_done_at: t0 + us(1000)
        }
    );
    assert_eq!(offer(&mut l, t0, data(0, 1)), Offer::Queued);
    let done = t0 + us(1000);
    let ((arrive_at, sent), next) = l.complete_tx(done);
    assert_eq!(arrive_at, done + SimDuration::from_millis(5));
    assert_eq!(l.enter_pipe(arrive_at, sent), Some(arrive_at));
    assert_eq!(next, Some(done + us(1000)));
    let (p, following) = l.pop_arrival(done + SimDuration::from_millis(5));
    assert_eq!(p.tcp().unwrap().seq, 0);
    assert_eq!(following, None);
    assert_eq!(l.stats().max_queue_packets, 1);
}

#[test]
fn fast_path_computes_the_same_arrival_times() {
    let mut l = link(10, vec![], true);
    assert!(l.is_fast_path() && l.accepts_early_offers());
    let t0 = SimTime::from_millis(1);
    let first = t0 + us(1000) + SimDuration::from_millis(5);
    assert!(
        matches!(offer(&mut l, t0, data(0, 0)), Offer::Departs { arrive_at, .. } if arrive_at == first)
    );
    assert!(
        matches!(offer(&mut l, t0, data(0, 1)), Offer::Departs { arrive_at, .. } if arrive_at == first + us(1000))
    );
    assert_eq!(l.queue_len_packets(t0), 1);
    // The second starts at exactly 1 ms: at that instant it still counts as waiting.
    assert_eq!(l.queue_len_packets(t0 + us(1000)), 1);
    assert_eq!(
        l.queue_len_packets(t0 + us(1000) + SimDuration::from_ps(1)),
        0
    );
    let (_, next) = l.pop_arrival(first);
    assert_eq!(next, Some(first + us(1000)));
}

#[test]
fn an_early_offer_sees_the_queue_as_it_will_be() {
    let mut l = link(2, vec![], true);
    let t0 = SimTime::ZERO;
    for seq in 0..3 {
        offer(&mut l, t0, data(0, seq)); // one in service until 1 ms, two waiting
    }
    // At 0.5 ms both still wait: full. At 1.5 ms one has started: room for one.
    assert!(matches!(
        l.offer(t0, t0 + us(500), &mut data(0, 9)),
        Offer::Dropped { .. }
    ));
    assert!(matches!(
        l.offer(t0, t0 + us(1500), &mut data(0, 9)),
        Offer::Departs { .. }
    ));
    // The early offer is not counted in the queue before it happens.
    assert_eq!(l.queue_len_packets(t0), 2);
}

#[test]
fn forced_drop_hits_the_kth_data_packet_of_the_flow_only() {
    let mut l = link(100, vec![(FlowId(1), 2, ScriptedAction::Drop)], true);
    let now = SimTime::ZERO;
    let mut dropped = |f, s| {
        matches!(
            offer(&mut l, now, data(f, s)),
            Offer::Dropped {
                reason: DropReason::Scripted
            }
        )
    };
    assert!(!dropped(0, 0));
    assert!(!dropped(0, 1));
    assert!(!dropped(1, 0));
    assert!(dropped(1, 1));
    assert!(!dropped(1, 1), "only once");
    assert_eq!(l.stats().drops_scripted, 1);
}

/// An offer that finds no packet waiting reads the fields before the counters of queued
/// packets: keep them in the first three cache lines of a line-aligned link (see `Link`).
#[test]
fn an_offer_to_an_idle_link_touches_three_cache_lines() {
    use std::mem::{align_of, offset_of};
    assert_eq!(align_of::<Link>(), 64);
    let hot_end = offset_of!(Link, stats) + offset_of!(Counters, max_queue_packets);
    assert!(hot_end <= 3 * 64, "hot fields end at byte {hot_end}");
    // The fast path's waiting room is the service's only data: its tag sits in a niche.
    assert_eq!(size_of::<Service>(), size_of::<FifoQueue>());
    let fifo_read_end = offset_of!(Link, service) + offset_of!(FifoQueue, admitted_bytes);
    for end in [
        offset_of!(Link, instruments) + 8,
        offset_of!(Link, delay) + 8,
        offset_of!(Link, clock) + size_of::<SerializationClock>(),
        offset_of!(Link, pipe) + size_of::<VecDeque<InFlight>>(),
        fifo_read_end,
    ] {
        assert!(
            end <= offset_of!(Link, stats),
            "hot field after the counters"
        );
    }
    // Four lines: a fast-path link holds none of the scheduled path's state and discipline,
    // and the counters of what instruments do are kept in them.
    assert_eq!(size_of::<Link>(), 4 * 64);
}

#[test]
fn scripted_mark_sets_ce_on_ect_packets_and_drops_the_others() {
    let mark = ScriptedAction::Mark;
    let mut l = link(100, vec![(FlowId(0), 1, mark), (FlowId(1), 1, mark)], true);
    let now = SimTime::ZERO;
    let mut capable = data(0, 0);
    capable.ecn.ect = true;
    assert!(matches!(
        l.offer(now, now, &mut capable),
        Offer::Departs { .. }
    ));
    assert!(capable.ecn.ce, "marked instead of dropped");
    assert!(matches!(
        offer(&mut l, now, data(1, 0)),
        Offer::Dropped {
            reason: DropReason::Scripted
        }
    ));
    assert_eq!((l.stats().marks, l.stats().drops_scripted), (1, 1));
}

#[test]
fn mean_queue_is_the_same_on_both_paths() {
    for fast in [false, true] {
        let mut l = link(10, vec![], fast);
        offer(&mut l, SimTime::ZERO, data(0, 0)); // in service until 1 ms
        offer(&mut l, SimTime::ZERO, data(0, 1)); // waits 1 ms
        offer(&mut l, SimTime::ZERO, data(0, 2)); // waits 2 ms
        if !fast {
            let (_, next) = l.complete_tx(SimTime::from_millis(1));
            let (_, next) = l.complete_tx(next.unwrap());
            l.complete_tx(next.unwrap());
        }
        // 3 ms of waiting over 4 ms.
        assert!(
            (l.mean_queue_packets(SimTime::from_millis(4)) - 0.75).abs() < 1e-12,
            "fast={fast}"
        );
    }
    // Measured at 1.5 ms, only 1 + 1.5 ms of waiting has happened.
    let mut l = link(10, vec![], true);
    for seq in 0..3 {
        offer(&mut l, SimTime::ZERO, data(0, seq));
    }
    assert!((l.mean_queue_packets(SimTime::from_millis(1) + us(500)) - 2.5 / 1.5).abs() < 1e-12);
}
