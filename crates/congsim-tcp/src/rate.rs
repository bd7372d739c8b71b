//! Delivery-rate sampling (spec `tcp.md` §3.8.4; draft-cheng-iccrg-delivery-rate-estimation,
//! Linux `tcp_rate.c`, ns-3 `TcpRateLinux`): on each ACK that delivers data, the rate at which
//! the network delivered it, measured over the flight the newest delivered segment belongs to.
//!
//! Each segment remembers, as it is sent, how much had been delivered and when
//! (`delivered`, `delivered_time`) and when the flight it belongs to began (`first_sent`).
//! When it is delivered (cumulatively acknowledged or SACKed), the data delivered since then
//! over the longer of the send phase (`sent_at − first_sent`) and the ACK phase
//! (`now − delivered_time`) is the sample; the longer phase keeps ACK compression from
//! inflating it. A sample over less than the smallest RTT seen is refused, as Linux refuses it.
//!
//! Only a controller that reads samples (BBR) pays for this: the sender keeps a sampler only
//! when its controller asks for one (`CongestionOps::SAMPLES_DELIVERY_RATE`).

use congsim_core::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// What one ACK tells of the delivery rate (Linux `struct rate_sample`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    /// Payload bits per second delivered over the sample's interval; `None` when the ACK gives
    /// no valid sample (no timing yet, or an interval shorter than the smallest RTT).
    pub delivery_rate_bps: Option<f64>,
    /// The sample was taken while the application, not the network, limited the flight.
    pub app_limited: bool,
    /// Payload bytes delivered since the connection began, this ACK's included.
    pub delivered_bytes: u64,
    /// `delivered_bytes` when the newest segment this ACK delivered was sent (Linux
    /// `prior_delivered`): a round trip ends when it passes the value at the round's start.
    pub prior_delivered_bytes: u64,
    /// Payload bytes this ACK newly delivered, cumulatively or by SACK.
    pub acked_sacked_bytes: u64,
    /// Payload bytes in flight before this ACK and after it (sent, neither acknowledged nor
    /// SACKed).
    pub prior_in_flight_bytes: u64,
    pub in_flight_bytes: u64,
    /// The round trip of the most recently sent segment this ACK delivered, unless it was
    /// retransmitted (Karn).
    pub rtt: Option<SimDuration>,
    /// The segment size in payload bytes, for controllers that count in segments.
    pub segment_bytes: u32,
}

/// A segment's state when it was (last) sent.
#[derive(Clone, Copy, Debug)]
struct SentRecord {
    sent_at: SimTime,
    first_sent: SimTime,
    delivered_time: SimTime,
    delivered: u64,
    payload_bytes: u32,
    app_limited: bool,
    retransmitted: bool,
    /// Delivered by a SACK: a later cumulative ACK does not count it again.
    sacked: bool,
    /// Presumed lost by a timeout and not sent again since: out of the flight.
    lost: bool,
}

/// The sampler of one connection.
#[derive(Clone, Debug)]
pub(crate) struct RateSampler {
    segment_bytes: u32,
    /// Records of segments `first..first + records.len()` (from `snd_una`).
    first: u64,
    records: VecDeque<SentRecord>,
    /// Payload bytes of the recorded segments, and of those among them SACKed or presumed
    /// lost.
    recorded_bytes: u64,
    sacked_bytes: u64,
    lost_bytes: u64,
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// Linux `app_limited`: the connection is application-limited until `delivered` passes
    /// this (0: it is not).
    app_limited_until: u64,
    min_rtt: Option<SimDuration>,
    /// The sample of the last ACK, until the controller takes it.
    pending: Option<RateSample>,
}

/// The newest segment an ACK delivers (the one sent last), which the sample is measured
/// from.
#[derive(Clone, Copy)]
struct Newest {
    prior_delivered: u64,
    send_elapsed: SimDuration,
    ack_elapsed: SimDuration,
    app_limited: bool,
}

impl RateSampler {
    pub(crate) fn new(segment_bytes: u32) -> Self {
        Self {
            segment_bytes,
            first: 0,
            records: VecDeque::new(),
            recorded_bytes: 0,
            sacked_bytes: 0,
            lost_bytes: 0,
            delivered: 0,
            delivered_time: SimTime::ZERO,
            first_sent_time: SimTime::ZERO,
            app_limited_until: 0,
            min_rtt: None,
            pending: None,
        }
    }

    /// Payload bytes sent and neither acknowledged nor SACKed.
    pub(crate) fn in_flight_bytes(&self) -> u64 {
        self.recorded_bytes - self.sacked_bytes - self.lost_bytes
    }

    /// The retransmission timer expired: every segment not SACKed is presumed lost (Linux
    /// `tcp_enter_loss`), so the flight is empty and the first segment sent again starts a
    /// new sampling flight. Without this the first samples after a timeout would span the
    /// whole silence and report a rate near zero (ns-3.37's collapse, its bugs #1026, #735).
    pub(crate) fn on_timeout(&mut self) {
        for r in self.records.iter_mut().filter(|r| !r.sacked && !r.lost) {
            r.lost = true;
            self.lost_bytes += u64::from(r.payload_bytes);
        }
    }

