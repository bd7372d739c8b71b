//! The TCP sender (spec `tcp.md` §3): send loop, ACK processing, RTT timing, retransmit timer
//! in both mechanisms, timeouts with go-back-N. Variant-specific loss recovery is delegated to
//! [`crate::recovery`].
//!
//! Internally every sequence is a *segment index* (0, 1, 2, …); the wire carries packet
//! numbers (packet mode) or byte numbers (byte mode, segment `i` starting at byte `i · MSS`).

use crate::Segment;
use crate::config::{MarkResponse, SenderConfig, SeqMode, TimerMode, Variant};
use crate::marks;
use crate::recovery;
use crate::recovery::SackState;
use crate::rtt::RttEstimator;
use crate::window::CongestionWindow;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::wire::{SackBlocks, TcpFlags, TcpHeader};

/// Size of the ns-2 connection-opening packet (`tcpip_base_hdr_size_`).
const SYN_BYTES: u32 = 40;

/// ns-2 `last_cwnd_action_`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndAction {
    None,
    DupAck,
    Timeout,
    Exited,
    /// An ECN response cut the window.
    Ecn,
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

/// A congestion event, recorded when tracing is on (spec §5 traces).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceEvent {
    pub time: SimTime,
    pub kind: TraceKind,
    /// Window state right after the event, in segments.
    pub cwnd: f64,
    pub ssthresh: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceKind {
    FastRetransmit,
    Timeout,
    /// The first new ACK after a fast retransmit (end of fast recovery).
    RecoveryExit,
    /// NewReno and SACK: a new ACK that leaves data of the recovery window unacknowledged.
    PartialAck,
    /// ECN: an echoed mark halved the window.
    EcnResponse,
    /// BCN-TCP: an echoed mark scaled the window down.
    BcnResponse,
}

impl TraceKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::FastRetransmit => "fast_retransmit",
            Self::Timeout => "timeout",
            Self::RecoveryExit => "recovery_exit",
            Self::PartialAck => "partial_ack",
            Self::EcnResponse => "ecn_response",
            Self::BcnResponse => "bcn_response",
        }
    }
}

/// Per-connection counters (spec §5).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    pub data_pkts_sent: u64,
    pub data_bytes_sent: u64,
    pub retx_pkts: u64,
    pub retx_bytes: u64,
    /// Retransmissions by the send loop after a timeout or a go-back-N Tahoe recovery.
    pub retx_go_back_n: u64,
    /// Fast retransmissions.
    pub retx_fast: u64,
    /// NewReno retransmissions on partial ACKs.
    pub retx_partial_ack: u64,
    /// SACK retransmissions of scoreboard holes.
    pub retx_sack_hole: u64,
    /// RFC 6675 rescue retransmissions.
    pub retx_rescue: u64,
    /// NewReno partial ACKs (new ACKs below `recover` during fast recovery).
    pub partial_acks: u64,
    /// Segments sent by Limited Transmit.
    pub limited_transmit_sends: u64,
    /// Window cuts answering ECN echoes (ns-2 `necnresponses_`).
    pub ecn_responses: u64,
    /// Window cuts answering BCN echoes.
    pub bcn_responses: u64,
    /// RTO expiries that cut the window (not those during an ECN response's window).
    pub timeouts: u64,
    /// `timeouts` by what the sender knew when the timer expired (they add up to `timeouts`):
    /// the timer expired again with no new ACK since the last timeout (a lost retransmission);
    pub timeouts_repeated: u64,
    /// ...a fast retransmit had begun to repair this window (a second loss in it);
    pub timeouts_after_fast_retransmit: u64,
    /// ...fewer duplicate ACKs than the threshold had come (Limited Transmit's target);
    pub timeouts_few_dupacks: u64,
    /// ...no duplicate ACK had come (a lost tail or whole window);
    pub timeouts_no_dupacks: u64,
    /// ...enough duplicate ACKs had come but the variant declined a fast retransmit (ns-2
    /// `bugFix_` within a window a timeout began, or fast retransmit off).
    pub timeouts_fast_retransmit_declined: u64,
    /// Every RTO expiry.
    pub timeouts_all: u64,
    pub fast_retransmits: u64,
    pub fast_recoveries: u64,
    pub cwnd_cuts: u64,
    pub acks_rcvd: u64,
    pub dupacks_rcvd: u64,
    /// RTT samples taken (Karn): count, and exact RTTs in seconds.
    pub rtt_samples: u64,
    pub rtt_sum_s: f64,
    pub rtt_sum_sq_s: f64,
    pub rtt_min_s: f64,
    pub rtt_max_s: f64,
    /// Sum of the tick-quantised samples, in seconds.
    pub rtt_quantised_sum_s: f64,
    /// Sum over data transmissions of cwnd (segments) as each was sent: seed 002 reports the
    /// mean congestion window a connection sends with.
    pub cwnd_sum_at_sends: f64,
}

