//! Sender rules with literal numbers: the caller plays the network, ACK by ACK.

use congsim_core::time::{SimDuration, SimTime};
use congsim_core::wire::TcpHeader;
use congsim_tcp::config::{BcnReaction, MarkResponse, TahoeResume};
use congsim_tcp::{Profile, SenderConfig, TcpSender, TimerMode, Variant};

fn ms(v: u64) -> SimTime {
    SimTime::from_millis(v)
}

/// Sequence numbers (and transmission counts) of the segments sent since the last call.
fn sent(s: &mut TcpSender) -> Vec<(u64, u16)> {
    let mut out = Vec::new();
    s.drain_transmit(&mut out);
    out.iter()
        .map(|seg| (seg.header.seq, u16::from(seg.retransmission)))
        .collect()
}

fn ack(s: &mut TcpSender, t: SimTime, next_expected: u64) {
    s.on_ack(t, &TcpHeader::ack(next_expected, 0));
}

fn bsd_ack(s: &mut TcpSender, t: SimTime, segments: u64) {
    s.on_ack(t, &TcpHeader::ack(512 * segments, 65_535));
}

/// An ns-2 sender in slow start, driven to cwnd 8 with p7..p14 outstanding.
fn ns2_at_cwnd_8(variant: Variant, tweak: impl FnOnce(&mut SenderConfig)) -> TcpSender {
    let mut cfg = SenderConfig {
        rwnd: 100,
        ..Profile::Ns2_2000.sender(variant)
    };
    tweak(&mut cfg);
    let mut s = TcpSender::new(cfg, SimDuration::ZERO);
    s.start(ms(0), None);
    assert_eq!(sent(&mut s), [(0, 0)]);
    for k in 1..=7 {
        ack(&mut s, ms(10 * k), k);
    }
    assert_eq!(
        s.cwnd_segments(),
        8.0,
        "one increment per new ACK in slow start"
    );
    let all: Vec<u64> = sent(&mut s).iter().map(|(q, _)| *q).collect();
    assert_eq!(all, (1..=14).collect::<Vec<_>>());
    s
}

/// A BSD sender (exact timer for brevity) driven to cwnd 8 segments, segments 7..14 out.
fn bsd_at_cwnd_8(variant: Variant) -> TcpSender {
    let cfg = SenderConfig {
        timer_mode: TimerMode::Exact,
        ..Profile::Bsd.sender(variant)
    };
    let mut s = TcpSender::new(cfg, SimDuration::ZERO);
    s.start(ms(0), None);
    for k in 1..=7u64 {
        bsd_ack(&mut s, ms(10 * k), k);
    }
    assert_eq!(s.cwnd_segments(), 8.0);
    sent(&mut s);
    s
}

#[test]
fn reno_halves_and_inflates_on_three_duplicate_acks() {
    let mut s = ns2_at_cwnd_8(Variant::Reno, |_| {});
    ack(&mut s, ms(100), 7);
    ack(&mut s, ms(101), 7);
    assert!(
        sent(&mut s).is_empty(),
        "no sending on the first two duplicates"
    );
    ack(&mut s, ms(102), 7);
    assert_eq!(
        sent(&mut s),
        [(7, 1)],
        "fast retransmit of the first unacknowledged packet"
    );
    assert_eq!((s.cwnd_segments(), s.ssthresh_segments()), (4.0, 4.0));
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.stats().fast_recoveries, 1);
    ack(&mut s, ms(103), 7); // dupwnd 4: limit 6 + 8 = 14
    assert!(sent(&mut s).is_empty());
    ack(&mut s, ms(104), 7); // dupwnd 5: limit 15
    assert_eq!(
        sent(&mut s),
        [(15, 0)],
        "window inflation releases new data"
    );
    ack(&mut s, ms(120), 15);
    assert!(!s.in_fast_recovery());
    assert_eq!(s.ssthresh_segments(), 4.0);
    assert_eq!(
        s.cwnd_segments(),
        4.25,
        "deflated to ssthresh, then one CA increment"
    );
    assert_eq!(sent(&mut s), [(16, 0), (17, 0), (18, 0)]);
}

