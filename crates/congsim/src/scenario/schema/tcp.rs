//! `[tcp]` and each flow's `tcp = { … }`: profile, variant and every switch.

use super::*;
use congsim_tcp::CongestionControl;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VariantName {
    Tahoe,
    Reno,
    #[serde(rename = "newreno")]
    NewReno,
    /// SACK recovery; `sack_sender` picks ns-2 Sack1 or RFC 6675.
    Sack,
}

/// A congestion controller's name: any of `congsim_tcp::CongestionControl::ALL`, the one list
/// the TCP crate keeps (a new controller needs no change here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CongestionControlName(pub CongestionControl);

impl<'de> Deserialize<'de> for CongestionControlName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        CongestionControl::from_name(&name)
            .map(Self)
            .ok_or_else(|| {
                // Worded as serde words an unknown variant of the other enumerations.
                let names: Vec<String> = CongestionControl::ALL
                    .iter()
                    .map(|c| format!("`{}`", c.name()))
                    .collect();
                serde::de::Error::custom(format_args!(
                    "unknown variant `{name}`, expected one of {}",
                    names.join(", ")
                ))
            })
    }
}

impl Serialize for CongestionControlName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.name())
    }
}

impl JsonSchema for CongestionControlName {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CongestionControlName".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let one_of: Vec<serde_json::Value> = CongestionControl::ALL
            .iter()
            .map(|c| {
                serde_json::json!({
                    "description": c.description(),
                    "type": "string",
                    "const": c.name(),
                })
            })
            .collect();
        schemars::json_schema!({ "oneOf": one_of })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SackSenderName {
    /// ns-2 `Agent/TCP/Sack1` (packet-numbered profiles; their default).
    Ns2Sack1,
    /// RFC 6675 conservative SACK recovery (default for byte-numbered profiles).
    Rfc6675,
    /// RFC 3517, RFC 6675's predecessor.
    Rfc3517,
    /// RFC 6675 with Proportional Rate Reduction (RFC 6937): cwnd falls to ssthresh over the
    /// recovery instead of at its start (Linux's and ns-3's default).
    Prr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum ProfileName {
    #[serde(rename = "ns2_2000")]
    Ns2_2000,
    #[serde(rename = "ns2_2002")]
    Ns2_2002,
    #[serde(rename = "ns2_235")]
    Ns2_235,
    #[serde(rename = "bsd")]
    Bsd,
    /// RFC 5681, 6298, 6582, 6675, 3042, 3168 in byte mode.
    #[serde(rename = "rfc")]
    Rfc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DelayedAckName {
    /// One ACK per data segment, at once.
    Off,
    /// ns-2 `DelAck` sink (timer of `delayed_ack_interval`, default 100 ms).
    Ns2,
    /// 4.3BSD: global 200 ms fast timer.
    Bsd,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimerModeName {
    Exact,
    Tick,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BootPhaseName {
    /// Each sender's tick clock has a random phase in [0, tick) (ns-2 `boot_time_`).
    Random,
    Zero,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TahoeResumeName {
    GoBackN,
    Restore,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RenoFlavourName {
    Ns2,
    Bsd,
    Rfc5681,
}

/// TCP switches. Every field is optional: unset fields take the profile's value
/// (spec `tcp.md` §0 and §6).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Loss-recovery variant (default `reno`).
    pub variant: Option<VariantName>,
    /// How the window grows and how far a congestion event cuts it: `aimd` (default: the
    /// profile's own rule, the seeds' TCPs) or `cubic` (RFC 9438). Loss recovery is the
    /// variant's either way.
    pub congestion_control: Option<CongestionControlName>,
    /// Preset bundle of switches (default `ns2_2000`).
    pub profile: Option<ProfileName>,
    /// Data size per segment: ns-2 `packetSize_`, or the BSD MSS.
    pub packet_size: Option<SizeText>,
    /// Header bytes added to each data segment on the wire (ns2_2000: 0; others: 40).
    pub header_bytes: Option<u32>,
    /// Receiver window in packets (ns-2 `window_`; packet-numbered profiles only).
    pub window: Option<u64>,
    /// Receiver buffer (byte-numbered profiles only); the advertised window derives from it.
    pub receiver_buffer: Option<SizeText>,
    /// RFC 1323 window scaling (byte-numbered profiles).
    pub window_scaling: Option<bool>,
    /// `false`: recover by timeout only (seed 000's "without FRR").
    pub fast_retransmit: Option<bool>,
    pub delayed_ack: Option<DelayedAckName>,
    pub delayed_ack_interval: Option<DurationText>,
    /// Clock granularity G.
    pub tick: Option<DurationText>,
    pub timer: Option<TimerModeName>,
    pub boot_phase: Option<BootPhaseName>,
    pub initial_rto: Option<DurationText>,
    /// RTO floor (ns-2 `minrto_`; BSD: rounded down to ticks).
    pub min_rto: Option<DurationText>,
    pub initial_window: Option<u32>,
    /// ns-2 `syn_`: a 40-byte opening packet before the data.
    pub syn: Option<bool>,
    /// ns-2 `maxburst_` (0 = unlimited).
    pub max_burst: Option<u32>,
    /// Pace transmissions at the controller's rate (by default Linux's: 2·cwnd/srtt in slow
    /// start, 1.2·cwnd/srtt after, from the exact smoothed RTT); default false.
    pub pacing: Option<bool>,
    /// ns-2 `maxcwnd_`: cap on cwnd in packets (0 = none); packet-numbered profiles.
    pub max_cwnd: Option<u32>,
    /// ns-2 `bugFix_`.
    pub ns2_bugfix: Option<bool>,
    pub tahoe_resume: Option<TahoeResumeName>,
    pub reno_flavour: Option<RenoFlavourName>,
    /// 4.3BSD-Reno `MSS/8` congestion-avoidance term.
    pub reno_ca_extra: Option<bool>,
    /// Limited Transmit (RFC 3042; ns-2 `singledup_`), packet-numbered profiles.
    pub limited_transmit: Option<bool>,
    /// NewReno: restart the timer on the first partial ACK only (ns-2 `newreno_changes1_`).
    pub newreno_impatient: Option<bool>,
    /// NewReno: deflate the window on partial ACKs (ns-2 `partial_window_deflation_`).
    pub partial_window_deflation: Option<bool>,
    /// SACK sender algorithm (variant `sack`).
    pub sack_sender: Option<SackSenderName>,
    /// SACK blocks per ACK, 1 to 3 (ns-2 `maxSackBlocks_`, default 3).
    pub sack_blocks: Option<u8>,
    /// RFC 6675/3517: forget the scoreboard at a timeout (RFC 2018), default off.
    pub sack_clear_on_rto: Option<bool>,
    /// Answer to congestion marks: `off` (not ECN-capable), `ecn` (RFC 3168) or `bcn`.
    pub congestion_marks: Option<CongestionMarksName>,
    /// BCN-TCP multiplicative decrease factor per response (default 0.975; 0.625 with
    /// `bcn_reaction = "calhoun"`).
    pub bcn_factor: Option<f64>,
    /// BCN-TCP reaction: `per_marked_ack` (the default), `once_per_rtt`, or `calhoun` (once
    /// per round trip, and one segment more per two clean round trips above ssthresh).
    pub bcn_reaction: Option<BcnReactionName>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CongestionMarksName {
    Off,
    /// RFC 3168: halve at most once per window, no retransmission.
    Ecn,
    /// BCN-TCP (seed 003): scale the window by `bcn_factor`.
    Bcn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BcnReactionName {
    PerMarkedAck,
    OncePerRtt,
    /// Calhoun's scheme (cited by seed 003): at most once per round trip (factor default
    /// 0.625), and above ssthresh one segment more after two round trips without a mark.
    Calhoun,
}
