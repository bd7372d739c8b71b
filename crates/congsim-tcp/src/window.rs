//! Congestion-window arithmetic (spec `tcp.md` §3.3 growth, §3.4 halving), per sequence model.
//!
//! This is the "congestion ops" half of a TCP variant: how the window grows on a new ACK and
//! how it is cut. Loss recovery (when to cut, what to retransmit) lives in `recovery`.

use crate::config::{SenderConfig, SeqMode};

/// The window state: packets (ns-2) or bytes (BSD).
#[derive(Clone, Debug)]
pub enum CongestionWindow {
    /// ns-2: `cwnd` a float in packets, `ssthresh` an integer in packets.
    Packets {
        cwnd: f64,
        ssthresh: u64,
        precise_halving: bool,
        max_cwnd: u64,
    },
    /// BSD: integer bytes, capped at `65535 << snd_scale`.
    Bytes {
        cwnd: u64,
        ssthresh: u64,
        mss: u64,
        max_window: u64,
        reno_ca_extra: bool,
    },
}

impl CongestionWindow {
    pub fn new(cfg: &SenderConfig) -> Self {
        match cfg.seq_mode {
            SeqMode::Packets => Self::Packets {
                // With `syn`, the opening packet goes out with cwnd 1 and `initial_window`
                // applies once it is ACKed (ns-2 delay_growth_).
                cwnd: if cfg.syn {
                    1.0
                } else {
                    f64::from(cfg.initial_window)
                },
                ssthresh: cfg.rwnd,
                precise_halving: cfg.precise_halving,
                max_cwnd: u64::from(cfg.max_cwnd),
            },
            SeqMode::Bytes => {
                let max_window = 65_535u64 << cfg.window_scale;
                Self::Bytes {
                    cwnd: u64::from(cfg.initial_window) * u64::from(cfg.mss),
                    ssthresh: max_window,
                    mss: u64::from(cfg.mss),
                    max_window,
                    reno_ca_extra: cfg.reno_ca_extra,
                }
            }
        }
    }

    /// One increment per new ACK (no byte counting): slow start or congestion avoidance.
    pub fn grow(&mut self) {
        match self {
            Self::Packets {
                cwnd,
                ssthresh,
                max_cwnd,
                ..
            } => {
                //= ns-2 opencwnd(): slow start while cwnd_ < ssthresh_, else += 1/cwnd_
                if *cwnd < *ssthresh as f64 {
                    *cwnd += 1.0;
                } else {
                    *cwnd += 1.0 / *cwnd;
                }
                if *max_cwnd > 0 && (*cwnd as u64) > *max_cwnd {
                    *cwnd = *max_cwnd as f64;
                }
            }
            Self::Bytes {
                cwnd,
                ssthresh,
                mss,
                max_window,
                reno_ca_extra,
            } => {
                //= 4.4BSD tcp_input: incr = maxseg; if (cw > ssthresh) incr = incr*incr/cw
                let mut incr = *mss;
                if *cwnd > *ssthresh {
                    incr = *mss * *mss / *cwnd;
                    if *reno_ca_extra {
                        incr += *mss / 8;
                    }
                }
                *cwnd = (*cwnd + incr).min(*max_window);
            }
        }
    }

    /// Sets `ssthresh` from half of `min(cwnd, rwnd)` (spec §3.4) and returns the halved window
    /// in the window's own unit, for the variants that also halve `cwnd`.
    ///
    /// `rwnd` is in packets (packet mode) or bytes (byte mode).
    pub fn halve(&mut self, rwnd: u64) -> f64 {
        match self {
            Self::Packets {
                cwnd,
                ssthresh,
                precise_halving,
                ..
            } => {
                let half = if *precise_halving {
                    cwnd.min(rwnd as f64) / 2.0
                } else {
                    //= ns-2 slowdown(): halfwin = int(window() / 2)
                    (((*cwnd as u64).min(rwnd)) / 2) as f64
                };
                *ssthresh = (half as u64).max(2);
                half
            }
            Self::Bytes {
                cwnd,
                ssthresh,
                mss,
                ..
            } => {
                //= 4.4BSD: win = min(snd_wnd, snd_cwnd) / 2 / maxseg; if (win < 2) win = 2
                let segments = ((*cwnd).min(rwnd) / 2 / *mss).max(2);
                *ssthresh = segments * *mss;
                *ssthresh as f64
            }
        }
    }