impl SenderStats {
    /// The breakdown of `timeouts` by cause, as (column name, count).
    pub fn timeout_causes(&self) -> [(&'static str, u64); 5] {
        [
            ("timeouts_repeated", self.timeouts_repeated),
            (
                "timeouts_after_fast_retransmit",
                self.timeouts_after_fast_retransmit,
            ),
            ("timeouts_few_dupacks", self.timeouts_few_dupacks),
            ("timeouts_no_dupacks", self.timeouts_no_dupacks),
            (
                "timeouts_fast_retransmit_declined",
                self.timeouts_fast_retransmit_declined,
            ),
        ]
    }

    /// Mean cwnd (segments) over the data segments sent; NaN before the first.
    pub fn cwnd_mean_at_sends(&self) -> f64 {
        if self.data_pkts_sent == 0 {
            f64::NAN
        } else {
            self.cwnd_sum_at_sends / self.data_pkts_sent as f64
        }
    }
}

pub struct TcpSender {
    pub(crate) cfg: SenderConfig,
    pub(crate) window: CongestionWindow,
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
    /// ns-2 Reno `dupwnd_` (packets added to the usable window during fast recovery).
    pub(crate) dupwnd: u64,
    /// In fast recovery (for traces and the state column).
    pub(crate) in_fast_recovery: bool,
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
    outbox: Vec<Segment>,
    pub(crate) stats: SenderStats,
    completed_at: Option<SimTime>,
    pub(crate) started: bool,
    /// Congestion events, when tracing is on (off by default: it costs memory).
    trace: Option<Vec<TraceEvent>>,
    /// A fast retransmit happened and no new ACK has arrived since.
    awaiting_recovery_exit: bool,
    /// NewReno: a partial ACK of the current recovery has been seen (ns-2 `firstpartial_`).
    pub(crate) first_partial_seen: bool,
    /// SACK recovery state (unused by the other variants).
    pub(crate) sack: SackState,
    /// RFC 6582 `recover` / RFC 6675 `RecoveryPoint`, as one past the highest segment sent
    /// when recovery began (or when the last timeout fired); `None` before the first.
    pub(crate) recovery_point: Option<u64>,
    /// Segments Limited Transmit sent since the last new ACK: RFC 5681 keeps them out of the
    /// FlightSize that sets ssthresh.
    pub(crate) limited_transmit_outstanding: u64,
    /// `snd_max` at the last fast retransmit, and `snd_una` at the last timeout: what a
    /// timeout's cause is told from (`SenderStats::timeouts_*`).
    fast_retransmit_high: u64,
    snd_una_at_timeout: Option<u64>,
    /// Set CWR on the next new data segment (after a response to a mark).
    pub(crate) cwr_pending: bool,
    /// ns-2 `ecn_backoff_`: an ECN response found the window at one segment.
    pub(crate) ecn_backoff: bool,
    /// BCN once per round trip: the highest packet sent at the last response.
    pub(crate) bcn_recover: i64,
    /// The ACK being processed echoes a mark this sender answers.
    echo_on_this_ack: bool,
}

impl TcpSender {
    /// A sender with `boot_phase` in `[0, tick)` (ns-2 exact timer mode; ignored otherwise).
    pub fn new(cfg: SenderConfig, boot_phase: SimDuration) -> Self {
        let window = CongestionWindow::new(&cfg);
        let rtt = RttEstimator::new(cfg.tick, cfg.initial_rto, cfg.rto_bounds);
        Self {
            rwnd: cfg.rwnd,
            window,
            rtt,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            end: 0,
            transfer_bytes: None,
            dupacks: 0,
            recover: 0,
            last_cwnd_action: CwndAction::None,
            dupwnd: 0,
            in_fast_recovery: false,
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
            first_partial_seen: false,
            sack: SackState::default(),
            recovery_point: None,
            limited_transmit_outstanding: 0,
            fast_retransmit_high: 0,
            snd_una_at_timeout: None,
            cwr_pending: false,
            ecn_backoff: false,
            bcn_recover: -1,
            echo_on_this_ack: false,
            cfg,
        }
    }

