//! The fast path's waiting room: packets admitted to a FIFO link, remembered by their enqueue
//! and start times, which is all the admission test and the statistics need (see `link`).

use crate::qdisc::{AdmissionBounds, Qdisc};
use congsim_core::time::SimTime;
use std::collections::VecDeque;

/// A packet waiting on the fast path.
#[derive(Clone, Copy)]
pub(crate) struct Waiting {
    pub(crate) enqueued: SimTime,
    pub(crate) start: SimTime,
    pub(crate) bytes: u32,
    /// Its serialization time, counted as busy time at admission.
    pub(crate) tx_ps: u64,
    /// Bytes admitted to the queue up to and including this packet, so that the bytes of any
    /// run of entries is a subtraction.
    pub(crate) cumulative_bytes: u64,
}

/// The fast path's admission test.
pub(crate) enum Admission {
    /// Fixed bounds (DropTail): two compares, in the waiting room's cache line.
    Bounds(AdmissionBounds),
    /// The discipline decides (RED), behind a pointer.
    Discipline(Box<Qdisc>),
}

/// Waiting packets of the fast path. `repr(C)`: an offer that finds no packet waiting reads
/// all but the last field (see `crate::link::Link`).
#[repr(C)]
pub(crate) struct FifoQueue {
    pub(crate) admission: Admission,
    /// Sorted by `start` (FIFO service).
    pub(crate) waiting: VecDeque<Waiting>,
    /// When the transmitter finishes the last admitted packet.
    pub(crate) busy_until: SimTime,
    /// Bytes ever admitted to `waiting`.
    pub(crate) admitted_bytes: u64,
}

impl FifoQueue {
    /// Forgets packets whose transmission started before `now`.
    ///
    /// Simultaneous events: a packet whose transmission starts exactly at `t` still counts as
    /// waiting for an arrival at `t`, as if arrivals were handled before the transmitter
    /// frees up. That is the order ns-2 and the scheduled path usually produce (the arrival
    /// was scheduled before the end of the transmission) and it decides drops at a full queue.
    pub(crate) fn advance(&mut self, now: SimTime) {
        while let Some(w) = self.waiting.front() {
            if w.start >= now {
                break;
            }
            self.waiting.pop_front();
        }
    }

    /// Packets and bytes still waiting at `at` (not before the last `advance`).
    pub(crate) fn queued_at(&self, at: SimTime) -> (u64, u64) {
        // Usually nothing has started by `at` (always so for an offer made on time).
        match self.waiting.front() {
            None => return (0, 0),
            Some(first) if first.start >= at => {
                let bytes_before_first = first.cumulative_bytes - u64::from(first.bytes);
                return (
                    self.waiting.len() as u64,
                    self.admitted_bytes - bytes_before_first,
                );
            }
            Some(_) => {}
        }
        // An early offer can run far ahead of `now`: binary search the started prefix.
        let started = self.waiting.partition_point(|w| w.start < at);
        let last_started = &self.waiting[started - 1];
        let still_waiting_bytes = self.admitted_bytes - last_started.cumulative_bytes;
        ((self.waiting.len() - started) as u64, still_waiting_bytes)
    }
}
