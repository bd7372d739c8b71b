//! Conservative SACK-based loss recovery, RFC 6675 (and its predecessor RFC 3517 behind
//! `SackSender::Rfc3517`), spec §4.4.2; with `SackSender::Prr`, cwnd falls to ssthresh during
//! recovery by Proportional Rate Reduction (RFC 6937, `super::prr`) instead of at entry.
//!
//! Sequence numbers here are segment indices: a segment is SACKed or not as a whole, so the
//! RFC's byte rules become segment rules (`IsLost`: at least `dupthresh` SACKed segments above;
//! `cwnd − pipe ≥ 1 SMSS`: `cwnd_segments ≥ pipe + 1`).

use super::prr::Prr;
use super::scoreboard::Scoreboard;
use crate::config::SackSender;
use crate::congestion::{Cause, CutBase};
use crate::sender_core::{CwndAction, SendCause, SenderCore};
use crate::stats::TraceKind;
use crate::window::{AfterCut, WindowChange};
use congsim_core::time::SimTime;
use congsim_core::wire::SackBlocks;

#[derive(Clone, Debug, Default)]
pub(crate) struct Rfc6675 {
    /// What the receiver holds, per outstanding segment.
    scoreboard: Scoreboard,
    /// `SetPipe()` plus the segments sent since.
    pipe: i64,
    /// `HighRxt`, as one past the highest segment retransmitted in this recovery.
    high_rxt_end: u64,
    /// `RescueRxt`, as one past the segment it names.
    rescue_rxt_end: u64,
    /// `RecoveryPoint`, as one past the highest segment sent when recovery began (or when the
    /// last timeout fired); `None` before the first.
    recovery_point: Option<u64>,
    /// PRR's counts, during a recovery with `SackSender::Prr`.
    prr: Option<Prr>,
}

/// `snd_una` and the SACKed segments above it before an ACK, for PRR's `DeliveredData`.
#[derive(Clone, Copy)]
struct Before {
    snd_una: u64,
    sacked: u64,
}

impl Rfc6675 {
    pub(crate) fn pipe(&self) -> i64 {
        self.pipe
    }

    pub(crate) fn on_ack(
        &mut self,
        s: &mut SenderCore,
        now: SimTime,
        ack_seg: u64,
        sack: &SackBlocks,
        classic_duplicate: bool,
    ) {
        let blocks = sack.ranges(ack_seg);
        self.scoreboard.extend_to(s.snd_una, s.snd_max);
        let before = (s.cfg.sack_sender == SackSender::Prr).then(|| Before {
            snd_una: s.snd_una,
            sacked: self.scoreboard.sacked_between(s.snd_una, s.snd_max),
        });
        if ack_seg > s.snd_una {
            let was_recovering = s.in_recovery();
            if was_recovering && self.recovery_point.is_some_and(|p| ack_seg >= p) {
                // (A) The ACK covers RecoveryPoint: recovery is over, cwnd stays at ssthresh.
                s.leave_recovery();
                if s.last_cwnd_action == CwndAction::DupAck {
                    s.last_cwnd_action = CwndAction::Exited;
                }
                //= RFC 6937 §3: at the end of recovery, cwnd = ssthresh
                if self.prr.take().is_some() {
                    s.change_window(WindowChange::SsthreshPlus(0));
                }
            }
            // No window growth while recovering (cwnd was set to ssthresh on entry).
            s.new_ack(now, ack_seg, !was_recovering);
            self.scoreboard.update(s.snd_una, blocks);
            if s.in_recovery() {
                s.stats.partial_acks += 1;
                s.record(now, TraceKind::PartialAck);
                self.set_pipe(s);
                self.reduce_proportionally(s, before);
                self.send_in_recovery(s, now);
            } else {
                self.send_loop(s, now, s.cfg.max_burst);
            }
            return;
        }
        if ack_seg < s.snd_una {
            return;
        }
        let new_sack_info = self.scoreboard.update(s.snd_una, blocks);
        if s.in_recovery() {
            // (B) Every ACK: update the scoreboard, recompute pipe, send what cwnd allows.
            self.set_pipe(s);
            self.reduce_proportionally(s, before);
            self.send_in_recovery(s, now);
            return;
        }
        let rfc6675 = s.cfg.sack_sender != SackSender::Rfc3517;
        // RFC 6675 counts a duplicate only if it brings new SACK information.
        if !classic_duplicate || (rfc6675 && !new_sack_info) {
            return;
        }
        s.count_dupack();
        let may_enter =
            s.cfg.fast_retransmit && self.recovery_point.is_none_or(|point| s.snd_una >= point);
        let lost_first = rfc6675 && self.is_lost(s, s.snd_una);
        if may_enter && (s.dupacks >= s.cfg.dupthresh || lost_first) {
            self.enter(s, now, before);
        } else if s.dupacks < s.cfg.dupthresh && s.cfg.limited_transmit {
            if rfc6675 {
                self.pre_recovery_send(s, now);
            } else if new_sack_info {
                // RFC 3042 with SACK: only a duplicate with new SACK information releases a segment.
                super::common::limited_transmit(s, now);
            }
        }
    }

