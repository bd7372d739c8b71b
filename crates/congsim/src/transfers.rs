//! Finite transfers arriving at random (spec `ip.md` §5.2, §5.3, §5.6): each arrival opens a new
//! TCP connection that sends one file or web object. Sizes come from an exponential law or the
//! web mixture of a lognormal body and a Pareto tail; arrivals are Poisson, at a rate given
//! directly or set from a target offered load.

use congsim_core::rng::RngStream;

/// The law of transfer sizes, in payload bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeLaw {
    /// Exponential with this mean (seed 002's FTP: 512 KB).
    Exponential { mean_bytes: f64 },
    /// With probability `body_probability` a lognormal `ln X ~ N(mu, sigma²)`, else a Pareto
    /// `P(X > x) = (k/x)^alpha`; draws above `max_bytes` are drawn again (truncation).
    WebMixture {
        body_probability: f64,
        mu: f64,
        sigma: f64,
        k: f64,
        alpha: f64,
        max_bytes: f64,
    },
}

/// The shapes of seed 002's web law that the paper does not print: SURGE's (guesses G21, G22).
pub const SEED002_WEB_SIGMA: f64 = 1.318;
pub const SEED002_WEB_ALPHA: f64 = 1.1;

impl SizeLaw {
    /// Seed 002's web objects (spec §5.3): body mean 7247 B (lognormal, `ln X` of deviation
    /// `sigma`), tail mean 10558 B (Pareto of shape `alpha` > 1), body weight 0.88, truncated
    /// at `max_bytes`. The printed means hold whatever the shapes.
    pub fn seed002_web(max_bytes: f64, sigma: f64, alpha: f64) -> Self {
        Self::WebMixture {
            body_probability: 0.88,
            mu: 7247f64.ln() - sigma * sigma / 2.0,
            sigma,
            k: 10_558.0 * (alpha - 1.0) / alpha,
            alpha,
            max_bytes,
        }
    }

    /// SURGE (Barford & Crovella 1998): body lognormal μ = 9.357, σ = 1.318, weight 0.93; tail
    /// Pareto α = 1.1, k = 133 000 B.
    pub fn surge98(max_bytes: f64) -> Self {
        Self::WebMixture {
            body_probability: 0.93,
            mu: 9.357,
            sigma: 1.318,
            k: 133_000.0,
            alpha: 1.1,
            max_bytes,
        }
    }

    /// One size in whole bytes (at least 1).
    pub fn draw(&self, rng: &mut RngStream) -> u64 {
        let bytes = match *self {
            Self::Exponential { mean_bytes } => -mean_bytes * (1.0 - rng.uniform()).ln(),
            Self::WebMixture {
                body_probability,
                mu,
                sigma,
                k,
                alpha,
                max_bytes,
            } => loop {
                let x = if rng.uniform() < body_probability {
                    (mu + sigma * standard_normal(rng)).exp()
                } else {
                    k / (1.0 - rng.uniform()).powf(1.0 / alpha)
                };
                if x <= max_bytes {
                    break x;
                }
            },
        };
        (bytes.ceil() as u64).max(1)
    }

    /// The probability that one draw of the untruncated law is kept (1 for exponential sizes):
    /// truncation redraws the rest, so a tiny value would make drawing spin.
    pub fn kept_fraction(&self) -> f64 {
        match self {
            Self::Exponential { .. } => 1.0,
            Self::WebMixture { .. } => {
                let w = WebParts::of(self);
                w.body_probability * w.body_mass + (1.0 - w.body_probability) * w.tail_mass
            }
        }
    }

    /// The mean of [`Self::draw`] (before rounding up), truncation included: what the offered
    /// load is set from. Truncation by redrawing conditions the whole mixture on X ≤ max.
    pub fn mean_bytes(&self) -> f64 {
        match self {
            Self::Exponential { mean_bytes } => *mean_bytes,
            Self::WebMixture { .. } => {
                let w = WebParts::of(self);
                let p = w.body_probability;
                (p * w.body_partial + (1.0 - p) * w.tail_partial)
                    / (p * w.body_mass + (1.0 - p) * w.tail_mass)
            }
        }
    }
}

/// The pieces of a truncated web mixture: each component's probability mass below the maximum
/// and its partial mean (`∫ x f(x) dx` up to the maximum).
struct WebParts {
    body_probability: f64,
    body_mass: f64,
    body_partial: f64,
    tail_mass: f64,
    tail_partial: f64,
}

