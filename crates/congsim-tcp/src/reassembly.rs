//! The segments a receiver holds above a gap, kept as runs of consecutive segments: a SACK
//! block is the run around the segment that triggered the ACK (RFC 2018), found with one
//! lookup instead of a walk over the run, and the run after a filled gap is handed over whole.

use std::collections::BTreeMap;

/// Consecutive segments `[first, first + payloads.len())` held out of order, keyed by `first`.
#[derive(Clone, Debug, Default)]
pub(crate) struct OutOfOrder {
    runs: BTreeMap<u64, Vec<u32>>,
}

impl OutOfOrder {
    pub(crate) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The run holding `seg`, as `[left, right)`.
    pub(crate) fn run_of(&self, seg: u64) -> Option<(u64, u64)> {
        let (&first, payloads) = self.runs.range(..=seg).next_back()?;
        let end = first + payloads.len() as u64;
        (seg < end).then_some((first, end))
    }

    pub(crate) fn contains(&self, seg: u64) -> bool {
        self.run_of(seg).is_some()
    }

    /// Holds segment `seg` (not held yet) of `payload` bytes, joining the runs it touches.
    pub(crate) fn insert(&mut self, seg: u64, payload: u32) {
        debug_assert!(!self.contains(seg));
        let after = self.runs.remove(&(seg + 1));
        let before = (self.runs.range_mut(..seg).next_back())
            .filter(|(first, payloads)| **first + payloads.len() as u64 == seg);
        let run = match before {
            Some((_, payloads)) => payloads,
            None => self.runs.entry(seg).or_default(),
        };
        run.push(payload);
        run.extend(after.into_iter().flatten());
    }

    /// The payloads of the run that starts at `seg`, taken out (`None` if none starts there).
    pub(crate) fn take_run_at(&mut self, seg: u64) -> Option<Vec<u32>> {
        self.runs.remove(&seg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// Against a plain set of segments, over random arrivals (offsets above the gap) and
        /// gaps filled: runs are maximal, each segment keeps its payload, and a run is taken
        /// whole.
        #[test]
        fn runs_are_the_maximal_stretches_of_held_segments(
            steps in proptest::collection::vec((1u64..50, any::<bool>()), 1..300)
        ) {
            let mut held = OutOfOrder::default();
            let mut set = BTreeSet::new();
            let mut gap = 0;
            for (offset, fill) in steps {
                let seg = gap + offset;
                if !set.contains(&seg) {
                    held.insert(seg, (seg % 7) as u32);
                    set.insert(seg);
                }
                for probe in gap..gap + 60 {
                    let expected = set.contains(&probe).then(|| {
                        let mut left = probe;
                        while set.contains(&(left - 1)) {
                            left -= 1;
                        }
                        let mut right = probe + 1;
                        while set.contains(&right) {
                            right += 1;
                        }
                        (left, right)
                    });
                    prop_assert_eq!(held.run_of(probe), expected, "segment {}", probe);
                }
                if fill {
                    // The gap below the first run fills: the run comes out whole.
                    let first = *set.first().expect("held");
                    let payloads = held.take_run_at(first).expect("a run starts there");
                    for (k, payload) in payloads.iter().enumerate() {
                        let seg = first + k as u64;
                        prop_assert!(set.remove(&seg));
                        prop_assert_eq!(*payload, (seg % 7) as u32);
                    }
                    prop_assert!(!set.contains(&(first + payloads.len() as u64)));
                    gap = first + payloads.len() as u64;
                }
            }
            prop_assert_eq!(held.is_empty(), set.is_empty());
        }
    }
}
