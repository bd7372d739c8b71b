//! The event queue: a binary heap of `(time, insertion sequence)` keys over a slab of payloads.
//!
//! Ties in time are broken by the order in which events were scheduled, so simultaneous events
//! are processed identically on every run. Cancellation is not a heap operation: components
//! that re-arm timers keep their own deadline and ignore stale wake-ups (see the facade's timer
//! handling), which is cheaper than removing entries from the heap.

use crate::time::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A heap key: time and insertion sequence in one `u128`, so one compare orders events, and
/// the payload's slab slot. Payloads stay in the slab so that sifting moves 32 bytes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    order: Reverse<u128>,
    slot: u32,
}

/// Deterministic future-event list.
pub struct EventQueue<E> {
    /// The earliest pending event, when it was scheduled before everything in the heap: an
    /// event scheduled for "next" (the common case of a chain of arrivals) then costs no heap
    /// operation. Invariant: `front` orders before every key in `heap`.
    front: Option<Key>,
    heap: BinaryHeap<Key>,
    /// Event payloads; `free` lists the empty slots.
    slots: Vec<Option<E>>,
    free: Vec<u32>,
    next_seq: u64,
    now: SimTime,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self {
            front: None,
            heap: BinaryHeap::with_capacity(256),
            slots: Vec::with_capacity(256),
            free: Vec::new(),
            next_seq: 0,
            now: SimTime::ZERO,
            popped: 0,
        }
    }

    /// Time of the last event popped.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` at `time`, which must not be in the past.
    pub fn schedule(&mut self, time: SimTime, event: E) {
        assert!(
            time >= self.now,
            "event scheduled in the past: {time} < {}",
            self.now
        );
        let seq = self.next_seq;
        self.next_seq += 1;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(event);
                slot
            }
            None => {
                self.slots.push(Some(event));
                u32::try_from(self.slots.len() - 1).expect("more than 2^32 pending events")
            }
        };
        let order = Reverse((u128::from(time.as_ps()) << 64) | u128::from(seq));
        let key = Key { order, slot };
        // Keys are max-ordered through `Reverse`: greater means earlier.
        match self.front {
            Some(front) if key > front => {
                self.heap.push(front);
                self.front = Some(key);
            }
            Some(_) => self.heap.push(key),
            None if self.heap.peek().is_none_or(|top| key > *top) => self.front = Some(key),
            None => self.heap.push(key),
        }
    }

    /// Removes and returns the earliest event, advancing `now`.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let key = match self.front.take() {
            Some(front) => front,
            None => self.heap.pop()?,
        };
        let time = SimTime::from_ps((key.order.0 >> 64) as u64);
        self.now = time;
        self.popped += 1;
        let event = self.slots[key.slot as usize]
            .take()
            .expect("a queued slot holds its event");
        self.free.push(key.slot);
        Some((time, event))
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.front
            .as_ref()
            .or(self.heap.peek())
            .map(|k| SimTime::from_ps((k.order.0 >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.heap.len() + usize::from(self.front.is_some())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Events processed so far (for events/s figures).
    pub fn events_processed(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_schedules_and_pops_match_a_sorted_reference() {
        let mut rng = crate::rng::StreamFactory::new(3, 0).stream("queue-test");
        let mut q = EventQueue::new();
        let mut reference = std::collections::BTreeSet::new();
        let mut seq = 0u64;
        let mut now = 0u64;
        for _ in 0..20_000 {
            if rng.below(3) < 2 {
                let t = now + rng.below(50);
                q.schedule(SimTime::from_ps(t), seq);
                reference.insert((t, seq));
                seq += 1;
            } else if let Some((t, e)) = q.pop() {
                assert_eq!(Some((t.as_ps(), e)), reference.pop_first());
                now = t.as_ps();
            }
        }
        assert_eq!(q.len(), reference.len());
    }

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime::from_ps(20), "c");
        q.schedule(SimTime::from_ps(10), "a");
        q.schedule(SimTime::from_ps(20), "d");
        q.schedule(SimTime::from_ps(10), "b");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
        assert_eq!(q.now(), SimTime::from_ps(20));
        assert_eq!(q.events_processed(), 4);
    }
}
