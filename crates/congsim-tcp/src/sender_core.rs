//! The part of a sender every loss-recovery algorithm shares (spec `tcp.md` §3): sequence
//! state, the send primitive, the retransmit timer, RTT timing, the congestion window and the
//! counters. A recovery algorithm (`crate::recovery`) sees this and its own state, nothing else;
//! the sender (`crate::sender`) owns one of each and routes events between them.
//!
//! Internally every sequence is a *segment index* (0, 1, 2, …); the wire carries packet
//! numbers (packet mode) or byte numbers (byte mode, segment `i` starting at byte `i · MSS`).

use crate::config::{BcnReaction, MarkResponse, SenderConfig, SeqMode, TimerMode};
use crate::congestion::{
    AckSample, Cause, CongestionEvent, CongestionOps, Controller, CutBase, SentSegment,
};
use crate::rate::{RateSample, RateSampler};
use crate::rtt::RttEstimator;
use crate::segment::Segment;
use crate::stats::{SenderStats, TraceEvent, TraceKind};
use crate::window::{AfterCut, CongestionWindow, WindowChange};
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::wire::{SackBlocks, TcpFlags, TcpHeader};
use std::sync::Arc;

/// Size of the ns-2 connection-opening packet (`tcpip_base_hdr_size_`).
const SYN_BYTES: u32 = 40;

/// ns-2 `last_cwnd_action_`: what last changed the window, which the ECN response and ns-2's
/// recovery consult.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndAction {
    None,
    DupAck,
    Timeout,
    Exited,
    /// An ECN response cut the window.
    Ecn,
}

/// Where the sender stands with respect to loss (the states of Linux's `tcp_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// No loss suspected.
    Open,
    /// Duplicate ACKs have come, fewer than recovery needs (or the variant declined it).
    Disorder,
    /// Fast recovery: a fast retransmit repaired a loss and the window it belongs to is not yet
    /// acknowledged.
    Recovery,
    /// The retransmit timer expired and the data outstanding then is not yet all acknowledged.
    Loss,
}

impl CaState {
    /// The state's name in tables (Linux's, lower case).
    pub fn name(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Disorder => "disorder",
            Self::Recovery => "recovery",
            Self::Loss => "loss",
        }
    }
}

/// Why a segment was (re)sent, for `retx_by_cause`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SendCause {
    /// The send loop (new data, or go-back-N resends after a timeout or a Tahoe fast
    /// retransmit).
    Window,
    /// A fast retransmission of the first unacknowledged segment.
    FastRetransmit,
    /// NewReno: the retransmission a partial ACK triggers.
    PartialAck,
    /// SACK: a hole the scoreboard chose.
    SackHole,
    /// RFC 6675 rescue retransmission (`NextSeg()` rule 4).
    Rescue,
}

