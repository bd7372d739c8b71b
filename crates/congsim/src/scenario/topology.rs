//! Expands `[topology]` into nodes, links and flows placed before the file's own, so that the
//! rest of loading checks them as if they had been written out.

use super::ScenarioError;
use super::limits::{Limits, grouped};
use super::schema::{
    DumbbellSpec, FatTreeSpec, FatTreeTraffic, FlowSpec, IncastSpec, LinkSpec, ParkingLotSpec,
    QueueSpec, ScenarioFile, TopologySpec,
};
use super::units::{DurationText, RateText, SizeText};

/// `file` with its topology's nodes, links and flows in front of its own. What a generator
/// makes is counted from its parameters first, and checked against `limits`, so that a
/// mistyped size is refused before anything of that size is allocated.
pub(super) fn expand(
    mut file: ScenarioFile,
    label: &str,
    limits: &Limits,
) -> Result<ScenarioFile, ScenarioError> {
    let Some(topology) = file.topology.take() else {
        return Ok(file);
    };
    let (field, size) = generated_size(&topology);
    let own_flows: u64 = (file.flows.iter().map(|f| u64::from(f.count)))
        .chain(file.cbr.iter().map(|c| u64::from(c.count)))
        .sum();
    for (name, generated, own) in [
        ("nodes", size.nodes, file.nodes.len() as u64),
        ("links", size.links, file.links.len() as u64),
        ("flows", size.flows, own_flows),
    ] {
        let total = generated.saturating_add(own);
        limits.check(name, total, label, &format!("topology.{field}"), || {
            let with_own = if own > 0 {
                format!(", {} with the file's own", grouped(total))
            } else {
                String::new()
            };
            format!("makes {} {name}{with_own}", grouped(generated))
        })?;
    }
    let generated = match &topology {
        TopologySpec::Dumbbell(spec) => dumbbell(spec, label)?,
        TopologySpec::ParkingLot(spec) => parking_lot(spec, label)?,
        TopologySpec::Incast(spec) => incast(spec, label)?,
        TopologySpec::FatTree(spec) => {
            file.routing.ecmp.get_or_insert(true);
            fat_tree(spec, label)?
        }
    };
    file.nodes.splice(0..0, generated.nodes);
    file.links.splice(0..0, generated.links);
    file.flows.splice(0..0, generated.flows);
    Ok(file)
}

/// How many nodes, links and flows a generator makes.
struct Size {
    nodes: u64,
    links: u64,
    flows: u64,
}

/// What `topology` makes, computed from its parameters (saturating), and the parameter that
/// sets its size.
fn generated_size(topology: &TopologySpec) -> (&'static str, Size) {
    let flows_if = |on: bool, n: u64| if on { n } else { 0 };
    match topology {
        TopologySpec::Dumbbell(spec) => {
            let n = u64::from(spec.pairs);
            let size = Size {
                nodes: 2 * n + 2,
                links: 2 * n + 1,
                flows: flows_if(spec.flows, n),
            };
            ("pairs", size)
        }
        TopologySpec::ParkingLot(spec) => {
            let hops = u64::from(spec.hops);
            let size = Size {
                nodes: 3 * hops + 3,
                links: 3 * hops + 2,
                flows: flows_if(spec.flows, hops + 1),
            };
            ("hops", size)
        }
        TopologySpec::Incast(spec) => {
            let n = u64::from(spec.senders);
            let size = Size {
                nodes: n + 2,
                links: n + 1,
                flows: flows_if(spec.flows, n),
            };
            ("senders", size)
        }
        TopologySpec::FatTree(spec) => {
            // Sizes of any k the generator accepts (it refuses k past 64 itself).
            let k = u64::from(spec.k.min(64));
            let half = k / 2;
            let hosts = k * half * half;
            let flows = match spec.traffic {
                FatTreeTraffic::Stride => hosts,
                FatTreeTraffic::AllToAll => hosts * hosts.saturating_sub(1),
                FatTreeTraffic::None => 0,
            };
            let size = Size {
                nodes: hosts + k * k + half * half,
                links: hosts + 2 * k * half * half,
                flows,
            };
            ("k", size)
        }
    }
}

