//! What a sender counts and traces (spec `tcp.md` §5): per-connection counters and the
//! congestion events recorded when tracing is on.

use congsim_core::time::{SimDuration, SimTime};

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

/// What the change trace watches: the state a sender exposes to its congestion control.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SenderState {
    /// Segments.
    pub cwnd: f64,
    /// Segments.
    pub ssthresh: f64,
    /// Smoothed RTT, seconds (0 before the first sample).
    pub srtt_secs: f64,
    pub rto: SimDuration,
    pub state: crate::CaState,
}

/// A row of the change trace: the state right after `time` and which parts of it changed
/// (bits [`SenderState::CHANGED_NAMES`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StateChange {
    pub time: SimTime,
    pub after: SenderState,
    pub changed: u8,
}

impl SenderState {
    /// The parts of the state, in the order of `StateChange::changed`'s bits.
    pub const CHANGED_NAMES: [&'static str; 5] = ["cwnd", "ssthresh", "srtt", "rto", "state"];

    /// Which parts differ from `before` (every part without one).
    pub fn changed_since(&self, before: Option<&Self>) -> u8 {
        let Some(b) = before else {
            return 0b1_1111;
        };
        u8::from(self.cwnd != b.cwnd)
            | u8::from(self.ssthresh != b.ssthresh) << 1
            | u8::from(self.srtt_secs != b.srtt_secs) << 2
            | u8::from(self.rto != b.rto) << 3
            | u8::from(self.state != b.state) << 4
    }
}

/// Every change of a sender's state (ns-2's `trace cwnd_`, ns-3's `CongestionWindow`,
/// `SlowStartThreshold`, `RTT`, `RTO` and `CongState` trace sources in one table).
#[derive(Clone, Debug, Default)]
pub struct ChangeTrace {
    rows: Vec<StateChange>,
}

impl ChangeTrace {
    /// Records `now`'s state if it differs from the last one recorded.
    pub fn observe(&mut self, now: SimTime, state: SenderState) {
        let changed = state.changed_since(self.rows.last().map(|r| &r.after));
        if changed != 0 {
            self.rows.push(StateChange {
                time: now,
                after: state,
                changed,
            });
        }
    }
    pub fn rows(&self) -> &[StateChange] {
        &self.rows
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
    /// mean congestion window a connection sends with. A SYN carries no data and is left out
    /// (ns-2's measure in bench/lima_ns2.py skips it too).
    pub cwnd_sum_at_sends: f64,
    /// The transmissions `cwnd_sum_at_sends` sums over: `data_pkts_sent` less SYNs.
    pub cwnd_sends: u64,
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

    /// What was counted since `start` (an earlier reading of the same sender): the counters
    /// of a measurement window. The RTT extremes stay those of the whole connection.
    pub fn since(&self, start: &Self) -> Self {
        Self {
            data_pkts_sent: self.data_pkts_sent - start.data_pkts_sent,
            data_bytes_sent: self.data_bytes_sent - start.data_bytes_sent,
            retx_pkts: self.retx_pkts - start.retx_pkts,
            retx_bytes: self.retx_bytes - start.retx_bytes,
            retx_go_back_n: self.retx_go_back_n - start.retx_go_back_n,
            retx_fast: self.retx_fast - start.retx_fast,
            retx_partial_ack: self.retx_partial_ack - start.retx_partial_ack,
            retx_sack_hole: self.retx_sack_hole - start.retx_sack_hole,
            retx_rescue: self.retx_rescue - start.retx_rescue,
            partial_acks: self.partial_acks - start.partial_acks,
            limited_transmit_sends: self.limited_transmit_sends - start.limited_transmit_sends,
            ecn_responses: self.ecn_responses - start.ecn_responses,
            bcn_responses: self.bcn_responses - start.bcn_responses,
            timeouts: self.timeouts - start.timeouts,
            timeouts_repeated: self.timeouts_repeated - start.timeouts_repeated,
            timeouts_after_fast_retransmit: self.timeouts_after_fast_retransmit
                - start.timeouts_after_fast_retransmit,
            timeouts_few_dupacks: self.timeouts_few_dupacks - start.timeouts_few_dupacks,
            timeouts_no_dupacks: self.timeouts_no_dupacks - start.timeouts_no_dupacks,
            timeouts_fast_retransmit_declined: self.timeouts_fast_retransmit_declined
                - start.timeouts_fast_retransmit_declined,
            timeouts_all: self.timeouts_all - start.timeouts_all,
            fast_retransmits: self.fast_retransmits - start.fast_retransmits,
            fast_recoveries: self.fast_recoveries - start.fast_recoveries,
            cwnd_cuts: self.cwnd_cuts - start.cwnd_cuts,
            acks_rcvd: self.acks_rcvd - start.acks_rcvd,
            dupacks_rcvd: self.dupacks_rcvd - start.dupacks_rcvd,
            rtt_samples: self.rtt_samples - start.rtt_samples,
            rtt_sum_s: self.rtt_sum_s - start.rtt_sum_s,
            rtt_sum_sq_s: self.rtt_sum_sq_s - start.rtt_sum_sq_s,
            rtt_min_s: self.rtt_min_s,
            rtt_max_s: self.rtt_max_s,
            rtt_quantised_sum_s: self.rtt_quantised_sum_s - start.rtt_quantised_sum_s,
            cwnd_sum_at_sends: self.cwnd_sum_at_sends - start.cwnd_sum_at_sends,
            cwnd_sends: self.cwnd_sends - start.cwnd_sends,
        }
    }

    /// Mean exact RTT in seconds; NaN before the first sample.
    pub fn rtt_mean_s(&self) -> f64 {
        if self.rtt_samples == 0 {
            f64::NAN
        } else {
            self.rtt_sum_s / self.rtt_samples as f64
        }
    }

    /// Mean tick-quantised RTT sample in seconds; NaN before the first sample.
    pub fn rtt_quantised_mean_s(&self) -> f64 {
        if self.rtt_samples == 0 {
            f64::NAN
        } else {
            self.rtt_quantised_sum_s / self.rtt_samples as f64
        }
    }

    /// Mean cwnd (segments) over the data segments sent; NaN before the first.
    pub fn cwnd_mean_at_sends(&self) -> f64 {
        if self.cwnd_sends == 0 {
            f64::NAN
        } else {
            self.cwnd_sum_at_sends / self.cwnd_sends as f64
        }
    }
}
