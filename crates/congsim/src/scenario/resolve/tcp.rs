//! TCP settings: a profile and variant, then every switch that may override them.

use super::context::Ctx;
use crate::scenario::ScenarioError;
use crate::scenario::schema::*;
use congsim_core::time::SimDuration;
use congsim_core::wire::SackBlocks;
use congsim_tcp::CongestionControl;
use congsim_tcp::config::{BcnReaction, CongestionEcho, MarkResponse, SackSender};
use congsim_tcp::config::{RenoFlavour, RtoBounds, TahoeResume};
use congsim_tcp::{AckPolicy, Profile, ReceiverConfig, SenderConfig, SeqMode, TimerMode, Variant};

/// ns-2 `Agent/TCPSink/DelAck set interval_ 100ms`.
const NS2_DELACK_INTERVAL: SimDuration = SimDuration::from_millis(100);
/// Header bytes a data segment may carry: IPv4 and TCP headers, each with all 40 bytes of
/// options.
const MAX_HEADER_BYTES: u32 = 120;
/// ns-2's `window_` in packets: up to 2^30 (a larger one overflowed the window arithmetic).
const MAX_WINDOW_PACKETS: u64 = 1 << 30;
/// The largest receive window RFC 7323 can advertise: 65535 << 14 bytes, about 1 GiB.
const MAX_RECEIVER_BUFFER_BYTES: u64 = 1 << 30;
/// ns-2's `windowInit_` and RFC 3390's IW, in segments.
const MAX_INITIAL_WINDOW_SEGMENTS: u32 = 1 << 20;

/// Seed 003's multiplicative decrease factor for BCN-TCP (500-byte packets).
pub(super) const BCN_DEFAULT_FACTOR: f64 = 0.975;
/// Calhoun's decrease (seed 003: "decreases its window by a factor of 0.625").
const CALHOUN_DEFAULT_FACTOR: f64 = 0.625;

pub(super) struct ResolvedTcp {
    pub(super) sender: SenderConfig,
    pub(super) receiver: ReceiverConfig,
    pub(super) random_boot_phase: bool,
    pub(super) variant_name: &'static str,
    pub(super) profile_name: &'static str,
}

/// Where each setting of a flow comes from: the flow's own `tcp` table if it sets it there,
/// else `[tcp]`; errors name the one it came from.
struct Picker<'a> {
    base: &'a TcpSpec,
    over: &'a TcpSpec,
    flow_path: &'a str,
}

impl Picker<'_> {
    fn pick<T: Clone>(&self, field: fn(&TcpSpec) -> &Option<T>, name: &str) -> Option<(T, String)> {
        match (field(self.over), field(self.base)) {
            (Some(v), _) => Some((v.clone(), format!("{}.tcp.{name}", self.flow_path))),
            (None, Some(v)) => Some((v.clone(), format!("tcp.{name}"))),
            (None, None) => None,
        }
    }
}

/// A setting of the flow, with its field path: `pick!(picker, window)`.
macro_rules! pick {
    ($picker:expr, $field:ident) => {
        $picker.pick(|t| &t.$field, stringify!($field))
    };
}

/// What the merging passes share: the context, the settings, the profile's sequence model
/// and the variant.
struct Merge<'a> {
    ctx: &'a Ctx<'a>,
    pick: Picker<'a>,
    byte_mode: bool,
    variant: Variant,
}