    /// RFC 5681 (4): `ssthresh = max(FlightSize / 2, 2 · SMSS)`, the flight given in segments,
    /// but from no more than cwnd. Returns what [`Self::halve`] returns (packets: the halved
    /// window; bytes: ssthresh).
    ///
    /// The FlightSize counts every segment not cumulatively acknowledged: under SACK those the
    /// receiver holds, and after a recovery with window inflation (RFC 5681, RFC 6582) what was
    /// sent against the inflated window. Either can put it far above cwnd, and half of it would
    /// then raise cwnd (issue #29: a NewReno flow of the fat-tree example went from 30 segments
    /// to 69 at a fast retransmit). RFC 5681 asks for an ssthresh "no more than" (4), so the cut
    /// is from `min(FlightSize, cwnd)` (deviation D33).
    pub fn halve_flight(&mut self, flight_segments: u64) -> f64 {
        match self {
            Self::Packets { cwnd, ssthresh, .. } => {
                let base = flight_segments.min(*cwnd as u64);
                *ssthresh = (base / 2).max(2);
                *ssthresh as f64
            }
            Self::Bytes {
                cwnd,
                ssthresh,
                mss,
                ..
            } => {
                let base = (flight_segments * *mss).min(*cwnd);
                *ssthresh = (base / 2).max(2 * *mss);
                *ssthresh as f64
            }
        }
    }

    /// After a cut that returned `cut` (as [`Self::halve`] returns it): `cwnd` to the cut
    /// window, at least one segment (packet mode), or to `ssthresh` (byte mode).
    ///
    /// A cut never raises cwnd: the new value is at most `cwnd` before it, except where the
    /// floor every cut keeps (ssthresh at least two segments, RFC 5681 (4), RFC 9438 §4.6)
    /// lies above a smaller window. A cut from `min(cwnd, rwnd)` is below `cwnd` anyway; a
    /// cut from the FlightSize need not be, since under SACK the FlightSize still counts
    /// segments the receiver holds (spec §4.4.2; issue #29).
    pub fn cwnd_after_cut(&mut self, cut: f64) {
        match self {
            Self::Packets { cwnd, .. } => *cwnd = cut.min(cwnd.max(2.0)).max(1.0),
            Self::Bytes {
                cwnd,
                ssthresh,
                mss,
                ..
            } => *cwnd = (*ssthresh).min((*cwnd).max(2 * *mss)),
        }
    }

    /// After a cut: `cwnd = ssthresh` (RFC 5681 (4) with RFC 6675 (4.2): "ssthresh = cwnd =
    /// FlightSize / 2"), never above `cwnd` before the cut, as [`Self::cwnd_after_cut`].
    pub fn cwnd_to_ssthresh_after_cut(&mut self) {
        match self {
            Self::Packets { cwnd, ssthresh, .. } => *cwnd = (*ssthresh as f64).min(cwnd.max(2.0)),
            Self::Bytes {
                cwnd,
                ssthresh,
                mss,
                ..
            } => *cwnd = (*ssthresh).min((*cwnd).max(2 * *mss)),
        }
    }

    /// Adds `n` segments to cwnd (Reno's inflation by the duplicate ACKs that triggered the
    /// fast retransmit, on top of the cut window).
    pub fn add_segments(&mut self, n: u64) {
        match self {
            Self::Packets { cwnd, .. } => *cwnd += n as f64,
            Self::Bytes { cwnd, mss, .. } => *cwnd += n * *mss,
        }
    }

    /// `min(cwnd, rwnd)` in segments (`rwnd` in packets or bytes, per mode).
    pub fn base_segments(&self, rwnd: u64) -> f64 {
        match self {
            Self::Packets { cwnd, .. } => cwnd.min(rwnd as f64),
            Self::Bytes { cwnd, mss, .. } => (*cwnd).min(rwnd) as f64 / *mss as f64,
        }
    }

    /// A multiplicative decrease by `factor` of `base_segments`: `ssthresh` to the reduced
    /// window (whole segments, at least 2); returns the reduced window as [`Self::halve`]
    /// does (packet mode: segments, fractional; byte mode: the new ssthresh in bytes).
    pub fn reduce(&mut self, base_segments: f64, factor: f64) -> f64 {
        let reduced = base_segments * factor;
        match self {
            Self::Packets { ssthresh, .. } => {
                *ssthresh = (reduced as u64).max(2);
                reduced
            }
            Self::Bytes { ssthresh, mss, .. } => {
                *ssthresh = (reduced as u64).max(2) * *mss;
                *ssthresh as f64
            }
        }
    }

