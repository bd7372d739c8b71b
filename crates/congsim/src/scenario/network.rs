//! The network a scenario describes, as a user checks it: which links each flow's packets
//! take (routes are by hop count, so an added link can silently carry a flow).

use super::model::Scenario;
use super::routes::HopCode;
use congsim_core::{FlowId, LinkId, NodeId, StreamFactory};

/// The links one direction of one traffic source crosses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrafficPath {
    /// The flow, CBR source or transfer group, as named in the output tables.
    pub name: String,
    /// `tcp`, `cbr` or `transfers`.
    pub kind: &'static str,
    /// `data` or `acks`.
    pub direction: &'static str,
    pub links: Vec<LinkId>,
}

impl Scenario {
    /// The links from `from` to `to`, in order, taking the first of equal-cost links (the one
    /// path there is without ECMP); `None` when the routes do not lead there.
    pub fn path(&self, from: NodeId, to: NodeId) -> Option<Vec<LinkId>> {
        self.walk(from, to, |at, _| self.routes.next_hop(at, to))
    }

    /// The links `flow`'s packets from `from` to `to` cross in replication `replication`
    /// (with ECMP the flow's hash picks among equal-cost links; without, [`Scenario::path`]).
    pub fn flow_path(
        &self,
        from: NodeId,
        to: NodeId,
        flow: FlowId,
        replication: u32,
    ) -> Option<Vec<LinkId>> {
        let salt = self.ecmp_salt(replication);
        self.walk(from, to, |at, code| self.routes.pick(code, at, salt, flow))
    }

    /// Every link a packet from `from` to `to` may cross, whichever equal-cost path its flow
    /// takes (the path itself without ECMP).
    pub fn reachable_links(&self, from: NodeId, to: NodeId) -> Vec<LinkId> {
        self.routes.reachable_links(&self.links, from, to)
    }

    /// The salt of the flow hashes in replication `replication`, drawn from the run's seed so
    /// that replications spread flows over the equal-cost paths differently.
    pub fn ecmp_salt(&self, replication: u32) -> u64 {
        StreamFactory::new(self.seed, replication)
            .stream("routing/ecmp")
            .next_u64()
    }

    fn walk(
        &self,
        from: NodeId,
        to: NodeId,
        next: impl Fn(NodeId, HopCode) -> Option<LinkId>,
    ) -> Option<Vec<LinkId>> {
        let mut links = Vec::new();
        let mut at = from;
        while at != to {
            let link = next(at, self.routes.hop_code(at, to))?;
            links.push(link);
            at = self.links[link.index()].to;
        }
        Some(links)
    }

    /// Every flow's data path and ACK path, every CBR source's path and every transfer
    /// group's paths, in declaration order. With ECMP: the paths of replication 0, and for a
    /// transfer group (whose connections' flow ids come as they arrive) every link its
    /// connections may take.
    pub fn traffic_paths(&self) -> Vec<TrafficPath> {
        let mut out = Vec::new();
        let mut both_ways = |name: &str, kind: &'static str, ends: (NodeId, NodeId), flow| {
            let (src, dst) = ends;
            for (direction, from, to) in [("data", src, dst), ("acks", dst, src)] {
                let links = match flow {
                    Some(flow) => self.flow_path(from, to, flow, 0).unwrap_or_default(),
                    None => self.reachable_links(from, to),
                };
                out.push(TrafficPath {
                    name: name.to_string(),
                    kind,
                    direction,
                    links,
                });
            }
        };
        for (i, f) in self.flows.iter().enumerate() {
            both_ways(&f.name, "tcp", (f.src, f.dst), Some(FlowId(i as u32)));
        }
        for t in &self.transfers {
            both_ways(&t.name, "transfers", (t.src, t.dst), None);
        }
        for (i, c) in self.cbr.iter().enumerate() {
            let flow = FlowId((self.flows.len() + i) as u32);
            out.push(TrafficPath {
                name: c.name.clone(),
                kind: "cbr",
                direction: "data",
                links: self.flow_path(c.src, c.dst, flow, 0).unwrap_or_default(),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::from_toml_str;

    #[test]
    fn a_shorter_path_carries_the_flow_even_when_it_is_slower() {
        let text = r#"
nodes = ["a", "r", "b"]
[simulation]
duration = "1s"
[[links]]
from = "a"
to = "r"
rate = "100Mbps"
delay = "1ms"
[[links]]
from = "r"
to = "b"
rate = "100Mbps"
delay = "1ms"
[[links]]
from = "a"
to = "b"
rate = "1Mbps"
delay = "1ms"
[[flows]]
name = "f"
from = "a"
to = "b"
"#;
        let s = from_toml_str(text, "t.toml").unwrap();
        let paths = s.traffic_paths();
        let names = |p: &super::TrafficPath| -> Vec<String> {
            p.links
                .iter()
                .map(|l| s.links[l.index()].name(&s.nodes))
                .collect()
        };
        assert_eq!(paths.len(), 2);
        assert_eq!(
            (paths[0].direction, names(&paths[0])),
            ("data", vec!["a->b".to_string()])
        );
        assert_eq!(
            (paths[1].direction, names(&paths[1])),
            ("acks", vec!["b->a".to_string()])
        );
    }
}
