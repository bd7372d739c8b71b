//! `[[links]]` and their queues.

use super::*;

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

/// An output queue: `kind` picks the discipline (default `droptail`), and each takes its own
/// settings.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QueueSpec {
    Droptail(DropTailSpec),
    /// Random Early Detection (spec `ip.md` §2).
    Red(RedSpec),
    /// Strict priority over `classes` (spec `ip.md` §3).
    Priority(PrioritySpec),
    /// Class-Based Queueing over the tree of `classes` (spec `ip.md` §4, ns-2 `Queue/CBQ`).
    Cbq(CbqSpec),
    /// CoDel, RFC 8289 as Linux and ns-3 implement it (spec `ip.md` §8).
    Codel(CodelSpec),
    /// FQ-CoDel, RFC 8290: flow queues under CoDel, served by deficit round robin (spec
    /// `ip.md` §9).
    FqCodel(FqCodelSpec),
    /// PIE, RFC 8033 (spec `ip.md` §10).
    Pie(PieSpec),
    /// FQ-PIE: flow queues under PIE, served as FQ-CoDel's (spec `ip.md` §11).
    FqPie(FqPieSpec),
}

impl Default for QueueSpec {
    fn default() -> Self {
        Self::Droptail(DropTailSpec::default())
    }
}

kind_tagged!(QueueSpec, default "droptail", {
    "droptail" => Droptail(DropTailSpec),
    "red" => Red(RedSpec),
    "priority" => Priority(PrioritySpec),
    "cbq" => Cbq(CbqSpec),
    "codel" => Codel(CodelSpec),
    "fq_codel" => FqCodel(FqCodelSpec),
    "pie" => Pie(PieSpec),
    "fq_pie" => FqPie(FqPieSpec),
});

impl QueueSpec {
    /// Each class's `flows`, in order (none for a queue without classes).
    pub fn class_flows(&self) -> Vec<Option<&[String]>> {
        match self {
            Self::Priority(q) => q
                .classes
                .iter()
                .flatten()
                .map(|c| c.flows.as_deref())
                .collect(),
            Self::Cbq(q) => q
                .classes
                .iter()
                .flatten()
                .map(|c| c.flows.as_deref())
                .collect(),
            Self::Droptail(_)
            | Self::Red(_)
            | Self::Codel(_)
            | Self::FqCodel(_)
            | Self::Pie(_)
            | Self::FqPie(_) => Vec::new(),
        }
    }
}

/// A DropTail queue. Give at most one of `limit_packets` and `limit_bytes`; with neither, the
/// ns-2 default of 50 packets applies.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropTailSpec {
    #[serde(default)]
    pub limit_packets: Option<u64>,
    #[serde(default)]
    pub limit_bytes: Option<SizeText>,
    #[serde(default)]
    pub semantics: LimitSemanticsName,
    /// On overflow, drop the head of the queue instead of the arrival.
    #[serde(default)]
    pub drop_front: bool,
}

/// A RED queue; its limit counts packets (with `queue_in_bytes`, `limit_packets ·
/// mean_packet_size` bytes).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// Default 50.
    #[serde(default)]
    pub limit_packets: Option<u64>,
    /// Lower threshold in packets (0: ns-2's automatic value); default 5.
    pub min_th: Option<f64>,
    /// Upper threshold in packets (0: 3 · min_th); default 15.
    pub max_th: Option<f64>,
    /// Averaging weight (−1: ns-2's automatic value from the link rate and delay); default
    /// 0.002.
    pub w_q: Option<f64>,
    /// Drop probability at max_th; default 0.1.
    pub max_p: Option<f64>,
    /// Mean packet size (ns-2 `mean_pktsize_`); default 500B.
    pub mean_packet_size: Option<SizeText>,
    /// Drops spaced uniformly on 1/pb … 2/pb arrivals (ns-2 `wait_`); default true.
    pub wait: Option<bool>,
    /// Spacing by seed 003's rule (R ~ U(0, 1) after each drop; the next drop at count
    /// floor(R / pb)) instead of `wait`'s; default false.
    pub r_over_pb: Option<bool>,
    /// Gentle region up to 2 · max_th (ns-2 `gentle_`); default false.
    pub gentle: Option<bool>,
    /// Drop probability scaled by packet size (ns-2 `bytes_`); default false.
    pub bytes: Option<bool>,
    /// Average and thresholds in bytes (ns-2 `queue_in_bytes_`); default false.
    pub queue_in_bytes: Option<bool>,
    /// Mark ECN-capable packets instead of dropping them early (ns-2 `setbit_`).
    pub ecn_marking: Option<bool>,
    /// With ecn_marking, also mark instead of force-dropping above max_th (the 1993 paper's
    /// marking gateway); default false.
    pub mark_above_max_th: Option<bool>,
    /// ns-2's details (no early drop into a queue of ≤ 1 packet; count restarts at the first
    /// crossing of min_th); default true.
    pub ns2_quirks: Option<bool>,
}

