//! Static routes: hop-count shortest paths, ties to the link declared first, or with ECMP
//! (`[routing] ecmp`) every equal-cost link kept and one picked per flow by a seeded hash.
//!
//! Routes are kept only towards the nodes traffic is addressed to (every end of a flow, CBR
//! source or transfer group). A destination whose every incoming link comes from one node (a
//! host on its access link) is reached through that node's row and that link: every shortest
//! path to it passes through that node, so at every other node the next hop is the one towards
//! that node. Rows are therefore computed only for the other destinations and for the nodes
//! such hosts hang off: on a dumbbell, the two routers, however many hosts there are. Memory is
//! nodes × rows and time rows × (nodes + links).

use congsim_core::{FlowId, LinkId, NodeId};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// SplitMix64's finaliser: a fixed, portable bit mixer.
fn mix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A link as routing sees it: where it starts and ends, and whether it carries traffic now.
pub trait Hop {
    fn from(&self) -> NodeId;
    fn to(&self) -> NodeId;
    /// `false` for a link a scheduled event took down: routes avoid it.
    fn is_up(&self) -> bool {
        true
    }
}

/// No row, no column (a node nothing is addressed to), or no route.
const NONE: u32 = u32::MAX;

/// Marks a next-hop code as the index of a group of equal-cost links rather than a link.
const GROUP: u32 = 1 << 31;

/// What a node forwards on towards one destination, as the hot path reads it: a link index,
/// or `GROUP | g` for the equal-cost links of group `g` (only with ECMP), or `NONE`.
pub type HopCode = u32;

/// How the routes reach one destination.
#[derive(Clone, Copy, Debug)]
struct Target {
    /// The row of next hops used at every node but `via`.
    row: u32,
    /// The node every link into the destination comes from, with the first of those links;
    /// `NONE` when the destination has its own row.
    via: u32,
    last_link: u32,
}

#[derive(Clone, Debug)]
pub struct Routes {
    nodes: usize,
    /// Per node: its column among the destinations, or `NONE` when no traffic is addressed to it.
    column_of: Vec<u32>,
    /// Per column: how its destination is reached.
    targets: Vec<Target>,
    /// The node each row leads to.
    row_nodes: Vec<NodeId>,
    /// `next[row * nodes + node]`: the [`HopCode`] of `node` towards the row's node.
    next: Vec<HopCode>,
    /// Per group: its start and length in `group_links`. Equal sets are stored once (in a fat
    /// tree, an edge switch's uplinks serve every destination outside its rack).
    groups: Vec<(u32, u32)>,
    group_links: Vec<u32>,
}

/// Which destinations get a row of their own, and which go through another node's.
struct Plan {
    column_of: Vec<u32>,
    targets: Vec<Target>,
    row_nodes: Vec<NodeId>,
}

impl Plan {
    fn new<L: Hop>(
        nodes: usize,
        links: &[L],
        destinations: impl IntoIterator<Item = NodeId>,
        ecmp: bool,
    ) -> Self {
        // Per node: the one node all its incoming links come from, and the first such link;
        // `NONE` with no incoming link or links from several nodes. With ECMP, parallel links
        // from that node are equal-cost choices, so the node gets a row of its own.
        let mut feeder = vec![(NONE, NONE); nodes];
        let mut several = vec![false; nodes];
        for (i, l) in links.iter().enumerate().filter(|(_, l)| l.is_up()) {
            let (from, to) = (l.from().0, l.to().index());
            match feeder[to] {
                (NONE, _) => feeder[to] = (from, i as u32),
                (f, _) if f != from || ecmp => several[to] = true,
                _ => {}
            }
        }
        let mut column_of = vec![NONE; nodes];
        let mut row_of = vec![NONE; nodes];
        let mut targets = Vec::new();
        let mut row_nodes = Vec::new();
        let mut row_for = |node: u32, row_nodes: &mut Vec<NodeId>| {
            let row = &mut row_of[node as usize];
            if *row == NONE {
                *row = row_nodes.len() as u32;
                row_nodes.push(NodeId(node));
            }
            *row
        };
        for d in destinations {
            if column_of[d.index()] != NONE {
                continue;
            }
            column_of[d.index()] = targets.len() as u32;
            let (via, last_link) = feeder[d.index()];
            let stub = via != NONE && via != d.0 && !several[d.index()];
            targets.push(if stub {
                Target {
                    row: row_for(via, &mut row_nodes),
                    via,
                    last_link,
                }
            } else {
                Target {
                    row: row_for(d.0, &mut row_nodes),
                    via: NONE,
                    last_link: NONE,
                }
            });
        }
        Self {
            column_of,
            targets,
            row_nodes,
        }
    }
}

