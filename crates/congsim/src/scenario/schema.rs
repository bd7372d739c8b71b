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

use super::units::{DurationText, RateText, SizeText};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    /// Node names (hosts and routers alike).
    pub nodes: Vec<String>,
    pub links: Vec<LinkSpec>,
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
}

/// Every ATM switch output port: a shared cell buffer under a UBR drop policy. Hosts' adapters
/// (ports of nodes where a flow starts or ends) have unbounded FIFOs and no policy.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AtmSpec {
    /// Buffer `K` per switch output port, in cells (the one in transmission included); default
    /// unbounded.
    pub buffer_cells: Option<u64>,
    /// Drop policy; default `tail_drop` (vanilla UBR).
    pub policy: Option<UbrPolicyName>,
    /// `R` as a fraction of `K` (EPD, Selective Drop, FBA); default 0.9.
    pub threshold: Option<f64>,
    /// `Z`, the load-ratio cut-off of Selective Drop and FBA; default 0.8.
    pub z: Option<f64>,
    /// After a cell of an accepted frame overflows, drop the rest of the frame but its EOM;
    /// default off for `tail_drop`, on for the others.
    pub ppd_after_overflow: Option<bool>,
    /// Who takes the last free place of a full buffer: `random` (default; the VCs whose cells
    /// arrived within one cell time draw for it, deviation D25) or `arrival_order` (the next
    /// cell to arrive, spec atm.md 1.3).
    pub contention: Option<ContentionName>,
    /// `ubr` (default) or `abr`: every VC an ABR connection (spec `atm.md` §5).
    pub service: Option<AtmServiceName>,
    /// The ABR switch algorithm of every switch port (service = "abr"); default
    /// `modified_erica`.
    pub switch: Option<SwitchName>,
    /// ERICA's settings (switch = "erica", "modified_erica" or "erica_plus").
    pub erica: Option<EricaSpec>,
    /// EPRCA's settings (switch = "eprca").
    pub eprca: Option<EprcaSpec>,
    /// The ABR sources' TM 4.0 parameters (default: seed 001's).
    pub abr: Option<AbrSpec>,
    /// Seed 003's UNI buffer in front of each ABR source, in datagram bytes: a datagram that
    /// does not fit is lost (service = "abr"); default unbounded.
    pub uni_buffer: Option<SizeText>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AtmServiceName {
    Ubr,
    Abr,
}

/// An ABR switch algorithm (spec `atm.md` §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SwitchName {
    /// ERICA as first published: ER = max(FS, CCR/z).
    Erica,
    /// ERICA with seed 001's modifications (one ER per interval, slow-VC clamp, max-min step,
    /// immediate and decayed VC counting, bidirectional counting).
    ModifiedErica,
    /// Modified ERICA with ERICA+'s queue-driven target.
    EricaPlus,
    /// EPRCA, binary CI marking.
    Eprca,
}

