//! Quantities with units, their exact arithmetic and the parsers for what users write.
//!
//! Rates are integer bits per second, sizes integer bytes, and durations integer picoseconds.
//! Parsing is exact decimal arithmetic: `"155.52Mbps"` is 155 520 000 bit/s, not the nearest
//! `f64`.

use crate::time::{PS_PER_MS, PS_PER_NS, PS_PER_S, PS_PER_US, SimDuration};
use std::fmt;

/// A count of bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

/// A link rate in bits per second (always > 0 once validated).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate {
    bits_per_sec: u64,
}

impl Rate {
    /// The largest rate accepted: 1 Pbit/s (and so far below 2^62, which the serialization
    /// clock's carry arithmetic relies on).
    pub const MAX_BPS: u64 = 1_000_000_000_000_000;

    /// `None` for zero or above [`Rate::MAX_BPS`].
    pub const fn from_bps(bits_per_sec: u64) -> Option<Self> {
        if bits_per_sec == 0 || bits_per_sec > Self::MAX_BPS {
            None
        } else {
            Some(Self { bits_per_sec })
        }
    }
    pub const fn bps(self) -> u64 {
        self.bits_per_sec
    }
    /// Exact serialization time of `bytes`, rounded down; see [`SerializationClock`] for the
    /// variant that carries the remainder so that long runs never drift.
    pub fn tx_time(self, bytes: u64) -> SimDuration {
        let ps = u128::from(bytes) * 8 * u128::from(PS_PER_S) / u128::from(self.bits_per_sec);
        SimDuration::from_ps(u64::try_from(ps).expect("serialization time overflow"))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}bps", self.bits_per_sec)
    }
}

/// Serialization times for one transmitter, carrying the sub-picosecond remainder from packet to
/// packet, so that the sum over any number of packets equals the exact total rounded down once.
///
/// `bytes · 8 · 10¹² = q · rate + r` is remembered for the last size seen (a link carries
/// mostly one size: data one way, ACKs the other), so a transmission is usually `q` plus one
/// carry, with no division on the per-packet path.
#[derive(Clone, Debug)]
pub struct SerializationClock {
    rate: Rate,
    /// Remainder carried over, in units of 1/rate picoseconds (always `< rate`).
    remainder: u64,
    /// `(bytes, q, r)` of the last size seen.
    last: (u64, u64, u64),
}

impl SerializationClock {
    pub fn new(rate: Rate) -> Self {
        Self {
            rate,
            remainder: 0,
            last: (u64::MAX, 0, 0),
        }
    }
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Time to put `bytes` on the wire, advancing the carried remainder.
    pub fn next_tx_time(&mut self, bytes: u64) -> SimDuration {
        if self.last.0 != bytes {
            let rate = u128::from(self.rate.bits_per_sec);
            let numerator = u128::from(bytes) * 8 * u128::from(PS_PER_S);
            let q = u64::try_from(numerator / rate).expect("serialization time overflow");
            // The remainder is below the rate, which is a u64.
            self.last = (bytes, q, (numerator % rate) as u64);
        }
        let (_, q, r) = self.last;
        // r and the carried remainder are both below the rate (< 2^63 in any real network).
        let carry = r + self.remainder;
        let over = carry >= self.rate.bits_per_sec;
        self.remainder = if over {
            carry - self.rate.bits_per_sec
        } else {
            carry
        };
        SimDuration::from_ps(q + u64::from(over))
    }
}

/// Why a unit string was rejected; the message lists what is accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    #[error(
        "\"{0}\" is not a rate: write a number followed by bps, Kbps, Mbps or Gbps (e.g. \"155.52Mbps\"; ns-2's b, Kb, Mb and Gb too)"
    )]
    Rate(String),
    #[error(
        "\"{0}\" is bytes per second in ns-2 (B = 8 bits): write bits per second, e.g. \"{1}\""
    )]
    BytesPerSecond(String, String),
    #[error(
        "\"{0}\" is not a duration: write a number followed by s, ms, us, ns or ps (e.g. \"5ms\")"
    )]
    Duration(String),
    #[error(
        "\"{0}\" is not a size: write a number followed by B, KB, MB or GB (1 KB = 1024 B, e.g. \"64KB\")"
    )]
    Size(String),
    #[error(
        "\"{0}\": kB is 1000 B in SI but KB is 1024 B here: write KB or KiB (1024 B) or the number of B"
    )]
    AmbiguousKilobyte(String),
    #[error("\"{0}\" must be greater than zero")]
    Zero(String),
    /// A well-formed value that is not a whole number of the unit it resolves to, or too big.
    #[error("\"{0}\" is not a whole number of {1} (or too large): round it")]
    Inexact(String, &'static str),
    #[error("\"{0}\" is above the largest rate supported, 1000000Gbps")]
    TooFast(String),
}

