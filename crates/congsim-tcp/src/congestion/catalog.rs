//! The one list of congestion controllers. Each line gives the variant, the name a scenario
//! file uses, and the file and type that implement it; the doc comment is the description the
//! JSON Schema and the scenario reference show. `config::CongestionControl` (the names) and
//! `congestion::Controller` (the dispatch, and the `mod` of each file) are both generated from
//! it, so a new controller is one file in `congestion/` plus one line here.

macro_rules! controllers {
    ($then:ident) => {
        $then! {
            /// The profile's own additive increase and halving (ns-2 `opencwnd()`, 4.4BSD,
            /// RFC 5681): the seeds' TCPs.
            Aimd = "aimd" in aimd::Aimd,
            /// CUBIC, RFC 9438 (β = 0.7, C = 0.4, fast convergence, Reno-friendly region).
            Cubic = "cubic" in cubic::Cubic,
            /// DCTCP, RFC 8257 (g = 1/16, a cut by α/2 once per window of ECN echoes; ECN is
            /// on, and a loss halves as RFC 5681).
            Dctcp = "dctcp" in dctcp::Dctcp,
            /// Scalable TCP (Kelly 2003; Linux `tcp_scalable`): one segment per `min(cwnd,
            /// 100)` ACKs above ssthresh, a cut to 7/8.
            Scalable = "scalable" in scalable::Scalable,
            /// BBR v1 as ns-3.37's `TcpBbr` (draft-cardwell-iccrg-bbr-congestion-control-00):
            /// a model of the path's bottleneck bandwidth and round-trip time, paced at a gain
            /// cycle around it; pacing is on.
            Bbr = "bbr" in bbr::Bbr,
        }
    };
}

pub(crate) use controllers;
