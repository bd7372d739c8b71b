//! AAL5 segmentation and reassembly (spec `atm.md` §2).
//!
//! A datagram of `L` bytes becomes one CPCS-PDU: 8 bytes of LLC/SNAP, the datagram, padding to a
//! multiple of 48 and the 8-byte trailer, carried in `ceil((L + 16) / 48)` cells of 53 bytes; the
//! last cell is marked end-of-message (EOM). Payload is never materialised: a cell says which
//! frame of its VC it belongs to and where, and the frame's datagram waits at the segmenter until
//! the reassembler asks for it.

use std::collections::VecDeque;

/// Bytes of one cell on the wire: 5 header + 48 payload.
pub const CELL_BYTES: u32 = 53;
const CELL_PAYLOAD_BYTES: u32 = 48;
/// LLC/SNAP encapsulation (8) and the AAL5 trailer (8).
const AAL5_OVERHEAD_BYTES: u32 = 16;

/// Cells carrying a datagram of `datagram_bytes` (552 → 12, 40 → 2).
pub fn cells_for(datagram_bytes: u32) -> u32 {
    (datagram_bytes + AAL5_OVERHEAD_BYTES).div_ceil(CELL_PAYLOAD_BYTES)
}

/// One user cell: which frame of its VC it carries and where in it. Simulation-only fields
/// stand in for the payload, length and CRC a real receiver would check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub vc: u32,
    /// The frame's sequence number on its VC.
    pub frame: u32,
    /// Position in the frame, from 0.
    pub index: u16,
    /// Last cell of the frame (PTI's AUU bit).
    pub eom: bool,
}

/// A VC's frames between segmentation and reassembly, oldest first, with their datagrams.
#[derive(Debug)]
pub struct Segmenter<T> {
    next_frame: u32,
    in_flight: VecDeque<(u32, T)>,
}

impl<T> Default for Segmenter<T> {
    fn default() -> Self {
        Self {
            next_frame: 0,
            in_flight: VecDeque::new(),
        }
    }
}

impl<T> Segmenter<T> {
    /// Takes a datagram of `datagram_bytes` as a new frame; returns its cells in order.
    pub fn segment(
        &mut self,
        vc: u32,
        datagram_bytes: u32,
        datagram: T,
    ) -> impl Iterator<Item = Cell> + use<T> {
        let frame = self.next_frame;
        self.next_frame = self.next_frame.wrapping_add(1);
        self.in_flight.push_back((frame, datagram));
        let n = cells_for(datagram_bytes);
        (0..n).map(move |i| Cell {
            vc,
            frame,
            index: i as u16,
            eom: i + 1 == n,
        })
    }

    /// The datagram of `frame`, reassembled intact; older frames still waiting were lost.
    pub fn take(&mut self, frame: u32) -> Option<T> {
        while let Some((f, _)) = self.in_flight.front() {
            if *f == frame {
                return self.in_flight.pop_front().map(|(_, d)| d);
            }
            self.in_flight.pop_front();
        }
        None
    }
}

/// What the reassembler made of an EOM cell.
#[derive(Debug, PartialEq, Eq)]
pub enum Reassembled {
    /// Every cell of the frame arrived, in order and alone.
    Frame(u32),
    /// The accumulated cells were not one whole frame (a cell lost, or an EOM lost so that two
    /// frames merged): the CPCS-PDU fails its length/CRC check and nothing is delivered.
    Corrupted,
}

/// Per-VC reassembly at the destination (spec `atm.md` §2.3).
#[derive(Debug, Default)]
pub struct Reassembler {
    /// Frame and next index expected of the accumulation, `None` when empty.
    accumulating: Option<(u32, u16)>,
    /// The accumulation is not one contiguous run of one frame from index 0.
    broken: bool,
}

impl Reassembler {
    /// Takes the next cell of the VC; at an EOM, says what the accumulation amounted to.
    pub fn push(&mut self, cell: &Cell) -> Option<Reassembled> {
        match self.accumulating {
            None => {
                self.broken = cell.index != 0;
            }
            Some((frame, next)) => {
                self.broken |= cell.frame != frame || cell.index != next;
            }
        }
        if !cell.eom {
            self.accumulating = Some((cell.frame, cell.index + 1));
            return None;
        }
        let whole = !self.broken && self.accumulating.is_none_or(|(f, _)| f == cell.frame);
        self.accumulating = None;
        self.broken = false;
        Some(if whole {
            Reassembled::Frame(cell.frame)
        } else {
            Reassembled::Corrupted
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_counts_follow_the_aal5_layout() {
        // spec atm.md 2.2: MSS 512 (552-byte datagram) → 12 cells; a 40-byte ACK → 2; 1500 → 32.
        assert_eq!(cells_for(552), 12);
        assert_eq!(cells_for(40), 2);
        assert_eq!(cells_for(1500), 32);
        // 32 + 16 = 48 fits one cell exactly; one byte more needs a second.
        assert_eq!(cells_for(32), 1);
        assert_eq!(cells_for(33), 2);
    }

    fn frames(lost: &[(u32, u16)]) -> (Vec<Reassembled>, Segmenter<&'static str>) {
        let mut seg = Segmenter::default();
        let mut cells: Vec<Cell> = Vec::new();
        for name in ["a", "b", "c"] {
            cells.extend(seg.segment(7, 552, name));
        }
        let mut r = Reassembler::default();
        let out = cells
            .iter()
            .filter(|c| !lost.contains(&(c.frame, c.index)))
            .filter_map(|c| r.push(c))
            .collect();
        (out, seg)
    }

    #[test]
    fn intact_frames_are_delivered_with_their_datagrams() {
        let (out, mut seg) = frames(&[]);
        assert_eq!(
            out,
            [
                Reassembled::Frame(0),
                Reassembled::Frame(1),
                Reassembled::Frame(2)
            ]
        );
        assert_eq!(seg.take(0), Some("a"));
        assert_eq!(seg.take(2), Some("c"), "frame 1 is discarded on the way");
        assert_eq!(seg.take(1), None);
    }

    #[test]
    fn a_lost_middle_cell_loses_exactly_one_datagram() {
        let (out, _) = frames(&[(1, 5)]);
        assert_eq!(
            out,
            [
                Reassembled::Frame(0),
                Reassembled::Corrupted,
                Reassembled::Frame(2)
            ]
        );
        // Losing the first cell is caught too.
        let (out, _) = frames(&[(1, 0)]);
        assert_eq!(out[1], Reassembled::Corrupted);
    }

    #[test]
    fn a_lost_eom_merges_two_frames_and_loses_both() {
        let (out, _) = frames(&[(0, 11)]);
        assert_eq!(out, [Reassembled::Corrupted, Reassembled::Frame(2)]);
    }

    #[test]
    fn a_wholly_dropped_frame_leaves_no_trace() {
        let lost: Vec<(u32, u16)> = (0..12).map(|i| (1, i)).collect();
        let (out, mut seg) = frames(&lost);
        assert_eq!(out, [Reassembled::Frame(0), Reassembled::Frame(2)]);
        assert_eq!(seg.take(0), Some("a"));
        assert_eq!(seg.take(2), Some("c"));
    }
}