pub(crate) struct SenderCore {
    pub(crate) cfg: Arc<SenderConfig>,
    /// Written only by [`Self::change_window`].
    window: CongestionWindow,
    /// How the window grows and how far a congestion event cuts it.
    pub(crate) controller: Controller,
    /// `snd_una` as the controller last heard of it (`Self::tell_controller`).
    told_controller_to: u64,
    /// Delivery-rate sampling, for a controller that reads it (`None` for the others; boxed,
    /// so that the others do not carry its room).
    pub(crate) rate: Option<Box<RateSampler>>,
    /// RFC 6675's pipe, in segments, as the SACK recovery last set it (`None` outside its
    /// recovery): what a controller that sizes the window by the flight reads during a repair.
    pub(crate) recovery_pipe: Option<u64>,
    /// The ACK being processed carries ECN-Echo.
    pub(crate) ece_on_this_ack: bool,
    /// Pacing (`cfg.pacing`): the rate once an RTT is known, the earliest instant the next
    /// segment may leave, and whether a send loop stopped for it (a wake-up is then due).
    pacing_rate_bps: Option<f64>,
    pacing_release: SimTime,
    pacing_held: bool,
    /// The exact RTT smoothed as RFC 6298 smooths it (gain 1/8), for the pacing rate; the
    /// profiles' estimators are tick-quantised.
    smoothed_rtt: Option<SimDuration>,
    /// The round trip the ACK being processed measured, and the smallest so far.
    rtt_sample: Option<SimDuration>,
    min_rtt: Option<SimDuration>,
    pub(crate) rtt: RttEstimator,
    /// First unacknowledged segment.
    pub(crate) snd_una: u64,
    /// Next segment the send loop sends (ns-2 `t_seqno_`).
    pub(crate) snd_nxt: u64,
    /// One past the highest segment ever sent (ns-2 `maxseq_ + 1`).
    pub(crate) snd_max: u64,
    /// One past the last segment the application has supplied (`u64::MAX`: infinite source).
    pub(crate) end: u64,
    /// Application bytes of a finite transfer (for the short last segment in byte mode).
    transfer_bytes: Option<u64>,
    /// Receiver window: packets (packet mode) or bytes (byte mode).
    pub(crate) rwnd: u64,
    pub(crate) dupacks: u32,
    /// ns-2 `recover_`, as a packet number (−1 style values allowed).
    pub(crate) recover: i64,
    pub(crate) last_cwnd_action: CwndAction,
    ca_state: CaState,
    /// `snd_max` when the last timeout fired: `CaState::Loss` lasts until it is acknowledged.
    loss_end: u64,
    // RTT timing (one segment at a time, Karn).
    rtt_active: bool,
    rtt_seg: u64,
    rtt_sent_at: SimTime,
    /// BSD `t_rtt`: ticks since timing started, counting from 1.
    rtt_ticks: i64,
    /// Phase of this host's ns-2 tick clock (`boot_time_`).
    boot_phase: SimDuration,
    // Retransmit timer.
    rto_deadline: Option<SimTime>,
    rto_countdown: u32,
    pub(crate) outbox: Vec<Segment>,
    pub(crate) stats: SenderStats,
    pub(crate) completed_at: Option<SimTime>,
    pub(crate) started: bool,
    /// Congestion events, when tracing is on (off by default: it costs memory).
    pub(crate) trace: Option<Vec<TraceEvent>>,
    /// A fast retransmit happened and no new ACK has arrived since (the next one is traced as
    /// the end of its recovery).
    awaiting_recovery_exit: bool,
    /// Segments Limited Transmit sent since the last new ACK: RFC 5681 keeps them out of the
    /// FlightSize that sets ssthresh.
    pub(crate) limited_transmit_outstanding: u64,
    /// `snd_max` at the last fast retransmit, and `snd_una` at the last timeout: what a
    /// timeout's cause is told from (`SenderStats::timeouts_*`).
    fast_retransmit_high: u64,
    snd_una_at_timeout: Option<u64>,
    /// Set CWR on the next new data segment (after a response to a mark).
    pub(crate) cwr_pending: bool,
    /// The ACK being processed echoes a mark this sender answers: it does not open the window.
    pub(crate) echo_on_this_ack: bool,
}

impl SenderCore {
    pub(crate) fn new(cfg: Arc<SenderConfig>, boot_phase: SimDuration) -> Self {
        let window = CongestionWindow::new(&cfg);
        let rtt = RttEstimator::new(cfg.tick, cfg.initial_rto, cfg.rto_bounds);
        Self {
            rwnd: cfg.rwnd,
            window,
            controller: Controller::new(cfg.congestion_control),
            told_controller_to: 0,
            rate: Controller::samples_delivery_rate(cfg.congestion_control)
                .then(|| Box::new(RateSampler::new(cfg.mss))),
            recovery_pipe: None,
            pacing_rate_bps: None,
            pacing_release: SimTime::ZERO,
            pacing_held: false,
            smoothed_rtt: None,
            ece_on_this_ack: false,
            rtt_sample: None,
            min_rtt: None,
            rtt,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            end: 0,
            transfer_bytes: None,
            dupacks: 0,
            recover: 0,
            last_cwnd_action: CwndAction::None,
            ca_state: CaState::Open,
            loss_end: 0,
            rtt_active: false,
            rtt_seg: 0,
            rtt_sent_at: SimTime::ZERO,
            rtt_ticks: 0,
            boot_phase,
            rto_deadline: None,
            rto_countdown: 0,
            outbox: Vec::new(),
            stats: SenderStats {
                rtt_min_s: f64::INFINITY,
                ..SenderStats::default()
            },
            completed_at: None,
            started: false,
            trace: None,
            awaiting_recovery_exit: false,
            limited_transmit_outstanding: 0,
            fast_retransmit_high: 0,
            snd_una_at_timeout: None,
            cwr_pending: false,
            echo_on_this_ack: false,
            cfg,
        }
    }