#[derive(Default)]
struct Generated {
    nodes: Vec<String>,
    links: Vec<LinkSpec>,
    flows: Vec<FlowSpec>,
}

impl Generated {
    fn link(
        &mut self,
        from: &str,
        to: &str,
        rate: &RateText,
        delay: DurationText,
        queue: &QueueSpec,
    ) {
        self.links.push(LinkSpec {
            from: from.to_string(),
            to: to.to_string(),
            rate: rate.clone(),
            delay,
            duplex: true,
            queue: queue.clone(),
            random_loss: 0.0,
            atm: false,
        });
    }

    fn flow(&mut self, name: String, from: &str, to: &str, size: Option<SizeText>) {
        self.flows.push(FlowSpec {
            name: Some(name),
            from: from.to_string(),
            to: to.to_string(),
            start: None,
            start_jitter: None,
            stop: None,
            size,
            count: 1,
            tcp: Default::default(),
        });
    }
}

fn at_least_one(value: u32, field: &str, label: &str) -> Result<(), ScenarioError> {
    if value == 0 {
        return Err(ScenarioError {
            file: label.to_string(),
            path: format!("topology.{field}"),
            message: "must be at least 1".into(),
        });
    }
    Ok(())
}

/// Sender `i`'s (1-based) access delay: `first` to `last` evenly over `n` senders, rounded to
/// the nanosecond (half up).
fn spread(first: &DurationText, last: &DurationText, i: u64, n: u64) -> DurationText {
    const NS: u64 = 1_000;
    let (a, b) = (first.value.as_ps(), last.value.as_ps());
    let steps = n.saturating_sub(1).max(1);
    let offset_ps = u128::from(b.abs_diff(a)) * u128::from(i - 1);
    let offset_ns = ((offset_ps + u128::from(steps * NS) / 2) / u128::from(steps * NS)) as u64;
    let ps = if b >= a {
        a + offset_ns * NS
    } else {
        a - offset_ns * NS
    };
    DurationText::parse(&format!("{}ns", ps / NS)).expect("a whole number of nanoseconds")
}

fn dumbbell(spec: &DumbbellSpec, label: &str) -> Result<Generated, ScenarioError> {
    at_least_one(spec.pairs, "pairs", label)?;
    if let Some(last) = &spec.access_delay_max {
        for (field, d) in [
            ("access_delay", &spec.access_delay),
            ("access_delay_max", last),
        ] {
            if d.value.as_ps() % 1_000 != 0 {
                return Err(ScenarioError {
                    file: label.to_string(),
                    path: format!("topology.{field}"),
                    message: "a spread of delays needs whole nanoseconds".into(),
                });
            }
        }
    }
    let n = u64::from(spec.pairs);
    let mut g = Generated::default();
    g.nodes.extend((1..=n).map(|i| format!("s{i}")));
    g.nodes.extend(["r1".to_string(), "r2".to_string()]);
    g.nodes.extend((1..=n).map(|i| format!("d{i}")));
    let plain = QueueSpec::default();
    g.link(
        "r1",
        "r2",
        &spec.bottleneck_rate,
        spec.bottleneck_delay.clone(),
        &spec.bottleneck_queue,
    );
    for i in 1..=n {
        let delay = match &spec.access_delay_max {
            Some(last) => spread(&spec.access_delay, last, i, n),
            None => spec.access_delay.clone(),
        };
        g.link(&format!("s{i}"), "r1", &spec.access_rate, delay, &plain);
        g.link(
            "r2",
            &format!("d{i}"),
            &spec.access_rate,
            spec.receiver_delay
                .as_ref()
                .unwrap_or(&spec.access_delay)
                .clone(),
            &plain,
        );
    }
    if spec.flows {
        for i in 1..=n {
            g.flow(format!("tcp{i}"), &format!("s{i}"), &format!("d{i}"), None);
        }
    }
    Ok(g)
}

