//! The SACK scoreboard (spec §4.4): what the receiver has selectively acknowledged and what
//! this recovery has retransmitted, per outstanding segment.
//!
//! Entries run from the first unacknowledged segment up to the highest segment a SACK block
//! has covered (ns-2 `ScoreBoard`); RFC 6675 extends them to everything sent with
//! [`Scoreboard::extend_to`].

use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Entry {
    sacked: bool,
    retransmitted: bool,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Scoreboard {
    /// Segment of `entries[0]`.
    first: u64,
    entries: VecDeque<Entry>,
    /// SACKed entries on the board, and one past the highest (`None` with none): kept as the
    /// board changes, so that the counts a recovery asks for on every ACK need not walk a
    /// window of entries.
    sacked: u64,
    sacked_end: Option<u64>,
}

impl Scoreboard {
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.sacked = 0;
        self.sacked_end = None;
    }

    /// One past the last segment on the board.
    pub(crate) fn end(&self) -> u64 {
        self.first + self.entries.len() as u64
    }

    fn entry(&self, seg: u64) -> Option<&Entry> {
        let i = seg.checked_sub(self.first)?;
        self.entries.get(usize::try_from(i).ok()?)
    }

    /// The index of on-board segment `seg` in `entries`.
    fn index(&self, seg: u64) -> usize {
        (seg - self.first) as usize
    }

    fn entry_mut(&mut self, seg: u64) -> Option<&mut Entry> {
        let i = seg.checked_sub(self.first)?;
        self.entries.get_mut(usize::try_from(i).ok()?)
    }

    /// Applies a cumulative ACK (`snd_una`, the first unacknowledged segment) and SACK blocks.
    /// Returns `true` if anything changed (ns-2 `CheckUpdate()`): the left edge moved, entries
    /// were created, or a segment became SACKed.
    pub(crate) fn update(
        &mut self,
        snd_una: u64,
        blocks: impl Iterator<Item = (u64, u64)> + Clone,
    ) -> bool {
        let mut changed = false;
        while !self.entries.is_empty() && self.first < snd_una {
            let popped = self.entries.pop_front().expect("not empty");
            self.sacked -= u64::from(popped.sacked);
            self.first += 1;
            changed = true;
        }
        if self.sacked == 0 {
            self.sacked_end = None;
        }
        if self.entries.is_empty() {
            self.first = snd_una;
            if blocks.clone().next().is_some() {
                // ns-2 creates the board with one entry for the first hole, which counts as new
                // information even if every block is stale.
                self.entries.push_back(Entry::default());
                changed = true;
            }
        }
        for (left, right) in blocks {
            while self.end() < right {
                self.entries.push_back(Entry::default());
                changed = true;
            }
            let from = left.max(self.first);
            if from >= right {
                continue;
            }
            let (i, j) = (self.index(from), self.index(right));
            let mut newly = 0;
            for e in self.entries.range_mut(i..j).filter(|e| !e.sacked) {
                e.sacked = true;
                newly += 1;
            }
            if newly > 0 {
                self.sacked += newly;
                self.sacked_end = self.sacked_end.max(Some(right));
                changed = true;
            }
        }
        changed
    }

    /// Adds unSACKed entries up to (not including) `end`, so the board covers every segment sent.
    pub(crate) fn extend_to(&mut self, snd_una: u64, end: u64) {
        if self.entries.is_empty() {
            self.first = snd_una;
        }
        while self.end() < end {
            self.entries.push_back(Entry::default());
        }
    }

    /// ns-2 `GetNextRetran()`: the lowest segment neither SACKed nor retransmitted.
    pub(crate) fn next_unsacked_unretransmitted(&self) -> Option<u64> {
        self.entries
            .iter()
            .position(|e| !e.sacked && !e.retransmitted)
            .map(|i| self.first + i as u64)
    }

    pub(crate) fn mark_retransmitted(&mut self, seg: u64) {
        if let Some(e) = self.entry_mut(seg) {
            e.retransmitted = true;
        }
    }

    pub(crate) fn is_sacked(&self, seg: u64) -> bool {
        self.entry(seg).is_some_and(|e| e.sacked)
    }

    /// One past the highest SACKed segment (`None` with nothing SACKed).
    pub(crate) fn sacked_end(&self) -> Option<u64> {
        self.sacked_end
    }

    /// SACKed segments in `[from, to)`: counted over the range or over the rest of the SACKed
    /// stretch `[first, sacked_end)`, whichever is shorter (none when the range holds it all).
    pub(crate) fn sacked_between(&self, from: u64, to: u64) -> u64 {
        let Some(sacked_end) = self.sacked_end else {
            return 0;
        };
        let (from, to) = (from.max(self.first), to.min(sacked_end));
        if from >= to {
            return 0;
        }
        let count = |range: std::ops::Range<u64>| {
            let on_board = self
                .entries
                .range(self.index(range.start)..self.index(range.end));
            on_board.filter(|e| e.sacked).count()
        };
        let outside = (from - self.first) + (sacked_end - to);
        if outside < to - from {
            self.sacked - (count(self.first..from) + count(to..sacked_end)) as u64
        } else {
            count(from..to) as u64
        }
    }

    /// The `n`-th highest SACKed segment (`n` ≥ 1), `None` with fewer than `n` SACKed: every
    /// unSACKed segment below it has at least `n` SACKed above (RFC 6675 `IsLost` with
    /// `n = DupThresh`), and none above it has. Found from the highest SACK down.
    pub(crate) fn nth_highest_sacked(&self, n: u32) -> Option<u64> {
        debug_assert!(n >= 1);
        if self.sacked < u64::from(n) {
            return None;
        }
        let below_end = self.entries.range(..self.index(self.sacked_end?));
        let (i, _) = (below_end.enumerate().rev())
            .filter(|(_, e)| e.sacked)
            .nth(n as usize - 1)
            .expect("the board holds n SACKed segments");
        Some(self.first + i as u64)
    }

    /// The first segment on the board.
    pub(crate) fn first(&self) -> u64 {
        self.first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ns2_update_semantics() {
        let mut sb = Scoreboard::default();
        assert!(!sb.update(10, std::iter::empty()), "no blocks, no board");
        assert!(sb.update(10, [(12, 14)].into_iter()));
        // 10, 11 holes, 12, 13 SACKed.
        assert_eq!(sb.next_unsacked_unretransmitted(), Some(10));
        assert_eq!(sb.sacked_end(), Some(14));
        assert!(!sb.update(10, [(12, 14)].into_iter()), "same information");
        sb.mark_retransmitted(10);
        assert_eq!(sb.next_unsacked_unretransmitted(), Some(11));
        assert!(sb.update(10, [(15, 16), (12, 14)].into_iter()));
        assert_eq!(sb.next_unsacked_unretransmitted(), Some(11));
        // A cumulative ACK past the retransmission moves the board's left edge.
        assert!(sb.update(12, [(15, 16)].into_iter()));
        assert_eq!(sb.first(), 12);
        assert_eq!(sb.next_unsacked_unretransmitted(), Some(14));
        // 12 and 13 SACKed, 14 a hole, 15 SACKed.
        assert_eq!(sb.sacked_end(), Some(16));
        assert_eq!(sb.sacked_between(0, 100), 3);
        assert_eq!(sb.sacked_between(13, 15), 1);
        assert_eq!(sb.nth_highest_sacked(1), Some(15));
        assert_eq!(sb.nth_highest_sacked(3), Some(12));
        assert_eq!(sb.nth_highest_sacked(4), None);
        assert!(sb.update(16, std::iter::empty()));
        assert_eq!((sb.sacked_end(), sb.sacked_between(0, 100)), (None, 0));
    }

    /// An ACK: how far `snd_una` moves, its SACK blocks (offset from `snd_una`, length - 1),
    /// and a range to count (offsets from `snd_una`).
    type Ack = (u64, Vec<(u64, u64)>, (u64, u64));

    fn acks() -> impl Strategy<Value = Vec<Ack>> {
        let blocks = proptest::collection::vec((0u64..40, 0u64..6), 0..4);
        proptest::collection::vec((0u64..3, blocks, (0u64..30, 0u64..60)), 1..200)
    }

    proptest! {
        /// The kept counts against the board's entries counted afresh, over random ACKs.
        #[test]
        fn kept_counts_match_the_entries(acks in acks()) {
            let mut sb = Scoreboard::default();
            let mut snd_una = 0;
            for (advance, blocks, (from, to)) in acks {
                snd_una += advance;
                let blocks = blocks.iter().map(|&(at, len)| (snd_una + at, snd_una + at + 1 + len));
                sb.update(snd_una, blocks.collect::<Vec<_>>().into_iter());
                let sacked: Vec<u64> = (sb.first..sb.end()).filter(|&s| sb.is_sacked(s)).collect();
                prop_assert_eq!(sb.sacked_between(0, u64::MAX), sacked.len() as u64);
                prop_assert_eq!(sb.sacked_end(), sacked.last().map(|s| s + 1));
                for n in 1..5u32 {
                    let nth = sacked.len().checked_sub(n as usize).map(|i| sacked[i]);
                    prop_assert_eq!(sb.nth_highest_sacked(n), nth);
                }
                let (from, to) = (snd_una + from, snd_una + to);
                let counted = sacked.iter().filter(|&&s| from <= s && s < to).count() as u64;
                prop_assert_eq!(sb.sacked_between(from, to), counted);
            }
        }
    }
}
