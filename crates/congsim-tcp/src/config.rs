//! Switches and profiles (spec `tcp.md` §0 and §6).
//!
//! The code implements switches; a [`Profile`] is only a preset bundle of them. Scenario files
//! choose a profile and may override any switch, so a new profile (say `ns2_235`) is a matter
//! of configuration, not code.

use congsim_core::time::SimDuration;

macro_rules! declare_names {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal in $module:ident :: $state:ident,)+) => {
        /// Which congestion controller a sender runs (`crate::congestion`; scenario
        /// `tcp.congestion_control`), generated from the one list in `congestion::catalog`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum CongestionControl {
            $($(#[doc = $doc])* $variant,)+
        }

        impl CongestionControl {
            /// Every controller, in the list's order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The name a scenario file uses.
            pub fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }

            /// The list's doc comment, on one line.
            pub fn description(self) -> String {
                match self {
                    $(Self::$variant => [$($doc),*].map(str::trim).join(" "),)+
                }
            }

            /// The controller a scenario file names, if any.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|c| c.name() == name)
            }
        }
    };
}

crate::congestion::catalog::controllers!(declare_names);

/// The first of the list: the profiles' own rule.
impl Default for CongestionControl {
    fn default() -> Self {
        Self::ALL[0]
    }
}

/// Sequence-number model (spec §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeqMode {
    /// ns-2 one-way TCP: packet numbers, ACK = highest in-order packet, windows in packets
    /// (`cwnd` a float, `ssthresh` an integer).
    Packets,
    /// 4.3BSD: byte numbers, ACK = next byte expected, windows in integer bytes.
    Bytes,
}

/// The loss-recovery variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Tahoe,
    Reno,
    /// RFC 2582 partial-ACK recovery, in ns-2's `Agent/TCP/Newreno` form (spec §4.3).
    NewReno,
    /// SACK-based recovery (spec §4.4) with the sender algorithm [`SackSender`] selects.
    Sack,
}

/// Which SACK sender algorithm a [`Variant::Sack`] flow runs (spec §4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackSender {
    /// ns-2 `Agent/TCP/Sack1`: Fall and Floyd's `pipe` counter (packet-numbered profiles).
    Ns2Sack1,
    /// RFC 6675 conservative recovery: scoreboard, `SetPipe`, `NextSeg`, `IsLost`, rescue.
    Rfc6675,
    /// RFC 3517, its predecessor: classic duplicate ACKs, no `IsLost` entry, no rescue, no
    /// pipe-governed sending before recovery.
    Rfc3517,
    /// RFC 6675 with Proportional Rate Reduction (RFC 6937, PRR-SSRB): cwnd falls to
    /// ssthresh as the recovery's ACKs come rather than at its start (Linux's and ns-3's
    /// default recovery).
    Prr,
}

/// How Tahoe resumes after its fast retransmit (spec §4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TahoeResume {
    /// ns-2: `t_seqno = highest_ack + 1`; slow start resends everything after the hole.
    GoBackN,
    /// 4.3BSD-Tahoe: send only the missing segment, then restore `snd_nxt`.
    Restore,
}

/// Which fast-recovery code Reno follows (spec §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenoFlavour {
    /// ns-2 `Agent/TCP/Reno`: separate `dupwnd`, the `recover` guard (bugFix_).
    Ns2,
    /// 4.4BSD-Lite: inflate `cwnd` itself; deflate on a new ACK only after more than 3 DAs.
    Bsd,
    /// RFC 5681 §3.2: inflate `cwnd` itself; the first new ACK sets `cwnd = ssthresh`. With
    /// [`Variant::NewReno`] this is RFC 6582 NewReno (byte-numbered profiles).
    Rfc5681,
}

/// How the retransmission timer fires (spec §3.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerMode {
    /// ns-2: exact expiry events; RTT samples quantised by a per-host tick clock whose phase is
    /// `boot_phase` (drawn uniformly in `[0, G)` by the facade, or zero).
    Exact,
    /// 4.3BSD: one global slow clock of period G; the timer is a tick down-counter.
    Tick,
}