/// ERICA's knobs (spec `atm.md` §7.2–7.4).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EricaSpec {
    /// Target utilisation U; default 0.9.
    pub target: Option<f64>,
    /// An averaging interval closes after this many ABR cells...; default 100.
    pub interval_cells: Option<u32>,
    /// ... or after this long; default 1ms.
    pub interval: Option<DurationText>,
    /// Overload band; default 0.1.
    pub delta: Option<f64>,
    /// Decay of the active-VC count; default 0.9.
    pub decay: Option<f64>,
    /// `target_of_link_minus_vbr` (U·(C − VBR), default) or `target_link_minus_vbr`
    /// (max(U·C − VBR, 0)).
    pub capacity: Option<AbrCapacityName>,
    /// Measure each VC's rate instead of reading CCR from RM cells; default false.
    pub measured_ccr: Option<bool>,
    /// When a VC's CCR counts as at most the ER this port last gave it, so that a slowed
    /// source's stale CCR is not handed back: `never` (default for erica), `when_stale` (no
    /// forward RM cell since that ER; default for modified_erica) or `always` (default for
    /// erica_plus).
    pub ccr_cap: Option<CcrCapName>,
    /// ERICA+: target queueing delay T0; default 0.5ms.
    pub target_delay: Option<DurationText>,
    /// ERICA+: f(0), the under-load curve parameter; default 1.15.
    pub k_under: Option<f64>,
    /// ERICA+: the over-load curve parameter; default 1.05.
    pub k_over: Option<f64>,
    /// ERICA+: queue drain limit factor; default 0.5.
    pub qdlf: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContentionName {
    Random,
    ArrivalOrder,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CcrCapName {
    Never,
    WhenStale,
    Always,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AbrCapacityName {
    TargetOfLinkMinusVbr,
    TargetLinkMinusVbr,
}

/// EPRCA's knobs (spec `atm.md` §7.5).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EprcaSpec {
    /// MACR averaging weight; default 1/16.
    pub alpha: Option<f64>,
    /// Down-pressure factor; default 1.0 (seed 003).
    pub dpf: Option<f64>,
    /// Congested above this ABR queue (cells); default 500.
    pub queue_threshold: Option<u64>,
    /// Very congested above this ABR queue (cells); default 2000.
    pub very_congested_threshold: Option<u64>,
}

/// TM 4.0 source parameters (spec `atm.md` §5.1); defaults are seed 001's.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbrSpec {
    /// Peak cell rate; default the host's link rate.
    pub pcr: Option<RateText>,
    /// Minimum cell rate; default 0.
    pub mcr: Option<RateText>,
    /// Initial cell rate; default 10Mbps.
    pub icr: Option<RateText>,
    /// Cells per forward RM cell; default 32.
    pub nrm: Option<u32>,
    /// Upper bound on the time between forward RM cells; default 100ms.
    pub trm: Option<DurationText>,
    /// Rate increase factor; default 1.
    pub rif: Option<f64>,
    /// Rate decrease factor; default 1/512.
    pub rdf: Option<f64>,
    /// Idle time after which ACR falls back to ICR; default 500ms.
    pub adtf: Option<DurationText>,
    /// Transient buffer exposure in cells (CRM = ceil(TBE / Nrm)); default 512.
    pub tbe: Option<u32>,
    /// Cut on ACR when CRM forward RM cells went unanswered; default 0.5.
    pub cdf: Option<f64>,
}

/// A VBR on/off source entering at a switch port, served ahead of ABR (spec `atm.md` §6).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VbrSpec {
    /// The ATM link (from, to) whose port it enters; its sending node must be a switch.
    pub from: String,
    pub to: String,
    /// Rate during an on period; default 0.8 of the link rate (seed 001).
    pub rate: Option<RateText>,
    pub on: DurationText,
    pub off: DurationText,
    /// First on period; default 2ms.
    pub start: Option<DurationText>,
}

/// A UBR switch's drop policy (spec `atm.md` §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UbrPolicyName {
    /// Plain cell tail drop.
    TailDrop,
    /// Early Packet Discard.
    Epd,
    /// Selective Drop (per-VC accounting).
    SelectiveDrop,
    /// Fair Buffer Allocation.
    Fba,
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

/// A link. With `duplex = true` (the default) the reverse direction is created with the same
/// rate, delay and queue.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub from: String,
    pub to: String,
    pub rate: RateText,
    pub delay: DurationText,
    #[serde(default = "default_true")]
    pub duplex: bool,
    #[serde(default)]
    pub queue: QueueSpec,
    /// Probability of losing each packet entering the link, in [0, 1).
    #[serde(default)]
    pub random_loss: f64,
    /// An ATM link: it carries 53-byte cells, and its sending node's port is an ATM switch port
    /// (set in `[atm]`) or a host adapter.
    #[serde(default)]
    pub atm: bool,
}

fn default_true() -> bool {
    true
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueueKind {
    #[default]
    Droptail,
    /// Random Early Detection (spec `ip.md` §2).
    Red,
    /// Strict priority over `classes` (spec `ip.md` §3).
    Priority,
    /// Class-Based Queueing over the tree of `classes` (spec `ip.md` §4, ns-2 `Queue/CBQ`).
    Cbq,
}

/// One class of a priority or CBQ queue.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    /// Flows (TCP or CBR names) of this class; the one class without `flows` takes every other
    /// flow (without one, the last class does). CBQ: leaf classes only.
    #[serde(default)]
    pub flows: Option<Vec<String>>,
    /// This class's own DropTail limit (default 50). Priority: packets waiting; CBQ (leaves):
    /// ns-2 semantics, `limit − 1` waiting.
    #[serde(default)]
    pub limit_packets: Option<u64>,
    /// CBQ: the class's name, for `parent`.
    pub name: Option<String>,
    /// CBQ: the parent class's name; the root (the link) has none.
    pub parent: Option<String>,
    /// CBQ: the allotment, a fraction of the link rate in (0, 1].
    pub allot: Option<f64>,
    /// CBQ: a leaf's scheduling priority, 0 (highest) to 9; default 0.
    pub priority: Option<u8>,
    /// CBQ: may borrow from ancestors when over its allotment (ns-2 `okborrow_`); default true.
    pub borrow: Option<bool>,
    /// CBQ: bound on the estimator's average idle time; default ns-2's `maxidle auto`.
    pub max_idle: Option<DurationText>,
    /// CBQ: ns-2 `extradelay_`, added when the class is first held back; default 0.
    pub extra_delay: Option<DurationText>,
}

