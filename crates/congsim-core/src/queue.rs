//! The event queue: a calendar queue ordered by `(time, insertion sequence)`.
//!
//! Ties in time are broken by the order in which events were scheduled, so simultaneous events
//! are processed identically on every run. Models keep packets themselves (a link's pipe) and
//! schedule only small `Copy` ids.
//!
//! Almost every event lies a few milliseconds ahead (the next packet of a link's pipe), which is
//! what a calendar queue is good at: time is cut into buckets of `2^shift` ps, a ring of
//! buckets covers the next `buckets << shift` ps, and a bitmap finds the next non-empty bucket.
//! Scheduling is an append, popping a scan of a bucket that holds one or two events (a crowded
//! bucket becomes a heap). The ring covers the rest of the current *epoch* (an aligned stretch
//! of `EPOCH_BUCKETS` buckets) and the next one; events of the `EPOCHS` epochs after those
//! wait in one list per epoch and enter the ring together when it reaches the epoch before
//! theirs (each event moves once, in constant time), and events beyond (timers of seconds) in
//! a binary heap. Measured on the benchmark's workload: about half the time of a binary heap.
//!
//! The best width is about the gap between events, which a 100 Mbps dumbbell and a 10 Gbps fat
//! tree put three orders of magnitude apart, so the queue adapts it: every
//! `RESIZE_EVERY_POPS` pops it halves the width when the buckets it popped from held more than
//! `CROWDED_BUCKET` events on average (events at one instant aside: no width parts them), and
//! doubles it when most events scheduled meanwhile fell beyond the epochs into the heap. Order
//! is by key alone, so the width never changes results.
//! Cancellation is not a queue operation: components that re-arm timers keep their own deadline
//! and ignore stale wake-ups (see the facade's timer handling).

use crate::time::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// `(time, insertion sequence)` as one integer: one compare orders two events.
type Key = u128;

fn key(time: SimTime, seq: u64) -> Key {
    (u128::from(time.as_ps()) << 64) | u128::from(seq)
}

fn key_time(key: Key) -> SimTime {
    SimTime::from_ps((key >> 64) as u64)
}

/// The tie-break bit of [`EventQueue::schedule_ranked`] events.
const RANKED: u64 = 1 << 63;

/// Buckets in the ring (a power of two, a multiple of 64 for the bitmap): two epochs' worth.
const BUCKETS: usize = 2 * EPOCH_BUCKETS;
/// Buckets in an epoch: the ring covers the rest of its epoch and the next one.
const EPOCH_BUCKETS: usize = 1024;
/// Default bucket width: 2^25 ps ≈ 33.6 µs, so an epoch spans ≈ 34 ms (measured on dumbbell-20:
/// 1024 to 4096 buckets perform alike; fewer, wider buckets touch less memory).
const DEFAULT_SHIFT: u32 = 25;

/// Pops between two looks at whether the bucket width fits the events.
const RESIZE_EVERY_POPS: u32 = 4096;
/// Mean events in the bucket a pop takes from above which buckets are halved.
const CROWDED_BUCKET: u64 = 4;
/// Epochs beyond the ring's two that keep their events in lists (a power of two, a multiple
/// of 64): with epochs of 1024 buckets of about 2 µs, 256 epochs reach half a second ahead,
/// past an ABR source's idle wake-up and a delayed ACK.
const EPOCHS: usize = 256;

/// The narrowest and widest buckets the queue adapts to: 256 ps and about 1.1 s.
const SHIFT_RANGE: std::ops::RangeInclusive<u32> = 8..=40;

/// A bucket holding more events than this turns into a binary heap until it empties: events at
/// one instant (10 000 flows starting together, or timing out together) share a bucket of any
/// width, and scanning it for the earliest at every pop would be quadratic.
const HEAP_FROM_EVENTS: usize = 64;

/// The events of one bucket: a list scanned for the earliest (the common bucket of one or two
/// events), or a heap (a crowded one).
enum Bucket<E> {
    Scan(Vec<Reverse<Entry<E>>>),
    Heap(BinaryHeap<Reverse<Entry<E>>>),
}

