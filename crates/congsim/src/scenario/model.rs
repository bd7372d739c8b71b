//! The resolved model: a validated scenario as the engine reads it. `resolve` builds it from a
//! scenario file; the engine (`sim`) imports it and nothing else of `scenario` but the routes.

use super::routes::{Hop, Routes};
use super::schema::ScenarioFile;
use crate::transfers::SizeLaw;
use congsim_atm::UbrPolicy;
use congsim_atm::network::AbrService;
use congsim_atm::port::SwitchConfig;
use congsim_atm::vbr::VbrConfig;
use congsim_core::time::SimDuration;
use congsim_core::units::Rate;
use congsim_core::{FlowId, LinkId, NodeId};
use congsim_ip::cbr::CbrConfig;
use congsim_ip::qdisc::{CbqConfig, CodelParams, FqCodelParams, FqPieParams, PieParams, RedParams};
use congsim_ip::{LimitSemantics, QueueLimit, ScriptedAction};
use congsim_tcp::{ReceiverConfig, SenderConfig};
use std::fmt;
use std::hash::{DefaultHasher, Hasher};
use std::sync::Arc;

/// How simultaneous arrivals at a node are ordered (`simulation.tie_order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieOrder {
    /// In the order their events were scheduled.
    Scheduled,
    /// In a random order drawn from a stream per link.
    Random,
}

/// Something in a scenario that is allowed but almost certainly not what was meant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioWarning {
    /// Field path, as in errors.
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// A link's output queue, resolved. The settings of all but the plain queue sit behind
/// pointers: a network of millions of links holds one per link.
#[derive(Clone, Debug)]
pub enum QueueDiscipline {
    DropTail {
        limit: QueueLimit,
        semantics: LimitSemantics,
        drop_front: bool,
    },
    Red(Box<RedParams>),
    Priority(Box<PriorityClasses>),
    Cbq(Box<CbqClasses>),
    Codel {
        params: Box<CodelParams>,
        limit_packets: u64,
    },
    /// FQ-CoDel; a `hash_seed` of `None` is drawn from the link's stream when it is built.
    FqCodel {
        params: Box<FqCodelParams>,
        hash_seed: Option<u64>,
    },
    Pie {
        params: Box<PieParams>,
        limit_packets: u64,
    },
    /// FQ-PIE; `hash_seed` as FQ-CoDel's.
    FqPie {
        params: Box<FqPieParams>,
        hash_seed: Option<u64>,
    },
}

/// Strict priority: per class a packet limit (waiting packets); `class_of[flow id]` and the
/// class of every flow not listed.
#[derive(Clone, Debug)]
pub struct PriorityClasses {
    pub limits: Vec<u64>,
    pub class_of: Vec<usize>,
    pub default_class: usize,
}

/// CBQ: the class tree (and the classes' names); `class_of` and `default_class` name leaves.
#[derive(Clone, Debug)]
pub struct CbqClasses {
    pub config: CbqConfig,
    pub names: Vec<String>,
    pub class_of: Vec<usize>,
    pub default_class: usize,
}

impl QueueDiscipline {
    /// The discipline's name as scenario files write it (`queue.kind`).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Self::DropTail { .. } => "droptail",
            Self::Red(_) => "red",
            Self::Priority(_) => "priority",
            Self::Cbq(_) => "cbq",
            Self::Codel { .. } => "codel",
            Self::FqCodel { .. } => "fq_codel",
            Self::Pie { .. } => "pie",
            Self::FqPie { .. } => "fq_pie",
        }
    }
}