/// CBQ link-sharing guideline (spec `ip.md` §4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LinkSharingName {
    /// ns-2's default: any ancestor within its allotment lends.
    AncestorOnly,
    TopLevel,
    Formal,
}

/// How the limit counts packets (spec `ip.md` §0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LimitSemanticsName {
    /// ns-2 DropTail: at most `limit − 1` wait, `limit` in the node.
    #[default]
    Ns2,
    /// `limit` packets wait, the one in service not counted.
    Waiting,
}

/// An output queue. Give at most one of `limit_packets` and `limit_bytes`; with neither, the
/// ns-2 default of 50 packets applies.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default)]
    pub kind: QueueKind,
    #[serde(default)]
    pub limit_packets: Option<u64>,
    #[serde(default)]
    pub limit_bytes: Option<SizeText>,
    #[serde(default)]
    pub semantics: LimitSemanticsName,
    /// On overflow, drop the head of the queue instead of the arrival (DropTail).
    #[serde(default)]
    pub drop_front: bool,
    /// RED lower threshold in packets (0: ns-2's automatic value); default 5.
    pub min_th: Option<f64>,
    /// RED upper threshold in packets (0: 3 · min_th); default 15.
    pub max_th: Option<f64>,
    /// RED averaging weight (−1: ns-2's automatic value from the link rate and delay);
    /// default 0.002.
    pub w_q: Option<f64>,
    /// RED drop probability at max_th; default 0.1.
    pub max_p: Option<f64>,
    /// RED mean packet size (ns-2 `mean_pktsize_`); default 500B.
    pub mean_packet_size: Option<SizeText>,
    /// RED drops spaced uniformly on 1/pb … 2/pb arrivals (ns-2 `wait_`); default true.
    pub wait: Option<bool>,
    /// RED spacing by seed 003's rule (R ~ U(0, 1) after each drop; the next drop at count
    /// floor(R / pb)) instead of `wait`'s; default false.
    pub r_over_pb: Option<bool>,
    /// RED gentle region up to 2 · max_th (ns-2 `gentle_`); default false.
    pub gentle: Option<bool>,
    /// RED drop probability scaled by packet size (ns-2 `bytes_`); default false.
    pub bytes: Option<bool>,
    /// RED average and thresholds in bytes (ns-2 `queue_in_bytes_`); default false.
    pub queue_in_bytes: Option<bool>,
    /// RED marks ECN-capable packets instead of dropping them early (ns-2 `setbit_`).
    pub ecn_marking: Option<bool>,
    /// With ecn_marking, also mark instead of force-dropping above max_th (the 1993 paper's
    /// marking gateway); default false.
    pub mark_above_max_th: Option<bool>,
    /// RED's ns-2 details (no early drop into a queue of ≤ 1 packet; count restarts at the
    /// first crossing of min_th); default true.
    pub ns2_quirks: Option<bool>,
    /// Priority classes, highest first (kind = "priority"), or the CBQ class tree (kind =
    /// "cbq").
    pub classes: Option<Vec<ClassSpec>>,
    /// CBQ link-sharing guideline; default ancestor_only.
    pub link_sharing: Option<LinkSharingName>,
    /// CBQ weighted round robin inside a priority (ns-2 `Queue/CBQ/WRR`); default false.
    pub weighted_round_robin: Option<bool>,
    /// CBQ's largest packet (ns-2 `maxpkt_`), for `maxidle auto` and WRR; default 1024B.
    pub max_packet_size: Option<SizeText>,
    /// CBQ: when no class may send, the first that may borrow sends anyway (ns-2's fallback,
    /// which keeps borrowing classes work-conserving); default true.
    pub cbq_ns2_fallback: Option<bool>,
}

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CongestionControlName {
    /// The profile's additive increase and halving (ns-2 `opencwnd()`, 4.4BSD, RFC 5681).
    Aimd,
    /// CUBIC, RFC 9438 (β = 0.7, C = 0.4, fast convergence, Reno-friendly region).
    Cubic,
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
    /// BCN-TCP multiplicative decrease factor per response (default 0.975).
    pub bcn_factor: Option<f64>,
    /// BCN-TCP reaction frequency (default `per_marked_ack`).
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
}

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CbrPatternName {
    Shaped,
    Fluctuation,
    Burst,
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
