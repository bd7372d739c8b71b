//! Congestion control: how the window grows on an ACK and how far a congestion event cuts it,
//! apart from loss recovery (`crate::recovery`: when a loss is suspected and what is resent),
//! in the manner of ns-3's `TcpCongestionOps` and smoltcp's `Controller`.
//!
//! A controller keeps its own state and works on the sender's [`CongestionWindow`]. Dispatch
//! is static: [`Controller`] is an enum generated from one list, so adding a controller is a
//! new file implementing [`CongestionOps`] and one line in `controllers!` below (plus the
//! name scenario files use for it).

mod aimd;
mod cubic;

use crate::config::SenderConfig;
use crate::window::CongestionWindow;
use congsim_core::time::SimTime;

pub use aimd::Aimd;
pub use cubic::Cubic;

/// What a congestion event cuts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutBase {
    /// `min(cwnd, rwnd)`, the receiver window in packets (packet mode) or bytes (byte mode).
    Window { rwnd: u64 },
    /// The FlightSize, in segments (RFC 5681 (4)).
    Flight { segments: u64 },
}

/// The two decisions a congestion controller makes.
pub trait CongestionOps {
    /// A new ACK that may open the window (not one echoing a mark, nor one during recovery
    /// where the variant freezes the window). `min_rtt_s` is the smallest exact RTT sampled so
    /// far (infinite before the first).
    fn on_ack(
        &mut self,
        window: &mut CongestionWindow,
        cfg: &SenderConfig,
        now: SimTime,
        min_rtt_s: f64,
    );

    /// A congestion event (fast retransmit, timeout, ECN response): sets `ssthresh` and
    /// returns the reduced window as [`CongestionWindow::halve`] does (packet mode: the reduced
    /// window in segments; byte mode: the new ssthresh in bytes). The caller sets `cwnd`.
    fn on_congestion(&mut self, window: &mut CongestionWindow, now: SimTime, base: CutBase) -> f64;

    /// The retransmit timer expired (after `on_congestion` cut for it).
    fn on_timeout(&mut self) {}
}

macro_rules! controllers {
    ($($(#[$doc:meta])* $variant:ident($state:ty) = $name:literal,)+) => {
        /// Which congestion controller a sender runs (scenario `tcp.congestion_control`).
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub enum CongestionControl {
            #[default]
            $($(#[$doc])* $variant,)+
        }

        impl CongestionControl {
            /// The names scenario files use, in declaration order.
            pub const NAMES: &[&str] = &[$($name),+];

            pub fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }

            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $($name => Some(Self::$variant),)+
                    _ => None,
                }
            }
        }

        /// A controller with its state, chosen once per connection.
        #[derive(Clone, Debug)]
        pub enum Controller {
            $($variant($state),)+
        }

        impl Controller {
            pub fn new(kind: CongestionControl) -> Self {
                match kind {
                    $(CongestionControl::$variant => Self::$variant(<$state>::default()),)+
                }
            }
        }

        impl CongestionOps for Controller {
            fn on_ack(
                &mut self,
                window: &mut CongestionWindow,
                cfg: &SenderConfig,
                now: SimTime,
                min_rtt_s: f64,
            ) {
                match self {
                    $(Self::$variant(state) => state.on_ack(window, cfg, now, min_rtt_s),)+
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
    Aimd(Aimd) = "aimd",
    /// CUBIC, RFC 9438.
    Cubic(Cubic) = "cubic",
}
