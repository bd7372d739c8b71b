//! BBR v1 (spec `tcp.md` §3.8.5; draft-cardwell-iccrg-bbr-congestion-control-00), as ns-3.37's
//! `TcpBbr` runs it: the sender models the path by its bottleneck bandwidth (`BtlBw`, the
//! largest delivery rate of the last ten round trips) and its round-trip propagation time
//! (`RTprop`, the smallest RTT of the last ten seconds), paces at `pacing_gain · BtlBw` and
//! caps what is in flight at `cwnd_gain · BtlBw · RTprop`. Four modes move the gains: STARTUP
//! (2.89, until three rounds add less than 25 % to BtlBw), DRAIN (pacing at 1/2.89 until the
//! flight is one BDP), PROBE_BW (pacing gain cycling 5/4, 3/4, then 1 for six round trips,
//! from a random phase) and PROBE_RTT (four segments for 200 ms and a round trip when RTprop
//! has not been renewed for ten seconds).
//!
//! A loss does not cut the window: the recovery holds it (packet conservation for its first
//! round trip) and the window found before the loss is restored after it (Linux
//! `bbr_set_cwnd_to_recover_or_restore`). ECN marks are not answered (v1 has no ECN).

use super::ops::{AckSample, Cause, CongestionEvent, CongestionOps, CutBase};
use crate::rate::RateSample;
use crate::window::{CongestionWindow, Cut, WindowSize};
use congsim_core::time::{SimDuration, SimTime};

/// STARTUP's gain: 2/ln 2 rounded as ns-3's `HighGain` (Linux `bbr_high_gain` 2885/1000).
const HIGH_GAIN: f64 = 2.89;
/// PROBE_BW's pacing gains, one phase per round trip.
const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// PROBE_BW's cwnd gain.
const PROBE_BW_CWND_GAIN: f64 = 2.0;
/// BtlBw is the largest sample of this many round trips (ns-3 `BwWindowLength`).
const BW_WINDOW_ROUNDS: u64 = 10;
/// RTprop is the smallest RTT of this long (ns-3 `RttWindowLength`).
const RTPROP_WINDOW: SimDuration = SimDuration::from_secs(10);
/// PROBE_RTT lasts at least this long (ns-3 `ProbeRttDuration`).
const PROBE_RTT_DURATION: SimDuration = SimDuration::from_millis(200);
/// The smallest window, in segments (`bbr_cwnd_min_target`, ns-3 `m_minPipeCwnd`).
const MIN_PIPE_SEGMENTS: f64 = 4.0;
/// The pipe is full when three round trips raise BtlBw by less than this factor.
const FULL_BW_GROWTH: f64 = 1.25;
const FULL_BW_ROUNDS: u32 = 3;
/// ACK aggregation (ns-3.37 `TcpBbr`, Linux 4.20+): the excess acknowledged over what BtlBw
/// explains is remembered over this many round trips, at most this much time's worth of
/// BtlBw, and an ACK epoch restarts past this many bytes (ns-3 `m_ackEpochAckedResetThresh`).
const EXTRA_ACKED_ROUNDS: u32 = 5;
const EXTRA_ACKED_MAX: SimDuration = SimDuration::from_millis(100);
const ACK_EPOCH_RESET_BYTES: f64 = (1u64 << 17) as f64;

/// BBR's mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BbrMode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// The windowed maximum of BtlBw over round trips, as the three best samples of Kathleen
/// Nichols' algorithm (ns-3's `WindowedFilter`, Linux `minmax_running_max`).
#[derive(Clone, Copy, Debug, Default)]
struct MaxFilter {
    /// (value, round) of the best, second-best and third-best sample.
    best: [(f64, u64); 3],
}

impl MaxFilter {
    fn get(&self) -> f64 {
        self.best[0].0
    }

    fn reset(&mut self, value: f64, round: u64) {
        self.best = [(value, round); 3];
    }

