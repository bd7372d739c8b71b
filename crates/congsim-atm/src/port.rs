//! An ATM output port (spec `atm.md` §1.3, §3, §4.1): a shared FIFO cell buffer with per-VC
//! accounting and a UBR drop policy, a transmitter sending one cell per cell time, and the
//! link's propagation pipe.
//!
//! The buffer is FIFO and decides only at arrival, so a cell's transmission is scheduled when it
//! is admitted (`max(arrival, busy_until)`): no event marks the end of a transmission. The
//! buffer remembers when each admitted cell's last bit leaves, and releases those cells the
//! next time a cell arrives: occupancy `X` counts the cell in transmission until its last bit
//! has left, and a transmission that completes at the instant of an arrival frees its place
//! first (spec §1.3's same-instant order).
//!
//! When the buffer is full, each departure frees one place. Taken by whichever cell arrives
//! next, it goes to the same VC slot after slot: the sources' cells arrive on fixed phases of
//! the cell clock, so one VC delivers whole frames while the others lose whole frames. A port
//! given a contention stream instead makes the cells of one cell time draw for the last free
//! place, as a fabric serving its inputs in random order would (deviation D25).

use crate::aal5::{CELL_BYTES, Cell, FrameCells, RmCell};
use crate::erica::{Eprca, EprcaConfig, Erica, EricaConfig, IntervalRecord, PortView};
use crate::ring::Ring;
use crate::ubr::{Occupancy, UbrPolicy};
use crate::vbr::{VbrConfig, VbrSource};
use congsim_core::rng::RngStream;
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::units::{Rate, SerializationClock};

/// The ABR switch algorithm of a port.
#[derive(Clone, Debug, PartialEq)]
pub enum SwitchConfig {
    Erica(EricaConfig),
    Eprca(EprcaConfig),
}

#[derive(Debug)]
enum Switch {
    Erica(Box<Erica>),
    Eprca(Eprca),
}

/// Static configuration of a port.
#[derive(Clone, Debug, PartialEq)]
pub struct PortConfig {
    pub rate: Rate,
    pub delay: SimDuration,
    /// Buffer capacity `K` in cells, the cell in transmission included; `None` for a host
    /// adapter's unbounded queue.
    pub capacity_cells: Option<u64>,
    pub policy: UbrPolicy,
    /// After a cell of an accepted frame overflows, drop the rest of the frame except its EOM
    /// (partial packet discard).
    pub ppd_after_overflow: bool,
    /// The ABR switch algorithm that computes this port's feedback, if any.
    pub switch: Option<SwitchConfig>,
    /// A VBR source entering at this port, served before the buffer's cells (strict priority,
    /// non-preemptive; spec `atm.md` §6).
    pub vbr: Option<VbrConfig>,
}

/// Counters of one port.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortStats {
    pub cells_in: u64,
    /// Cells whose transmission had ended by the end of the run.
    pub cells_sent: u64,
    /// Cells in the buffer at the end of the run (the one in transmission included).
    pub cells_queued: u64,
    /// Cells dropped because the buffer was full.
    pub cells_dropped_overflow: u64,
    /// Cells of frames the policy discarded whole (EPD, Selective Drop, FBA).
    pub cells_dropped_policy: u64,
    /// Cells dropped by partial packet discard after an overflow.
    pub cells_dropped_ppd: u64,
    /// Frames the policy discarded at their first cell.
    pub frames_discarded: u64,
    /// Frames that lost some but not all of their cells here.
    pub frames_damaged: u64,
    /// EOM cells lost from frames that were not discarded whole: each merges what arrived of
    /// its frame with the next frame at reassembly, losing both.
    pub eoms_dropped: u64,
    pub max_queue_cells: u64,
    /// The largest queue in the first half of the run (a queue still growing in the second
    /// half diverges).
    pub max_queue_cells_first_half: u64,
    /// VBR cells that entered (served ahead of the buffer).
    pub vbr_cells: u64,
    /// Averaging intervals the switch algorithm closed, and congestion indications it set.
    pub switch_intervals: u64,
    pub switch_cis_set: u64,
    /// ERICA's last closed interval (load factor, ABR capacity and fair share in cells/s,
    /// active VCs); zero without ERICA.
    pub erica_last: IntervalRecord,
}