/// Merges a flow's `tcp` overrides over the file-wide `[tcp]` table over the profile.
pub(super) fn resolve_tcp(
    ctx: &Ctx<'_>,
    base: &TcpSpec,
    over: &TcpSpec,
    flow_path: &str,
) -> Result<ResolvedTcp, ScenarioError> {
    let pick = Picker {
        base,
        over,
        flow_path,
    };
    let p = &pick;
    let (variant_value, variant_path) =
        pick!(p, variant).unwrap_or((VariantName::Reno, format!("{flow_path}.tcp.variant")));
    let variant = match variant_value {
        VariantName::Tahoe => Variant::Tahoe,
        VariantName::Reno => Variant::Reno,
        VariantName::NewReno => Variant::NewReno,
        VariantName::Sack => Variant::Sack,
    };
    let profile = match pick!(p, profile)
        .map(|(v, _)| v)
        .unwrap_or(ProfileName::Ns2_2000)
    {
        ProfileName::Ns2_2000 => Profile::Ns2_2000,
        ProfileName::Ns2_2002 => Profile::Ns2_2002,
        ProfileName::Ns2_235 => Profile::Ns2_235,
        ProfileName::Bsd => Profile::Bsd,
        ProfileName::Rfc => Profile::Rfc,
    };
    let mut s = profile.sender(variant);
    let mut r = profile.receiver(variant);
    let byte_mode = s.seq_mode == SeqMode::Bytes;
    let merge = Merge {
        ctx,
        pick,
        byte_mode,
        variant,
    };
    sizes_and_windows(&merge, &mut s, &mut r)?;
    acks_and_timers(&merge, &mut s, &mut r)?;
    sending(&merge, &mut s, &mut r)?;
    sack(&merge, &mut s, &mut r)?;
    congestion_marks(&merge, &mut s, &mut r)?;
    if variant == Variant::Sack {
        // SACK blocks travel as 16-bit segment offsets (congsim_core::wire::SackBlocks).
        let window_segments = if byte_mode {
            s.rwnd / u64::from(s.mss)
        } else {
            s.rwnd
        };
        if window_segments > u64::from(u16::MAX) {
            return Err(ctx.err(
                variant_path,
                "sack supports receiver windows of at most 65535 segments",
            ));
        }
    }
    // After the timer settings: the default follows the timer mode.
    let random_boot_phase = pick!(merge.pick, boot_phase)
        .map_or(s.timer_mode == TimerMode::Exact, |(b, _)| {
            b == BootPhaseName::Random
        });
    Ok(ResolvedTcp {
        variant_name: match variant {
            Variant::Tahoe => "tahoe",
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Sack => "sack",
        },
        profile_name: profile.name(),
        sender: s,
        receiver: r,
        random_boot_phase,
    })
}

/// The segment size, headers and receive window.
fn sizes_and_windows(
    m: &Merge<'_>,
    s: &mut SenderConfig,
    r: &mut ReceiverConfig,
) -> Result<(), ScenarioError> {
    let p = &m.pick;
    let ctx = m.ctx;
    let byte_mode = m.byte_mode;
    if let Some((size, path)) = pick!(p, packet_size) {
        let bytes = u32::try_from(size.value.0)
            .ok()
            .filter(|&b| (1..=65_495).contains(&b));
        let bytes = bytes.ok_or_else(|| ctx.err(path, "must be between 1B and 65495B"))?;
        s.mss = bytes;
        r.mss = bytes;
    }
    if let Some((h, path)) = pick!(p, header_bytes) {
        if h > MAX_HEADER_BYTES {
            return Err(ctx.err(path, format!("must be 0 to {MAX_HEADER_BYTES} bytes (IPv4 and TCP headers with every option: 60 + 60)")));
        }
        s.header_bytes = h;
        r.header_bytes = h;
    }
    if let Some((w, path)) = pick!(p, window) {
        if byte_mode {
            return Err(ctx.err(path, "is the ns-2 window in packets; byte-numbered profiles (bsd, rfc) take receiver_buffer instead"));
        }
        if !(1..=MAX_WINDOW_PACKETS).contains(&w) {
            return Err(ctx.err(
                path,
                format!("must be 1 to {MAX_WINDOW_PACKETS} packets (2^30)"),
            ));
        }
        s.rwnd = w;
    }
    if let Some((b, path)) = pick!(p, receiver_buffer) {
        if !byte_mode {
            return Err(ctx.err(
                path,
                "applies to byte-numbered profiles (bsd, rfc); ns-2 profiles take window (packets)",
            ));
        }
        if b.value.0 < u64::from(s.mss) {
            return Err(ctx.err(path, "must hold at least one segment"));
        }
        if b.value.0 > MAX_RECEIVER_BUFFER_BYTES {
            return Err(ctx.err(
                path,
                "must be at most 1GiB, the largest window TCP can advertise (RFC 7323: 65535 << 14)",
            ));
        }
        r.rbuf_bytes = b.value.0;
    }
    if let Some((on, path)) = pick!(p, window_scaling) {
        if !byte_mode {
            return Err(ctx.err(path, "applies to byte-numbered profiles (bsd, rfc) only"));
        }
        r.window_scaling = on;
    }
    if byte_mode {
        s.rwnd = r.advertised_window();
        s.window_scale = r.window_scale();
    }
    Ok(())
}

