//! The resource budget: what one scenario (or sweep plan) may ask of the machine, checked from
//! the scenario's parameters before anything of that size is allocated or run, so that a
//! mistyped number ends in a message instead of exhausting memory or running for ever.
//!
//! Each limit has a default that real work does not meet; `CONGSIM_LIMITS` raises (or lowers)
//! any of them on purpose, e.g. `CONGSIM_LIMITS="flows=2000000,trace_rows=1e9"`. It is read
//! from the environment of the process that validates, so it is not a field of the file: a
//! scenario or plan someone else wrote cannot raise its own limits.

use super::ScenarioError;

/// The environment variable that sets limits (`name=value` pairs separated by commas).
pub const LIMITS_VARIABLE: &str = "CONGSIM_LIMITS";

/// One limit: its name in `CONGSIM_LIMITS`, its default and what it counts.
pub struct LimitDef {
    pub name: &'static str,
    pub default: u64,
    pub counts: &'static str,
}

/// Every limit, in the order the documentation lists them.
pub const LIMITS: [LimitDef; 12] = [
    LimitDef {
        name: "file_bytes",
        default: 64 << 20,
        counts: "bytes of a scenario or plan file",
    },
    // Validation holds about 2 KB per node and link entry (a 500 000-pair dumbbell: 2 GB),
    // so these keep it within a few GB.
    LimitDef {
        name: "nodes",
        default: 2_000_000,
        counts: "nodes, after a [topology] is expanded",
    },
    LimitDef {
        name: "links",
        default: 1_000_000,
        counts: "[[links]] entries, after a [topology] is expanded",
    },
    LimitDef {
        name: "flows",
        default: 1_000_000,
        counts: "TCP flows and CBR sources, after counts and a [topology] are expanded",
    },
    LimitDef {
        name: "fq_queues",
        default: 10_000_000,
        counts: "flow queues of every FQ-CoDel and FQ-PIE link together (about 100 bytes each)",
    },
    LimitDef {
        name: "events",
        default: 100_000,
        counts: "scheduled [[events]] (a link going down or up recomputes every route)",
    },
    LimitDef {
        name: "route_entries",
        default: 100_000_000,
        counts: "route table entries (nodes x destinations of traffic; 4 bytes each)",
    },
    LimitDef {
        name: "transfers",
        default: 2_000_000,
        counts: "random transfers a [[transfers]] group is expected to start",
    },
    LimitDef {
        name: "source_packets",
        default: 1_000_000_000,
        counts: "packets (or ATM cells) the CBR and VBR sources send over the run, at their rates",
    },
    LimitDef {
        name: "series_rows",
        default: 20_000_000,
        counts: "rows of the time series (samples x flows, sources and links)",
    },
    LimitDef {
        name: "trace_rows",
        default: 100_000_000,
        counts: "rows the sequence trace or TCP event table may reach at the flows' bottleneck rates, and the sojourn table at its links' rates",
    },
    LimitDef {
        name: "plan_runs",
        default: 1_000_000,
        counts: "runs a sweep plan or study expands to (configurations x replications)",
    },
];

/// The limits in force.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    values: [u64; LIMITS.len()],
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            values: LIMITS.map(|l| l.default),
        }
    }
}

/// A limit's index in [`LIMITS`], by name; names are checked when the limits are read.
fn index(name: &str) -> usize {
    LIMITS
        .iter()
        .position(|l| l.name == name)
        .unwrap_or_else(|| unreachable!("no limit named {name}"))
}

impl Limits {
    /// The limits of this process: the defaults, with `CONGSIM_LIMITS` applied.
    pub fn from_env() -> Result<Limits, ScenarioError> {
        match std::env::var(LIMITS_VARIABLE) {
            Ok(text) => Limits::parse(&text),
            Err(std::env::VarError::NotPresent) => Ok(Limits::default()),
            Err(std::env::VarError::NotUnicode(_)) => Err(variable_error("is not UTF-8 text")),
        }
    }