impl PortStats {
    pub fn cells_dropped(&self) -> u64 {
        self.cells_dropped_overflow + self.cells_dropped_policy + self.cells_dropped_ppd
    }
}

/// How the port treats the rest of the frame now arriving on a VC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FrameMode {
    Accept,
    Discard,
    /// Partial packet discard: only the EOM may still enter.
    Ppd,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct VcState {
    /// Cells of this VC in the buffer, `x_i`.
    queued: u64,
    /// The VC's previous arrival (accepted or not) was an EOM: the next cell starts a frame.
    prev_eom: bool,
    mode: FrameMode,
    /// The frame now arriving has already lost a cell here.
    damaged: bool,
    /// When the VC's last cell of an accepted frame arrived (contention for the last place).
    last_arrival: Option<SimTime>,
}

impl Default for VcState {
    fn default() -> Self {
        Self {
            queued: 0,
            prev_eom: true,
            mode: FrameMode::Accept,
            damaged: false,
            last_arrival: None,
        }
    }
}

#[derive(Debug)]
pub struct Port {
    config: PortConfig,
    clock: SerializationClock,
    busy_until: SimTime,
    /// Admitted cells not yet released: when their last bit leaves, and their VC.
    buffer: Ring<(SimTime, u32)>,
    vcs: Vec<VcState>,
    /// VCs with cells in the buffer, `N_a`.
    active_vcs: u64,
    /// The policy reads each VC's cells in the buffer and `N_a` (Selective Drop and FBA):
    /// only then are they counted, which costs a look at the VC's state per cell.
    counts_vcs: bool,
    /// Cells propagating: arrival time at the far end, cell, and its next hop on its VC's path.
    pipe: Ring<(SimTime, Cell, u16)>,
    stats: PortStats,
    admitted: u64,
    switch: Option<Switch>,
    vbr: Option<VbrSource>,
    /// Half the run: where the first-half maximum queue stops.
    half_time: SimTime,
    /// Draws for the last free place among the VCs of one cell time; `None`: the first
    /// arrival takes it.
    contention: Option<RngStream>,
    /// One cell time: the window whose arrivals compete.
    cell_time: SimDuration,
    /// The VC the last free place is kept for, and until when.
    last_place_owner: Option<(usize, SimTime)>,
}

/// What the switch algorithm sees of its port.
struct View<'a> {
    buffer: &'a Ring<(SimTime, u32)>,
    vbr: Option<&'a VbrSource>,
}

impl PortView for View<'_> {
    fn vbr_cells(&self, from: SimTime, to: SimTime) -> u64 {
        self.vbr
            .map_or(0, |v| v.arrivals_before(to) - v.arrivals_before(from))
    }
    fn abr_queue(&self, at: SimTime) -> u64 {
        // Transmissions end in order, so the cells still queued at `at` are a suffix.
        let left = self.buffer.partition_point(|&(done, _)| done <= at);
        (self.buffer.len() - left) as u64
    }
}

impl Port {
    /// A port for a run that ends at `horizon`.
    pub fn new(config: PortConfig, horizon: SimTime) -> Self {
        let cell_time = SerializationClock::new(config.rate).next_tx_time(u64::from(CELL_BYTES));
        let counts_vcs = config.policy.reads_vc_occupancy();
        Self {
            clock: SerializationClock::new(config.rate),
            switch: config.switch.clone().map(|s| match s {
                SwitchConfig::Erica(c) => Switch::Erica(Box::new(Erica::new(c))),
                SwitchConfig::Eprca(c) => Switch::Eprca(Eprca::new(c)),
            }),
            vbr: config.vbr.clone().map(VbrSource::new),
            half_time: SimTime::from_ps(horizon.as_ps() / 2),
            config,
            busy_until: SimTime::ZERO,
            buffer: Ring::default(),
            vcs: Vec::new(),
            active_vcs: 0,
            counts_vcs,
            pipe: Ring::default(),
            stats: PortStats::default(),
            admitted: 0,
            contention: None,
            last_place_owner: None,
            cell_time,
        }
    }