    /// RFC 6675 step (3): before recovery, send new data while `cwnd − pipe ≥ 1 SMSS`, at
    /// the pacing rate when the sender paces (as Linux's sends in Disorder are): a paced
    /// sender's flight sits well below cwnd, and sending the gap at once on a duplicate ACK
    /// overflowed a shallow queue and lost the fast retransmission after it (BBR against
    /// CUBIC in half a BDP: 24 timeouts in 60 s, ns-3 1).
    fn pre_recovery_send(&mut self, s: &mut SenderCore, now: SimTime) {
        self.high_rxt_end = s.snd_una;
        self.set_pipe(s);
        while (self.pipe + 1) as f64 <= s.window().cwnd_segments()
            && !s.pacing_holds(now)
            && s.snd_max < s.end
            && s.rwnd_allows(s.snd_max)
        {
            let seg = s.snd_max;
            s.output(now, seg, SendCause::Window);
            s.snd_nxt = s.snd_nxt.max(seg + 1);
            self.pipe += 1;
            s.limited_transmit_outstanding += 1;
            s.stats.limited_transmit_sends += 1;
        }
    }

    /// Step (4): fast retransmit and entry into loss recovery.
    fn enter(&mut self, s: &mut SenderCore, now: SimTime, before: Option<Before>) {
        self.recovery_point = Some(s.snd_max);
        // The pipe when the loss is detected, for a controller that sizes its window by it.
        self.set_pipe(s);
        // FlightSize without the segments step (3) sent (RFC 5681 §3.2 note 4).
        let flight = s.flight_size();
        // After an ECN response in this window the repair goes ahead without a second cut.
        if !s.ecn_cut_this_window() {
            let base = CutBase::Flight { segments: flight };
            //= RFC 6675 (4.2): ssthresh = cwnd = (FlightSize / 2)
            // The FlightSize still counts the SACKed segments, so it can exceed cwnd: the cut
            // never raises cwnd. PRR sets ssthresh alone and lowers cwnd as ACKs come.
            let after = if before.is_some() {
                AfterCut::Kept
            } else {
                AfterCut::Ssthresh
            };
            s.cut(now, Cause::Loss, base, after);
        }
        if before.is_some() {
            self.prr = Some(Prr::begin(s.snd_max - s.snd_una));
        }
        s.last_cwnd_action = CwndAction::DupAck;
        s.recover = s.maxseq();
        s.stats.fast_retransmits += 1;
        s.stats.fast_recoveries += 1;
        s.enter_recovery();
        s.cancel_rtt_timing();
        let first = s.snd_una;
        s.output(now, first, SendCause::FastRetransmit);
        if let Some(prr) = &mut self.prr {
            prr.sent();
        }
        self.high_rxt_end = first + 1;
        self.rescue_rxt_end = first + 1;
        s.record(now, TraceKind::FastRetransmit);
        self.set_pipe(s);
        self.reduce_proportionally(s, before);
        self.send_in_recovery(s, now);
    }