/// Retransmission-timeout bounds, per profile family (spec §3.6 table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoBounds {
    /// ns-2 `rtt_timeout()`: optional `minrto_` clamp (before back-off when `rfc2988`),
    /// `maxrto_` cap, then a floor of 2 ticks.
    Ns2 {
        min_rto: SimDuration,
        clamp_before_backoff: bool,
        max_rto: SimDuration,
    },
    /// BSD `TCPT_RANGESET(rto_base · backoff, t_rttmin, 128 ticks)`.
    Bsd { min_ticks: u32, max_ticks: u32 },
}

/// Receiver ACK policy (spec §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckPolicy {
    /// One immediate ACK per arriving data segment (ns-2 `Agent/TCPSink`).
    EveryPacket,
    /// ns-2 `DelAck` sink: hold an in-order ACK for `interval`; ACK every second segment.
    DelayedNs2 { interval: SimDuration },
    /// 4.3BSD: a global 200 ms fast timer flushes held ACKs; every second segment is ACKed now.
    DelayedBsd,
}

/// Everything a sender needs. Built from a [`Profile`] and then overridden field by field.
#[derive(Clone, Debug, PartialEq)]
pub struct SenderConfig {
    pub seq_mode: SeqMode,
    pub variant: Variant,
    /// Payload bytes per full segment (ns-2 `packetSize_`, BSD MSS).
    pub mss: u32,
    /// Header bytes added on the wire to a data segment (0 for `ns2_2000`, whose packet size is
    /// the whole packet; 40 otherwise).
    pub header_bytes: u32,
    /// Receiver window: packets in packet mode (ns-2 `window_`), bytes in byte mode (the
    /// receiver's advertised window; updated from ACKs).
    pub rwnd: u64,
    /// Initial congestion window in segments (ns-2 `windowInit_`, BSD 1).
    pub initial_window: u32,
    /// ns-2 `syn_`: packet 0 is a 40-byte opening packet and `initial_window` applies once it is
    /// ACKed (`delay_growth_`).
    pub syn: bool,
    /// Duplicate-ACK threshold (3 everywhere).
    pub dupthresh: u32,
    /// `false` gives recovery by timeout only (ns-2 `noFastRetrans_`; seed 000 Tables 1–2).
    pub fast_retransmit: bool,
    /// ns-2 `bugFix_`: at most one fast retransmit per window (`recover` guard).
    pub ns2_bugfix: bool,
    /// ns-2 `bugfix_ss_` (ns-2.35): the guard also lets a fast retransmit through while the
    /// cumulative ACK is still 0, so losing the first data packet need not time out.
    pub ns2_bugfix_ss: bool,
    pub sack_sender: SackSender,
    /// ns-2 Sack1 before August 2000 (`oldCode_`): `pipe = int(cwnd) − dupthresh` at the fast
    /// retransmit instead of `outstanding − dupthresh` (deviation D8).
    pub sack1_pipe_from_cwnd: bool,
    /// ns-2 Sack1 since July 2000: a duplicate ACK counts only if it carries new SACK
    /// information.
    pub sack1_dupack_needs_new_info: bool,
    /// RFC 6675/3517 senders forget the scoreboard at a timeout, as RFC 2018 says (off: keep
    /// it, RFC 6675 §5.1; ns-2 Sack1 always clears).
    pub sack_clear_on_rto: bool,
    /// ns-2 `exitFastRetrans_` (ns-2.35): no window inflation after a declined fast retransmit.
    pub exit_fast_retrans: bool,
    pub tahoe_resume: TahoeResume,
    pub reno_flavour: RenoFlavour,
    /// ns-2 `precisionReduce_`: fractional window halving.
    pub precise_halving: bool,
    /// 4.3BSD-Reno congestion-avoidance extra `MSS/8` term (spec §3.3).
    pub reno_ca_extra: bool,
    /// Window-scale shift used for the BSD cwnd cap `65535 << scale`.
    pub window_scale: u8,
    /// ns-2 `maxcwnd_` in packets (0 = none).
    pub max_cwnd: u32,
    /// ns-2 `maxburst_`: packets per send-loop call (0 = unlimited).
    pub max_burst: u32,
    /// Pace transmissions at the rate the controller asks (`CongestionOps::pacing_rate_bps`):
    /// each segment leaves no earlier than its predecessor's size at that rate after it.
    pub pacing: bool,
    /// Retransmissions are ECN-capable too (DCTCP, as Linux and ns-3 send it; RFC 3168 keeps
    /// them Not-ECT).
    pub ect_retransmissions: bool,
    pub timer_mode: TimerMode,
    /// TCP clock granularity G (ns-2 `tcpTick_`, BSD slow-timer period).
    pub tick: SimDuration,
    /// RTO before the first RTT sample.
    pub initial_rto: SimDuration,
    pub rto_bounds: RtoBounds,
    /// Limited Transmit (RFC 3042; ns-2 `singledup_`): one new segment on each of the first
    /// two duplicate ACKs.
    pub limited_transmit: bool,
    /// ns-2 NewReno `newreno_changes1_`: restart the timer on the first partial ACK of a
    /// recovery only ("impatient"); off restarts it on every partial ACK ("slow but steady").
    pub newreno_impatient: bool,
    /// ns-2 NewReno `partial_window_deflation_`.
    pub partial_window_deflation: bool,
    /// ns-2 NewReno: packets the send loop may release per ACK during recovery (2).
    pub recovery_burst: u32,
    /// ns-2 `timerfix_` (from 2001): re-arm the timer after, not before, the RTT update on a
    /// new ACK. BSD re-arms after.
    pub timer_fix: bool,
    /// ns-2 `restart_bugfix_`: a timeout with nothing outstanding does not cut ssthresh.
    pub restart_bugfix: bool,
    /// What congestion marks echoed by the receiver do (off: the flow is not ECN-capable).
    pub mark_response: MarkResponse,
    /// RFC 5681: ssthresh from half the FlightSize instead of half of `min(cwnd, rwnd)`.
    pub ssthresh_from_flight: bool,
    /// How the window grows and how far a congestion event cuts it (the profile's own AIMD
    /// unless a scenario picks another controller).
    pub congestion_control: CongestionControl,
}