    pub fn config(&self) -> &SenderConfig {
        &self.cfg
    }
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    pub fn cwnd_segments(&self) -> f64 {
        self.window.cwnd_segments()
    }
    pub fn ssthresh_segments(&self) -> f64 {
        self.window.ssthresh_segments()
    }
    pub fn rto(&self) -> SimDuration {
        self.rtt.rto()
    }
    pub fn srtt_secs(&self) -> f64 {
        self.rtt.srtt_secs()
    }
    /// The RTT variation estimate in seconds (0 before the first sample).
    pub fn rttvar_secs(&self) -> f64 {
        self.rtt.rttvar_secs()
    }
    /// The window the send loop obeys, in segments: `min(cwnd, receiver window)`.
    pub fn effective_window_segments(&self) -> f64 {
        let rwnd_segments = match self.cfg.seq_mode {
            SeqMode::Packets => self.rwnd as f64,
            SeqMode::Bytes => self.rwnd as f64 / f64::from(self.cfg.mss),
        };
        self.window.cwnd_segments().min(rwnd_segments)
    }
    pub fn in_fast_recovery(&self) -> bool {
        self.in_fast_recovery
    }
    /// The SACK sender's estimate of segments in flight during recovery (`None` outside
    /// recovery and for the other variants, which keep no such estimate).
    pub fn pipe(&self) -> Option<i64> {
        (self.cfg.variant == Variant::Sack && self.in_fast_recovery).then_some(self.sack.pipe)
    }
    /// Starts recording congestion events.
    pub fn enable_trace(&mut self) {
        self.trace.get_or_insert_with(Vec::new);
    }