    /// BCN-TCP: `cwnd = max(1, cwnd · factor)`, `ssthresh = max(2, floor(cwnd))` (segments).
    pub fn scale_down(&mut self, factor: f64) {
        match self {
            Self::Packets { cwnd, ssthresh, .. } => {
                *cwnd = (*cwnd * factor).max(1.0);
                *ssthresh = (*cwnd as u64).max(2);
            }
            Self::Bytes {
                cwnd,
                ssthresh,
                mss,
                ..
            } => {
                *cwnd = ((*cwnd as f64 * factor) as u64).max(*mss);
                *ssthresh = (*cwnd / *mss * *mss).max(2 * *mss);
            }
        }
    }

    /// RFC 6582 partial ACK: deflate by the `acked` segments, then add one segment back.
    pub fn deflate_partial(&mut self, acked_segments: u64) {
        match self {
            Self::Packets { cwnd, .. } => *cwnd = (*cwnd - acked_segments as f64 + 1.0).max(1.0),
            Self::Bytes { cwnd, mss, .. } => {
                *cwnd = (cwnd.saturating_sub(acked_segments * *mss) + *mss).max(*mss)
            }
        }
    }

    /// `cwnd = n` segments, at least one (deviation D3).
    pub fn set_segments(&mut self, n: f64) {
        match self {
            Self::Packets { cwnd, .. } => *cwnd = n.max(1.0),
            Self::Bytes { cwnd, mss, .. } => *cwnd = ((n.max(1.0)) as u64) * *mss,
        }
    }

    /// `cwnd = ssthresh + extra` segments (BSD Reno inflation and deflation).
    pub fn set_ssthresh_plus(&mut self, extra_segments: u64) {
        match self {
            Self::Packets { cwnd, ssthresh, .. } => *cwnd = (*ssthresh + extra_segments) as f64,
            Self::Bytes {
                cwnd,
                ssthresh,
                mss,
                ..
            } => *cwnd = *ssthresh + extra_segments * *mss,
        }
    }

    /// Adds one segment (BSD Reno window inflation per further duplicate ACK).
    pub fn inflate_one(&mut self) {
        match self {
            Self::Packets { cwnd, .. } => *cwnd += 1.0,
            Self::Bytes {
                cwnd,
                mss,
                max_window,
                ..
            } => *cwnd = (*cwnd + *mss).min(*max_window),
        }
    }

    /// `cwnd = n` segments exactly (byte mode: whole bytes), within `[1, maximum]` segments.
    pub fn set_cwnd_segments(&mut self, n: f64) {
        match self {
            Self::Packets { cwnd, max_cwnd, .. } => {
                *cwnd = n.max(1.0);
                if *max_cwnd > 0 && *cwnd > *max_cwnd as f64 {
                    *cwnd = *max_cwnd as f64;
                }
            }
            Self::Bytes {
                cwnd,
                mss,
                max_window,
                ..
            } => *cwnd = ((n.max(1.0) * *mss as f64) as u64).min(*max_window),
        }
    }

    /// `true` while [`Self::grow`] adds a whole segment per ACK (slow start).
    pub fn in_slow_start(&self) -> bool {
        match self {
            Self::Packets { cwnd, ssthresh, .. } => *cwnd < *ssthresh as f64,
            Self::Bytes { cwnd, ssthresh, .. } => *cwnd <= *ssthresh,
        }
    }

    /// `true` while `cwnd` exceeds `ssthresh`.
    pub fn above_ssthresh(&self) -> bool {
        match self {
            Self::Packets { cwnd, ssthresh, .. } => *cwnd > *ssthresh as f64,
            Self::Bytes { cwnd, ssthresh, .. } => *cwnd > *ssthresh,
        }
    }

    /// `cwnd` in segments, for traces.
    pub fn cwnd_segments(&self) -> f64 {
        match self {
            Self::Packets { cwnd, .. } => *cwnd,
            Self::Bytes { cwnd, mss, .. } => *cwnd as f64 / *mss as f64,
        }
    }

    /// `ssthresh` in segments, for traces.
    pub fn ssthresh_segments(&self) -> f64 {
        match self {
            Self::Packets { ssthresh, .. } => *ssthresh as f64,
            Self::Bytes { ssthresh, mss, .. } => *ssthresh as f64 / *mss as f64,
        }
    }