/// A sender's answer to congestion marks (spec §4.6 ECN, §4.7 BCN-TCP).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MarkResponse {
    /// Not ECN-capable: data is not sent ECT, so marking routers drop it instead.
    Off,
    /// RFC 3168 (ns-2 `ecn_`; Floyd's 1994 response, seed 003's "FLOYD94"): halve at most once
    /// per window of data, without retransmitting; CWR on the next new segment.
    Ecn,
    /// BCN-TCP (seed 003): `cwnd = max(1, cwnd · decrease_factor)`,
    /// `ssthresh = max(2, floor(cwnd))`, when `reaction` says.
    Bcn {
        decrease_factor: f64,
        reaction: BcnReaction,
    },
}

/// When a BCN-TCP sender answers marks, and how its window grows (spec §4.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BcnReaction {
    /// On every marked ACK (as an ABR source answers every RM cell with CI).
    PerMarkedAck,
    /// At most once per round trip.
    OncePerRtt,
    /// Calhoun's scheme (1995, cited by seed 003): at most once per round trip, and above
    /// ssthresh one segment more only after two round trips without a mark (instead of about
    /// one per round trip).
    Calhoun,
}

/// How the receiver echoes congestion marks (spec §2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionEcho {
    Off,
    /// RFC 3168: ECE on every ACK from a CE arrival until a segment with CWR arrives.
    UntilCwr,
    /// BCN: ECE on the ACK of each CE segment only (with delayed ACKs, of either held one),
    /// so that a sender reacting per marked ACK reacts once per marked packet (deviation D12).
    PerPacket,
    /// DCTCP (RFC 8257 §3.2): ECE on every ACK while the last data packet carried CE, and a
    /// held delayed ACK sent at once, with the state before, when the CE state changes; CWR
    /// is ignored.
    Dctcp,
}

