//! Seeded data and timing shared by the CPU and GPU benchmarks (`cuzk bench`) and the criterion benches
//! (benches/kernels.rs), so both time the same inputs.

use std::time::Instant;

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::Field;
use group::Group;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rayon::prelude::*;
use serde::Serialize;

use crate::backend::cpu::fixed_base::{fixed_base_window, FixedBaseTable};

/// What to time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BenchOp {
    /// G1 multi-scalar multiplication with random scalars.
    Msm,
    /// Forward NTT over Fr.
    Ntt,
    /// Bitmap batch addition in G1 (half the bits set).
    #[value(name = "batch_add")]
    BatchAdd,
    /// Params generation for a 2^K-constraint multiplication chain.
    Setup,
    /// Synthesis throughput of a sample's circuit: normal (one thread, A1 × A2) beside the `pce` path.
    Synth,
    /// This machine's floors (peak 64-bit multiply rate, memory and host-to-device bandwidth), measured once
    /// and cached for the console's "% of floor".
    Floor,
}

/// The group `bench msm` runs in (`--group`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MsmGroup {
    /// G1 (the H, L, A and B_G1 queries).
    G1,
    /// G2 (the B_G2 query; on the device with `g2d`).
    G2,
}

/// The median of timings in ms (the one statistic every table reports).
pub(super) fn median(v: Vec<f64>) -> f64 {
    crate::util::median::median(&v).unwrap_or(0.0)
}

/// Times `f` `reps` times (at least once), in ms.
pub(super) fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> Vec<f64> {
    (0..reps.max(1))
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect()
}

/// `n` seeded random scalars (parallel, stable for a seed).
pub fn random_scalars(n: usize, seed: u64) -> Vec<Scalar> {
    (0..n)
        .into_par_iter()
        .chunks(1 << 12)
        .flat_map_iter(|c| {
            let mut rng = ChaCha20Rng::seed_from_u64(seed ^ c[0] as u64);
            c.into_iter().map(move |_| Scalar::random(&mut rng)).collect::<Vec<_>>()
        })
        .collect()
}

/// The scalars a `bench msm` runs on: the uniform case and the shapes that stress bucket methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScalarShape {
    /// Uniform random scalars.
    Random,
    /// One random scalar repeated: every window's points all fall in one bucket.
    Equal,
    /// Runs of 1 and −1 (alternating blocks of 1024): one bucket per window, and the top digit's.
    PlusMinusOne,
    /// Random scalars below 2^16: every window above the lowest is empty.
    Small,
}

/// `n` scalars of `shape` (seeded).
pub(super) fn shaped_scalars(shape: ScalarShape, n: usize, seed: u64) -> Vec<Scalar> {
    match shape {
        ScalarShape::Random => random_scalars(n, seed),
        ScalarShape::Equal => vec![random_scalars(1, seed)[0]; n],
        ScalarShape::PlusMinusOne => {
            (0..n).map(|i| if (i >> 10) % 2 == 0 { Scalar::ONE } else { -Scalar::ONE }).collect()
        }
        ScalarShape::Small => random_scalars(n, seed)
            .iter()
            .map(|s| Scalar::from(u64::from(s.to_bytes_le()[0]) << 8 | u64::from(s.to_bytes_le()[1])))
            .collect(),
    }
}

/// Random points as multiples of the generator (one fixed-base table, batch-normalized).
pub fn random_points(n: usize, seed: u64) -> Vec<G1Affine> {
    let table = FixedBaseTable::<G1Affine>::new(&G1Projective::generator(), fixed_base_window(n));
    table.mul_many(&random_scalars(n, seed))
}

/// Random G2 points as multiples of the generator (as [`random_points`]).
pub fn random_points_g2(n: usize, seed: u64) -> Vec<G2Affine> {
    let table = FixedBaseTable::<G2Affine>::new(&G2Projective::generator(), fixed_base_window(n));
    table.mul_many(&random_scalars(n, seed))
}

/// Random bitmap with about half the bits set (the batch_add benchmark's selection).
pub fn half_bitmap(n: usize) -> Vec<u64> {
    random_scalars(n.div_ceil(64), 5)
        .iter()
        .map(|s| s.to_bytes_le()[0] as u64 * 0x0101_0101_0101_0101)
        .collect()
}