/// A CoDel queue (spec `ip.md` §8.1).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodelSpec {
    /// Packets that may wait (tail drop beyond); default 1000 (Linux).
    pub limit_packets: Option<u64>,
    /// Acceptable standing sojourn time; default 5ms.
    pub target: Option<DurationText>,
    /// How long the sojourn must stay above target before a drop, and the control law's base
    /// spacing; default 100ms.
    pub interval: Option<DurationText>,
    /// No drop while at most this many bytes remain queued; default 1514B (Linux's MTU test;
    /// ns-3's `MinBytes` is this plus one).
    pub mtu: Option<SizeText>,
    /// Mark ECN-capable packets instead of dropping them; default false.
    pub ecn_marking: Option<bool>,
    /// Mark every ECN-capable packet whose sojourn exceeds this (Linux `ce_threshold`);
    /// default none.
    pub ce_threshold: Option<DurationText>,
}

/// An FQ-CoDel queue (spec `ip.md` §9.1).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqCodelSpec {
    /// Packets in all flow queues together; default 10240.
    pub limit_packets: Option<u64>,
    /// Number of flow queues; default 1024.
    pub flows: Option<u32>,
    /// Bytes a flow queue may send per round; default 1514B.
    pub quantum: Option<SizeText>,
    /// CoDel's target per flow queue; default 5ms.
    pub target: Option<DurationText>,
    /// CoDel's interval; default 100ms.
    pub interval: Option<DurationText>,
    /// CoDel's MTU test, on the bytes of all queues (Linux); default 1514B.
    pub mtu: Option<SizeText>,
    /// The MTU test on the flow queue's own bytes, as ns-3.37's per-flow CoDels do, instead
    /// of all queues' (Linux); default false.
    pub mtu_per_queue: Option<bool>,
    /// Most packets dropped from the fattest queue on one overflow; default 64.
    pub drop_batch_size: Option<u32>,
    /// Mark ECN-capable packets instead of dropping them; default true (RFC 8290, Linux).
    pub ecn_marking: Option<bool>,
    /// Mark every ECN-capable packet whose sojourn exceeds this; default none.
    pub ce_threshold: Option<DurationText>,
    /// The flow hash's seed; default a draw from the link's own stream, so that replications
    /// move the collisions as Linux's random seed does.
    pub hash_seed: Option<u64>,
}

/// Declares a queue spec with PIE's own settings (spec `ip.md` §10.1) after its own fields,
/// and `pie_fields()` to read them; serde's `flatten` would let misspelt fields through.
macro_rules! with_pie_fields {
    ($(#[$attr:meta])* pub struct $name:ident { $($(#[$fattr:meta])* pub $field:ident: $ty:ty,)* }) => {
        $(#[$attr])*
        #[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($(#[$fattr])* pub $field: $ty,)*
            /// The queueing delay PIE steers towards; default 15ms.
            pub target: Option<DurationText>,
            /// Period of the drop-probability update; default 15ms.
            pub update_interval: Option<DurationText>,
            /// Weight of the delay's distance from target, per second; default 0.125.
            pub alpha: Option<f64>,
            /// Weight of the delay's change since the last update, per second; default 1.25.
            pub beta: Option<f64>,
            /// Burst allowance after a calm spell; default 150ms.
            pub max_burst: Option<DurationText>,
            /// Bytes a departure-rate measurement spans; default 16384B.
            pub dequeue_threshold: Option<SizeText>,
            /// Estimate the delay from the departure rate (RFC 8033 §5.2) instead of each
            /// packet's timestamp; default false (Linux, ns-3).
            pub use_departure_rate: Option<bool>,
            /// Mark ECN-capable arrivals instead of dropping them while the drop probability
            /// is below mark_ecn_threshold; default false.
            pub ecn_marking: Option<bool>,
            /// Default 0.1.
            pub mark_ecn_threshold: Option<f64>,
            /// Space drops by accumulating the probability (RFC 8033 §5.4); default true.
            pub use_derandomization: Option<bool>,
            /// Limit each increase to 2 % above a 10 % probability (RFC 8033 §5.5); default
            /// true.
            pub cap_drop_adjustment: Option<bool>,
            /// No early drop while at most two of these are queued; default 1514B.
            pub mtu: Option<SizeText>,
        }

        impl $name {
            pub fn pie_fields(&self) -> PieFields<'_> {
                PieFields {
                    target: &self.target,
                    update_interval: &self.update_interval,
                    alpha: self.alpha,
                    beta: self.beta,
                    max_burst: &self.max_burst,
                    dequeue_threshold: &self.dequeue_threshold,
                    use_departure_rate: self.use_departure_rate,
                    ecn_marking: self.ecn_marking,
                    mark_ecn_threshold: self.mark_ecn_threshold,
                    use_derandomization: self.use_derandomization,
                    cap_drop_adjustment: self.cap_drop_adjustment,
                    mtu: &self.mtu,
                }
            }
        }
    };
}

