//! The TCP sender (spec `tcp.md` §3): the public face of a connection's sending side. It owns
//! the state every variant shares (`SenderCore`), the variant's loss recovery
//! (`Recovery`) and the answer to congestion marks (`MarkResponder`), and routes each
//! event between them: ACK classification, timer expiry, the send loop.

use crate::config::{MarkResponse, SenderConfig, SeqMode, TimerMode};
use crate::congestion::Controller;
use crate::marks::MarkResponder;
use crate::recovery::Recovery;
use crate::segment::Segment;
use crate::sender_core::{CaState, SenderCore};
use crate::stats::{ChangeTrace, SenderState, SenderStats, TraceEvent};
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::wire::TcpHeader;
use std::sync::Arc;

pub struct TcpSender {
    core: SenderCore,
    recovery: Recovery,
    marks: MarkResponder,
    /// Every change of the state, when asked for (cold: out of line).
    changes: Option<Box<ChangeTrace>>,
}

impl TcpSender {
    /// A sender with `boot_phase` in `[0, tick)` (ns-2 exact timer mode; ignored otherwise).
    /// The configuration may be shared (`Arc`): a network of a million flows with one
    /// configuration holds it once.
    pub fn new(cfg: impl Into<Arc<SenderConfig>>, boot_phase: SimDuration) -> Self {
        let cfg = cfg.into();
        Self {
            recovery: Recovery::new(&cfg),
            core: SenderCore::new(cfg, boot_phase),
            marks: MarkResponder::default(),
            changes: None,
        }
    }

    pub fn config(&self) -> &SenderConfig {
        &self.core.cfg
    }
    pub fn stats(&self) -> &SenderStats {
        &self.core.stats
    }
    pub fn cwnd_segments(&self) -> f64 {
        self.core.window().cwnd_segments()
    }
    pub fn ssthresh_segments(&self) -> f64 {
        self.core.window().ssthresh_segments()
    }
    pub fn rto(&self) -> SimDuration {
        self.core.rtt.rto()
    }
    pub fn srtt_secs(&self) -> f64 {
        self.core.rtt.srtt_secs()
    }
    /// The RTT variation estimate in seconds (0 before the first sample).
    pub fn rttvar_secs(&self) -> f64 {
        self.core.rtt.rttvar_secs()
    }
    /// The window the send loop obeys, in segments: `min(cwnd, receiver window)`.
    pub fn effective_window_segments(&self) -> f64 {
        let rwnd_segments = match self.core.cfg.seq_mode {
            SeqMode::Packets => self.core.rwnd as f64,
            SeqMode::Bytes => self.core.rwnd as f64 / f64::from(self.core.cfg.mss),
        };
        self.core.window().cwnd_segments().min(rwnd_segments)
    }
    pub fn in_fast_recovery(&self) -> bool {
        self.core.in_recovery()
    }
    /// Where the sender stands with respect to loss.
    pub fn ca_state(&self) -> CaState {
        self.core.ca_state()
    }
    /// The SACK sender's estimate of segments in flight during recovery (`None` outside
    /// recovery and for the other variants, which keep no such estimate).
    pub fn pipe(&self) -> Option<i64> {
        self.recovery.pipe(&self.core)
    }
    /// The congestion controller and its state (for the estimates it reports).
    pub fn controller(&self) -> &Controller {
        &self.core.controller
    }

    /// Seeds the controller's random draws (for a controller that draws them,
    /// `Controller::draws_random`), from the flow's own stream.
    pub fn seed_controller(&mut self, seed: u64) {
        self.core.controller.seed(seed);
    }

    /// Starts recording congestion events.
    pub fn enable_trace(&mut self) {
        self.core.trace.get_or_insert_with(Vec::new);
    }

    /// The congestion events recorded so far (empty unless tracing is on).
    pub fn trace(&self) -> &[TraceEvent] {
        self.core.trace.as_deref().unwrap_or(&[])
    }

    /// Starts recording every change of cwnd, ssthresh, srtt, RTO and the congestion state.
    pub fn enable_change_trace(&mut self) {
        self.changes.get_or_insert_with(Box::default);
    }

    /// The changes recorded so far (`None` unless the change trace is on).
    pub fn change_trace(&self) -> Option<&ChangeTrace> {
        self.changes.as_deref()
    }

    /// What the change trace watches.
    pub fn state(&self) -> SenderState {
        SenderState {
            cwnd: self.cwnd_segments(),
            ssthresh: self.ssthresh_segments(),
            srtt_secs: self.srtt_secs(),
            rto: self.rto(),
            state: self.ca_state(),
        }
    }

