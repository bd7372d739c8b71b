//! The scenario file format (TOML). These types are the single source of truth: the loader
//! deserializes them, and `congsim schema` exports their JSON Schema for editors.
//!
//! ```toml
//! [simulation]
//! duration = "20s"
//! seed = 1
//!
//! nodes = ["s", "r", "d"]
//!
//! [[links]]
//! from = "s"
//! to = "r"
//! rate = "100Mbps"
//! delay = "5ms"
//! queue = { limit_packets = 200 }
//!
//! [tcp]
//! profile = "ns2_2000"
//! variant = "reno"
//!
//! [[flows]]
//! from = "s"
//! to = "d"
//! ```

use super::units::{DurationText, RateOrZeroText, RateText, SizeText};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod tagged;

mod atm;
mod links;
mod tcp;
mod topology;
mod traffic;

pub use atm::*;
pub use links::*;
use tagged::kind_tagged;
pub use tagged::split_nested;
pub use tcp::*;
pub use topology::*;
pub use traffic::*;

/// A whole scenario file.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// A short name, used in output tables.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    pub simulation: SimulationSpec,
    /// A generated network (a dumbbell, a parking lot) whose nodes, links and flows come
    /// before the file's own.
    #[serde(default)]
    pub topology: Option<TopologySpec>,
    /// Node names (hosts and routers alike); required without `[topology]`.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// Links; required without `[topology]`.
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// How nodes choose among equal-cost paths.
    #[serde(default)]
    pub routing: RoutingSpec,
    /// TCP settings applied to every flow unless the flow overrides them.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// TCP connections.
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Constant-bit-rate UDP sources.
    #[serde(default)]
    pub cbr: Vec<CbrSpec>,
    /// Finite TCP transfers arriving at random (FTP files, web objects).
    #[serde(default)]
    pub transfers: Vec<TransferSpec>,
    #[serde(default)]
    pub metrics: MetricsSpec,
    /// Scripted drops, for tests and worked examples.
    #[serde(default)]
    pub drops: Vec<DropSpec>,
    /// Scripted congestion marks (CE on an ECN-capable packet; a packet that is not
    /// ECN-capable is dropped instead), with the same fields as `drops`.
    #[serde(default)]
    pub marks: Vec<DropSpec>,
    /// Packet captures written as pcap files beside the result tables.
    #[serde(default)]
    pub captures: Vec<CaptureSpec>,
    /// The switch ports of the ATM links (`atm = true`), spec `atm.md` §3–4.
    #[serde(default)]
    pub atm: Option<AtmSpec>,
    /// Background VBR sources on ATM switch ports.
    #[serde(default)]
    pub vbr: Vec<VbrSpec>,
    /// Changes to the network or its traffic at given times (ns-2's `$ns at` and
    /// `rtmodel-at`).
    #[serde(default)]
    pub events: Vec<EventSpec>,
}

/// A change at time `at`: `action` says what, `link` or `flow` names what it applies to.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventSpec {
    /// When, from the start of the run; before the end.
    pub at: DurationText,
    pub action: EventAction,
    /// The link (`"from->to"`, one direction) of a `link_*` action; IP links only.
    #[serde(default)]
    pub link: Option<String>,
    /// The new rate of a `link_rate` or `cbr_rate` action.
    #[serde(default)]
    pub rate: Option<RateText>,
    /// The new propagation delay of a `link_delay` action.
    #[serde(default)]
    pub delay: Option<DurationText>,
    /// The TCP flow of a `flow_start` or `flow_stop` action (a name; an entry with `count` > 1
    /// names all its flows).
    #[serde(default)]
    pub flow: Option<String>,
    /// The CBR source of a `cbr_rate` action.
    #[serde(default)]
    pub cbr: Option<String>,
    /// The new limit of a `queue_limit` action: packets (DropTail, RED, CoDel, PIE; the total
    /// of FQ-CoDel's and FQ-PIE's queues).
    #[serde(default)]
    pub limit_packets: Option<u64>,
    /// The new settings of a `queue_params` action: fields of the link's queue (as in its
    /// `queue` table; `kind` stays), the others keeping their values.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub queue: Option<toml::Table>,
    /// `link_failures`: the mean time the link stays up (exponential).
    #[serde(default)]
    pub up_mean: Option<DurationText>,
    /// `link_failures`: the mean time the link stays down (exponential).
    #[serde(default)]
    pub down_mean: Option<DurationText>,
    /// `link_failures`: when the process ends, the link brought up if it is down (default: the
    /// end of the run).
    #[serde(default)]
    pub until: Option<DurationText>,
}

