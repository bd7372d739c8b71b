//! ABR end systems (ATM Forum TM 4.0; spec `atm.md` §5.1, §5.3, §5.4).
//!
//! A source sends *in-rate* cells no closer than `1/ACR`: a forward RM cell (FRM) every `Nrm`
//! cells (or after `Trm` with at least `Mrm` cells sent), turned-around backward RM cells (BRM)
//! of the reverse connection, and data. Backward RM cells of its own connection set ACR:
//! down by `RDF` on CI, up by `RIF·PCR` otherwise (unless NI), never above ER. Rates are cells/s.

use crate::aal5::{Cell, FrameCells, RmCell};
use congsim_core::time::{PS_PER_S, SimDuration, SimTime};
use std::collections::VecDeque;

/// A source's TM 4.0 parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct AbrParams {
    /// Peak cell rate.
    pub pcr: f64,
    /// Minimum cell rate.
    pub mcr: f64,
    /// Initial cell rate (and the rate after an idle of `adtf`).
    pub icr: f64,
    /// Rate of out-of-rate forward RM cells while ACR is below it.
    pub tcr: f64,
    /// Cells per forward RM cell.
    pub nrm: u32,
    /// Fewest cells between forward RM cells before `trm` may force one.
    pub mrm: u32,
    pub trm: SimDuration,
    /// Rate increase factor: a step is `rif · PCR`.
    pub rif: f64,
    /// Rate decrease factor on CI.
    pub rdf: f64,
    /// ACR falls back to ICR after this long without a forward RM cell (use it or lose it).
    pub adtf: SimDuration,
    /// Forward RM cells allowed without a backward one before ACR is cut by `cdf`.
    pub crm: u32,
    pub cdf: f64,
}

impl AbrParams {
    /// Seed 001's source (spec `atm.md` §5.1): ICR 10 Mb/s, RIF 1, RDF 1/512, TBE 512 (CRM 16),
    /// CDF 1/2, Nrm 32, Trm 100 ms, ADTF 0.5 s, MCR 0, TCR 10 c/s, at peak rate `pcr`.
    pub fn seed001(pcr: f64) -> Self {
        Self {
            pcr,
            mcr: 0.0,
            icr: 10e6 / 424.0,
            tcr: 10.0,
            nrm: 32,
            mrm: 2,
            trm: SimDuration::from_millis(100),
            rif: 1.0,
            rdf: 1.0 / 512.0,
            adtf: SimDuration::from_millis(500),
            crm: 16,
            cdf: 0.5,
        }
    }
}

/// Counters of one source.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AbrStats {
    /// Datagrams the UNI buffer had no room for.
    pub uni_drops: u64,
    pub data_cells_sent: u64,
    pub frm_sent: u64,
    pub out_of_rate_frm_sent: u64,
    pub brm_turned_around: u64,
    pub brm_received: u64,
    /// ACR when the run ended (cells/s), and its extremes.
    pub acr: f64,
    pub acr_min: f64,
    pub acr_max: f64,
}

/// What a source sends at an opportunity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Emitted {
    Data(Cell),
    Rm(RmCell),
}

#[derive(Debug)]
pub struct AbrSource {
    params: AbrParams,
    vc: u32,
    /// Always has data (a greedy source, for switch tests) instead of a queue of frames.
    greedy: bool,
    acr: f64,
    /// `spacing(acr)`, kept with it (a division and a rounding per cell otherwise).
    acr_gap: Option<SimDuration>,
    /// Earliest next in-rate cell.
    t_next: SimTime,
    t_last_in_rate: Option<SimTime>,
    /// In-rate cells since the last forward RM cell.
    since_frm: u32,
    t_last_frm: Option<SimTime>,
    t_last_out_of_rate: Option<SimTime>,
    /// Forward RM cells since the last backward RM cell with BN = 0 (rule 6).
    unacked_frm: u32,
    brm_sent_since_frm: bool,
    /// The frames whose cells wait, oldest first.
    frames: VecDeque<QueuedFrame>,
    /// Seed 003's UNI buffer: at most this many datagram bytes wait (`None`: unbounded).
    uni_limit_bytes: Option<u64>,
    /// Datagram bytes waiting (a datagram's are released with its last cell).
    uni_bytes: u64,
    /// A turned-around RM cell of the reverse connection waiting for an in-rate slot.
    turnaround: Option<RmCell>,
    stats: AbrStats,
}

