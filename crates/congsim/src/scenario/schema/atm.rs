//! `[atm]` and `[[vbr]]`: cells, switch policies, ABR and its switch algorithms.

use super::*;

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
    /// Who takes the last free place of a full buffer: `arrival_order` (default: the next cell
    /// to arrive, spec atm.md 1.3) or `random` (the VCs whose cells arrived within one cell
    /// time draw for it, deviation D25).
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
    /// Whether a VC's CCR counts as at most the ER this port last gave it, so that a slowed
    /// source's stale CCR is not handed back (deviation D24): `never` (default: ERICA's
    /// pseudo-code) or `always`.
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
    pub mcr: Option<RateOrZeroText>,
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
