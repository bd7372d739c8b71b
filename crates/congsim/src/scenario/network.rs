//! The network a scenario describes, as a user checks it: which links each flow's packets
//! take (routes are by hop count, so an added link can silently carry a flow).

use super::resolve::Scenario;
use congsim_core::{LinkId, NodeId};

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
    /// The links from `from` to `to`, in order; `None` when the routes do not lead there.
    pub fn path(&self, from: NodeId, to: NodeId) -> Option<Vec<LinkId>> {
        let mut links = Vec::new();
        let mut at = from;
        while at != to {
            let link = self.routes.next_hop(at, to)?;
            links.push(link);
            at = self.links[link.index()].to;
        }
        Some(links)
    }

    /// Every flow's data path and ACK path, every CBR source's path and every transfer
    /// group's paths, in declaration order.
    pub fn traffic_paths(&self) -> Vec<TrafficPath> {
        let mut out = Vec::new();
        let mut both_ways = |name: &str, kind: &'static str, src: NodeId, dst: NodeId| {
            for (direction, from, to) in [("data", src, dst), ("acks", dst, src)] {
                out.push(TrafficPath {
                    name: name.to_string(),
                    kind,
                    direction,
                    links: self.path(from, to).unwrap_or_default(),
                });
            }
        };
        for f in &self.flows {
            both_ways(&f.name, "tcp", f.src, f.dst);
        }
        for t in &self.transfers {
            both_ways(&t.name, "transfers", t.src, t.dst);
        }
        for c in &self.cbr {
            out.push(TrafficPath {
                name: c.name.clone(),
                kind: "cbr",
                direction: "data",
                links: self.path(c.src, c.dst).unwrap_or_default(),
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
                .map(|l| s.links[l.index()].name.clone())
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