    /// From now on, cells arriving within one cell time draw for the buffer's last free place
    /// (deviation D25).
    pub fn set_contention(&mut self, rng: RngStream) {
        self.contention = Some(rng);
    }

    /// A cell of `vc` would take the buffer's last free place at `at`. The first such cell
    /// draws the place's owner among its VC and the other VCs whose cells arrived within the
    /// last cell time, each with an equal chance; the owner's next cell within one cell time
    /// takes the place, and the others' cells are dropped meanwhile.
    fn loses_last_place(&mut self, at: SimTime, vc: usize) -> bool {
        let Some(rng) = &mut self.contention else {
            return false;
        };
        if let Some((owner, until)) = self.last_place_owner
            && at < until
        {
            if owner != vc {
                return true;
            }
            self.last_place_owner = None;
            return false;
        }
        let since = at.as_ps().saturating_sub(self.cell_time.as_ps());
        let rivals = || {
            self.vcs.iter().enumerate().filter_map(move |(i, s)| {
                (i != vc && s.last_arrival.is_some_and(|t| t.as_ps() > since)).then_some(i)
            })
        };
        let draw = rng.below(rivals().count() as u64 + 1) as usize;
        if draw == 0 {
            self.last_place_owner = None;
            return false;
        }
        let owner = rivals().nth(draw - 1).expect("drawn among the rivals");
        self.last_place_owner = Some((owner, at + self.cell_time));
        true
    }

    /// Frees the buffer places of cells whose last bit has left by `at`.
    #[inline(always)]
    fn release(&mut self, at: SimTime) {
        while let Some(&(done, vc)) = self.buffer.front() {
            if done > at {
                break;
            }
            self.buffer.pop_front();
            if self.counts_vcs {
                let state = &mut self.vcs[vc as usize];
                state.queued -= 1;
                if state.queued == 0 {
                    self.active_vcs -= 1;
                }
            }
        }
    }

    /// `true` if this port runs an ABR switch algorithm.
    pub fn has_switch(&self) -> bool {
        self.switch.is_some()
    }

    /// A backward RM cell of a connection this port carries forward passes the switch at
    /// `now`: the algorithm writes its feedback into it.
    pub fn feedback(&mut self, now: SimTime, rm: &mut RmCell) {
        let view = View {
            buffer: &self.buffer,
            vbr: self.vbr.as_ref(),
        };
        match &mut self.switch {
            Some(Switch::Erica(e)) => e.feedback(now, rm, &view),
            Some(Switch::Eprca(e)) => e.feedback(rm, view.abr_queue(now)),
            None => {}
        }
    }

    /// The switch algorithm sees a cell entering the port (`rm`: its RM fields).
    fn observe(&mut self, at: SimTime, cell: &Cell, rm: Option<&RmCell>) {
        let view = View {
            buffer: &self.buffer,
            vbr: self.vbr.as_ref(),
        };
        let frm_ccr = rm.filter(|rm| !rm.backward).map(|rm| rm.ccr);
        match &mut self.switch {
            Some(Switch::Erica(e)) => e.on_forward_cell(at, cell.vc, frm_ccr, &view),
            Some(Switch::Eprca(e)) => {
                if let Some(ccr) = frm_ccr {
                    e.on_forward_rm(ccr);
                }
            }
            None => {}
        }
    }