#[test]
fn reno_guard_blocks_a_second_fast_retransmit_in_the_same_window() {
    let mut s = ns2_at_cwnd_8(Variant::Reno, |_| {});
    for t in 100..103 {
        ack(&mut s, ms(t), 7);
    }
    sent(&mut s);
    // A partial ACK (7 retransmitted, 9 still missing) ends fast recovery …
    ack(&mut s, ms(120), 9);
    sent(&mut s);
    // … and three more duplicates of it do not trigger another fast retransmit.
    for t in 121..124 {
        ack(&mut s, ms(t), 9);
    }
    assert!(
        sent(&mut s).iter().all(|&(_, tx)| tx == 0),
        "no retransmission"
    );
    assert_eq!(s.stats().fast_retransmits, 1);
}

#[test]
fn tahoe_goes_back_to_one_segment_and_slow_start() {
    let mut s = ns2_at_cwnd_8(Variant::Tahoe, |_| {});
    for t in 100..103 {
        ack(&mut s, ms(t), 7);
    }
    assert_eq!(sent(&mut s), [(7, 1)]);
    assert_eq!((s.cwnd_segments(), s.ssthresh_segments()), (1.0, 4.0));
    assert_eq!(s.stats().fast_recoveries, 0, "Tahoe has no fast recovery");
    ack(&mut s, ms(103), 7);
    ack(&mut s, ms(104), 7);
    assert!(sent(&mut s).is_empty(), "no inflation");
    ack(&mut s, ms(120), 15);
    assert_eq!(s.cwnd_segments(), 2.0);
    assert_eq!(sent(&mut s), [(15, 0), (16, 0)]);
}

#[test]
fn bsd_tahoe_restores_snd_nxt_after_the_single_retransmission() {
    let mut s = bsd_at_cwnd_8(Variant::Tahoe);
    assert_eq!(s.config().tahoe_resume, TahoeResume::Restore);
    for t in 100..103 {
        bsd_ack(&mut s, ms(t), 7);
    }
    assert_eq!(sent(&mut s), [(512 * 7, 1)]);
    assert_eq!(s.cwnd_segments(), 1.0);
    bsd_ack(&mut s, ms(120), 15);
    // cwnd 2 segments from snd_una = 15: segments 15 and 16 are new data.
    assert_eq!(sent(&mut s), [(512 * 15, 0), (512 * 16, 0)]);
}

#[test]
fn bsd_reno_inflates_cwnd_itself_and_deflates_after_more_than_three_dupacks() {
    let mut s = bsd_at_cwnd_8(Variant::Reno);
    for t in 100..103 {
        bsd_ack(&mut s, ms(t), 7);
    }
    assert_eq!(sent(&mut s), [(512 * 7, 1)]);
    // cwnd was 8 segments: ssthresh 4, cwnd = ssthresh + 3.
    assert_eq!((s.ssthresh_segments(), s.cwnd_segments()), (4.0, 7.0));
    bsd_ack(&mut s, ms(103), 7);
    assert_eq!(s.cwnd_segments(), 8.0);
    bsd_ack(&mut s, ms(120), 15);
    // Deflated to ssthresh (2048 B); BSD grows in slow start while cwnd <= ssthresh: + 1 MSS.
    assert_eq!(s.cwnd_segments() * 512.0, 2560.0);
    bsd_ack(&mut s, ms(130), 16);
    // Now above ssthresh: 2560 + 512*512/2560 = 2662 bytes (integer division).
    assert_eq!(s.cwnd_segments() * 512.0, 2662.0);
}

#[test]
fn no_fast_retransmit_waits_for_the_timeout_then_goes_back_n() {
    let mut s = ns2_at_cwnd_8(Variant::Reno, |c| c.fast_retransmit = false);
    for t in 100..110 {
        ack(&mut s, ms(t), 7);
    }
    assert!(sent(&mut s).is_empty());
    assert_eq!(s.stats().fast_retransmits, 0);
    let deadline = s.next_timeout().expect("timer armed");
    s.on_timeout(deadline);
    assert_eq!(
        sent(&mut s),
        [(7, 1)],
        "cwnd 1: only the first hole goes out"
    );
    assert_eq!(s.stats().timeouts, 1);
    ack(&mut s, deadline + SimDuration::from_millis(20), 8);
    assert_eq!(
        sent(&mut s),
        [(8, 1), (9, 1)],
        "go-back-N resends what the receiver may hold"
    );
}