    /// The defaults with `text` (`name=value,...`) applied; values are whole numbers, written
    /// plainly, with `_` separators or in `1e9` notation.
    pub fn parse(text: &str) -> Result<Limits, ScenarioError> {
        let mut limits = Limits::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((name, value)) = part.split_once('=') else {
                return Err(variable_error(&format!(
                    "{:?} is not name=value",
                    shown(part)
                )));
            };
            let name = name.trim();
            let Some(i) = LIMITS.iter().position(|l| l.name == name) else {
                let names: Vec<&str> = LIMITS.iter().map(|l| l.name).collect();
                return Err(variable_error(&format!(
                    "unknown limit {:?}; the limits are {}",
                    shown(name),
                    names.join(", ")
                )));
            };
            limits.values[i] = whole_number(value.trim()).ok_or_else(|| {
                variable_error(&format!(
                    "{name} = {:?}: give a whole number from 1 to 2^63 (e.g. 2000000 or 2e6)",
                    shown(value.trim())
                ))
            })?;
        }
        Ok(limits)
    }

    /// The limit called `name` (one of [`LIMITS`]).
    pub fn get(&self, name: &str) -> u64 {
        self.values[index(name)]
    }

    /// Every limit in force, by name.
    pub fn entries(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        LIMITS.iter().zip(self.values).map(|(l, v)| (l.name, v))
    }

    /// `Err` naming `file` and `path` when `figure` (what the scenario asks for) passes the
    /// limit `name`; `what` says what makes the figure, and includes it.
    pub fn check(
        &self,
        name: &str,
        figure: u64,
        file: &str,
        path: &str,
        what: impl FnOnce() -> String,
    ) -> Result<(), ScenarioError> {
        let limit = self.get(name);
        if figure <= limit {
            return Ok(());
        }
        Err(ScenarioError {
            file: file.to_string(),
            path: path.to_string(),
            message: format!(
                "{}; the {name} limit is {} ({LIMITS_VARIABLE}={name}=N raises it)",
                what(),
                grouped(limit)
            ),
        })
    }
}

fn variable_error(message: &str) -> ScenarioError {
    ScenarioError {
        file: LIMITS_VARIABLE.to_string(),
        path: String::new(),
        message: message.to_string(),
    }
}

/// At most 40 characters of a value, for messages.
fn shown(value: &str) -> String {
    value.chars().take(40).collect()
}

/// A whole number from 1 to 2^63: digits with optional `_`, or a mantissa and exponent.
fn whole_number(text: &str) -> Option<u64> {
    let plain: String = text.chars().filter(|&c| c != '_').collect();
    let value = match plain.parse::<u64>() {
        Ok(v) => v,
        Err(_) => {
            let x: f64 = plain.parse().ok()?;
            if !(x.is_finite() && x.fract() == 0.0 && x <= (1u64 << 63) as f64) {
                return None;
            }
            x as u64
        }
    };
    (1..=1u64 << 63).contains(&value).then_some(value)
}

/// A number with thousands separators, for limits in messages.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_sets_named_limits_and_refuses_anything_else() {
        let limits = Limits::parse("flows=2e6, trace_rows = 1_000 ,").unwrap();
        assert_eq!(limits.get("flows"), 2_000_000);
        assert_eq!(limits.get("trace_rows"), 1_000);
        assert_eq!(limits.get("nodes"), Limits::default().get("nodes"));
        for bad in [
            "flows",
            "flow=3",
            "flows=0",
            "flows=-1",
            "flows=1.5",
            "flows=1e30",
            "flows=x",
        ] {
            let e = Limits::parse(bad).unwrap_err();
            assert_eq!(e.file, LIMITS_VARIABLE, "{bad}");
        }
    }

    #[test]
    fn a_figure_over_its_limit_names_field_figure_limit_and_the_way_to_raise_it() {
        let limits = Limits::parse("flows=10").unwrap();
        assert!(
            limits
                .check("flows", 10, "f.toml", "x", String::new)
                .is_ok()
        );
        let e = (limits.check("flows", 11, "f.toml", "topology.pairs", || {
            "makes 11 flows".into()
        }))
        .unwrap_err();
        assert_eq!(e.path, "topology.pairs");
        assert_eq!(
            e.message,
            "makes 11 flows; the flows limit is 10 (CONGSIM_LIMITS=flows=N raises it)"
        );
    }
}