    fn update(&mut self, value: f64, round: u64) {
        let sample = (value, round);
        let [first, second, third] = self.best;
        if first.0 == 0.0 || value >= first.0 || round - third.1 > BW_WINDOW_ROUNDS {
            self.reset(value, round);
            return;
        }
        if value >= second.0 {
            self.best[1] = sample;
            self.best[2] = sample;
        } else if value >= third.0 {
            self.best[2] = sample;
        }
        // Expire the best when it is older than the window, and promote quarter- and
        // half-window old samples so that the window's later part is represented.
        if round - self.best[0].1 > BW_WINDOW_ROUNDS {
            self.best = [self.best[1], self.best[2], sample];
            if round - self.best[0].1 > BW_WINDOW_ROUNDS {
                self.best = [self.best[1], self.best[2], sample];
            }
            return;
        }
        if self.best[1].0 == self.best[0].0 && round - self.best[1].1 > BW_WINDOW_ROUNDS / 4 {
            self.best[1] = sample;
            self.best[2] = sample;
            return;
        }
        if self.best[2].0 == self.best[1].0 && round - self.best[2].1 > BW_WINDOW_ROUNDS / 2 {
            self.best[2] = sample;
        }
    }
}

/// BBR's state, boxed in [`Bbr`]: it is several times any other controller's, and the
/// controller enum is as large as its largest member.
#[derive(Clone, Debug)]
struct BbrState {
    /// `false` until the first ACK (the state is set up from the window then).
    initialized: bool,
    mode: BbrMode,
    segment_bytes: f64,
    initial_cwnd_bytes: f64,
    /// BtlBw, in payload bits per second.
    bandwidth: MaxFilter,
    pacing_gain: f64,
    cwnd_gain: f64,
    pacing_rate_bps: f64,
    /// An RTT had been measured when the pacing rate was first set.
    has_seen_rtt: bool,
    min_rtt: Option<SimDuration>,
    last_rtt: Option<SimDuration>,
    // Round trips, counted by delivered data.
    delivered: u64,
    round_count: u64,
    round_start: bool,
    next_round_delivered: u64,
    // STARTUP's full-pipe test.
    filled_pipe: bool,
    full_bandwidth: f64,
    full_bandwidth_count: u32,
    // PROBE_BW's gain cycle.
    cycle_index: usize,
    cycle_stamp: SimTime,
    // RTprop and PROBE_RTT.
    rtprop: Option<SimDuration>,
    rtprop_stamp: SimTime,
    rtprop_expired: bool,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    probe_rtt_entries: u64,
    // Loss.
    packet_conservation: bool,
    prior_cwnd_bytes: f64,
    was_recovering: bool,
    // ACK aggregation.
    extra_acked: [f64; 2],
    extra_acked_index: usize,
    extra_acked_rounds: u32,
    ack_epoch_start: SimTime,
    ack_epoch_acked: f64,
    /// SplitMix64 state for the random start of the gain cycle.
    random_state: u64,
}

impl Default for BbrState {
    fn default() -> Self {
        Self {
            initialized: false,
            mode: BbrMode::Startup,
            segment_bytes: 0.0,
            initial_cwnd_bytes: 0.0,
            bandwidth: MaxFilter::default(),
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate_bps: 0.0,
            has_seen_rtt: false,
            min_rtt: None,
            last_rtt: None,
            delivered: 0,
            round_count: 0,
            round_start: false,
            next_round_delivered: 0,
            filled_pipe: false,
            full_bandwidth: 0.0,
            full_bandwidth_count: 0,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            rtprop: None,
            rtprop_stamp: SimTime::ZERO,
            rtprop_expired: false,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            probe_rtt_entries: 0,
            packet_conservation: false,
            prior_cwnd_bytes: 0.0,
            was_recovering: false,
            extra_acked: [0.0; 2],
            extra_acked_index: 0,
            extra_acked_rounds: 0,
            ack_epoch_start: SimTime::ZERO,
            ack_epoch_acked: 0.0,
            random_state: 0,
        }
    }
}

impl BbrState {
    /// Uniform in `0..bound`, from the flow's seed (SplitMix64).
    fn random_below(&mut self, bound: u64) -> u64 {
        self.random_state = self.random_state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.random_state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % bound
    }

    fn initialize(&mut self, now: SimTime, cwnd_bytes: f64, segment_bytes: u32) {
        self.initialized = true;
        self.segment_bytes = f64::from(segment_bytes);
        self.initial_cwnd_bytes = cwnd_bytes;
        self.prior_cwnd_bytes = cwnd_bytes;
        self.rtprop = self.last_rtt;
        self.rtprop_stamp = now;
        self.ack_epoch_start = now;
        self.enter_startup();
        self.init_pacing_rate(cwnd_bytes);
    }

