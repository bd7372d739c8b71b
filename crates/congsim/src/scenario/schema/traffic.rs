//! `[[flows]]`, `[[transfers]]` and `[[cbr]]`: what sends.

use super::*;

/// A flow: one TCP connection from `from` to `to`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Name in output tables (default `flow<i>`; with `count > 1`, `<name>.<k>`).
    #[serde(default)]
    pub name: Option<String>,
    pub from: String,
    pub to: String,
    /// When the application starts sending.
    #[serde(default)]
    pub start: Option<DurationText>,
    /// Start later by a uniform random offset in `[0, start_jitter)`, drawn from the flow's own
    /// stream (so replications differ and flows do not start in lockstep).
    #[serde(default)]
    pub start_jitter: Option<DurationText>,
    /// When the application stops supplying new data.
    #[serde(default)]
    pub stop: Option<DurationText>,
    /// Bytes to transfer; absent means a persistent ("infinite") FTP source.
    #[serde(default)]
    pub size: Option<SizeText>,
    /// Number of identical flows this entry stands for; 0 switches the entry off (a sweep may
    /// leave flows out).
    #[serde(default = "default_count")]
    pub count: u32,
    /// Overrides of the file-wide `[tcp]` settings.
    #[serde(default)]
    pub tcp: TcpSpec,
}

fn default_count() -> u32 {
    1
}

/// A group of finite TCP transfers from `from` to `to`, arriving as a Poisson process (spec
/// `ip.md` §5.2, §5.3, §5.6). Give `arrivals_per_second`, or `load` with `capacity`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransferSpec {
    /// Group name in the `transfers` table (default `transfers<i>`).
    #[serde(default)]
    pub name: Option<String>,
    pub from: String,
    pub to: String,
    /// Size law: `exponential` (mean `mean_size`), `web` (seed 002's lognormal body / Pareto
    /// tail mixture) or `surge98`.
    pub sizes: SizeLawName,
    /// Mean of exponential sizes (default 512KB).
    #[serde(default)]
    pub mean_size: Option<SizeText>,
    /// Largest web object; larger draws are drawn again (default 10MB).
    #[serde(default)]
    pub max_size: Option<SizeText>,
    /// `web` sizes: the σ of the lognormal body's `ln X`, in (0, 4] (default 1.318, SURGE's);
    /// the body's mean stays seed 002's 7247 B (μ follows).
    #[serde(default)]
    pub web_sigma: Option<f64>,
    /// `web` sizes: the Pareto tail's shape α, in (1, 10] (default 1.1, SURGE's); the tail's
    /// mean stays seed 002's 10 558 B (its minimum follows).
    #[serde(default)]
    pub web_alpha: Option<f64>,
    #[serde(default)]
    pub arrivals_per_second: Option<f64>,
    /// Offered load as a fraction of `capacity` (payload bytes).
    #[serde(default)]
    pub load: Option<f64>,
    #[serde(default)]
    pub capacity: Option<RateText>,
    /// When arrivals begin and end (default: the whole run).
    #[serde(default)]
    pub start: Option<DurationText>,
    #[serde(default)]
    pub stop: Option<DurationText>,
    /// TCP settings of these connections, over `[tcp]`.
    #[serde(default)]
    pub tcp: TcpSpec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SizeLawName {
    Exponential,
    Web,
    Surge98,
}

/// A constant-bit-rate UDP source (spec `ip.md` §5.4).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbrSpec {
    /// Name in output tables (default `cbr<i>`; with `count > 1`, `<name>.<k>`).
    #[serde(default)]
    pub name: Option<String>,
    pub from: String,
    pub to: String,
    pub rate: RateText,
    /// Bytes on the wire per packet (default 500B).
    #[serde(default)]
    pub packet_size: Option<SizeText>,
    /// `shaped` (default), `fluctuation` or `burst`.
    #[serde(default)]
    pub pattern: Option<CbrPatternName>,
    /// Packets per burst with `pattern = "burst"` (default 15: seed 004's 15 every 10 ms at
    /// 6 Mbps with 500-byte packets).
    #[serde(default)]
    pub burst_packets: Option<u32>,
    /// The grid's origin: `random` (uniform in one interval, from the source's own stream;
    /// the default) or `zero`.
    #[serde(default)]
    pub phase: Option<BootPhaseName>,
    /// On periods as `[start, stop]` pairs (default: always on; an empty list: never).
    #[serde(default)]
    pub on: Option<Vec<[DurationText; 2]>>,
    /// A periodic on/off schedule instead of `on` (seed 001's VBR background).
    #[serde(default)]
    pub square_wave: Option<SquareWaveSpec>,
    /// Random on/off bursts instead of `on` (ns-2's exponential and Pareto on/off sources);
    /// `rate` is the rate while on.
    #[serde(default)]
    pub on_off: Option<OnOffSpec>,
    /// Identical sources this entry stands for.
    #[serde(default = "default_count")]
    pub count: u32,
}

/// On for `on`, off for `off`, repeating from `start`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SquareWaveSpec {
    pub on: DurationText,
    pub off: DurationText,
    /// When the first on period begins (default 0).
    #[serde(default)]
    pub start: Option<DurationText>,
}

/// Bursts of packets at the source's rate, each burst's length and the idle time before it drawn
/// from `law` (ns-2's `Application/Traffic/Exponential` and `/Pareto`: `burst_time_`,
/// `idle_time_`, `shape_`).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    /// `exponential` or `pareto`.
    pub law: OnOffLawName,
    /// Mean on (burst) time.
    pub on_mean: DurationText,
    /// Mean off (idle) time.
    pub off_mean: DurationText,
    /// Pareto's shape, greater than 1 (ns-2's default 1.5); only with `law = "pareto"`.
    #[serde(default)]
    pub shape: Option<f64>,
    /// When the source starts (default 0); its first packet leaves one sending interval and
    /// an off time later, as in ns-2.
    #[serde(default)]
    pub start: Option<DurationText>,
    /// When it stops (default: the end of the run).
    #[serde(default)]
    pub stop: Option<DurationText>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnOffLawName {
    Exponential,
    Pareto,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CbrPatternName {
    Shaped,
    Fluctuation,
    Burst,
}
