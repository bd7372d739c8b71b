//! Fairness and efficiency metrics (spec `ip.md` §6).

/// Jain's fairness index `(Σx)² / (n·Σx²)`, in `[1/n, 1]`; 1 when every share is equal.
/// Returns 1 for no flows or all-zero throughputs (nobody is treated unfairly).
pub fn jain_index(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let sum_sq: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || sum_sq == 0.0 {
        return 1.0;
    }
    sum * sum / (x.len() as f64 * sum_sq)
}

/// Coefficient of variation `σ/μ` with the population standard deviation (spec §6.4);
/// 0 is perfectly fair. Returns 0 when the mean is 0.
pub fn coefficient_of_variation(x: &[f64]) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    if mean == 0.0 {
        return 0.0;
    }
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    var.sqrt() / mean
}

/// Max-min fair rates by progressive filling (Bertsekas and Gallager; the fairness criterion of
/// ATM Forum TM 4.0 that seed 003 uses): every flow's rate rises together until a link on its
/// path fills or the flow reaches its `demand`, which freezes it; the others rise on. `paths[i]`
/// lists the links flow `i` crosses (indices into `capacity`, in the unit of the rates);
/// `demand[i]` is its most (`f64::INFINITY` for an elastic flow). A flow with no link gets its
/// demand (`INFINITY` if elastic).
pub fn max_min_shares(capacity: &[f64], paths: &[Vec<usize>], demand: &[f64]) -> Vec<f64> {
    let mut share = vec![0.0; paths.len()];
    let mut frozen: Vec<bool> = paths.iter().map(Vec::is_empty).collect();
    for (i, path) in paths.iter().enumerate() {
        if path.is_empty() {
            share[i] = demand[i];
        }
    }
    let mut left = capacity.to_vec();
    // A link counts as full within this share of its capacity (sums of rates round).
    const FULL: f64 = 1e-9;
    loop {
        let mut rising = vec![0usize; capacity.len()];
        for (path, _) in paths.iter().zip(&frozen).filter(|(_, f)| !**f) {
            for &l in path {
                rising[l] += 1;
            }
        }
        let by_links = (0..capacity.len())
            .filter(|&l| rising[l] > 0)
            .map(|l| left[l] / rising[l] as f64);
        let by_demands = (0..paths.len())
            .filter(|&i| !frozen[i])
            .map(|i| demand[i] - share[i]);
        let Some(step) = by_links.chain(by_demands).min_by(f64::total_cmp) else {
            return share;
        };
        for l in 0..capacity.len() {
            left[l] -= step * rising[l] as f64;
        }
        for i in 0..paths.len() {
            if frozen[i] {
                continue;
            }
            share[i] += step;
            let at_demand = share[i] >= demand[i];
            let through_full_link = paths[i].iter().any(|&l| left[l] <= FULL * capacity[l]);
            frozen[i] = at_demand || through_full_link;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_bounds_and_scale_invariance() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0]), 1.0);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        let a = jain_index(&[1.0, 2.0, 3.0]);
        let b = jain_index(&[10.0, 20.0, 30.0]);
        assert!((a - b).abs() < 1e-12);
        assert!((a - 36.0 / 42.0).abs() < 1e-12);
    }

    #[test]
    fn cov_of_known_values() {
        assert_eq!(coefficient_of_variation(&[4.0, 4.0]), 0.0);
        // mean 2, population sd 1 → 0.5
        assert!((coefficient_of_variation(&[1.0, 3.0]) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn max_min_shares_of_a_parking_lot_and_a_capped_flow() {
        // Links 0 and 1 of 10 each: a long flow crosses both, one short flow each; the long
        // flow and short flow 1 share link 0 equally (5 each); on link 1 the second short
        // flow is capped at 2, so the long flow's 5 leaves it 3 (it gets its demand), and link
        // 1 is not full (10 - 5 - 2 = 3 spare).
        let shares = max_min_shares(
            &[10.0, 10.0],
            &[vec![0, 1], vec![0], vec![1]],
            &[f64::INFINITY, f64::INFINITY, 2.0],
        );
        assert_eq!(shares, [5.0, 5.0, 2.0]);
        // A second bottleneck of 4 on the long flow's path: it gets 4, the short flow the
        // rest of link 0 (6), the third flow all of its own link (10).
        let shares = max_min_shares(
            &[10.0, 4.0, 10.0],
            &[vec![0, 1], vec![0], vec![2]],
            &[f64::INFINITY; 3],
        );
        assert_eq!(shares, [4.0, 6.0, 10.0]);
        assert_eq!(max_min_shares(&[1.0], &[vec![]], &[3.0]), [3.0]);
    }
}