fn parking_lot(spec: &ParkingLotSpec, label: &str) -> Result<Generated, ScenarioError> {
    at_least_one(spec.hops, "hops", label)?;
    let hops = spec.hops;
    let mut g = Generated::default();
    g.nodes.extend((0..=hops).map(|i| format!("r{i}")));
    g.nodes
        .extend(["long_src".to_string(), "long_dst".to_string()]);
    let plain = QueueSpec::default();
    for i in 0..hops {
        g.link(
            &format!("r{i}"),
            &format!("r{}", i + 1),
            &spec.hop_rate,
            spec.hop_delay.clone(),
            &spec.hop_queue,
        );
    }
    let access = |g: &mut Generated, from: &str, to: &str| {
        g.link(
            from,
            to,
            &spec.access_rate,
            spec.access_delay.clone(),
            &plain,
        );
    };
    access(&mut g, "long_src", "r0");
    access(&mut g, &format!("r{hops}"), "long_dst");
    for i in 0..hops {
        let (src, dst) = (format!("cross{i}_src"), format!("cross{i}_dst"));
        access(&mut g, &src, &format!("r{i}"));
        access(&mut g, &format!("r{}", i + 1), &dst);
        g.nodes.extend([src, dst]);
    }
    if spec.flows {
        g.flow("long".into(), "long_src", "long_dst", None);
        for i in 0..hops {
            g.flow(
                format!("cross{i}"),
                &format!("cross{i}_src"),
                &format!("cross{i}_dst"),
                None,
            );
        }
    }
    Ok(g)
}

fn incast(spec: &IncastSpec, label: &str) -> Result<Generated, ScenarioError> {
    at_least_one(spec.senders, "senders", label)?;
    let n = spec.senders;
    let mut g = Generated::default();
    g.nodes.extend((1..=n).map(|i| format!("s{i}")));
    g.nodes.extend(["sw".to_string(), "dst".to_string()]);
    let plain = QueueSpec::default();
    g.link(
        "sw",
        "dst",
        &spec.rate,
        spec.delay.clone(),
        &spec.switch_queue,
    );
    for i in 1..=n {
        g.link(
            &format!("s{i}"),
            "sw",
            &spec.rate,
            spec.delay.clone(),
            &plain,
        );
    }
    if spec.flows {
        for i in 1..=n {
            g.flow(
                format!("tcp{i}"),
                &format!("s{i}"),
                "dst",
                Some(spec.transfer_size.clone()),
            );
        }
    }
    Ok(g)
}

fn fat_tree(spec: &FatTreeSpec, label: &str) -> Result<Generated, ScenarioError> {
    let k = spec.k;
    if !(2..=64).contains(&k) || !k.is_multiple_of(2) {
        return Err(ScenarioError {
            file: label.to_string(),
            path: "topology.k".into(),
            message: format!("must be an even number from 2 to 64 (got {k})"),
        });
    }
    let half = k / 2;
    let hosts = k * half * half;
    let mut g = Generated::default();
    let host = |i: u32| format!("h{i}");
    let edge = |pod: u32, i: u32| format!("e{pod}_{i}");
    let agg = |pod: u32, i: u32| format!("a{pod}_{i}");
    g.nodes.extend((0..hosts).map(host));
    for pod in 0..k {
        g.nodes.extend((0..half).map(|i| edge(pod, i)));
        g.nodes.extend((0..half).map(|i| agg(pod, i)));
    }
    g.nodes.extend((0..half * half).map(|i| format!("c{i}")));
    let mut link = |from: String, to: String| {
        g.link(&from, &to, &spec.rate, spec.delay.clone(), &spec.queue);
    };
    for h in 0..hosts {
        let edge_index = h / half;
        link(host(h), edge(edge_index / half, edge_index % half));
    }
    for pod in 0..k {
        for e in 0..half {
            for a in 0..half {
                link(edge(pod, e), agg(pod, a));
            }
        }
    }
    for pod in 0..k {
        for a in 0..half {
            for c in a * half..(a + 1) * half {
                link(agg(pod, a), format!("c{c}"));
            }
        }
    }
    let mut flow = |from: u32, to: u32| {
        g.flow(format!("h{from}-h{to}"), &host(from), &host(to), None);
    };
    match spec.traffic {
        FatTreeTraffic::Stride => (0..hosts).for_each(|h| flow(h, (h + hosts / 2) % hosts)),
        FatTreeTraffic::AllToAll => {
            for from in 0..hosts {
                (0..hosts)
                    .filter(|&to| to != from)
                    .for_each(|to| flow(from, to));
            }
        }
        FatTreeTraffic::None => {}
    }
    Ok(g)
}