/// One unidirectional link, resolved.
#[derive(Clone, Debug)]
pub struct ResolvedLink {
    /// Its entry in the file, `links[spec_index]` (a duplex entry makes two links).
    pub spec_index: usize,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: SimDuration,
    pub queue: QueueDiscipline,
    /// What the file scripts at this link (`None` for most links: a network of millions of
    /// links would otherwise hold two empty lists per link).
    pub script: Option<Box<LinkScript>>,
    pub random_loss: f64,
    /// Serve FIFO disciplines on the fast path (departure computed at enqueue). Always on from
    /// scenario files; tests turn it off to check that both paths agree.
    pub fifo_fast_path: bool,
    /// Record each packet's wait in the queue (table `sojourn`).
    pub record_sojourns: bool,
    /// A capture records this link's transmissions.
    pub capture: bool,
    /// The one link that every flow path reaching this link comes through, if there is one
    /// (no path starts here and no other link feeds it). Offers to such a link arrive in the
    /// feeder's order, which is what hop fusion needs.
    pub single_feeder: Option<LinkId>,
    /// The cell port of an ATM link; `None` for an IP link.
    pub atm: Option<Box<AtmPort>>,
}

/// What a scenario scripts at one link.
#[derive(Clone, Debug, Default)]
pub struct LinkScript {
    /// New settings of the queue that `queue_params` events install, in the order of the
    /// events (`NetworkChange::QueueParams` holds the index).
    pub queue_changes: Vec<QueueDiscipline>,
    /// Scripted drops and marks: `(flow, k, action)` acts on the flow's k-th data packet here.
    pub scripted: Vec<(FlowId, u64, ScriptedAction)>,
}

impl ResolvedLink {
    /// The link's script, created for a link that had none.
    pub fn script_mut(&mut self) -> &mut LinkScript {
        self.script.get_or_insert_default()
    }

    /// The queue settings `queue_params` event `k` on this link installs.
    pub fn queue_change(&self, k: u32) -> &QueueDiscipline {
        let script = self
            .script
            .as_ref()
            .expect("a queue_params event has a script");
        &script.queue_changes[k as usize]
    }

    /// `from->to`, as files name links. Made when asked for, not held: a network of millions
    /// of links would hold as many strings for its tables alone.
    pub fn name(&self, nodes: &[String]) -> String {
        format!("{}->{}", nodes[self.from.index()], nodes[self.to.index()])
    }
}

impl Hop for ResolvedLink {
    fn from(&self) -> NodeId {
        self.from
    }
    fn to(&self) -> NodeId {
        self.to
    }
}

/// An ATM link's output port, resolved (spec `atm.md` §3–6).
#[derive(Clone, Debug, PartialEq)]
pub struct AtmPort {
    /// `K` in cells; `None` for a host adapter's unbounded FIFO.
    pub capacity_cells: Option<u64>,
    pub policy: UbrPolicy,
    pub ppd_after_overflow: bool,
    /// The cells of one cell time draw for the last free place (deviation D25).
    pub random_contention: bool,
    /// The port of a host's adapter (a node where traffic starts or ends), not of a switch.
    pub host_adapter: bool,
    /// The ABR switch algorithm of a switch port on an ABR network.
    pub switch: Option<SwitchConfig>,
    /// A VBR source entering here.
    pub vbr: Option<VbrConfig>,
}

/// A packet capture, resolved.
#[derive(Clone, Debug)]
pub struct ResolvedCapture {
    pub file: String,
    pub links: Vec<LinkId>,
    pub headers_only: bool,
}

/// One TCP flow, resolved.
#[derive(Clone, Debug)]
pub struct ResolvedFlow {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: SimDuration,
    /// Uniform random extra delay of the start, in `[0, start_jitter)`.
    pub start_jitter: SimDuration,
    pub stop: Option<SimDuration>,
    /// Bytes of a finite transfer; `None` for a persistent source.
    pub size_bytes: Option<u64>,
    /// Shared among the flows that have the same (`resolve::share_sender_configs`).
    pub sender: Arc<SenderConfig>,
    pub receiver: ReceiverConfig,
    /// Draw the ns-2 tick-clock phase at random (else zero).
    pub random_boot_phase: bool,
    pub variant_name: &'static str,
    pub profile_name: &'static str,
    /// Every change of its sender's state is recorded (`[metrics] tcp_changes`).
    pub trace_changes: bool,
}

/// One CBR source, resolved.
#[derive(Clone, Debug)]
pub struct ResolvedCbr {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    /// The schedule; its `phase` is replaced by a draw when `random_phase`.
    pub config: CbrConfig,
    /// Draw the grid origin uniformly in one interval (from the source's own stream).
    pub random_phase: bool,
}

