//! NewReno as RFC 6582 specifies it (byte-numbered profiles): RFC 5681 fast retransmit with
//! `recover`, window inflation per duplicate ACK, and on each partial ACK a retransmission of
//! the next hole with the window deflated by what was acknowledged (plus one segment back).
//! Only an ACK covering `recover` ends recovery, with `cwnd = ssthresh` (the RFC's option 2).

use super::reno::Reno;
use crate::config::RenoFlavour;
use crate::sender_core::{CwndAction, SendCause, SenderCore};
use crate::stats::TraceKind;
use crate::window::WindowChange;
use congsim_core::time::SimTime;

#[derive(Clone, Debug, Default)]
pub(crate) struct Rfc6582 {
    pub(crate) reno: Reno,
    /// A partial ACK of the current recovery has been seen (the impatient timer rule).
    first_partial_seen: bool,
    /// RFC 6582 `recover`, as one past the highest segment sent when recovery began (or when
    /// the last timeout fired); `None` before the first.
    recovery_point: Option<u64>,
}

impl Rfc6582 {
    pub(crate) fn on_dupack(&mut self, s: &mut SenderCore, now: SimTime) {
        self.reno.on_dupack(s, now, Some(&mut self.recovery_point));
    }

    /// A new ACK during fast recovery that does not cover `recover`: handled here entirely.
    /// Returns `false` for any other new ACK.
    pub(crate) fn on_partial_ack(&mut self, s: &mut SenderCore, now: SimTime, ack: u64) -> bool {
        if !s.in_recovery() || self.recovery_point.is_none_or(|point| ack >= point) {
            return false;
        }
        s.stats.partial_acks += 1;
        s.change_window(WindowChange::DeflatePartial(ack - s.snd_una));
        // RFC 6582 §4.1: the impatient variant restarts the timer on the first partial ACK only.
        if !s.cfg.newreno_impatient || !self.first_partial_seen {
            self.first_partial_seen = true;
            s.restart_or_cancel_timer(now, ack < s.snd_max);
        }
        s.snd_una = ack;
        s.snd_nxt = s.snd_nxt.max(s.snd_una);
        s.limited_transmit_outstanding = 0;
        if s.rtt_timing_covered_by(ack) {
            // The timed segment may have been retransmitted (Karn).
            s.cancel_rtt_timing();
        }
        s.record(now, TraceKind::PartialAck);
        s.output(now, s.snd_una, SendCause::PartialAck);
        true
    }

    /// Any other new ACK; in recovery it is the full ACK (RFC 6582 option 2, deviation D10).
    pub(crate) fn on_full_ack(&mut self, s: &mut SenderCore) {
        if s.in_recovery() {
            s.change_window(WindowChange::SsthreshPlus(0));
            s.last_cwnd_action = CwndAction::Exited;
        }
        self.first_partial_seen = false;
        s.leave_recovery();
    }

    pub(crate) fn on_timeout(&mut self, s: &mut SenderCore) {
        self.reno.on_timeout(s);
        //= RFC 6582 §3.2 (6): after a timeout, recover = HighData
        if s.cfg.reno_flavour == RenoFlavour::Rfc5681 {
            self.recovery_point = Some(s.snd_max);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, Variant};
    use crate::sender_core::CaState;
    use congsim_core::time::SimDuration;

    /// An RFC-profile NewReno core in recovery: segments 0..10 sent, 4 lost, three duplicates.
    fn recovering() -> (SenderCore, Rfc6582) {
        let mut s = SenderCore::new(
            Profile::Rfc.sender(Variant::NewReno).into(),
            SimDuration::ZERO,
        );
        s.start(None);
        s.change_window(WindowChange::Segments(10.0));
        s.send_window(SimTime::ZERO, 0, 0);
        s.new_ack(SimTime::from_millis(10), 4, false);
        let mut r = Rfc6582::default();
        for _ in 0..3 {
            s.count_dupack();
            r.on_dupack(&mut s, SimTime::from_millis(20));
        }
        assert_eq!(s.ca_state(), CaState::Recovery);
        assert_eq!(r.recovery_point, Some(10));
        s.outbox.clear();
        (s, r)
    }

    #[test]
    fn a_partial_ack_deflates_by_what_it_acknowledged_plus_one_and_resends_the_next_hole() {
        let (mut s, mut r) = recovering();
        let before = s.window().cwnd_segments();
        assert!(r.on_partial_ack(&mut s, SimTime::from_millis(30), 7));
        assert_eq!(s.window().cwnd_segments(), before - 3.0 + 1.0);
        assert_eq!(s.outbox.len(), 1);
        assert!(s.outbox[0].retransmission);
    }

    #[test]
    fn the_full_ack_sets_cwnd_to_ssthresh_and_a_timeout_moves_recover_to_high_data() {
        let (mut s, mut r) = recovering();
        assert!(!r.on_partial_ack(&mut s, SimTime::from_millis(30), 10));
        r.on_full_ack(&mut s);
        assert_eq!(s.window().cwnd_segments(), s.window().ssthresh_segments());
        assert_eq!(s.ca_state(), CaState::Open);
        s.snd_max = 14;
        r.on_timeout(&mut s);
        assert_eq!(r.recovery_point, Some(14));
    }
}
