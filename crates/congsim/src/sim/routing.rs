//! Where a packet goes next: the next hop at each node (a dense table on small networks, the
//! scenario's rows on large ones; ECMP by a salted flow hash), and hop fusion: the links a
//! packet is offered to at once, without an event, because the next link is fed by this one
//! alone (an exact shortcut, see `congsim_ip::Link::offer`).

use crate::scenario::model::{ResolvedLink, Scenario};
use crate::scenario::routes::{Hop, HopCode, Routes};
use congsim_core::wire::Packet;
use congsim_core::{LinkId, NodeId};
use congsim_ip::Link;
use std::borrow::Cow;

/// Node pairs up to which next hops are kept in one dense table (8 MB).
const DENSE_HOP_ENTRIES: usize = 1 << 20;

/// `fuse_row` of a link that fuses into no next link.
const NO_FUSION: u32 = u32::MAX;

pub(super) struct Routing<'a> {
    /// The routes over the links that are up: the scenario's until a link goes down.
    routes: Cow<'a, Routes>,
    /// The scenario's routes, for a destination the links still up cannot reach: its packets
    /// go their usual way and are lost at the link that is down.
    usual: &'a Routes,
    /// Per link: the node it leads to (a dense copy of the scenario's, for the hot path).
    link_to: Vec<NodeId>,
    /// Per link: its row in `fuse_next`, or `NO_FUSION` when it fuses into no next link (most
    /// links; this small table stays in cache where a lookup in the large one would miss).
    fuse_row: Vec<u32>,
    /// `fuse_next[fuse_row[link] * hop_columns + column of destination]`: the link a packet
    /// for `destination` leaving `link` is offered to at once (hop fusion), when that link is
    /// fed by `link` alone and accepts early offers.
    fuse_next: Vec<Option<LinkId>>,
    /// Destinations per row of `fuse_next` and `dense_next`: every node when `dense_next` is
    /// there (a destination's column is its index), else the nodes traffic is addressed to (its
    /// row in the scenario's routes).
    hop_columns: usize,
    /// `dense_next[node * hop_columns + destination]`: the next hop's [`HopCode`], for
    /// networks of up to [`DENSE_HOP_ENTRIES`] node pairs.
    dense_next: Option<Vec<HopCode>>,
    /// The salt of this run's ECMP flow hashes (`Scenario::ecmp_salt`).
    ecmp_salt: u64,
}

impl<'a> Routing<'a> {
    /// The tables of `scenario`'s routes for replication `replication`, with hop fusion into
    /// those of `links` that accept early offers.
    pub(super) fn new(scenario: &'a Scenario, links: &[Link], replication: u32) -> Self {
        let salt = scenario.ecmp_salt(replication);
        Self::over(scenario, links, salt, Cow::Borrowed(&scenario.routes))
    }

    /// The routing once the links with `up[i] = false` are down (or back up): shortest paths
    /// over the others (scheduled events; hop fusion is off in a scenario that has them).
    pub(super) fn rerouted(&self, scenario: &'a Scenario, links: &[Link], up: &[bool]) -> Self {
        let hops: Vec<UpLink<'_>> = (scenario.links.iter().zip(up))
            .map(|(link, &up)| UpLink { link, up })
            .collect();
        let destinations = scenario.routes.destinations();
        let routes = Routes::compute(scenario.nodes.len(), &hops, destinations, scenario.ecmp);
        Self::over(scenario, links, self.ecmp_salt, Cow::Owned(routes))
    }