    // ---- loss state -------------------------------------------------------------------------

    pub(crate) fn ca_state(&self) -> CaState {
        self.ca_state
    }

    pub(crate) fn in_recovery(&self) -> bool {
        self.ca_state == CaState::Recovery
    }

    pub(crate) fn enter_recovery(&mut self) {
        self.ca_state = CaState::Recovery;
    }

    /// Fast recovery ends (or never began): back to `Open`.
    pub(crate) fn leave_recovery(&mut self) {
        if self.ca_state == CaState::Recovery {
            self.ca_state = CaState::Open;
        }
        self.recovery_pipe = None;
    }

    /// A duplicate ACK counts towards a fast retransmit.
    pub(crate) fn count_dupack(&mut self) {
        self.stats.dupacks_rcvd += 1;
        self.dupacks += 1;
        if self.ca_state == CaState::Open {
            self.ca_state = CaState::Disorder;
        }
    }

    /// A non-duplicate ACK for the same data (BSD: the window changed) restarts the count.
    pub(crate) fn reset_dupacks(&mut self) {
        self.dupacks = 0;
        if self.ca_state == CaState::Disorder {
            self.ca_state = CaState::Open;
        }
    }

    /// `true` while the current window of data has already been cut by an ECN response: a
    /// fast retransmit then repairs the loss without cutting again, and a timeout sets cwnd to
    /// one segment without touching ssthresh (spec §4.6).
    pub(crate) fn ecn_cut_this_window(&self) -> bool {
        self.last_cwnd_action == CwndAction::Ecn && self.highest_ack() <= self.recover
    }

    // ---- sequence arithmetic ----------------------------------------------------------------

    /// Segments (not counting the ns-2 opening packet) that the transfer consists of.
    fn first_data_segment(&self) -> u64 {
        u64::from(self.cfg.syn)
    }

    /// The application starts: `bytes` to send, or an infinite source.
    pub(crate) fn start(&mut self, bytes: Option<u64>) {
        let mss = u64::from(self.cfg.mss);
        self.transfer_bytes = bytes;
        self.end = match bytes {
            // ns-2 sends ceil(S / size) full-size packets; BSD sends a short last segment.
            Some(b) => self.first_data_segment() + b.div_ceil(mss),
            None => u64::MAX,
        };
        self.started = true;
    }

    pub(crate) fn payload_of(&self, seg: u64) -> u32 {
        if self.cfg.syn && seg == 0 {
            return 0;
        }
        match (self.cfg.seq_mode, self.transfer_bytes) {
            (SeqMode::Bytes, Some(total)) => {
                let start = seg * u64::from(self.cfg.mss);
                (total.saturating_sub(start)).min(u64::from(self.cfg.mss)) as u32
            }
            _ => self.cfg.mss,
        }
    }

    fn wire_seq(&self, seg: u64) -> u64 {
        match self.cfg.seq_mode {
            SeqMode::Packets => seg,
            SeqMode::Bytes => seg * u64::from(self.cfg.mss),
        }
    }

    pub(crate) fn ack_to_segments(&self, ack: u64) -> u64 {
        match self.cfg.seq_mode {
            SeqMode::Packets => ack,
            SeqMode::Bytes => ack.div_ceil(u64::from(self.cfg.mss)),
        }
    }

    /// Highest packet number cumulatively ACKed (ns-2 `highest_ack_`).
    pub(crate) fn highest_ack(&self) -> i64 {
        self.snd_una as i64 - 1
    }
    /// Highest packet number sent (ns-2 `maxseq_`).
    pub(crate) fn maxseq(&self) -> i64 {
        self.snd_max as i64 - 1
    }

    /// The receiver window alone admits segment `seg`.
    pub(crate) fn rwnd_allows(&self, seg: u64) -> bool {
        match self.cfg.seq_mode {
            SeqMode::Packets => seg < self.snd_una + self.rwnd,
            SeqMode::Bytes => {
                let mss = u64::from(self.cfg.mss);
                seg * mss + u64::from(self.payload_of(seg)) - self.snd_una * mss <= self.rwnd
            }
        }
    }