    /// ns-3 `InitPacingRate`: `pacing_gain · cwnd / RTT`, the RTT in whole milliseconds (1 ms
    /// before one is measured), which also seeds BtlBw.
    fn init_pacing_rate(&mut self, cwnd_bytes: f64) {
        let rtt_ms = match self.min_rtt {
            Some(rtt) => {
                self.has_seen_rtt = true;
                (rtt.as_ps() / 1_000_000_000).max(1)
            }
            None => 1,
        };
        let nominal_bps = cwnd_bytes * 8.0 / (rtt_ms as f64 * 1e-3);
        self.pacing_rate_bps = self.pacing_gain * nominal_bps;
        self.bandwidth.reset(nominal_bps, 0);
    }

    fn enter_startup(&mut self) {
        self.mode = BbrMode::Startup;
        self.pacing_gain = HIGH_GAIN;
        self.cwnd_gain = HIGH_GAIN;
    }

    fn enter_drain(&mut self) {
        self.mode = BbrMode::Drain;
        self.pacing_gain = 1.0 / HIGH_GAIN;
        self.cwnd_gain = HIGH_GAIN;
    }

    fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = BbrMode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = PROBE_BW_CWND_GAIN;
        // ns-3: `GAIN_CYCLE_LENGTH - 1 - (int) U(0, 6)`, then advanced: any phase but 3/4
        // and the first cruising one (Linux draws from 7 and skips only 3/4).
        self.cycle_index = PACING_GAIN_CYCLE.len() - 1 - self.random_below(6) as usize;
        self.advance_cycle_phase(now);
    }

    fn enter_probe_rtt(&mut self) {
        self.mode = BbrMode::ProbeRtt;
        self.pacing_gain = 1.0;
        self.cwnd_gain = 1.0;
        self.probe_rtt_entries += 1;
    }

    fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    /// The flight `gain` BDPs make, plus the quanta ns-3 adds (three segments; two more in
    /// the probing phase); the initial window until RTprop is known.
    fn in_flight_target(&self, gain: f64) -> f64 {
        let Some(rtprop) = self.rtprop else {
            return self.initial_cwnd_bytes;
        };
        let bdp = self.bandwidth.get() / 8.0 * rtprop.as_secs_f64();
        let quanta = 3.0 * self.segment_bytes;
        if self.mode == BbrMode::ProbeBw && self.cycle_index == 0 {
            gain * bdp + quanta + 2.0 * self.segment_bytes
        } else {
            gain * bdp + quanta
        }
    }

    fn save_cwnd(&mut self, cwnd_bytes: f64) {
        self.prior_cwnd_bytes = if !self.was_recovering && self.mode != BbrMode::ProbeRtt {
            cwnd_bytes
        } else {
            self.prior_cwnd_bytes.max(cwnd_bytes)
        };
    }

    fn update_round(&mut self, rate: &RateSample) {
        self.round_start = rate.prior_delivered_bytes >= self.next_round_delivered;
        if self.round_start {
            self.next_round_delivered = self.delivered;
            self.round_count += 1;
            self.packet_conservation = false;
        }
    }

    fn update_bandwidth(&mut self, rate: &RateSample) {
        let Some(sample) = rate.delivery_rate_bps.filter(|&r| r > 0.0) else {
            return;
        };
        self.update_round(rate);
        if sample >= self.bandwidth.get() || !rate.app_limited {
            self.bandwidth.update(sample, self.round_count);
        }
    }

    fn update_ack_aggregation(&mut self, now: SimTime, rate: &RateSample, cwnd_bytes: f64) {
        if rate.acked_sacked_bytes == 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_rounds = (self.extra_acked_rounds + 1).min(31);
            if self.extra_acked_rounds >= EXTRA_ACKED_ROUNDS {
                self.extra_acked_rounds = 0;
                self.extra_acked_index = 1 - self.extra_acked_index;
                self.extra_acked[self.extra_acked_index] = 0.0;
            }
        }
        let acked = rate.acked_sacked_bytes as f64;
        let mut expected =
            self.bandwidth.get() / 8.0 * now.since(self.ack_epoch_start).as_secs_f64();
        if self.ack_epoch_acked <= expected
            || self.ack_epoch_acked + acked >= ACK_EPOCH_RESET_BYTES
        {
            self.ack_epoch_acked = 0.0;
            self.ack_epoch_start = now;
            expected = 0.0;
        }
        self.ack_epoch_acked += acked;
        let extra = (self.ack_epoch_acked - expected).min(cwnd_bytes);
        let slot = &mut self.extra_acked[self.extra_acked_index];
        *slot = slot.max(extra);
    }

    fn ack_aggregation_cwnd(&self) -> f64 {
        if !self.filled_pipe {
            return 0.0;
        }
        let cap = self.bandwidth.get() / 8.0 * EXTRA_ACKED_MAX.as_secs_f64();
        self.extra_acked[0].max(self.extra_acked[1]).min(cap)
    }

    fn check_cycle_phase(&mut self, now: SimTime, rate: &RateSample) {
        if self.mode != BbrMode::ProbeBw {
            return;
        }
        let full_length = self.rtprop.is_some_and(|rtprop| now.since(self.cycle_stamp) > rtprop);
        let prior_in_flight = rate.prior_in_flight_bytes as f64;
        let next = if self.pacing_gain > 1.0 {
            // No loss is reported to the controller per ACK, so only the flight ends probing.
            full_length && prior_in_flight >= self.in_flight_target(self.pacing_gain)
        } else if self.pacing_gain < 1.0 {
            full_length || prior_in_flight <= self.in_flight_target(1.0)
        } else {
            full_length
        };
        if next {
            self.advance_cycle_phase(now);
        }
    }

    fn check_full_pipe(&mut self, rate: &RateSample) {
        if self.filled_pipe || !self.round_start || rate.app_limited {
            return;
        }
        if self.bandwidth.get() >= self.full_bandwidth * FULL_BW_GROWTH {
            self.full_bandwidth = self.bandwidth.get();
            self.full_bandwidth_count = 0;
            return;
        }
        self.full_bandwidth_count += 1;
        self.filled_pipe = self.full_bandwidth_count >= FULL_BW_ROUNDS;
    }

    fn check_drain(&mut self, now: SimTime, in_flight_bytes: f64) {
        if self.mode == BbrMode::Startup && self.filled_pipe {
            self.enter_drain();
        }
        if self.mode == BbrMode::Drain && in_flight_bytes <= self.in_flight_target(1.0) {
            self.enter_probe_bw(now);
        }
    }

    fn update_rtprop(&mut self, now: SimTime) {
        self.rtprop_expired = now > self.rtprop_stamp + RTPROP_WINDOW;
        // Linux renews RTprop on a strictly smaller sample (draft-00 and ns-3.37 also on an
        // equal one; ns-3's samples are smoothed RTTs and never equal, but an exact RTT over
        // an empty queue is, and `<=` would then never let RTprop expire: no PROBE_RTT).
        if let Some(rtt) = self.last_rtt
            && (self.rtprop.is_none_or(|rtprop| rtt < rtprop) || self.rtprop_expired)
        {
            self.rtprop = Some(rtt);
            self.rtprop_stamp = now;
        }
    }

    fn check_probe_rtt(&mut self, now: SimTime, rate: &RateSample, cwnd_bytes: &mut f64) {
        if self.mode != BbrMode::ProbeRtt && self.rtprop_expired {
            self.enter_probe_rtt();
            self.save_cwnd(*cwnd_bytes);
            self.probe_rtt_done = None;
        }
        if self.mode != BbrMode::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if rate.in_flight_bytes as f64 <= MIN_PIPE_SEGMENTS * self.segment_bytes => {
                self.probe_rtt_done = Some(now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.delivered;
            }
            None => {}
            Some(done) => {
                self.probe_rtt_round_done |= self.round_start;
                if self.probe_rtt_round_done && now > done {
                    self.rtprop_stamp = now;
                    *cwnd_bytes = cwnd_bytes.max(self.prior_cwnd_bytes);
                    if self.filled_pipe {
                        self.enter_probe_bw(now);
                    } else {
                        self.enter_startup();
                    }
                }
            }
        }
    }

    fn set_pacing_rate(&mut self, cwnd_bytes: f64) {
        if !self.has_seen_rtt && self.min_rtt.is_some() {
            self.init_pacing_rate(cwnd_bytes);
        }
        let rate = self.pacing_gain * self.bandwidth.get();
        // In STARTUP the rate only rises, so that a low early sample cannot slow the start.
        if self.filled_pipe || rate > self.pacing_rate_bps {
            self.pacing_rate_bps = rate;
        }
    }

    fn set_cwnd(&self, rate: &RateSample, recovering: bool, cwnd_bytes: f64) -> f64 {
        let min_pipe = MIN_PIPE_SEGMENTS * self.segment_bytes;
        let acked = rate.acked_sacked_bytes as f64;
        let mut cwnd = cwnd_bytes;
        if acked > 0.0 {
            if recovering && self.packet_conservation {
                //= draft-cardwell-iccrg-bbr-congestion-control-00 §4.2.3.4: in the first round
                //= of recovery, cwnd = max(cwnd, packets_in_flight + packets_delivered)
                // The flight is the recovery's pipe where it keeps one (RFC 6675); elsewhere
                // it still counts the lost segments, so the window before the loss bounds it.
                let conserved = (rate.in_flight_bytes as f64 + acked).min(self.prior_cwnd_bytes);
                cwnd = cwnd.max(conserved);
            } else {
                let target = self.in_flight_target(self.cwnd_gain) + self.ack_aggregation_cwnd();
                if self.filled_pipe {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || (self.delivered as f64) < self.initial_cwnd_bytes {
                    cwnd += acked;
                }
                cwnd = cwnd.max(min_pipe);
            }
        }
        if self.mode == BbrMode::ProbeRtt {
            cwnd = cwnd.min(min_pipe);
        }
        cwnd
    }
}