    fn over(
        scenario: &'a Scenario,
        links: &[Link],
        ecmp_salt: u64,
        owned_routes: Cow<'a, Routes>,
    ) -> Self {
        let routes: &Routes = &owned_routes;
        let link_to = scenario.links.iter().map(|l| l.to).collect();
        let usual = &scenario.routes;
        let nodes = scenario.nodes.len();
        // Small networks get every (node, destination) pair in one table, which the hot path
        // reads with one load; large ones read the scenario's rows per destination.
        let dense = nodes * nodes <= DENSE_HOP_ENTRIES;
        let destinations: Vec<NodeId> = if dense {
            (0..nodes as u32).map(NodeId).collect()
        } else {
            routes.destinations().collect()
        };
        let columns = destinations.len();
        let dense_next = dense.then(|| {
            (0..nodes as u32)
                .flat_map(|at| {
                    destinations
                        .iter()
                        .map(move |&to| routes.hop_code(NodeId(at), to))
                })
                .collect()
        });
        // A fused hop's drop happens before the sender's clock reaches it; the sequence trace
        // records the sender's state with each drop, so tracing runs every hop as an event.
        let fusion = scenario.hop_fusion && !scenario.sequence_trace;
        // Rows only for the links that fuse into some next link (on a dumbbell, the two
        // bottlenecks): a row per link would be links × destinations.
        let mut fuse_row = vec![NO_FUSION; scenario.links.len()];
        let mut fuse_next = Vec::new();
        // Only a link that is some link's single feeder can fuse: looking at the others' next
        // hops would cost links × destinations.
        let mut feeds_alone = vec![false; scenario.links.len()];
        for l in &scenario.links {
            if let Some(feeder) = l.single_feeder {
                feeds_alone[feeder.index()] = true;
            }
        }
        for (i, spec) in scenario.links.iter().enumerate() {
            if !fusion || !feeds_alone[i] {
                continue;
            }
            let upstream = LinkId(i as u32);
            let row: Vec<Option<LinkId>> = (destinations.iter())
                .map(|&dst| {
                    // A node with equal-cost choices forwards by flow: not fused.
                    let [next] = routes.choices(spec.to, dst) else {
                        return None;
                    };
                    let next = LinkId(*next);
                    let fed_only_by_upstream =
                        scenario.links[next.index()].single_feeder == Some(upstream);
                    let accepts: &Link = &links[next.index()];
                    (fed_only_by_upstream && accepts.accepts_early_offers()).then_some(next)
                })
                .collect();
            if row.iter().any(Option::is_some) {
                fuse_row[i] = (fuse_next.len() / columns.max(1)) as u32;
                fuse_next.extend(row);
            }
        }
        Routing {
            routes: owned_routes,
            usual,
            link_to,
            fuse_row,
            fuse_next,
            hop_columns: columns,
            dense_next,
            ecmp_salt,
        }
    }

    /// The node `link` leads to.
    #[inline]
    pub(super) fn link_to(&self, link: LinkId) -> NodeId {
        self.link_to[link.index()]
    }

    /// The link a packet for `destination` leaving `link` is offered to at once, if any.
    #[inline]
    pub(super) fn fused_next(&self, link: LinkId, destination: NodeId) -> Option<LinkId> {
        let row = self.fuse_row[link.index()];
        if row == NO_FUSION {
            return None;
        }
        self.fuse_next[row as usize * self.hop_columns + self.column(destination)]
    }

    /// The column of `destination` in the hop tables.
    #[inline]
    fn column(&self, destination: NodeId) -> usize {
        if self.dense_next.is_some() {
            destination.index()
        } else {
            (self.routes.column(destination)).expect("traffic has routes")
        }
    }

    /// The link `node` forwards `pkt` on: its one next hop, or with ECMP the one its flow's
    /// hash picks.
    #[inline]
    pub(super) fn route(&self, node: NodeId, pkt: &Packet) -> LinkId {
        let code = match &self.dense_next {
            Some(table) => table[node.index() * self.hop_columns + pkt.dst.index()],
            None => self.routes.hop_code(node, pkt.dst),
        };
        if let Some(link) = Routes::direct(code) {
            return link;
        }
        match self.routes.pick(code, node, self.ecmp_salt, pkt.flow) {
            Some(link) => link,
            None => self.usual_route(node, pkt),
        }
    }

    /// The link `node` forwards `pkt` on when no link that is up leads to its destination.
    #[cold]
    fn usual_route(&self, node: NodeId, pkt: &Packet) -> LinkId {
        let code = self.usual.hop_code(node, pkt.dst);
        (self.usual)
            .pick(code, node, self.ecmp_salt, pkt.flow)
            .expect("routes were validated when the scenario was loaded")
    }
}

/// A link as rerouting sees it.
struct UpLink<'l> {
    link: &'l ResolvedLink,
    up: bool,
}

impl Hop for UpLink<'_> {
    fn from(&self) -> NodeId {
        self.link.from
    }
    fn to(&self) -> NodeId {
        self.link.to
    }
    fn is_up(&self) -> bool {
        self.up
    }
}
