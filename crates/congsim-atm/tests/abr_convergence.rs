//! ERICA's analytical checks (spec `atm.md` §11 and issue 7's acceptance): greedy ABR sources
//! on one bottleneck converge to `U · C / N` each, and on two bottlenecks to the max-min fair
//! rates that water-filling gives.

use congsim_atm::abr::AbrParams;
use congsim_atm::erica::{CcrCap, EricaConfig};
use congsim_atm::network::AbrService;
use congsim_atm::port::SwitchConfig;
use congsim_atm::vbr::VbrConfig;
use congsim_atm::{AtmEvent, AtmNetwork, PortConfig, UbrPolicy, VcId};
use congsim_core::time::{SimDuration, SimTime};
use congsim_core::units::Rate;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

const OC3_BPS: u64 = 155_520_000;
const C: f64 = OC3_BPS as f64 / 424.0;

/// A network of named nodes with links both ways between the pairs given; hosts are the nodes
/// whose names start with `h`. Every switch port runs `erica`.
struct Topology {
    links: Vec<(usize, usize)>,
    hosts: Vec<bool>,
    erica: EricaConfig,
    delay: SimDuration,
    /// Background VBR entering link 0's port (the first pair given).
    vbr: Option<VbrConfig>,
}

fn basic_erica() -> EricaConfig {
    EricaConfig::basic(C)
}

impl Topology {
    fn new(nodes: &[&str], pairs: &[(&str, &str)], erica: EricaConfig) -> Self {
        let id = |n: &str| nodes.iter().position(|m| *m == n).expect("a node");
        let links = pairs
            .iter()
            .flat_map(|&(a, b)| [(id(a), id(b)), (id(b), id(a))])
            .collect();
        Self {
            links,
            hosts: nodes.iter().map(|n| n.starts_with('h')).collect(),
            erica,
            delay: SimDuration::from_micros(5),
            vbr: None,
        }
    }

    /// Links from `from` to `to` (breadth-first: the topologies are trees).
    fn path(&self, from: usize, to: usize) -> Vec<u32> {
        let mut via: Vec<Option<usize>> = vec![None; self.hosts.len()];
        let mut frontier = VecDeque::from([from]);
        while let Some(n) = frontier.pop_front() {
            for (l, &(a, b)) in self.links.iter().enumerate() {
                if a == n && b != from && via[b].is_none() {
                    via[b] = Some(l);
                    frontier.push_back(b);
                }
            }
        }
        let mut path = Vec::new();
        let mut at = to;
        while at != from {
            let l = via[at].expect("connected");
            path.push(l as u32);
            at = self.links[l].0;
        }
        path.reverse();
        path
    }

    fn network(&self, horizon: SimTime) -> AtmNetwork {
        let ports = self
            .links
            .iter()
            .enumerate()
            .map(|(link, &(from, _))| {
                Some(PortConfig {
                    rate: Rate::from_bps(OC3_BPS).expect("a rate"),
                    delay: self.delay,
                    capacity_cells: None,
                    policy: UbrPolicy::TailDrop,
                    ppd_after_overflow: false,
                    switch: (!self.hosts[from]).then(|| SwitchConfig::Erica(self.erica.clone())),
                    vbr: self.vbr.clone().filter(|_| link == 0),
                })
            })
            .collect();
        AtmNetwork::new(
            ports,
            vec![false; self.links.len()],
            horizon,
            Some(AbrService {
                params: AbrParams::seed001(C),
                uni_buffer_bytes: None,
            }),
            true,
        )
    }

    /// Opens greedy ABR connection `k` (VCs 2k forward, 2k + 1 back) from `src` to `dst`.
    fn connect(&self, net: &mut AtmNetwork, k: u32, src: usize, dst: usize) {
        let (fwd, back) = (self.path(src, dst), self.path(dst, src));
        // Feedback for one direction's backward RM cells comes from the other direction's port
        // out of the same node.
        let feedback = |carrier: &[u32], owner: &[u32]| -> Vec<Option<u32>> {
            carrier
                .iter()
                .map(|&l| {
                    let node = self.links[l as usize].0;
                    owner
                        .iter()
                        .copied()
                        .find(|&o| self.links[o as usize].0 == node)
                })
                .collect()
        };
        let (f_fwd, f_back) = (feedback(&fwd, &back), feedback(&back, &fwd));
        net.open_vc(VcId(2 * k), fwd, Some((VcId(2 * k + 1), back)), true);
        net.set_feedback_ports(VcId(2 * k), f_fwd);
        net.set_feedback_ports(VcId(2 * k + 1), f_back);
    }
}