impl CongestionOps for BbrState {
    const SAMPLES_DELIVERY_RATE: bool = true;
    const DRAWS_RANDOM: bool = true;

    fn seed(&mut self, seed: u64) {
        self.random_state = seed;
    }

    fn on_ack(&mut self, window: &CongestionWindow, ack: &AckSample) -> Option<WindowSize> {
        let rate = *ack.rate?;
        let mut cwnd = window.cwnd_segments() * f64::from(rate.segment_bytes);
        if let Some(rtt) = rate.rtt {
            self.last_rtt = Some(rtt);
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |min| min.min(rtt)));
        }
        if !self.initialized {
            self.initialize(ack.now, cwnd, rate.segment_bytes);
        }
        if self.was_recovering && !ack.in_loss_recovery {
            // The repair is over: the window found before the loss comes back.
            self.packet_conservation = false;
            cwnd = cwnd.max(self.prior_cwnd_bytes);
        }
        self.was_recovering = ack.in_loss_recovery;
        self.delivered = rate.delivered_bytes;
        // The model and the mode (ns-3 `UpdateModelAndState`).
        self.update_bandwidth(&rate);
        self.update_ack_aggregation(ack.now, &rate, cwnd);
        self.check_cycle_phase(ack.now, &rate);
        self.check_full_pipe(&rate);
        self.check_drain(ack.now, rate.in_flight_bytes as f64);
        self.update_rtprop(ack.now);
        self.check_probe_rtt(ack.now, &rate, &mut cwnd);
        // The control (ns-3 `UpdateControlParameters`).
        self.set_pacing_rate(cwnd);
        let cwnd = self.set_cwnd(&rate, ack.in_loss_recovery, cwnd);
        Some(window.cwnd_for_segments(cwnd / self.segment_bytes))
    }

    /// A loss or a timeout keeps the window (the recovery holds it, or a timeout sets it to
    /// one segment); BBR remembers the window to restore after the repair.
    fn on_congestion(&mut self, window: &CongestionWindow, event: &CongestionEvent) -> Cut {
        if self.initialized {
            self.save_cwnd(window.cwnd_segments() * self.segment_bytes);
        }
        match event.cause {
            Cause::Loss => self.packet_conservation = true,
            Cause::Timeout => self.round_start = true,
            Cause::Ecn => {}
        }
        let kept = match event.base {
            CutBase::Window { rwnd } => window.base_segments(rwnd),
            CutBase::Flight { segments } => (segments as f64).min(window.cwnd_segments()),
        };
        // ns-3.37 `CongestionStateSet(CA_RECOVERY)` and Linux `bbr_set_cwnd_to_recover_or_
        // restore`: recovery starts with the flight (without the segments presumed lost) plus
        // one segment, and packet conservation keeps it there for a round trip.
        let kept = match (event.cause, event.pipe_segments) {
            (Cause::Loss, Some(pipe)) => kept.min(pipe as f64 + 1.0),
            _ => kept,
        };
        window.reduced(kept, 1.0)
    }

    fn pacing_rate_bps(
        &self,
        _window: &CongestionWindow,
        _segment_bytes: u32,
        _smoothed_rtt: SimDuration,
    ) -> f64 {
        self.pacing_rate_bps
    }
}

