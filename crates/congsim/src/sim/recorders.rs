//! The opt-in recordings of a run and their tables. `Recorders` owns what the simulation
//! records as it goes: the series sampled every `series_interval` (flows, IP links, ATM ports)
//! and the time-sequence trace. The other recordings are kept by the models that see the
//! events (TCP event traces by the senders, packet captures by the links); their tables are
//! made here too, so that every recording is found in one place.
//!
//! This module reads the models and the resolved scenario only, not the simulation: the
//! simulation hands it what it records.

use crate::pcap::{FlowWire, PcapWriter};
use crate::scenario::model::{ResolvedCapture, ResolvedLink, Scenario};
use crate::table::{Column, Table, table_of};
use congsim_atm::erica::IntervalRecord;
use congsim_atm::{AtmNetwork, VcId};
use congsim_core::FlowId;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::wire::{Packet, TcpHeader};
use congsim_ip::Link;
use congsim_tcp::{SeqMode, TcpReceiver, TcpSender};

/// What the run records on request: each `None` when the scenario did not ask for it. Boxed:
/// the recordings are cold, and out of line they leave the simulation's hot fields closer
/// together (fewer L1 misses on dumbbell-20, cachegrind).
pub(super) struct Recorders {
    /// The series sampled every `series_interval`.
    series: Option<Box<Series>>,
    /// The time-sequence trace (`sequence_trace`).
    sequence: Option<Box<SequenceTrace>>,
}

/// A VC's flow and direction (`"data"` or `"ack"`).
pub(super) type VcOwner<'a> = &'a dyn Fn(VcId) -> (FlowId, &'static str);

/// The tables of what `Recorders` recorded (`None`: not recorded).
pub(super) struct RecordedTables {
    pub(super) flow_series: Option<Table>,
    pub(super) link_series: Option<Table>,
    pub(super) atm_series: Option<Table>,
    pub(super) abr_series: Option<Table>,
    pub(super) sequence: Option<Table>,
}

impl Recorders {
    pub(super) fn new(scenario: &Scenario) -> Self {
        let has_atm = scenario.links.iter().any(|l| l.atm.is_some());
        Self {
            series: scenario.series_interval.map(|interval| {
                Box::new(Series {
                    interval,
                    flows: FlowSeries {
                        delivered_at_last_sample: vec![0; scenario.flows.len()],
                        ..FlowSeries::default()
                    },
                    links: LinkSeries::default(),
                    atm_ports: has_atm.then(AtmSeries::default),
                    abr_sources: scenario.atm_abr.is_some().then(AbrSeries::default),
                })
            }),
            sequence: scenario.sequence_trace.then(Box::default),
        }
    }

    /// Whether the series are sampled (the run then schedules the samples).
    pub(super) fn is_sampling(&self) -> bool {
        self.series.is_some()
    }

    /// A sample of every declared flow, in the scenario's order: its name, its sender and its
    /// receiver.
    pub(super) fn sample_flows<'f>(
        &mut self,
        now: SimTime,
        flows: impl Iterator<Item = (&'f str, &'f TcpSender, &'f TcpReceiver)>,
    ) {
        if let Some(series) = &mut self.series {
            series.flows.record(now, series.interval, flows);
        }
    }

    /// A sample of every link's queue: IP links in packets, the ports of ATM links (those
    /// `atm` serves) in cells, each in its own series.
    pub(super) fn sample_links(
        &mut self,
        now: SimTime,
        scenario: &Scenario,
        links: &mut [Link],
        atm: Option<&AtmNetwork>,
    ) {
        let Some(series) = &mut self.series else {
            return;
        };
        let t = now.as_secs_f64();
        for (i, (link, spec)) in links.iter_mut().zip(&scenario.links).enumerate() {
            match atm {
                Some(atm) if atm.is_atm(i) => {
                    let ports = (series.atm_ports.as_mut()).expect("the scenario has ATM links");
                    ports.time_s.push(t);
                    ports.link.push(spec.name(&scenario.nodes));
                    ports.kind.push(port_kind(spec));
                    ports.queue_cells.push(atm.queue_cells(i, now));
                    ports.push_erica(atm.erica_interval(i));
                }
                _ => {
                    series.links.time_s.push(t);
                    series.links.link.push(spec.name(&scenario.nodes));
                    series.links.queue_packets.push(link.queue_len_packets(now));
                }
            }
        }
        if let (Some(sources), Some(atm)) = (&mut series.abr_sources, atm) {
            for (vc, acr) in atm.abr_sources() {
                sources.time_s.push(t);
                sources.vc.push(vc);
                sources.acr_bps.push(cell_bps(acr));
            }
        }
    }

    /// A row of the time-sequence trace, if it is on: `event` of flow `f` with `header`, and
    /// the window of the connection's sender (asked for only when the row is recorded).
    #[inline]
    pub(super) fn record_sequence<'s>(
        &mut self,
        now: SimTime,
        f: FlowId,
        event: &'static str,
        header: &TcpHeader,
        sender: impl FnOnce() -> &'s TcpSender,
    ) {
        if let Some(trace) = &mut self.sequence {
            trace.record(now, f, event, header, sender());
        }
    }

    /// The tables of what was recorded; `flow_names` by flow id, `vc_owner` names ATM VCs.
    pub(super) fn into_tables(
        self,
        flow_names: &[String],
        vc_owner: VcOwner<'_>,
    ) -> RecordedTables {
        let (flow_series, link_series, atm_series, abr_series) =
            match self.series.map(|series| *series) {
                Some(series) => (
                    Some(series.flows.into_table()),
                    Some(series.links.into_table()),
                    series.atm_ports.map(AtmSeries::into_table),
                    series
                        .abr_sources
                        .map(|s| s.into_table(flow_names, vc_owner)),
                ),
                None => (None, None, None, None),
            };
        RecordedTables {
            flow_series,
            link_series,
            atm_series,
            abr_series,
            sequence: self.sequence.map(|trace| trace.into_table(flow_names)),
        }
    }
}

