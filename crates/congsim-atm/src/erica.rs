//! ABR switch algorithms of an output port (spec `atm.md` §7): ERICA with seed 001's
//! modifications as options, ERICA+ (queue-driven target), and EPRCA (binary CI marking).
//!
//! A port measures the cells entering it (forward direction) over averaging intervals that close
//! after `N` ABR cells or `T`, whichever comes first, and writes its feedback into the backward
//! RM cells of the connections it carries. Intervals that end by time are closed lazily, at the
//! port's next event, with exactly the values they would have had: the caller supplies the VBR
//! cells and the ABR queue as they were at the interval's end.

use crate::aal5::RmCell;
use congsim_core::time::{PS_PER_S, SimDuration, SimTime};

/// How ERICA derives the capacity left to ABR from the measured VBR rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbrCapacity {
    /// `U · (C − VBR)` (default, spec §7.2).
    TargetOfLinkMinusVbr,
    /// `max(U · C − VBR, 0)` (the dissertation's pseudo-code).
    TargetLinkMinusVbr,
}

/// A slow source sends a forward RM cell only every `Nrm` cells, so the CCR in ERICA's table can
/// be the rate the source had before it obeyed the ER this port last gave it, and `CCR/z` would
/// hand the stale rate back. The cap counts the CCR as at most that ER (deviation D24).
///
/// There is no "only while stale" mode: a CCR is stale exactly until a forward RM cell arrives
/// that the source sent after it received the last ER, and such a cell carries an ACR of at
/// most that ER (the source obeys it), so the exact test caps the same CCRs as `Always`. The
/// earlier heuristic (stale until any forward RM cell arrives) was lifted by the cells already
/// in flight on a long source hop (docs/notes/jain1996-queues.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcrCap {
    /// The table CCR as it is (ERICA's pseudo-code; the default).
    Never,
    /// The source is taken to obey the last ER at once.
    Always,
}

/// ERICA+'s queue control: the target utilisation becomes `f(q)` (spec §7.4).
#[derive(Clone, Debug, PartialEq)]
pub struct QueueControl {
    /// Target queueing delay `T0`: the target queue is `T0 · (C − VBR)` cells.
    pub target_delay: SimDuration,
    /// `f(0)`, the under-load curve parameter (> 1).
    pub k_under: f64,
    /// The over-load curve parameter.
    pub k_over: f64,
    /// Queue drain limit factor: the floor of `f`.
    pub qdlf: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EricaConfig {
    /// Link capacity, cells/s.
    pub capacity: f64,
    /// Target utilisation `U` (replaced by `f(q)` under queue control).
    pub target: f64,
    pub interval_cells: u32,
    pub interval: SimDuration,
    /// Overload band: above `1 + delta` the port is overloaded.
    pub delta: f64,
    /// Decay of the averaged active-VC count.
    pub decay: f64,
    pub abr_capacity: AbrCapacity,
    /// Modified ERICA (seed 001): one ER per VC per interval.
    pub one_er_per_interval: bool,
    /// Modified ERICA: `ER > FS` but `CCR < FS` gives `FS`.
    pub clamp_slow_vcs: bool,
    /// Modified ERICA: under load, `max(MaxAllocPrev, CCR/z)` (max-min step); else `max(FS,
    /// CCR/z)` always.
    pub max_min_step: bool,
    /// Modified ERICA: a VC seen for the first time raises the active count and FS at once.
    pub immediate_fair_share: bool,
    /// Modified ERICA: backward RM cells mark their connection active too.
    pub bidirectional_counting: bool,
    /// Modified ERICA: the active-VC count decays over intervals instead of being recounted.
    pub decayed_vc_count: bool,
    /// CCR measured per VC over the interval instead of read from forward RM cells.
    pub measured_ccr: bool,
    /// When a VC's CCR counts as at most the ER this port last gave it (deviation D24).
    pub ccr_cap: CcrCap,
    /// ERICA+.
    pub queue_control: Option<QueueControl>,
}

impl EricaConfig {
    /// ERICA as first published: `ER = max(FS, CCR/z)` in every interval, plain VC counting;
    /// U = 0.9, min{100 cells, 1 ms}.
    pub fn basic(capacity: f64) -> Self {
        Self {
            one_er_per_interval: false,
            clamp_slow_vcs: false,
            max_min_step: false,
            immediate_fair_share: false,
            bidirectional_counting: false,
            decayed_vc_count: false,
            ccr_cap: CcrCap::Never,
            ..Self::modified(capacity)
        }
    }