    /// After each event: a row of the change trace if it is on and the state moved.
    #[inline]
    fn note_changes(&mut self, now: SimTime) {
        if self.changes.is_some() {
            self.record_changes(now);
        }
    }

    #[cold]
    fn record_changes(&mut self, now: SimTime) {
        let state = self.state();
        if let Some(changes) = &mut self.changes {
            changes.observe(now, state);
        }
    }

    /// When the last byte of a finite transfer was cumulatively ACKed.
    pub fn completed_at(&self) -> Option<SimTime> {
        self.core.completed_at
    }

    /// The application starts: `bytes` to send, or an infinite source.
    pub fn start(&mut self, now: SimTime, bytes: Option<u64>) {
        self.core.start(bytes);
        self.send_much(now);
        self.note_changes(now);
    }

    /// The application stops supplying new data (ns-2 FTP `stop`).
    pub fn stop(&mut self) {
        self.core.end = self.core.end.min(self.core.snd_max);
    }

    /// The send loop (spec §3.2), at most `cfg.max_burst` packets (0: unlimited).
    fn send_much(&mut self, now: SimTime) {
        self.send_limited(now, self.core.cfg.max_burst);
    }

    /// The send loop with at most `burst` packets (0: unlimited).
    fn send_limited(&mut self, now: SimTime, burst: u32) {
        if self.core.started {
            self.recovery.send(&mut self.core, now, burst);
        }
    }

    /// The instant the caller must call [`Self::on_timeout`]: the retransmit timer's expiry
    /// (exact mode only; the tick mode's is driven by [`Self::on_slow_tick`]) or the release
    /// of a segment pacing held back.
    pub fn next_timeout(&self) -> Option<SimTime> {
        self.core.next_timeout()
    }

    /// A wake-up: the retransmit timer (exact mode) or a pacing release. Stale wake-ups (the
    /// timer was re-armed later, nothing is held) are ignored.
    pub fn on_timeout(&mut self, now: SimTime) {
        if self.core.take_expired_timer(now) {
            self.timeout(now);
        }
        if self.core.take_pacing_release(now) {
            self.send_much(now);
        }
        self.note_changes(now);
    }

    /// A boundary of the global slow clock (tick mode): the BSD `tcp_slowtimo`.
    pub fn on_slow_tick(&mut self, now: SimTime) {
        if self.core.cfg.timer_mode != TimerMode::Tick {
            return;
        }
        if self.core.slow_tick_expires_timer() {
            self.timeout(now);
            self.note_changes(now);
        }
        self.core.count_rtt_tick();
    }

    /// Retransmission timeout (spec §3.7): the variant's own action, the common one, then the
    /// send loop.
    fn timeout(&mut self, now: SimTime) {
        self.core.stats.timeouts_all += 1;
        // Before the variant's own reset of the duplicate count.
        let cause = self.core.timeout_cause();
        self.recovery.on_timeout(&mut self.core);
        self.core.timeout(now, cause);
        self.send_much(now);
    }

    /// The network below signalled congestion directly (an ABR source received a backward RM
    /// cell with CI; spec `atm.md` §2.4): the sender answers as to an echoed mark (BCN-TCP's
    /// decrease; nothing when marks are off).
    pub fn on_congestion_indication(&mut self, now: SimTime) {
        let snd_una = self.core.snd_una;
        self.marks.on_echo(&mut self.core, now, snd_una);
        self.note_changes(now);
    }

    /// An ACK arrives.
    pub fn on_ack(&mut self, now: SimTime, ack: &TcpHeader) {
        self.ack(now, ack);
        self.note_changes(now);
    }

