//! # congsim-atm: TCP/IP over ATM cells
//!
//! IP datagrams cross an ATM network as AAL5 frames of 53-byte cells ([`aal5`]) on virtual
//! circuits. Every ATM link is driven by an output [`port`]: a shared cell buffer with per-VC
//! accounting and a UBR drop policy ([`ubr`]: tail drop, Early Packet Discard, Selective Drop,
//! Fair Buffer Allocation), a transmitter sending one cell per cell time, and the propagation
//! pipe. The [`network`] ties ports into VC paths, segments datagrams at the source host and
//! reassembles them at the destination, so TCP above runs unchanged (spec `atm.md` §1–4).
//!
//! Like the IP layer, the network is a sans-IO state machine: the caller hands it datagrams and
//! due wake-ups, and it answers with the wake-ups to schedule and the datagrams delivered.

pub mod aal5;
pub mod abr;
pub mod erica;
pub mod network;
pub mod port;
mod ring;
pub mod ubr;
pub mod vbr;

pub use aal5::{CELL_BYTES, cells_for};
pub use network::{AtmEvent, AtmNetwork, VcId, VcStats};
pub use port::{PortConfig, PortStats};
pub use ubr::UbrPolicy;
