//! Congestion control: how the window grows on an ACK and how far a congestion event cuts it,
//! apart from loss recovery (`crate::recovery`: when a loss is suspected and what is resent),
//! in the manner of ns-3's `TcpCongestionOps` and smoltcp's `Controller`.
//!
//! A controller keeps its own state and answers the sender through the contract in `ops`:
//! it reads the sender's [`CongestionWindow`] and returns decisions, never writing it.
//! Dispatch is static: [`Controller`] is an enum generated from the one list in `catalog`, so
//! adding a controller is a new file implementing [`CongestionOps`] and one line there.

pub(crate) mod catalog;
mod ops;

use crate::config::CongestionControl;
use crate::window::{CongestionWindow, Cut, WindowSize};
use congsim_core::time::SimDuration;

pub use ops::{AckSample, Cause, CongestionEvent, CongestionOps, CutBase, SentSegment};

macro_rules! dispatch {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal in $module:ident :: $state:ident,)+) => {
        $(mod $module;)+
        $(pub use $module::$state;)+

        /// A controller with its state, chosen once per connection.
        #[derive(Clone, Debug)]
        pub enum Controller {
            $($(#[doc = $doc])* $variant($state),)+
        }

        impl Controller {
            pub fn new(kind: CongestionControl) -> Self {
                match kind {
                    $(CongestionControl::$variant => Self::$variant(<$state>::default()),)+
                }
            }

            /// The controller of `kind` reads delivery-rate samples.
            pub fn samples_delivery_rate(kind: CongestionControl) -> bool {
                match kind {
                    $(CongestionControl::$variant => <$state>::SAMPLES_DELIVERY_RATE,)+
                }
            }

            /// The controller of `kind` draws random numbers (and wants a seed).
            pub fn draws_random(kind: CongestionControl) -> bool {
                match kind {
                    $(CongestionControl::$variant => <$state>::DRAWS_RANDOM,)+
                }
            }

            /// The controller grows by the profile's own rule only
            /// ([`CongestionOps::STANDARD_GROWTH`]).
            #[inline]
            pub fn standard_growth(&self) -> bool {
                match self {
                    $(Self::$variant(_) => <$state>::STANDARD_GROWTH,)+
                }
            }

            pub fn seed(&mut self, seed: u64) {
                match self {
                    $(Self::$variant(state) => state.seed(seed),)+
                }
            }
        }

        impl CongestionOps for Controller {
            #[inline]
            fn on_ack(&mut self, window: &CongestionWindow, ack: &AckSample) -> Option<WindowSize> {
                match self {
                    $(Self::$variant(state) => state.on_ack(window, ack),)+
                }
            }

            fn on_congestion(&mut self, window: &CongestionWindow, event: &CongestionEvent) -> Cut {
                match self {
                    $(Self::$variant(state) => state.on_congestion(window, event),)+
                }
            }

            #[inline]
            fn on_sent(&mut self, segment: &SentSegment) {
                match self {
                    $(Self::$variant(state) => state.on_sent(segment),)+
                }
            }

            fn pacing_rate_bps(
                &self,
                window: &CongestionWindow,
                segment_bytes: u32,
                smoothed_rtt: SimDuration,
            ) -> f64 {
                match self {
                    $(Self::$variant(state) => {
                        state.pacing_rate_bps(window, segment_bytes, smoothed_rtt)
                    })+
                }
            }
        }
    };
}

catalog::controllers!(dispatch);
