//! UBR and UBR+ drop policies (spec `atm.md` §4): what an output port decides at the first cell
//! of each frame, from the buffer occupancy `X` (cells, the one in transmission included), the
//! capacity `K`, the arriving VC's own occupancy `x_i` and the number of active VCs `N_a`.

/// A port's frame-level policy. Thresholds are fractions of the capacity `K` (`R = r·K`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UbrPolicy {
    /// Plain cell tail drop: every frame is accepted, cells are dropped only when the buffer
    /// is full (vanilla UBR).
    TailDrop,
    /// Early Packet Discard: a new frame is discarded whole when `X > R`.
    Epd { threshold: f64 },
    /// Selective Drop: a new frame is discarded when `X > R` and its VC holds more than `Z`
    /// times its fair share: `x_i · N_a / X > Z`.
    SelectiveDrop { threshold: f64, z: f64 },
    /// Fair Buffer Allocation: as Selective Drop with a cut-off that tightens as the buffer
    /// fills: `x_i · N_a / X > Z · (K − R) / (X − R)`.
    Fba { threshold: f64, z: f64 },
}

/// The buffer as a new frame of VC `i` finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    /// Cells in the buffer, `X`.
    pub total: u64,
    /// The capacity `K`.
    pub capacity: u64,
    /// Cells of the arriving VC, `x_i`.
    pub vc: u64,
    /// VCs with cells in the buffer, `N_a`.
    pub active_vcs: u64,
}

impl UbrPolicy {
    /// `true` if the frame starting now is to be discarded whole.
    pub fn discards_new_frame(&self, o: Occupancy) -> bool {
        let x = o.total as f64;
        let over = |threshold: f64| x > threshold * o.capacity as f64;
        // x_i · N_a / X, the VC's load ratio; 0 for an empty VC (or buffer).
        let load_ratio = || {
            if o.vc == 0 {
                0.0
            } else {
                o.vc as f64 * o.active_vcs as f64 / x
            }
        };
        match *self {
            Self::TailDrop => false,
            Self::Epd { threshold } => over(threshold),
            Self::SelectiveDrop { threshold, z } => over(threshold) && load_ratio() > z,
            Self::Fba { threshold, z } => {
                let r = threshold * o.capacity as f64;
                over(threshold) && load_ratio() > z * (o.capacity as f64 - r) / (x - r)
            }
        }
    }

    /// The default for partial packet discard after an overflow: off for plain UBR (seed 000's
    /// vanilla UBR carries the rest of a damaged frame), on for the frame-aware policies.
    /// Whether [`Self::discards_new_frame`] reads [`Occupancy::vc`] and
    /// [`Occupancy::active_vcs`] (else they may be left at zero).
    pub fn reads_vc_occupancy(&self) -> bool {
        matches!(self, Self::SelectiveDrop { .. } | Self::Fba { .. })
    }

    /// One policy of each kind, with threshold `R / K` and `Z` where they take them (tests).
    #[cfg(test)]
    pub(crate) fn every_kind(threshold: f64, z: f64) -> [Self; 4] {
        [
            Self::TailDrop,
            Self::Epd { threshold },
            Self::SelectiveDrop { threshold, z },
            Self::Fba { threshold, z },
        ]
    }

    pub fn default_ppd_after_overflow(&self) -> bool {
        !matches!(self, Self::TailDrop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(total: u64, vc: u64, active_vcs: u64) -> Occupancy {
        Occupancy {
            total,
            capacity: 1000,
            vc,
            active_vcs,
        }
    }

    #[test]
    fn a_policy_that_does_not_read_per_vc_occupancy_ignores_it() {
        for policy in UbrPolicy::every_kind(0.5, 0.8) {
            let mut reads = false;
            for total in (0..=1000).step_by(50) {
                let blind = policy.discards_new_frame(at(total, 0, 0));
                for (vc, active) in [(total, 1), (total / 4, 4), (1, 9)] {
                    reads |= policy.discards_new_frame(at(total, vc, active)) != blind;
                }
            }
            assert_eq!(reads, policy.reads_vc_occupancy(), "{policy:?}");
        }
    }

    #[test]
    fn tail_drop_accepts_every_frame() {
        assert!(!UbrPolicy::TailDrop.discards_new_frame(at(1000, 1000, 1)));
    }

    #[test]
    fn epd_discards_new_frames_above_the_threshold_only() {
        let epd = UbrPolicy::Epd { threshold: 0.9 };
        assert!(
            !epd.discards_new_frame(at(900, 0, 5)),
            "X = R is not above R"
        );
        assert!(
            epd.discards_new_frame(at(901, 0, 5)),
            "even a VC with nothing queued"
        );
    }

    #[test]
    fn selective_drop_spares_vcs_below_their_share() {
        let sd = UbrPolicy::SelectiveDrop {
            threshold: 0.9,
            z: 0.8,
        };
        // 950 cells over 5 VCs: fair share 190. 150 cells → ratio 0.789 ≤ 0.8: accepted;
        // 153 → 0.805: discarded.
        assert!(!sd.discards_new_frame(at(950, 150, 5)));
        assert!(sd.discards_new_frame(at(950, 153, 5)));
        // Below R nobody is discarded, however greedy.
        assert!(!sd.discards_new_frame(at(900, 900, 1)));
        assert!(!sd.discards_new_frame(at(950, 0, 5)));
    }

    #[test]
    fn fba_tightens_its_cut_off_as_the_buffer_fills() {
        let fba = UbrPolicy::Fba {
            threshold: 0.9,
            z: 0.8,
        };
        // At X = 950 the cut-off is 0.8 · 100 / 50 = 1.6: ratio 1.5 (285 of 950 over 5 VCs)
        // passes, 1.63 (310) does not.
        assert!(!fba.discards_new_frame(at(950, 285, 5)));
        assert!(fba.discards_new_frame(at(950, 310, 5)));
        // At X = K the cut-off is Z itself: ratio 0.85 is now too much.
        assert!(fba.discards_new_frame(at(1000, 170, 5)));
        assert!(!fba.discards_new_frame(at(1000, 160, 5)));
    }
}
