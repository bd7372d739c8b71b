//! Simulated time: `u64` picoseconds (about 213 days of range).
//!
//! Integers keep event order exact: RED, CBQ and the BSD tick clocks compare times for equality,
//! and floating-point time would make those comparisons depend on rounding.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per unit, used by the constructors.
pub const PS_PER_NS: u64 = 1_000;
pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_MS: u64 = 1_000_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// An instant of simulated time, in picoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(u64);

/// A span of simulated time, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(u64);

impl SimTime {
    pub const ZERO: Self = Self(0);
    pub const MAX: Self = Self(u64::MAX);

    pub const fn from_ps(ps: u64) -> Self {
        Self(ps)
    }
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    pub const fn from_millis(ms: u64) -> Self {
        Self(ms * PS_PER_MS)
    }
    pub const fn from_secs(s: u64) -> Self {
        Self(s * PS_PER_S)
    }
    /// Seconds as `f64`, for output only: never feed this back into the model.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// Time elapsed since `earlier` (saturating at zero).
    pub fn since(self, earlier: Self) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: Self = Self(0);

    pub const fn from_ps(ps: u64) -> Self {
        Self(ps)
    }
    pub const fn from_nanos(ns: u64) -> Self {
        Self(ns * PS_PER_NS)
    }
    pub const fn from_micros(us: u64) -> Self {
        Self(us * PS_PER_US)
    }
    pub const fn from_millis(ms: u64) -> Self {
        Self(ms * PS_PER_MS)
    }
    pub const fn from_secs(s: u64) -> Self {
        Self(s * PS_PER_S)
    }
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    /// Seconds as `f64`, for output, statistics and the controllers specified in floating
    /// point (PIE's).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }
    /// `self * k`, saturating.
    pub const fn mul(self, k: u64) -> Self {
        Self(self.0.saturating_mul(k))
    }
    /// `self - other`, or zero.
    pub const fn saturating_sub(self, other: Self) -> Self {
        Self(self.0.saturating_sub(other.0))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(
            self.0
                .checked_add(d.0)
                .expect("simulated time overflowed u64 picoseconds"),
        )
    }
}

impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        *self = *self + d;
    }
}

impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    fn sub(self, rhs: SimTime) -> SimDuration {
        SimDuration(
            self.0
                .checked_sub(rhs.0)
                .expect("time subtraction went negative"),
        )
    }
}

impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0 + d.0)
    }
}

impl fmt::Display for SimTime {
    /// Seconds with picosecond precision, e.g. `1.250000000000s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:012}s", self.0 / PS_PER_S, self.0 % PS_PER_S)
    }
}

impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        SimTime(self.0).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_exact_seconds() {
        assert_eq!(SimTime::from_millis(1250).to_string(), "1.250000000000s");
        assert_eq!(SimTime::from_ps(7).to_string(), "0.000000000007s");
    }

    #[test]
    fn arithmetic_round_trips() {
        let t = SimTime::from_secs(2) + SimDuration::from_micros(5);
        assert_eq!(t.as_ps(), 2 * PS_PER_S + 5 * PS_PER_US);
        assert_eq!(t - SimTime::from_secs(2), SimDuration::from_micros(5));
        assert_eq!(SimTime::from_secs(1).since(t), SimDuration::ZERO);
    }
}
