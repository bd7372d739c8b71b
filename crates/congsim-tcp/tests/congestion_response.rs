//! The congestion response, for every congestion controller and every loss recovery (issue
//! #29): no response leaves cwnd above its value before the response, nor sets ssthresh above
//! the window it cut from.
//!
//! "The window it cut from" is `min(cwnd, rwnd)` (spec §3.4: every ECN response, and every cut
//! in the ns-2 and BSD profiles), `min(cwnd, FlightSize)` where the cut is from the FlightSize
//! (the `rfc` profile, and any RFC 6675 recovery's entry: RFC 5681 (4) asks for "no more than"
//! half the FlightSize, RFC 9438 §4.6 cuts from `flight_size`, Linux from cwnd; deviation D33),
//! and cwnd for BCN-TCP's scaling. So no cut leaves ssthresh above cwnd either. Two
//! things are not raises: the floor every cut keeps (ssthresh at least two segments, RFC 5681
//! (4), RFC 9438 §4.6), so both bounds are at least two segments; and Reno's inflation of the
//! cut window by the `dupthresh` duplicates that triggered the fast retransmit (byte-mode
//! Reno and RFC 6582 put it in cwnd itself).
//!
//! The harness plays a bottleneck: a DropTail FIFO with a fixed service time, optional random
//! loss and, for marking senders, CE marks above half the buffer. With a receiver window far
//! above the path's capacity slow start overshoots and loses a burst, and the recoveries and
//! timeouts that follow are where the FlightSize (it still counts what a SACK receiver holds,
//! and what Reno sent against its inflated window) grows beyond cwnd.

use congsim_core::rng::{RngStream, StreamFactory};
use congsim_core::time::{SimDuration, SimTime};
use congsim_tcp::config::{CongestionEcho, MarkResponse, RenoFlavour, SackSender};
use congsim_tcp::{
    BcnReaction, CongestionControl, Profile, Segment, SenderConfig, SeqMode, TcpReceiver,
    TcpSender, TimerMode, Variant,
};
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The loss recoveries congsim implements, with a profile each runs under.
#[derive(Clone, Copy, Debug)]
struct Recovery {
    profile: Profile,
    variant: Variant,
    reno_flavour: Option<RenoFlavour>,
    sack_sender: Option<SackSender>,
}

const fn recovery(
    profile: Profile,
    variant: Variant,
    reno_flavour: Option<RenoFlavour>,
    sack_sender: Option<SackSender>,
) -> Recovery {
    Recovery {
        profile,
        variant,
        reno_flavour,
        sack_sender,
    }
}

/// Every recovery (Tahoe, Reno in its ns-2, 4.4BSD and RFC 5681 flavours, ns-2 NewReno, RFC
/// 6582, ns-2 Sack1, RFC 6675 and RFC 3517) in every sequence model and window base it runs
/// with: packets and `min(cwnd, rwnd)` (ns-2), bytes and `min(cwnd, rwnd)` (BSD), bytes and
/// the FlightSize (`rfc`).
const RECOVERIES: &[Recovery] = &[
    recovery(Profile::Ns2_2000, Variant::Tahoe, None, None),
    recovery(Profile::Ns2_2000, Variant::Reno, None, None),
    recovery(Profile::Ns2_235, Variant::Reno, None, None),
    recovery(Profile::Ns2_2000, Variant::NewReno, None, None),
    recovery(
        Profile::Ns2_2000,
        Variant::Sack,
        None,
        Some(SackSender::Ns2Sack1),
    ),
    recovery(
        Profile::Ns2_235,
        Variant::Sack,
        None,
        Some(SackSender::Rfc6675),
    ),
    recovery(Profile::Bsd, Variant::Tahoe, None, None),
    recovery(Profile::Bsd, Variant::Reno, Some(RenoFlavour::Bsd), None),
    recovery(
        Profile::Bsd,
        Variant::Reno,
        Some(RenoFlavour::Rfc5681),
        None,
    ),
    recovery(
        Profile::Bsd,
        Variant::NewReno,
        Some(RenoFlavour::Rfc5681),
        None,
    ),
    recovery(Profile::Bsd, Variant::Sack, None, Some(SackSender::Rfc6675)),
    recovery(Profile::Rfc, Variant::Tahoe, None, None),
    recovery(
        Profile::Rfc,
        Variant::Reno,
        Some(RenoFlavour::Rfc5681),
        None,
    ),
    recovery(Profile::Rfc, Variant::Reno, Some(RenoFlavour::Bsd), None),
    recovery(Profile::Rfc, Variant::NewReno, None, None),
    recovery(Profile::Rfc, Variant::Sack, None, Some(SackSender::Rfc6675)),
    recovery(Profile::Rfc, Variant::Sack, None, Some(SackSender::Rfc3517)),
    recovery(Profile::Rfc, Variant::Sack, None, Some(SackSender::Prr)),
];

