//! Output queue disciplines, behind one closed enum (per-packet calls are static dispatch).

mod cbq;
mod codel;
mod droptail;
mod fq;
mod pie;
mod priority;
mod red;

pub use cbq::{CBQ_PRIORITIES, Cbq, CbqClassConfig, CbqConfig, LinkSharing};
pub use codel::{Codel, CodelParams, CodelStats};
pub use droptail::{AdmissionBounds, DropTail};
pub use fq::{
    FlowAqm, FlowSource, Fq, FqCodel, FqCodelParams, FqOverflow, FqParams, FqPie, FqPieParams,
};
pub use pie::{Pie, PieParams, PieStats, PieVars};
pub use priority::Priority;
pub use red::{Red, RedParams, RedStats};

use crate::drops::DropReason;
use congsim_core::FlowId;
use congsim_core::time::SimTime;
use congsim_core::wire::Packet;

/// Counters of one class of a class-based queue.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassStats {
    pub arrivals: u64,
    pub drops: u64,
    pub departures: u64,
    pub bytes_departed: u64,
}

impl ClassStats {
    /// What was counted since `start`, an earlier reading of the same class.
    pub fn since(&self, start: &Self) -> Self {
        Self {
            arrivals: self.arrivals - start.arrivals,
            drops: self.drops - start.drops,
            departures: self.departures - start.departures,
            bytes_departed: self.bytes_departed - start.bytes_departed,
        }
    }
}

/// Maps each flow to its class: `class_of[flow id]`, and `default_class` for flows beyond it.
#[derive(Clone, Debug)]
pub struct Classifier {
    class_of: Vec<usize>,
    default_class: usize,
}

impl Classifier {
    pub fn new(class_of: Vec<usize>, default_class: usize) -> Self {
        Self {
            class_of,
            default_class,
        }
    }

    pub fn class_of(&self, flow: FlowId) -> usize {
        self.class_of
            .get(flow.index())
            .copied()
            .unwrap_or(self.default_class)
    }
}

/// How a queue limit counts (spec `ip.md` §0, switch `limit_counts_in_service`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitSemantics {
    /// ns-2 `Queue/DropTail`: drop an arrival when `queued + 1 >= limit` (bytes:
    /// `queued_bytes + size >= limit`): at most `limit − 1` packets wait and `limit` are in the
    /// node counting the one in service.
    Ns2DropTail,
    /// `limit` packets (bytes) may wait; the one in service is not counted. This is also what
    /// ns-2's RED does.
    Waiting,
}

/// A queue's capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

/// Result of offering a packet to a discipline.
#[derive(Debug, PartialEq, Eq)]
pub enum Enqueued {
    Accepted,
    /// The arrival was dropped.
    DroppedArrival(Packet, DropReason),
    /// The arrival was queued and the head-of-line packet dropped instead (drop-front).
    DroppedHead(Packet),
}

/// The output disciplines.
#[derive(Debug)]
pub enum Qdisc {
    DropTail(DropTail),
    Red(Box<Red>),
    Priority(Priority),
    Cbq(Box<Cbq>),
    Codel(Box<Codel>),
    FqCodel(Box<FqCodel>),
    Pie(Box<Pie>),
    FqPie(Box<FqPie>),
}