    /// PRR (RFC 6937 §3), on every ACK in recovery: cwnd = pipe + sndcnt, from what this ACK
    /// delivered (`DeliveredData`: the change in `snd_una` plus the change in SACKed segments).
    fn reduce_proportionally(&mut self, s: &mut SenderCore, before: Option<Before>) {
        let (Some(prr), Some(before)) = (&mut self.prr, before) else {
            return;
        };
        let sacked = self.scoreboard.sacked_between(s.snd_una, s.snd_max);
        let delivered = (s.snd_una - before.snd_una + sacked).saturating_sub(before.sacked);
        let (cwnd, ssthresh) = (s.window().cwnd_segments(), s.window().ssthresh_segments());
        // Above ssthresh PRR never raises cwnd, so that a mark answered on this ACK (BCN's
        // per-ACK decrease) stands (spec §4.4.4).
        let reduced = prr
            .on_ack(delivered, self.pipe, ssthresh)
            .min(cwnd.max(ssthresh));
        s.change_window(WindowChange::Segments(reduced));
    }

    /// `IsLost(seg)`: at least `dupthresh` SACKed segments lie above it, that is, it lies below
    /// the `dupthresh`-th highest SACKed segment.
    fn is_lost(&self, s: &SenderCore, seg: u64) -> bool {
        match s.cfg.dupthresh {
            0 => true,
            n => (self.scoreboard.nth_highest_sacked(n)).is_some_and(|t| seg < t),
        }
    }

    /// `SetPipe()`: every unSACKed outstanding segment counts once unless lost, and once more if
    /// it was retransmitted in this recovery (below `HighRxt`). Counted from the board's kept
    /// counts where it covers the outstanding segments from `snd_una` (always, after an ACK's
    /// update): the segments not lost are the unSACKed ones above the `dupthresh`-th highest
    /// SACK, so no ACK walks the window (a hundred BBR flows spent a third of their run here).
    fn set_pipe(&mut self, s: &mut SenderCore) {
        let sb = &self.scoreboard;
        let (una, max) = (s.snd_una, s.snd_max);
        let counted = s.cfg.dupthresh >= 1 && sb.first() == una && sb.end() <= max;
        let pipe = if counted {
            let not_lost = match sb.nth_highest_sacked(s.cfg.dupthresh) {
                // Exactly `dupthresh` SACKed from it up.
                Some(t) => (max - t) - u64::from(s.cfg.dupthresh),
                None => (max - una) - sb.sacked_between(una, max),
            };
            let retransmitted_end = self.high_rxt_end.clamp(una, max);
            let retransmitted =
                (retransmitted_end - una) - sb.sacked_between(una, retransmitted_end);
            (not_lost + retransmitted) as i64
        } else {
            self.pipe_segment_by_segment(s)
        };
        debug_assert_eq!(pipe, self.pipe_segment_by_segment(s), "SetPipe() counted");
        self.pipe = pipe;
        s.recovery_pipe = Some(pipe.max(0) as u64);
    }

    /// `SetPipe()` segment by segment, from the highest down: what [`Self::set_pipe`] counts
    /// where the board does not cover the outstanding segments from `snd_una`, and checks its
    /// counts against in debug builds. A segment off the board counts as not lost.
    fn pipe_segment_by_segment(&self, s: &SenderCore) -> i64 {
        let sb = &self.scoreboard;
        let mut above = sb.sacked_between(s.snd_max, u64::MAX);
        let mut pipe = 0i64;
        for seg in (s.snd_una..s.snd_max).rev() {
            if sb.is_sacked(seg) {
                above += 1;
                continue;
            }
            let on_board = sb.first() <= seg && seg < sb.end();
            if !on_board || above < u64::from(s.cfg.dupthresh) {
                pipe += 1;
            }
            if seg < self.high_rxt_end {
                pipe += 1;
            }
        }
        pipe
    }

    /// Step (C): while `cwnd − pipe ≥ 1 SMSS`, send what `NextSeg()` returns.
    fn send_in_recovery(&mut self, s: &mut SenderCore, now: SimTime) {
        let mut sent = 0;
        while (self.pipe + 1) as f64 <= s.window().cwnd_segments() && !s.pacing_holds(now) {
            let Some((seg, cause)) = self.next_seg(s) else {
                break;
            };
            s.output(now, seg, cause);
            s.snd_nxt = s.snd_nxt.max(seg + 1);
            self.scoreboard.extend_to(s.snd_una, s.snd_max);
            self.pipe += 1;
            if let Some(prr) = &mut self.prr {
                prr.sent();
            }
            sent += 1;
            if s.cfg.max_burst > 0 && sent == s.cfg.max_burst {
                break;
            }
        }
    }