/// Splits `"155.52Mbps"` into the exact value `15552 / 10^2` and the unit `"Mbps"`.
fn split_decimal(text: &str) -> Option<(u128, u32, &str)> {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(end);
    let (int_part, frac_part) = match number.split_once('.') {
        Some((i, f)) => (i, f),
        None => (number, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    // At most 38 digits in all: every such mantissa fits a u128.
    if frac_part.len() > 18 || int_part.len() > 20 {
        return None;
    }
    let digits = format!("{int_part}{frac_part}");
    let mantissa: u128 = digits.parse().ok()?;
    Some((mantissa, frac_part.len() as u32, unit.trim()))
}

/// `mantissa / 10^scale * factor`, only if that is a whole number.
fn scale_exact(mantissa: u128, scale: u32, factor: u128) -> Option<u64> {
    let numerator = mantissa.checked_mul(factor)?;
    let denominator = 10u128.pow(scale);
    if numerator % denominator != 0 {
        return None;
    }
    u64::try_from(numerator / denominator).ok()
}

/// Parses `"100Mbps"`, `"155.52Mbps"`, `"64Kbps"`, `"1Gbps"`, `"9600bps"`, and ns-2's spellings
/// `"10Mb"`, `"64Kb"` (decimal prefixes, bits).
pub fn parse_rate(text: &str) -> Result<Rate, UnitError> {
    let err = || UnitError::Rate(text.to_string());
    let (mantissa, scale, unit) = split_decimal(text).ok_or_else(err)?;
    let factor: u128 = match unit {
        "bps" | "b/s" | "b" => 1,
        "Kbps" | "kbps" | "Kb/s" | "kb/s" | "Kb" | "kb" => 1_000,
        "Mbps" | "Mb/s" | "Mb" => 1_000_000,
        "Gbps" | "Gb/s" | "Gb" => 1_000_000_000,
        // ns-2 reads a B after the prefix as bytes: "10MB" is 80 Mbit/s there.
        "B" | "KB" | "kB" | "MB" | "GB" => {
            let bits = mantissa * 8;
            let (whole, fraction) = (bits / 10u128.pow(scale), bits % 10u128.pow(scale));
            let fraction = format!("{fraction:0width$}", width = scale as usize);
            let fraction = fraction.trim_end_matches('0');
            let dot = if fraction.is_empty() { "" } else { "." };
            let prefix = unit[..unit.len() - 1].to_uppercase();
            return Err(UnitError::BytesPerSecond(
                text.to_string(),
                format!("{whole}{dot}{fraction}{prefix}bps"),
            ));
        }
        _ => return Err(err()),
    };
    let bps = scale_exact(mantissa, scale, factor)
        .ok_or_else(|| UnitError::Inexact(text.to_string(), "bits per second"))?;
    if bps == 0 {
        return Err(UnitError::Zero(text.to_string()));
    }
    Rate::from_bps(bps).ok_or_else(|| UnitError::TooFast(text.to_string()))
}

/// Parses `"5ms"`, `"0.5s"`, `"10us"`, `"100ns"`; zero is allowed (e.g. a start time).
pub fn parse_duration(text: &str) -> Result<SimDuration, UnitError> {
    let err = || UnitError::Duration(text.to_string());
    let (mantissa, scale, unit) = split_decimal(text).ok_or_else(err)?;
    let factor: u128 = match unit {
        "s" => u128::from(PS_PER_S),
        "ms" => u128::from(PS_PER_MS),
        "us" | "µs" => u128::from(PS_PER_US),
        "ns" => u128::from(PS_PER_NS),
        "ps" => 1,
        _ => return Err(err()),
    };
    scale_exact(mantissa, scale, factor)
        .map(SimDuration::from_ps)
        .ok_or_else(|| UnitError::Inexact(text.to_string(), "picoseconds"))
}

/// Parses `"500B"`, `"64KB"`, `"1.5MB"`; `KB` = `KiB` = 1024 bytes, as window and buffer sizes are
/// written in the seed papers (16 × 64 KB = 1 048 576 B).
pub fn parse_size(text: &str) -> Result<Bytes, UnitError> {
    let err = || UnitError::Size(text.to_string());
    let (mantissa, scale, unit) = split_decimal(text).ok_or_else(err)?;
    let factor: u128 = match unit {
        "B" | "bytes" => 1,
        "KB" | "KiB" => 1 << 10,
        // SI's kB is 1000 B and ours would be 1024: refused rather than guessed.
        "kB" => return Err(UnitError::AmbiguousKilobyte(text.to_string())),
        "MB" | "MiB" => 1 << 20,
        "GB" | "GiB" => 1 << 30,
        _ => return Err(err()),
    };
    scale_exact(mantissa, scale, factor)
        .map(Bytes)
        .ok_or_else(|| UnitError::Inexact(text.to_string(), "bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rates_exactly() {
        assert_eq!(parse_rate("155.52Mbps").unwrap().bps(), 155_520_000);
        assert_eq!(parse_rate("100Mbps").unwrap().bps(), 100_000_000);
        assert_eq!(parse_rate("64Kbps").unwrap().bps(), 64_000);
        // ns-2's spellings.
        assert_eq!(parse_rate("10Mb").unwrap().bps(), 10_000_000);
        assert_eq!(parse_rate("1.5Mb").unwrap().bps(), 1_500_000);
        assert_eq!(parse_rate("64kb").unwrap().bps(), 64_000);
        assert_eq!(parse_rate("9600b").unwrap().bps(), 9_600);
        assert_eq!(
            parse_rate("1.5MB").unwrap_err().to_string(),
            "\"1.5MB\" is bytes per second in ns-2 (B = 8 bits): write bits per second, e.g. \"12Mbps\""
        );
        assert_eq!(parse_rate("0Mbps"), Err(UnitError::Zero("0Mbps".into())));
        assert!(parse_rate("10 Mbs").is_err());
        assert!(parse_rate("-5Mbps").is_err());
        assert!(parse_rate("1.5bps").is_err());
        assert_eq!(
            parse_rate("2000000Gbps"),
            Err(UnitError::TooFast("2000000Gbps".into()))
        );
    }

    #[test]
    fn parses_durations_and_sizes() {
        assert_eq!(parse_duration("5ms").unwrap(), SimDuration::from_millis(5));
        assert_eq!(
            parse_duration("0.5s").unwrap(),
            SimDuration::from_millis(500)
        );
        assert_eq!(parse_duration("5us").unwrap(), SimDuration::from_micros(5));
        assert!(parse_duration("5").is_err());
        assert_eq!(parse_size("64KB").unwrap(), Bytes(65_536));
        assert_eq!(parse_size("500B").unwrap(), Bytes(500));
        assert!(parse_size("12 parsecs").is_err());
        // The documented spellings: binary prefixes, a space before the unit.
        assert_eq!(parse_size("2 MiB").unwrap(), Bytes(2 << 20));
        assert_eq!(parse_size("1KiB").unwrap(), parse_size("1KB").unwrap());
        assert_eq!(parse_rate("10 Mb/s").unwrap().bps(), 10_000_000);
        assert_eq!(parse_duration("3 µs").unwrap(), SimDuration::from_micros(3));
        assert_eq!(
            parse_size("64kB"),
            Err(UnitError::AmbiguousKilobyte("64kB".into()))
        );
    }

    #[test]
    fn cell_times_do_not_drift_over_a_million_cells() {
        // An OC-3 payload rate of 149.76 Mbit/s: 424-bit cells take 2831.19658... ns.
        let rate = Rate::from_bps(149_760_000).unwrap();
        let mut clock = SerializationClock::new(rate);
        let total: u64 = (0..1_000_000).map(|_| clock.next_tx_time(53).as_ps()).sum();
        let exact = 1_000_000u128 * 424 * u128::from(PS_PER_S) / 149_760_000;
        assert_eq!(u128::from(total), exact);
        // Mixed sizes, more than the cache holds: still exact in total.
        let mut mixed = SerializationClock::new(rate);
        let sizes = [40u64, 53, 500, 540, 1500, 9000];
        let total: u128 = (0..60_000)
            .map(|i| u128::from(mixed.next_tx_time(sizes[i % 6]).as_ps()))
            .sum();
        let bits: u128 = (0..60_000).map(|i| u128::from(sizes[i % 6]) * 8).sum();
        assert_eq!(total, bits * u128::from(PS_PER_S) / 149_760_000);
        // Without the carried remainder the sum would be short by up to 1 ps per cell.
        assert!(u128::from(rate.tx_time(53).as_ps()) * 1_000_000 < exact);
    }
}
