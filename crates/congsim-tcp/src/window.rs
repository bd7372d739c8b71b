//! Congestion-window arithmetic (spec `tcp.md` §3.3 growth, §3.4 halving), per sequence model.
//!
//! This is the "congestion ops" half of a TCP variant: how the window grows on a new ACK and
//! how it is cut. Loss recovery (when to cut, what to retransmit) lives in `recovery`.

use crate::config::{SenderConfig, SeqMode};

/// A window size in the sender's own unit: packets (ns-2's fractional cwnd) or bytes (BSD).
/// Only a [`CongestionWindow`] makes one, so a size always matches the window it is given to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowSize(Size);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Size {
    Packets(f64),
    Bytes(u64),
}

impl WindowSize {
    /// The size in segments (`mss` bytes each in byte mode).
    pub fn segments(self, mss: u32) -> f64 {
        match self.0 {
            Size::Packets(v) => v,
            Size::Bytes(v) => v as f64 / f64::from(mss),
        }
    }
}

/// A controller's answer to a congestion event: the new ssthresh and the reduced window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cut {
    pub ssthresh: WindowSize,
    /// The reduced window, which the loss recovery installs or not ([`AfterCut`]).
    pub cwnd: WindowSize,
}

impl Cut {
    fn packets(ssthresh: u64, cwnd: f64) -> Self {
        Self {
            ssthresh: WindowSize(Size::Packets(ssthresh as f64)),
            cwnd: WindowSize(Size::Packets(cwnd)),
        }
    }

    /// In byte mode the reduced window is ssthresh.
    fn bytes(ssthresh: u64) -> Self {
        Self {
            ssthresh: WindowSize(Size::Bytes(ssthresh)),
            cwnd: WindowSize(Size::Bytes(ssthresh)),
        }
    }
}

/// What cwnd becomes when a cut is applied: the caller's choice (the loss recovery's, or the
/// mark response's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterCut {
    /// The cut's reduced window (spec §3.4: Reno, ECN).
    Reduced,
    /// ssthresh (RFC 6675 (4.2)).
    Ssthresh,
    /// One segment (Tahoe, a timeout).
    OneSegment,
    /// Unchanged: the recovery lowers it as ACKs come (PRR, RFC 6937).
    Kept,
}

