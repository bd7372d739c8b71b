//! Static routes: hop-count shortest paths, ties to the link declared first.
//!
//! Routes are kept only towards the nodes traffic is addressed to (every end of a flow, CBR
//! source or transfer group), one row per such destination: memory is nodes × destinations
//! instead of nodes², so a large topology with few endpoints validates in little memory.

use congsim_core::{LinkId, NodeId};
use std::collections::VecDeque;

/// A link as routing sees it: where it starts and ends.
pub trait Hop {
    fn from(&self) -> NodeId;
    fn to(&self) -> NodeId;
}

/// No row (a node nothing is addressed to), or no route.
const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct Routes {
    nodes: usize,
    /// Per node: its row in `next`, or `NONE` when no traffic is addressed to it.
    row_of: Vec<u32>,
    /// `next[row * nodes + node]`: the index of the link `node` forwards on towards the row's
    /// destination, or `NONE`.
    next: Vec<u32>,
}

impl Routes {
    /// Table cells (nodes × destinations) [`Routes::compute`] would fill.
    pub fn cells(nodes: usize, destinations: usize) -> u64 {
        nodes as u64 * destinations as u64
    }

    /// Shortest paths by hop count towards each of `destinations` (repeats are ignored); among
    /// equal paths a node takes the link declared first. A breadth-first search a destination:
    /// time destinations × (nodes + links).
    pub fn compute<L: Hop>(
        nodes: usize,
        links: &[L],
        destinations: impl IntoIterator<Item = NodeId>,
    ) -> Self {
        let mut row_of = vec![NONE; nodes];
        let mut rows = 0u32;
        for d in destinations {
            if row_of[d.index()] == NONE {
                row_of[d.index()] = rows;
                rows += 1;
            }
        }
        let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); nodes];
        for (i, l) in links.iter().enumerate() {
            incoming[l.to().index()].push(i);
        }
        let mut next = vec![NONE; rows as usize * nodes];
        let mut dist = vec![usize::MAX; nodes];
        let mut frontier = VecDeque::new();
        for (dst, &row) in row_of.iter().enumerate() {
            if row == NONE {
                continue;
            }
            dist.fill(usize::MAX);
            dist[dst] = 0;
            frontier.push_back(dst);
            while let Some(v) = frontier.pop_front() {
                for &li in &incoming[v] {
                    let u = links[li].from().index();
                    if dist[u] == usize::MAX {
                        dist[u] = dist[v] + 1;
                        frontier.push_back(u);
                    }
                }
            }
            let row = &mut next[row as usize * nodes..][..nodes];
            for (li, l) in links.iter().enumerate() {
                let (u, v) = (l.from().index(), l.to().index());
                if dist[u] != usize::MAX
                    && dist[v] != usize::MAX
                    && dist[v] + 1 == dist[u]
                    && row[u] == NONE
                {
                    row[u] = li as u32;
                }
            }
        }
        Self {
            nodes,
            row_of,
            next,
        }
    }

    /// The link `at` forwards on towards `to`; `None` when there is no route or nothing was
    /// addressed to `to` when the routes were computed.
    #[inline]
    pub fn next_hop(&self, at: NodeId, to: NodeId) -> Option<LinkId> {
        let row = self.row_of[to.index()];
        if row == NONE {
            return None;
        }
        let link = self.next[row as usize * self.nodes + at.index()];
        (link != NONE).then_some(LinkId(link))
    }

    /// The destinations routes were computed towards, in row order.
    pub fn destinations(&self) -> impl Iterator<Item = NodeId> + '_ {
        let mut by_row: Vec<(u32, usize)> = self
            .row_of
            .iter()
            .enumerate()
            .filter(|(_, r)| **r != NONE)
            .map(|(n, r)| (*r, n))
            .collect();
        by_row.sort_unstable();
        by_row.into_iter().map(|(_, n)| NodeId(n as u32))
    }

    /// The row of destination `to`, if routes were computed towards it.
    #[inline]
    pub fn row(&self, to: NodeId) -> Option<usize> {
        let row = self.row_of[to.index()];
        (row != NONE).then_some(row as usize)
    }

    /// Rows in the table (destinations).
    pub fn rows(&self) -> usize {
        self.next.len().checked_div(self.nodes).unwrap_or(0)
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
        let routes = Routes::compute(6, &links, [NodeId(3)]);
        assert_eq!(routes.next_hop(NodeId(0), NodeId(3)), Some(LinkId(0)));
        assert_eq!(routes.next_hop(NodeId(2), NodeId(3)), Some(LinkId(3)));
        assert_eq!(routes.next_hop(NodeId(4), NodeId(3)), Some(LinkId(5)));
        assert_eq!(
            routes.next_hop(NodeId(3), NodeId(0)),
            None,
            "no row for node 0"
        );
        assert_eq!(routes.rows(), 1);
    }

    #[test]
    fn one_row_a_destination_and_none_where_there_is_no_path() {
        let links = [L(0, 1), L(1, 2)];
        let routes = Routes::compute(3, &links, [NodeId(2), NodeId(0), NodeId(2)]);
        assert_eq!(routes.rows(), 2);
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
}