impl Routes {
    /// Rows [`Routes::compute`] would fill (one entry per node each) for these destinations.
    pub fn rows_needed<L: Hop>(
        nodes: usize,
        links: &[L],
        destinations: impl IntoIterator<Item = NodeId>,
        ecmp: bool,
    ) -> usize {
        Plan::new(nodes, links, destinations, ecmp).row_nodes.len()
    }

    /// Shortest paths by hop count towards each of `destinations` (repeats are ignored). Among
    /// equal paths a node takes the link declared first, or with `ecmp` keeps them all, in
    /// declaration order, for [`Routes::pick`]. A breadth-first search a row: time
    /// rows × (nodes + links).
    pub fn compute<L: Hop>(
        nodes: usize,
        links: &[L],
        destinations: impl IntoIterator<Item = NodeId>,
        ecmp: bool,
    ) -> Self {
        let Plan {
            column_of,
            targets,
            row_nodes,
        } = Plan::new(nodes, links, destinations, ecmp);
        let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); nodes];
        for (i, l) in links.iter().enumerate().filter(|(_, l)| l.is_up()) {
            incoming[l.to().index()].push(i);
        }
        let mut next = vec![NONE; row_nodes.len() * nodes];
        let (mut groups, mut group_links) = (Vec::new(), Vec::new());
        let mut group_of: BTreeMap<Vec<u32>, u32> = BTreeMap::new();
        // Per node: its equal-cost links after the first, for the row being filled.
        let mut choices: Vec<Vec<u32>> = vec![Vec::new(); if ecmp { nodes } else { 0 }];
        let mut dist = vec![usize::MAX; nodes];
        let mut frontier = VecDeque::new();
        for (row, dst) in row_nodes.iter().enumerate() {
            dist.fill(usize::MAX);
            dist[dst.index()] = 0;
            frontier.push_back(dst.index());
            while let Some(v) = frontier.pop_front() {
                for &li in &incoming[v] {
                    let u = links[li].from().index();
                    if dist[u] == usize::MAX {
                        dist[u] = dist[v] + 1;
                        frontier.push_back(u);
                    }
                }
            }
            let row = &mut next[row * nodes..][..nodes];
            for (li, l) in links.iter().enumerate().filter(|(_, l)| l.is_up()) {
                let (u, v) = (l.from().index(), l.to().index());
                if dist[u] != usize::MAX && dist[v] != usize::MAX && dist[v] + 1 == dist[u] {
                    if row[u] == NONE {
                        row[u] = li as u32;
                    } else if ecmp {
                        choices[u].push(li as u32);
                    }
                }
            }
            if ecmp {
                for (u, extra) in choices.iter_mut().enumerate() {
                    if extra.is_empty() {
                        continue;
                    }
                    let mut set = vec![row[u]];
                    set.append(extra);
                    let group = *group_of.entry(set).or_insert_with_key(|set| {
                        groups.push((group_links.len() as u32, set.len() as u32));
                        group_links.extend_from_slice(set);
                        groups.len() as u32 - 1
                    });
                    row[u] = GROUP | group;
                }
            }
        }
        Self {
            nodes,
            column_of,
            targets,
            row_nodes,
            next,
            groups,
            group_links,
        }
    }

    /// Whether some node has more than one equal-cost link towards some destination.
    pub fn has_choices(&self) -> bool {
        !self.groups.is_empty()
    }

    /// What `at` forwards on towards `to`, as [`Routes::pick`] reads it; `NONE` (no link) at
    /// `to` itself, without a route, or when nothing was addressed to `to`.
    #[inline]
    pub fn hop_code(&self, at: NodeId, to: NodeId) -> HopCode {
        let column = self.column_of[to.index()];
        if column == NONE || at == to {
            return NONE;
        }
        let target = self.targets[column as usize];
        if at.0 == target.via {
            target.last_link
        } else {
            self.next[target.row as usize * self.nodes + at.index()]
        }
    }

    /// Every link `at` may forward on towards `to` (one without ECMP), in declaration order;
    /// empty where [`Routes::hop_code`] gives no link.
    pub fn choices(&self, at: NodeId, to: NodeId) -> &[u32] {
        let column = self.column_of[to.index()];
        if column == NONE || at == to {
            return &[];
        }
        let target = &self.targets[column as usize];
        let code = if at.0 == target.via {
            &target.last_link
        } else {
            &self.next[target.row as usize * self.nodes + at.index()]
        };
        match *code {
            NONE => &[],
            c if c & GROUP != 0 => self.group(c),
            _ => std::slice::from_ref(code),
        }
    }

    /// Every link a packet from `from` to `to` may cross, each once, nearest first: the path
    /// without ECMP, the union of the equal-cost paths with it (which a flow's hash picks one
    /// of). Empty without a route.
    pub fn reachable_links<L: Hop>(&self, links: &[L], from: NodeId, to: NodeId) -> Vec<LinkId> {
        // Past this many nodes on the way, membership is looked up in a set: a list's scan
        // made a path of n hops cost n² (validate on a 50 000-hop chain took 11 s).
        const LISTED_NODES: usize = 32;
        let mut reached = Vec::new();
        // The nodes on the way, each visited once, in the order reached.
        let mut nodes = vec![from];
        let mut seen: BTreeSet<NodeId> = BTreeSet::new();
        let mut visited = 0;
        while let Some(&at) = nodes.get(visited) {
            visited += 1;
            for &l in self.choices(at, to) {
                reached.push(LinkId(l));
                let next = links[l as usize].to();
                let known = if nodes.len() <= LISTED_NODES {
                    nodes.contains(&next)
                } else {
                    if seen.is_empty() {
                        seen.extend(nodes.iter().copied());
                    }
                    !seen.insert(next)
                };
                if next != to && !known {
                    nodes.push(next);
                }
            }
        }
        reached
    }

    fn group(&self, code: HopCode) -> &[u32] {
        let (start, len) = self.groups[(code & !GROUP) as usize];
        &self.group_links[start as usize..][..len as usize]
    }

    /// The link a hop code names, if it names one link (not a group, not `NONE`): what the
    /// hot path reads without the routes.
    #[inline]
    pub const fn direct(code: HopCode) -> Option<LinkId> {
        if code & GROUP == 0 {
            Some(LinkId(code))
        } else {
            None
        }
    }

    /// The link a packet of `flow` leaves `at` on, given `at`'s code towards the packet's
    /// destination: the link itself, or one of the group's links by a hash of the flow, the
    /// node and `salt` (drawn per run from the seed). Every packet of a flow, data and ACKs
    /// alike, hashes the same; hashing the node as well keeps the choices of successive
    /// switches independent (a flow's choice at an edge switch would otherwise fix its choice
    /// at the next tier: ECMP polarization). `None` for `NONE`.
    #[inline]
    pub fn pick(&self, code: HopCode, at: NodeId, salt: u64, flow: FlowId) -> Option<LinkId> {
        if code & GROUP == 0 {
            return Some(LinkId(code));
        }
        if code == NONE {
            return None;
        }
        let links = self.group(code);
        let key = mix64(salt ^ u64::from(flow.0));
        let hash = mix64(key ^ u64::from(at.0).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let i = ((u128::from(hash) * links.len() as u128) >> 64) as usize;
        Some(LinkId(links[i]))
    }

    /// The link `at` forwards on towards `to` (with ECMP, the first of its equal-cost links);
    /// `None` at `to` itself, when there is no route, or when nothing was addressed to `to`
    /// when the routes were computed.
    pub fn next_hop(&self, at: NodeId, to: NodeId) -> Option<LinkId> {
        self.choices(at, to).first().map(|&l| LinkId(l))
    }

    /// The destinations routes were computed towards, in column order.
    pub fn destinations(&self) -> impl Iterator<Item = NodeId> + '_ {
        let mut by_column: Vec<(u32, usize)> = (self.column_of.iter().enumerate())
            .filter(|(_, c)| **c != NONE)
            .map(|(n, c)| (*c, n))
            .collect();
        by_column.sort_unstable();
        by_column.into_iter().map(|(_, n)| NodeId(n as u32))
    }

    /// The column of destination `to` (its index in [`Routes::destinations`]), if routes were
    /// computed towards it.
    #[inline]
    pub fn column(&self, to: NodeId) -> Option<usize> {
        let column = self.column_of[to.index()];
        (column != NONE).then_some(column as usize)
    }

    /// Rows in the table: the nodes routes lead to by a search of their own.
    pub fn rows(&self) -> &[NodeId] {
        &self.row_nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct L(u32, u32);
    impl Hop for L {
        fn from(&self) -> NodeId {
            NodeId(self.0)
        }
        fn to(&self) -> NodeId {
            NodeId(self.1)
        }
    }

    #[test]
    fn shortest_path_by_hops_with_ties_to_the_first_declared_link() {
        // 0 -> 1 -> 3 and 0 -> 2 -> 3 tie; 0 -> 3 through 4 -> 5 is longer.
        let links = [
            L(0, 2),
            L(0, 1),
            L(1, 3),
            L(2, 3),
            L(0, 4),
            L(4, 5),
            L(5, 3),
        ];
        let routes = Routes::compute(6, &links, [NodeId(3)], false);
        assert_eq!(routes.next_hop(NodeId(0), NodeId(3)), Some(LinkId(0)));
        assert_eq!(routes.next_hop(NodeId(2), NodeId(3)), Some(LinkId(3)));
        assert_eq!(routes.next_hop(NodeId(4), NodeId(3)), Some(LinkId(5)));
        assert_eq!(
            routes.next_hop(NodeId(3), NodeId(0)),
            None,
            "no row for node 0"
        );
        assert_eq!(routes.rows(), [NodeId(3)]);
    }

    #[test]
    fn one_row_a_destination_and_none_where_there_is_no_path() {
        let links = [L(0, 1), L(1, 2)];
        let routes = Routes::compute(3, &links, [NodeId(2), NodeId(0), NodeId(2)], false);
        assert_eq!(
            routes.rows(),
            [NodeId(1), NodeId(0)],
            "node 2 hangs off node 1"
        );
        assert_eq!(routes.next_hop(NodeId(0), NodeId(2)), Some(LinkId(0)));
        assert_eq!(routes.next_hop(NodeId(1), NodeId(2)), Some(LinkId(1)));
        assert_eq!(
            routes.next_hop(NodeId(2), NodeId(0)),
            None,
            "links are one-way"
        );
        assert_eq!(
            routes.destinations().collect::<Vec<_>>(),
            [NodeId(2), NodeId(0)]
        );
    }

    /// Next hops by a search towards every destination of its own, the rule the rows must
    /// reproduce: the first declared link onto a shortest path.
    fn by_own_search(nodes: usize, links: &[L], at: usize, to: usize) -> Option<LinkId> {
        let mut dist = vec![usize::MAX; nodes];
        dist[to] = 0;
        let mut frontier = VecDeque::from([to]);
        while let Some(v) = frontier.pop_front() {
            for l in links.iter().filter(|l| l.1 as usize == v) {
                if dist[l.0 as usize] == usize::MAX {
                    dist[l.0 as usize] = dist[v] + 1;
                    frontier.push_back(l.0 as usize);
                }
            }
        }
        (at != to && dist[at] != usize::MAX)
            .then(|| {
                links.iter().position(|l| {
                    l.0 as usize == at
                        && dist[l.1 as usize] != usize::MAX
                        && dist[l.1 as usize] + 1 == dist[at]
                })
            })
            .flatten()
            .map(|i| LinkId(i as u32))
    }

    #[test]
    fn hosts_on_one_access_link_share_their_router_row_and_routes_stay_shortest() {
        // Random networks of a few routers with hosts hanging off them (some on two parallel
        // links, some on links from two routers, some one-way): every next hop must equal a
        // search towards that destination alone.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut draw = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as u32
        };
        for _ in 0..200 {
            let routers = 2 + draw(5);
            let hosts = 1 + draw(8);
            let nodes = (routers + hosts) as usize;
            let mut links = Vec::new();
            for _ in 0..routers + draw(6) {
                let (a, b) = (draw(u64::from(routers)), draw(u64::from(routers)));
                links.push(L(a, b));
                links.push(L(b, a));
            }
            for h in routers..routers + hosts {
                let r = draw(u64::from(routers));
                links.push(L(h, r));
                match draw(4) {
                    0 => {}
                    1 => links.push(L(r, h)),
                    2 => {
                        links.push(L(r, h));
                        links.push(L(r, h));
                    }
                    _ => {
                        links.push(L(r, h));
                        links.push(L((r + 1) % routers, h));
                    }
                }
            }
            let destinations: Vec<NodeId> = (0..nodes as u32).map(NodeId).collect();
            let routes = Routes::compute(nodes, &links, destinations.iter().copied(), false);
            for at in 0..nodes {
                for to in 0..nodes {
                    assert_eq!(
                        routes.next_hop(NodeId(at as u32), NodeId(to as u32)),
                        by_own_search(nodes, &links, at, to),
                        "from {at} to {to} over {} links",
                        links.len()
                    );
                }
            }
            assert!(routes.rows().len() <= nodes);
        }
    }

    #[test]
    fn ecmp_keeps_every_shortest_link_and_each_flow_picks_one_by_its_hash() {
        // 0 -> 1 -> 3 and 0 -> 2 -> 3 tie; host 4 hangs off 3 on two parallel links.
        let links = [L(0, 1), L(0, 2), L(1, 3), L(2, 3), L(3, 4), L(3, 4)];
        let single = Routes::compute(5, &links, [NodeId(4)], false);
        assert!(!single.has_choices());
        assert_eq!(single.choices(NodeId(0), NodeId(4)), [0]);
        let routes = Routes::compute(5, &links, [NodeId(4)], true);
        assert!(routes.has_choices());
        assert_eq!(routes.choices(NodeId(0), NodeId(4)), [0, 1]);
        assert_eq!(
            routes.choices(NodeId(3), NodeId(4)),
            [4, 5],
            "parallel links tie too"
        );
        assert_eq!(routes.choices(NodeId(1), NodeId(4)), [2]);
        assert_eq!(routes.next_hop(NodeId(0), NodeId(4)), Some(LinkId(0)));
        assert_eq!(
            routes.reachable_links(&links, NodeId(0), NodeId(4)),
            [0, 1, 2, 3, 4, 5].map(LinkId)
        );
        // A flow keeps its pick; flows spread over both links; the salt reshuffles them.
        let code = routes.hop_code(NodeId(0), NodeId(4));
        let picks = |salt: u64| -> Vec<u32> {
            (0..64)
                .map(|f| {
                    routes
                        .pick(code, NodeId(0), salt, FlowId(f))
                        .expect("a link")
                        .0
                })
                .collect()
        };
        assert_eq!(picks(7), picks(7));
        let firsts = picks(7).iter().filter(|&&l| l == 0).count();
        assert!(
            (16..=48).contains(&firsts),
            "{firsts} of 64 on the first link"
        );
        assert_ne!(picks(7), picks(8));
        // The node is hashed too: a flow's pick at node 3 is not its pick at node 0.
        let at_3 = routes.hop_code(NodeId(3), NodeId(4));
        let same = (0..64)
            .filter(|&f| {
                let first = |node, code| routes.pick(code, NodeId(node), 7, FlowId(f)).unwrap().0;
                (first(0, code) == 0) == (first(3, at_3) == 4)
            })
            .count();
        assert!(
            (16..=48).contains(&same),
            "{same} of 64 alike at both nodes"
        );
    }

    #[test]
    fn a_dumbbell_of_any_size_needs_two_rows() {
        // Routers 0 and 1; host pairs on duplex access links to either side.
        let pairs = 10_000u32;
        let mut links = vec![L(0, 1), L(1, 0)];
        for i in 0..pairs {
            let (s, d) = (2 + 2 * i, 3 + 2 * i);
            links.extend([L(s, 0), L(0, s), L(d, 1), L(1, d)]);
        }
        let nodes = (2 + 2 * pairs) as usize;
        let destinations = (2..nodes as u32).map(NodeId);
        assert_eq!(
            Routes::rows_needed(nodes, &links, destinations.clone(), false),
            2
        );
        let routes = Routes::compute(nodes, &links, destinations, false);
        assert_eq!(routes.rows(), [NodeId(0), NodeId(1)]);
        let (s, d) = (NodeId(2 + 2 * 1234), NodeId(3 + 2 * 1234));
        assert_eq!(routes.next_hop(s, d), Some(LinkId(2 + 4 * 1234)));
        assert_eq!(routes.next_hop(NodeId(0), d), Some(LinkId(0)));
        assert_eq!(
            routes.next_hop(NodeId(1), d),
            Some(LinkId(2 + 4 * 1234 + 3))
        );
        assert_eq!(routes.next_hop(d, s), Some(LinkId(2 + 4 * 1234 + 2)));
        assert_eq!(routes.next_hop(d, d), None);
    }
}