impl WebParts {
    /// The parts of `law`, which must be a web mixture (exponential laws have none: zeros).
    fn of(law: &SizeLaw) -> Self {
        let SizeLaw::WebMixture {
            body_probability,
            mu,
            sigma,
            k,
            alpha,
            max_bytes,
        } = *law
        else {
            return Self {
                body_probability: 1.0,
                body_mass: 1.0,
                body_partial: 0.0,
                tail_mass: 0.0,
                tail_partial: 0.0,
            };
        };
        let ln_max = max_bytes.ln();
        let (tail_mass, tail_partial) = if max_bytes <= k {
            (0.0, 0.0)
        } else {
            //= ∫_k^M x · α k^α x^(−α−1) dx = α k^α (k^(1−α) − M^(1−α)) / (α − 1)
            (
                1.0 - (k / max_bytes).powf(alpha),
                alpha * k.powf(alpha) * (k.powf(1.0 - alpha) - max_bytes.powf(1.0 - alpha))
                    / (alpha - 1.0),
            )
        };
        Self {
            body_probability,
            body_mass: normal_cdf((ln_max - mu) / sigma),
            body_partial: (mu + sigma * sigma / 2.0).exp()
                * normal_cdf((ln_max - mu - sigma * sigma) / sigma),
            tail_mass,
            tail_partial,
        }
    }
}

/// A standard normal variate (Box–Muller, one of the pair).
fn standard_normal(rng: &mut RngStream) -> f64 {
    let u1 = 1.0 - rng.uniform(); // (0, 1]
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Φ(x), the standard normal CDF, from the complementary error function.
fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// erfc(x) with relative error below 1.2e-7 everywhere (Numerical Recipes' Chebyshev fit).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// Poisson arrivals: the gap to the next arrival, in seconds.
pub fn exponential_gap_s(rng: &mut RngStream, per_second: f64) -> f64 {
    -(1.0 - rng.uniform()).ln() / per_second
}

#[cfg(test)]
mod tests {
    use super::*;
    use congsim_core::rng::StreamFactory;

    #[test]
    fn seed002_web_mixture_has_the_spec_parameters_and_mean() {
        let SizeLaw::WebMixture { mu, k, .. } =
            SizeLaw::seed002_web(f64::INFINITY, SEED002_WEB_SIGMA, SEED002_WEB_ALPHA)
        else {
            unreachable!()
        };
        //= ip.md §5.3: μ = 8.020, k = 959.8 B, mixture mean 7644 B
        assert!((mu - 8.020).abs() < 5e-4, "{mu}");
        assert!((k - 959.8).abs() < 0.05, "{k}");
        let mean =
            SizeLaw::seed002_web(f64::INFINITY, SEED002_WEB_SIGMA, SEED002_WEB_ALPHA).mean_bytes();
        assert!((mean - 7644.0).abs() < 1.0, "{mean}");
        // Truncating at 10 MB removes part of the Pareto tail's mean.
        let truncated =
            SizeLaw::seed002_web(10e6, SEED002_WEB_SIGMA, SEED002_WEB_ALPHA).mean_bytes();
        assert!(truncated < mean && truncated > 7000.0, "{truncated}");
        // Other shapes keep the printed means (body 7247 B, tail 10 558 B) and move the rest:
        // a narrower body has a larger median, a lighter tail a larger minimum.
        let other = SizeLaw::seed002_web(f64::INFINITY, 1.0, 1.5);
        assert!(
            (other.mean_bytes() - 7644.0).abs() < 1.0,
            "{}",
            other.mean_bytes()
        );
        let SizeLaw::WebMixture { mu: mu1, k: k1, .. } = other else {
            unreachable!()
        };
        assert!(
            (mu1 - (7247f64.ln() - 0.5)).abs() < 1e-12 && mu1 > mu,
            "{mu1}"
        );
        assert!((k1 - 10_558.0 / 3.0).abs() < 1e-9 && k1 > k, "{k1}");
    }

    #[test]
    fn draws_follow_their_laws() {
        let mut rng = StreamFactory::new(5, 0).stream("sizes");
        let exp = SizeLaw::Exponential {
            mean_bytes: 524_288.0,
        };
        let n = 200_000;
        let mean = (0..n).map(|_| exp.draw(&mut rng) as f64).sum::<f64>() / n as f64;
        assert!((mean / 524_288.0 - 1.0).abs() < 0.01, "{mean}");
        // A light-tailed check of the mixture: truncated at 100 KB its sample mean converges.
        let web = SizeLaw::seed002_web(100_000.0, SEED002_WEB_SIGMA, SEED002_WEB_ALPHA);
        let draws: Vec<u64> = (0..n).map(|_| web.draw(&mut rng)).collect();
        assert!(draws.iter().all(|&x| x <= 100_000));
        let mean = draws.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        assert!(
            (mean / web.mean_bytes() - 1.0).abs() < 0.02,
            "{mean} vs {}",
            web.mean_bytes()
        );
        // The body's median is exp(μ).
        let mut body: Vec<u64> = draws.clone();
        body.sort_unstable();
        let median = body[n / 2] as f64;
        assert!(median > 2000.0 && median < 4500.0, "{median}");
    }

    #[test]
    fn normal_cdf_matches_tables() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.96) - 0.975_002).abs() < 1e-6);
        assert!((normal_cdf(-1.0) - 0.158_655).abs() < 1e-6);
    }
}