/// A change of cwnd and ssthresh: every one the sender makes is one of these.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WindowChange {
    /// cwnd to a size a controller chose (growth on an ACK).
    Cwnd(WindowSize),
    /// A congestion controller's cut.
    Cut(Cut, AfterCut),
    /// cwnd to `n` segments, at least one (deviation D3).
    Segments(f64),
    /// cwnd to ssthresh plus `n` segments (BSD Reno inflation and deflation).
    SsthreshPlus(u64),
    /// `n` segments added to cwnd (Reno's inflation by the duplicates that triggered the
    /// fast retransmit).
    AddSegments(u64),
    /// One segment more (BSD Reno, per further duplicate ACK).
    InflateOne,
    /// RFC 6582 partial ACK: deflated by the segments acknowledged, one added back.
    DeflatePartial(u64),
    /// BCN-TCP's decrease by a factor.
    ScaleDown(f64),
}

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

    /// Applies a change of the window. The sender core is the only caller (every write of
    /// cwnd and ssthresh goes through `SenderCore::change_window`), so a trace of every change
    /// needs one hook.
    #[inline(always)]
    pub(crate) fn apply(&mut self, change: WindowChange) {
        match change {
            WindowChange::Cwnd(size) => self.set_cwnd(size),
            WindowChange::Cut(cut, after) => self.apply_cut(cut, after),
            WindowChange::Segments(n) => self.set_segments(n),
            WindowChange::SsthreshPlus(extra) => self.set_ssthresh_plus(extra),
            WindowChange::AddSegments(n) => self.add_segments(n),
            WindowChange::InflateOne => self.inflate_one(),
            WindowChange::DeflatePartial(acked) => self.deflate_partial(acked),
            WindowChange::ScaleDown(factor) => self.scale_down(factor),
        }
    }

    fn set_cwnd(&mut self, size: WindowSize) {
        match (self, size.0) {
            (Self::Packets { cwnd, .. }, Size::Packets(v)) => *cwnd = v,
            (Self::Bytes { cwnd, .. }, Size::Bytes(v)) => *cwnd = v,
            (window, size) => unreachable!("{size:?} given to {window:?}"),
        }
    }

    /// cwnd after one increment per new ACK (no byte counting): slow start or congestion
    /// avoidance.
    pub fn grown(&self) -> WindowSize {
        match *self {
            Self::Packets {
                cwnd,
                ssthresh,
                max_cwnd,
                ..
            } => {
                //= ns-2 opencwnd(): slow start while cwnd_ < ssthresh_, else += 1/cwnd_
                let mut next = if cwnd < ssthresh as f64 {
                    cwnd + 1.0
                } else {
                    cwnd + 1.0 / cwnd
                };
                if max_cwnd > 0 && (next as u64) > max_cwnd {
                    next = max_cwnd as f64;
                }
                WindowSize(Size::Packets(next))
            }
            Self::Bytes {
                cwnd,
                ssthresh,
                mss,
                max_window,
                reno_ca_extra,
            } => {
                //= 4.4BSD tcp_input: incr = maxseg; if (cw > ssthresh) incr = incr*incr/cw
                let mut incr = mss;
                if cwnd > ssthresh {
                    incr = mss * mss / cwnd;
                    if reno_ca_extra {
                        incr += mss / 8;
                    }
                }
                WindowSize(Size::Bytes((cwnd + incr).min(max_window)))
            }
        }
    }

    /// The cut of spec §3.4: `ssthresh` half of `min(cwnd, rwnd)`, and the halved window
    /// (packet mode, fractional with `precise_halving`; byte mode, ssthresh).
    ///
    /// `rwnd` is in packets (packet mode) or bytes (byte mode).
    pub fn halved(&self, rwnd: u64) -> Cut {
        match *self {
            Self::Packets {
                cwnd,
                precise_halving,
                ..
            } => {
                let half = if precise_halving {
                    cwnd.min(rwnd as f64) / 2.0
                } else {
                    //= ns-2 slowdown(): halfwin = int(window() / 2)
                    (((cwnd as u64).min(rwnd)) / 2) as f64
                };
                Cut::packets((half as u64).max(2), half)
            }
            Self::Bytes { cwnd, mss, .. } => {
                //= 4.4BSD: win = min(snd_wnd, snd_cwnd) / 2 / maxseg; if (win < 2) win = 2
                let segments = (cwnd.min(rwnd) / 2 / mss).max(2);
                Cut::bytes(segments * mss)
            }
        }
    }

    /// RFC 5681 (4): `ssthresh = max(FlightSize / 2, 2 · SMSS)`, the flight given in segments,
    /// but from no more than cwnd; the reduced window is ssthresh.
    ///
    /// The FlightSize counts every segment not cumulatively acknowledged: under SACK those the
    /// receiver holds, and after a recovery with window inflation (RFC 5681, RFC 6582) what was
    /// sent against the inflated window. Either can put it far above cwnd, and half of it would
    /// then raise cwnd (issue #29: a NewReno flow of the fat-tree example went from 30 segments
    /// to 69 at a fast retransmit). RFC 5681 asks for an ssthresh "no more than" (4), so the cut
    /// is from `min(FlightSize, cwnd)` (deviation D33).
    pub fn halved_flight(&self, flight_segments: u64) -> Cut {
        match *self {
            Self::Packets { cwnd, .. } => {
                let ssthresh = (flight_segments.min(cwnd as u64) / 2).max(2);
                Cut::packets(ssthresh, ssthresh as f64)
            }
            Self::Bytes { cwnd, mss, .. } => {
                let base = (flight_segments * mss).min(cwnd);
                Cut::bytes((base / 2).max(2 * mss))
            }
        }
    }

    /// A multiplicative decrease by `factor` of `base_segments`: `ssthresh` the reduced window
    /// in whole segments, at least 2; the reduced window itself (packet mode, fractional; byte
    /// mode, ssthresh).
    pub fn reduced(&self, base_segments: f64, factor: f64) -> Cut {
        let reduced = base_segments * factor;
        match *self {
            Self::Packets { .. } => Cut::packets((reduced as u64).max(2), reduced),
            Self::Bytes { mss, .. } => Cut::bytes((reduced as u64).max(2) * mss),
        }
    }

    /// Sets ssthresh and cwnd from a cut. A cut never raises cwnd: the new value is at most
    /// `cwnd` before it, except where the floor every cut keeps (ssthresh at least two
    /// segments, RFC 5681 (4), RFC 9438 §4.6) lies above a smaller window. A cut from
    /// `min(cwnd, rwnd)` is below `cwnd` anyway; a cut from the FlightSize need not be, since
    /// under SACK the FlightSize still counts segments the receiver holds (spec §4.4.2; issue
    /// #29). Packet mode keeps at least one segment.
    fn apply_cut(&mut self, cut: Cut, after: AfterCut) {
        match (self, cut.ssthresh.0, cut.cwnd.0) {
            (
                Self::Packets { cwnd, ssthresh, .. },
                Size::Packets(new_ssthresh),
                Size::Packets(reduced),
            ) => {
                *ssthresh = new_ssthresh as u64;
                *cwnd = match after {
                    AfterCut::Reduced => reduced.min(cwnd.max(2.0)).max(1.0),
                    //= RFC 6675 (4.2): ssthresh = cwnd = (FlightSize / 2)
                    AfterCut::Ssthresh => new_ssthresh.min(cwnd.max(2.0)),
                    AfterCut::OneSegment => 1.0,
                    AfterCut::Kept => *cwnd,
                };
            }
            (
                Self::Bytes {
                    cwnd,
                    ssthresh,
                    mss,
                    ..
                },
                Size::Bytes(new_ssthresh),
                Size::Bytes(reduced),
            ) => {
                *ssthresh = new_ssthresh;
                *cwnd = match after {
                    AfterCut::Reduced => reduced.min((*cwnd).max(2 * *mss)),
                    AfterCut::Ssthresh => new_ssthresh.min((*cwnd).max(2 * *mss)),
                    AfterCut::OneSegment => *mss,
                    AfterCut::Kept => *cwnd,
                };
            }
            (window, ..) => unreachable!("{cut:?} given to {window:?}"),
        }
    }

    /// Adds `n` segments to cwnd (Reno's inflation by the duplicate ACKs that triggered the
    /// fast retransmit, on top of the cut window).
    fn add_segments(&mut self, n: u64) {
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

    /// BCN-TCP: `cwnd = max(1, cwnd · factor)`, `ssthresh = max(2, floor(cwnd))` (segments).
    fn scale_down(&mut self, factor: f64) {
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
    fn deflate_partial(&mut self, acked_segments: u64) {
        match self {
            Self::Packets { cwnd, .. } => *cwnd = (*cwnd - acked_segments as f64 + 1.0).max(1.0),
            Self::Bytes { cwnd, mss, .. } => {
                *cwnd = (cwnd.saturating_sub(acked_segments * *mss) + *mss).max(*mss)
            }
        }
    }

    /// `cwnd = n` segments, at least one (deviation D3).
    fn set_segments(&mut self, n: f64) {
        match self {
            Self::Packets { cwnd, .. } => *cwnd = n.max(1.0),
            Self::Bytes { cwnd, mss, .. } => *cwnd = ((n.max(1.0)) as u64) * *mss,
        }
    }

    /// `cwnd = ssthresh + extra` segments (BSD Reno inflation and deflation).
    fn set_ssthresh_plus(&mut self, extra_segments: u64) {
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
    fn inflate_one(&mut self) {
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

    /// cwnd of `n` segments exactly (byte mode: whole bytes), within `[1, maximum]` segments.
    pub fn cwnd_for_segments(&self, n: f64) -> WindowSize {
        match *self {
            Self::Packets { max_cwnd, .. } => {
                let mut cwnd = n.max(1.0);
                if max_cwnd > 0 && cwnd > max_cwnd as f64 {
                    cwnd = max_cwnd as f64;
                }
                WindowSize(Size::Packets(cwnd))
            }
            Self::Bytes {
                mss, max_window, ..
            } => WindowSize(Size::Bytes(
                ((n.max(1.0) * mss as f64) as u64).min(max_window),
            )),
        }
    }

    /// `true` while [`Self::grown`] adds a whole segment per ACK (slow start).
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

    fn grow(w: &mut CongestionWindow) {
        w.apply(WindowChange::Cwnd(w.grown()));
    }

    /// Applies the cut `cut_of` computes from the window; returns cwnd after it.
    fn cut(
        w: &mut CongestionWindow,
        cut_of: impl Fn(&CongestionWindow) -> Cut,
        after: AfterCut,
    ) -> f64 {
        w.apply(WindowChange::Cut(cut_of(w), after));
        w.cwnd_segments()
    }

    #[test]
    fn slow_start_doubles_per_round_trip() {
        let mut w = ns2();
        let mut acks_per_rtt = 1;
        for rtt in 0..5 {
            assert_eq!(w.cwnd_segments(), f64::from(1 << rtt));
            for _ in 0..acks_per_rtt {
                grow(&mut w);
            }
            acks_per_rtt *= 2;
        }
        let mut b = bsd();
        for _ in 0..3 {
            grow(&mut b);
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
            grow(&mut w);
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
        grow(&mut b);
        assert_eq!(b.cwnd_segments() * 512.0, (5120 + 512 * 512 / 5120) as f64);
    }

    #[test]
    fn halving_uses_min_of_cwnd_and_rwnd() {
        let mut w = ns2();
        w.set_segments(31.7);
        assert_eq!(w.halved(1000).cwnd.segments(1), 15.0);
        assert_eq!(w.halved(8).cwnd.segments(1), 4.0, "rwnd limits the base");
        assert_eq!(cut(&mut w, |w| w.halved(1000), AfterCut::Reduced), 15.0);
        assert_eq!(w.ssthresh_segments(), 15.0);
        w.set_segments(3.0);
        assert_eq!(cut(&mut w, |w| w.halved(1000), AfterCut::Reduced), 1.0);
        assert_eq!(w.ssthresh_segments(), 2.0, "ssthresh never below 2");
        let mut b = bsd();
        b.set_segments(9.0);
        cut(&mut b, |w| w.halved(65_535), AfterCut::Reduced);
        assert_eq!(
            b.ssthresh_segments(),
            4.0,
            "floor(9*512/2/512) = 4 segments"
        );
        cut(&mut b, |w| w.halved(1024), AfterCut::Reduced);
        assert_eq!(b.ssthresh_segments(), 2.0);
        assert_eq!(cut(&mut b, |w| w.halved(65_535), AfterCut::OneSegment), 1.0);
    }

    #[test]
    fn a_cut_never_raises_cwnd() {
        // RFC 5681 (4) from a FlightSize above cwnd (SACKed segments, or what was sent against
        // a window inflated in recovery): the cut is from cwnd, and cwnd is not raised.
        let mut r = CongestionWindow::new(&Profile::Rfc.sender(Variant::Sack));
        r.set_cwnd(r.cwnd_for_segments(36.5));
        assert_eq!(
            r.halved_flight(444).ssthresh.segments(1460),
            18.25,
            "half of cwnd, not 222"
        );
        assert_eq!(
            cut(&mut r, |w| w.halved_flight(444), AfterCut::Ssthresh),
            18.25
        );
        r.set_cwnd(r.cwnd_for_segments(40.0));
        cut(&mut r, |w| w.halved_flight(30), AfterCut::Ssthresh);
        assert_eq!(r.ssthresh_segments(), 15.0, "a smaller flight is cut from");
        // The two-segment floor is kept even above a smaller window.
        r.set_cwnd(r.cwnd_for_segments(1.0));
        assert_eq!(
            cut(&mut r, |w| w.halved_flight(10), AfterCut::Ssthresh),
            2.0
        );
        assert_eq!(r.ssthresh_segments(), 2.0);
        // Whatever the cut's reduced window, the window after it is at most the window before.
        let mut w = ns2();
        w.set_segments(10.0);
        let up = Cut::packets(12, 25.0);
        assert_eq!(cut(&mut w, |_| up, AfterCut::Reduced), 10.0);
        assert_eq!(
            cut(&mut w, |_| Cut::packets(4, 4.5), AfterCut::Reduced),
            4.5
        );
    }

    #[test]
    fn a_size_of_the_other_model_is_refused() {
        let result = std::panic::catch_unwind(|| {
            let mut w = ns2();
            w.set_cwnd(bsd().grown());
        });
        assert!(result.is_err());
    }

    #[test]
    fn bsd_window_is_capped_at_max_window() {
        let mut b = bsd();
        for _ in 0..1000 {
            grow(&mut b);
        }
        assert_eq!(b.usable(u64::MAX, 0), 65_535);
    }
}