    fn ack(&mut self, now: SimTime, ack: &TcpHeader) {
        let s = &mut self.core;
        s.stats.acks_rcvd += 1;
        let window_changed = match s.cfg.seq_mode {
            SeqMode::Bytes if u64::from(ack.window_bytes) != s.rwnd => {
                s.rwnd = u64::from(ack.window_bytes);
                true
            }
            _ => false,
        };
        let ack_seg = s.ack_to_segments(ack.ack).min(s.snd_max);
        if let Some(rate) = &mut s.rate {
            rate.on_ack(now, ack_seg, ack.sack.ranges(ack_seg));
        }
        s.ece_on_this_ack = ack.flags.ece;
        // An ACK echoing a mark does not open the window (ns-2 recv_newack_helper; ABR's
        // "no increase" on CI).
        s.echo_on_this_ack = ack.flags.ece && s.cfg.mark_response != MarkResponse::Off;
        if s.echo_on_this_ack {
            self.marks.on_echo(s, now, ack_seg);
        }
        if ack_seg > s.snd_una {
            self.marks.on_new_data_acked(s, ack_seg);
        }
        let recovery = match &mut self.recovery {
            Recovery::Sack(sack) => {
                let duplicate = ack_seg == s.snd_una && s.is_duplicate(window_changed);
                sack.on_ack(s, now, ack_seg, &ack.sack, duplicate);
                s.tell_controller(now, false);
                return;
            }
            Recovery::Dupack(recovery) => recovery,
        };
        if ack_seg > s.snd_una {
            if recovery.on_partial_ack(s, now, ack_seg) {
                // The recovery holds the window; the controller still sees the ACK.
                s.tell_controller(now, false);
            } else {
                recovery.on_new_ack(s);
                s.new_ack(now, ack_seg, true);
            }
        } else if ack_seg == s.snd_una {
            if s.is_duplicate(window_changed) {
                s.count_dupack();
                recovery.on_dupack(s, now);
            } else {
                s.reset_dupacks();
            }
        } else {
            // An old ACK: ns-2 ignores it and does not run the send loop.
            return;
        }
        if let Some(burst) = recovery.send_burst_after_ack(s) {
            self.send_limited(now, burst);
        }
    }

    /// Lends the sender `buf` (empty) to write the segments of its next calls into, until
    /// [`Self::take_transmit`] or [`Self::drain_transmit`] hands them over: a sender that is
    /// lent one for each of its turns holds no send buffer of its own between them.
    pub fn lend_buffer(&mut self, buf: &mut Vec<Segment>) {
        crate::segment::lend(&mut self.core.outbox, buf);
    }

    /// Moves the segments produced since the last call into `out`.
    pub fn drain_transmit(&mut self, out: &mut Vec<Segment>) {
        crate::segment::hand_over(&mut self.core.outbox, out);
    }

    /// The segments produced since the last call, in the buffer lent for them (or the
    /// sender's own), which the sender no longer holds.
    pub fn take_transmit(&mut self) -> Vec<Segment> {
        std::mem::take(&mut self.core.outbox)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, SackSender, Variant};
    use crate::recovery::SackRecovery;