    /// The window admits segment `seg` when `skipped` segments below it (SACKed ones, which
    /// are not in flight) do not count, with `extra_packets` added to a packet-mode window
    /// (ns-2 Reno's `dupwnd`). The receiver window still counts the skipped segments.
    pub(crate) fn window_allows_beyond(&self, seg: u64, skipped: u64, extra_packets: u64) -> bool {
        match self.cfg.seq_mode {
            SeqMode::Packets => {
                let cwnd_limit =
                    self.snd_una + self.window.usable(u64::MAX, extra_packets) + skipped;
                seg < cwnd_limit.min(self.snd_una + self.rwnd)
            }
            SeqMode::Bytes => {
                let mss = u64::from(self.cfg.mss);
                let span = seg * mss + u64::from(self.payload_of(seg)) - self.snd_una * mss;
                span <= self.rwnd && span <= self.window.usable(u64::MAX, 0) + skipped * mss
            }
        }
    }

    /// The plain send loop (spec §3.2): new segments while the window allows, at most `burst`
    /// (0: unlimited).
    pub(crate) fn send_window(&mut self, now: SimTime, burst: u32, extra_packets: u64) {
        let mut sent = 0;
        while self.snd_nxt < self.end
            && self.window_allows_beyond(self.snd_nxt, 0, extra_packets)
            && !self.pacing_holds(now)
        {
            self.output(now, self.snd_nxt, SendCause::Window);
            self.snd_nxt += 1;
            sent += 1;
            if burst > 0 && sent == burst {
                break;
            }
        }
    }

    /// Transmits segment `seg` (ns-2 `output()`).
    pub(crate) fn output(&mut self, now: SimTime, seg: u64, cause: SendCause) {
        let payload = self.payload_of(seg);
        let is_syn = self.cfg.syn && seg == 0;
        let wire_bytes = if is_syn {
            SYN_BYTES
        } else {
            payload + self.cfg.header_bytes
        };
        let nothing_outstanding = self.snd_una == self.snd_max;
        let is_retransmission = seg < self.snd_max;
        self.controller.on_sent(&SentSegment {
            now,
            segment: seg,
            payload_bytes: payload,
            retransmission: is_retransmission,
        });
        if let Some(rate) = &mut self.rate {
            rate.on_sent(now, seg, payload);
        }
        self.stats.data_pkts_sent += 1;
        self.stats.data_bytes_sent += u64::from(payload);
        if !is_syn {
            self.stats.cwnd_sum_at_sends += self.window.cwnd_segments();
            self.stats.cwnd_sends += 1;
        }
        if is_retransmission {
            self.stats.retx_pkts += 1;
            self.stats.retx_bytes += u64::from(payload);
            match cause {
                SendCause::Window => self.stats.retx_go_back_n += 1,
                SendCause::FastRetransmit => self.stats.retx_fast += 1,
                SendCause::PartialAck => self.stats.retx_partial_ack += 1,
                SendCause::SackHole => self.stats.retx_sack_hole += 1,
                SendCause::Rescue => self.stats.retx_rescue += 1,
            }
        } else {
            self.snd_max = seg + 1;
            if !self.rtt_active {
                self.rtt_active = true;
                self.rtt_seg = seg;
                self.rtt_sent_at = now;
                self.rtt_ticks = 1;
            }
        }
        // RFC 3168: only new data is ECN-capable (DCTCP: retransmissions too), and CWR rides on
        // the first new segment after a window reduction.
        let ect = self.cfg.mark_response != MarkResponse::Off
            && (!is_retransmission || self.cfg.ect_retransmissions)
            && !is_syn;
        let cwr = ect && std::mem::take(&mut self.cwr_pending);
        let header = TcpHeader {
            seq: self.wire_seq(seg),
            ack: 0,
            payload_bytes: payload,
            window_bytes: 0,
            flags: TcpFlags {
                syn: is_syn,
                cwr,
                ..TcpFlags::default()
            },
            is_data: true,
            sack: SackBlocks::EMPTY,
        };
        self.outbox.push(Segment {
            header,
            wire_bytes,
            retransmission: is_retransmission,
            ect,
        });
        if let Some(rate_bps) = self.pacing_rate_bps {
            let gap_ps = (f64::from(wire_bytes) * 8.0 / rate_bps * 1e12) as u64;
            self.pacing_release = self.pacing_release.max(now) + SimDuration::from_ps(gap_ps);
        }
        if !self.timer_pending() || nothing_outstanding {
            self.arm_timer(now);
        }
    }

