//! Named, independent, portable random streams.
//!
//! Every random process (a sender's timer phase, a lossy link, a traffic source) draws from its
//! own stream, identified by `(master seed, replication, component name)`. Adding a component
//! therefore never shifts the draws of the others. The generator is ChaCha8 (a named, portable
//! algorithm): the key comes from the master seed and the 64-bit stream id from an FNV-1a hash of
//! the replication number and the name.

use chacha20::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// FNV-1a, 64 bit: a fixed, portable hash for stream ids (std's hasher is not stable).
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Hands out the streams of one run.
#[derive(Clone, Debug)]
pub struct StreamFactory {
    seed: u64,
    replication: u32,
}

impl StreamFactory {
    pub fn new(seed: u64, replication: u32) -> Self {
        Self { seed, replication }
    }

    /// The stream of the component called `name` (e.g. `"tcp/flow3/boot_phase"`).
    pub fn stream(&self, name: &str) -> RngStream {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&self.seed.to_le_bytes());
        key[8..16].copy_from_slice(b"congsim1");
        let mut rng = ChaCha8Rng::from_seed(key);
        let mut id = self.replication.to_le_bytes().to_vec();
        id.push(b'/');
        id.extend_from_slice(name.as_bytes());
        rng.set_stream(fnv1a64(&id));
        RngStream { rng }
    }
}

/// One random stream.
pub struct RngStream {
    rng: ChaCha8Rng,
}

impl std::fmt::Debug for RngStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The generator state is not worth printing.
        f.write_str("RngStream")
    }
}

impl RngStream {
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in `[0, bound)` (bound > 0), by rejection so that it is unbiased.
    pub fn below(&mut self, bound: u64) -> u64 {
        assert!(bound > 0, "below(0)");
        let zone = u64::MAX - (u64::MAX % bound);
        loop {
            let x = self.rng.next_u64();
            if x < zone {
                return x % bound;
            }
        }
    }

    /// `true` with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent_by_name() {
        let f = StreamFactory::new(42, 0);
        let a: Vec<u64> = (0..4)
            .map({
                let mut s = f.stream("a");
                move |_| s.next_u64()
            })
            .collect();
        let a_again: Vec<u64> = (0..4)
            .map({
                let mut s = StreamFactory::new(42, 0).stream("a");
                move |_| s.next_u64()
            })
            .collect();
        let b_first = f.stream("b").next_u64();
        let other_rep = StreamFactory::new(42, 1).stream("a").next_u64();
        let other_seed = StreamFactory::new(43, 0).stream("a").next_u64();
        assert_eq!(a, a_again);
        assert_ne!(a[0], b_first);
        assert_ne!(a[0], other_rep);
        assert_ne!(a[0], other_seed);
    }

    #[test]
    fn known_first_draw_pins_the_algorithm() {
        // Changing the generator or the derivation silently changes every published result;
        // this literal makes that a visible, deliberate change.
        let first = StreamFactory::new(1, 0).stream("x").next_u64();
        assert_eq!(format!("{first:016x}"), "d06d4547c0d4fb47");
    }

    #[test]
    fn uniform_and_below_stay_in_range() {
        let mut s = StreamFactory::new(7, 3).stream("u");
        for _ in 0..10_000 {
            let u = s.uniform();
            assert!((0.0..1.0).contains(&u));
            assert!(s.below(7) < 7);
        }
    }
}