    /// Which SACK sender a connection runs.
    fn sack_sender_of(sender: &TcpSender) -> Option<&'static str> {
        match &sender.recovery {
            Recovery::Sack(SackRecovery::Sack1(_)) => Some("sack1"),
            Recovery::Sack(SackRecovery::Rfc6675(_)) => Some("rfc6675"),
            Recovery::Dupack(_) => None,
        }
    }

    #[test]
    fn the_recovery_is_chosen_once_from_variant_and_sack_sender() {
        let ns2 = TcpSender::new(Profile::Ns2_2000.sender(Variant::Sack), SimDuration::ZERO);
        assert_eq!(sack_sender_of(&ns2), Some("sack1"));
        let cfg = SenderConfig {
            sack_sender: SackSender::Rfc3517,
            ..Profile::Rfc.sender(Variant::Sack)
        };
        let rfc = TcpSender::new(cfg, SimDuration::ZERO);
        assert_eq!(
            sack_sender_of(&rfc),
            Some("rfc6675"),
            "RFC 3517 is RFC 6675's code"
        );
        let reno = TcpSender::new(Profile::Bsd.sender(Variant::Reno), SimDuration::ZERO);
        assert_eq!(sack_sender_of(&reno), None);
        assert_eq!(reno.pipe(), None);
    }

    #[test]
    fn a_lent_buffer_carries_the_segments_and_the_sender_keeps_none() {
        let cfg = SenderConfig {
            rwnd: 100,
            ..Profile::Ns2_2000.sender(Variant::Reno)
        };
        let mut s = TcpSender::new(cfg, SimDuration::ZERO);
        let mut lent = Vec::with_capacity(32);
        s.lend_buffer(&mut lent);
        assert_eq!(
            lent.capacity(),
            0,
            "the caller's buffer is the sender's now"
        );
        s.start(SimTime::ZERO, None);
        let mut out = s.take_transmit();
        assert_eq!(out.len(), 1);
        assert!(
            out.capacity() >= 32,
            "the segments come back in the lent buffer"
        );
        assert_eq!(s.core.outbox.capacity(), 0, "the sender keeps no buffer");
        // A sender holding segments keeps them, and a buffer with segments is not lent.
        s.on_ack(SimTime::from_millis(100), &TcpHeader::ack(1, 0));
        let mut other = vec![out[0]];
        s.lend_buffer(&mut other);
        assert_eq!(other.len(), 1);
        s.drain_transmit(&mut out);
        assert_eq!(
            out.len(),
            3,
            "the first segment and the two the ACK released"
        );
    }

    #[test]
    fn a_pacing_sender_spaces_its_window_at_the_controllers_rate() {
        let cfg = SenderConfig {
            rwnd: 100,
            pacing: true,
            ..Profile::Ns2_2000.sender(Variant::Reno)
        };
        let mut s = TcpSender::new(cfg, SimDuration::ZERO);
        let mut out = Vec::new();
        s.start(SimTime::ZERO, None);
        s.drain_transmit(&mut out);
        assert_eq!(out.len(), 1, "nothing is paced before an RTT is measured");
        // The first ACK measures 100 ms and opens cwnd to 2: the rate is 2 · cwnd / srtt
        // (slow start); the first segment leaves at once, the second one gap later.
        let ack_at = SimTime::from_millis(100);
        s.on_ack(ack_at, &TcpHeader::ack(1, 0));
        out.clear();
        s.drain_transmit(&mut out);
        assert_eq!(out.len(), 1);
        let rate_bps = 2.0 * 2.0 * f64::from(s.config().mss) * 8.0 / 0.1;
        let gap_ps = (f64::from(out[0].wire_bytes) * 8.0 / rate_bps * 1e12) as u64;
        let release = s.next_timeout().expect("a release is due");
        assert_eq!(release, ack_at + SimDuration::from_ps(gap_ps));
        s.on_timeout(release);
        out.clear();
        s.drain_transmit(&mut out);
        assert_eq!(out.len(), 1, "released");
        // Unpaced, both leave on the ACK.
        let mut unpaced = TcpSender::new(
            SenderConfig {
                pacing: false,
                ..s.config().clone()
            },
            SimDuration::ZERO,
        );
        unpaced.start(SimTime::ZERO, None);
        unpaced.on_ack(ack_at, &TcpHeader::ack(1, 0));
        out.clear();
        unpaced.drain_transmit(&mut out);
        assert_eq!(
            out.len(),
            3,
            "the first segment and the two the ACK released"
        );
    }

    #[test]
    fn a_timeout_puts_the_sender_in_loss_until_everything_then_sent_is_acknowledged() {
        let cfg = SenderConfig {
            rwnd: 100,
            ..Profile::Ns2_2000.sender(Variant::Reno)
        };
        let mut s = TcpSender::new(cfg, SimDuration::ZERO);
        s.start(SimTime::ZERO, None);
        for k in 1..=3 {
            s.on_ack(SimTime::from_millis(k), &TcpHeader::ack(k, 0));
        }
        let sent_before = s.core.snd_max;
        let deadline = s.next_timeout().expect("armed");
        s.on_timeout(deadline);
        assert_eq!(s.ca_state(), CaState::Loss);
        s.on_ack(deadline, &TcpHeader::ack(sent_before - 1, 0));
        assert_eq!(s.ca_state(), CaState::Loss, "one segment short");
        s.on_ack(deadline, &TcpHeader::ack(sent_before, 0));
        assert_eq!(s.ca_state(), CaState::Open);
    }

    #[test]
    fn the_window_a_transfer_sends_with_leaves_its_syn_out() {
        let cfg = SenderConfig {
            rwnd: 100,
            syn: true,
            initial_window: 2,
            ..Profile::Ns2_2000.sender(Variant::Reno)
        };
        let mut s = TcpSender::new(cfg, SimDuration::ZERO);
        let mut out = Vec::new();
        s.start(SimTime::ZERO, Some(10 * 1000));
        s.drain_transmit(&mut out);
        assert_eq!(out.len(), 1, "the SYN alone");
        // The SYN's ACK applies the initial window: two data segments go out at cwnd 2.
        s.on_ack(SimTime::from_millis(100), &TcpHeader::ack(1, 0));
        out.clear();
        s.drain_transmit(&mut out);
        assert_eq!(out.len(), 2);
        let stats = s.stats();
        assert_eq!(stats.data_pkts_sent, 3, "the SYN is a packet sent");
        assert_eq!(stats.cwnd_sends, 2);
        assert_eq!(stats.cwnd_mean_at_sends(), 2.0, "not (1 + 2 + 2) / 3");
    }
}