impl<E> Bucket<E> {
    #[inline]
    fn push(&mut self, entry: Entry<E>) {
        match self {
            Bucket::Scan(events) => {
                events.push(Reverse(entry));
                if events.len() > HEAP_FROM_EVENTS {
                    *self = Bucket::Heap(BinaryHeap::from(std::mem::take(events)));
                }
            }
            Bucket::Heap(heap) => heap.push(Reverse(entry)),
        }
    }

    /// The earliest event, and how many the bucket held. The bucket must not be empty.
    #[inline]
    fn pop(&mut self) -> (Entry<E>, usize) {
        match self {
            Bucket::Scan(events) => {
                let held = events.len();
                let mut earliest = 0;
                for i in 1..held {
                    if events[i].0.key < events[earliest].0.key {
                        earliest = i;
                    }
                }
                (events.swap_remove(earliest).0, held)
            }
            Bucket::Heap(heap) => {
                let held = heap.len();
                let Reverse(entry) = heap.pop().expect("an occupied bucket");
                if heap.is_empty() {
                    *self = Bucket::Scan(std::mem::take(heap).into_vec());
                }
                (entry, held)
            }
        }
    }

    /// The time of the earliest event when the bucket is a heap (a list would need a scan).
    #[inline]
    fn next_time(&self) -> Option<SimTime> {
        match self {
            Bucket::Scan(_) => None,
            Bucket::Heap(heap) => heap.peek().map(|Reverse(next)| key_time(next.key)),
        }
    }

    /// The time of the earliest event. The bucket must not be empty.
    #[inline]
    fn earliest_time(&self) -> SimTime {
        let earliest = match self {
            Bucket::Scan(events) => events.iter().map(|e| key_time(e.0.key)).min(),
            Bucket::Heap(_) => self.next_time(),
        };
        earliest.expect("an occupied bucket")
    }

    fn is_empty(&self) -> bool {
        match self {
            Bucket::Scan(events) => events.is_empty(),
            Bucket::Heap(heap) => heap.is_empty(),
        }
    }

    /// Empties the bucket, returning its events in no order.
    fn take_events(&mut self) -> Vec<Reverse<Entry<E>>> {
        match std::mem::replace(self, Bucket::Scan(Vec::new())) {
            Bucket::Scan(events) => events,
            Bucket::Heap(heap) => heap.into_vec(),
        }
    }
}

/// A queued event, ordered by its key alone.
struct Entry<E> {
    key: Key,
    event: E,
}
impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// Deterministic future-event list.
pub struct EventQueue<E> {
    buckets: Vec<Bucket<E>>,
    /// Bit `b` is set when bucket `b` is not empty.
    occupied: [u64; BUCKETS / 64],
    /// Start time (ps) of the bucket the ring is at; every queued event is at or after it.
    window_start: u64,
    /// The end of the epoch after `window_start`'s (epochs are `EPOCH_BUCKETS << shift` ps,
    /// aligned): events at or after it wait in `later` or `far`.
    horizon: u64,
    /// The start of the epoch after `window_start`'s: the ring moves within its epoch below it.
    next_epoch: u64,
    shift: u32,
    /// The events of epoch `e`, for the [`EPOCHS`] epochs after the ring's two, in list
    /// `e % EPOCHS`, in no order.
    later: Vec<Vec<Entry<E>>>,
    /// Bit `i` is set when `later[i]` is not empty.
    later_occupied: [u64; EPOCHS / 64],
    far: BinaryHeap<Reverse<Entry<E>>>,
    /// Time (ps) of the earliest far event (`u64::MAX` when there is none).
    far_earliest: u64,
    len: usize,
    next_seq: u64,
    now: SimTime,
    popped: u64,
    /// Whether the width adapts (see the module's documentation).
    adaptive: bool,
    /// Since the last look at the width: pops (but those followed by an event at the same
    /// instant), the events in the buckets they popped from, and events scheduled beyond the
    /// horizon.
    pops_since_resize: u32,
    crowding: u64,
    far_placed: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    /// A queue whose bucket width starts at `2^DEFAULT_SHIFT` ps and adapts to the events.
    pub fn new() -> Self {
        Self {
            adaptive: true,
            ..Self::with_bucket_shift(DEFAULT_SHIFT)
        }
    }