    /// Seed 001's "modified ERICA" (every modification on), U = 0.9, min{100 cells, 1 ms}.
    pub fn modified(capacity: f64) -> Self {
        Self {
            capacity,
            target: 0.9,
            interval_cells: 100,
            interval: SimDuration::from_millis(1),
            delta: 0.1,
            decay: 0.9,
            abr_capacity: AbrCapacity::TargetOfLinkMinusVbr,
            one_er_per_interval: true,
            clamp_slow_vcs: true,
            max_min_step: true,
            immediate_fair_share: true,
            bidirectional_counting: true,
            decayed_vc_count: true,
            measured_ccr: false,
            ccr_cap: CcrCap::Never,
            queue_control: None,
        }
    }

    /// ERICA+: modified ERICA with the target driven by the queue (T0 = 0.5 ms, spec §7.4).
    pub fn plus(capacity: f64) -> Self {
        Self {
            queue_control: Some(QueueControl {
                target_delay: SimDuration::from_micros(500),
                k_under: 1.15,
                k_over: 1.05,
                qdlf: 0.5,
            }),
            ..Self::modified(capacity)
        }
    }
}

#[derive(Clone, Debug)]
struct VcState {
    ccr: f64,
    seen_this: bool,
    seen_last: bool,
    contrib: f64,
    brm_seen_this: bool,
    /// The ER this port last gave the VC (infinite before its first feedback).
    last_er: f64,
    cells: u64,
}

impl Default for VcState {
    fn default() -> Self {
        Self {
            ccr: 0.0,
            seen_this: false,
            seen_last: false,
            contrib: 0.0,
            brm_seen_this: false,
            last_er: f64::INFINITY,
            cells: 0,
        }
    }
}

/// What an interval's end needs from the port.
pub trait PortView {
    /// VBR cells that entered the port in `[from, to)`.
    fn vbr_cells(&self, from: SimTime, to: SimTime) -> u64;
    /// ABR cells in the port's buffer at `at` (not before the port's last event).
    fn abr_queue(&self, at: SimTime) -> u64;
}

/// One interval's results, for the record.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IntervalRecord {
    pub end: SimTime,
    pub load_factor: f64,
    pub abr_capacity: f64,
    pub fair_share: f64,
    pub active_vcs: f64,
}

#[derive(Debug)]
pub struct Erica {
    config: EricaConfig,
    t0: SimTime,
    abr_cells: u64,
    z: f64,
    fair_share: f64,
    abr_capacity: f64,
    max_alloc_prev: f64,
    max_alloc_cur: f64,
    /// Active VCs as last counted (or decayed); fair shares divide by at least 1.
    active_last: f64,
    /// Decayed count being built this interval.
    active_this: f64,
    vcs: Vec<VcState>,
    pub last_interval: IntervalRecord,
    pub intervals: u64,
}

impl Erica {
    pub fn new(config: EricaConfig) -> Self {
        let abr_capacity = config.target * config.capacity;
        Self {
            t0: SimTime::ZERO,
            abr_cells: 0,
            z: 0.0,
            fair_share: abr_capacity,
            abr_capacity,
            max_alloc_prev: 0.0,
            max_alloc_cur: 0.0,
            active_last: 0.0,
            active_this: 0.0,
            vcs: Vec::new(),
            last_interval: IntervalRecord::default(),
            intervals: 0,
            config,
        }
    }

    fn vc(&mut self, vc: u32) -> &mut VcState {
        let i = vc as usize;
        if i >= self.vcs.len() {
            self.vcs.resize(i + 1, VcState::default());
        }
        &mut self.vcs[i]
    }

    /// Closes every interval that ended by time before `now`.
    pub fn catch_up(&mut self, now: SimTime, port: &dyn PortView) {
        while now.since(self.t0) >= self.config.interval {
            let end = self.t0 + self.config.interval;
            self.end_interval(end, port);
        }
    }

