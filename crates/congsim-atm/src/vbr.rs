//! Background VBR (spec `atm.md` §6.1): a deterministic on/off source entering at a switch
//! port, cells at constant spacing during `on` periods of length `on`, separated by `off`, from
//! `start`. Its arrivals are known in advance, so the port serves it ahead of its buffer
//! without events: it places each VBR cell when a later cell of the buffer is scheduled.

use congsim_core::time::{PS_PER_S, SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq)]
pub struct VbrConfig {
    /// Cells/s during an on period.
    pub rate: f64,
    pub on: SimDuration,
    pub off: SimDuration,
    pub start: SimTime,
}

#[derive(Debug)]
pub struct VbrSource {
    start: SimTime,
    /// Cell spacing during an on period, rounded to the picosecond.
    spacing_ps: u64,
    period_ps: u64,
    /// Cells in each on period.
    per_on: u64,
    /// The next cell not yet served.
    next: u64,
}

impl VbrSource {
    pub fn new(config: VbrConfig) -> Self {
        let spacing_ps = ((PS_PER_S as f64 / config.rate).round() as u64).max(1);
        Self {
            start: config.start,
            spacing_ps,
            period_ps: config.on.as_ps() + config.off.as_ps(),
            per_on: config.on.as_ps().div_ceil(spacing_ps),
            next: 0,
        }
    }

    /// When cell `i` arrives.
    fn arrival(&self, i: u64) -> SimTime {
        self.start
            + SimDuration::from_ps(
                (i / self.per_on) * self.period_ps + (i % self.per_on) * self.spacing_ps,
            )
    }

    /// The next cell not yet served arrives then.
    pub fn next_arrival(&self) -> SimTime {
        self.arrival(self.next)
    }

    /// The next cell is being served.
    pub fn take(&mut self) {
        self.next += 1;
    }

    /// Cells arriving before `t`.
    pub fn arrivals_before(&self, t: SimTime) -> u64 {
        let Some(elapsed) = t.as_ps().checked_sub(self.start.as_ps()) else {
            return 0;
        };
        let full = elapsed / self.period_ps;
        let rem = elapsed % self.period_ps;
        full * self.per_on + rem.div_ceil(self.spacing_ps).min(self.per_on)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_come_in_on_periods_at_constant_spacing() {
        // 1 cell per 10 us for 100 us, then 100 us off, from 2 ms.
        let mut v = VbrSource::new(VbrConfig {
            rate: 100_000.0,
            on: SimDuration::from_micros(100),
            off: SimDuration::from_micros(100),
            start: SimTime::from_millis(2),
        });
        let us = |x: u64| SimTime::from_ps(x * 1_000_000);
        assert_eq!(v.next_arrival(), us(2000));
        let times: Vec<SimTime> = (0..12)
            .map(|_| {
                let t = v.next_arrival();
                v.take();
                t
            })
            .collect();
        assert_eq!(times[9], us(2090));
        assert_eq!(times[10], us(2200), "the next on period");
        assert_eq!(v.arrivals_before(us(2000)), 0);
        assert_eq!(v.arrivals_before(us(2001)), 1);
        assert_eq!(v.arrivals_before(us(2150)), 10);
        assert_eq!(v.arrivals_before(us(2201)), 11);
        assert_eq!(v.arrivals_before(us(4000)), 100, "ten periods of ten cells");
    }
}