/// ACKs, fast retransmit and the retransmission timer.
fn acks_and_timers(
    m: &Merge<'_>,
    s: &mut SenderConfig,
    r: &mut ReceiverConfig,
) -> Result<(), ScenarioError> {
    let p = &m.pick;
    let ctx = m.ctx;
    if let Some((on, _)) = pick!(p, fast_retransmit) {
        s.fast_retransmit = on;
    }
    let delack_interval = pick!(p, delayed_ack_interval).map(|(d, _)| d.value);
    if let Some((mode, _)) = pick!(p, delayed_ack) {
        r.ack_policy = match mode {
            DelayedAckName::Off => AckPolicy::EveryPacket,
            DelayedAckName::Ns2 => AckPolicy::DelayedNs2 {
                interval: delack_interval.unwrap_or(NS2_DELACK_INTERVAL),
            },
            DelayedAckName::Bsd => AckPolicy::DelayedBsd,
        };
    }
    if let Some((tick, path)) = pick!(p, tick) {
        if tick.value.is_zero() {
            return Err(ctx.err(path, "must be greater than zero"));
        }
        s.tick = tick.value;
    }
    if let Some((mode, _)) = pick!(p, timer) {
        s.timer_mode = match mode {
            TimerModeName::Exact => TimerMode::Exact,
            TimerModeName::Tick => TimerMode::Tick,
        };
    }
    if let Some((rto, path)) = pick!(p, initial_rto) {
        if rto.value.is_zero() {
            return Err(ctx.err(path, "must be greater than zero"));
        }
        s.initial_rto = rto.value;
    }
    if let Some((min, _)) = pick!(p, min_rto) {
        s.rto_bounds = match s.rto_bounds {
            RtoBounds::Ns2 {
                max_rto,
                clamp_before_backoff,
                ..
            } => RtoBounds::Ns2 {
                min_rto: min.value,
                clamp_before_backoff,
                max_rto,
            },
            RtoBounds::Bsd { max_ticks, .. } => {
                let ticks = (min.value.as_ps() / s.tick.as_ps()).max(1) as u32;
                RtoBounds::Bsd {
                    min_ticks: ticks,
                    max_ticks,
                }
            }
        };
    }
    Ok(())
}