    fn mark_active(&mut self, vc: u32) {
        let decayed = self.config.decayed_vc_count;
        let immediate = self.config.immediate_fair_share;
        let decay = self.config.decay;
        let state = self.vc(vc);
        if decayed {
            if state.contrib < 1.0 {
                let before = state.contrib;
                state.contrib = 1.0;
                self.active_this += 1.0 - before;
                if immediate && before < decay {
                    self.active_last += 1.0 - before / decay;
                    self.fair_share = self.abr_capacity / self.active_last.max(1.0);
                }
            }
        } else {
            state.seen_this = true;
            if immediate && !state.seen_last {
                state.seen_last = true;
                self.active_last += 1.0;
                self.fair_share = self.abr_capacity / self.active_last.max(1.0);
            }
        }
    }

    /// An ABR cell of `vc` enters the port at `now`; `frm_ccr` is the CCR of a forward RM cell.
    pub fn on_forward_cell(
        &mut self,
        now: SimTime,
        vc: u32,
        frm_ccr: Option<f64>,
        port: &dyn PortView,
    ) {
        self.catch_up(now, port);
        self.abr_cells += 1;
        let measured = self.config.measured_ccr;
        let state = self.vc(vc);
        state.cells += 1;
        if let (Some(ccr), false) = (frm_ccr, measured) {
            state.ccr = ccr;
        }
        self.mark_active(vc);
        if self.abr_cells >= u64::from(self.config.interval_cells) {
            self.end_interval(now, port);
        }
    }

    fn end_interval(&mut self, end: SimTime, port: &dyn PortView) {
        let dt = end.since(self.t0).as_ps() as f64 / PS_PER_S as f64;
        let c = self.config.capacity;
        if dt > 0.0 {
            let in_rate = self.abr_cells as f64 / dt;
            let vbr_rate = port.vbr_cells(self.t0, end) as f64 / dt;
            let target = match &self.config.queue_control {
                None => self.config.target,
                Some(qc) => {
                    let q0 = qc.target_delay.as_ps() as f64 / PS_PER_S as f64 * (c - vbr_rate);
                    let q = port.abr_queue(end) as f64;
                    if q <= q0 {
                        qc.k_under * q0 / ((qc.k_under - 1.0) * q + q0)
                    } else {
                        qc.qdlf.max(qc.k_over * q0 / ((qc.k_over - 1.0) * q + q0))
                    }
                }
            };
            self.abr_capacity = match self.config.abr_capacity {
                AbrCapacity::TargetOfLinkMinusVbr => target * (c - vbr_rate),
                AbrCapacity::TargetLinkMinusVbr => (target * c - vbr_rate).max(0.0),
            };
            self.z = if self.abr_capacity > 0.0 {
                in_rate / self.abr_capacity
            } else {
                f64::INFINITY
            };
            if self.config.measured_ccr {
                for state in &mut self.vcs {
                    state.ccr = state.cells as f64 / dt;
                }
            }
        }
        if self.config.decayed_vc_count {
            self.active_last = self.active_this.max(1.0);
            let decay = self.config.decay;
            for state in &mut self.vcs {
                state.contrib *= decay;
            }
            self.active_this = self.vcs.iter().map(|s| s.contrib).sum();
        } else {
            let seen = self.vcs.iter().filter(|s| s.seen_this).count();
            self.active_last = (seen as f64).max(1.0);
            for state in &mut self.vcs {
                state.seen_last = state.seen_this;
                state.seen_this = false;
            }
        }
        self.fair_share = self.abr_capacity / self.active_last;
        self.max_alloc_prev = self.max_alloc_cur;
        self.max_alloc_cur = self.fair_share;
        for state in &mut self.vcs {
            state.brm_seen_this = false;
            state.cells = 0;
        }
        self.abr_cells = 0;
        self.t0 = end;
        self.intervals += 1;
        self.last_interval = IntervalRecord {
            end,
            load_factor: self.z,
            abr_capacity: self.abr_capacity,
            fair_share: self.fair_share,
            active_vcs: self.active_last,
        };
    }

