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