/// An error found in the expanded file, told in the words of the file the user wrote: a
/// generated node, link or flow is blamed on the `[topology]` field it came from
/// (`links[0].queue.min_th` on a dumbbell is `topology.bottleneck_queue.min_th`), and an entry
/// of the user's own is counted without the generated ones in front of it.
pub(super) fn blame(mut error: ScenarioError, topology: &TopologySpec) -> ScenarioError {
    let (size_field, size) = generated_size(topology);
    if error.path == "nodes" {
        // Route tables: the topology's size decides them.
        error.path = format!("topology.{size_field}");
        return error;
    }
    let Some((list, index, rest)) = split_entry(&error.path) else {
        return error;
    };
    let generated = match list {
        "nodes" => size.nodes,
        "links" => size.links,
        "flows" => size.flows,
        _ => return error,
    };
    error.path = if index >= generated {
        format!("{list}[{}]{rest}", index - generated)
    } else {
        match list {
            "links" => generated_link_field(topology, index, rest),
            "flows" => match (topology, rest) {
                (TopologySpec::Incast(_), ".size") => "topology.transfer_size".to_string(),
                _ => "topology.flows".to_string(),
            },
            _ => format!("topology.{size_field}"),
        }
    };
    error
}

/// `list[index]rest` split into its parts.
fn split_entry(path: &str) -> Option<(&str, u64, &str)> {
    let (list, after) = path.split_once('[')?;
    let (index, rest) = after.split_once(']')?;
    Some((list, index.parse().ok()?, rest))
}

/// The `[topology]` field that generated link `index`'s `rest` (`.rate`, `.queue.limit_packets`).
fn generated_link_field(topology: &TopologySpec, index: u64, rest: &str) -> String {
    // Per kind: (rate, delay, queue) of the links that carry a queue of their own, how many
    // there are at the front, and the fields of the others (access links).
    let (core, core_links, access) = match topology {
        TopologySpec::Dumbbell(_) => (
            ("bottleneck_rate", "bottleneck_delay", "bottleneck_queue"),
            1,
            ("access_rate", "access_delay"),
        ),
        TopologySpec::ParkingLot(spec) => (
            ("hop_rate", "hop_delay", "hop_queue"),
            u64::from(spec.hops),
            ("access_rate", "access_delay"),
        ),
        TopologySpec::Incast(_) => (("rate", "delay", "switch_queue"), 1, ("rate", "delay")),
        TopologySpec::FatTree(_) => (("rate", "delay", "queue"), u64::MAX, ("rate", "delay")),
    };
    let (rate, delay, queue) = if index < core_links {
        core
    } else {
        (access.0, access.1, "")
    };
    if let Some(queue_rest) = rest.strip_prefix(".queue")
        && !queue.is_empty()
    {
        return format!("topology.{queue}{queue_rest}");
    }
    match rest {
        ".rate" => format!("topology.{rate}"),
        ".delay" => format!("topology.{delay}"),
        _ => "topology".to_string(),
    }
}