/// The series, sampled every `interval`.
struct Series {
    interval: SimDuration,
    flows: FlowSeries,
    links: LinkSeries,
    /// `None` when the scenario has no ATM links (and no `atm_series` table).
    atm_ports: Option<AtmSeries>,
    /// `None` when the network is not ABR (and no `abr_series` table).
    abr_sources: Option<AbrSeries>,
}

/// The `flow_series` table, column by column: each declared flow's window, RTT estimates
/// and throughput since the previous sample.
#[derive(Default)]
struct FlowSeries {
    time_s: Vec<f64>,
    flow: Vec<String>,
    cwnd: Vec<f64>,
    ssthresh: Vec<f64>,
    effective_window: Vec<f64>,
    srtt_s: Vec<f64>,
    rttvar_s: Vec<f64>,
    rto_s: Vec<f64>,
    throughput_bps: Vec<f64>,
    /// Per declared flow: payload bytes delivered at the previous sample.
    delivered_at_last_sample: Vec<u64>,
}

impl FlowSeries {
    fn record<'f>(
        &mut self,
        now: SimTime,
        interval: SimDuration,
        flows: impl Iterator<Item = (&'f str, &'f TcpSender, &'f TcpReceiver)>,
    ) {
        let t = now.as_secs_f64();
        let interval_s = interval.as_secs_f64();
        for ((name, sender, receiver), last) in flows.zip(&mut self.delivered_at_last_sample) {
            let delivered = receiver.stats().bytes_delivered;
            let bytes = delivered - *last;
            *last = delivered;
            self.time_s.push(t);
            self.flow.push(name.to_string());
            self.cwnd.push(sender.cwnd_segments());
            self.ssthresh.push(sender.ssthresh_segments());
            self.effective_window
                .push(sender.effective_window_segments());
            // No estimate before the first RTT sample.
            let sampled = sender.stats().rtt_samples > 0;
            let estimate = |value: f64| if sampled { value } else { f64::NAN };
            self.srtt_s.push(estimate(sender.srtt_secs()));
            self.rttvar_s.push(estimate(sender.rttvar_secs()));
            self.rto_s.push(sender.rto().as_secs_f64());
            self.throughput_bps.push(if now == SimTime::ZERO {
                0.0
            } else {
                bytes as f64 * 8.0 / interval_s
            });
        }
    }