/// A frame waiting in a source: its cells, the next to go, and its datagram's bytes.
#[derive(Clone, Copy, Debug)]
struct QueuedFrame {
    cells: FrameCells,
    next: u16,
    bytes: u64,
}

/// `1/rate` in picoseconds, `None` for a zero rate.
fn spacing(rate: f64) -> Option<SimDuration> {
    (rate > 0.0).then(|| SimDuration::from_ps((PS_PER_S as f64 / rate).round() as u64))
}

impl AbrSource {
    /// A source for `vc`; `uni_limit_bytes` bounds the datagram bytes waiting for cell slots.
    pub fn new(vc: u32, params: AbrParams, greedy: bool, uni_limit_bytes: Option<u64>) -> Self {
        let acr = params.icr.clamp(params.mcr, params.pcr);
        Self {
            stats: AbrStats {
                acr,
                acr_min: acr,
                acr_max: acr,
                ..AbrStats::default()
            },
            params,
            vc,
            greedy,
            acr,
            acr_gap: spacing(acr),
            t_next: SimTime::ZERO,
            t_last_in_rate: None,
            since_frm: 0,
            t_last_frm: None,
            t_last_out_of_rate: None,
            unacked_frm: 0,
            brm_sent_since_frm: false,
            frames: VecDeque::new(),
            uni_limit_bytes,
            uni_bytes: 0,
            turnaround: None,
        }
    }

    pub fn acr(&self) -> f64 {
        self.acr
    }

    pub fn stats(&self) -> &AbrStats {
        &self.stats
    }

    /// Queues the cells of a datagram of `bytes`, if the UNI buffer has room for the whole
    /// datagram (spec `atm.md` §2.4); returns whether it did.
    pub fn push_frame(&mut self, bytes: u64, cells: FrameCells) -> bool {
        if self
            .uni_limit_bytes
            .is_some_and(|limit| self.uni_bytes + bytes > limit)
        {
            self.stats.uni_drops += 1;
            return false;
        }
        self.uni_bytes += bytes;
        self.frames.push_back(QueuedFrame {
            cells,
            next: 0,
            bytes,
        });
        true
    }

    /// The destination at this host turned a forward RM cell of the reverse connection around;
    /// it goes out in this source's next suitable in-rate slot, replacing one still waiting.
    pub fn push_turnaround(&mut self, rm: RmCell) {
        self.turnaround = Some(rm);
    }

    fn has_data(&self) -> bool {
        self.greedy || !self.frames.is_empty()
    }

    /// A waiting turn-around takes the next in-rate slot that is not a forward RM cell's: one
    /// per forward RM cell while data waits, any slot otherwise.
    fn turnaround_due(&self) -> bool {
        self.turnaround.is_some() && (!self.brm_sent_since_frm || !self.has_data())
    }

    fn frm_due(&self, t: SimTime) -> bool {
        match self.t_last_frm {
            None => true,
            Some(last) => {
                self.since_frm + 1 >= self.params.nrm
                    || (self.since_frm >= self.params.mrm && t.since(last) >= self.params.trm)
            }
        }
    }

    /// Whether the cell due at `t`, the next in-rate slot, is a data cell after which data
    /// still waits, at a rate with no out-of-rate RM cells: sending it moves nothing but the
    /// queue, the RM count and the next slot (to `t` plus [`Self::cell_gap`]), whenever the
    /// host's next datagram comes.
    pub fn next_is_data_with_more(&self, t: SimTime) -> bool {
        let more_after = |f: &QueuedFrame| f.next + 1 < f.cells.cell_count();
        t == self.t_next
            && self.acr >= self.params.tcr
            && !self.frm_due(t)
            && !self.turnaround_due()
            && (self.greedy || self.frames.len() > 1 || self.frames.front().is_some_and(more_after))
    }

    /// The in-rate spacing of cells at the current ACR (`None` at a zero rate).
    pub fn cell_gap(&self) -> Option<SimDuration> {
        self.acr_gap
    }

    /// Whether a UNI buffer bounds the datagrams waiting (their admission then depends on
    /// when each cell leaves).
    pub fn has_uni_limit(&self) -> bool {
        self.uni_limit_bytes.is_some()
    }