#[test]
fn timeout_backs_off_the_initial_rto() {
    let mut s = TcpSender::new(Profile::Ns2_2000.sender(Variant::Reno), SimDuration::ZERO);
    s.start(ms(0), None);
    sent(&mut s);
    assert_eq!(s.next_timeout(), Some(SimTime::from_secs(6)));
    s.on_timeout(SimTime::from_secs(5));
    assert!(sent(&mut s).is_empty(), "a stale wake-up does nothing");
    s.on_timeout(SimTime::from_secs(6));
    assert_eq!(sent(&mut s), [(0, 1)]);
    assert_eq!(
        s.next_timeout(),
        Some(SimTime::from_secs(18)),
        "6 s doubled"
    );
    assert_eq!((s.cwnd_segments(), s.ssthresh_segments()), (1.0, 2.0));
    assert_eq!(s.stats().timeouts, 1);
}

#[test]
fn ns2_rtt_samples_count_tick_boundaries_crossed() {
    let mut s = TcpSender::new(Profile::Ns2_2000.sender(Variant::Reno), SimDuration::ZERO);
    s.start(ms(50), Some(2000));
    sent(&mut s);
    // Sent at 50 ms, ACKed at 260 ms: boundaries at 100 and 200 ms → m = 2 ticks → RTO 3m.
    ack(&mut s, ms(260), 1);
    assert_eq!(s.rto(), SimDuration::from_millis(600));
    assert_eq!(s.stats().rtt_samples, 1);
    // Nothing was outstanding after the ACK: the timer is re-armed by the next send, with the
    // new RTO.
    assert_eq!(
        s.next_timeout(),
        Some(ms(260) + SimDuration::from_millis(600))
    );
}

#[test]
fn bsd_tick_timer_fires_on_the_nth_boundary_after_arming() {
    let mut s = TcpSender::new(Profile::Bsd.sender(Variant::Reno), SimDuration::ZERO);
    s.start(ms(300), None);
    assert_eq!(sent(&mut s).len(), 1);
    assert_eq!(
        s.next_timeout(),
        None,
        "tick mode needs no wake-ups of its own"
    );
    // 6 s initial RTO = 12 ticks of 500 ms: boundaries at 0.5, 1.0, …; the 12th is at 6.0 s.
    for k in 1..12 {
        s.on_slow_tick(ms(500 * k));
        assert!(sent(&mut s).is_empty(), "fired early at tick {k}");
    }
    s.on_slow_tick(ms(6000));
    assert_eq!(sent(&mut s), [(0, 1)]);
    assert_eq!(s.stats().timeouts, 1);
}

#[test]
fn bsd_rtt_is_measured_in_slow_ticks() {
    let mut s = TcpSender::new(Profile::Bsd.sender(Variant::Reno), SimDuration::ZERO);
    s.start(ms(300), None);
    sent(&mut s);
    s.on_slow_tick(ms(500));
    s.on_slow_tick(ms(1000));
    bsd_ack(&mut s, ms(1200), 1);
    // t_rtt counted 1 → 2 → 3: first sample m = 3 ticks: srtt 3, rttvar 1.5 → RTO 9 ticks.
    assert_eq!(s.rto(), SimDuration::from_millis(4500));
}

