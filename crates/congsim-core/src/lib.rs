//! # congsim-core: the engine, knowing no protocol
//!
//! Everything a model needs from the simulator and nothing about any model:
//!
//! * [`time`]: simulated time as integer picoseconds ([`SimTime`], [`SimDuration`]); never floats.
//! * [`units`]: [`Rate`] and [`Bytes`] with exact serialization times, and the parsers for the
//!   unit strings users write in scenario files (`"155.52Mbps"`, `"5ms"`, `"64KB"`).
//! * [`queue`]: the event queue, ordered by `(time, insertion sequence)` so that simultaneous
//!   events are processed in a fixed order on every run.
//! * [`rng`]: one named, portable random stream per random process, derived from
//!   `(seed, replication, component name)`.
//! * [`ids`] and [`wire`]: typed indices and the typed packet headers that travel on links
//!   (payload is a length, never bytes).
//!
//! Protocol crates (`congsim-tcp`, `congsim-ip`) depend on this crate; it depends on none of them.

pub mod ids;
pub mod queue;
pub mod rng;
pub mod time;
pub mod units;
pub mod wire;

pub use ids::{FlowId, LinkId, NodeId};
pub use queue::EventQueue;
pub use rng::{RngStream, StreamFactory};
pub use time::{SimDuration, SimTime};
pub use units::{Bytes, Rate};