/// BBR v1: the controller (its state on the heap).
#[derive(Clone, Debug, Default)]
pub struct Bbr(Box<BbrState>);

impl Bbr {
    /// BtlBw, in payload bits per second.
    pub fn bandwidth_bps(&self) -> f64 {
        self.0.bandwidth.get()
    }

    /// RTprop, once an RTT has been measured.
    pub fn rtprop(&self) -> Option<SimDuration> {
        self.0.rtprop
    }

    pub fn mode(&self) -> BbrMode {
        self.0.mode
    }

    /// How often PROBE_RTT was entered.
    pub fn probe_rtt_entries(&self) -> u64 {
        self.0.probe_rtt_entries
    }
}

impl CongestionOps for Bbr {
    const SAMPLES_DELIVERY_RATE: bool = BbrState::SAMPLES_DELIVERY_RATE;
    const DRAWS_RANDOM: bool = BbrState::DRAWS_RANDOM;

    fn seed(&mut self, seed: u64) {
        self.0.seed(seed);
    }

    fn on_ack(&mut self, window: &CongestionWindow, ack: &AckSample) -> Option<WindowSize> {
        self.0.on_ack(window, ack)
    }

    fn on_congestion(&mut self, window: &CongestionWindow, event: &CongestionEvent) -> Cut {
        self.0.on_congestion(window, event)
    }