    pub(crate) fn record(&mut self, time: SimTime, kind: TraceKind) {
        match kind {
            TraceKind::FastRetransmit => {
                self.awaiting_recovery_exit = true;
                self.fast_retransmit_high = self.snd_max;
            }
            TraceKind::Timeout | TraceKind::RecoveryExit => self.awaiting_recovery_exit = false,
            TraceKind::PartialAck | TraceKind::EcnResponse | TraceKind::BcnResponse => {}
        }
        let (cwnd, ssthresh) = (self.window.cwnd_segments(), self.window.ssthresh_segments());
        if let Some(trace) = &mut self.trace {
            trace.push(TraceEvent {
                time,
                kind,
                cwnd,
                ssthresh,
            });
        }
    }

    // ---- retransmit timer -------------------------------------------------------------------

    pub(crate) fn timer_pending(&self) -> bool {
        match self.cfg.timer_mode {
            TimerMode::Exact => self.rto_deadline.is_some(),
            TimerMode::Tick => self.rto_countdown > 0,
        }
    }

    /// (Re-)arms the retransmit timer with the current RTO, back-off included.
    pub(crate) fn arm_timer(&mut self, now: SimTime) {
        match self.cfg.timer_mode {
            TimerMode::Exact => self.rto_deadline = Some(now + self.rtt.rto()),
            TimerMode::Tick => self.rto_countdown = self.rtt.rto_ticks(),
        }
    }

    pub(crate) fn cancel_timer(&mut self) {
        self.rto_deadline = None;
        self.rto_countdown = 0;
    }

    pub(crate) fn restart_or_cancel_timer(&mut self, now: SimTime, outstanding_after: bool) {
        if outstanding_after {
            self.arm_timer(now);
        } else {
            self.cancel_timer();
        }
    }

    pub(crate) fn next_timeout(&self) -> Option<SimTime> {
        if self.pacing_held {
            let release = Some(self.pacing_release);
            return self
                .rto_deadline
                .map_or(release, |rto| release.min(Some(rto)));
        }
        self.rto_deadline
    }

    /// Exact mode: `true` (and the timer disarmed) if the timer has expired by `now`; stale
    /// wake-ups (the timer was re-armed later) give `false`.
    pub(crate) fn take_expired_timer(&mut self, now: SimTime) -> bool {
        if self.rto_deadline.is_some_and(|d| d <= now) {
            self.rto_deadline = None;
            true
        } else {
            false
        }
    }

    /// Tick mode: one boundary of the slow clock; `true` if the retransmit timer expires on it.
    pub(crate) fn slow_tick_expires_timer(&mut self) -> bool {
        if self.rto_countdown == 0 {
            return false;
        }
        self.rto_countdown -= 1;
        self.rto_countdown == 0
    }

    /// Counts a slow-clock tick of the RTT measurement in progress (tick mode).
    pub(crate) fn count_rtt_tick(&mut self) {
        if self.rtt_active {
            self.rtt_ticks += 1;
        }
    }

    // ---- RTT timing -------------------------------------------------------------------------

    /// `true` if an ACK up to `ack_seg` covers the segment being timed.
    pub(crate) fn rtt_timing_covered_by(&self, ack_seg: u64) -> bool {
        self.rtt_active && ack_seg > self.rtt_seg
    }

    /// Abandons the RTT measurement in progress (Karn: any retransmission does this).
    pub(crate) fn cancel_rtt_timing(&mut self) {
        self.rtt_active = false;
        self.rtt_ticks = 0;
    }