    /// A queue whose buckets are `2^shift` ps wide, always. Any width is correct; the best is
    /// about the typical gap between events.
    pub fn with_bucket_shift(shift: u32) -> Self {
        assert!((1..48).contains(&shift), "bucket shift out of range");
        Self {
            buckets: (0..BUCKETS).map(|_| Bucket::Scan(Vec::new())).collect(),
            occupied: [0; BUCKETS / 64],
            window_start: 0,
            horizon: (BUCKETS as u64) << shift,
            next_epoch: (EPOCH_BUCKETS as u64) << shift,
            shift,
            later: (0..EPOCHS).map(|_| Vec::new()).collect(),
            later_occupied: [0; EPOCHS / 64],
            far: BinaryHeap::new(),
            far_earliest: u64::MAX,
            len: 0,
            next_seq: 0,
            now: SimTime::ZERO,
            popped: 0,
            adaptive: false,
            pops_since_resize: 0,
            crowding: 0,
            far_placed: 0,
        }
    }

    /// The width of a bucket, as a power of two of picoseconds.
    pub fn bucket_shift(&self) -> u32 {
        self.shift
    }

    /// Halves or doubles the buckets when the last pops found them crowded or the ring too
    /// short, then starts counting again.
    fn adapt_width(&mut self) {
        let pops = u64::from(self.pops_since_resize);
        let crowded = self.crowding > CROWDED_BUCKET * pops;
        let short = self.far_placed > pops / 2 && self.crowding < 2 * pops;
        let shift = match () {
            _ if crowded => self.shift - 1,
            _ if short => self.shift + 1,
            _ => self.shift,
        };
        if shift != self.shift && SHIFT_RANGE.contains(&shift) {
            self.rebucket(shift);
        }
        (self.pops_since_resize, self.crowding, self.far_placed) = (0, 0, 0);
    }

    /// Re-files every queued event into buckets of `2^shift` ps and their epochs.
    #[cold]
    fn rebucket(&mut self, shift: u32) {
        let mut events = Vec::with_capacity(self.len);
        for bucket in &mut self.buckets {
            events.extend(bucket.take_events().into_iter().map(|Reverse(e)| e));
        }
        for list in &mut self.later {
            events.append(list);
        }
        events.extend(
            std::mem::take(&mut self.far)
                .into_iter()
                .map(|Reverse(e)| e),
        );
        self.occupied = [0; BUCKETS / 64];
        self.later_occupied = [0; EPOCHS / 64];
        self.far_earliest = u64::MAX;
        self.shift = shift;
        // Every queued event is at or after `now`, so the ring may start at its bucket.
        self.window_start = self.now.as_ps() >> shift << shift;
        self.horizon = self.epoch_start(self.window_start, 2);
        self.next_epoch = self.epoch_start(self.window_start, 1);
        for Entry { key, event } in events {
            self.place(key, event);
        }
    }

    /// `log2` of an epoch's length in ps.
    fn epoch_shift(&self) -> u32 {
        self.shift + EPOCH_BUCKETS.trailing_zeros()
    }

    /// The start (ps) of the epoch `epochs` after the one that holds `time_ps`.
    fn epoch_start(&self, time_ps: u64, epochs: u64) -> u64 {
        ((time_ps >> self.epoch_shift()) + epochs).saturating_mul(1 << self.epoch_shift())
    }

    /// Time of the last event popped.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Moves the ring to the bucket that starts at `window_start` and, in a new epoch, brings
    /// in the events of the epochs it now covers.
    #[inline]
    fn set_window(&mut self, window_start: u64) {
        if window_start < self.next_epoch {
            self.window_start = window_start;
        } else {
            self.enter_epoch(window_start);
        }
    }