    fn into_table(self) -> Table {
        table_of!(self;
            F64 time_s, Str flow, F64 cwnd, F64 ssthresh, F64 throughput_bps,
            F64 effective_window, F64 srtt_s, F64 rttvar_s, F64 rto_s)
    }
}

/// The `link_series` table, column by column: each IP link's queue.
#[derive(Default)]
struct LinkSeries {
    time_s: Vec<f64>,
    link: Vec<String>,
    queue_packets: Vec<u64>,
}

impl LinkSeries {
    fn into_table(self) -> Table {
        table_of!(self; F64 time_s, Str link, U64 queue_packets)
    }
}

/// The `atm_series` table, column by column: each ATM port's queue, in cells, and at a port
/// running ERICA its last closed averaging interval (NaN elsewhere; spec atm.md §13).
#[derive(Default)]
struct AtmSeries {
    time_s: Vec<f64>,
    link: Vec<String>,
    kind: Vec<String>,
    queue_cells: Vec<u64>,
    load_factor: Vec<f64>,
    abr_capacity_bps: Vec<f64>,
    fair_share_bps: Vec<f64>,
    active_vcs: Vec<f64>,
}

impl AtmSeries {
    fn push_erica(&mut self, interval: Option<IntervalRecord>) {
        let get = |f: fn(&IntervalRecord) -> f64| interval.as_ref().map_or(f64::NAN, f);
        self.load_factor.push(get(|r| r.load_factor));
        self.abr_capacity_bps
            .push(get(|r| cell_bps(r.abr_capacity)));
        self.fair_share_bps.push(get(|r| cell_bps(r.fair_share)));
        self.active_vcs.push(get(|r| r.active_vcs));
    }

    fn into_table(self) -> Table {
        table_of!(self; F64 time_s, Str link, Str kind, U64 queue_cells, F64 load_factor,
            F64 abr_capacity_bps, F64 fair_share_bps, F64 active_vcs)
    }
}

/// The `abr_series` table, column by column: each ABR source's allowed cell rate.
#[derive(Default)]
struct AbrSeries {
    time_s: Vec<f64>,
    vc: Vec<VcId>,
    acr_bps: Vec<f64>,
}

impl AbrSeries {
    /// `vc_owner`: a VC's flow and direction (`data` or `ack`), as the simulation numbers VCs.
    fn into_table(self, flow_names: &[String], vc_owner: VcOwner<'_>) -> Table {
        let owners: Vec<(FlowId, &str)> = self.vc.iter().map(|&vc| vc_owner(vc)).collect();
        let flow = (owners.iter()).map(|(f, _)| flow_names[f.index()].clone());
        let direction = owners.iter().map(|(_, d)| (*d).to_string());
        let (flow, direction): (Vec<String>, Vec<String>) = (flow.collect(), direction.collect());
        let mut table = Table::default();
        table.push("time_s", Column::F64(self.time_s));
        table.push("flow", Column::Str(flow));
        table.push("direction", Column::Str(direction));
        table.push("acr_bps", Column::F64(self.acr_bps));
        table
    }
}

/// Bits per second of cells at `cells_per_s`.
pub(super) fn cell_bps(cells_per_s: f64) -> f64 {
    cells_per_s * f64::from(congsim_atm::CELL_BYTES * 8)
}

/// `"switch"` or `"host"`: whose output port an ATM link is (the ATM series and the
/// `atm_ports` table label ports so).
pub(super) fn port_kind(link: &ResolvedLink) -> String {
    let host = link.atm.as_ref().is_some_and(|p| p.host_adapter);
    (if host { "host" } else { "switch" }).to_string()
}

/// The time-sequence trace, column by column.
#[derive(Default)]
struct SequenceTrace {
    time_s: Vec<f64>,
    flow: Vec<FlowId>,
    event: Vec<&'static str>,
    seq: Vec<u64>,
    ack: Vec<u64>,
    sack: Vec<String>,
    cwnd: Vec<f64>,
    ssthresh: Vec<f64>,
    pipe: Vec<f64>,
}