    /// `NextSeg()` (RFC 6675 §4), updating `HighRxt` and `RescueRxt` for what it returns.
    fn next_seg(&mut self, s: &SenderCore) -> Option<(u64, SendCause)> {
        let sb = &self.scoreboard;
        let sacked_end = sb.sacked_end().unwrap_or(s.snd_una);
        let from = self.high_rxt_end.max(s.snd_una);
        let hole = (from..sacked_end).find(|&seg| !sb.is_sacked(seg));
        // (1) The lowest unSACKed segment above HighRxt that IsLost.
        if let Some(seg) = hole.filter(|&seg| self.is_lost(s, seg)) {
            self.high_rxt_end = seg + 1;
            return Some((seg, SendCause::SackHole));
        }
        // (2) New data, if the application has some and the receiver window allows.
        if s.snd_max < s.end && s.rwnd_allows(s.snd_max) {
            return Some((s.snd_max, SendCause::Window));
        }
        // (3) The lowest unSACKed segment above HighRxt, lost or not.
        if let Some(seg) = hole {
            self.high_rxt_end = seg + 1;
            return Some((seg, SendCause::SackHole));
        }
        // (4) RFC 6675 rescue: once per recovery, the highest unSACKed outstanding segment.
        if s.cfg.sack_sender != SackSender::Rfc3517 && s.snd_una >= self.rescue_rxt_end {
            let seg = (s.snd_una..s.snd_max)
                .rev()
                .find(|&seg| !self.scoreboard.is_sacked(seg))?;
            self.rescue_rxt_end = self.recovery_point.unwrap_or(s.snd_max);
            return Some((seg, SendCause::Rescue));
        }
        None
    }

    /// The send loop outside recovery: the ordinary window rule, skipping SACKed segments, which
    /// are not in flight and do not count against cwnd (after a timeout the go-back-N resend need
    /// not repeat what the receiver holds, RFC 6675 §5.1).
    pub(crate) fn send_loop(&mut self, s: &mut SenderCore, now: SimTime, burst: u32) {
        if s.in_recovery() {
            self.send_in_recovery(s, now);
            return;
        }
        let mut sent = 0;
        let mut skipped = self.scoreboard.sacked_between(s.snd_una, s.snd_nxt);
        while s.snd_nxt < s.end
            && s.window_allows_beyond(s.snd_nxt, skipped, 0)
            && !s.pacing_holds(now)
        {
            let seg = s.snd_nxt;
            s.snd_nxt += 1;
            if self.scoreboard.is_sacked(seg) {
                skipped += 1;
                continue;
            }
            s.output(now, seg, SendCause::Window);
            sent += 1;
            if burst > 0 && sent == burst {
                break;
            }
        }
    }

    /// Before the common timeout action: recovery ends, RecoveryPoint moves to everything sent,
    /// and the scoreboard is kept unless `sack_clear_on_rto`.
    pub(crate) fn on_timeout(&mut self, s: &mut SenderCore) {
        if s.cfg.sack_clear_on_rto {
            self.scoreboard.clear();
        }
        self.recovery_point = Some(s.snd_max);
        self.prr = None;
        s.limited_transmit_outstanding = 0;
        self.high_rxt_end = s.snd_una;
        s.leave_recovery();
        s.dupacks = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, Variant};
    use congsim_core::time::SimDuration;
    use std::sync::Arc;

    /// A packet-numbered RFC 6675 sender with segments 7..=14 outstanding and cwnd 8.
    fn sender_with_7_to_14_out(rwnd: u64) -> (SenderCore, Rfc6675) {
        let cfg = crate::config::SenderConfig {
            rwnd,
            sack_sender: SackSender::Rfc6675,
            ..Profile::Ns2_2000.sender(Variant::Sack)
        };
        let mut s = SenderCore::new(cfg.into(), SimDuration::ZERO);
        let mut r = Rfc6675::default();
        s.start(None);
        let burst = s.cfg.max_burst;
        r.send_loop(&mut s, SimTime::ZERO, burst);
        for k in 1..=7 {
            r.on_ack(
                &mut s,
                SimTime::from_millis(k),
                k,
                &SackBlocks::EMPTY,
                false,
            );
        }
        assert_eq!((s.snd_una, s.snd_max), (7, 15));
        (s, r)
    }