    /// A cell reaches the port at `at` (offers come in time order), with `rm`, its RM fields
    /// if it is an RM cell. Returns when it reaches the far end of the link, or `None` if it
    /// was dropped.
    pub fn offer(&mut self, at: SimTime, cell: &Cell, rm: Option<&RmCell>) -> Option<SimTime> {
        self.stats.cells_in += 1;
        if self.switch.is_some() {
            self.observe(at, cell, rm);
        }
        self.release(at);
        self.grow_vcs(cell.vc);
        let vc = cell.vc as usize;
        let total = self.buffer.len() as u64;
        let full = self.config.capacity_cells.is_some_and(|k| total >= k);
        // Most cells are a user cell inside a frame the port accepts, with room for it: no
        // decision to make (what `decide` would conclude, in fewer steps).
        let state = &mut self.vcs[vc];
        if !full
            && cell.rm.is_none()
            && !state.prev_eom
            && state.mode == FrameMode::Accept
            && self.contention.is_none()
        {
            state.prev_eom = cell.eom;
            return Some(self.admit(at, cell.vc));
        }
        self.decide(at, cell, total, full)
    }

    /// `offer`'s decision for a cell that starts a frame, belongs to one the port discards or
    /// cuts short, finds the buffer full, is an RM cell or may be drawn against (contention).
    #[inline(never)]
    fn decide(&mut self, at: SimTime, cell: &Cell, total: u64, full: bool) -> Option<SimTime> {
        let vc = cell.vc as usize;
        if cell.rm.is_some() {
            // RM cells belong to no frame: admitted if there is room.
            if full {
                self.stats.cells_dropped_overflow += 1;
                return None;
            }
            return Some(self.admit(at, cell.vc));
        }
        let state = &mut self.vcs[vc];
        if state.prev_eom {
            state.damaged = false;
            state.mode = match self.config.capacity_cells {
                Some(capacity)
                    if self.config.policy.discards_new_frame(Occupancy {
                        total,
                        capacity,
                        vc: state.queued,
                        active_vcs: self.active_vcs,
                    }) =>
                {
                    self.stats.frames_discarded += 1;
                    FrameMode::Discard
                }
                _ => FrameMode::Accept,
            };
        }
        state.prev_eom = cell.eom;
        let mode = state.mode;
        let mut full = full;
        if mode == FrameMode::Accept && self.contention.is_some() {
            let last_place = self.config.capacity_cells == Some(total + 1);
            full = full || (last_place && self.loses_last_place(at, vc));
            self.vcs[vc].last_arrival = Some(at);
        }
        let state = &mut self.vcs[vc];
        let dropped = match state.mode {
            FrameMode::Discard => {
                self.stats.cells_dropped_policy += 1;
                true
            }
            FrameMode::Ppd if !cell.eom || full => {
                self.stats.cells_dropped_ppd += 1;
                true
            }
            FrameMode::Accept if full => {
                self.stats.cells_dropped_overflow += 1;
                if self.config.ppd_after_overflow && !cell.eom {
                    state.mode = FrameMode::Ppd;
                }
                true
            }
            FrameMode::Accept | FrameMode::Ppd => false,
        };
        if dropped {
            if state.mode != FrameMode::Discard {
                if !std::mem::replace(&mut state.damaged, true) {
                    self.stats.frames_damaged += 1;
                }
                self.stats.eoms_dropped += u64::from(cell.eom);
            }
            return None;
        }
        Some(self.admit(at, cell.vc))
    }

    /// `true` if the port admits every cell the moment it arrives: a host adapter's unbounded
    /// buffer with no switch algorithm, VBR source or contention draw.
    pub fn takes_every_cell(&self) -> bool {
        self.config.capacity_cells.is_none()
            && self.switch.is_none()
            && self.vbr.is_none()
            && self.contention.is_none()
    }