    /// The congestion events recorded so far (empty unless tracing is on).
    pub fn trace(&self) -> &[TraceEvent] {
        self.trace.as_deref().unwrap_or(&[])
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

    /// When the last byte of a finite transfer was cumulatively ACKed.
    pub fn completed_at(&self) -> Option<SimTime> {
        self.completed_at
    }

    /// Segments (not counting the ns-2 opening packet) that the transfer consists of.
    fn first_data_segment(&self) -> u64 {
        u64::from(self.cfg.syn)
    }

    /// The application starts: `bytes` to send, or an infinite source.
    pub fn start(&mut self, now: SimTime, bytes: Option<u64>) {
        let mss = u64::from(self.cfg.mss);
        self.transfer_bytes = bytes;
        self.end = match bytes {
            // ns-2 sends ceil(S / size) full-size packets; BSD sends a short last segment.
            Some(b) => self.first_data_segment() + b.div_ceil(mss),
            None => u64::MAX,
        };
        self.started = true;
        self.send_much(now);
    }

    /// The application stops supplying new data (ns-2 FTP `stop`).
    pub fn stop(&mut self) {
        self.end = self.end.min(self.snd_max);
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

    pub(crate) fn window_allows(&self, seg: u64) -> bool {
        self.window_allows_beyond(seg, 0)
    }

    /// The window admits segment `seg` when `skipped` segments below it (SACKed ones, which
    /// are not in flight) do not count. The receiver window still counts them.
    pub(crate) fn window_allows_beyond(&self, seg: u64, skipped: u64) -> bool {
        match self.cfg.seq_mode {
            SeqMode::Packets => {
                let cwnd_limit = self.snd_una + self.window.usable(u64::MAX, self.dupwnd) + skipped;
                seg < cwnd_limit.min(self.snd_una + self.rwnd)
            }
            SeqMode::Bytes => {
                let mss = u64::from(self.cfg.mss);
                let span = seg * mss + u64::from(self.payload_of(seg)) - self.snd_una * mss;
                span <= self.rwnd && span <= self.window.usable(u64::MAX, 0) + skipped * mss
            }
        }
    }

    /// The send loop (spec §3.2), at most `cfg.max_burst` packets (0: unlimited).
    pub(crate) fn send_much(&mut self, now: SimTime) {
        self.send_limited(now, self.cfg.max_burst);
    }

    /// The send loop with at most `burst` packets (0: unlimited).
    pub(crate) fn send_limited(&mut self, now: SimTime, burst: u32) {
        if !self.started {
            return;
        }
        if self.cfg.variant == Variant::Sack {
            recovery::sack_send(self, now, burst);
            return;
        }
        let mut sent = 0;
        while self.snd_nxt < self.end && self.window_allows(self.snd_nxt) {
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
        self.stats.data_pkts_sent += 1;
        self.stats.data_bytes_sent += u64::from(payload);
        self.stats.cwnd_sum_at_sends += self.window.cwnd_segments();
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
        // RFC 3168: only new data is ECN-capable, and CWR rides on the first new segment after
        // a window reduction.
        let ect = self.cfg.mark_response != MarkResponse::Off && !is_retransmission && !is_syn;
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
        if !self.timer_pending() || nothing_outstanding {
            self.arm_timer(now);
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

    /// `true` if an ACK up to `ack_seg` covers the segment being timed.
    pub(crate) fn rtt_timing_covered_by(&self, ack_seg: u64) -> bool {
        self.rtt_active && ack_seg > self.rtt_seg
    }

    /// Abandons the RTT measurement in progress (Karn: any retransmission does this).
    pub(crate) fn cancel_rtt_timing(&mut self) {
        self.rtt_active = false;
        self.rtt_ticks = 0;
    }

    /// The instant the caller must call [`Self::on_timeout`] (exact mode only; the tick mode is
    /// driven by [`Self::on_slow_tick`]).
    pub fn next_timeout(&self) -> Option<SimTime> {
        self.rto_deadline
    }

    /// Exact-mode wake-up. Stale wake-ups (the timer was re-armed later) are ignored.
    pub fn on_timeout(&mut self, now: SimTime) {
        if self.rto_deadline.is_some_and(|d| d <= now) {
            self.rto_deadline = None;
            self.timeout(now);
        }
    }

    /// A boundary of the global slow clock (tick mode): the BSD `tcp_slowtimo`.
    pub fn on_slow_tick(&mut self, now: SimTime) {
        if self.cfg.timer_mode != TimerMode::Tick {
            return;
        }
        if self.rto_countdown > 0 {
            self.rto_countdown -= 1;
            if self.rto_countdown == 0 {
                self.timeout(now);
            }
        }
        if self.rtt_active {
            self.rtt_ticks += 1;
        }
    }

    /// Retransmission timeout, common action (spec §3.7).
    fn timeout(&mut self, now: SimTime) {
        self.stats.timeouts_all += 1;
        // Before the variant's own reset of the duplicate count.
        let cause = self.timeout_cause();
        recovery::on_timeout(self);
        let nothing_outstanding = self.snd_una == self.snd_max;
        let restart_only = nothing_outstanding && self.cfg.restart_bugfix;
        if restart_only {
            self.stats.cwnd_cuts += 1;
            self.window.set_segments(1.0);
            self.last_cwnd_action = CwndAction::Timeout;
        } else if marks::cut_this_window(self) {
            //= ns-2 timeout(): in recovery from a recent ECN, don't cut down ssthresh_
            self.recover = self.maxseq();
            self.stats.cwnd_cuts += 1;
            self.window.set_segments(1.0);
        } else {
            *cause(&mut self.stats) += 1;
            self.recover = self.maxseq();
            self.cut_window();
            self.window.set_segments(1.0);
            self.stats.timeouts += 1;
            self.last_cwnd_action = CwndAction::Timeout;
        }
        self.snd_una_at_timeout = Some(self.snd_una);
        self.in_fast_recovery = false;
        if !restart_only {
            self.rtt.back_off();
        }
        self.arm_timer(now);
        self.cancel_rtt_timing();
        // Go-back-N: everything after the hole is sent again.
        self.snd_nxt = self.snd_una;
        self.dupacks = 0;
        self.record(now, TraceKind::Timeout);
        self.send_much(now);
    }

    /// The counter a timeout expiring now is filed under: the first cause that fits
    /// (`SenderStats`).
    fn timeout_cause(&self) -> fn(&mut SenderStats) -> &mut u64 {
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

    /// `ssthresh` from half of `min(cwnd, rwnd)` (spec §3.4), or with `ssthresh_from_flight`
    /// from half the FlightSize (RFC 5681 (4), Limited Transmit segments excluded); returns the
    /// halved window as [`CongestionWindow::halve`] does.
    pub(crate) fn cut_window(&mut self) -> f64 {
        self.stats.cwnd_cuts += 1;
        if self.cfg.ssthresh_from_flight {
            self.window.halve_flight(self.flight_size())
        } else {
            self.window.halve(self.rwnd)
        }
    }

    /// Segments outstanding, without those Limited Transmit sent.
    pub(crate) fn flight_size(&self) -> u64 {
        (self.snd_max - self.snd_una).saturating_sub(self.limited_transmit_outstanding)
    }

    // ---- ACK processing ---------------------------------------------------------------------

    fn ack_to_segments(&self, ack: u64) -> u64 {
        match self.cfg.seq_mode {
            SeqMode::Packets => ack,
            SeqMode::Bytes => ack.div_ceil(u64::from(self.cfg.mss)),
        }
    }

    /// The network below signalled congestion directly (an ABR source received a backward RM
    /// cell with CI; spec `atm.md` §2.4): the sender answers as to an echoed mark (BCN-TCP's
    /// decrease; nothing when marks are off).
    pub fn on_congestion_indication(&mut self, now: SimTime) {
        marks::on_echo(self, now, self.snd_una);
    }

    /// An ACK arrives.
    pub fn on_ack(&mut self, now: SimTime, ack: &TcpHeader) {
        self.stats.acks_rcvd += 1;
        let window_changed = match self.cfg.seq_mode {
            SeqMode::Bytes if u64::from(ack.window_bytes) != self.rwnd => {
                self.rwnd = u64::from(ack.window_bytes);
                true
            }
            _ => false,
        };
        let ack_seg = self.ack_to_segments(ack.ack).min(self.snd_max);
        // An ACK echoing a mark does not open the window (ns-2 recv_newack_helper; ABR's
        // "no increase" on CI).
        self.echo_on_this_ack = ack.flags.ece && self.cfg.mark_response != MarkResponse::Off;
        if self.echo_on_this_ack {
            marks::on_echo(self, now, ack_seg);
        }
        if self.cfg.variant == Variant::Sack {
            let duplicate = ack_seg == self.snd_una && self.is_duplicate(window_changed);
            recovery::on_sack_ack(self, now, ack_seg, &ack.sack, duplicate);
            return;
        }
        if ack_seg > self.snd_una {
            if !recovery::on_partial_ack(self, now, ack_seg) {
                self.new_ack(now, ack_seg, true);
            }
        } else if ack_seg == self.snd_una {
            if self.is_duplicate(window_changed) {
                self.stats.dupacks_rcvd += 1;
                self.dupacks += 1;
                recovery::on_dupack(self, now);
            } else {
                self.dupacks = 0;
            }
        } else {
            // An old ACK: ns-2 ignores it and does not run the send loop.
            return;
        }
        if let Some(burst) = recovery::send_burst_after_ack(self) {
            self.send_limited(now, burst);
        }
    }

    /// The duplicate-ACK test: ns-2 checks nothing beyond `ack == last_ack`; BSD also needs
    /// outstanding data, an unchanged window and a running retransmit timer (spec §1.2).
    fn is_duplicate(&self, window_changed: bool) -> bool {
        match self.cfg.seq_mode {
            SeqMode::Packets => true,
            SeqMode::Bytes => {
                !window_changed && self.snd_max > self.snd_una && self.timer_pending()
            }
        }
    }

    /// The common processing of a new ACK (ns-2 `newack()`, plus `opencwnd()` when `grow`).
    pub(crate) fn new_ack(&mut self, now: SimTime, ack_seg: u64, grow: bool) {
        recovery::on_new_ack(self);
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
        if grow && !self.echo_on_this_ack {
            self.window.grow();
        }
        if self.cfg.syn && ack_seg == 1 {
            //= ns-2 delay_growth_: the initial window applies once the opening packet is ACKed
            self.window.set_segments(f64::from(self.cfg.initial_window));
        }
        if self.awaiting_recovery_exit && !self.in_fast_recovery {
            self.record(now, TraceKind::RecoveryExit);
        }
        if self.completed_at.is_none() && self.end != u64::MAX && self.snd_una >= self.end {
            self.completed_at = Some(now);
            self.cancel_timer();
        }
    }

    pub(crate) fn restart_or_cancel_timer(&mut self, now: SimTime, outstanding_after: bool) {
        if outstanding_after {
            self.arm_timer(now);
        } else {
            self.cancel_timer();
        }
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
        let s = exact.as_secs_f64();
        let st = &mut self.stats;
        st.rtt_samples += 1;
        st.rtt_sum_s += s;
        st.rtt_sum_sq_s += s * s;
        st.rtt_min_s = st.rtt_min_s.min(s);
        st.rtt_max_s = st.rtt_max_s.max(s);
        st.rtt_quantised_sum_s += ticks as f64 * self.cfg.tick.as_secs_f64();
    }

    /// Moves the segments produced since the last call into `out`.
    pub fn drain_transmit(&mut self, out: &mut Vec<Segment>) {
        crate::hand_over(&mut self.outbox, out);
    }
}
