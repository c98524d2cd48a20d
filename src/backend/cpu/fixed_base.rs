//! Fixed-base multiplication for parameter generation: many multiples k·P of one base point.
//!
//! A table holds d·2^(w·c)·P in affine form for every window w and digit 1 ≤ d ≤ 2^(c−1); a scalar's signed
//! window digits (the same Booth recoding as the MSM) then select one table entry per window, so k·P costs
//! ⌈255/c⌉ mixed additions. Scalars are processed in parallel chunks, each chunk normalized to affine with
//! one shared inversion ([`batch_normalize`]) rather than `group::Curve::batch_normalize`, which blstrs
//! implements with one inversion per point (2^16 G1 points, one core: 34 ms vs 230 ms).

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use group::Group;
use rayon::prelude::*;

use super::affine::batch_normalize;
use super::curve::MsmAffine;
use super::digits::{booth_digit, num_windows, signed_limbs, NEGATE_FLAG};

/// Scalars per parallel task; each task normalizes its results with one inversion.
const CHUNK: usize = 1024;
/// Widest table window: 16 windows × 2^15 entries = 48 MiB of G1 table (96 MiB for G2).
const MAX_WINDOW: usize = 16;

/// The table window for `n` scalars: the table costs ⌈255/c⌉·2^(c−1) additions and each scalar ⌈255/c⌉,
/// which balance near c = log2(n) − 3.
pub fn fixed_base_window(n: usize) -> usize {
    let lg = (usize::BITS - n.max(1).leading_zeros()) as usize;
    lg.saturating_sub(3).clamp(2, MAX_WINDOW)
}

/// Precomputed multiples of one base point, indexed by window and signed digit.
pub struct FixedBaseTable<A: MsmAffine> {
    c: usize,
    /// Entry w·2^(c−1) + (d − 1) = d·2^(w·c)·P.
    table: Vec<A>,
}

impl<A: MsmAffine> FixedBaseTable<A> {
    /// Builds the table for `base` with window width `c` (clamped to 1..=16), windows in parallel.
    pub fn new(base: &A::Proj, c: usize) -> Self {
        let c = c.clamp(1, MAX_WINDOW);
        let nb = 1usize << (c - 1);
        let proj: Vec<A::Proj> = (0..num_windows(c))
            .into_par_iter()
            .flat_map_iter(|w| {
                let mut start = *base;
                for _ in 0..w * c {
                    start = start.double();
                }
                let mut cur = start;
                (0..nb).map(move |d| {
                    if d > 0 {
                        cur += start;
                    }
                    cur
                })
            })
            .collect();
        let mut table = vec![A::identity(); proj.len()];
        batch_normalize(&proj, &mut table);
        FixedBaseTable { c, table }
    }

    /// k·P for one scalar, in Jacobian form.
    pub fn mul(&self, k: &Scalar) -> A::Proj {
        let limbs = signed_limbs(k);
        let negate = limbs[3] & NEGATE_FLAG != 0;
        let nb = 1usize << (self.c - 1);
        let mut acc = A::Proj::identity();
        for w in 0..num_windows(self.c) {
            let d = booth_digit(&limbs, w, self.c);
            if d != 0 {
                let entry = self.table[w * nb + d.unsigned_abs() as usize - 1];
                acc += if (d < 0) ^ negate { -entry } else { entry };
            }
        }
        acc
    }

    /// k·P for every scalar, in affine form, in parallel.
    pub fn mul_many(&self, scalars: &[Scalar]) -> Vec<A> {
        let mut out = vec![A::identity(); scalars.len()];
        self.mul_into(scalars, &mut out);
        out
    }

    /// k·P for every scalar into `out` (as long as `scalars`), in affine form, in parallel.
    pub fn mul_into(&self, scalars: &[Scalar], out: &mut [A]) {
        out.par_chunks_mut(CHUNK).zip(scalars.par_chunks(CHUNK)).for_each(|(dst, src)| {
            let proj: Vec<A::Proj> = src.iter().map(|k| self.mul(k)).collect();
            batch_normalize(&proj, dst);
        });
    }
}

/// k·P for every scalar k with a window table sized by [`fixed_base_window`]; results in affine form.
pub fn fixed_base_mul<A: MsmAffine>(base: &A::Proj, scalars: &[Scalar]) -> Vec<A> {
    if scalars.is_empty() {
        return Vec::new();
    }
    FixedBaseTable::<A>::new(base, fixed_base_window(scalars.len())).mul_many(scalars)
}

/// Scalars per `tick`: small enough for a smooth gauge and a prompt cancel, large enough that a step
/// amortizes the parallel split.
const TICK: usize = 1 << 14;

/// k·P for every scalar into `out` with one table sized by [`fixed_base_window`] for the whole list, telling
/// `tick` the points done every `TICK` and stopping when it answers `false` (the Backend default).
pub fn fixed_base_into<A: MsmAffine>(
    base: &A::Proj,
    scalars: &[Scalar],
    out: &mut [A],
    tick: &(dyn Fn(usize) -> bool + Sync),
) {
    if scalars.is_empty() {
        return;
    }
    let table = FixedBaseTable::<A>::new(base, fixed_base_window(scalars.len()));
    let mut done = 0;
    for (src, dst) in scalars.chunks(TICK).zip(out.chunks_mut(TICK)) {
        table.mul_into(src, dst);
        done += src.len();
        if !tick(done) {
            return;
        }
    }
}

/// G1 fixed-base multiples (setup's H, L, A, B_G1 and vk points).
pub fn fixed_base_g1(base: &G1Projective, scalars: &[Scalar]) -> Vec<G1Affine> {
    fixed_base_mul(base, scalars)
}

/// G2 fixed-base multiples (setup's B_G2 points).
pub fn fixed_base_g2(base: &G2Projective, scalars: &[Scalar]) -> Vec<G2Affine> {
    fixed_base_mul(base, scalars)
}