/// Whether the sender answers congestion marks (and the bottleneck marks).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Marks {
    Off,
    Ecn,
    Bcn,
}

#[derive(Clone, Copy, Debug)]
struct Case {
    recovery: Recovery,
    controller: CongestionControl,
    marks: Marks,
}

fn every_case() -> Vec<Case> {
    let mut all = Vec::new();
    for &recovery in RECOVERIES {
        for &controller in CongestionControl::ALL {
            for marks in [Marks::Off, Marks::Ecn, Marks::Bcn] {
                // BBR v1 answers no marks (a scenario refuses them with BBR).
                if controller == CongestionControl::Bbr && marks != Marks::Off {
                    continue;
                }
                all.push(Case {
                    recovery,
                    controller,
                    marks,
                });
            }
        }
    }
    all
}

/// The network: a bottleneck towards the receiver, a plain delay back.
#[derive(Clone, Copy)]
struct Path {
    /// Bottleneck service time per packet.
    service: SimDuration,
    one_way: SimDuration,
    buffer: usize,
    loss: f64,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Wake {
    ToReceiver,
    ToSender,
    SlowTick,
    FastTick,
}

struct Net {
    path: Path,
    marking: bool,
    events: BinaryHeap<Reverse<(SimTime, u64, Wake, usize)>>,
    packets: Vec<(Segment, bool)>,
    order: u64,
    /// Departure times of the packets in the bottleneck queue.
    queue: VecDeque<SimTime>,
    rng: RngStream,
}

impl Net {
    fn schedule(&mut self, at: SimTime, wake: Wake, index: usize) {
        self.order += 1;
        self.events.push(Reverse((at, self.order, wake, index)));
    }

    fn data(&mut self, now: SimTime, seg: Segment) {
        while self.queue.front().is_some_and(|&d| d <= now) {
            self.queue.pop_front();
        }
        let queued = self.queue.len();
        if queued >= self.path.buffer || self.rng.bernoulli(self.path.loss) {
            return;
        }
        let ce = self.marking && seg.ect && queued >= self.path.buffer / 2;
        let start = self.queue.back().copied().unwrap_or(now).max(now);
        let departure = start + self.path.service;
        self.queue.push_back(departure);
        self.packets.push((seg, ce));
        self.schedule(
            departure + self.path.one_way,
            Wake::ToReceiver,
            self.packets.len() - 1,
        );
    }

    fn ack(&mut self, now: SimTime, seg: Segment) {
        self.packets.push((seg, false));
        self.schedule(
            now + self.path.one_way,
            Wake::ToSender,
            self.packets.len() - 1,
        );
    }
}

/// The sender's state just before an event, as the property needs it.
#[derive(Clone, Copy, Debug)]
struct Before {
    cwnd: f64,
    ssthresh: f64,
    /// Segments sent and not cumulatively acknowledged (the FlightSize, Limited Transmit
    /// segments included: an upper bound of RFC 5681's).
    outstanding: f64,
    cuts: u64,
    fast_retransmits: u64,
    ecn_responses: u64,
    bcn_responses: u64,
    dupacks: u64,
    in_fast_recovery: bool,
}

struct Checker {
    case: Case,
    rwnd_segments: f64,
    dupthresh: f64,
    byte_mode: bool,
    responses: u64,
    violations: Vec<String>,
}

impl Checker {
    fn before(&self, s: &TcpSender, outstanding: u64) -> Before {
        let st = s.stats();
        Before {
            cwnd: s.cwnd_segments(),
            ssthresh: s.ssthresh_segments(),
            outstanding: outstanding as f64,
            cuts: st.cwnd_cuts,
            fast_retransmits: st.fast_retransmits,
            ecn_responses: st.ecn_responses,
            bcn_responses: st.bcn_responses,
            dupacks: st.dupacks_rcvd,
            in_fast_recovery: s.in_fast_recovery(),
        }
    }

    /// The window a response cuts from, by what the response was.
    fn cut_from(&self, b: &Before, s: &TcpSender) -> f64 {
        let st = s.stats();
        let window = b.cwnd.min(self.rwnd_segments);
        if st.bcn_responses > b.bcn_responses {
            return b.cwnd;
        }
        if st.ecn_responses > b.ecn_responses {
            return window;
        }
        // RFC 6675 enters recovery with FlightSize / 2 in every profile (spec §4.4.2).
        let rfc6675_entry = self.case.recovery.variant == Variant::Sack
            && self.case.recovery.sack_sender != Some(SackSender::Ns2Sack1)
            && st.fast_retransmits > b.fast_retransmits;
        if !s.config().ssthresh_from_flight && !rfc6675_entry {
            return window;
        }
        window.min(b.outstanding)
    }