    /// The cells of one frame reach a port that takes every cell at `at` together and go into
    /// its pipe towards hop `next_hop`, as `offer` and `push_pipe` would take them one by one.
    /// Returns when the first reaches the far end if it became the pipe's head (the caller
    /// must then wake the port at that time).
    ///
    /// `admit`'s work for the frame, done once where the cells one by one would repeat it:
    /// nothing leaves between cells offered at one instant, the queue only grows (so its
    /// maxima are the last cell's), and such a port has no VBR source to serve first.
    pub fn offer_frame(
        &mut self,
        at: SimTime,
        frame: FrameCells,
        next_hop: u16,
    ) -> Option<SimTime> {
        debug_assert!(self.takes_every_cell());
        let was_empty = self.pipe.is_empty();
        self.release(at);
        let (vc, cells) = (frame.vc(), frame.cell_count());
        let n = u64::from(cells);
        self.grow_vcs(vc);
        let state = &mut self.vcs[vc as usize];
        if state.prev_eom {
            state.damaged = false;
            state.mode = FrameMode::Accept;
        }
        // The frame's last cell is its EOM.
        state.prev_eom = true;
        self.count_queued(vc, n);
        self.stats.cells_in += n;
        self.admitted += n;
        let mut done = self.busy_until.max(at);
        for index in 0..cells {
            done += self.clock.next_tx_time(u64::from(CELL_BYTES));
            self.buffer.push_back((done, vc));
            let cell = frame.cell(index);
            self.pipe
                .push_back((done + self.config.delay, cell, next_hop));
        }
        self.busy_until = done;
        self.note_max_queue(at);
        let head = self.pipe.front().map(|&(t, ..)| t);
        head.filter(|_| was_empty)
    }

    /// Queues a cell of `vc` arriving at `at`; returns when it reaches the far end. VBR cells
    /// that arrive before the transmitter would take it go first.
    #[inline(always)]
    fn admit(&mut self, at: SimTime, vc: u32) -> SimTime {
        self.count_queued(vc, 1);
        let start = loop {
            let start = self.busy_until.max(at);
            match &mut self.vbr {
                Some(vbr) if vbr.next_arrival() <= start => {
                    let vbr_start = vbr.next_arrival().max(self.busy_until);
                    vbr.take();
                    self.busy_until = vbr_start + self.clock.next_tx_time(u64::from(CELL_BYTES));
                }
                _ => break start,
            }
        };
        self.busy_until = start + self.clock.next_tx_time(u64::from(CELL_BYTES));
        self.buffer.push_back((self.busy_until, vc));
        self.admitted += 1;
        self.note_max_queue(at);
        self.busy_until + self.config.delay
    }

    /// Makes room for `vc`'s state (VCs open as the run goes).
    #[inline(always)]
    fn grow_vcs(&mut self, vc: u32) {
        if vc as usize >= self.vcs.len() {
            self.vcs.resize(vc as usize + 1, VcState::default());
        }
    }

    /// `cells` more cells of `vc` in the buffer, for a policy that reads them.
    #[inline(always)]
    fn count_queued(&mut self, vc: u32, cells: u64) {
        if self.counts_vcs {
            let state = &mut self.vcs[vc as usize];
            if state.queued == 0 {
                self.active_vcs += 1;
            }
            state.queued += cells;
        }
    }

    /// The queue as the last admission left it, at `at`, into the maxima.
    #[inline(always)]
    fn note_max_queue(&mut self, at: SimTime) {
        let queue = self.buffer.len() as u64;
        self.stats.max_queue_cells = self.stats.max_queue_cells.max(queue);
        if at < self.half_time {
            self.stats.max_queue_cells_first_half =
                self.stats.max_queue_cells_first_half.max(queue);
        }
    }

    /// Puts a cell that will reach the far end at `arrive_at` into the pipe; returns `true` if
    /// it is the pipe's head (the caller must then wake the port at that time).
    pub fn push_pipe(&mut self, arrive_at: SimTime, cell: Cell, next_hop: u16) -> bool {
        debug_assert!(
            self.pipe.back().is_none_or(|&(t, ..)| t <= arrive_at),
            "pipe out of order"
        );
        self.pipe.push_back((arrive_at, cell, next_hop));
        self.pipe.len() == 1
    }