    fn take_rtt_sample(&mut self, now: SimTime) {
        let exact = now.since(self.rtt_sent_at);
        let ticks = match self.cfg.timer_mode {
            TimerMode::Exact => {
                //= tcp.md §3.6: m = floor((t_a − t_s + ((t_s + φ) mod G)) / G), at least 1
                let g = self.cfg.tick.as_ps();
                let offset = (self.rtt_sent_at.as_ps() + self.boot_phase.as_ps()) % g;
                ((exact.as_ps() + offset) / g).max(1) as i64
            }
            TimerMode::Tick => self.rtt_ticks,
        };
        self.rtt.sample(ticks);
        self.rtt_active = false;
        self.rtt_ticks = 0;
        self.rtt_sample = Some(exact);
        //= RFC 6298 (2.3): SRTT <- (1 - 1/8) * SRTT + 1/8 * R'
        self.smoothed_rtt = Some(self.smoothed_rtt.map_or(exact, |srtt| {
            SimDuration::from_ps((srtt.as_ps() * 7 + exact.as_ps()) / 8)
        }));
        self.min_rtt = Some(self.min_rtt.map_or(exact, |min| min.min(exact)));
        let s = exact.as_secs_f64();
        let st = &mut self.stats;
        st.rtt_samples += 1;
        st.rtt_sum_s += s;
        st.rtt_sum_sq_s += s * s;
        st.rtt_min_s = st.rtt_min_s.min(s);
        st.rtt_max_s = st.rtt_max_s.max(s);
        st.rtt_quantised_sum_s += ticks as f64 * self.cfg.tick.as_secs_f64();
    }

    // ---- the window -------------------------------------------------------------------------

    pub(crate) fn window(&self) -> &CongestionWindow {
        &self.window
    }

    /// Every change of cwnd and ssthresh, whoever decided it (the controller, the loss
    /// recovery, the mark response), is applied here.
    #[inline]
    pub(crate) fn change_window(&mut self, change: WindowChange) {
        self.window.apply(change);
    }

    /// A congestion event of `cause`, cut from `base`: the controller sizes the cut and `after`
    /// says what cwnd becomes.
    pub(crate) fn cut(&mut self, now: SimTime, cause: Cause, base: CutBase, after: AfterCut) {
        self.stats.cwnd_cuts += 1;
        let event = CongestionEvent {
            now,
            cause,
            base,
            pipe_segments: self.recovery_pipe.filter(|_| cause == Cause::Loss),
        };
        let cut = self.controller.on_congestion(&self.window, &event);
        self.change_window(WindowChange::Cut(cut, after));
    }

    /// A cut from the base the profile uses (spec §3.4): `min(cwnd, rwnd)`, or with
    /// `ssthresh_from_flight` the FlightSize (RFC 5681 (4), Limited Transmit segments
    /// excluded).
    pub(crate) fn cut_window(&mut self, now: SimTime, cause: Cause, after: AfterCut) {
        let base = if self.cfg.ssthresh_from_flight {
            CutBase::Flight {
                segments: self.flight_size(),
            }
        } else {
            CutBase::Window { rwnd: self.rwnd }
        };
        self.cut(now, cause, base, after);
    }

    /// Payload bytes of segments `from..to`: full segments, but for the ns-2 opening packet
    /// and the short last segment of a byte-mode transfer.
    fn payload_between(&self, from: u64, to: u64) -> u64 {
        if !(self.cfg.syn && from == 0) && to < self.end {
            // Full segments only: the common case, without a look at each end.
            return (to - from) * u64::from(self.cfg.mss);
        }
        match to - from {
            0 => 0,
            1 => u64::from(self.payload_of(from)),
            n => {
                (n - 2) * u64::from(self.cfg.mss)
                    + u64::from(self.payload_of(from))
                    + u64::from(self.payload_of(to - 1))
            }
        }
    }

    /// The controller sees the segments acknowledged since it last heard (nothing if none,
    /// unless it samples the delivery rate and this ACK SACKed new data) and its decision is
    /// applied. `window_may_open` is false where the loss recovery holds the window, or where
    /// the ACK echoes a mark the sender answers.
    #[inline]
    pub(crate) fn tell_controller(&mut self, now: SimTime, window_may_open: bool) {
        if self.controller.standard_growth() {
            // What `on_ack` of such a controller answers, without building its sample.
            if self.snd_una > self.told_controller_to {
                self.told_controller_to = self.snd_una;
                self.rtt_sample = None;
                if window_may_open && !self.echo_on_this_ack {
                    self.change_window(WindowChange::Cwnd(self.window.grown()));
                }
                self.update_pacing_rate();
            }
            return;
        }
        self.tell_controller_sample(now, window_may_open);
    }

