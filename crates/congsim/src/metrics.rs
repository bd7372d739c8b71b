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
}