    /// Segments 9, 11 and 12 SACKed; 7 retransmitted in this recovery.
    fn hand_built_board(r: &mut Rfc6675) {
        r.scoreboard.extend_to(7, 15);
        r.scoreboard.update(7, [(9, 10), (11, 13)].into_iter());
        r.high_rxt_end = 8;
        r.rescue_rxt_end = 8;
        r.recovery_point = Some(15);
    }

    #[test]
    fn is_lost_needs_dupthresh_sacked_segments_above() {
        let (s, mut r) = sender_with_7_to_14_out(100);
        hand_built_board(&mut r);
        assert!(r.is_lost(&s, 7) && r.is_lost(&s, 8), "three SACKed above");
        assert!(!r.is_lost(&s, 10), "only 11 and 12 above");
        assert!(!r.is_lost(&s, 13) && !r.is_lost(&s, 14));
    }

    #[test]
    fn set_pipe_counts_unsacked_not_lost_and_retransmitted() {
        let (mut s, mut r) = sender_with_7_to_14_out(100);
        hand_built_board(&mut r);
        r.set_pipe(&mut s);
        // 7: lost but retransmitted (1); 8: lost (0); 10, 13, 14: in flight (3).
        assert_eq!(r.pipe, 4);
    }

    #[test]
    fn next_seg_rules_in_order() {
        let (s, mut r) = sender_with_7_to_14_out(100);
        hand_built_board(&mut r);
        // (1) the lost hole above HighRxt.
        assert_eq!(r.next_seg(&s), Some((8, SendCause::SackHole)));
        assert_eq!(r.high_rxt_end, 9);
        // 10 is a hole but not lost: (2) new data comes first.
        assert_eq!(r.next_seg(&s), Some((15, SendCause::Window)));

        // With the receiver window closed, (3) the hole that is not known lost.
        let (s, mut r) = sender_with_7_to_14_out(8);
        hand_built_board(&mut r);
        r.high_rxt_end = 9;
        assert_eq!(r.next_seg(&s), Some((10, SendCause::SackHole)));
        // Nothing left below the highest SACK: (4) the rescue, the highest unSACKed segment,
        // only once the cumulative ACK has passed RescueRxt, and once per recovery.
        assert_eq!(r.next_seg(&s), None, "HighACK 7 has not passed RescueRxt 8");
        r.rescue_rxt_end = 7;
        assert_eq!(r.next_seg(&s), Some((14, SendCause::Rescue)));
        assert_eq!(r.rescue_rxt_end, 15);
        assert_eq!(r.next_seg(&s), None);

        // RFC 3517 has no rescue.
        let (mut s, mut r) = sender_with_7_to_14_out(8);
        Arc::make_mut(&mut s.cfg).sack_sender = SackSender::Rfc3517;
        hand_built_board(&mut r);
        r.high_rxt_end = 13;
        r.rescue_rxt_end = 7;
        assert_eq!(r.next_seg(&s), None);
    }

    /// 7 is lost; the receiver SACKs 8, 9, 10 one by one. RFC 6675 counts each as a duplicate;
    /// the third enters recovery (so would IsLost(7)).
    fn lose_7_and_sack_8_to_10(s: &mut SenderCore, r: &mut Rfc6675, t: SimTime) {
        for right in 9..=11 {
            let mut sack = SackBlocks::EMPTY;
            sack.push(7, 8, right);
            r.on_ack(s, t, 7, &sack, true);
        }
    }

    #[test]
    fn step_3_before_recovery_sends_at_the_pacing_rate() {
        // cwnd 40 over a flight of 8: the first duplicate (SACK of 8) leaves cwnd − pipe = 33.
        let sends_on_first_duplicate = |pacing: bool| {
            let (mut s, mut r) = sender_with_7_to_14_out(100);
            Arc::make_mut(&mut s.cfg).pacing = pacing;
            Arc::make_mut(&mut s.cfg).limited_transmit = true;
            s.change_window(WindowChange::Segments(40.0));
            s.update_pacing_rate();
            s.outbox.clear();
            let mut sack = SackBlocks::EMPTY;
            sack.push(7, 8, 9);
            r.on_ack(&mut s, SimTime::from_millis(20), 7, &sack, true);
            assert!(!s.in_recovery());
            s.outbox.len()
        };
        assert_eq!(
            sends_on_first_duplicate(false),
            33,
            "RFC 6675 (3): the whole gap"
        );
        assert_eq!(
            sends_on_first_duplicate(true),
            1,
            "one now, the rest at the rate"
        );
    }