    fn pacing_rate_bps(
        &self,
        window: &CongestionWindow,
        segment_bytes: u32,
        smoothed_rtt: SimDuration,
    ) -> f64 {
        self.0.pacing_rate_bps(window, segment_bytes, smoothed_rtt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Profile, Variant};
    use crate::congestion::ops::testing::{ack, event};
    use crate::window::WindowChange;

    const MSS: u32 = 1460;

    /// A BBR sender on a path delivering `rate_bps` with round trip `rtt`, seen through the
    /// samples its ACKs give: one segment per ACK, a round trip every BDP of data, the flight
    /// what cwnd allows up to `flight_bdps` BDPs.
    struct Path {
        bbr: BbrState,
        window: CongestionWindow,
        now: SimTime,
        delivered: u64,
        rate_bps: f64,
        rtt: SimDuration,
        flight_bdps: f64,
    }

    impl Path {
        fn new(rate_bps: f64, rtt_ms: u64) -> Self {
            let mut bbr = BbrState::default();
            bbr.seed(7);
            Self {
                bbr,
                window: CongestionWindow::new(&Profile::Rfc.sender(Variant::Sack)),
                now: SimTime::ZERO,
                delivered: 0,
                rate_bps,
                rtt: SimDuration::from_millis(rtt_ms),
                flight_bdps: 1.0,
            }
        }

        fn bdp_bytes(&self) -> f64 {
            self.rate_bps / 8.0 * self.rtt.as_secs_f64()
        }

        fn cwnd_bytes(&self) -> f64 {
            self.window.cwnd_segments() * f64::from(MSS)
        }

        fn ack(&mut self) {
            let gap = f64::from(MSS) * 8.0 / self.rate_bps;
            self.now += SimDuration::from_ps((gap * 1e12) as u64);
            self.delivered += u64::from(MSS);
            let flight = self.cwnd_bytes().min(self.flight_bdps * self.bdp_bytes()) as u64;
            let rate = RateSample {
                delivery_rate_bps: Some(self.rate_bps),
                app_limited: false,
                delivered_bytes: self.delivered,
                prior_delivered_bytes: self.delivered.saturating_sub(self.bdp_bytes() as u64),
                acked_sacked_bytes: u64::from(MSS),
                prior_in_flight_bytes: flight,
                in_flight_bytes: flight,
                rtt: Some(self.rtt),
                segment_bytes: MSS,
            };
            let sample = AckSample {
                now: self.now,
                rate: Some(&rate),
                ..ack(0, true)
            };
            if let Some(cwnd) = self.bbr.on_ack(&self.window, &sample) {
                self.window.apply(WindowChange::Cwnd(cwnd));
            }
        }

        fn run_for(&mut self, seconds: f64) {
            let end = self.now + SimDuration::from_ps((seconds * 1e12) as u64);
            while self.now < end {
                self.ack();
            }
        }
    }

    #[test]
    fn the_max_filter_keeps_the_best_of_ten_round_trips() {
        let mut filter = MaxFilter::default();
        filter.update(5.0, 1);
        filter.update(9.0, 2);
        for round in 3..=12 {
            filter.update(4.0, round);
            assert_eq!(filter.get(), 9.0, "round {round}");
        }
        // Older than ten round trips: the best of the rest takes over.
        filter.update(4.0, 13);
        assert_eq!(filter.get(), 4.0);
        filter.update(6.0, 14);
        assert_eq!(filter.get(), 6.0);
    }

    #[test]
    fn startup_drains_into_the_gain_cycle_around_the_bottleneck_rate() {
        let mut path = Path::new(10e6, 40);
        path.flight_bdps = 3.0;
        path.run_for(0.05);
        assert_eq!(path.bbr.mode, BbrMode::Startup);
        assert!(path.bbr.pacing_rate_bps > 2.8 * 10e6, "STARTUP paces at 2.89 BtlBw");
        // Three round trips without 25 % more bandwidth fill the pipe; the flight then
        // drains to one BDP.
        path.run_for(0.2);
        assert!(path.bbr.filled_pipe);
        path.flight_bdps = 1.0;
        path.run_for(0.05);
        assert_eq!(path.bbr.mode, BbrMode::ProbeBw);
        assert_eq!(path.bbr.bandwidth.get(), 10e6);
        assert_eq!(path.bbr.rtprop, Some(SimDuration::from_millis(40)));
        // Every gain of the cycle comes up (probing at 5/4 builds the flight up), and
        // cwnd is two BDPs plus the quanta.
        path.flight_bdps = 1.5;
        let mut gains = Vec::new();
        for _ in 0..2000 {
            path.ack();
            let gain = path.bbr.pacing_rate_bps / 10e6;
            if !gains.iter().any(|&g: &f64| (g - gain).abs() < 1e-9) {
                gains.push(gain);
            }
        }
        gains.sort_by(f64::total_cmp);
        assert_eq!(gains, vec![0.75, 1.0, 1.25]);
        let target = 2.0 * path.bdp_bytes() + 3.0 * f64::from(MSS);
        assert!((path.cwnd_bytes() - target).abs() <= 3.0 * f64::from(MSS));
    }

    #[test]
    fn rtprop_unrenewed_for_ten_seconds_probes_with_four_segments() {
        let mut path = Path::new(10e6, 40);
        path.run_for(1.0);
        let cwnd_before = path.cwnd_bytes();
        // RTprop was set by the first sample; equal samples do not renew it (Linux's strict
        // test), and every later RTT is longer.
        path.rtt = SimDuration::from_millis(45);
        path.run_for(8.5);
        assert_eq!(path.bbr.probe_rtt_entries, 0);
        path.run_for(1.3);
        assert_eq!(path.bbr.probe_rtt_entries, 1);
        assert_eq!(path.bbr.rtprop, Some(SimDuration::from_millis(45)));
        // At least 200 ms and a round trip at four segments, then the window comes back.
        assert_eq!(path.bbr.mode, BbrMode::ProbeBw);
        assert!(path.cwnd_bytes() >= cwnd_before.min(2.0 * path.bdp_bytes()));
        let mut probing = Path::new(10e6, 40);
        probing.run_for(1.0);
        probing.rtt = SimDuration::from_millis(45);
        while probing.bbr.mode != BbrMode::ProbeRtt {
            probing.ack();
        }
        probing.ack();
        assert_eq!(probing.window.cwnd_segments(), MIN_PIPE_SEGMENTS);
    }

    #[test]
    fn a_loss_keeps_the_window_and_the_repair_restores_it() {
        let mut path = Path::new(10e6, 40);
        path.run_for(1.0);
        let cwnd = path.window.cwnd_segments();
        let cut = path.bbr.on_congestion(
            &path.window,
            &event(Cause::Loss, CutBase::Flight { segments: 1000 }),
        );
        assert_eq!(cut.cwnd.segments(MSS), cwnd.floor());
        assert!(cut.ssthresh.segments(MSS) <= cwnd);
        // A timeout leaves the window to the sender (one segment); the repair's end brings
        // back the window found before.
        path.window.apply(WindowChange::Segments(1.0));
        let mut recovering = AckSample {
            now: path.now,
            in_loss_recovery: true,
            ..ack(0, false)
        };
        recovering.rate = None;
        assert_eq!(path.bbr.on_ack(&path.window, &recovering), None);
        path.bbr.was_recovering = true;
        path.ack();
        assert!(path.window.cwnd_segments() >= cwnd.floor());
    }
}