    /// The earliest a cell not yet in the pipe (offered at `now` or later) can reach the far
    /// end, or the pipe's head's arrival if that is sooner.
    pub fn earliest_arrival(&self, now: SimTime) -> SimTime {
        let offered = now + self.config.delay;
        self.pipe.front().map_or(offered, |&(t, ..)| t.min(offered))
    }

    /// The link's propagation delay.
    pub fn delay(&self) -> SimDuration {
        self.config.delay
    }

    /// The pipe's head reaches the far end at `now`: returns it with its next hop, and the
    /// arrival time of the new head.
    pub fn pop_pipe(&mut self, now: SimTime) -> ((Cell, u16), Option<SimTime>) {
        let (at, cell, hop) = self.pipe.pop_front().expect("a wake-up for an empty pipe");
        debug_assert_eq!(at, now, "pipe head popped at the wrong time");
        ((cell, hop), self.pipe.front().map(|&(t, ..)| t))
    }

    /// Cells in the buffer at `now` (the one in transmission included), as the last offer left
    /// it: transmissions end in order, so those still running are a suffix.
    pub fn queue_cells(&self, now: SimTime) -> u64 {
        let view = View {
            buffer: &self.buffer,
            vbr: None,
        };
        view.abr_queue(now)
    }

    /// ERICA's last closed averaging interval (`None` for a port without ERICA).
    pub fn erica_interval(&self) -> Option<IntervalRecord> {
        match &self.switch {
            Some(Switch::Erica(e)) => Some(e.last_interval),
            _ => None,
        }
    }

