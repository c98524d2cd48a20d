//! The host's floors for `cuzk bench floor`: peak full 64×64→128-bit multiplies per second on every worker
//! thread (independent multiply chains, so throughput and not latency bounds them) and memory bandwidth (a
//! parallel copy of buffers far larger than the caches). Each figure is the best of a few passes after a
//! warm-up.

use std::hint::black_box;
use std::time::Instant;

use rayon::prelude::*;

/// Timed passes per figure.
const PASSES: usize = 3;
/// Multiply steps per thread per pass (8 products each): about 0.1 s on one core at one product a cycle.
const STEPS: u64 = 32 << 20;
/// Bytes per copy buffer: beyond every cache.
const COPY_BYTES: usize = 128 << 20;

/// The host's measured rates.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostFloor {
    /// Full 64×64→128-bit multiplies per second, all threads.
    pub mul64_per_s: f64,
    /// Memory bandwidth, bytes read + written per second, all threads.
    pub mem_bytes_per_s: f64,
    /// Threads used.
    pub threads: usize,
}

/// Eight independent chains x = lo(x·K) ^ hi(x·K), `steps` times; returns their xor.
fn mul_chains(steps: u64, seed: u64) -> u64 {
    const K: u64 = 0xD1B5_4A32_D192_ED03;
    let mut x: [u64; 8] = std::array::from_fn(|i| seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    for _ in 0..steps {
        for v in &mut x {
            let p = u128::from(*v) * u128::from(K);
            *v = (p as u64) ^ ((p >> 64) as u64);
        }
    }
    x.iter().fold(0, |a, b| a ^ b)
}

/// The best of `PASSES` timings of `f` after one warm-up, seconds.
fn best(mut f: impl FnMut()) -> f64 {
    f();
    (0..PASSES)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
        .max(1e-9)
}

/// Measures the host's floors on the rayon pool (about a second).
pub fn measure() -> HostFloor {
    let threads = rayon::current_num_threads();
    let t_mul = best(|| {
        let x: u64 = (0..threads).into_par_iter().map(|i| mul_chains(black_box(STEPS), i as u64)).sum();
        black_box(x);
    });
    let src = vec![1u64; COPY_BYTES / 8];
    let mut dst = vec![0u64; COPY_BYTES / 8];
    let chunk = (src.len() / threads.max(1)).max(1);
    let t_copy = best(|| {
        dst.par_chunks_mut(chunk).zip(src.par_chunks(chunk)).for_each(|(d, s)| d.copy_from_slice(s));
        black_box(&dst);
    });
    HostFloor {
        mul64_per_s: (threads as u64 * STEPS * 8) as f64 / t_mul,
        mem_bytes_per_s: 2.0 * COPY_BYTES as f64 / t_copy,
        threads,
    }
}

#[cfg(test)]
mod tests {
    use super::mul_chains;

    #[test]
    fn chains_depend_on_their_input() {
        assert_ne!(mul_chains(10, 1), mul_chains(10, 2));
        assert_eq!(
            mul_chains(0, 5),
            (0..8u64).fold(0, |a, i| a ^ (5 ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
        );
    }
}
