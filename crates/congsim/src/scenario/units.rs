//! Unit-bearing scenario values: written as strings (`"155.52Mbps"`, `"5ms"`, `"64KB"`),
//! parsed exactly at load time so that a wrong unit is reported with its field path.

use congsim_core::time::SimDuration;
use congsim_core::units::{self, Bytes, Rate};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;

macro_rules! unit_string {
    ($(#[$doc:meta])* $name:ident, $inner:ty, $parse:path, $pattern:literal, $example:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name {
            pub value: $inner,
            text: String,
        }

        impl $name {
            pub fn parse(text: &str) -> Result<Self, units::UnitError> {
                Ok(Self { value: $parse(text)?, text: text.to_string() })
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Text;
                impl serde::de::Visitor<'_> for Text {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        write!(f, "a quoted value with its unit, such as \"{}\"", $example)
                    }
                    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<$name, E> {
                        $name::parse(text).map_err(E::custom)
                    }
                }
                deserializer.deserialize_str(Text)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.text)
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({
                    "type": "string",
                    "pattern": $pattern,
                    "examples": [$example],
                })
            }
        }
    };
}

unit_string!(
    /// A rate: a number followed by `bps`, `Kbps`, `Mbps` or `Gbps` (decimal prefixes), or ns-2's
    /// `b`, `Kb`, `Mb`, `Gb`.
    RateText,
    Rate,
    units::parse_rate,
    r"^[0-9]*\.?[0-9]+ ?(bps|[KkMG]bps|[KkMG]?b/s|[KkMG]?b)$",
    "155.52Mbps"
);
unit_string!(
    /// A rate that may be zero (`"0bps"`), in bits per second: a floor such as ABR's MCR.
    RateOrZeroText,
    u64,
    rate_or_zero_bps,
    r"^[0-9]*\.?[0-9]+ ?(bps|[KkMG]bps|[KkMG]?b/s|[KkMG]?b)$",
    "0bps"
);

/// Bits per second of `text`, zero allowed.
fn rate_or_zero_bps(text: &str) -> Result<u64, units::UnitError> {
    match units::parse_rate(text) {
        Ok(rate) => Ok(rate.bps()),
        Err(units::UnitError::Zero(_)) => Ok(0),
        Err(e) => Err(e),
    }
}
unit_string!(
    /// A duration: a number followed by `s`, `ms`, `us`, `ns` or `ps`.
    DurationText,
    SimDuration,
    units::parse_duration,
    r"^[0-9]*\.?[0-9]+ ?(s|ms|us|µs|ns|ps)$",
    "5ms"
);
unit_string!(
    /// A size: a number followed by `B`, `KB`, `MB` or `GB` (binary prefixes: 1 KB = 1024 B).
    SizeText,
    Bytes,
    units::parse_size,
    r"^[0-9]*\.?[0-9]+ ?(B|bytes|[KkMG]i?B)$",
    "64KB"
);