    #[test]
    fn entry_halves_the_flight_and_fills_the_window() {
        let (mut s, mut r) = sender_with_7_to_14_out(100);
        let t = SimTime::from_millis(20);
        s.outbox.clear();
        lose_7_and_sack_8_to_10(&mut s, &mut r, t);
        assert!(s.in_recovery());
        assert_eq!(s.window().ssthresh_segments(), 4.0, "FlightSize 8 / 2");
        assert_eq!(s.window().cwnd_segments(), 4.0);
        let sent: Vec<(u64, bool)> = s
            .outbox
            .iter()
            .map(|seg| (seg.header.seq, seg.retransmission))
            .collect();
        // 7 resent; pipe = 7 (retransmitted, lost: 1) + 11..14 (4) = 5 > cwnd: nothing more.
        assert_eq!(sent, [(7, true)]);
        assert_eq!(r.pipe, 5);
    }

    #[test]
    fn prr_lowers_cwnd_to_ssthresh_over_the_recovery_not_at_its_start() {
        let (mut s, mut r) = sender_with_7_to_14_out(100);
        Arc::make_mut(&mut s.cfg).sack_sender = SackSender::Prr;
        let t = SimTime::from_millis(20);
        s.outbox.clear();
        lose_7_and_sack_8_to_10(&mut s, &mut r, t);
        assert!(s.in_recovery());
        assert_eq!(s.window().ssthresh_segments(), 4.0, "FlightSize 8 / 2");
        // pipe 5 (as above) > ssthresh: the one segment delivered of RecoverFS 8 allows
        // ceil(1 · 4 / 8) = 1 out, the retransmission; cwnd = pipe + 0, not ssthresh yet.
        assert_eq!(s.window().cwnd_segments(), 5.0);
        let sent: Vec<u64> = s.outbox.iter().map(|seg| seg.header.seq).collect();
        assert_eq!(sent, [7]);
        // 11 SACKed: pipe 4 = ssthresh, so nothing more (PRR-SSRB: min(ssthresh − pipe, …)).
        let mut sack = SackBlocks::EMPTY;
        sack.push(7, 8, 12);
        r.on_ack(&mut s, t, 7, &sack, true);
        assert_eq!(s.window().cwnd_segments(), 4.0);
        // The retransmission arrives and everything up to RecoveryPoint is acknowledged:
        // recovery ends with cwnd = ssthresh.
        r.on_ack(&mut s, t, 15, &SackBlocks::EMPTY, false);
        assert!(!s.in_recovery());
        assert_eq!(s.window().cwnd_segments(), 4.0);
    }

    #[test]
    fn after_a_timeout_go_back_n_skips_sacked_segments_unless_told_to_forget() {
        for clear in [false, true] {
            let (mut s, mut r) = sender_with_7_to_14_out(100);
            Arc::make_mut(&mut s.cfg).sack_clear_on_rto = clear;
            hand_built_board(&mut r);
            s.outbox.clear();
            let cause = s.timeout_cause();
            r.on_timeout(&mut s);
            s.timeout(SimTime::from_secs(10), cause);
            let burst = s.cfg.max_burst;
            r.send_loop(&mut s, SimTime::from_secs(10), burst);
            // cwnd 1 after the timeout: the first segment only, then one more per ACK.
            let resent: Vec<u64> = s.outbox.drain(..).map(|seg| seg.header.seq).collect();
            assert_eq!(resent, [7]);
            r.on_ack(&mut s, SimTime::from_secs(11), 8, &SackBlocks::EMPTY, false);
            let resent: Vec<u64> = s.outbox.drain(..).map(|seg| seg.header.seq).collect();
            // cwnd 2 from 8: 8 and 9; with the board kept 9 is SACKed, skipped, and does not
            // count against cwnd, so 10 goes instead.
            let expected: &[u64] = if clear { &[8, 9] } else { &[8, 10] };
            assert_eq!(resent, expected, "clear = {clear}");
        }
    }
}