#[test]
fn newreno_repairs_each_hole_on_a_partial_ack_and_leaves_recovery_on_the_full_ack() {
    // p7 and p9 lost from the window p7..p14.
    let mut s = ns2_at_cwnd_8(Variant::NewReno, |_| {});
    for t in 100..103 {
        ack(&mut s, ms(t), 7);
    }
    assert_eq!(sent(&mut s), [(7, 1)]);
    assert_eq!((s.cwnd_segments(), s.ssthresh_segments()), (4.0, 4.0));
    ack(&mut s, ms(103), 7); // dupwnd 4: limit 6 + 8 = 14
    ack(&mut s, ms(104), 7); // dupwnd 5: limit 15
    assert_eq!(sent(&mut s), [(15, 0)]);
    // The retransmitted p7 fills the first hole; p8 was held: ACK 9 is partial (recover = 14).
    ack(&mut s, ms(120), 9);
    assert_eq!(
        sent(&mut s),
        [(9, 1)],
        "the next hole is retransmitted at once"
    );
    assert!(s.in_fast_recovery());
    assert_eq!(s.stats().partial_acks, 1);
    assert_eq!(s.cwnd_segments(), 4.0, "no growth on a partial ACK");
    // The full ACK (through p15) ends recovery: deflated to ssthresh, one CA increment.
    ack(&mut s, ms(140), 16);
    assert!(!s.in_fast_recovery());
    assert_eq!(s.cwnd_segments(), 4.25);
    assert_eq!(sent(&mut s), [(16, 0), (17, 0), (18, 0), (19, 0)]);
    assert_eq!(
        (
            s.stats().timeouts,
            s.stats().fast_retransmits,
            s.stats().retx_partial_ack
        ),
        (0, 1, 1)
    );
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_duplicates() {
    let mut s = ns2_at_cwnd_8(Variant::Reno, |c| c.limited_transmit = true);
    ack(&mut s, ms(100), 7);
    assert_eq!(
        sent(&mut s),
        [(15, 0)],
        "highest_ack 6 + cwnd 8 + 1 dupack allows p15"
    );
    ack(&mut s, ms(101), 7);
    assert_eq!(sent(&mut s), [(16, 0)]);
    ack(&mut s, ms(102), 7);
    assert_eq!(
        sent(&mut s),
        [(7, 1)],
        "the third duplicate is a fast retransmit"
    );
    assert_eq!(s.stats().limited_transmit_sends, 2);
}

fn ece_ack(s: &mut TcpSender, t: SimTime, next_expected: u64) {
    let mut h = TcpHeader::ack(next_expected, 0);
    h.flags.ece = true;
    s.on_ack(t, &h);
}

/// All segments sent since the last call: `(seq, ECT, CWR)`.
fn sent_flags(s: &mut TcpSender) -> Vec<(u64, bool, bool)> {
    let mut out = Vec::new();
    s.drain_transmit(&mut out);
    out.iter()
        .map(|seg| (seg.header.seq, seg.ect, seg.header.flags.cwr))
        .collect()
}

#[test]
fn ecn_halves_once_per_window_without_retransmitting() {
    let mut s = ns2_at_cwnd_8(Variant::Reno, |c| c.mark_response = MarkResponse::Ecn);
    // p7 was marked: its ACK (next expected 8) carries ECE.
    ece_ack(&mut s, ms(100), 8);
    assert_eq!((s.cwnd_segments(), s.ssthresh_segments()), (4.0, 4.0));
    assert_eq!(s.stats().ecn_responses, 1);
    // More echoes from the same window change nothing.
    ece_ack(&mut s, ms(101), 9);
    ece_ack(&mut s, ms(102), 10);
    assert_eq!(s.stats().ecn_responses, 1);
    assert_eq!(
        s.cwnd_segments(),
        4.0,
        "ACKs echoing a mark do not open the window"
    );
    assert!(sent(&mut s).is_empty(), "cwnd 4 from 10: nothing new yet");
    // Nothing was retransmitted; the first new segment after the cut carries CWR, all new
    // data is ECN-capable.
    ack(&mut s, ms(103), 11);
    ack(&mut s, ms(104), 12);
    let out = sent_flags(&mut s);
    assert!(!out.is_empty() && out.iter().all(|&(seq, ect, _)| seq >= 15 && ect));
    assert!(out[0].2 && out[1..].iter().all(|&(_, _, cwr)| !cwr));
    assert_eq!(s.stats().retx_pkts, 0);
    // Once the window sent before the cut is acknowledged, a new echo cuts again.
    ack(&mut s, ms(200), 15);
    ece_ack(&mut s, ms(201), 16);
    assert_eq!(s.stats().ecn_responses, 2);
}

#[test]
fn a_fast_retransmit_in_the_window_ecn_cut_does_not_cut_again() {
    let mut s = ns2_at_cwnd_8(Variant::Reno, |c| c.mark_response = MarkResponse::Ecn);
    ece_ack(&mut s, ms(100), 7);
    assert_eq!(s.cwnd_segments(), 4.0);
    sent(&mut s);
    for t in 101..104 {
        ack(&mut s, ms(t), 7);
    }
    assert_eq!(sent(&mut s), [(7, 1)], "the loss is repaired");
    assert_eq!(s.ssthresh_segments(), 4.0, "not halved a second time");
    assert_eq!(s.stats().cwnd_cuts, 1);
    assert_eq!(s.stats().fast_retransmits, 1);
}

#[test]
fn bcn_scales_the_window_per_marked_ack() {
    let bcn = |reaction| MarkResponse::Bcn {
        decrease_factor: 0.975,
        reaction,
    };
    let mut s = ns2_at_cwnd_8(Variant::Reno, |c| {
        c.mark_response = bcn(BcnReaction::PerMarkedAck)
    });
    ece_ack(&mut s, ms(100), 8);
    //= tcp.md §4.7: cwnd = max(1, cwnd · MDF); ssthresh = max(2, floor(cwnd))
    assert!((s.cwnd_segments() - 8.0 * 0.975).abs() < 1e-12);
    assert_eq!(s.ssthresh_segments(), 7.0);
    ece_ack(&mut s, ms(101), 9);
    // Each marked ACK scales again; it does not also open the window.
    assert!((s.cwnd_segments() - 8.0 * 0.975 * 0.975).abs() < 1e-12);
    ack(&mut s, ms(102), 10);
    assert!(s.cwnd_segments() > 8.0 * 0.975 * 0.975, "unmarked ACKs do");
    assert_eq!(s.stats().bcn_responses, 2);
    assert_eq!(s.stats().retx_pkts, 0);

    let mut once = ns2_at_cwnd_8(Variant::Reno, |c| {
        c.mark_response = bcn(BcnReaction::OncePerRtt)
    });
    ece_ack(&mut once, ms(100), 8);
    ece_ack(&mut once, ms(101), 9);
    assert_eq!(once.stats().bcn_responses, 1, "once per round trip");
}

#[test]
fn calhoun_cuts_once_per_round_trip_and_grows_a_segment_per_two_clean_round_trips() {
    let mut s = ns2_at_cwnd_8(Variant::Reno, |c| {
        c.mark_response = MarkResponse::Bcn {
            decrease_factor: 0.625,
            reaction: BcnReaction::Calhoun,
        }
    });
    ece_ack(&mut s, ms(100), 8);
    ece_ack(&mut s, ms(101), 9);
    assert_eq!(s.stats().bcn_responses, 1, "once per round trip");
    assert_eq!((s.cwnd_segments(), s.ssthresh_segments()), (5.0, 5.0));
    // Unmarked ACKs, one segment at a time, keep the pipe full for about eight round trips of
    // five or six segments: per-ACK growth would add about one segment per round trip (to
    // about 12); Calhoun's adds whole segments, one per two clean round trips.
    sent(&mut s);
    let mut seen = Vec::new();
    for k in 0..45 {
        ack(&mut s, ms(110 + k), 10 + k);
        seen.push(s.cwnd_segments());
        sent(&mut s);
    }
    assert!(seen.iter().all(|c| c.fract() == 0.0), "{seen:?}");
    let last = *seen.last().expect("ACKs were sent");
    assert!((7.0..=9.0).contains(&last), "{seen:?}");
    assert_eq!(s.stats().bcn_responses, 1);
}

const RFC_MSS: u64 = 1460;

fn rfc_ack(s: &mut TcpSender, t: SimTime, segments: u64) {
    s.on_ack(t, &TcpHeader::ack(RFC_MSS * segments, 1_048_576));
}

/// Segment indices sent since the last call: `(segment, retransmission)`.
fn rfc_sent(s: &mut TcpSender) -> Vec<(u64, u16)> {
    sent(s)
        .into_iter()
        .map(|(seq, r)| (seq / RFC_MSS, r))
        .collect()
}

/// RFC 3042's motivating case in byte mode (rfc profile): an initial window of 3 segments and
/// the first lost leaves two duplicate ACKs. Limited Transmit sends a new segment on each; their
/// ACKs make the third duplicate. Without it the sender waits for the 1 s timeout.
#[test]
fn rfc3042_limited_transmit_turns_a_timeout_into_a_fast_retransmit() {
    for limited_transmit in [true, false] {
        let cfg = SenderConfig {
            limited_transmit,
            ..Profile::Rfc.sender(Variant::Reno)
        };
        let mut s = TcpSender::new(cfg, SimDuration::ZERO);
        s.start(ms(0), None);
        assert_eq!(
            rfc_sent(&mut s),
            [(0, 0), (1, 0), (2, 0)],
            "IW = 3 segments"
        );
        rfc_ack(&mut s, ms(50), 0);
        rfc_ack(&mut s, ms(51), 0);
        if !limited_transmit {
            assert!(rfc_sent(&mut s).is_empty());
            s.on_timeout(ms(1000));
            assert_eq!(s.stats().timeouts, 1);
            continue;
        }
        assert_eq!(
            rfc_sent(&mut s),
            [(3, 0), (4, 0)],
            "one new segment per duplicate"
        );
        assert_eq!(s.cwnd_segments(), 3.0, "cwnd unchanged");
        rfc_ack(&mut s, ms(60), 0);
        assert_eq!(rfc_sent(&mut s), [(0, 1)], "fast retransmit");
        //= RFC 5681 (4): ssthresh = max(FlightSize / 2, 2 SMSS), FlightSize without the two
        //= Limited Transmit segments: max(3 / 2, 2) = 2 segments
        assert_eq!(s.ssthresh_segments(), 2.0);
        assert_eq!(s.cwnd_segments(), 5.0, "ssthresh + 3 segments");
        assert_eq!(s.stats().limited_transmit_sends, 2);
    }
}

/// RFC 6582 NewReno in byte mode: two holes in one window are repaired on the partial ACK
/// without leaving recovery, and the window is deflated by what the partial ACK covered.
#[test]
fn rfc6582_partial_ack_retransmits_the_next_hole_and_deflates() {
    let cfg = SenderConfig {
        limited_transmit: false,
        ..Profile::Rfc.sender(Variant::NewReno)
    };
    let mut s = TcpSender::new(cfg, SimDuration::ZERO);
    s.start(ms(0), None);
    rfc_ack(&mut s, ms(100), 1);
    rfc_ack(&mut s, ms(101), 2);
    assert_eq!(s.cwnd_segments(), 5.0);
    assert_eq!(
        rfc_sent(&mut s),
        [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0)]
    );
    // 2 and 4 are lost: 3, 5 and 6 bring three duplicates of ACK 2.
    for t in 200..203 {
        rfc_ack(&mut s, ms(t), 2);
    }
    assert_eq!(rfc_sent(&mut s), [(2, 1)]);
    let ssthresh = (5 * RFC_MSS / 2) as f64 / RFC_MSS as f64;
    assert_eq!(s.ssthresh_segments(), ssthresh, "half of FlightSize 5");
    assert_eq!(s.cwnd_segments(), ssthresh + 3.0);
    // The partial ACK (2 and 3 now held) resends 4 at once and stays in recovery.
    rfc_ack(&mut s, ms(300), 4);
    assert!(s.in_fast_recovery());
    assert_eq!(s.stats().partial_acks, 1);
    assert_eq!(rfc_sent(&mut s)[0], (4, 1));
    assert_eq!(
        s.cwnd_segments(),
        ssthresh + 3.0 - 2.0 + 1.0,
        "deflated by 2, one back"
    );
    // The ACK covering everything sent before recovery ends it: cwnd = ssthresh, then the
    // usual increment for the ACK.
    rfc_ack(&mut s, ms(400), 7);
    assert!(!s.in_fast_recovery());
    assert_eq!(s.ssthresh_segments(), ssthresh);
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.stats().timeouts, 0);
}