/// Runs the network until `until`; returns each of `vcs`' ACR averaged over samples every
/// 10 us in the second half of the run (an instant's ACR carries the last interval's noise).
fn run(net: &mut AtmNetwork, until: SimTime, vcs: &[VcId]) -> Vec<f64> {
    let mut heap = BinaryHeap::new();
    let mut order = 0u64;
    let step = SimDuration::from_micros(10);
    let mut next_sample = SimTime::from_ps(until.as_ps() / 2);
    let (mut sums, mut samples) = (vec![0.0; vcs.len()], 0u32);
    loop {
        for (t, e) in net.drain_scheduled() {
            order += 1;
            heap.push(Reverse((t, order, e)));
        }
        let Some(&Reverse((t, _, e))) = heap.peek() else {
            break;
        };
        while next_sample <= t.min(until) && next_sample < until {
            for (sum, vc) in sums.iter_mut().zip(vcs) {
                *sum += net.acr(*vc).expect("an ABR VC");
            }
            samples += 1;
            next_sample += step;
        }
        if t >= until {
            break;
        }
        heap.pop();
        match e {
            AtmEvent::PipeHead(p) => net.pipe_head(t, p, t),
            AtmEvent::SourceWake(vc) => net.source_wake(t, vc),
            AtmEvent::Deliver(_) | AtmEvent::CongestionIndication(_) => {
                unreachable!("greedy sources send no frames; ERICA sets no CI")
            }
        }
    }
    sums.iter().map(|s| s / f64::from(samples)).collect()
}

/// N greedy sources `hs{i} -> sw1 -> sw2 -> hd{i}`, opened as connections 0..N.
fn one_bottleneck_topology(n: usize, erica: EricaConfig) -> (Topology, Vec<(usize, usize)>) {
    let names: Vec<(String, String)> = (0..n)
        .map(|i| (format!("hs{i}"), format!("hd{i}")))
        .collect();
    let mut nodes = vec!["sw1", "sw2"];
    for (s, d) in &names {
        nodes.push(s);
        nodes.push(d);
    }
    let mut pairs = vec![("sw1", "sw2")];
    for (s, d) in &names {
        pairs.push((s.as_str(), "sw1"));
        pairs.push(("sw2", d.as_str()));
    }
    let ends = (0..n).map(|i| (2 + 2 * i, 3 + 2 * i)).collect();
    (Topology::new(&nodes, &pairs, erica), ends)
}

fn open_all(topo: &Topology, ends: &[(usize, usize)], end: SimTime) -> (AtmNetwork, Vec<VcId>) {
    let mut net = topo.network(end);
    for (k, &(s, d)) in ends.iter().enumerate() {
        topo.connect(&mut net, k as u32, s, d);
    }
    (net, (0..ends.len()).map(|k| VcId(2 * k as u32)).collect())
}

/// N greedy sources through sw1 -> sw2 for 100 ms (a LAN: 30 us round trips, 1 ms intervals):
/// each source's mean ACR over the last 50 ms, over `U · C / N`.
fn one_bottleneck(n: usize, erica: EricaConfig) -> Vec<f64> {
    let (topo, ends) = one_bottleneck_topology(n, erica);
    let end = SimTime::from_millis(100);
    let (mut net, vcs) = open_all(&topo, &ends, end);
    let share = 0.9 * C / n as f64;
    run(&mut net, end, &vcs)
        .iter()
        .map(|acr| acr / share)
        .collect()
}

#[test]
fn greedy_sources_on_one_bottleneck_converge_to_equal_shares_of_the_target() {
    // Averaging over 500 cells rather than 100 keeps the load factor's sampling noise (a cell
    // in 100) from biasing max(FS, CCR/z) upwards.
    let erica = EricaConfig {
        interval_cells: 500,
        ..basic_erica()
    };
    for n in [2, 5, 10, 15] {
        let rates = one_bottleneck(n, erica.clone());
        assert!(
            rates.iter().all(|r| (r - 1.0).abs() < 0.02),
            "N = {n}: ACR / (U C / N) = {rates:?}"
        );
    }
}

#[test]
fn modified_erica_settles_equal_shares_inside_its_delta_band() {
    // Under load (z <= 1 + delta) the max-min step offers MaxAllocPrev: rates anywhere from
    // the target to (1 + delta) times it are a fixed point; they stay within 5 % of each other.
    for n in [2, 5, 10, 15] {
        let rates = one_bottleneck(n, EricaConfig::modified(C));
        let (low, high) = rates
            .iter()
            .fold((f64::MAX, 0.0_f64), |(l, h), &r| (l.min(r), h.max(r)));
        assert!(
            low >= 0.98 && high <= 1.1 && high / low < 1.05,
            "N = {n}: ACR / (U C / N) = {rates:?}"
        );
    }
}