    /// `set_window` into a later epoch (at most once an epoch's length of simulated time).
    #[inline(never)]
    fn enter_epoch(&mut self, window_start: u64) {
        let shift = self.epoch_shift();
        let (old, epoch) = (self.window_start >> shift, window_start >> shift);
        self.window_start = window_start;
        // The ring covered `old` and `old + 1`; a jump skips only epochs without events.
        debug_assert!(
            self.later
                .iter()
                .flatten()
                .all(|e| (e.key >> 64) as u64 >> shift >= epoch),
            "the ring jumped over an epoch that held events"
        );
        self.horizon = self.epoch_start(window_start, 2);
        self.next_epoch = self.epoch_start(window_start, 1);
        for covered in (old + 2).max(epoch)..=epoch + 1 {
            let slot = covered as usize % EPOCHS;
            if self.later_occupied[slot / 64] & (1 << (slot % 64)) == 0 {
                continue;
            }
            self.later_occupied[slot / 64] &= !(1 << (slot % 64));
            for Entry { key, event } in std::mem::take(&mut self.later[slot]) {
                self.place(key, event);
            }
        }
        if self.far_earliest < self.later_end() {
            self.pull_far();
        }
    }

    /// The end (ps) of the last epoch whose events wait in `later`.
    fn later_end(&self) -> u64 {
        self.epoch_start(self.window_start, 2 + EPOCHS as u64)
    }

    fn bucket_of(&self, time_ps: u64) -> usize {
        ((time_ps >> self.shift) as usize) & (BUCKETS - 1)
    }

    fn place(&mut self, key: Key, event: E) {
        let time_ps = (key >> 64) as u64;
        if time_ps >= self.horizon {
            if time_ps < self.later_end() {
                let slot = (time_ps >> self.epoch_shift()) as usize % EPOCHS;
                self.later[slot].push(Entry { key, event });
                self.later_occupied[slot / 64] |= 1 << (slot % 64);
                return;
            }
            self.far_placed += 1;
            self.far_earliest = self.far_earliest.min(time_ps);
            self.far.push(Reverse(Entry { key, event }));
            return;
        }
        let b = self.bucket_of(time_ps);
        self.buckets[b].push(Entry { key, event });
        self.occupied[b / 64] |= 1 << (b % 64);
    }

    /// Schedules `event` at `time`, which must not be in the past.
    pub fn schedule(&mut self, time: SimTime, event: E) {
        let seq = self.admit(time);
        self.place(key(time, seq), event);
    }

    /// Counts in an event at `time` (never in the past) and returns its insertion sequence.
    fn admit(&mut self, time: SimTime) -> u64 {
        assert!(
            time >= self.now,
            "event scheduled in the past: {time} < {}",
            self.now
        );
        let seq = self.next_seq;
        self.next_seq += 1;
        self.len += 1;
        seq
    }

    /// Schedules `event` at `time` behind every event [`Self::schedule`] puts at the same
    /// instant, and among the events scheduled this way at that instant in the order of `rank`
    /// (a random draw gives simultaneous events a random order; equal ranks fall back to the
    /// order of scheduling).
    pub fn schedule_ranked(&mut self, time: SimTime, rank: u32, event: E) {
        let seq = self.admit(time);
        // Ranked keys set the top bit of the tie-break: above every plain insertion sequence.
        let tiebreak = RANKED | (u64::from(rank) << 31) | (seq & ((1 << 31) - 1));
        self.place(key(time, tiebreak), event);
    }

    /// The first non-empty bucket from the ring's position, cyclically.
    fn next_occupied(&self) -> Option<usize> {
        const WORDS: usize = BUCKETS / 64;
        let cursor = self.bucket_of(self.window_start);
        let (word, bit) = (cursor / 64, cursor % 64);
        let first = self.occupied[word] & (!0u64 << bit);
        if first != 0 {
            return Some(word * 64 + first.trailing_zeros() as usize);
        }
        for step in 1..=WORDS {
            let w = (word + step) % WORDS;
            // Back at the cursor's word: only the buckets before the cursor are left.
            let bits = if step == WORDS {
                self.occupied[w] & !(!0u64 << bit)
            } else {
                self.occupied[w]
            };
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
        }
        None
    }

    /// Moves far events that the advanced epochs now cover into their epoch's list (or the
    /// ring).
    fn pull_far(&mut self) {
        let end = self.later_end();
        while let Some(Reverse(far)) = self.far.peek() {
            if ((far.key >> 64) as u64) >= end {
                break;
            }
            let Reverse(Entry { key, event }) = self.far.pop().expect("peeked");
            self.place(key, event);
        }
        self.far_earliest = self
            .far
            .peek()
            .map_or(u64::MAX, |Reverse(far)| (far.key >> 64) as u64);
    }