/// How the sender opens, bursts and recovers.
fn sending(
    m: &Merge<'_>,
    s: &mut SenderConfig,
    _r: &mut ReceiverConfig,
) -> Result<(), ScenarioError> {
    let p = &m.pick;
    let ctx = m.ctx;
    let byte_mode = m.byte_mode;
    let variant = m.variant;
    if let Some((iw, path)) = pick!(p, initial_window) {
        if !(1..=MAX_INITIAL_WINDOW_SEGMENTS).contains(&iw) {
            return Err(ctx.err(
                path,
                format!("must be 1 to {MAX_INITIAL_WINDOW_SEGMENTS} segments"),
            ));
        }
        s.initial_window = iw;
    }
    if let Some((syn, path)) = pick!(p, syn) {
        if syn && byte_mode {
            return Err(ctx.err(
                path,
                "the 40-byte opening packet is an ns-2 packet-mode feature",
            ));
        }
        s.syn = syn;
    }
    if let Some((cc, _)) = pick!(p, congestion_control) {
        s.congestion_control = cc.0;
    }
    // BBR paces by its model: pacing is on unless the file turns it off, which BBR refuses.
    let bbr = s.congestion_control == CongestionControl::Bbr;
    match pick!(p, pacing) {
        Some((false, path)) if bbr => {
            return Err(ctx.err(
                path,
                "must be true (or left out) with congestion_control = \"bbr\", which sends at the rate its model sets",
            ));
        }
        Some((on, _)) => s.pacing = on,
        None => s.pacing |= bbr,
    }
    if let Some((b, _)) = pick!(p, max_burst) {
        s.max_burst = b;
    }
    if let Some((cap, path)) = pick!(p, max_cwnd) {
        if byte_mode {
            return Err(ctx.err(path, "is ns-2's maxcwnd_ (packets); byte-numbered profiles cap cwnd at the receiver window"));
        }
        s.max_cwnd = cap;
    }
    if let Some((b, _)) = pick!(p, ns2_bugfix) {
        s.ns2_bugfix = b;
    }
    if let Some((t, _)) = pick!(p, tahoe_resume) {
        s.tahoe_resume = match t {
            TahoeResumeName::GoBackN => TahoeResume::GoBackN,
            TahoeResumeName::Restore => TahoeResume::Restore,
        };
    }
    if let Some((f, path)) = pick!(p, reno_flavour) {
        s.reno_flavour = match (f, byte_mode) {
            (RenoFlavourName::Ns2, false) => RenoFlavour::Ns2,
            (RenoFlavourName::Bsd, true) => RenoFlavour::Bsd,
            (RenoFlavourName::Rfc5681, true) => RenoFlavour::Rfc5681,
            (RenoFlavourName::Ns2, true)
            | (RenoFlavourName::Bsd | RenoFlavourName::Rfc5681, false) => {
                return Err(ctx.err(
                    path,
                    "must match the profile's sequence model: ns2 for ns2_* profiles, bsd or rfc5681 for bsd and rfc",
                ));
            }
        };
        if variant == Variant::NewReno && s.reno_flavour == RenoFlavour::Bsd {
            return Err(ctx.err(
                path,
                "bsd is 4.4BSD-Lite Reno, which has no NewReno; newreno in byte mode follows RFC 6582 (rfc5681)",
            ));
        }
    }
    if let Some((on, _)) = pick!(p, reno_ca_extra) {
        s.reno_ca_extra = on;
    }
    if let Some((on, _)) = pick!(p, limited_transmit) {
        s.limited_transmit = on;
    }
    if let Some((on, _)) = pick!(p, newreno_impatient) {
        s.newreno_impatient = on;
    }
    if let Some((on, _)) = pick!(p, partial_window_deflation) {
        s.partial_window_deflation = on;
    }
    Ok(())
}

/// SACK: the sender's algorithm and the blocks an ACK carries.
fn sack(m: &Merge<'_>, s: &mut SenderConfig, r: &mut ReceiverConfig) -> Result<(), ScenarioError> {
    let p = &m.pick;
    let ctx = m.ctx;
    let byte_mode = m.byte_mode;
    let variant = m.variant;
    if let Some((name, path)) = pick!(p, sack_sender) {
        s.sack_sender = match name {
            SackSenderName::Ns2Sack1 => SackSender::Ns2Sack1,
            SackSenderName::Rfc6675 => SackSender::Rfc6675,
            SackSenderName::Rfc3517 => SackSender::Rfc3517,
            SackSenderName::Prr => SackSender::Prr,
        };
        if variant != Variant::Sack {
            return Err(ctx.err(path, "applies to variant = \"sack\" only"));
        }
        if byte_mode && s.sack_sender == SackSender::Ns2Sack1 {
            return Err(ctx.err(path, "ns2_sack1 follows ns-2's packet-numbered Agent/TCP/Sack1; byte-numbered profiles (bsd, rfc) take rfc6675, rfc3517 or prr"));
        }
    }
    if let Some((on, path)) = pick!(p, sack_clear_on_rto) {
        if variant != Variant::Sack || s.sack_sender == SackSender::Ns2Sack1 {
            return Err(ctx.err(
                path,
                "applies to the rfc6675, rfc3517 and prr SACK senders (ns2_sack1 always clears)",
            ));
        }
        s.sack_clear_on_rto = on;
    }
    if let Some((n, path)) = pick!(p, sack_blocks) {
        if variant != Variant::Sack {
            return Err(ctx.err(path, "applies to variant = \"sack\" only"));
        }
        if !(1..=SackBlocks::CAPACITY).contains(&usize::from(n)) {
            return Err(ctx.err(path, "must be between 1 and 3"));
        }
        r.sack_blocks = n;
    }
    Ok(())
}