    /// `tell_controller` for a controller that reads the [`AckSample`].
    #[inline(never)]
    fn tell_controller_sample(&mut self, now: SimTime, window_may_open: bool) {
        let acked_from = self.told_controller_to;
        let pending = if self.rate.is_some() {
            self.take_rate_sample()
        } else {
            None
        };
        if self.snd_una <= acked_from && pending.is_none() {
            return;
        }
        self.told_controller_to = self.snd_una;
        let sample = AckSample {
            now,
            segments_acked: self.snd_una - acked_from,
            bytes_acked: self.payload_between(acked_from, self.snd_una),
            ece: self.ece_on_this_ack,
            rtt: self.rtt_sample.take(),
            min_rtt: self.min_rtt,
            delivered_segments: self.snd_una,
            in_flight_segments: self.snd_max - self.snd_una,
            app_limited: self.snd_max >= self.end,
            window_may_open: window_may_open && !self.echo_on_this_ack,
            in_loss_recovery: matches!(self.ca_state, CaState::Recovery | CaState::Loss),
            rate: pending.as_ref(),
        };
        if let Some(cwnd) = self.controller.on_ack(&self.window, &sample) {
            self.change_window(WindowChange::Cwnd(cwnd));
        }
        self.update_pacing_rate();
    }

    /// With pacing, the rate the controller asks for after an ACK.
    #[inline]
    pub(crate) fn update_pacing_rate(&mut self) {
        if self.cfg.pacing
            && let Some(srtt) = self.smoothed_rtt
        {
            let rate = (self.controller).pacing_rate_bps(&self.window, self.cfg.mss, srtt);
            self.pacing_rate_bps = (rate > 0.0 && rate.is_finite()).then_some(rate);
        }
    }

    /// The delivery-rate sample of the ACK being processed (a controller that samples the
    /// rate; kept out of `tell_controller`, whose common path has no sampler).
    #[cold]
    #[inline(never)]
    fn take_rate_sample(&mut self) -> Option<RateSample> {
        let sampler = self.rate.as_mut()?;
        if self.snd_nxt >= self.end {
            // Nothing left to send: what follows is the application's limit.
            sampler.note_app_limited();
        }
        let mut sample = sampler.take_sample();
        // In a SACK recovery the flight excludes what the recovery presumes lost, which the
        // sampler cannot tell (as Linux's and ns-3's in-flight count do).
        if self.ca_state == CaState::Recovery
            && let (Some(rate), Some(pipe)) = (&mut sample, self.recovery_pipe)
        {
            rate.in_flight_bytes = rate.in_flight_bytes.min(pipe * u64::from(self.cfg.mss));
        }
        sample
    }

    /// Pacing holds the next segment back at `now` (the send loops stop; `next_timeout`
    /// then includes the release).
    #[inline]
    pub(crate) fn pacing_holds(&mut self, now: SimTime) -> bool {
        let held = self.pacing_rate_bps.is_some() && self.pacing_release > now;
        self.pacing_held |= held;
        held
    }

    /// `true` (once) when a segment pacing held back may now leave.
    pub(crate) fn take_pacing_release(&mut self, now: SimTime) -> bool {
        let due = self.pacing_held && self.pacing_release <= now;
        if due {
            self.pacing_held = false;
        }
        due
    }

    /// Segments outstanding, without those Limited Transmit sent.
    pub(crate) fn flight_size(&self) -> u64 {
        (self.snd_max - self.snd_una).saturating_sub(self.limited_transmit_outstanding)
    }

    // ---- events common to every variant -----------------------------------------------------

    /// The duplicate-ACK test: ns-2 checks nothing beyond `ack == last_ack`; BSD also needs
    /// outstanding data, an unchanged window and a running retransmit timer (spec §1.2).
    pub(crate) fn is_duplicate(&self, window_changed: bool) -> bool {
        match self.cfg.seq_mode {
            SeqMode::Packets => true,
            SeqMode::Bytes => {
                !window_changed && self.snd_max > self.snd_una && self.timer_pending()
            }
        }
    }