    /// Removes and returns the earliest event, advancing `now`.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        if self.len == 0 {
            return None;
        }
        loop {
            if let Some(b) = self.next_occupied() {
                let cursor = self.bucket_of(self.window_start);
                let advance = (b + BUCKETS - cursor) % BUCKETS;
                if advance > 0 {
                    let aligned = self.window_start >> self.shift << self.shift;
                    self.set_window(aligned + ((advance as u64) << self.shift));
                }
                let bucket = &mut self.buckets[b];
                let (Entry { key, event }, crowding) = bucket.pop();
                // Events sharing an instant crowd a bucket of any width: not counted.
                let same_instant = bucket.next_time().is_some_and(|t| t == key_time(key));
                if bucket.is_empty() {
                    self.occupied[b / 64] &= !(1 << (b % 64));
                }
                self.len -= 1;
                self.popped += 1;
                self.now = key_time(key);
                if self.adaptive && !same_instant {
                    self.pops_since_resize += 1;
                    self.crowding += crowding as u64;
                    if self.pops_since_resize == RESIZE_EVERY_POPS {
                        self.adapt_width();
                    }
                }
                return Some((self.now, event));
            }
            // The ring is empty: jump to the earliest later event.
            let earliest = self.later_earliest().as_ps();
            debug_assert!(earliest != u64::MAX, "len > 0 and the ring is empty");
            self.set_window(earliest >> self.shift << self.shift);
        }
    }

    /// The time of the earliest pending event, without taking it (`None` when none is
    /// pending).
    pub fn peek_time(&self) -> Option<SimTime> {
        if self.len == 0 {
            return None;
        }
        // The ring holds everything before its horizon, the epochs' lists and the far heap
        // everything after.
        Some(match self.next_occupied() {
            Some(b) => self.buckets[b].earliest_time(),
            None => self.later_earliest(),
        })
    }

    /// The earliest event after the ring's two epochs: in the first epoch that has a list, or
    /// else in the heap (`u64::MAX` ps when there is none).
    fn later_earliest(&self) -> SimTime {
        const WORDS: usize = EPOCHS / 64;
        let first = (self.window_start >> self.epoch_shift()) as usize + 2;
        let slot = (0..=WORDS).find_map(|step| {
            // The cyclic order from `first`'s slot: its word from its bit, the other words,
            // then its word's bits before it.
            let cursor = first % EPOCHS;
            let (word, bit) = ((cursor / 64 + step) % WORDS, cursor % 64);
            let bits = match step {
                0 => self.later_occupied[word] & (!0u64 << bit),
                _ if step == WORDS => self.later_occupied[word] & !(!0u64 << bit),
                _ => self.later_occupied[word],
            };
            (bits != 0).then(|| word * 64 + bits.trailing_zeros() as usize)
        });
        let ps = match slot {
            Some(slot) => self.later[slot]
                .iter()
                .map(|e| (e.key >> 64) as u64)
                .min()
                .expect("an occupied epoch"),
            None => self.far_earliest,
        };
        SimTime::from_ps(ps)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
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
        // Narrow buckets (16 ps) and wide gaps exercise the ring's wrap-around, the far heap
        // and the jump over an empty ring.
        for (shift, spread) in [(4, 50), (4, 100_000), (23, 50), (10, 1 << 30)] {
            interleaved_against_reference(shift, spread);
        }
    }

    fn interleaved_against_reference(shift: u32, spread: u64) {
        let mut rng = crate::rng::StreamFactory::new(3, 0).stream("queue-test");
        let mut q = EventQueue::with_bucket_shift(shift);
        let mut reference = std::collections::BTreeSet::new();
        let mut seq = 0u64;
        let mut now = 0u64;
        for _ in 0..20_000 {
            if rng.below(3) < 2 {
                let t = now + rng.below(spread);
                q.schedule(SimTime::from_ps(t), seq);
                reference.insert((t, seq));
                seq += 1;
            } else {
                let earliest = reference.first().map(|&(t, _)| SimTime::from_ps(t));
                assert_eq!(q.peek_time(), earliest, "peeking");
                if let Some((t, e)) = q.pop() {
                    assert_eq!(Some((t.as_ps(), e)), reference.pop_first());
                    now = t.as_ps();
                }
            }
        }
        assert_eq!(q.len(), reference.len());
    }

    #[test]
    fn the_width_adapts_to_crowded_and_to_sparse_events_without_changing_the_order() {
        // Dense events (a few ps apart) crowd the default buckets: they narrow. Then sparse
        // ones (seconds apart) overflow the short ring and its epochs: they widen again. The order must stay
        // the reference's throughout.
        let mut rng = crate::rng::StreamFactory::new(5, 0).stream("adaptive-test");
        let mut q = EventQueue::new();
        let mut reference = std::collections::BTreeSet::new();
        let (mut seq, mut now) = (0u64, 0u64);
        let mut narrowest = q.bucket_shift();
        for (spread, rounds) in [(1u64 << 12, 200_000), (1 << 42, 200_000)] {
            for _ in 0..rounds {
                if q.len() < 1000 || rng.below(2) == 0 {
                    let t = now + rng.below(spread);
                    q.schedule(SimTime::from_ps(t), seq);
                    reference.insert((t, seq));
                    seq += 1;
                } else {
                    let (t, e) = q.pop().expect("not empty");
                    assert_eq!(Some((t.as_ps(), e)), reference.pop_first());
                    now = t.as_ps();
                }
                narrowest = narrowest.min(q.bucket_shift());
            }
        }
        assert!(
            narrowest < DEFAULT_SHIFT - 8,
            "narrowed to 2^{narrowest} ps"
        );
        // Widened until the epochs' lists reach about half of the 2^42 ps spread.
        let reach = ((EPOCHS * EPOCH_BUCKETS) as u64) << q.bucket_shift();
        assert!(
            reach >= 1 << 41 && q.bucket_shift() > narrowest + 8,
            "widened to 2^{} ps",
            q.bucket_shift()
        );
        while let Some((t, e)) = q.pop() {
            assert_eq!(Some((t.as_ps(), e)), reference.pop_first());
        }
    }

    #[test]
    fn a_crowd_at_one_instant_pops_in_insertion_order_while_more_join_it() {
        // A thousand events at one instant turn their bucket into a heap; events scheduled
        // while it drains (at that instant, just after it, and far later) keep the order.
        let mut q = EventQueue::new();
        let mut reference = std::collections::BTreeSet::new();
        let mut seq = 0u64;
        let mut add =
            |q: &mut EventQueue<u64>,
             t: u64,
             reference: &mut std::collections::BTreeSet<(u64, u64)>| {
                q.schedule(SimTime::from_ps(t), seq);
                reference.insert((t, seq));
                seq += 1;
            };
        for i in 0..1000 {
            add(&mut q, 1_000_000, &mut reference);
            add(&mut q, 1_000_000 + i % 7, &mut reference);
        }
        while let Some((t, e)) = q.pop() {
            assert_eq!(Some((t.as_ps(), e)), reference.pop_first());
            if e % 5 == 0 && e < 3000 {
                add(&mut q, t.as_ps(), &mut reference);
                add(&mut q, t.as_ps() + 3, &mut reference);
                add(&mut q, t.as_ps() + (1 << 40), &mut reference);
            }
        }
        assert!(reference.is_empty());
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

    #[test]
    fn ranked_events_follow_plain_ones_of_their_instant_in_rank_order() {
        let mut q = EventQueue::new();
        q.schedule_ranked(SimTime::from_ps(10), 7, "ranked 7");
        q.schedule_ranked(SimTime::from_ps(10), 2, "ranked 2");
        q.schedule(SimTime::from_ps(10), "plain");
        q.schedule_ranked(SimTime::from_ps(10), 2, "ranked 2 again");
        q.schedule_ranked(SimTime::from_ps(5), u32::MAX, "earlier");
        // Far beyond the ring: the heap orders ranked keys the same way.
        let far = SimTime::from_ps(1 << 50);
        q.schedule_ranked(far, 1, "far 1");
        q.schedule_ranked(far, 0, "far 0");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            [
                "earlier",
                "plain",
                "ranked 2",
                "ranked 2 again",
                "ranked 7",
                "far 0",
                "far 1"
            ]
        );
    }
}