/// What a scheduled event does.
#[derive(
    Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord,
)]
#[serde(rename_all = "snake_case")]
pub enum EventAction {
    /// The link stops: what it holds (queued, in transmission, propagating) and every later
    /// arrival is lost; routes are recomputed around it.
    LinkDown,
    /// The link carries traffic again; routes are recomputed.
    LinkUp,
    /// Transmissions from now on run at `rate`.
    LinkRate,
    /// Packets sent from now on propagate for `delay` (none overtakes another).
    LinkDelay,
    /// A persistent flow's application supplies data again (ns-2 `$ftp start`).
    FlowStart,
    /// The flow's application stops supplying new data (ns-2 `$ftp stop`).
    FlowStop,
    /// The link's queue takes `limit_packets` from now on (packets beyond it stay).
    QueueLimit,
    /// The link's queue takes the settings in `queue` from now on; what it holds and its
    /// state (RED's average, CoDel's dropping state, PIE's drop probability) carry over.
    QueueParams,
    /// The CBR source sends at `rate` from its next packet after the one already due.
    CbrRate,
    /// From `at`, the link and its reverse direction fail and recover at random: up for an
    /// exponential time of mean `up_mean`, then down for one of mean `down_mean`, until
    /// `until` (ns-2's `$ns rtmodel Exponential`).
    LinkFailures,
}

/// A pcap file of the packets transmitted on some links, merged in time order.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureSpec {
    /// File name (no folders), ending in `.pcap`.
    pub file: String,
    /// Links as `"from->to"`; give both directions to see data and ACKs.
    pub links: Vec<String>,
    /// Leave the zero-filled payload out of the records.
    #[serde(default)]
    pub headers_only: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimulationSpec {
    /// Simulated time to run.
    pub duration: DurationText,
    /// Master seed; every random process derives its own stream from it.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Independent replications for sweeps (`congsim run` runs replication 0 unless told).
    #[serde(default = "default_replications")]
    pub replications: u32,
    /// Start of the measurement window for throughput (default 0s).
    #[serde(default)]
    pub measure_from: Option<DurationText>,
    /// End of the measurement window (default: the end of the run).
    #[serde(default)]
    pub measure_until: Option<DurationText>,
    /// Default `start_jitter` of every flow that does not set its own.
    #[serde(default)]
    pub start_jitter: Option<DurationText>,
    /// The order of packets that reach a node at the very same picosecond from different
    /// links: `scheduled` (the order their arrivals were scheduled in, the default) or `random`
    /// (a draw from each link's own stream, with the hop-fusion and early-delivery shortcuts
    /// off). Where delays are multiples of the packet time, this order alone can decide who
    /// gets a queue's last place.
    #[serde(default)]
    pub tie_order: TieOrder,
}

/// How simultaneous arrivals at a node are ordered (`simulation.tie_order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TieOrder {
    /// In the order their events were scheduled (deterministic, a fixed convention).
    #[default]
    Scheduled,
    /// In a random order drawn from a stream per link (seeded: replications differ).
    Random,
}

fn default_seed() -> u64 {
    1
}
fn default_replications() -> u32 {
    1
}

fn default_true() -> bool {
    true
}

/// `[routing]`: routes are shortest paths by hop count.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    /// Equal-cost multipath: a node with several shortest links towards a destination picks
    /// one per flow by a hash of the flow and the node, salted per run from the seed (data and
    /// ACKs of a flow each keep one path). Off, it takes the link declared first. Default: on
    /// for `[topology] kind = "fat_tree"`, off otherwise. IP links only.
    #[serde(default)]
    pub ecmp: Option<bool>,
}

/// What to measure beyond the always-on counters.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetricsSpec {
    /// Denominator of efficiency (e.g. `"125.2Mbps"`); without it efficiency is not reported.
    pub efficiency_max_rate: Option<RateText>,
    /// Sample cwnd, ssthresh, per-flow throughput and queue lengths at this interval.
    pub series_interval: Option<DurationText>,
    /// Record every fast retransmit, timeout and end of fast recovery with cwnd and ssthresh.
    #[serde(default)]
    pub tcp_events: bool,
    /// Record every data segment sent or resent, every ACK received (with its SACK blocks) and
    /// every TCP packet dropped, with cwnd, ssthresh and pipe: the time-sequence trace.
    #[serde(default)]
    pub sequence_trace: bool,
    /// Count each flow's arrivals, drops and marks at every IP link it crosses (table
    /// `flow_links`, as ns-2's flow monitor or ns-3's FlowMonitor per hop).
    #[serde(default)]
    pub flow_monitor: bool,
    /// Record each packet's wait in the queue of these links (`"from->to"`), from its arrival
    /// to the start of its transmission (table `sojourn`; DropTail, RED, CoDel, FQ-CoDel, PIE
    /// and FQ-PIE queues).
    #[serde(default)]
    pub sojourn_links: Vec<String>,
    /// Record every change of cwnd, ssthresh, srtt, RTO or congestion state of these TCP flows
    /// (names; an entry with `count` > 1 names all its flows), with its time: table
    /// `tcp_changes`, ns-2's `trace cwnd_`, ns-3's congestion trace sources.
    #[serde(default)]
    pub tcp_changes: Vec<String>,
}

/// Drop (or mark) the `packet`-th (1-based) data packet of `flow` arriving at the link
/// `from`→`to`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropSpec {
    pub from: String,
    pub to: String,
    pub flow: String,
    pub packet: u64,
}