impl Qdisc {
    /// Scheduled path: offers `pkt` arriving at `now`; `also_waiting` (packets, bytes) counts
    /// a packet that left the queue at this same instant as still waiting.
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet, also_waiting: (u64, u64)) -> Enqueued {
        match self {
            Self::DropTail(q) => q.enqueue(pkt, also_waiting),
            Self::Red(q) => match q.enqueue(now, pkt, also_waiting) {
                Ok(()) => Enqueued::Accepted,
                Err((pkt, reason)) => Enqueued::DroppedArrival(pkt, reason),
            },
            // Each class counts only its own queue: the packet in service may be another's.
            Self::Priority(q) => q.enqueue(pkt),
            Self::Cbq(q) => q.enqueue(now, pkt),
            Self::Codel(q) => match q.enqueue(now, pkt, also_waiting.0) {
                Ok(()) => Enqueued::Accepted,
                Err(pkt) => Enqueued::DroppedArrival(pkt, DropReason::Overflow),
            },
            // Overflow drops the fattest queue's head, which the link collects as any drop
            // inside the queue ([`Self::dropped_inside`]).
            Self::FqCodel(q) => Self::arrival(q.enqueue(now, pkt, also_waiting.0)),
            Self::Pie(q) => Self::arrival(q.enqueue(now, pkt, also_waiting.0)),
            Self::FqPie(q) => Self::arrival(q.enqueue(now, pkt, also_waiting.0)),
        }
    }

    fn arrival(decided: Result<(), (Packet, DropReason)>) -> Enqueued {
        match decided {
            Ok(()) => Enqueued::Accepted,
            Err((pkt, reason)) => Enqueued::DroppedArrival(pkt, reason),
        }
    }
    /// Scheduled path: the transmitter is free at `now`.
    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        match self {
            Self::DropTail(q) => q.dequeue(),
            Self::Red(q) => q.dequeue(now),
            Self::Priority(q) => q.dequeue(),
            Self::Cbq(q) => q.dequeue(now),
            Self::Codel(q) => q.dequeue(now),
            Self::FqCodel(q) => q.dequeue(now),
            Self::Pie(q) => q.dequeue(now),
            Self::FqPie(q) => q.dequeue(now),
        }
    }

    /// `true` if this discipline serves in FIFO order and decides only at enqueue (DropTail
    /// without drop-front; RED), so a link can compute departures at enqueue and ask
    /// [`Self::fifo_admit`] alone.
    pub fn is_fifo_admission_only(&self) -> bool {
        match self {
            Self::DropTail(q) => q.is_fifo_admission_only(),
            Self::Red(_) => true,
            Self::Priority(_)
            | Self::Cbq(_)
            | Self::Codel(_)
            | Self::FqCodel(_)
            | Self::Pie(_)
            | Self::FqPie(_) => false,
        }
    }

    /// `true` if the limit counts packets (a link may then take offers ahead of time).
    pub fn counts_packets(&self) -> bool {
        match self {
            Self::DropTail(q) => matches!(q.limit(), QueueLimit::Packets(_)),
            Self::Red(q) => !q.params().queue_in_bytes,
            Self::Priority(_)
            | Self::Cbq(_)
            | Self::Codel(_)
            | Self::FqCodel(_)
            | Self::Pie(_)
            | Self::FqPie(_) => false,
        }
    }

    /// The admission test when it is two fixed bounds (DropTail): a fast-path link keeps a copy
    /// beside its own queue state and asks [`Self::fifo_admit`] only when this is `None` (RED,
    /// whose decision depends on time and an average).
    pub fn admission_bounds(&self) -> Option<AdmissionBounds> {
        match self {
            Self::DropTail(q) => Some(q.bounds()),
            Self::Red(_)
            | Self::Priority(_)
            | Self::Cbq(_)
            | Self::Codel(_)
            | Self::FqCodel(_)
            | Self::Pie(_)
            | Self::FqPie(_) => None,
        }
    }

    /// The fast path's admission decision for `pkt` arriving at `at` to find `queued_packets`
    /// (`queued_bytes`) waiting, the link idle since `idle_since` if it is idle. RED may mark
    /// the packet.
    #[inline]
    pub fn fifo_admit(
        &mut self,
        at: SimTime,
        queued_packets: u64,
        queued_bytes: u64,
        idle_since: Option<SimTime>,
        pkt: &mut Packet,
    ) -> Result<(), DropReason> {
        match self {
            Self::DropTail(q) => {
                q.bounds()
                    .admit(queued_packets, queued_bytes, u64::from(pkt.size_bytes))
            }
            Self::Red(q) => q.decide(at, queued_packets, queued_bytes, idle_since, pkt),
            Self::Priority(_)
            | Self::Cbq(_)
            | Self::Codel(_)
            | Self::FqCodel(_)
            | Self::Pie(_)
            | Self::FqPie(_) => {
                unreachable!("class-based queues, CoDel and PIE are served on the scheduled path")
            }
        }
    }

    /// A new packet limit from now on (a scheduled event): DropTail's (in its unit, packets or
    /// bytes), RED's hard limit, the AQMs' tail-drop or total limit. `false` for the
    /// class-based queues, whose limits are per class.
    pub fn set_limit(&mut self, limit: u64) -> bool {
        match self {
            Self::DropTail(q) => q.set_limit(limit),
            Self::Red(q) => q.set_limit_packets(limit),
            Self::Codel(q) => q.set_limit_packets(limit),
            Self::FqCodel(q) => q.set_limit_packets(limit),
            Self::Pie(q) => q.set_limit_packets(limit),
            Self::FqPie(q) => q.set_limit_packets(limit),
            Self::Priority(_) | Self::Cbq(_) => return false,
        }
        true
    }

    /// Packets waiting (the one in service excluded).
    pub fn len_packets(&self) -> u64 {
        match self {
            Self::DropTail(q) => q.len_packets(),
            Self::Red(q) => q.len_packets(),
            Self::Priority(q) => q.len_packets(),
            Self::Cbq(q) => q.len_packets(),
            Self::Codel(q) => q.len_packets(),
            Self::FqCodel(q) => q.len_packets(),
            Self::Pie(q) => q.len_packets(),
            Self::FqPie(q) => q.len_packets(),
        }
    }
    /// Bytes waiting (the one in service excluded).
    pub fn len_bytes(&self) -> u64 {
        match self {
            Self::DropTail(q) => q.len_bytes(),
            Self::Red(q) => q.len_bytes(),
            Self::Priority(q) => q.len_bytes(),
            Self::Cbq(q) => q.len_bytes(),
            Self::Codel(q) => q.len_bytes(),
            Self::FqCodel(q) => q.len_bytes(),
            Self::Pie(q) => q.len_bytes(),
            Self::FqPie(q) => q.len_bytes(),
        }
    }

    /// RED's counters, for a RED queue.
    pub fn red_stats(&self) -> Option<&RedStats> {
        match self {
            Self::Red(q) => Some(q.stats()),
            _ => None,
        }
    }

    /// CoDel's counters, for CoDel and FQ-CoDel.
    pub fn codel_stats(&self) -> Option<&CodelStats> {
        match self {
            Self::Codel(q) => Some(q.stats()),
            Self::FqCodel(q) => Some(q.stats()),
            _ => None,
        }
    }

    /// When the packet last dequeued was enqueued, for the disciplines that keep it (CoDel,
    /// PIE and their FQ forms); a FIFO's is the oldest enqueue time its link holds.
    pub fn last_enqueued(&self) -> Option<SimTime> {
        match self {
            Self::Codel(q) => Some(q.last_enqueued()),
            Self::FqCodel(q) => Some(q.last_enqueued()),
            Self::Pie(q) => Some(q.last_enqueued()),
            Self::FqPie(q) => Some(q.last_enqueued()),
            _ => None,
        }
    }

    /// `true` if the discipline serves in arrival order (or keeps each packet's enqueue time),
    /// so that each packet's sojourn is known.
    pub fn knows_sojourns(&self) -> bool {
        !matches!(self, Self::Priority(_) | Self::Cbq(_))
    }

    /// Packets the discipline set CE on (RED's marks, CoDel's, PIE's).
    pub fn marks(&self) -> u64 {
        match self {
            Self::Red(q) => q.stats().marks,
            Self::Codel(q) => q.stats().ecn_marks + q.stats().ce_marks,
            Self::FqCodel(q) => q.stats().ecn_marks + q.stats().ce_marks,
            Self::Pie(q) => q.stats().ecn_marks,
            Self::FqPie(q) => q.stats().ecn_marks,
            Self::DropTail(_) | Self::Priority(_) | Self::Cbq(_) => 0,
        }
    }

    /// Packets the discipline dropped from inside its queues (CoDel at dequeue, FQ-CoDel's
    /// overflow from the fattest queue) and not yet collected: `None` when there are none,
    /// which is one test for the disciplines that never do.
    #[inline]
    pub fn dropped_inside(&mut self) -> Option<&mut Vec<(Packet, DropReason)>> {
        let dropped = match self {
            Self::Codel(q) => q.dropped(),
            Self::FqCodel(q) => q.dropped(),
            Self::FqPie(q) => q.dropped(),
            Self::DropTail(_) | Self::Red(_) | Self::Priority(_) | Self::Cbq(_) | Self::Pie(_) => {
                return None;
            }
        };
        (!dropped.is_empty()).then_some(dropped)
    }

    /// Per-class counters, for a class-based queue (empty otherwise).
    pub fn class_stats(&self) -> &[ClassStats] {
        match self {
            Self::Priority(q) => q.class_stats(),
            Self::Cbq(q) => q.class_stats(),
            Self::DropTail(_)
            | Self::Red(_)
            | Self::Codel(_)
            | Self::FqCodel(_)
            | Self::Pie(_)
            | Self::FqPie(_) => &[],
        }
    }

    /// After a dequeue at `now` that found packets but none allowed to leave (CBQ's regulated
    /// classes): when to ask again (after `now`).
    pub fn wake_at(&self, now: SimTime) -> Option<SimTime> {
        match self {
            Self::Cbq(q) => q.wake_at(now),
            _ => None,
        }
    }
}
