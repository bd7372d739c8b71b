//! What a run reports: the measurement snapshots, time series samples, captures and every
//! result table but the ATM ones.

use super::atm_tables::{atm_ports_table, atm_vcs_table, port_kind, push_atm_summary};
use super::*;

impl Simulation<'_> {
    pub(super) fn snapshot_measure_end(&mut self) {
        for flow in &mut self.flows {
            if flow.delivered_at_end.is_none() {
                let st = flow.receiver.stats();
                flow.delivered_at_end = Some((st.bytes_delivered, st.wire_bytes_delivered));
            }
        }
        for c in &mut self.cbr {
            c.delivered_at_end.get_or_insert(c.bytes_delivered);
        }
    }

    /// Means over the transfers that started inside the measurement window (seed 002's
    /// per-connection averages): RTOs, RTT, and bandwidth (size over completion time, completed
    /// transfers only).
    pub(super) fn push_transfer_summary(&self, summary: &mut Table) {
        let s = self.scenario;
        let (from, until) = (Self::at(s.measure_from), Self::at(s.measure_until));
        let measured: Vec<&FlowState> = self
            .transfers
            .iter()
            .filter(|f| f.start_at >= from && f.start_at < until)
            .collect();
        let mean = |values: &[f64]| {
            if values.is_empty() {
                f64::NAN
            } else {
                values.iter().sum::<f64>() / values.len() as f64
            }
        };
        let timeouts: Vec<f64> = measured
            .iter()
            .map(|f| f.sender.stats().timeouts as f64)
            .collect();
        let rtts: Vec<f64> = measured
            .iter()
            .filter(|f| f.sender.stats().rtt_samples > 0)
            .map(|f| f.sender.stats().rtt_sum_s / f.sender.stats().rtt_samples as f64)
            .collect();
        let bandwidths: Vec<f64> = measured
            .iter()
            .filter_map(|f| {
                let done = f.sender.completed_at()?;
                let bytes = f.receiver.stats().bytes_delivered as f64;
                Some(bytes * 8.0 / (done - f.start_at).as_secs_f64())
            })
            .collect();
        summary.push(
            "transfers_measured",
            Column::U64(vec![measured.len() as u64]),
        );
        summary.push(
            "transfers_completed",
            Column::U64(vec![bandwidths.len() as u64]),
        );
        summary.push("transfer_timeouts_mean", Column::F64(vec![mean(&timeouts)]));
        for (i, name) in timeout_cause_names().into_iter().enumerate() {
            let counts: Vec<f64> = measured
                .iter()
                .map(|f| f.sender.stats().timeout_causes()[i].1 as f64)
                .collect();
            summary.push(
                format!("transfer_{name}_mean"),
                Column::F64(vec![mean(&counts)]),
            );
        }
        summary.push("transfer_rtt_mean_s", Column::F64(vec![mean(&rtts)]));
        // Every segment sent weighs the same, so long transfers weigh more: seed 002's mean
        // window (about 6 segments below load 0.6 and 3 above for web objects) matches this
        // reading, not the mean of per-transfer means (about 3 at every load).
        let (cwnd_sum, sends) = measured.iter().fold((0.0, 0), |(sum, n), f| {
            let st = f.sender.stats();
            (sum + st.cwnd_sum_at_sends, n + st.data_pkts_sent)
        });
        summary.push(
            "transfer_cwnd_mean",
            Column::F64(vec![cwnd_sum / sends as f64]),
        );
        summary.push(
            "transfer_bandwidth_mean_bps",
            Column::F64(vec![mean(&bandwidths)]),
        );
    }

    /// The `transfers` table: each random transfer's size, start, completion and recovery.
    pub(super) fn transfers_table(&self) -> Table {
        let groups = &self.scenario.transfers;
        let mut t = Table::default();
        t.push(
            "group",
            Column::Str(
                self.transfer_info
                    .iter()
                    .map(|&(g, _, _)| groups[g as usize].name.clone())
                    .collect(),
            ),
        );
        t.push(
            "start_s",
            Column::F64(
                self.transfers
                    .iter()
                    .map(|f| f.start_at.as_secs_f64())
                    .collect(),
            ),
        );
        t.push(
            "size_bytes",
            Column::U64(
                self.transfer_info
                    .iter()
                    .map(|&(_, size, _)| size)
                    .collect(),
            ),
        );
        t.push(
            "completion_time_s",
            Column::F64(
                self.transfers
                    .iter()
                    .map(|f| {
                        f.sender
                            .completed_at()
                            .map_or(f64::NAN, |t| (t - f.start_at).as_secs_f64())
                    })
                    .collect(),
            ),
        );
        let stat = |get: &dyn Fn(&congsim_tcp::SenderStats) -> u64| {
            Column::U64(
                self.transfers
                    .iter()
                    .map(|f| get(f.sender.stats()))
                    .collect(),
            )
        };
        t.push("timeouts", stat(&|s| s.timeouts));
        for (i, name) in timeout_cause_names().into_iter().enumerate() {
            t.push(name, stat(&|s| s.timeout_causes()[i].1));
        }
        t.push("retx_pkts", stat(&|s| s.retx_pkts));
        t.push("fast_retransmits", stat(&|s| s.fast_retransmits));
        t.push("rtt_samples", stat(&|s| s.rtt_samples));
        t.push(
            "rtt_mean_s",
            Column::F64(
                self.transfers
                    .iter()
                    .map(|f| {
                        let st = f.sender.stats();
                        if st.rtt_samples == 0 {
                            f64::NAN
                        } else {
                            st.rtt_sum_s / st.rtt_samples as f64
                        }
                    })
                    .collect(),
            ),
        );
        t.push(
            "cwnd_mean",
            Column::F64(
                self.transfers
                    .iter()
                    .map(|f| f.sender.stats().cwnd_mean_at_sends())
                    .collect(),
            ),
        );
        t
    }

    /// The `classes` table, if any link has a class-based queue.
    pub(super) fn classes_table(&self) -> Option<Table> {
        let rows: Vec<(&str, usize, &congsim_ip::qdisc::ClassStats)> = self
            .links
            .iter()
            .zip(&self.scenario.links)
            .flat_map(|(link, spec)| {
                link.class_stats()
                    .iter()
                    .enumerate()
                    .map(move |(c, st)| (spec.name.as_str(), c, st))
            })
            .collect();
        if rows.is_empty() {
            return None;
        }
        let duration_s = self.scenario.duration.as_secs_f64();
        let mut t = Table::default();
        t.push(
            "link",
            Column::Str(rows.iter().map(|r| r.0.to_string()).collect()),
        );
        t.push(
            "class",
            Column::U64(rows.iter().map(|r| r.1 as u64).collect()),
        );
        // CBQ classes by their names; priority classes are known by their rank.
        let name_of = |link: &str, c: usize| -> String {
            let spec = self.scenario.links.iter().find(|l| l.name == link);
            match spec.map(|l| &l.queue) {
                Some(QueueDiscipline::Cbq { names, .. }) => names[c].clone(),
                _ => format!("priority {c}"),
            }
        };
        t.push(
            "name",
            Column::Str(rows.iter().map(|r| name_of(r.0, r.1)).collect()),
        );
        t.push(
            "arrivals",
            Column::U64(rows.iter().map(|r| r.2.arrivals).collect()),
        );
        t.push(
            "drops",
            Column::U64(rows.iter().map(|r| r.2.drops).collect()),
        );
        t.push(
            "departures",
            Column::U64(rows.iter().map(|r| r.2.departures).collect()),
        );
        t.push(
            "throughput_bps",
            Column::F64(
                rows.iter()
                    .map(|r| r.2.bytes_departed as f64 * 8.0 / duration_s)
                    .collect(),
            ),
        );
        Some(t)
    }

    /// The `cbr` table: what each source sent and its sink received.
    pub(super) fn cbr_table(&self, window_s: f64) -> Table {
        let specs = &self.scenario.cbr;
        let mut t = Table::default();
        t.push(
            "cbr",
            Column::Str(specs.iter().map(|c| c.name.clone()).collect()),
        );
        let node = |n: NodeId| self.scenario.nodes[n.index()].clone();
        t.push(
            "from",
            Column::Str(specs.iter().map(|c| node(c.src)).collect()),
        );
        t.push(
            "to",
            Column::Str(specs.iter().map(|c| node(c.dst)).collect()),
        );
        t.push(
            "rate_bps",
            Column::U64(specs.iter().map(|c| c.config.rate.bps()).collect()),
        );
        let count = |get: fn(&CbrState) -> u64| Column::U64(self.cbr.iter().map(get).collect());
        t.push("packets_sent", count(|c| c.next_seq));
        t.push("packets_delivered", count(|c| c.packets_delivered));
        t.push("packets_dropped", count(|c| c.packets_dropped));
        t.push("bytes_delivered", count(|c| c.bytes_delivered));
        t.push(
            "throughput_bps",
            Column::F64(
                self.cbr
                    .iter()
                    .map(|c| {
                        let end = c.delivered_at_end.unwrap_or(c.bytes_delivered);
                        (end - c.delivered_at_start) as f64 * 8.0 / window_s
                    })
                    .collect(),
            ),
        );
        t.push(
            "loss_ratio",
            Column::F64(
                self.cbr
                    .iter()
                    .map(|c| {
                        if c.next_seq == 0 {
                            0.0
                        } else {
                            c.packets_dropped as f64 / c.next_seq as f64
                        }
                    })
                    .collect(),
            ),
        );
        t
    }

    pub(super) fn sample(&mut self, now: SimTime) {
        let Some(series) = self.series.as_mut() else {
            return;
        };
        let interval = self
            .scenario
            .series_interval
            .expect("sampling is on")
            .as_secs_f64();
        let t = now.as_secs_f64();
        for (flow, spec) in self.flows.iter_mut().zip(&self.scenario.flows) {
            let delivered = flow.receiver.stats().bytes_delivered;
            let bytes = delivered - flow.delivered_at_last_sample;
            flow.delivered_at_last_sample = delivered;
            series.flow_time_s.push(t);
            series.flow.push(spec.name.clone());
            let sender = &flow.sender;
            series.cwnd.push(sender.cwnd_segments());
            series.ssthresh.push(sender.ssthresh_segments());
            series
                .effective_window
                .push(sender.effective_window_segments());
            // No estimate before the first RTT sample.
            let sampled = sender.stats().rtt_samples > 0;
            let estimate = |value: f64| if sampled { value } else { f64::NAN };
            series.srtt_s.push(estimate(sender.srtt_secs()));
            series.rttvar_s.push(estimate(sender.rttvar_secs()));
            series.rto_s.push(sender.rto().as_secs_f64());
            series.throughput_bps.push(if now == SimTime::ZERO {
                0.0
            } else {
                bytes as f64 * 8.0 / interval
            });
        }
        for (i, (link, spec)) in self.links.iter_mut().zip(&self.scenario.links).enumerate() {
            // ATM links queue cells: their own series.
            match &self.atm {
                Some(atm) if atm.is_atm(i) => {
                    series.atm_time_s.push(t);
                    series.atm_link.push(spec.name.clone());
                    series.atm_kind.push(port_kind(spec));
                    series.atm_queue_cells.push(atm.queue_cells(i, now));
                }
                _ => {
                    series.link_time_s.push(t);
                    series.link.push(spec.name.clone());
                    series.queue_packets.push(link.queue_len_packets(now));
                }
            }
        }
    }

    /// The pcap file of `capture`: its links' transmissions before `end`, merged in time order
    /// (ties keep the order of the links as listed).
    pub(super) fn capture(&self, capture: &ResolvedCapture, end: SimTime) -> Vec<u8> {
        let mut records: Vec<(SimTime, &Packet)> = capture
            .links
            .iter()
            .flat_map(|l| {
                self.links[l.index()]
                    .captured()
                    .iter()
                    .map(|(t, p)| (*t, p))
            })
            .filter(|(t, _)| *t < end)
            .collect();
        records.sort_by_key(|(t, _)| *t);
        let mut writer = PcapWriter::new(capture.headers_only);
        for (t, p) in records {
            // TCP packets only: declared flows and random transfers (CBR datagrams are left out).
            if p.tcp().is_none() {
                continue;
            }
            let flow = tcp_of(&self.flows, &self.transfers, self.first_transfer, p.flow);
            let cfg = flow.sender.config();
            let wire = FlowWire {
                src: flow.src,
                dst: flow.dst,
                seq_mode: cfg.seq_mode,
                mss: cfg.mss,
                syn: cfg.syn,
            };
            writer.write(t, p, &wire);
        }
        writer.into_bytes()
    }

    pub(super) fn results(mut self, replication: u32) -> RunResult {
        let s = self.scenario;
        let end = SimTime::ZERO + s.duration;
        let captures: Vec<(String, Vec<u8>)> = s
            .captures
            .iter()
            .map(|c| (c.file.clone(), self.capture(c, end)))
            .collect();
        let window_s = (s.measure_until.as_ps() - s.measure_from.as_ps()) as f64 / 1e12;
        let cbr = (!self.cbr.is_empty()).then(|| self.cbr_table(window_s));
        let flow_names: Vec<String> = (0..self.first_transfer + self.transfers.len())
            .map(|i| self.flow_name(FlowId(i as u32)))
            .collect();
        let classes = self.classes_table();
        let transfers = (!self.scenario.transfers.is_empty()).then(|| self.transfers_table());
        let names = |v: Vec<String>| Column::Str(v);

        let mut goodput = Vec::new();
        let mut wire_tput = Vec::new();
        for flow in &self.flows {
            let (p1, w1) = flow.delivered_at_end.unwrap_or((0, 0));
            goodput.push((p1 - flow.delivered_at_start.0) as f64 * 8.0 / window_s);
            wire_tput.push((w1 - flow.delivered_at_start.1) as f64 * 8.0 / window_s);
        }
        let sender_col = |get: &dyn Fn(&TcpSender) -> u64| {
            Column::U64(self.flows.iter().map(|f| get(&f.sender)).collect())
        };
        let mut flows = Table::default();
        flows.push(
            "flow",
            names(s.flows.iter().map(|f| f.name.clone()).collect()),
        );
        flows.push(
            "variant",
            names(s.flows.iter().map(|f| f.variant_name.to_string()).collect()),
        );
        flows.push(
            "profile",
            names(s.flows.iter().map(|f| f.profile_name.to_string()).collect()),
        );
        flows.push(
            "src",
            names(
                s.flows
                    .iter()
                    .map(|f| s.nodes[f.src.index()].clone())
                    .collect(),
            ),
        );
        flows.push(
            "dst",
            names(
                s.flows
                    .iter()
                    .map(|f| s.nodes[f.dst.index()].clone())
                    .collect(),
            ),
        );
        flows.push(
            "start_s",
            Column::F64(
                self.flows
                    .iter()
                    .map(|f| f.start_at.as_secs_f64())
                    .collect(),
            ),
        );
        flows.push("goodput_bps", Column::F64(goodput.clone()));
        flows.push("wire_throughput_bps", Column::F64(wire_tput));
        flows.push(
            "bytes_delivered",
            Column::U64(
                self.flows
                    .iter()
                    .map(|f| f.receiver.stats().bytes_delivered)
                    .collect(),
            ),
        );
        flows.push("data_pkts_sent", sender_col(&|x| x.stats().data_pkts_sent));
        flows.push("retx_pkts", sender_col(&|x| x.stats().retx_pkts));
        flows.push("retx_fast", sender_col(&|x| x.stats().retx_fast));
        flows.push("retx_go_back_n", sender_col(&|x| x.stats().retx_go_back_n));
        flows.push(
            "retx_partial_ack",
            sender_col(&|x| x.stats().retx_partial_ack),
        );
        flows.push("retx_sack_hole", sender_col(&|x| x.stats().retx_sack_hole));
        flows.push("retx_rescue", sender_col(&|x| x.stats().retx_rescue));
        flows.push("ecn_responses", sender_col(&|x| x.stats().ecn_responses));
        flows.push("bcn_responses", sender_col(&|x| x.stats().bcn_responses));
        flows.push("timeouts", sender_col(&|x| x.stats().timeouts));
        flows.push("timeouts_all", sender_col(&|x| x.stats().timeouts_all));
        for (i, name) in timeout_cause_names().into_iter().enumerate() {
            flows.push(name, sender_col(&|x| x.stats().timeout_causes()[i].1));
        }
        flows.push(
            "fast_retransmits",
            sender_col(&|x| x.stats().fast_retransmits),
        );
        flows.push(
            "fast_recoveries",
            sender_col(&|x| x.stats().fast_recoveries),
        );
        flows.push("partial_acks", sender_col(&|x| x.stats().partial_acks));
        flows.push(
            "limited_transmit_sends",
            sender_col(&|x| x.stats().limited_transmit_sends),
        );
        flows.push("cwnd_cuts", sender_col(&|x| x.stats().cwnd_cuts));
        flows.push("acks_rcvd", sender_col(&|x| x.stats().acks_rcvd));
        flows.push("dupacks_rcvd", sender_col(&|x| x.stats().dupacks_rcvd));
        flows.push("rtt_samples", sender_col(&|x| x.stats().rtt_samples));
        let mean = |sum: f64, n: u64| if n == 0 { f64::NAN } else { sum / n as f64 };
        flows.push(
            "rtt_mean_s",
            Column::F64(
                self.flows
                    .iter()
                    .map(|f| mean(f.sender.stats().rtt_sum_s, f.sender.stats().rtt_samples))
                    .collect(),
            ),
        );
        flows.push(
            "rtt_quantised_mean_s",
            Column::F64(
                self.flows
                    .iter()
                    .map(|f| {
                        mean(
                            f.sender.stats().rtt_quantised_sum_s,
                            f.sender.stats().rtt_samples,
                        )
                    })
                    .collect(),
            ),
        );
        flows.push(
            "final_cwnd",
            Column::F64(
                self.flows
                    .iter()
                    .map(|f| f.sender.cwnd_segments())
                    .collect(),
            ),
        );
        flows.push(
            "final_ssthresh",
            Column::F64(
                self.flows
                    .iter()
                    .map(|f| f.sender.ssthresh_segments())
                    .collect(),
            ),
        );
        flows.push(
            "completion_time_s",
            Column::F64(
                self.flows
                    .iter()
                    .map(|f| {
                        f.sender
                            .completed_at()
                            .map_or(f64::NAN, |t| (t - f.start_at).as_secs_f64())
                    })
                    .collect(),
            ),
        );
        flows.push(
            "dup_pkts_rcvd",
            Column::U64(
                self.flows
                    .iter()
                    .map(|f| f.receiver.stats().dup_pkts_rcvd)
                    .collect(),
            ),
        );
        flows.push(
            "acks_sent",
            Column::U64(
                self.flows
                    .iter()
                    .map(|f| f.receiver.stats().acks_sent)
                    .collect(),
            ),
        );
        flows.push(
            "sack_blocks_sent",
            Column::U64(
                self.flows
                    .iter()
                    .map(|f| f.receiver.stats().sack_blocks_sent)
                    .collect(),
            ),
        );
        // Over the flow's own life: from its start to its last byte acknowledged, or to the
        // end of the run (not the measurement window: a short transfer's rate, not its share).
        let active_goodput = self.flows.iter().map(|f| {
            let until = f.sender.completed_at().unwrap_or(end);
            let active_s = until.since(f.start_at).as_secs_f64();
            let bytes = f.receiver.stats().bytes_delivered as f64;
            if until > f.start_at {
                bytes * 8.0 / active_s
            } else {
                f64::NAN
            }
        });
        flows.push("active_goodput_bps", Column::F64(active_goodput.collect()));

        // ATM links report in cells, in the `atm_ports` table.
        let ip_links: Vec<(&ResolvedLink, &Link)> = s
            .links
            .iter()
            .zip(&self.links)
            .filter(|(spec, _)| spec.atm.is_none())
            .collect();
        let link_stats: Vec<LinkStats> = ip_links.iter().map(|(_, l)| l.stats_at(end)).collect();
        let link_col =
            |get: &dyn Fn(&LinkStats) -> u64| Column::U64(link_stats.iter().map(get).collect());
        let mut links = Table::default();
        links.push(
            "link",
            names(ip_links.iter().map(|(l, _)| l.name.clone()).collect()),
        );
        links.push(
            "rate_bps",
            Column::U64(ip_links.iter().map(|(l, _)| l.rate.bps()).collect()),
        );
        links.push(
            "delay_s",
            Column::F64(
                ip_links
                    .iter()
                    .map(|(l, _)| l.delay.as_secs_f64())
                    .collect(),
            ),
        );
        links.push("arrivals", link_col(&|l| l.arrivals));
        links.push("departures", link_col(&|l| l.departures));
        links.push("drops", link_col(&|l| l.drops_total()));
        links.push("drops_overflow", link_col(&|l| l.drops_overflow));
        links.push("drops_early", link_col(&|l| l.drops_early));
        links.push("drops_forced", link_col(&|l| l.drops_forced));
        links.push("drops_scripted", link_col(&|l| l.drops_scripted));
        links.push("drops_random", link_col(&|l| l.drops_random));
        links.push("marks", link_col(&|l| l.marks));
        links.push("max_queue_packets", link_col(&|l| l.max_queue_packets));
        links.push("max_queue_bytes", link_col(&|l| l.max_queue_bytes));
        links.push(
            "mean_queue_packets",
            Column::F64(
                ip_links
                    .iter()
                    .map(|(_, l)| l.mean_queue_packets(end))
                    .collect(),
            ),
        );
        links.push(
            "utilization",
            Column::F64(
                link_stats
                    .iter()
                    // Whole transmissions count; the last one may run past the end.
                    .map(|st| (st.busy_ps as f64 / end.as_ps() as f64).min(1.0))
                    .collect(),
            ),
        );
        let (atm_ports, atm_vcs) = match &self.atm {
            Some(atm) => (
                Some(atm_ports_table(atm, s, end)),
                Some(atm_vcs_table(atm, &flow_names)),
            ),
            None => (None, None),
        };

        let total: f64 = goodput.iter().sum();
        let sum_sender = |get: &dyn Fn(&TcpSender) -> u64| {
            self.flows.iter().map(|f| get(&f.sender)).sum::<u64>()
        };
        let mut summary = Table::default();
        summary.push("scenario", Column::Str(vec![s.name.clone()]));
        summary.push("replication", Column::U64(vec![u64::from(replication)]));
        summary.push("seed", Column::U64(vec![s.seed]));
        summary.push("duration_s", Column::F64(vec![s.duration.as_secs_f64()]));
        summary.push("flows", Column::U64(vec![self.flows.len() as u64]));
        summary.push("total_goodput_bps", Column::F64(vec![total]));
        // With several TCP variants side by side, each one's share too (seed 004's Table 5).
        let variants: BTreeSet<&str> = s.flows.iter().map(|f| f.variant_name).collect();
        if variants.len() > 1 {
            for variant in variants {
                let sum: f64 = s
                    .flows
                    .iter()
                    .zip(&goodput)
                    .filter(|(f, _)| f.variant_name == variant)
                    .map(|(_, g)| g)
                    .sum();
                summary.push(
                    format!("total_goodput_bps_{variant}"),
                    Column::F64(vec![sum]),
                );
            }
        }
        summary.push(
            "efficiency",
            Column::F64(vec![
                s.efficiency_max
                    .map_or(f64::NAN, |max| total / max.bps() as f64),
            ]),
        );
        summary.push("jain_index", Column::F64(vec![jain_index(&goodput)]));
        summary.push("cov", Column::F64(vec![coefficient_of_variation(&goodput)]));
        summary.push(
            "timeouts",
            Column::U64(vec![sum_sender(&|x| x.stats().timeouts)]),
        );
        summary.push(
            "fast_retransmits",
            Column::U64(vec![sum_sender(&|x| x.stats().fast_retransmits)]),
        );
        summary.push(
            "fast_recoveries",
            Column::U64(vec![sum_sender(&|x| x.stats().fast_recoveries)]),
        );
        summary.push(
            "retx_pkts",
            Column::U64(vec![sum_sender(&|x| x.stats().retx_pkts)]),
        );
        summary.push(
            "drops",
            Column::U64(vec![link_stats.iter().map(LinkStats::drops_total).sum()]),
        );
        if !s.transfers.is_empty() {
            self.push_transfer_summary(&mut summary);
        }
        if let Some(atm) = &self.atm {
            push_atm_summary(&mut summary, atm, s, end);
        }
        summary.push("events", Column::U64(vec![self.queue.events_processed()]));

        let tcp_events = s.tcp_events.then(|| {
            let mut t = Table::default();
            // Declared flows, then random transfers in order of arrival.
            let connections =
                (self.flows.iter().enumerate()).chain((self.first_transfer..).zip(&self.transfers));
            let events: Vec<(String, &congsim_tcp::TraceEvent)> = connections
                .flat_map(|(i, f)| {
                    let name = self.flow_name(FlowId(i as u32));
                    f.sender.trace().iter().map(move |e| (name.clone(), e))
                })
                .collect();
            t.push(
                "time_s",
                Column::F64(events.iter().map(|(_, e)| e.time.as_secs_f64()).collect()),
            );
            t.push(
                "flow",
                Column::Str(events.iter().map(|(n, _)| n.clone()).collect()),
            );
            t.push(
                "event",
                Column::Str(
                    events
                        .iter()
                        .map(|(_, e)| e.kind.name().to_string())
                        .collect(),
                ),
            );
            t.push(
                "cwnd",
                Column::F64(events.iter().map(|(_, e)| e.cwnd).collect()),
            );
            t.push(
                "ssthresh",
                Column::F64(events.iter().map(|(_, e)| e.ssthresh).collect()),
            );
            t
        });
        let (flow_series, link_series, atm_series) = match self.series {
            Some(series) => {
                let mut fs = Table::default();
                fs.push("time_s", Column::F64(series.flow_time_s));
                fs.push("flow", Column::Str(series.flow));
                fs.push("cwnd", Column::F64(series.cwnd));
                fs.push("ssthresh", Column::F64(series.ssthresh));
                fs.push("throughput_bps", Column::F64(series.throughput_bps));
                fs.push("effective_window", Column::F64(series.effective_window));
                fs.push("srtt_s", Column::F64(series.srtt_s));
                fs.push("rttvar_s", Column::F64(series.rttvar_s));
                fs.push("rto_s", Column::F64(series.rto_s));
                let mut ls = Table::default();
                ls.push("time_s", Column::F64(series.link_time_s));
                ls.push("link", Column::Str(series.link));
                ls.push("queue_packets", Column::U64(series.queue_packets));
                let atm = self.atm.is_some().then(|| {
                    let mut t = Table::default();
                    t.push("time_s", Column::F64(series.atm_time_s));
                    t.push("link", Column::Str(series.atm_link));
                    t.push("kind", Column::Str(series.atm_kind));
                    t.push("queue_cells", Column::U64(series.atm_queue_cells));
                    t
                });
                (Some(fs), Some(ls), atm)
            }
            None => (None, None, None),
        };
        let sequence = self.sequence.take().map(|trace| {
            let mut t = Table::default();
            t.push("time_s", Column::F64(trace.time_s));
            t.push(
                "flow",
                Column::Str(
                    trace
                        .flow
                        .iter()
                        .map(|f| flow_names[f.index()].clone())
                        .collect(),
                ),
            );
            t.push(
                "event",
                Column::Str(trace.event.iter().map(|e| e.to_string()).collect()),
            );
            t.push("seq", Column::U64(trace.seq));
            t.push("ack", Column::U64(trace.ack));
            t.push("sack", Column::Str(trace.sack));
            t.push("cwnd", Column::F64(trace.cwnd));
            t.push("ssthresh", Column::F64(trace.ssthresh));
            t.push("pipe", Column::F64(trace.pipe));
            t
        });
        RunResult {
            flows,
            tcp_events,
            sequence,
            cbr,
            classes,
            transfers,
            atm_ports,
            atm_vcs,
            atm_series,
            captures,
            links,
            summary,
            flow_series,
            link_series,
            warnings: warnings_table(&self.scenario.warnings),
            events: self.queue.events_processed(),
        }
    }
}

/// The scenario's warnings, one row each (`None` when there are none).
pub(super) fn warnings_table(warnings: &[ScenarioWarning]) -> Option<Table> {
    if warnings.is_empty() {
        return None;
    }
    let mut t = Table::default();
    let field = warnings.iter().map(|w| w.path.clone()).collect();
    t.push("field", Column::Str(field));
    t.push(
        "message",
        Column::Str(warnings.iter().map(|w| w.message.clone()).collect()),
    );
    Some(t)
}