    /// The usable window: whole packets `min(floor(cwnd) + extra, rwnd)` in packet mode, bytes
    /// `min(cwnd, rwnd)` in byte mode.
    pub fn usable(&self, rwnd: u64, extra_packets: u64) -> u64 {
        match self {
            Self::Packets { cwnd, .. } => (*cwnd as u64 + extra_packets).min(rwnd),
            Self::Bytes { cwnd, .. } => (*cwnd).min(rwnd),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, Variant};

    fn ns2() -> CongestionWindow {
        CongestionWindow::new(&SenderConfig {
            rwnd: 1000,
            ..Profile::Ns2_2000.sender(Variant::Reno)
        })
    }

    fn bsd() -> CongestionWindow {
        CongestionWindow::new(&Profile::Bsd.sender(Variant::Reno))
    }

    #[test]
    fn slow_start_doubles_per_round_trip() {
        let mut w = ns2();
        let mut acks_per_rtt = 1;
        for rtt in 0..5 {
            assert_eq!(w.cwnd_segments(), f64::from(1 << rtt));
            for _ in 0..acks_per_rtt {
                w.grow();
            }
            acks_per_rtt *= 2;
        }
        let mut b = bsd();
        for _ in 0..3 {
            b.grow();
        }
        assert_eq!(b.cwnd_segments(), 4.0);
    }

    #[test]
    fn congestion_avoidance_adds_about_one_segment_per_window() {
        let mut w = ns2();
        w.set_segments(10.0);
        if let CongestionWindow::Packets { ssthresh, .. } = &mut w {
            *ssthresh = 10;
        }
        for _ in 0..10 {
            w.grow();
        }
        // Ten increments of 1/cwnd starting from 10 add just under one segment.
        let c = w.cwnd_segments();
        assert!((10.9..11.0).contains(&c), "{c}");
        // BSD: integer bytes, cwnd += mss*mss/cwnd.
        let mut b = bsd();
        if let CongestionWindow::Bytes { cwnd, ssthresh, .. } = &mut b {
            *cwnd = 5120;
            *ssthresh = 1024;
        }
        b.grow();
        assert_eq!(b.cwnd_segments() * 512.0, (5120 + 512 * 512 / 5120) as f64);
    }

    #[test]
    fn halving_uses_min_of_cwnd_and_rwnd() {
        let mut w = ns2();
        w.set_segments(31.7);
        assert_eq!(w.halve(1000), 15.0);
        assert_eq!(w.ssthresh_segments(), 15.0);
        assert_eq!(w.halve(8), 4.0, "rwnd limits the base");
        w.set_segments(3.0);
        assert_eq!(w.halve(1000), 1.0);
        assert_eq!(w.ssthresh_segments(), 2.0, "ssthresh never below 2");
        let mut b = bsd();
        b.set_segments(9.0);
        b.halve(65_535);
        assert_eq!(
            b.ssthresh_segments(),
            4.0,
            "floor(9*512/2/512) = 4 segments"
        );
        b.halve(1024);
        assert_eq!(b.ssthresh_segments(), 2.0);
    }

    #[test]
    fn a_cut_never_raises_cwnd() {
        // RFC 5681 (4) from a FlightSize above cwnd (SACKed segments, or what was sent against
        // a window inflated in recovery): the cut is from cwnd, and cwnd is not raised.
        let mut r = CongestionWindow::new(&Profile::Rfc.sender(Variant::Sack));
        r.set_cwnd_segments(36.5);
        assert_eq!(r.halve_flight(444) / 1460.0, 18.25, "half of cwnd, not 222");
        r.cwnd_to_ssthresh_after_cut();
        assert_eq!(r.cwnd_segments(), 18.25);
        r.set_cwnd_segments(40.0);
        r.halve_flight(30);
        assert_eq!(r.ssthresh_segments(), 15.0, "a smaller flight is cut from");
        // The two-segment floor is kept even above a smaller window.
        r.set_cwnd_segments(1.0);
        r.halve_flight(10);
        assert_eq!(r.ssthresh_segments(), 2.0);
        r.cwnd_to_ssthresh_after_cut();
        assert_eq!(r.cwnd_segments(), 2.0);
        // Whatever the cut returned, the window after it is at most the window before.
        let mut w = ns2();
        w.set_segments(10.0);
        w.cwnd_after_cut(25.0);
        assert_eq!(w.cwnd_segments(), 10.0);
        w.cwnd_after_cut(4.5);
        assert_eq!(w.cwnd_segments(), 4.5);
    }

    #[test]
    fn bsd_window_is_capped_at_max_window() {
        let mut b = bsd();
        for _ in 0..1000 {
            b.grow();
        }
        assert_eq!(b.usable(u64::MAX, 0), 65_535);
    }
}