    /// When the source next has a cell to send (at or after `now`), if it has one.
    pub fn next_opportunity(&self, now: SimTime) -> Option<SimTime> {
        let in_rate = self.t_next.max(now);
        let in_rate = if self.has_data() || self.turnaround.is_some() || self.frm_due(in_rate) {
            Some(in_rate)
        } else {
            // Idle: a forward RM cell falls due `trm` after the last once `mrm` cells went.
            self.t_last_frm
                .filter(|_| self.since_frm >= self.params.mrm)
                .map(|last| in_rate.max(last + self.params.trm))
        };
        // Rule 11: below TCR, forward RM cells also go out of rate, every 1/TCR.
        let out_of_rate = (self.acr < self.params.tcr && self.has_data()).then(|| {
            let gap = spacing(self.params.tcr).expect("TCR > 0");
            self.t_last_out_of_rate
                .or(self.t_last_frm)
                .map_or(now, |t| (t + gap).max(now))
        });
        match (in_rate, out_of_rate) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn frm(&self, out_of_rate: bool) -> RmCell {
        RmCell {
            owner: self.vc,
            backward: false,
            bn: false,
            ci: false,
            ni: false,
            er: self.params.pcr,
            ccr: self.acr,
            mcr: self.params.mcr,
            out_of_rate,
        }
    }

    /// Sends the cell due at `now` (a time [`Self::next_opportunity`] gave), if any.
    pub fn send(&mut self, now: SimTime) -> Option<Emitted> {
        if now < self.t_next || self.t_next == SimTime::MAX {
            // Only an out-of-rate forward RM cell may go before the next in-rate slot.
            if self.acr < self.params.tcr && self.has_data() {
                self.t_last_out_of_rate = Some(now);
                self.stats.out_of_rate_frm_sent += 1;
                return Some(Emitted::Rm(self.frm(true)));
            }
            return None;
        }
        let emitted = if self.frm_due(now) {
            if let Some(last) = self.t_last_frm {
                // Rule 5 (use it or lose it) and rule 6 (no backward RM cells for a while).
                if self.acr > self.params.icr && now.since(last) > self.params.adtf {
                    self.set_acr(self.params.icr);
                }
                if self.unacked_frm >= self.params.crm {
                    self.set_acr(self.params.mcr.max(self.acr - self.acr * self.params.cdf));
                }
            }
            self.unacked_frm += 1;
            self.t_last_frm = Some(now);
            self.since_frm = 0;
            self.brm_sent_since_frm = false;
            self.stats.frm_sent += 1;
            Emitted::Rm(self.frm(false))
        } else if self.turnaround_due() {
            self.since_frm += 1;
            self.brm_sent_since_frm = true;
            self.stats.brm_turned_around += 1;
            Emitted::Rm(self.turnaround.take().expect("checked"))
        } else if self.has_data() {
            self.since_frm += 1;
            self.stats.data_cells_sent += 1;
            let cell = if self.greedy {
                Cell {
                    vc: self.vc,
                    frame: 0,
                    index: 0,
                    eom: false,
                    efci: false,
                    rm: None,
                }
            } else {
                let frame = self.frames.front_mut().expect("checked");
                let cell = frame.cells.cell(frame.next);
                frame.next += 1;
                if cell.eom {
                    self.uni_bytes -= frame.bytes;
                    self.frames.pop_front();
                }
                cell
            };
            Emitted::Data(Cell {
                efci: false,
                ..cell
            })
        } else {
            return None;
        };
        self.t_last_in_rate = Some(now);
        self.t_next = self.acr_gap.map_or(SimTime::MAX, |gap| now + gap);
        Some(emitted)
    }

    fn set_acr(&mut self, acr: f64) {
        self.acr = acr;
        self.acr_gap = spacing(acr);
        self.stats.acr = acr;
        self.stats.acr_min = self.stats.acr_min.min(acr);
        self.stats.acr_max = self.stats.acr_max.max(acr);
    }

    /// A backward RM cell of this connection arrives at `now` (rules 8 and 9); the next cell is
    /// re-timed from the last in-rate one at the new rate.
    pub fn on_backward_rm(&mut self, now: SimTime, rm: &RmCell) {
        self.stats.brm_received += 1;
        if !rm.bn {
            self.unacked_frm = 0;
        }
        let p = &self.params;
        let mut acr = self.acr;
        if rm.ci {
            acr = p.mcr.max(acr - acr * p.rdf);
        } else if !rm.ni {
            acr = p.pcr.min(acr + p.rif * p.pcr);
        }
        acr = p.mcr.max(acr.min(rm.er));
        if acr != self.acr {
            self.set_acr(acr);
            self.t_next = match (self.t_last_in_rate, self.acr_gap) {
                (_, None) => SimTime::MAX,
                (None, Some(_)) => now,
                (Some(last), Some(gap)) => (last + gap).max(now),
            };
        }
    }
}

/// A destination's state for one incoming ABR connection.
#[derive(Debug, Default)]
pub struct AbrDestination {
    /// EFCI of the last data cell.
    efci: bool,
}

impl AbrDestination {
    pub fn on_data(&mut self, cell: &Cell) {
        self.efci = cell.efci;
    }