    /// Segment `seg` of `payload_bytes` is handed to the network.
    pub(crate) fn on_sent(&mut self, now: SimTime, seg: u64, payload_bytes: u32) {
        if self.records.is_empty() {
            self.first = seg;
        }
        if self.in_flight_bytes() == 0 {
            //= draft-cheng-iccrg-delivery-rate-estimation §3.2: with nothing in flight, the
            //= flight (first_send_time) and the delivery clock (delivered_time) start now
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let record = SentRecord {
            sent_at: now,
            first_sent: self.first_sent_time,
            delivered_time: self.delivered_time,
            delivered: self.delivered,
            payload_bytes,
            app_limited: self.app_limited_until != 0,
            retransmitted: false,
            sacked: false,
            lost: false,
        };
        match seg.checked_sub(self.first).map(|i| i as usize) {
            Some(index) if index < self.records.len() => {
                let old = &mut self.records[index];
                if old.lost {
                    self.lost_bytes -= u64::from(payload_bytes);
                }
                *old = SentRecord {
                    retransmitted: true,
                    sacked: old.sacked,
                    ..record
                };
            }
            Some(index) if index == self.records.len() => {
                self.recorded_bytes += u64::from(payload_bytes);
                self.records.push_back(record);
            }
            // Already acknowledged, or past a gap: nothing to time.
            _ => {}
        }
    }

    /// The application has nothing more to send while the window would allow it (Linux
    /// `tcp_rate_check_app_limited`): samples until the current flight is delivered are
    /// marked application-limited.
    pub(crate) fn note_app_limited(&mut self) {
        self.app_limited_until = (self.delivered + self.in_flight_bytes()).max(1);
    }

    /// Counts record `index` delivered at `now` and keeps the newest delivered segment.
    fn deliver(&mut self, index: usize, now: SimTime, newest: &mut Option<Newest>) {
        let r = self.records[index];
        self.delivered += u64::from(r.payload_bytes);
        self.delivered_time = now;
        if newest.is_none_or(|n| r.delivered >= n.prior_delivered) {
            *newest = Some(Newest {
                prior_delivered: r.delivered,
                send_elapsed: r.sent_at.since(r.first_sent),
                ack_elapsed: now.since(r.delivered_time),
                app_limited: r.app_limited,
            });
            self.first_sent_time = r.sent_at;
        }
    }

    /// An ACK: segments below `snd_una` are acknowledged, those in `sacked` (segment ranges
    /// `[left, right)`) SACKed. Computes the sample the controller takes next.
    pub(crate) fn on_ack(
        &mut self,
        now: SimTime,
        snd_una: u64,
        sacked: impl Iterator<Item = (u64, u64)>,
    ) {
        let prior_in_flight = self.in_flight_bytes();
        let delivered_before = self.delivered;
        let mut newest = None;
        let mut rtt = None;
        let acked = (snd_una.saturating_sub(self.first) as usize).min(self.records.len());
        for index in 0..acked {
            if !self.records[index].sacked {
                self.deliver(index, now, &mut newest);
                rtt = self.karn_rtt(index, now).or(rtt);
            }
        }
        for (left, right) in sacked {
            let from = left.max(snd_una).saturating_sub(self.first) as usize;
            let to = (right.saturating_sub(self.first) as usize).min(self.records.len());
            for index in from..to {
                if !self.records[index].sacked {
                    let r = &mut self.records[index];
                    r.sacked = true;
                    if std::mem::take(&mut r.lost) {
                        self.lost_bytes -= u64::from(r.payload_bytes);
                    }
                    self.sacked_bytes += u64::from(r.payload_bytes);
                    self.deliver(index, now, &mut newest);
                    rtt = self.karn_rtt(index, now).or(rtt);
                }
            }
        }
        for r in self.records.drain(..acked) {
            self.recorded_bytes -= u64::from(r.payload_bytes);
            if r.sacked {
                self.sacked_bytes -= u64::from(r.payload_bytes);
            }
            if r.lost {
                self.lost_bytes -= u64::from(r.payload_bytes);
            }
        }
        self.first += acked as u64;
        if let Some(sample) = rtt {
            self.min_rtt = Some(self.min_rtt.map_or(sample, |m| m.min(sample)));
        }
        //= draft-cheng-iccrg-delivery-rate-estimation §3.3: application-limited until the
        //= data in flight when it was noted is delivered
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let Some(newest) = newest else {
            return;
        };
        //= draft-cheng-iccrg-delivery-rate-estimation §3.3: interval = max(send_elapsed,
        //= ack_elapsed); a sample over less than min_rtt is not valid
        let interval = newest.send_elapsed.max(newest.ack_elapsed);
        let valid = !interval.is_zero() && self.min_rtt.is_none_or(|min| interval >= min);
        let bytes = self.delivered - newest.prior_delivered;
        self.pending = Some(RateSample {
            delivery_rate_bps: valid.then(|| bytes as f64 * 8.0 / interval.as_secs_f64()),
            app_limited: newest.app_limited,
            delivered_bytes: self.delivered,
            prior_delivered_bytes: newest.prior_delivered,
            acked_sacked_bytes: self.delivered - delivered_before,
            prior_in_flight_bytes: prior_in_flight,
            in_flight_bytes: self.in_flight_bytes(),
            rtt,
            segment_bytes: self.segment_bytes,
        });
    }

    /// The round trip of record `index` delivered at `now`, unless it was retransmitted.
    fn karn_rtt(&self, index: usize, now: SimTime) -> Option<SimDuration> {
        let r = &self.records[index];
        (!r.retransmitted).then(|| now.since(r.sent_at))
    }

    /// The sample of the last ACK that delivered data, once.
    pub(crate) fn take_sample(&mut self) -> Option<RateSample> {
        self.pending.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn ms(t: u64) -> SimTime {
        SimTime::from_millis(t)
    }

    #[test]
    fn a_steady_ack_clock_samples_the_bottleneck_rate() {
        // One segment per ms leaves a 1 MB/s bottleneck; each ACK comes 100 ms after its send.
        let mut sampler = RateSampler::new(MSS);
        let mut rates = Vec::new();
        for t in 0..400u64 {
            sampler.on_sent(ms(t), t, MSS);
            if t >= 100 {
                sampler.on_ack(ms(t), t - 99, std::iter::empty());
                let sample = sampler.take_sample().expect("each ACK delivers a segment");
                assert_eq!(sample.acked_sacked_bytes, u64::from(MSS));
                assert_eq!(sample.rtt, Some(SimDuration::from_millis(100)));
                rates.extend(sample.delivery_rate_bps);
            }
        }
        // The first flight's samples span less than an RTT and are refused; later ones are
        // 8 Mb/s (one 1000-byte segment per ms).
        assert!(rates.len() > 250);
        let last = *rates.last().unwrap();
        assert!((last - 8e6).abs() < 1e-6 * 8e6, "{last}");
    }

    #[test]
    fn sacked_segments_are_delivered_once_and_leave_the_flight() {
        let mut sampler = RateSampler::new(MSS);
        for seg in 0..10 {
            sampler.on_sent(ms(0), seg, MSS);
        }
        assert_eq!(sampler.in_flight_bytes(), 10_000);
        // Segment 0 lost: 1..4 SACKed.
        sampler.on_ack(ms(100), 0, [(1, 4)].into_iter());
        let s = sampler.take_sample().unwrap();
        assert_eq!(s.acked_sacked_bytes, 3000);
        assert_eq!((s.prior_in_flight_bytes, s.in_flight_bytes), (10_000, 7000));
        // The retransmission of 0 is acknowledged with 1..4: only segment 0 is new.
        sampler.on_sent(ms(100), 0, MSS);
        sampler.on_ack(ms(200), 4, std::iter::empty());
        let s = sampler.take_sample().unwrap();
        assert_eq!(s.acked_sacked_bytes, 1000);
        assert_eq!(s.delivered_bytes, 4000);
        assert_eq!(s.rtt, None, "a retransmission gives no RTT (Karn)");
        assert_eq!(s.in_flight_bytes, 6000);
        // An ACK that delivers nothing gives no sample.
        sampler.on_ack(ms(210), 4, std::iter::empty());
        assert!(sampler.take_sample().is_none());
    }

    #[test]
    fn after_a_timeout_the_first_resent_segment_starts_a_new_flight() {
        let mut sampler = RateSampler::new(MSS);
        for seg in 0..4 {
            sampler.on_sent(ms(0), seg, MSS);
        }
        sampler.on_ack(ms(100), 1, std::iter::empty());
        sampler.take_sample();
        // Segments 1..4 lost; the timer expires a second later.
        sampler.on_timeout();
        assert_eq!(sampler.in_flight_bytes(), 0);
        sampler.on_sent(ms(1100), 1, MSS);
        assert_eq!(sampler.in_flight_bytes(), 1000);
        sampler.on_ack(ms(1200), 2, std::iter::empty());
        let sample = sampler.take_sample().unwrap();
        // One segment over the 100 ms since it was resent, not over the second of silence.
        assert_eq!(sample.delivery_rate_bps, Some(1000.0 * 8.0 / 0.1));
    }

    #[test]
    fn samples_are_app_limited_until_the_bubble_is_delivered() {
        let mut sampler = RateSampler::new(MSS);
        sampler.on_sent(ms(0), 0, MSS);
        sampler.on_sent(ms(0), 1, MSS);
        sampler.note_app_limited();
        sampler.on_sent(ms(1), 2, MSS);
        sampler.on_ack(ms(100), 1, std::iter::empty());
        assert!(
            !sampler.take_sample().unwrap().app_limited,
            "sent before the note"
        );
        sampler.on_ack(ms(101), 3, std::iter::empty());
        assert!(sampler.take_sample().unwrap().app_limited);
        sampler.on_sent(ms(101), 3, MSS);
        sampler.on_ack(ms(201), 4, std::iter::empty());
        assert!(
            !sampler.take_sample().unwrap().app_limited,
            "the bubble is gone"
        );
    }
}