/// PIE's settings as a `pie` or `fq_pie` queue gives them.
pub struct PieFields<'a> {
    pub target: &'a Option<DurationText>,
    pub update_interval: &'a Option<DurationText>,
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    pub max_burst: &'a Option<DurationText>,
    pub dequeue_threshold: &'a Option<SizeText>,
    pub use_departure_rate: Option<bool>,
    pub ecn_marking: Option<bool>,
    pub mark_ecn_threshold: Option<f64>,
    pub use_derandomization: Option<bool>,
    pub cap_drop_adjustment: Option<bool>,
    pub mtu: &'a Option<SizeText>,
}

with_pie_fields! {
    /// A PIE queue (spec `ip.md` §10.1).
    pub struct PieSpec {
        /// Packets that may wait (tail drop beyond); default 1000 (Linux).
        pub limit_packets: Option<u64>,
    }
}

with_pie_fields! {
    /// An FQ-PIE queue (spec `ip.md` §11.1): the flow queueing of FQ-CoDel, PIE's settings
    /// for each queue.
    pub struct FqPieSpec {
        /// Packets in all flow queues together; default 10240.
        pub limit_packets: Option<u64>,
        /// Number of flow queues; default 1024.
        pub flows: Option<u32>,
        /// Bytes a flow queue may send per round; default 1514B.
        pub quantum: Option<SizeText>,
        /// Past the limit, drop the arrival ("tail", Linux) or from the head of the fattest
        /// queue ("fat_flow", ns-3.37); default "tail".
        pub overflow: Option<FqOverflowName>,
        /// Most packets dropped from the fattest queue on one overflow; default 64.
        pub drop_batch_size: Option<u32>,
        /// The flow hash's seed; default a draw from the link's own stream.
        pub hash_seed: Option<u64>,
    }
}

/// FQ-PIE's overflow rule.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FqOverflowName {
    Tail,
    FatFlow,
}

/// A strict-priority queue.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrioritySpec {
    /// The classes, highest priority first; each has its own limit.
    pub classes: Option<Vec<PriorityClassSpec>>,
}

/// One class of a priority queue.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PriorityClassSpec {
    /// Flows (TCP or CBR names) of this class; the one class without `flows` takes every other
    /// flow (without one, the last class does).
    #[serde(default)]
    pub flows: Option<Vec<String>>,
    /// This class's limit in waiting packets (default 50).
    #[serde(default)]
    pub limit_packets: Option<u64>,
}

/// A CBQ queue.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbqSpec {
    /// The class tree: one root (no parent) and the classes under it; limits are per leaf.
    pub classes: Option<Vec<CbqClassSpec>>,
    /// The link-sharing guideline; default ancestor_only.
    pub link_sharing: Option<LinkSharingName>,
    /// Weighted round robin inside a priority (ns-2 `Queue/CBQ/WRR`); default false.
    pub weighted_round_robin: Option<bool>,
    /// The largest packet (ns-2 `maxpkt_`), for `maxidle auto` and WRR; default 1024B.
    pub max_packet_size: Option<SizeText>,
    /// When no class may send, the first that may borrow sends anyway (ns-2's fallback, which
    /// keeps borrowing classes work-conserving); default true.
    pub cbq_ns2_fallback: Option<bool>,
}

/// One class of a CBQ queue.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbqClassSpec {
    /// Flows (TCP or CBR names) of this leaf class; the one leaf without `flows` takes every
    /// other flow (without one, the last leaf does).
    #[serde(default)]
    pub flows: Option<Vec<String>>,
    /// This leaf's DropTail limit (default 50), ns-2 semantics: `limit − 1` waiting.
    #[serde(default)]
    pub limit_packets: Option<u64>,
    /// The class's name, for `parent`.
    pub name: Option<String>,
    /// The parent class's name; the root (the link) has none.
    pub parent: Option<String>,
    /// The allotment, a fraction of the link rate in (0, 1].
    pub allot: Option<f64>,
    /// A leaf's scheduling priority, 0 (highest) to 9; default 0.
    pub priority: Option<u8>,
    /// May borrow from ancestors when over its allotment (ns-2 `okborrow_`); default true.
    pub borrow: Option<bool>,
    /// Bound on the estimator's average idle time; default ns-2's `maxidle auto`.
    pub max_idle: Option<DurationText>,
    /// ns-2 `extradelay_`, added when the class is first held back; default 0.
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