/// A group of random transfers, resolved.
#[derive(Clone, Debug)]
pub struct ResolvedTransfers {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub sizes: SizeLaw,
    pub arrivals_per_second: f64,
    pub start: SimDuration,
    pub stop: SimDuration,
    pub sender: Arc<SenderConfig>,
    pub receiver: ReceiverConfig,
    pub random_boot_phase: bool,
}

/// A validated scenario, ready to run.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub duration: SimDuration,
    pub seed: u64,
    pub replications: u32,
    pub measure_from: SimDuration,
    pub measure_until: SimDuration,
    pub nodes: Vec<String>,
    pub links: Vec<ResolvedLink>,
    pub flows: Vec<ResolvedFlow>,
    /// CBR sources; their flow ids follow the TCP flows' (`flows.len() + i`).
    pub cbr: Vec<ResolvedCbr>,
    /// Groups of random transfers; their connections take flow ids after the CBR sources', in
    /// order of arrival.
    pub transfers: Vec<ResolvedTransfers>,
    /// The link to forward on, per node and destination (with ECMP, per flow as well).
    pub routes: Routes,
    /// Equal-cost multipath (`[routing] ecmp`): `routes` keeps every shortest link.
    pub ecmp: bool,
    pub efficiency_max: Option<Rate>,
    pub series_interval: Option<SimDuration>,
    /// Offer packets ahead of time to links with a single feeder (an exact shortcut that saves
    /// one event per fused hop), and pass an ATM pipe's cells on in one event while nothing
    /// else is due. On from scenario files; tests turn it off to compare.
    pub hop_fusion: bool,
    /// The order of simultaneous arrivals at a node.
    pub tie_order: TieOrder,
    /// The ABR service on an ABR network (every VC is then an ABR connection).
    pub atm_abr: Option<AbrService>,
    pub captures: Vec<ResolvedCapture>,
    pub tcp_events: bool,
    pub sequence_trace: bool,
    pub flow_monitor: bool,
    /// Scheduled events in time order (file order at one instant).
    pub events: Vec<ResolvedEvent>,
    /// The file as parsed, without its nodes, links and flows (`nodes`, `links` and `flows`
    /// hold them resolved): what later checks name fields of.
    pub source: ScenarioFile,
    /// Settings that are allowed but do nothing or defeat themselves.
    pub warnings: Vec<ScenarioWarning>,
}

impl Scenario {
    /// `true` if an event takes a link down (`link_down` or `link_failures`): the runs then
    /// count the packets lost to down links and list when links went down and up.
    pub fn takes_links_down(&self) -> bool {
        (self.events.iter()).any(|e| {
            matches!(
                e.change,
                NetworkChange::LinkDown(_) | NetworkChange::LinkFailures { .. }
            )
        })
    }

    /// One line: nodes, links, TCP flows, and CBR sources and transfer groups when present.
    pub fn describe(&self) -> String {
        let mut text = format!(
            "{} nodes, {} links, {} flows",
            self.nodes.len(),
            self.links.len(),
            self.flows.len()
        );
        if !self.cbr.is_empty() {
            text += &format!(", {} CBR sources", self.cbr.len());
        }
        if !self.transfers.is_empty() {
            text += &format!(", {} transfer groups", self.transfers.len());
        }
        text
    }