    /// The common processing of a new ACK (ns-2 `newack()`, plus `opencwnd()` when `grow`),
    /// after the variant's own (`Recovery::on_new_ack`).
    pub(crate) fn new_ack(&mut self, now: SimTime, ack_seg: u64, grow: bool) {
        self.limited_transmit_outstanding = 0;
        self.dupacks = 0;
        let outstanding_after = ack_seg < self.snd_max;
        if !self.cfg.timer_fix {
            self.restart_or_cancel_timer(now, outstanding_after);
        }
        if self.rtt_active && ack_seg > self.rtt_seg {
            self.take_rtt_sample(now);
        }
        if self.cfg.timer_fix {
            self.restart_or_cancel_timer(now, outstanding_after);
        }
        self.snd_una = ack_seg;
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        match self.ca_state {
            CaState::Disorder => self.ca_state = CaState::Open,
            CaState::Loss if self.snd_una >= self.loss_end => self.ca_state = CaState::Open,
            CaState::Open | CaState::Loss | CaState::Recovery => {}
        }
        // Calhoun's BCN grows above ssthresh by round trips without marks instead (`marks`).
        let held = matches!(
            self.cfg.mark_response,
            MarkResponse::Bcn {
                reaction: BcnReaction::Calhoun,
                ..
            }
        ) && !self.window.in_slow_start();
        self.tell_controller(now, grow && !held);
        if self.cfg.syn && ack_seg == 1 {
            //= ns-2 delay_growth_: the initial window applies once the opening packet is ACKed
            self.change_window(WindowChange::Segments(f64::from(self.cfg.initial_window)));
        }
        if self.awaiting_recovery_exit && !self.in_recovery() {
            self.record(now, TraceKind::RecoveryExit);
        }
        if self.completed_at.is_none() && self.end != u64::MAX && self.snd_una >= self.end {
            self.completed_at = Some(now);
            self.cancel_timer();
        }
    }

    /// The counter a timeout expiring now is filed under: the first cause that fits
    /// (`SenderStats`). Read before the variant resets the duplicate count.
    pub(crate) fn timeout_cause(&self) -> fn(&mut SenderStats) -> &mut u64 {
        if self.snd_una_at_timeout == Some(self.snd_una) {
            |st| &mut st.timeouts_repeated
        } else if self.snd_una < self.fast_retransmit_high {
            |st| &mut st.timeouts_after_fast_retransmit
        } else if self.dupacks == 0 {
            |st| &mut st.timeouts_no_dupacks
        } else if self.dupacks < self.cfg.dupthresh {
            |st| &mut st.timeouts_few_dupacks
        } else {
            |st| &mut st.timeouts_fast_retransmit_declined
        }
    }

    /// Retransmission timeout, the action common to every variant (spec §3.7), after the
    /// variant's own (`Recovery::on_timeout`); the caller then runs the send loop.
    pub(crate) fn timeout(&mut self, now: SimTime, cause: fn(&mut SenderStats) -> &mut u64) {
        let nothing_outstanding = self.snd_una == self.snd_max;
        let restart_only = nothing_outstanding && self.cfg.restart_bugfix;
        if restart_only {
            self.stats.cwnd_cuts += 1;
            self.change_window(WindowChange::Segments(1.0));
            self.last_cwnd_action = CwndAction::Timeout;
        } else if self.ecn_cut_this_window() {
            //= ns-2 timeout(): in recovery from a recent ECN, don't cut down ssthresh_
            self.recover = self.maxseq();
            self.stats.cwnd_cuts += 1;
            self.change_window(WindowChange::Segments(1.0));
        } else {
            *cause(&mut self.stats) += 1;
            self.recover = self.maxseq();
            self.cut_window(now, Cause::Timeout, AfterCut::OneSegment);
            self.stats.timeouts += 1;
            self.last_cwnd_action = CwndAction::Timeout;
        }
        self.snd_una_at_timeout = Some(self.snd_una);
        if let Some(rate) = &mut self.rate {
            rate.on_timeout();
        }
        self.ca_state = CaState::Loss;
        self.loss_end = self.snd_max;
        if !restart_only {
            self.rtt.back_off();
        }
        self.arm_timer(now);
        self.cancel_rtt_timing();
        // Go-back-N: everything after the hole is sent again.
        self.snd_nxt = self.snd_una;
        self.dupacks = 0;
        self.record(now, TraceKind::Timeout);
    }
}