    /// The counters as they stand at `end`.
    pub fn stats_at(&self, end: SimTime) -> PortStats {
        let queued = self.buffer.iter().filter(|&&(done, _)| done > end).count() as u64;
        let (switch_intervals, cis, erica_last) = match &self.switch {
            Some(Switch::Erica(e)) => (e.intervals, 0, e.last_interval),
            Some(Switch::Eprca(e)) => (0, e.cis_set, IntervalRecord::default()),
            None => (0, 0, IntervalRecord::default()),
        };
        PortStats {
            cells_sent: self.admitted - queued,
            cells_queued: queued,
            vbr_cells: self.vbr.as_ref().map_or(0, |v| v.arrivals_before(end)),
            switch_intervals,
            switch_cis_set: cis,
            erica_last,
            ..self.stats.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OC3: Rate = Rate::from_bps(155_520_000).expect("a positive rate");

    fn port(capacity: u64, policy: UbrPolicy) -> Port {
        Port::new(
            PortConfig {
                rate: OC3,
                delay: SimDuration::from_micros(5),
                capacity_cells: Some(capacity),
                ppd_after_overflow: policy.default_ppd_after_overflow(),
                policy,
                switch: None,
                vbr: None,
            },
            SimTime::MAX,
        )
    }

    fn frame(vc: u32, frame: u32, n: u16) -> impl Iterator<Item = Cell> {
        (0..n).map(move |index| Cell {
            vc,
            frame,
            index,
            eom: index + 1 == n,
            efci: false,
            rm: None,
        })
    }

    /// Three VCs each send a cell every cell time, at fixed phases just after the departures
    /// of a full 20-cell buffer, for 3000 cell times: the cells each VC got in.
    fn admitted_per_vc(contention: Option<RngStream>) -> [u64; 3] {
        let mut p = port(20, UbrPolicy::TailDrop);
        if let Some(rng) = contention {
            p.set_contention(rng);
        }
        let cell_ps = 2_726_337u64;
        let mut admitted = [0; 3];
        for slot in 0..3000u64 {
            for vc in 0..3u32 {
                // Phases 1, 2 and 3 ps after each cell boundary, VC 0 first.
                let at = SimTime::from_ps(slot * cell_ps + 1 + u64::from(vc));
                let cell = Cell {
                    vc,
                    frame: 0,
                    index: 0,
                    eom: false,
                    efci: false,
                    rm: None,
                };
                if p.offer(at, &cell, None).is_some() {
                    admitted[vc as usize] += 1;
                }
            }
        }
        admitted
    }

    #[test]
    fn the_last_place_goes_to_the_first_arrival_or_by_lot() {
        // First come: once the buffer is full, VC 0's cell is always the next to arrive after a
        // departure, so it takes every place (the other two got in only while the buffer
        // filled).
        let first_come = admitted_per_vc(None);
        assert!(
            first_come[0] > 2950 && first_come[1] + first_come[2] < 50,
            "{first_come:?}"
        );
        // By lot: the three VCs of one cell time share the places about equally.
        let rng = congsim_core::rng::StreamFactory::new(1, 0).stream("contention");
        let lot = admitted_per_vc(Some(rng));
        assert_eq!(lot.iter().sum::<u64>(), first_come.iter().sum::<u64>());
        assert!(lot.iter().all(|&n| n > 900 && n < 1100), "{lot:?}");
    }

    #[test]
    fn a_frame_offered_at_once_is_what_its_cells_offered_one_by_one_are() {
        // Host adapters (no capacity) under a policy that counts cells per VC and one that
        // does not: frames of random sizes from three VCs at random instants, some while
        // the buffer still holds earlier ones.
        let mut rng = congsim_core::rng::StreamFactory::new(3, 0).stream("frames");
        for policy in [UbrPolicy::TailDrop, UbrPolicy::every_kind(0.9, 0.8)[2]] {
            let adapter = || {
                let mut p = port(1, policy);
                p.config.capacity_cells = None;
                assert!(p.takes_every_cell());
                p
            };
            let (mut whole, mut by_cell) = (adapter(), adapter());
            let mut at = 0;
            for f in 0..300 {
                at += rng.below(40_000_000);
                let (vc, n) = (rng.below(3) as u32, 1 + rng.below(30) as u16);
                let now = SimTime::from_ps(at);
                let head = whole.offer_frame(now, FrameCells::new(vc, f, n), 1);
                let mut by_cell_head = None;
                for c in frame(vc, f, n) {
                    let arrive = by_cell.offer(now, &c, None).expect("admitted");
                    if by_cell.push_pipe(arrive, c, 1) {
                        by_cell_head = Some(arrive);
                    }
                }
                assert_eq!(head, by_cell_head);
                // The far end takes what has arrived, as its events would.
                for p in [&mut whole, &mut by_cell] {
                    while p.pipe.front().is_some_and(|&(t, ..)| t.as_ps() <= at) {
                        p.pipe.pop_front();
                    }
                }
                assert_eq!(whole.pipe, by_cell.pipe);
            }
            let end = SimTime::from_ps(at + 20_000_000);
            assert_eq!(whole.stats_at(end), by_cell.stats_at(end));
            assert_eq!(whole.buffer, by_cell.buffer);
            assert_eq!(whole.vcs, by_cell.vcs);
            assert_eq!(
                (whole.active_vcs, whole.admitted, whole.busy_until),
                (by_cell.active_vcs, by_cell.admitted, by_cell.busy_until)
            );
            assert!(
                whole.stats_at(end).max_queue_cells > 30,
                "frames queued behind others"
            );
        }
    }

    #[test]
    fn a_cell_in_a_pipe_takes_32_bytes() {
        // Cells cross pipes by the million: RM fields stay out of line (`RmCells`).
        assert_eq!(std::mem::size_of::<(SimTime, Cell, u16)>(), 32);
    }

    #[test]
    fn cells_leave_back_to_back_at_the_exact_cell_time() {
        let mut p = port(100, UbrPolicy::TailDrop);
        let arrivals: Vec<SimTime> = frame(0, 0, 12)
            .map(|c| p.offer(SimTime::ZERO, &c, None).unwrap())
            .collect();
        // 424 bits at 155.52 Mb/s = 2.726337448 us a cell, exactly on average; 12 cells take
        // 32.716049 us, then 5 us of propagation.
        assert_eq!(arrivals[0].as_ps(), 2_726_337 + 5_000_000);
        assert_eq!(arrivals[11].as_ps(), 32_716_049 + 5_000_000);
        assert_eq!(p.stats_at(SimTime::from_millis(1)).max_queue_cells, 12);
    }

    #[test]
    fn tail_drop_keeps_the_tail_of_a_damaged_frame_ppd_drops_it() {
        // Capacity 10, 12-cell frames arriving at once: plain UBR drops cells 10 and 11 (the
        // EOM among them) and nothing more.
        let mut plain = port(10, UbrPolicy::TailDrop);
        let kept = frame(0, 0, 12)
            .filter(|c| plain.offer(SimTime::ZERO, c, None).is_some())
            .count();
        assert_eq!(kept, 10);
        let s = plain.stats_at(SimTime::ZERO);
        assert_eq!(
            (s.cells_dropped_overflow, s.frames_damaged, s.eoms_dropped),
            (2, 1, 1)
        );
        // With PPD after the overflow, a frame that overflows at its second cell loses cells
        // 1..=10 and its EOM still enters once a place is free.
        let mut ppd = port(10, UbrPolicy::TailDrop);
        ppd.config.ppd_after_overflow = true;
        for c in frame(1, 0, 9) {
            ppd.offer(SimTime::ZERO, &c, None).unwrap();
        }
        let cell_time = SimTime::from_ps(2_726_338);
        let verdicts: Vec<bool> = frame(0, 0, 12)
            .map(|c| {
                let at = if c.eom { cell_time } else { SimTime::ZERO };
                ppd.offer(at, &c, None).is_some()
            })
            .collect();
        let mut expected = vec![true; 1];
        expected.extend([false; 10]);
        expected.push(true);
        assert_eq!(verdicts, expected);
        let s = ppd.stats_at(cell_time);
        assert_eq!(
            (
                s.cells_dropped_overflow,
                s.cells_dropped_ppd,
                s.eoms_dropped
            ),
            (1, 9, 0)
        );
    }

    #[test]
    fn epd_discards_whole_frames_and_lets_accepted_ones_finish() {
        // K = 20, R = 10 cells: the first 12-cell frame is accepted (X = 0); the second starts
        // with X = 12 > 10 and is discarded whole, EOM included; a frame already accepted keeps
        // its place into the R..K headroom.
        let mut p = port(20, UbrPolicy::Epd { threshold: 0.5 });
        let first: Vec<bool> = frame(0, 0, 12)
            .map(|c| p.offer(SimTime::ZERO, &c, None).is_some())
            .collect();
        assert!(first.iter().all(|&ok| ok));
        assert!(frame(1, 0, 12).all(|c| p.offer(SimTime::ZERO, &c, None).is_none()));
        let s = p.stats_at(SimTime::ZERO);
        assert_eq!(
            (s.frames_discarded, s.cells_dropped_policy, s.frames_damaged),
            (1, 12, 0)
        );
    }

    #[test]
    fn cells_in_balance_sent_dropped_and_queued() {
        let mut p = port(
            30,
            UbrPolicy::Fba {
                threshold: 0.5,
                z: 0.8,
            },
        );
        for f in 0..6 {
            for vc in 0..3 {
                let at = SimTime::from_ps(10_000_000 * u64::from(f));
                for c in frame(vc, f, 12) {
                    p.offer(at, &c, None);
                }
            }
        }
        let s = p.stats_at(SimTime::from_ps(55_000_000));
        assert_eq!(s.cells_in, 6 * 3 * 12);
        assert_eq!(
            s.cells_in,
            s.cells_sent + s.cells_dropped() + s.cells_queued
        );
        assert!(s.cells_queued > 0 && s.cells_dropped() > 0 && s.max_queue_cells <= 30);
    }
}