/// Everything a receiver needs.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverConfig {
    pub seq_mode: SeqMode,
    pub mss: u32,
    /// Header bytes of a data segment on the wire (for wire-byte goodput).
    pub header_bytes: u32,
    /// Size of a pure ACK on the wire (ns-2 sink `packetSize_` = 40).
    pub ack_bytes: u32,
    pub ack_policy: AckPolicy,
    /// ns-2 `RFC2581_immediate_ack_`: ACK a gap-filling segment at once.
    pub immediate_ack_on_gap_fill: bool,
    /// Receiver buffer in bytes (byte mode); the advertised window is derived from it.
    pub rbuf_bytes: u64,
    /// RFC 1323 window scaling on.
    pub window_scaling: bool,
    /// SACK blocks per ACK (spec §2.4): 0 turns SACK off; at most
    /// [`congsim_core::wire::SackBlocks::CAPACITY`] (ns-2 `maxSackBlocks_` = 3).
    pub sack_blocks: u8,
    /// Wire bytes an ACK grows by when it carries SACK blocks: `sack_base_bytes + 8 · blocks`.
    /// ns-2 adds 8 bytes per block and nothing else; a real option adds kind, length and two
    /// NOPs of padding (4 bytes).
    pub sack_base_bytes: u32,
    /// How congestion marks are echoed (spec §2.5: ECN, and BCN which uses the same path).
    pub echo: CongestionEcho,
}

impl ReceiverConfig {
    /// Window-scale shift: the smallest `s` with `rbuf >> s <= 65535` (0 without scaling).
    pub fn window_scale(&self) -> u8 {
        if !self.window_scaling {
            return 0;
        }
        let mut s = 0u8;
        while s < 14 && (self.rbuf_bytes >> s) > 65_535 {
            s += 1;
        }
        s
    }

    /// The window advertised in every ACK, in bytes (spec §2.6): the 16-bit field holds
    /// `rbuf >> s` (clipped to 65535), scaled back by `2^s`.
    pub fn advertised_window(&self) -> u64 {
        let s = self.window_scale();
        (self.rbuf_bytes >> s).min(65_535) << s
    }
}

/// Named presets (spec §0). `ns2_2002` and `ns2_235` differ from `ns2_2000` only in switch
/// values, which is the point of the switch structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// ns-2 of 1999–2000 (seed 004).
    Ns2_2000,
    /// ns-2.1b9a, July 2002 (seed 002).
    Ns2_2002,
    /// A modern ns-2.35 build.
    Ns2_235,
    /// The authors' own simulators modelled on 4.3BSD (seeds 000, 001, 003).
    Bsd,
    /// Modern standards: RFC 5681, 6298, 6582, 6675, 3042 and 3168 in byte mode.
    Rfc,
}