    fn after(&mut self, b: &Before, s: &TcpSender, now: SimTime, event: &str) {
        let st = s.stats();
        if st.cwnd_cuts == b.cuts {
            return;
        }
        self.responses += 1;
        const EPS: f64 = 1e-9;
        // Byte-mode Reno and RFC 6582 inflate the cut window by the duplicates at once, and
        // by one segment per further duplicate in fast recovery (a mark answered on that
        // duplicate cuts before the inflation).
        let inflating = self.byte_mode
            && matches!(self.case.recovery.variant, Variant::Reno | Variant::NewReno);
        let inflation = if inflating && st.fast_retransmits > b.fast_retransmits {
            self.dupthresh
        } else if inflating && b.in_fast_recovery && st.dupacks_rcvd > b.dupacks {
            1.0
        } else {
            0.0
        };
        let cwnd = s.cwnd_segments() - inflation;
        // BBR's cut keeps the window (its unit tests); on the same ACK its model may then
        // raise it (packet conservation, the window restored as PROBE_RTT ends), which is not
        // the response.
        let model_sets_window = self.case.controller == CongestionControl::Bbr;
        if cwnd > b.cwnd.max(2.0) + EPS && !model_sets_window {
            self.violations.push(format!(
                "{:.3} s {event}: cwnd {:.3} -> {:.3} (+{inflation} inflation)",
                now.as_secs_f64(),
                b.cwnd,
                cwnd
            ));
        }
        let ssthresh = s.ssthresh_segments();
        let cut_from = self.cut_from(b, s);
        if ssthresh != b.ssthresh && ssthresh > cut_from.max(2.0) + EPS {
            self.violations.push(format!(
                "{:.3} s {event}: ssthresh {ssthresh:.3} above the window cut from {cut_from:.3} \
                 (cwnd {:.3}, outstanding {})",
                now.as_secs_f64(),
                b.cwnd,
                b.outstanding
            ));
        }
    }
}

fn sender_config(case: &Case) -> (SenderConfig, congsim_tcp::ReceiverConfig) {
    let r = case.recovery;
    let mut cfg = r.profile.sender(r.variant);
    let mut rx = r.profile.receiver(r.variant);
    if let Some(flavour) = r.reno_flavour {
        cfg.reno_flavour = flavour;
    }
    if let Some(sack) = r.sack_sender {
        cfg.sack_sender = sack;
    }
    cfg.congestion_control = case.controller;
    match case.marks {
        Marks::Off => {}
        Marks::Ecn => {
            cfg.mark_response = MarkResponse::Ecn;
            rx.echo = match case.controller {
                CongestionControl::Dctcp => CongestionEcho::Dctcp,
                _ => CongestionEcho::UntilCwr,
            };
        }
        Marks::Bcn => {
            cfg.mark_response = MarkResponse::Bcn {
                decrease_factor: 0.875,
                reaction: BcnReaction::OncePerRtt,
            };
            rx.echo = CongestionEcho::PerPacket;
        }
    }
    match cfg.seq_mode {
        // A receiver window well above the path's capacity: slow start overshoots.
        SeqMode::Packets => cfg.rwnd = 300,
        SeqMode::Bytes => cfg.rwnd = rx.advertised_window(),
    }
    (cfg, rx)
}

/// Runs `case` over `path` for `duration`; returns the number of congestion responses seen
/// and every violation of the property.
fn run(case: Case, path: Path, seed: u64, duration: SimDuration) -> (u64, Vec<String>) {
    let (cfg, rx_cfg) = sender_config(&case);
    let mss = u64::from(cfg.mss);
    let seq_mode = cfg.seq_mode;
    let (tick, timer_mode) = (cfg.tick, cfg.timer_mode);
    let rwnd_segments = match seq_mode {
        SeqMode::Packets => cfg.rwnd as f64,
        SeqMode::Bytes => cfg.rwnd as f64 / mss as f64,
    };
    let mut checker = Checker {
        case,
        rwnd_segments,
        dupthresh: f64::from(cfg.dupthresh),
        byte_mode: seq_mode == SeqMode::Bytes,
        responses: 0,
        violations: Vec::new(),
    };
    let mut sender = TcpSender::new(cfg, SimDuration::ZERO);
    let mut receiver = TcpReceiver::new(rx_cfg);
    let mut net = Net {
        path,
        marking: case.marks != Marks::Off,
        events: BinaryHeap::new(),
        packets: Vec::new(),
        order: 0,
        queue: VecDeque::new(),
        rng: StreamFactory::new(seed, 0).stream("bottleneck"),
    };
    let segment_of = |seq: u64| match seq_mode {
        SeqMode::Packets => seq,
        SeqMode::Bytes => seq / mss,
    };
    let acked_of = |ack: u64| match seq_mode {
        SeqMode::Packets => ack,
        SeqMode::Bytes => ack.div_ceil(mss),
    };
    // The sender's snd_una and snd_max, as the network sees them.
    let (mut una, mut max) = (0u64, 0u64);
    let mut out = Vec::new();
    let mut now = SimTime::ZERO;
    let end = SimTime::ZERO + duration;
    sender.start(now, None);
    if timer_mode == TimerMode::Tick {
        net.schedule(SimTime::ZERO + tick, Wake::SlowTick, 0);
        net.schedule(SimTime::from_millis(200), Wake::FastTick, 0);
    }
    loop {
        sender.drain_transmit(&mut out);
        for seg in out.drain(..) {
            max = max.max(segment_of(seg.header.seq) + 1);
            net.data(now, seg);
        }
        receiver.drain_transmit(&mut out);
        for ack in out.drain(..) {
            net.ack(now, ack);
        }
        let next_timer = [sender.next_timeout(), receiver.next_timeout()]
            .into_iter()
            .flatten()
            .min();
        let next_event = net.events.peek().map(|Reverse((t, ..))| *t);
        let timer_first = next_timer.is_some_and(|t| next_event.is_none_or(|e| t < e));
        if let Some(t) = next_timer.filter(|_| timer_first) {
            now = t;
            if now > end {
                break;
            }
            let before = checker.before(&sender, max - una);
            sender.on_timeout(now);
            checker.after(&before, &sender, now, "timeout");
            receiver.on_timeout(now);
            continue;
        }
        let Some(Reverse((t, _, wake, index))) = net.events.pop() else {
            break;
        };
        now = t;
        if now > end {
            break;
        }
        match wake {
            Wake::ToReceiver => {
                let (seg, ce) = net.packets[index];
                receiver.on_data(now, &seg.header, ce);
            }
            Wake::ToSender => {
                let (ack, _) = net.packets[index];
                let before = checker.before(&sender, max - una);
                sender.on_ack(now, &ack.header);
                checker.after(&before, &sender, now, "ack");
                una = una.max(acked_of(ack.header.ack).min(max));
            }
            Wake::SlowTick => {
                let before = checker.before(&sender, max - una);
                sender.on_slow_tick(now);
                checker.after(&before, &sender, now, "slow tick");
                net.schedule(now + tick, Wake::SlowTick, 0);
            }
            Wake::FastTick => {
                receiver.on_fast_tick();
                net.schedule(now + SimDuration::from_millis(200), Wake::FastTick, 0);
            }
        }
    }
    (checker.responses, checker.violations)
}

/// A bottleneck of `bdp_packets` per round trip of `rtt_ms`, with a buffer of `buffer`.
fn path(bdp_packets: u64, rtt_ms: u64, buffer: usize, loss: f64) -> Path {
    let rtt = SimDuration::from_millis(rtt_ms);
    Path {
        service: SimDuration::from_ps(rtt.as_ps() / bdp_packets),
        one_way: SimDuration::from_ps(rtt.as_ps() / 2),
        buffer,
        loss,
    }
}

fn describe(case: &Case) -> String {
    let r = case.recovery;
    format!(
        "{:?} {:?} {:?} {:?} {:?} marks {:?}",
        case.controller, r.profile, r.variant, r.reno_flavour, r.sack_sender, case.marks
    )
}

#[test]
fn no_congestion_response_raises_cwnd_or_sets_ssthresh_above_the_window_cut_from() {
    let paths = [
        // One BDP of buffer, DropTail only: the slow-start overshoot loses a burst.
        path(60, 40, 60, 0.0),
        // A short buffer with random loss besides: recoveries overlap and time out.
        path(40, 40, 15, 0.02),
    ];
    let mut failures = Vec::new();
    for case in every_case() {
        let mut responses = 0;
        for (i, &p) in paths.iter().enumerate() {
            let (n, violations) = run(case, p, 1 + i as u64, SimDuration::from_secs(30));
            responses += n;
            if let Some(first) = violations.first() {
                failures.push(format!(
                    "{} (path {i}): {} violations, first: {first}",
                    describe(&case),
                    violations.len()
                ));
            }
        }
        assert!(
            responses >= 2,
            "{}: only {responses} responses",
            describe(&case)
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn the_property_holds_over_random_paths(
        case_index in 0usize..1000,
        seed in 0u64..1_000_000,
        bdp in 8u64..120,
        buffer_permille in 100u64..1500,
        loss_permille in 0u32..40,
    ) {
        let all = every_case();
        let case = all[case_index % all.len()];
        let buffer = ((bdp * buffer_permille / 1000) as usize).max(2);
        let p = path(bdp, 30, buffer, f64::from(loss_permille) / 1000.0);
        let (_, violations) = run(case, p, seed, SimDuration::from_secs(20));
        prop_assert!(violations.is_empty(), "{}: {}", describe(&case), violations.join("; "));
    }
}