    /// A hash of everything that shapes a replication's simulation: equal for two scenarios
    /// that simulate the same network (whatever their name, replication count or spelling in
    /// the file), so a sweep can tell an axis that changes nothing. Stable within one build
    /// only (std's `DefaultHasher`), which is all a run key needs: keys carry the build too.
    pub fn simulation_fingerprint(&self) -> u64 {
        // Destructured field by field, so that a new field must be placed on one side or the
        // other here before the crate compiles.
        let Scenario {
            name: _,
            replications: _,
            source: _,
            warnings: _,
            duration,
            seed,
            measure_from,
            measure_until,
            nodes,
            links,
            flows,
            cbr,
            transfers,
            routes,
            ecmp,
            efficiency_max,
            series_interval,
            hop_fusion,
            tie_order,
            atm_abr,
            captures,
            tcp_events,
            sequence_trace,
            flow_monitor,
            events,
        } = self;
        let mut hasher = HashWriter(DefaultHasher::new());
        // Debug covers every field of every model type (they derive it) and holds no hash maps,
        // so equal scenarios print equal text.
        fmt::write(
            &mut hasher,
            format_args!(
                "{duration:?}{seed:?}{measure_from:?}{measure_until:?}{nodes:?}{links:?}{flows:?}\
                 {cbr:?}{transfers:?}{routes:?}{ecmp:?}{efficiency_max:?}{series_interval:?}\
                 {hop_fusion:?}{tie_order:?}{atm_abr:?}{captures:?}{tcp_events:?}\
                 {sequence_trace:?}{flow_monitor:?}{events:?}"
            ),
        )
        .expect("hashing text cannot fail");
        hasher.0.finish()
    }
}

/// Feeds formatted text into a hasher without building the string.
struct HashWriter(DefaultHasher);

impl fmt::Write for HashWriter {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        self.0.write(text.as_bytes());
        Ok(())
    }
}

/// A scheduled event, resolved (`[[events]]`).
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedEvent {
    pub at: SimDuration,
    pub change: NetworkChange,
    /// Its `[[events]]` entry in the file, from 0 (one entry may make several changes, and
    /// the changes are in time order).
    pub entry: usize,
}

/// What a scheduled event changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NetworkChange {
    LinkDown(LinkId),
    LinkUp(LinkId),
    LinkRate(LinkId, Rate),
    LinkDelay(LinkId, SimDuration),
    FlowStart(FlowId),
    FlowStop(FlowId),
    QueueLimit(LinkId, u64),
    /// The link's queue takes its settings `links[link].queue_changes[i]`.
    QueueParams(LinkId, u32),
    /// CBR source `scenario.cbr[i]`.
    CbrRate(usize, Rate),
    /// A random up/down process on `link` and its `reverse` direction together: the first
    /// failure an exponential time of mean `up_mean` after the event, each repair one of mean
    /// `down_mean` after its failure, nothing after `until` (the links are then up).
    LinkFailures {
        link: LinkId,
        reverse: Option<LinkId>,
        up_mean: SimDuration,
        down_mean: SimDuration,
        until: SimDuration,
    },
}

#[cfg(test)]
mod tests {
    use crate::scenario::from_toml_str_with_overrides;
    use serde_json::json;

    const SINGLE_FLOW: &str = include_str!("../../../../scenarios/single-flow.toml");

    fn fingerprint(overrides: &[(&str, serde_json::Value)]) -> u64 {
        let overrides: Vec<(String, serde_json::Value)> = overrides
            .iter()
            .map(|(path, value)| ((*path).to_string(), value.clone()))
            .collect();
        from_toml_str_with_overrides(SINGLE_FLOW, "f.toml", &overrides)
            .unwrap()
            .simulation_fingerprint()
    }

    #[test]
    fn the_fingerprint_ignores_labels_and_sees_every_change_to_the_network() {
        let base = fingerprint(&[]);
        assert_eq!(base, fingerprint(&[]));
        // The same simulation: another name, more replications, a rate spelt differently.
        assert_eq!(base, fingerprint(&[("name", json!("other"))]));
        assert_eq!(base, fingerprint(&[("simulation.replications", json!(7))]));
        assert_eq!(base, fingerprint(&[("links[1].rate", json!("10000kbps"))]));
        // Another simulation.
        for (path, value) in [
            ("links[1].queue.limit_packets", json!(51)),
            ("links[1].delay", json!("11ms")),
            ("tcp.variant", json!("tahoe")),
            ("tcp.window", json!(21)),
            ("simulation.seed", json!(2)),
            ("simulation.duration", json!("11s")),
            ("flows[0].name", json!("ftp2")),
        ] {
            assert_ne!(
                base,
                fingerprint(&[(path, value.clone())]),
                "{path} = {value}"
            );
        }
    }
}