#[test]
fn greedy_sources_on_two_bottlenecks_converge_to_max_min_rates() {
    // A crosses both switch links; B only the first; C and D only the second. Water-filling at
    // the target 0.9 C: the second link splits three ways (0.3 C each, A included), and B takes
    // what A leaves of the first (0.6 C).
    let nodes = [
        "sw1", "sw2", "sw3", "ha", "hb", "hc", "hd", "ha2", "hb2", "hc2", "hd2",
    ];
    let pairs = [
        ("sw1", "sw2"),
        ("sw2", "sw3"),
        ("ha", "sw1"),
        ("hb", "sw1"),
        ("hc", "sw2"),
        ("hd", "sw2"),
        ("sw3", "ha2"),
        ("sw2", "hb2"),
        ("sw3", "hc2"),
        ("sw3", "hd2"),
    ];
    let id = |n: &str| nodes.iter().position(|m| *m == n).unwrap();
    for erica in [basic_erica(), EricaConfig::modified(C)] {
        let topo = Topology::new(&nodes, &pairs, erica);
        let end = SimTime::from_millis(60);
        let mut net = topo.network(end);
        let connections = [("ha", "ha2"), ("hb", "hb2"), ("hc", "hc2"), ("hd", "hd2")];
        for (k, (s, d)) in connections.iter().enumerate() {
            topo.connect(&mut net, k as u32, id(s), id(d));
        }
        let vcs: Vec<VcId> = (0..4).map(|k| VcId(2 * k)).collect();
        let acrs = run(&mut net, end, &vcs);
        for (k, want) in [0.3, 0.6, 0.3, 0.3].iter().enumerate() {
            let acr = acrs[k] / C;
            assert!(
                (acr - want).abs() < 0.03 * want,
                "{:?}: connection {k}: {acr:.4} C, max-min {want} C",
                topo.erica.max_min_step
            );
        }
    }
}

/// Fifteen greedy sources on a WAN (5 ms links, 30 ms round trips) beside VBR taking 0.8 C
/// for `on_off` of every `2 · on_off` at the bottleneck, for 1.2 s: the bottleneck's largest
/// queue in the first and the second half of the run, in round trips (30 ms of cells).
fn queue_beside_vbr(erica: EricaConfig, on_off: SimDuration) -> (f64, f64) {
    let (mut topo, ends) = one_bottleneck_topology(15, erica);
    topo.delay = SimDuration::from_millis(5);
    topo.vbr = Some(VbrConfig {
        rate: 0.8 * C,
        on: on_off,
        off: on_off,
        start: SimTime::from_millis(2),
    });
    let end = SimTime::from_millis(1200);
    let (mut net, vcs) = open_all(&topo, &ends, end);
    run(&mut net, end, &vcs);
    let stats = net.port_stats(0, end).expect("an ATM port");
    let rtt_cells = 0.030 * C;
    (
        stats.max_queue_cells_first_half as f64 / rtt_cells,
        stats.max_queue_cells as f64 / rtt_cells,
    )
}

#[test]
fn the_ccr_cap_bounds_the_queue_beside_vbr_and_erica_plus_needs_it_at_10_ms() {
    // Each VBR onset queues what the sources send in one feedback delay. A source slowed by VBR
    // sends a forward RM cell only every 32 cells, so its table CCR stays high; ERICA's
    // pseudo-code hands CCR/z back and the queue grows period after period at every VBR
    // period. With the CCR capped by the last ER (deviation D24) it stays within a round trip
    // at 30 and 1 ms, and grows at 10 ms unless ERICA+'s queue control cuts the target.
    let ms = SimDuration::from_millis;
    let capped = |erica: EricaConfig| EricaConfig {
        ccr_cap: CcrCap::Always,
        ..erica
    };
    let grows = |erica: &EricaConfig, period: u64| {
        let (first, whole) = queue_beside_vbr(erica.clone(), ms(period));
        (
            whole > 1.5 * first && whole > 3.0,
            format!("{first:.2} then {whole:.2} RTT"),
        )
    };
    let bounded = |erica: &EricaConfig, period: u64, limit: f64| {
        let (first, whole) = queue_beside_vbr(erica.clone(), ms(period));
        (
            whole < limit && whole <= first * 1.05,
            format!("{first:.2} then {whole:.2} RTT"),
        )
    };
    let modified = EricaConfig::modified(C);
    for period in [30, 10, 1] {
        let (ok, seen) = grows(&modified, period);
        assert!(ok, "uncapped modified ERICA, {period} ms VBR: {seen}");
    }
    let modified_capped = capped(modified);
    for period in [30, 1] {
        let (ok, seen) = bounded(&modified_capped, period, 1.0);
        assert!(ok, "capped modified ERICA, {period} ms VBR: {seen}");
    }
    let (ok, seen) = grows(&modified_capped, 10);
    assert!(ok, "capped modified ERICA, 10 ms VBR: {seen}");
    let (ok, seen) = grows(&EricaConfig::plus(C), 10);
    assert!(ok, "uncapped ERICA+, 10 ms VBR: {seen}");
    for period in [30, 10, 1] {
        let (ok, seen) = bounded(&capped(EricaConfig::plus(C)), period, 0.6);
        assert!(ok, "capped ERICA+, {period} ms VBR: {seen}");
    }
}