/// Expires the retransmit timer and returns the timeout counters by cause, in the order of
/// `SenderStats::timeout_causes`.
fn time_out(s: &mut TcpSender) -> [u64; 5] {
    let deadline = s.next_timeout().expect("timer armed");
    s.on_timeout(deadline);
    sent(s);
    s.stats().timeout_causes().map(|(_, n)| n)
}

/// Each timeout is filed under what the sender knew when it fired: [repeated, after a fast
/// retransmit, few duplicates, no duplicate, fast retransmit declined].
#[test]
fn timeouts_are_filed_by_cause() {
    // Two duplicates, then the timer: Limited Transmit's case; again with no new ACK: repeated.
    let mut s = ns2_at_cwnd_8(Variant::Reno, |_| {});
    ack(&mut s, ms(100), 7);
    ack(&mut s, ms(101), 7);
    assert_eq!(time_out(&mut s), [0, 0, 1, 0, 0]);
    assert_eq!(time_out(&mut s), [1, 0, 1, 0, 0]);
    assert_eq!(s.stats().timeouts, 2);

    // No duplicate at all: a lost tail.
    let mut s = ns2_at_cwnd_8(Variant::Reno, |_| {});
    assert_eq!(time_out(&mut s), [0, 0, 0, 1, 0]);
    // After it, a new ACK and three duplicates inside the window the timeout began: bugFix_
    // declines the fast retransmit.
    ack(&mut s, ms(2000), 9);
    for t in 2001..2004 {
        ack(&mut s, ms(t), 9);
    }
    assert_eq!(s.stats().fast_retransmits, 0);
    assert_eq!(time_out(&mut s), [0, 0, 0, 1, 1]);

    // A fast retransmit, a partial ACK ends Reno's recovery, and the second hole times out.
    let mut s = ns2_at_cwnd_8(Variant::Reno, |_| {});
    for t in 100..103 {
        ack(&mut s, ms(t), 7);
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    ack(&mut s, ms(150), 10);
    assert_eq!(time_out(&mut s), [0, 1, 0, 0, 0]);
    assert_eq!(s.stats().timeouts, 1);
}