    /// Turns a forward RM cell around: backward, BN = 0, CI set if the last data cell carried
    /// EFCI (which is then cleared).
    pub fn turn_around(&mut self, rm: &RmCell) -> RmCell {
        let ci = rm.ci || std::mem::take(&mut self.efci);
        RmCell {
            backward: true,
            bn: false,
            ci,
            out_of_rate: false,
            ..*rm
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PCR: f64 = 155.52e6 / 424.0;

    fn params() -> AbrParams {
        AbrParams::seed001(PCR)
    }

    fn brm(er: f64, ci: bool) -> RmCell {
        RmCell {
            owner: 0,
            backward: true,
            bn: false,
            ci,
            ni: false,
            er,
            ccr: 0.0,
            mcr: 0.0,
            out_of_rate: false,
        }
    }

    /// Sends every cell due until `until`; returns (time, is RM) of each.
    fn drain(s: &mut AbrSource, from: SimTime, until: SimTime) -> Vec<(SimTime, bool)> {
        let mut out = Vec::new();
        let mut now = from;
        while let Some(t) = s.next_opportunity(now) {
            if t >= until {
                break;
            }
            if let Some(e) = s.send(t) {
                out.push((t, matches!(e, Emitted::Rm(_))));
            }
            now = t;
        }
        out
    }

    #[test]
    fn cells_are_paced_at_acr_with_a_forward_rm_cell_every_nrm() {
        let mut s = AbrSource::new(0, params(), true, None);
        // ICR 10 Mb/s = 23584.9 cells/s: 42.4 us apart.
        let sent = drain(&mut s, SimTime::ZERO, SimTime::from_millis(3));
        let gap = (PS_PER_S as f64 / (10e6 / 424.0)).round() as u64;
        assert!(sent.windows(2).all(|w| (w[1].0 - w[0].0).as_ps() == gap));
        // The first cell is an FRM, then one every 32 cells.
        let rm_at: Vec<usize> = (0..sent.len()).filter(|&i| sent[i].1).collect();
        assert_eq!(&rm_at[..3], &[0, 32, 64]);
        assert_eq!(s.stats().frm_sent, rm_at.len() as u64);
    }

    #[test]
    fn backward_rm_cells_set_the_rate_and_retime_the_next_cell() {
        let mut s = AbrSource::new(0, params(), true, None);
        let first = s.next_opportunity(SimTime::ZERO).unwrap();
        s.send(first);
        // RIF = 1: without CI the rate jumps to min(PCR, ER).
        s.on_backward_rm(SimTime::from_ps(1_000_000), &brm(50_000.0, false));
        assert_eq!(s.acr(), 50_000.0);
        assert_eq!(
            s.next_opportunity(SimTime::from_ps(1_000_000)),
            Some(SimTime::from_ps(20_000_000)),
            "1/ACR after the last cell"
        );
        // CI: down by RDF = 1/512, and never above ER.
        s.on_backward_rm(SimTime::from_ps(2_000_000), &brm(PCR, true));
        assert_eq!(s.acr(), 50_000.0 * (1.0 - 1.0 / 512.0));
        s.on_backward_rm(SimTime::from_ps(3_000_000), &brm(1_000.0, false));
        assert_eq!(s.acr(), 1_000.0);
    }

    #[test]
    fn without_backward_rm_cells_the_rate_is_cut_after_crm_forward_ones() {
        let mut s = AbrSource::new(0, params(), true, None);
        // 16 FRMs go at ICR; the 17th finds 16 unacknowledged and halves ACR (CDF 1/2).
        let sent = drain(&mut s, SimTime::ZERO, SimTime::from_millis(30));
        assert!(s.stats().frm_sent >= 17);
        assert!(s.acr() <= 10e6 / 424.0 / 2.0, "{}", s.acr());
        assert!(sent.len() > 16 * 32);
    }

    #[test]
    fn only_a_data_cell_that_leaves_data_behind_may_go_ahead() {
        let mut s = AbrSource::new(0, params(), false, None);
        s.push_frame(100, FrameCells::new(0, 0, 2));
        s.push_frame(40, FrameCells::new(0, 1, 1));
        let mut kinds = Vec::new();
        let mut now = SimTime::ZERO;
        // Then the source is idle (its next cell would be a forward RM cell `trm` later).
        for _ in 0..4 {
            let t = s.next_opportunity(now).expect("a cell waits");
            let ahead = s.next_is_data_with_more(t);
            let e = s.send(t).expect("a cell is due");
            kinds.push((matches!(e, Emitted::Rm(_)), ahead));
            assert_eq!(s.cell_gap().map(|gap| t + gap), Some(s.t_next));
            now = t;
        }
        // The first forward RM cell, frame 0's two cells, frame 1's only cell: only the cells
        // with another behind them may go ahead, never an RM cell nor the last data cell.
        assert_eq!(
            kinds,
            [(true, false), (false, true), (false, true), (false, false)]
        );
        // Below TCR an out-of-rate RM cell may come before the next in-rate slot: nothing goes
        // ahead.
        let mut slow = AbrSource::new(0, params(), false, None);
        slow.push_frame(552, FrameCells::new(0, 0, 12));
        slow.send(SimTime::ZERO);
        slow.on_backward_rm(SimTime::ZERO, &brm(slow.params.tcr / 2.0, false));
        assert!(slow.acr() < slow.params.tcr);
        let t = slow.next_opportunity(SimTime::ZERO).expect("data waits");
        assert!(!slow.next_is_data_with_more(t));
    }

    #[test]
    fn an_idle_source_falls_back_to_icr() {
        let mut s = AbrSource::new(0, params(), false, None);
        s.push_frame(100, FrameCells::new(0, 0, 4));
        drain(&mut s, SimTime::ZERO, SimTime::from_millis(1));
        s.on_backward_rm(SimTime::from_millis(1), &brm(PCR, false));
        assert_eq!(s.acr(), PCR);
        // Four data cells and the FRMs went; after a second of silence (> ADTF) the next FRM
        // brings ACR back to ICR.
        s.push_frame(40, FrameCells::new(0, 1, 1));
        let t = s.next_opportunity(SimTime::from_secs(1)).unwrap();
        assert!(matches!(s.send(t), Some(Emitted::Rm(_))));
        assert_eq!(s.acr(), 10e6 / 424.0);
    }

    #[test]
    fn the_uni_buffer_admits_whole_datagrams_and_frees_them_with_their_last_cell() {
        let cells = |frame: u32| FrameCells::new(0, frame, 2);
        let mut s = AbrSource::new(0, params(), false, Some(100));
        assert!(s.push_frame(60, cells(0)));
        assert!(!s.push_frame(60, cells(1)), "60 + 60 > 100");
        assert!(s.push_frame(40, cells(2)));
        assert_eq!(s.stats().uni_drops, 1);
        // The FRM, then frame 0's two cells: its 60 bytes are free again.
        let sent = drain(&mut s, SimTime::ZERO, SimTime::from_ps(100_000_000));
        assert!(sent.len() >= 3);
        assert!(s.push_frame(60, cells(3)));
    }

    #[test]
    fn the_destination_turns_forward_rm_cells_around_with_efci() {
        let mut d = AbrDestination::default();
        let frm = RmCell {
            backward: false,
            ..brm(PCR, false)
        };
        d.on_data(&Cell {
            vc: 0,
            frame: 0,
            index: 0,
            eom: false,
            efci: true,
            rm: None,
        });
        let b = d.turn_around(&frm);
        assert!(b.backward && b.ci && !b.bn);
        assert!(!d.turn_around(&frm).ci, "EFCI is reported once");
    }
}