    /// A backward RM cell of connection `rm.owner` passes at `now`: its ER is lowered to this
    /// port's explicit rate for the connection.
    pub fn feedback(&mut self, now: SimTime, rm: &mut RmCell, port: &dyn PortView) {
        self.catch_up(now, port);
        let owner = rm.owner;
        if self.config.bidirectional_counting {
            self.mark_active(owner);
        }
        if self.intervals == 0 {
            // Nothing measured yet: no feedback to give.
            return;
        }
        let config = self.config.clone();
        let (z, fs, cap, prev) = (
            self.z,
            self.fair_share,
            self.abr_capacity,
            self.max_alloc_prev,
        );
        let state = self.vc(owner);
        let er = if config.one_er_per_interval && state.brm_seen_this {
            state.last_er
        } else {
            let ccr = match config.ccr_cap {
                CcrCap::Never => state.ccr,
                CcrCap::Always => state.ccr.min(state.last_er),
            };
            let share = if z.is_finite() && z > 0.0 {
                ccr / z
            } else {
                0.0
            };
            let mut er = if !config.max_min_step || z > 1.0 + config.delta {
                fs.max(share)
            } else {
                prev.max(share)
            };
            if config.clamp_slow_vcs && er > fs && ccr < fs {
                er = fs;
            }
            er = er.min(cap);
            state.last_er = er;
            state.brm_seen_this = true;
            er
        };
        self.max_alloc_cur = self.max_alloc_cur.max(er);
        rm.er = rm.er.min(er);
    }
}

/// EPRCA in binary mode (spec §7.5): a mean of the forward CCRs (MACR), and CI set in backward
/// RM cells when the ABR queue is long, or long and the connection is faster than `dpf · MACR`.
#[derive(Clone, Debug, PartialEq)]
pub struct EprcaConfig {
    /// MACR averaging weight (1/16).
    pub alpha: f64,
    /// Down-pressure factor.
    pub dpf: f64,
    /// Queue threshold (cells): congested above it.
    pub queue_threshold: u64,
    /// Very-congested threshold (cells): every connection is told to slow down.
    pub very_congested_threshold: u64,
}

#[derive(Debug)]
pub struct Eprca {
    config: EprcaConfig,
    macr: Option<f64>,
    pub cis_set: u64,
}

impl Eprca {
    pub fn new(config: EprcaConfig) -> Self {
        Self {
            config,
            macr: None,
            cis_set: 0,
        }
    }

    /// A forward RM cell carrying `ccr` enters the port.
    pub fn on_forward_rm(&mut self, ccr: f64) {
        let a = self.config.alpha;
        self.macr = Some(self.macr.map_or(ccr, |m| (1.0 - a) * m + a * ccr));
    }