impl SequenceTrace {
    /// One row; `seq` and `ack` in the connection's wire units (packets or bytes).
    fn record(
        &mut self,
        now: SimTime,
        f: FlowId,
        event: &'static str,
        header: &TcpHeader,
        sender: &TcpSender,
    ) {
        self.time_s.push(now.as_secs_f64());
        self.flow.push(f);
        self.event.push(event);
        self.seq.push(header.seq);
        self.ack.push(header.ack);
        let unit = match sender.config().seq_mode {
            SeqMode::Packets => 1,
            SeqMode::Bytes => u64::from(sender.config().mss),
        };
        let ack_segment = header.ack.div_ceil(unit);
        let blocks: Vec<String> = header
            .sack
            .ranges(ack_segment)
            .map(|(l, r)| format!("{}-{}", l * unit, r * unit))
            .collect();
        self.sack.push(blocks.join(" "));
        self.cwnd.push(sender.cwnd_segments());
        self.ssthresh.push(sender.ssthresh_segments());
        self.pipe.push(sender.pipe().map_or(f64::NAN, |p| p as f64));
    }

    /// The `sequence` table, flows by name (`flow_names` by flow id).
    fn into_table(self, flow_names: &[String]) -> Table {
        let flow = self.flow.iter().map(|f| flow_names[f.index()].clone());
        let event = self.event.iter().map(|e| e.to_string());
        let mut t = Table::default();
        t.push("time_s", Column::F64(self.time_s));
        t.push("flow", Column::Str(flow.collect()));
        t.push("event", Column::Str(event.collect()));
        let rest = table_of!(self; U64 seq, U64 ack, Str sack, F64 cwnd, F64 ssthresh, F64 pipe);
        t.columns.extend(rest.columns);
        t
    }
}

/// The `tcp_events` table: every fast retransmit, timeout and end of fast recovery of each
/// connection's sender (by name), with cwnd and ssthresh.
pub(super) fn tcp_events_table<'c>(
    senders: impl Iterator<Item = (&'c str, &'c TcpSender)>,
) -> Table {
    let events: Vec<(&str, &congsim_tcp::TraceEvent)> = senders
        .flat_map(|(name, sender)| sender.trace().iter().map(move |e| (name, e)))
        .collect();
    let mut t = Table::default();
    t.push(
        "time_s",
        Column::F64(events.iter().map(|(_, e)| e.time.as_secs_f64()).collect()),
    );
    t.push(
        "flow",
        Column::Str(events.iter().map(|(n, _)| n.to_string()).collect()),
    );
    t.push(
        "event",
        Column::Str(
            events
                .iter()
                .map(|(_, e)| e.kind.name().to_string())
                .collect(),
        ),
    );
    t.push(
        "cwnd",
        Column::F64(events.iter().map(|(_, e)| e.cwnd).collect()),
    );
    t.push(
        "ssthresh",
        Column::F64(events.iter().map(|(_, e)| e.ssthresh).collect()),
    );
    t
}

/// The pcap file of `capture`: its links' transmissions before `end`, merged in time order
/// (ties keep the order of the links as listed); `wire` says how flow `f`'s packets look on
/// the wire.
pub(super) fn pcap_file(
    capture: &ResolvedCapture,
    links: &[Link],
    end: SimTime,
    wire: impl Fn(FlowId) -> FlowWire,
) -> Vec<u8> {
    let mut records: Vec<(SimTime, &Packet)> = capture
        .links
        .iter()
        .flat_map(|l| links[l.index()].captured().iter().map(|(t, p)| (*t, p)))
        .filter(|(t, _)| *t < end)
        .collect();
    records.sort_by_key(|(t, _)| *t);
    let mut writer = PcapWriter::new(capture.headers_only);
    for (t, p) in records {
        // TCP packets only: declared flows and random transfers (CBR datagrams are left out).
        if p.tcp().is_none() {
            continue;
        }
        writer.write(t, p, &wire(p.flow));
    }
    writer.into_bytes()
}