/// What the sender does with ECN or BCN marks.
fn congestion_marks(
    m: &Merge<'_>,
    s: &mut SenderConfig,
    r: &mut ReceiverConfig,
) -> Result<(), ScenarioError> {
    let p = &m.pick;
    let ctx = m.ctx;
    let bcn_factor = pick!(p, bcn_factor);
    let bcn_reaction = pick!(p, bcn_reaction);
    let marks = pick!(p, congestion_marks);
    // DCTCP answers ECN marks only: ECN is on unless the file turns it off.
    let dctcp = s.congestion_control == CongestionControl::Dctcp;
    match marks {
        Some((CongestionMarksName::Ecn | CongestionMarksName::Bcn, path))
            if s.congestion_control == CongestionControl::Bbr =>
        {
            return Err(ctx.err(
                path,
                "must be \"off\" (or left out) with congestion_control = \"bbr\": BBR v1 answers no marks",
            ));
        }
        Some((CongestionMarksName::Off | CongestionMarksName::Bcn, path)) if dctcp => {
            return Err(ctx.err(
                path,
                "must be \"ecn\" (or left out) with congestion_control = \"dctcp\", which answers ECN marks",
            ));
        }
        None if dctcp => {
            s.mark_response = MarkResponse::Ecn;
            r.echo = CongestionEcho::Dctcp;
        }
        _ => {}
    }
    s.ect_retransmissions = dctcp;
    match marks.map(|(m, _)| m) {
        Some(CongestionMarksName::Ecn) => {
            s.mark_response = MarkResponse::Ecn;
            r.echo = if dctcp {
                CongestionEcho::Dctcp
            } else {
                CongestionEcho::UntilCwr
            };
        }
        Some(CongestionMarksName::Bcn) => {
            let reaction = match bcn_reaction.map(|(reaction, _)| reaction) {
                None | Some(BcnReactionName::PerMarkedAck) => BcnReaction::PerMarkedAck,
                Some(BcnReactionName::OncePerRtt) => BcnReaction::OncePerRtt,
                Some(BcnReactionName::Calhoun) => BcnReaction::Calhoun,
            };
            let decrease_factor = match bcn_factor {
                Some((f, _)) if f > 0.0 && f < 1.0 => f,
                Some((_, path)) => {
                    return Err(ctx.err(path, "must be greater than 0 and less than 1"));
                }
                None if reaction == BcnReaction::Calhoun => CALHOUN_DEFAULT_FACTOR,
                None => BCN_DEFAULT_FACTOR,
            };
            s.mark_response = MarkResponse::Bcn {
                decrease_factor,
                reaction,
            };
            r.echo = CongestionEcho::PerPacket;
        }
        Some(CongestionMarksName::Off) | None => {
            let stray = bcn_factor
                .map(|(_, path)| path)
                .or(bcn_reaction.map(|(_, path)| path));
            if let Some(path) = stray {
                return Err(ctx.err(path, "applies with congestion_marks = \"bcn\" only"));
            }
        }
    }
    Ok(())
}
