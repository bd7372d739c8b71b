//! `[topology]`: a network generated from a few numbers, added to the file's own nodes, links
//! and flows before anything is checked (`scenario/topology.rs` expands it).

use super::*;

/// A generated network. Its nodes, links and flows come before the file's own, which may add
/// to them (a user's link between generated nodes, flows of their own with `flows = false`).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TopologySpec {
    /// `pairs` senders `s1..sN` on access links into router `r1`, a bottleneck `r1 -> r2`,
    /// receivers `d1..dN` on links out of `r2`; one persistent TCP flow `si -> di` each.
    Dumbbell(DumbbellSpec),
    /// Routers `r0..rH` in a line of `hops` bottleneck links; a long flow from `long_src` (on
    /// `r0`) to `long_dst` (on `rH`) crosses them all, and cross flow `i` from `cross<i>_src`
    /// (on `r<i>`) to `cross<i>_dst` (on `r<i+1>`) crosses hop `i` alone.
    ParkingLot(ParkingLotSpec),
    /// `senders` hosts `s1..sN` on access links into switch `sw`, whose link to the one
    /// receiver `dst` has a shallow buffer; every sender starts a transfer of `transfer_size`
    /// to `dst` at the same instant (TCP incast: synchronized losses at the switch).
    Incast(IncastSpec),
    /// A k-ary fat tree (Al-Fares et al.): `k` pods of `k/2` edge switches `e<p>_<i>` and
    /// `k/2` aggregation switches `a<p>_<i>`, `(k/2)²` core switches `c<i>`, and `k³/4` hosts
    /// `h<i>` (`k/2` on each edge switch, numbered pod by pod). Every edge switch links to
    /// every aggregation switch of its pod; aggregation switch `i` of every pod links to core
    /// switches `i·k/2 .. i·k/2 + k/2 - 1`. Routing defaults to ECMP (`[routing] ecmp`).
    FatTree(FatTreeSpec),
}

kind_tagged!(TopologySpec, no default, {
    "dumbbell" => Dumbbell(DumbbellSpec),
    "parking_lot" => ParkingLot(ParkingLotSpec),
    "incast" => Incast(IncastSpec),
    "fat_tree" => FatTree(FatTreeSpec),
});

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    /// Sender/receiver pairs (at least 1).
    pub pairs: u32,
    pub access_rate: RateText,
    /// Delay of sender 1's access link (of every sender's without `access_delay_max`).
    pub access_delay: DurationText,
    /// With it, sender i's access delay is spread evenly from `access_delay` (sender 1) to
    /// this (sender N), rounded to the nanosecond, as the benchmark dumbbell's 3..7 ms.
    #[serde(default)]
    pub access_delay_max: Option<DurationText>,
    /// Delay of every receiver's link (default `access_delay`).
    #[serde(default)]
    pub receiver_delay: Option<DurationText>,
    pub bottleneck_rate: RateText,
    pub bottleneck_delay: DurationText,
    /// The queue of both directions of the bottleneck.
    #[serde(default)]
    pub bottleneck_queue: QueueSpec,
    /// One persistent TCP flow per pair, named `tcp<i>`, with the file's `[tcp]` settings.
    #[serde(default = "default_true")]
    pub flows: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParkingLotSpec {
    /// Bottleneck links in the line (at least 1).
    pub hops: u32,
    pub hop_rate: RateText,
    pub hop_delay: DurationText,
    /// The queue of both directions of every hop.
    #[serde(default)]
    pub hop_queue: QueueSpec,
    pub access_rate: RateText,
    pub access_delay: DurationText,
    /// The long flow `long` and the cross flows `cross<i>`, persistent TCP with the file's
    /// `[tcp]` settings.
    #[serde(default = "default_true")]
    pub flows: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IncastSpec {
    /// Senders (at least 1).
    pub senders: u32,
    /// Rate of every link, the receiver's included.
    pub rate: RateText,
    /// Delay of every link.
    pub delay: DurationText,
    /// The queue of the switch's link to the receiver (both directions).
    #[serde(default)]
    pub switch_queue: QueueSpec,
    /// Bytes each sender transfers, all starting at time 0 (with `flows = true`).
    pub transfer_size: SizeText,
    /// One TCP flow `tcp<i>` from each sender, with the file's `[tcp]` settings.
    #[serde(default = "default_true")]
    pub flows: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FatTreeSpec {
    /// Ports per switch: even, from 2 to 64.
    pub k: u32,
    /// Rate of every link, hosts' included.
    pub rate: RateText,
    /// Delay of every link.
    pub delay: DurationText,
    /// The queue of every link (both directions).
    #[serde(default)]
    pub queue: QueueSpec,
    /// Persistent TCP flows `h<i>-h<j>` with the file's `[tcp]` settings: `stride` (host `i`
    /// to host `i + hosts/2`, wrapping: every flow crosses the core; the default),
    /// `all_to_all` (every ordered pair of hosts) or `none`.
    #[serde(default)]
    pub traffic: FatTreeTraffic,
}

/// The flows `[topology] kind = "fat_tree"` generates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FatTreeTraffic {
    #[default]
    Stride,
    AllToAll,
    None,
}