    /// A backward RM cell passes with the port's ABR queue at `queue` cells.
    pub fn feedback(&mut self, rm: &mut RmCell, queue: u64) {
        let macr = self.macr.unwrap_or(f64::INFINITY);
        let congested = queue > self.config.very_congested_threshold
            || (queue > self.config.queue_threshold && rm.ccr > self.config.dpf * macr);
        if congested && !rm.ci {
            rm.ci = true;
            self.cis_set += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: f64 = 155.52e6 / 424.0;

    struct Quiet;
    impl PortView for Quiet {
        fn vbr_cells(&self, _: SimTime, _: SimTime) -> u64 {
            0
        }
        fn abr_queue(&self, _: SimTime) -> u64 {
            0
        }
    }

    fn brm(owner: u32, ccr: f64) -> RmCell {
        RmCell {
            owner,
            backward: true,
            bn: false,
            ci: false,
            ni: false,
            er: C,
            ccr,
            mcr: 0.0,
            out_of_rate: false,
        }
    }

    fn plain() -> EricaConfig {
        EricaConfig::basic(C)
    }

    /// Feeds one interval of `per_vc` forward cells from each of `ccrs.len()` VCs (an FRM with
    /// its CCR first), spread over `interval`.
    fn interval(e: &mut Erica, start: SimTime, ccrs: &[f64], per_vc: u64, span: SimDuration) {
        let n = ccrs.len() as u64 * per_vc;
        for k in 0..n {
            let vc = (k % ccrs.len() as u64) as u32;
            let at = start + SimDuration::from_ps(span.as_ps() * k / n);
            let frm = (k < ccrs.len() as u64).then(|| ccrs[vc as usize]);
            e.on_forward_cell(at, vc, frm, &Quiet);
        }
    }

    #[test]
    fn overload_gives_each_vc_its_share_of_the_target_capacity() {
        // Two VCs at 0.6 C each for 1 ms (a time-closed interval): load 1.2 C against a target
        // of 0.9 C, z = 1.333; fair share 0.45 C; VC share 0.6 C / z = 0.45 C.
        let mut e = Erica::new(EricaConfig {
            interval_cells: 1_000_000,
            ..plain()
        });
        let per_vc = (0.6 * C * 1e-3).round() as u64;
        interval(
            &mut e,
            SimTime::ZERO,
            &[0.6 * C, 0.6 * C],
            per_vc,
            SimDuration::from_millis(1),
        );
        let mut rm = brm(0, 0.6 * C);
        e.feedback(SimTime::from_ps(1_000_000_001), &mut rm, &Quiet);
        let r = e.last_interval;
        assert!((r.load_factor - 2.0 * per_vc as f64 / 1e-3 / (0.9 * C)).abs() < 1e-9);
        assert_eq!(r.active_vcs, 2.0);
        assert!(
            (rm.er - 0.45 * C).abs() < 0.002 * C,
            "{} vs {}",
            rm.er,
            0.45 * C
        );
    }

    #[test]
    fn an_interval_closes_after_n_cells_or_t() {
        let mut e = Erica::new(plain());
        // 100 cells within 0.1 ms: closed by count.
        interval(
            &mut e,
            SimTime::ZERO,
            &[C],
            100,
            SimDuration::from_micros(100),
        );
        assert_eq!(e.intervals, 1);
        // No cell for 3.5 ms: three more intervals close by time, at 1 ms steps from the last.
        e.catch_up(SimTime::from_ps(100_000_000 + 3_500_000_000), &Quiet);
        assert_eq!(e.intervals, 4);
        assert_eq!(e.last_interval.load_factor, 0.0);
    }

    #[test]
    fn slow_vcs_are_not_handed_a_jump_and_er_is_one_per_interval() {
        let mut e = Erica::new(EricaConfig::modified(C));
        let span = SimDuration::from_millis(1);
        let after = |k: u64| SimTime::from_ps(k * span.as_ps() + 1);
        // Interval 1: VC 0 alone, lightly loaded; its BRM raises MaxAlloc to the fair share of
        // a single VC (the whole ABR capacity).
        interval(&mut e, SimTime::ZERO, &[0.3 * C], 50, span);
        e.catch_up(after(1), &Quiet);
        let mut fast = brm(0, 0.3 * C);
        e.feedback(after(1), &mut fast, &Quiet);
        assert!((fast.er - 0.9 * C).abs() < 1e-6 * C, "{}", fast.er);
        // Interval 2: a slow VC joins; still under load, so the max-min step would offer it
        // MaxAllocPrev (0.9 C), but its CCR is below the new fair share (0.45 C): it gets FS.
        interval(&mut e, after(1), &[0.3 * C, 0.01 * C], 25, span);
        e.catch_up(after(2), &Quiet);
        let fs = e.last_interval.fair_share;
        assert!((fs - 0.45 * C).abs() < 0.05 * C, "{fs}");
        let mut slow = brm(1, 0.01 * C);
        e.feedback(after(2), &mut slow, &Quiet);
        assert_eq!(slow.er, fs, "a slow VC gets the fair share, no more");
        // A second BRM in the same interval gets the same ER whatever its CCR.
        let mut again = brm(1, 0.5 * C);
        e.feedback(after(2) + SimDuration::from_ps(1), &mut again, &Quiet);
        assert_eq!(again.er, slow.er);
    }

    #[test]
    fn a_stale_ccr_counts_as_at_most_the_last_er_given() {
        // Interval 1: two VCs at 0.6 C (z = 4/3, FS = 0.45 C): VC 0 is told 0.45 C. Interval 2:
        // the VCs send 0.3 C each with no forward RM cell, so VC 0's table CCR is still 0.6 C
        // (z = 2/3). Interval 3: 0.4 C each (z = 8/9), and FRMs report 0.8 C.
        let span = SimDuration::from_millis(1);
        let after = |k: u64| SimTime::from_ps(k * span.as_ps() + 1);
        let per_vc = |rate: f64| (rate * 1e-3).round() as u64;
        let ers = |cap: CcrCap| -> [f64; 3] {
            let mut e = Erica::new(EricaConfig {
                interval_cells: 1_000_000,
                ccr_cap: cap,
                ..plain()
            });
            let mut ers = [0.0; 3];
            for (k, er) in ers.iter_mut().enumerate() {
                let (rate, frm) = match k {
                    0 => (0.6 * C, Some(0.6 * C)),
                    1 => (0.3 * C, None),
                    _ => (0.4 * C, Some(0.8 * C)),
                };
                let start = SimTime::from_ps(k as u64 * span.as_ps());
                let n = 2 * per_vc(rate);
                for i in 0..n {
                    let at = start + SimDuration::from_ps(span.as_ps() * i / n);
                    let ccr = frm.filter(|_| i < 2);
                    e.on_forward_cell(at, (i % 2) as u32, ccr, &Quiet);
                }
                let mut rm = brm(0, 0.6 * C);
                e.feedback(after(k as u64 + 1), &mut rm, &Quiet);
                *er = rm.er / C;
            }
            ers
        };
        let close = |got: [f64; 3], want: [f64; 3]| {
            got.iter().zip(want).all(|(g, w)| (g - w).abs() < 0.002)
        };
        // Uncapped: 0.6 / (2/3), then 0.8 / (8/9), both at the ABR capacity 0.9 C.
        let never = ers(CcrCap::Never);
        assert!(close(never, [0.45, 0.9, 0.9]), "{never:?}");
        // Capped: min(0.8, 0.675) / (8/9) = 0.759 C.
        let always = ers(CcrCap::Always);
        assert!(close(always, [0.45, 0.675, 0.759]), "{always:?}");
    }

    #[test]
    fn erica_plus_raises_the_target_for_an_empty_queue_and_cuts_it_for_a_long_one() {
        struct Queue(u64);
        impl PortView for Queue {
            fn vbr_cells(&self, _: SimTime, _: SimTime) -> u64 {
                0
            }
            fn abr_queue(&self, _: SimTime) -> u64 {
                self.0
            }
        }
        let config = EricaConfig {
            queue_control: Some(QueueControl {
                target_delay: SimDuration::from_micros(500),
                k_under: 1.15,
                k_over: 1.05,
                qdlf: 0.5,
            }),
            ..plain()
        };
        let capacity_at = |q: u64| {
            let mut e = Erica::new(config.clone());
            e.catch_up(SimTime::from_millis(1), &Queue(q));
            e.last_interval.abr_capacity / C
        };
        // f(0) = 1.15; f(Q0) = 1 at Q0 = 0.5 ms of the link (183 cells); a long queue floors
        // at QDLF.
        assert!((capacity_at(0) - 1.15).abs() < 1e-12);
        let q0 = 0.5e-3 * C;
        assert!((capacity_at(q0.round() as u64) - 1.0).abs() < 0.001);
        assert!((capacity_at(100_000) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn eprca_marks_fast_vcs_when_congested_and_every_vc_when_very_congested() {
        let mut e = Eprca::new(EprcaConfig {
            alpha: 1.0 / 16.0,
            dpf: 1.0,
            queue_threshold: 100,
            very_congested_threshold: 1000,
        });
        e.on_forward_rm(1000.0);
        e.on_forward_rm(2000.0);
        // MACR = 1000 + (2000 − 1000)/16 = 1062.5.
        let mark = |e: &mut Eprca, ccr: f64, q: u64| {
            let mut rm = brm(0, ccr);
            e.feedback(&mut rm, q);
            rm.ci
        };
        assert!(!mark(&mut e, 5000.0, 100), "not congested");
        assert!(mark(&mut e, 1063.0, 101), "congested, faster than MACR");
        assert!(!mark(&mut e, 1062.0, 500), "congested, slower than MACR");
        assert!(mark(&mut e, 10.0, 1001), "very congested");
        assert_eq!(e.cis_set, 2);
    }
}
