//! Congestion control: how the window grows on an ACK and how far a congestion event cuts it,
//! apart from loss recovery (`crate::recovery`: when a loss is suspected and what is resent),
//! in the manner of ns-3's `TcpCongestionOps` and smoltcp's `Controller`.
//!
//! A controller keeps its own state and works on the sender's [`CongestionWindow`]. Dispatch
//! is static: [`Controller`] is an enum generated from one list, so adding a controller is a
//! new file implementing [`CongestionOps`] and one line in `controllers!` below, plus its
//! name: a [`CongestionControl`] variant (`config`, which every layer may read) and the
//! scenario file's name for it (`congsim::scenario::schema`).

mod aimd;
mod cubic;
mod ops;

use crate::config::CongestionControl;
use crate::window::CongestionWindow;
use congsim_core::time::SimTime;

pub use aimd::Aimd;
pub use cubic::Cubic;
pub use ops::{CongestionOps, CutBase};

macro_rules! controllers {
    ($($(#[$doc:meta])* $variant:ident($state:ty),)+) => {
        /// A controller with its state, chosen once per connection.
        #[derive(Clone, Debug)]
        pub enum Controller {
            $($(#[$doc])* $variant($state),)+
        }

        impl Controller {
            pub fn new(kind: CongestionControl) -> Self {
                match kind {
                    $(CongestionControl::$variant => Self::$variant(<$state>::default()),)+
                }
            }
        }

        impl CongestionOps for Controller {
            fn on_ack(&mut self, window: &mut CongestionWindow, now: SimTime, min_rtt_s: f64) {
                match self {
                    $(Self::$variant(state) => state.on_ack(window, now, min_rtt_s),)+
                }
            }

            fn on_congestion(
                &mut self,
                window: &mut CongestionWindow,
                now: SimTime,
                base: CutBase,
            ) -> f64 {
                match self {
                    $(Self::$variant(state) => state.on_congestion(window, now, base),)+
                }
            }

            fn on_timeout(&mut self) {
                match self {
                    $(Self::$variant(state) => state.on_timeout(),)+
                }
            }
        }
    };
}

controllers! {
    /// The profile's own additive increase, multiplicative decrease (ns-2 `opencwnd()`,
    /// 4.4BSD, RFC 5681): the seeds' TCPs.
    Aimd(Aimd),
    /// CUBIC, RFC 9438.
    Cubic(Cubic),
}
