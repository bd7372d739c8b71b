//! The measurement window: every counter a result table reports is its change between the
//! window's opening (`measure_from`) and its closing (`measure_until`, by default the end of
//! the run), as goodput always was. Quantities of a connection's whole life (completion time,
//! the transfers table) and the queue maxima are not windowed; ATM ports report whole runs.
//!
//! A reading is exact because nothing crosses a boundary ahead of time: early delivery and
//! hop fusion (`forward.rs`) stop short of a boundary, so at the event that takes a reading
//! every packet due before it has been counted and none due after (deviation D28).

use crate::scenario::model::Scenario;
use congsim_core::time::SimTime;
use congsim_core::wire::Packet;
use congsim_core::{FlowId, LinkId};
use congsim_ip::LinkStats;
use congsim_ip::link::FlowCounts;
use congsim_ip::qdisc::ClassStats;
use congsim_tcp::{ReceiverStats, SenderStats};
use std::collections::BTreeMap;

/// The measurement window as the run goes: the readings at its edges, and the shortcuts (hop
/// fusion, early delivery) that would have crossed the next edge, held until its reading.
pub(super) struct Measurement {
    /// The counters when the window opened (`None` when it opens at the start) and when it
    /// closed.
    pub(super) opened: Option<Reading>,
    pub(super) closed: Option<Reading>,
    /// The window's edges.
    edges: [SimTime; 2],
    /// The next instant the window opens or closes (`SimTime::MAX`: neither is ahead).
    next_boundary: SimTime,
    /// Shortcuts held back until the next boundary's reading.
    deferred: Vec<Deferred>,
}

/// A hop-fusion offer or an early delivery that would cross a measurement boundary.
pub(super) enum Deferred {
    Offer {
        at: SimTime,
        link: LinkId,
        pkt: Packet,
    },
    Delivery {
        at: SimTime,
        pkt: Packet,
    },
}

impl Measurement {
    pub(super) fn new(scenario: &Scenario) -> Self {
        let edges = [scenario.measure_from, scenario.measure_until].map(|d| SimTime::ZERO + d);
        let mut measurement = Measurement {
            opened: None,
            closed: None,
            edges,
            next_boundary: SimTime::MAX,
            deferred: Vec::new(),
        };
        measurement.next_boundary = measurement.next_boundary_after(SimTime::ZERO);
        measurement
    }

    /// The first edge of the window after `now` (`SimTime::MAX` when none is left).
    fn next_boundary_after(&self, now: SimTime) -> SimTime {
        (self.edges.into_iter())
            .filter(|&boundary| boundary > now)
            .min()
            .unwrap_or(SimTime::MAX)
    }

    /// `true` if the window opens or closes at or before `at`, its event still to come: a
    /// shortcut to `at` then waits for that event, so that the counters read there are exact.
    /// Nothing is processed past the next boundary before its event (the shortcuts that would
    /// wait), so `now` is never after it.
    #[inline]
    pub(super) fn crosses_boundary(&self, at: SimTime) -> bool {
        self.next_boundary <= at
    }

    /// Holds a shortcut until the next boundary's reading.
    pub(super) fn defer(&mut self, shortcut: Deferred) {
        self.deferred.push(shortcut);
    }

    /// At a boundary, once its reading is taken: the shortcuts held, in the order they were
    /// made; the next boundary is the one after `now`.
    pub(super) fn release(&mut self, now: SimTime) -> Vec<Deferred> {
        self.next_boundary = self.next_boundary_after(now);
        std::mem::take(&mut self.deferred)
    }
}

/// The counters of one IP link at an instant. A large network has millions of links and most
/// have neither classes nor a flow monitor: those two sit behind a pointer.
#[derive(Clone, Debug, Default)]
pub(super) struct LinkReading {
    /// The queue area included (`Link::stats_at`).
    pub(super) stats: LinkStats,
    detail: Option<Box<LinkDetail>>,
}

/// The rarer parts of a link's reading.
#[derive(Clone, Debug, Default)]
struct LinkDetail {
    classes: Vec<ClassStats>,
    /// The flow monitor's counts, by flow.
    flows: BTreeMap<FlowId, FlowCounts>,
}

/// A reading's flow counts when the flow monitor is off.
static NO_FLOW_COUNTS: BTreeMap<FlowId, FlowCounts> = BTreeMap::new();

impl LinkReading {
    pub(super) fn new(
        stats: LinkStats,
        classes: Vec<ClassStats>,
        flows: BTreeMap<FlowId, FlowCounts>,
    ) -> Self {
        let detail = (!classes.is_empty() || !flows.is_empty())
            .then(|| Box::new(LinkDetail { classes, flows }));
        Self { stats, detail }
    }

    /// Per-class counters of a class-based queue (empty for a single FIFO).
    pub(super) fn classes(&self) -> &[ClassStats] {
        self.detail.as_ref().map_or(&[], |d| &d.classes)
    }

    /// The flow monitor's counts, by flow (empty when it is off).
    pub(super) fn flows(&self) -> &BTreeMap<FlowId, FlowCounts> {
        self.detail.as_ref().map_or(&NO_FLOW_COUNTS, |d| &d.flows)
    }

    pub(super) fn since(&self, start: &Self) -> Self {
        let classes = (self.classes().iter().enumerate())
            .map(|(i, class)| class.since(start.classes().get(i).unwrap_or(&ClassStats::default())))
            .collect();
        let flows = (self.flows().iter())
            .map(|(flow, counts)| {
                let at_start = start.flows().get(flow).copied().unwrap_or_default();
                (*flow, counts.since(&at_start))
            })
            .filter(|(_, counts)| *counts != FlowCounts::default())
            .collect();
        Self::new(self.stats.since(&start.stats), classes, flows)
    }
}

/// The counters of one CBR source and its sink at an instant.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CbrReading {
    pub(super) packets_sent: u64,
    pub(super) packets_delivered: u64,
    pub(super) packets_dropped: u64,
    pub(super) bytes_delivered: u64,
}

impl CbrReading {
    pub(super) fn since(&self, start: &Self) -> Self {
        Self {
            packets_sent: self.packets_sent - start.packets_sent,
            packets_delivered: self.packets_delivered - start.packets_delivered,
            packets_dropped: self.packets_dropped - start.packets_dropped,
            bytes_delivered: self.bytes_delivered - start.bytes_delivered,
        }
    }
}

/// Every windowed counter at one instant: per declared flow, per link (ATM links read as
/// zero: their ports report in cells), per CBR source.
#[derive(Clone, Debug, Default)]
pub(super) struct Reading {
    /// Taken out by the flows table (`Simulation::flows_table`) before the links are read; not
    /// read at all when the window closes with the run (the connections are read instead).
    pub(super) flows: Vec<(SenderStats, ReceiverStats)>,
    pub(super) links: Vec<LinkReading>,
    pub(super) cbr: Vec<CbrReading>,
}

impl Reading {
    /// What was counted since `start` (`None`: since the beginning of the run, which is this
    /// reading itself, not copied: a large network's reading is large).
    pub(super) fn since(self, start: Option<&Self>) -> Self {
        let Some(start) = start else {
            return self;
        };
        Self {
            flows: (self.flows.iter().zip(&start.flows))
                .map(|((sent, received), (sent0, received0))| {
                    (sent.since(sent0), received.since(received0))
                })
                .collect(),
            links: (self.links.iter().zip(&start.links))
                .map(|(link, link0)| link.since(link0))
                .collect(),
            cbr: (self.cbr.iter().zip(&start.cbr))
                .map(|(c, c0)| c.since(c0))
                .collect(),
        }
    }
}
