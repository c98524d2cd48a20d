//! Batch addition: the sum of the bases whose scalar is exactly one, selected by a bitmap.
//!
//! The prover's `batch_add` phase (L, A, B_G1, B_G2). Each task gathers the selected bases of a chunk and
//! sums them by rounds of batch-affine additions sharing one inversion ([`sum_points`]); chunk sums are then
//! added in Jacobian form. Batch-affine is the default: at 2^16 G1 bases it takes 0.6× the time of
//! mixed Jacobian additions ([`batch_add_mixed`]) (docs/PERF.md).

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};
use group::Group;
use rayon::prelude::*;

use super::affine::{sum_points, Scratch};
use super::curve::MsmAffine;

/// Bases per parallel task (a multiple of 64 so a task owns whole bitmap words).
const CHUNK: usize = 1 << 13;

/// Whether bit `i` is set (bit i of word i/64); words past the end of the bitmap read as zero.
#[inline]
fn bit(bitmap: &[u64], i: usize) -> bool {
    bitmap.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1)
}

/// Calls `f` with the index (relative to the chunk) of each selected base in chunk `ci`.
fn for_selected(bitmap: &[u64], ci: usize, len: usize, mut f: impl FnMut(usize)) {
    let word0 = ci * CHUNK / 64;
    for wi in 0..len.div_ceil(64) {
        let mut word = bitmap.get(word0 + wi).copied().unwrap_or(0);
        while word != 0 {
            let j = wi * 64 + word.trailing_zeros() as usize;
            if j >= len {
                break;
            }
            f(j);
            word &= word - 1;
        }
    }
}

/// `Σ bases[i]` over the set bits i of `bitmap` (bit i of word i/64), by batch-affine additions.
///
/// Bits at or past `bases.len()` are ignored; a short bitmap selects nothing beyond its end; bases at
/// infinity contribute nothing.
pub fn batch_add<A: MsmAffine>(bases: &[A], bitmap: &[u64]) -> A::Proj {
    bases
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(ci, chunk)| {
            let mut pts = Vec::with_capacity(chunk.len());
            for_selected(bitmap, ci, chunk.len(), |j| {
                if !chunk[j].is_inf() {
                    pts.push(chunk[j].xy());
                }
            });
            match sum_points(&mut pts, &mut Scratch::default()) {
                Some(p) => A::from_xy(&p).to_curve(),
                None => A::Proj::identity(),
            }
        })
        .reduce(A::Proj::identity, |x, y| x + y)
}

/// The same sum by mixed Jacobian additions; kept as the measured alternative to [`batch_add`].
pub fn batch_add_mixed<A: MsmAffine>(bases: &[A], bitmap: &[u64]) -> A::Proj {
    bases
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(ci, chunk)| {
            let mut acc = A::Proj::identity();
            for_selected(bitmap, ci, chunk.len(), |j| acc += chunk[j]);
            acc
        })
        .reduce(A::Proj::identity, |x, y| x + y)
}

/// G1 batch addition (see [`batch_add`]): the L, A and B_G1 "scalar is one" sums.
pub fn batch_add_g1(bases: &[G1Affine], bitmap: &[u64]) -> G1Projective {
    batch_add(bases, bitmap)
}

/// G2 batch addition (see [`batch_add`]): the B_G2 "scalar is one" sum.
pub fn batch_add_g2(bases: &[G2Affine], bitmap: &[u64]) -> G2Projective {
    batch_add(bases, bitmap)
}

/// Whether bit `i` of a batch-addition bitmap is set; the layout helper for callers building bitmaps.
pub fn bitmap_bit(bitmap: &[u64], i: usize) -> bool {
    bit(bitmap, i)
}
