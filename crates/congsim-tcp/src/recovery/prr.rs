//! Proportional Rate Reduction (RFC 6937), spec §4.4.4: during SACK recovery cwnd falls to
//! ssthresh gradually, in proportion to what the ACKs say was delivered, instead of at once at
//! the fast retransmit; the slow-start reduction bound (PRR-SSRB, RFC 6937's and Linux's
//! default) lets the window climb back towards ssthresh when losses took pipe below it.
//!
//! Counts are in segments, as the SACK scoreboard's are (`rfc6675`).

#[derive(Clone, Debug, Default)]
pub(crate) struct Prr {
    /// `RecoverFS`: segments outstanding when recovery began.
    recover_fs: u64,
    /// `prr_delivered`: segments the receiver got during recovery.
    delivered: u64,
    /// `prr_out`: segments sent during recovery.
    out: u64,
}

impl Prr {
    /// Recovery begins with `outstanding` segments sent and not cumulatively acknowledged.
    //= RFC 6937 §3: prr_delivered = 0; prr_out = 0; RecoverFS = snd.nxt - snd.una
    pub(crate) fn begin(outstanding: u64) -> Self {
        Self {
            recover_fs: outstanding,
            delivered: 0,
            out: 0,
        }
    }

    /// A segment was sent during recovery.
    pub(crate) fn sent(&mut self) {
        self.out += 1;
    }

    /// An ACK in recovery told of `delivered` segments (cumulatively acknowledged or newly
    /// SACKed); returns cwnd in segments, `pipe + sndcnt`.
    pub(crate) fn on_ack(&mut self, delivered: u64, pipe: i64, ssthresh_segments: f64) -> f64 {
        self.delivered += delivered;
        let pipe = pipe.max(0) as f64;
        let (prr_delivered, prr_out) = (self.delivered as f64, self.out as f64);
        let sndcnt = if pipe > ssthresh_segments {
            //= RFC 6937 §3: sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
            (prr_delivered * ssthresh_segments / self.recover_fs.max(1) as f64).ceil() - prr_out
        } else {
            //= RFC 6937 §3 (PRR-SSRB): sndcnt = MIN(ssthresh - pipe,
            //=     MAX(prr_delivered - prr_out, DeliveredData) + MSS)
            (ssthresh_segments - pipe).min((prr_delivered - prr_out).max(delivered as f64) + 1.0)
        };
        pipe + sndcnt.max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sends_in_proportion_while_pipe_is_above_ssthresh() {
        // RFC 6937's example: 20 segments out, ssthresh 10, one lost: each ACK delivering one
        // segment lets one segment out every second ACK.
        let mut prr = Prr::begin(20);
        let mut sent = 0;
        let mut pipe = 19;
        for _ in 0..18 {
            pipe -= 1;
            let cwnd = prr.on_ack(1, pipe, 10.0);
            while (pipe as f64) < cwnd {
                prr.sent();
                sent += 1;
                pipe += 1;
            }
        }
        assert_eq!(
            sent, 9,
            "half of 18 delivered, as ssthresh / RecoverFS = 1/2"
        );
    }

    #[test]
    fn below_ssthresh_the_window_climbs_back_by_at_most_one_more_per_ack() {
        // Losses took pipe to 4 with ssthresh 10: each ACK may send what it delivered plus one.
        let mut prr = Prr::begin(20);
        assert_eq!(prr.on_ack(1, 4, 10.0), 4.0 + 2.0);
        // Never beyond ssthresh.
        let mut prr = Prr::begin(20);
        assert_eq!(prr.on_ack(8, 9, 10.0), 10.0);
    }
}