impl Profile {
    pub const NAMES: [&'static str; 5] = ["ns2_2000", "ns2_2002", "ns2_235", "bsd", "rfc"];

    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "ns2_2000" => Self::Ns2_2000,
            "ns2_2002" => Self::Ns2_2002,
            "ns2_235" => Self::Ns2_235,
            "bsd" => Self::Bsd,
            "rfc" => Self::Rfc,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Ns2_2000 => "ns2_2000",
            Self::Ns2_2002 => "ns2_2002",
            Self::Ns2_235 => "ns2_235",
            Self::Bsd => "bsd",
            Self::Rfc => "rfc",
        }
    }

    /// The sender preset for `variant`.
    pub fn sender(self, variant: Variant) -> SenderConfig {
        let ns2_2000 = SenderConfig {
            seq_mode: SeqMode::Packets,
            variant,
            mss: 1000,
            header_bytes: 0,
            rwnd: 20,
            initial_window: 1,
            syn: false,
            dupthresh: 3,
            fast_retransmit: true,
            ns2_bugfix: true,
            ns2_bugfix_ss: false,
            sack_sender: SackSender::Ns2Sack1,
            sack1_pipe_from_cwnd: true,
            sack1_dupack_needs_new_info: false,
            sack_clear_on_rto: false,
            exit_fast_retrans: false,
            tahoe_resume: TahoeResume::GoBackN,
            reno_flavour: RenoFlavour::Ns2,
            precise_halving: false,
            reno_ca_extra: false,
            window_scale: 0,
            max_cwnd: 0,
            max_burst: 0,
            timer_mode: TimerMode::Exact,
            tick: SimDuration::from_millis(100),
            initial_rto: SimDuration::from_secs(6),
            rto_bounds: RtoBounds::Ns2 {
                min_rto: SimDuration::ZERO,
                clamp_before_backoff: false,
                max_rto: SimDuration::from_secs(64),
            },
            timer_fix: false,
            limited_transmit: false,
            newreno_impatient: false,
            partial_window_deflation: false,
            recovery_burst: 2,
            restart_bugfix: true,
            mark_response: MarkResponse::Off,
            ssthresh_from_flight: false,
            congestion_control: CongestionControl::Aimd,
            pacing: false,
            ect_retransmissions: false,
        };
        match self {
            Self::Ns2_2000 => ns2_2000,
            Self::Ns2_2002 => SenderConfig {
                sack1_pipe_from_cwnd: false,
                sack1_dupack_needs_new_info: true,
                limited_transmit: true,
                header_bytes: 40,
                initial_window: 2,
                syn: true,
                timer_fix: true,
                tick: SimDuration::from_millis(10),
                rto_bounds: RtoBounds::Ns2 {
                    min_rto: SimDuration::from_secs(1),
                    clamp_before_backoff: true,
                    max_rto: SimDuration::from_secs(64),
                },
                ..ns2_2000
            },
            Self::Ns2_235 => SenderConfig {
                ns2_bugfix_ss: true,
                sack1_pipe_from_cwnd: false,
                sack1_dupack_needs_new_info: true,
                limited_transmit: true,
                header_bytes: 40,
                initial_window: 2,
                syn: true,
                tick: SimDuration::from_millis(10),
                timer_fix: true,
                initial_rto: SimDuration::from_secs(3),
                rto_bounds: RtoBounds::Ns2 {
                    min_rto: SimDuration::from_millis(200),
                    clamp_before_backoff: true,
                    max_rto: SimDuration::from_secs(60),
                },
                precise_halving: true,
                exit_fast_retrans: true,
                newreno_impatient: true,
                partial_window_deflation: true,
                ..ns2_2000
            },
            Self::Bsd => SenderConfig {
                seq_mode: SeqMode::Bytes,
                mss: 512,
                header_bytes: 40,
                rwnd: 65_535,
                ns2_bugfix: false,
                sack_sender: SackSender::Rfc6675,
                tahoe_resume: TahoeResume::Restore,
                // 4.3BSD had no NewReno: a NewReno flow follows RFC 6582 here.
                reno_flavour: if variant == Variant::NewReno {
                    RenoFlavour::Rfc5681
                } else {
                    RenoFlavour::Bsd
                },
                timer_mode: TimerMode::Tick,
                tick: SimDuration::from_millis(500),
                // Floor of 2 ticks, initial RTO doubled by back-off (deviations D1, D2).
                rto_bounds: RtoBounds::Bsd {
                    min_ticks: 2,
                    max_ticks: 128,
                },
                timer_fix: true,
                restart_bugfix: false,
                ..ns2_2000
            },
            Self::Rfc => SenderConfig {
                seq_mode: SeqMode::Bytes,
                mss: 1460,
                header_bytes: 40,
                rwnd: 1_048_576,
                window_scale: 5,
                //= RFC 5681 §3.1: IW = min(4·SMSS, max(2·SMSS, 4380 bytes)) = 3 segments
                initial_window: 3,
                ns2_bugfix: false,
                sack_sender: SackSender::Rfc6675,
                reno_flavour: RenoFlavour::Rfc5681,
                ssthresh_from_flight: true,
                limited_transmit: true,
                //= RFC 6582 §4.1: the impatient variant is recommended
                newreno_impatient: true,
                timer_mode: TimerMode::Exact,
                //= RFC 6298: RTO = SRTT + max(G, 4·RTTVAR), at least 1 s, initially 1 s
                // (through the ns-2 integer estimator: deviation D11)
                tick: SimDuration::from_millis(1),
                initial_rto: SimDuration::from_secs(1),
                rto_bounds: RtoBounds::Ns2 {
                    min_rto: SimDuration::from_secs(1),
                    clamp_before_backoff: true,
                    max_rto: SimDuration::from_secs(60),
                },
                timer_fix: true,
                ..ns2_2000
            },
        }
    }

    /// The receiver preset for a `variant` sender (SACK variants get a SACK receiver: ns-2
    /// `Agent/TCPSink/Sack1`).
    pub fn receiver(self, variant: Variant) -> ReceiverConfig {
        let ns2 = ReceiverConfig {
            seq_mode: SeqMode::Packets,
            mss: 1000,
            header_bytes: 0,
            ack_bytes: 40,
            ack_policy: AckPolicy::EveryPacket,
            immediate_ack_on_gap_fill: true,
            rbuf_bytes: 0,
            window_scaling: false,
            sack_blocks: if variant == Variant::Sack { 3 } else { 0 },
            sack_base_bytes: 0,
            echo: CongestionEcho::Off,
        };
        match self {
            Self::Ns2_2000 => ns2,
            Self::Ns2_2002 | Self::Ns2_235 => ReceiverConfig {
                header_bytes: 40,
                ..ns2
            },
            Self::Bsd => ReceiverConfig {
                seq_mode: SeqMode::Bytes,
                mss: 512,
                header_bytes: 40,
                ack_policy: AckPolicy::DelayedBsd,
                rbuf_bytes: 65_535,
                sack_base_bytes: 4,
                ..ns2
            },
            Self::Rfc => ReceiverConfig {
                seq_mode: SeqMode::Bytes,
                mss: 1460,
                header_bytes: 40,
                //= RFC 5681 §4.2: delayed ACKs, at least every second full-sized segment
                ack_policy: AckPolicy::DelayedNs2 {
                    interval: SimDuration::from_millis(200),
                },
                rbuf_bytes: 1_048_576,
                window_scaling: true,
                sack_base_bytes: 4,
                ..ns2
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx(rbuf: u64, scaling: bool) -> ReceiverConfig {
        ReceiverConfig {
            rbuf_bytes: rbuf,
            window_scaling: scaling,
            ..Profile::Bsd.receiver(Variant::Reno)
        }
    }

    #[test]
    fn window_scaling_matches_spec_examples() {
        // spec §2.6: 600000 → s = 4, advertised 600000; 16 × 64 KB → s = 5, advertised 1048576.
        assert_eq!(rx(600_000, true).window_scale(), 4);
        assert_eq!(rx(600_000, true).advertised_window(), 600_000);
        assert_eq!(rx(1_048_576, true).window_scale(), 5);
        assert_eq!(rx(1_048_576, true).advertised_window(), 1_048_576);
        // Without scaling the 16-bit field caps the window.
        assert_eq!(rx(600_000, false).advertised_window(), 65_535);
        assert_eq!(rx(65_536, false).advertised_window(), 65_535);
        // A buffer that is not a multiple of 2^s is truncated to one.
        assert_eq!(rx(600_017, true).advertised_window(), 600_016);
    }

    #[test]
    fn profiles_differ_only_in_switches() {
        let a = Profile::Ns2_2000.sender(Variant::Reno);
        let b = Profile::Ns2_2002.sender(Variant::Reno);
        assert_eq!(b.tick, SimDuration::from_millis(10));
        assert!(b.syn && !a.syn);
        assert_eq!(
            SenderConfig {
                header_bytes: 0,
                initial_window: 1,
                syn: false,
                timer_fix: false,
                limited_transmit: false,
                sack1_pipe_from_cwnd: true,
                sack1_dupack_needs_new_info: false,
                tick: a.tick,
                rto_bounds: a.rto_bounds,
                ..b
            },
            a
        );
        for name in Profile::NAMES {
            assert_eq!(Profile::from_name(name).unwrap().name(), name);
        }
    }
}
