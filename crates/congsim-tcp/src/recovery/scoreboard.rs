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
}

impl Scoreboard {
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }

    /// One past the last segment on the board.
    fn end(&self) -> u64 {
        self.first + self.entries.len() as u64
    }

    fn entry(&self, seg: u64) -> Option<&Entry> {
        let i = seg.checked_sub(self.first)?;
        self.entries.get(usize::try_from(i).ok()?)
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
            self.entries.pop_front();
            self.first += 1;
            changed = true;
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
            for seg in left.max(self.first)..right {
                let e = self.entry_mut(seg).expect("created above");
                if !e.sacked {
                    e.sacked = true;
                    changed = true;
                }
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
        self.entries
            .iter()
            .rposition(|e| e.sacked)
            .map(|i| self.first + i as u64 + 1)
    }

    /// SACKed segments above `seg`, for every segment on the board at once (index 0 is
    /// `first`): the counts `IsLost` compares with the duplicate-ACK threshold.
    pub(crate) fn sacked_above(&self) -> Vec<u32> {
        let mut above = vec![0u32; self.entries.len()];
        let mut count = 0;
        for (i, e) in self.entries.iter().enumerate().rev() {
            above[i] = count;
            count += u32::from(e.sacked);
        }
        above
    }

    /// SACKed segments in `[from, to)`.
    pub(crate) fn sacked_between(&self, from: u64, to: u64) -> u64 {
        (from.max(self.first)..to.min(self.end()))
            .filter(|&seg| self.is_sacked(seg))
            .count() as u64
    }

    /// SACKed segments at or above `seg`.
    pub(crate) fn sacked_from(&self, seg: u64) -> u32 {
        let skip = seg.saturating_sub(self.first) as usize;
        self.entries.iter().skip(skip).filter(|e| e.sacked).count() as u32
    }

    /// The first segment on the board.
    pub(crate) fn first(&self) -> u64 {
        self.first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            sb.sacked_above(),
            [2, 1, 1, 0],
            "12 and 13 SACKed, 14 a hole, 15 SACKed"
        );
        assert_eq!(sb.sacked_from(14), 1);
    }
}
