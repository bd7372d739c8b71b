//! # congsim: scenarios in, result tables out
//!
//! The facade knows every model crate and nothing knows it. It loads and validates scenario
//! files ([`scenario`]), assembles the network and runs the event loop ([`sim`]), and reports
//! per-flow, per-link and summary tables ([`table`], [`metrics`]).
//!
//! ```no_run
//! let scenario = congsim::scenario::load_file("scenarios/dumbbell-20.toml".as_ref())?;
//! let result = congsim::sim::run(&scenario, 0);
//! print!("{}", result.summary.to_csv());
//! # Ok::<(), congsim::scenario::ScenarioError>(())
//! ```

pub mod metrics;
pub mod pcap;
pub mod scenario;
pub mod sim;
pub mod table;
pub mod transfers;

pub use congsim_core::time::SimTime;
pub use scenario::{Scenario, ScenarioError};
pub use sim::{OBSERVE_EVERY_EVENTS, OPTIONAL_TABLES, RunResult, run, run_observed};
