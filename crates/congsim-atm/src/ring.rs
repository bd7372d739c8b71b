//! A first-in first-out queue of small `Copy` items for the per-cell paths: a port's buffer and
//! its pipe, where every cell is pushed once at the back and popped once at the front.
//!
//! Unlike `VecDeque`, the capacity is a power of two, so a slot is found with a mask instead of
//! a wrap-around test, and the slots are plain values (unused ones hold copies of an item), so
//! nothing is `unsafe`.

/// A FIFO ring of `Copy` items whose capacity doubles when it is full.
#[derive(Clone, Debug)]
pub(crate) struct Ring<T> {
    /// `slots.len()` is zero or a power of two.
    slots: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            head: 0,
            len: 0,
        }
    }
}

impl<T: Copy> Ring<T> {
    const FIRST_CAPACITY: usize = 16;

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len().wrapping_sub(1)
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub(crate) fn push_back(&mut self, item: T) {
        if self.len == self.slots.len() {
            self.grow(item);
        }
        let slot = (self.head + self.len) & self.mask();
        self.slots[slot] = item;
        self.len += 1;
    }

    #[inline]
    pub(crate) fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.slots[self.head])
    }

    #[inline]
    pub(crate) fn back(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.slots[(self.head + self.len - 1) & self.mask()])
    }

    #[inline]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let item = self.slots[self.head];
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(item)
    }

    /// The items from front to back.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        let mask = self.mask();
        (0..self.len).map(move |k| &self.slots[(self.head + k) & mask])
    }

    /// How many items from the front satisfy `pred`, which holds for a prefix of the ring
    /// (binary search, as `slice::partition_point`).
    pub(crate) fn partition_point(&self, pred: impl Fn(&T) -> bool) -> usize {
        let (mut low, mut high) = (0, self.len);
        while low < high {
            let mid = low + (high - low) / 2;
            if pred(&self.slots[(self.head + mid) & self.mask()]) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }

    /// Doubles the capacity of a full ring (`item` fills the new slots until they are used).
    #[cold]
    fn grow(&mut self, item: T) {
        let capacity = (2 * self.slots.len()).max(Self::FIRST_CAPACITY);
        let mut slots = Vec::with_capacity(capacity);
        slots.extend(self.iter().copied());
        slots.resize(capacity, item);
        self.slots = slots;
        self.head = 0;
    }
}

impl<T: Copy + PartialEq> PartialEq for Ring<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn it_behaves_as_a_deque_through_wrap_arounds_and_growth() {
        let mut rng = congsim_core::rng::StreamFactory::new(7, 0).stream("ring");
        let (mut ring, mut deque) = (Ring::default(), VecDeque::new());
        let mut next = 0u64;
        for _ in 0..20_000 {
            // Pushes win slightly, so the ring both wraps around and grows.
            if rng.below(100) < 52 {
                ring.push_back(next);
                deque.push_back(next);
                next += 1;
            } else {
                assert_eq!(ring.pop_front(), deque.pop_front());
            }
            assert_eq!(ring.len(), deque.len());
            assert_eq!(ring.is_empty(), deque.is_empty());
            assert_eq!(ring.front(), deque.front());
            assert_eq!(ring.back(), deque.back());
            let cut = next.saturating_sub(rng.below(40));
            assert_eq!(
                ring.partition_point(|&x| x < cut),
                deque.partition_point(|&x| x < cut)
            );
        }
        assert!(ring.iter().eq(deque.iter()));
        assert!(ring.len() > 100, "the ring grew: {}", ring.len());
    }
}
