//! Pippenger multi-scalar multiplication for G1 and G2.
//!
//! Scalars are recoded into signed (Booth) window digits ([`super::digits`]): each window's digit lies in
//! [−2^(c−1), 2^(c−1)] and is read independently of the others; bucket `|d| − 1` of a window collects ±P.
//! Buckets are accumulated in affine form by rounds of independent additions that share one inversion
//! ([`reduce_runs`]), reduced to Σ (b+1)·B_b by row and column sums (batch-affine again) and short running
//! sums, and windows are combined by doubling (Horner). Work is split over (window, slice of points) tasks
//! on rayon. Against blst's Pippenger (`multi_exp`, Jacobian/XYZZ buckets) this saves about 40% of the field
//! multiplications per point, and G1 at 2^16 runs in 0.75× blst's time (docs/PERF.md).

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use group::Group;
use rayon::prelude::*;

use super::affine::{reduce_runs, Scratch};
use super::curve::{MsmAffine, Xy};
use super::digits::{booth_digit, num_windows, signed_limbs, NEGATE_FLAG};

/// Smallest window width accepted by the explicit-window entry points (1-bit windows are still correct).
pub const MIN_WINDOW: usize = 1;
/// Largest window width: 2^17 buckets per task already cost 12 MiB (G1) of bucket storage per thread.
pub const MAX_WINDOW: usize = 18;
/// Points sorted into buckets at a time per task: 4096 G1 points (384 KiB) keep the bucket sort and the
/// addition rounds in L2; measured 655 ms vs 703 ms with 2^16 at a time (G1 2^16, c = 12, one core).
const BATCH: usize = 1 << 12;
/// Sort keys are `bucket << KEY_BUCKET_SHIFT | index << 1 | sign`: 13 index bits cover a batch, and
/// buckets below 2^17 (windows up to [`MAX_WINDOW`]) fit the remaining 18 bits of a u32.
const KEY_BUCKET_SHIFT: u32 = 14;
/// Mask of the index field of a sort key (after shifting out the sign bit).
const KEY_INDEX_MASK: u32 = (1 << 13) - 1;
/// Slot marker for points whose digit is zero in this window.
const SKIP: u32 = u32::MAX;
const _: () = assert!(BATCH <= 1 << 13 && MAX_WINDOW - 1 + KEY_BUCKET_SHIFT as usize <= 32);
/// Windows from this width on reduce buckets by row/column sums ([`reduce_buckets`]); below it the rounds'
/// inversions (~3.5 µs each) outweigh the saving and plain running sums are cheaper.
const SPLIT_REDUCTION_MIN_WINDOW: usize = 9;

/// The window width this backend uses for an MSM of `n` points (D4 "per-MSM window").
///
/// Measured on the 2-core development machine (G1, random scalars, best of interleaved runs): 2^8 → 6,
/// 2^10 → 8–9, 2^12 → 10, 2^14 → 11–12, 2^16 → 13 (12: +5%, 14: +1%), 2^18 → 14, 2^20 → 16 (15–18 within
/// 5%). Between those points it follows the cost model ⌈255/c⌉·(n + 2^c) additions.
pub fn window_for(n: usize) -> usize {
    let lg = usize::BITS - n.saturating_sub(1).leading_zeros(); // ⌈log2 n⌉
    match lg {
        0..=2 => 2,
        3..=4 => 3,
        5..=6 => 4,
        7 => 5,
        8 => 6,
        9 => 7,
        10 => 8,
        11 => 9,
        12..=13 => 10,
        14 => 11,
        15 => 12,
        16..=17 => 13,
        18 => 14,
        19 => 15,
        20..=21 => 16,
        _ => 17,
    }
}

/// Clamps a requested window width into [`MIN_WINDOW`, `MAX_WINDOW`].
fn clamp_window(c: usize) -> usize {
    c.clamp(MIN_WINDOW, MAX_WINDOW)
}

/// `Σ scalars[i]·bases[i]` over the first `min(len)` pairs (like blstrs' `multi_exp`) for G1 or G2.
///
/// `window`: `None` picks [`window_for`] of the size; `Some(c)` forces width `c` (clamped to
/// [`MIN_WINDOW`, `MAX_WINDOW`]), which is how one shared window is applied to several MSMs (D4 off).
pub fn msm<A: MsmAffine>(bases: &[A], scalars: &[Scalar], window: Option<usize>) -> A::Proj {
    let n = bases.len().min(scalars.len());
    if n == 0 {
        return A::Proj::identity();
    }
    let bases = &bases[..n];
    // Bases at infinity contribute nothing: give them a zero scalar so every window skips them.
    let limbs: Vec<[u64; 4]> = bases
        .par_iter()
        .zip(scalars[..n].par_iter())
        .map(|(b, s)| if b.is_inf() { [0; 4] } else { signed_limbs(s) })
        .collect();
    msm_limbs(bases, &limbs, window.map_or_else(|| window_for(n), clamp_window))
}

/// Σ limbs[i]·bases[i] with canonical scalar limbs and window width `c` (already clamped); bases at
/// infinity must carry zero limbs.
fn msm_limbs<A: MsmAffine>(bases: &[A], limbs: &[[u64; 4]], c: usize) -> A::Proj {
    let n = bases.len();
    let windows = num_windows(c);
    let threads = rayon::current_num_threads().max(1);
    // About four (window, slice) tasks per thread, but slices of at least 4·2^c points, as each slice
    // pays its own bucket reduction (~2^c additions). On 2 cores this is one slice per window.
    let parts = (4 * threads).div_ceil(windows).min((n >> (c + 2)).max(1));
    let part_len = n.div_ceil(parts);
    let sums: Vec<A::Proj> = (0..parts * windows)
        .into_par_iter()
        .map(|t| {
            let (part, w) = (t / windows, t % windows);
            let lo = (part * part_len).min(n);
            let hi = (lo + part_len).min(n);
            window_sum(&bases[lo..hi], &limbs[lo..hi], w, c)
        })
        .collect();
    let mut acc = A::Proj::identity();
    for w in (0..windows).rev() {
        for _ in 0..c {
            acc = acc.double();
        }
        for part in 0..parts {
            acc += sums[part * windows + w];
        }
    }
    acc
}

/// Σ digit_w(limbs[i])·bases[i] for one window `w`: bucket accumulation then bucket reduction.
///
/// Each batch of points is sorted by bucket (keys `bucket | index | sign`), so a batch costs
/// O(batch·log batch) whatever the bucket count; every touched bucket becomes one run (its value from
/// earlier batches first, then its new points) and [`reduce_runs`] sums all runs at once.
fn window_sum<A: MsmAffine>(bases: &[A], limbs: &[[u64; 4]], w: usize, c: usize) -> A::Proj {
    let nb = 1usize << (c - 1);
    let batch = BATCH.min(bases.len()).max(1);
    let mut keys: Vec<u32> = Vec::with_capacity(batch);
    let mut dest: Vec<u32> = Vec::with_capacity(batch);
    let mut pts: Vec<Xy<A::F>> = vec![Xy::default(); 2 * batch];
    let (mut run_bucket, mut starts, mut lens) =
        (Vec::with_capacity(batch), Vec::with_capacity(batch), Vec::with_capacity(batch));
    let mut bucket: Vec<Xy<A::F>> = vec![Xy::default(); nb];
    let mut filled = vec![false; nb];
    let mut scratch = Scratch::default();
    for (bchunk, lchunk) in bases.chunks(batch).zip(limbs.chunks(batch)) {
        keys.clear();
        dest.clear();
        dest.resize(bchunk.len(), SKIP);
        for (i, l) in lchunk.iter().enumerate() {
            let d = booth_digit(l, w, c);
            if d != 0 {
                let b = d.unsigned_abs() - 1;
                let negate = (d < 0) ^ (l[3] & NEGATE_FLAG != 0);
                keys.push((b << KEY_BUCKET_SHIFT) | ((i as u32) << 1) | negate as u32);
            }
        }
        keys.sort_unstable();
        run_bucket.clear();
        starts.clear();
        lens.clear();
        let mut at = 0usize;
        let mut k = 0;
        while k < keys.len() {
            let b = (keys[k] >> KEY_BUCKET_SHIFT) as usize;
            let start = at;
            if filled[b] {
                pts[at] = bucket[b];
                at += 1;
            }
            while k < keys.len() && (keys[k] >> KEY_BUCKET_SHIFT) as usize == b {
                // Slot and sign of this point (sign in bit 31: slots stay below 2 · BATCH).
                dest[((keys[k] >> 1) & KEY_INDEX_MASK) as usize] = at as u32 | (keys[k] << 31);
                at += 1;
                k += 1;
            }
            run_bucket.push(b);
            starts.push(start as u32);
            lens.push((at - start) as u32);
        }
        // Points are read in order and scattered (random writes stall less than random reads).
        for (p, &slot) in bchunk.iter().zip(dest.iter()) {
            if slot != SKIP {
                let xy = p.xy();
                pts[(slot & !(1 << 31)) as usize] = if slot >> 31 == 1 { xy.neg() } else { xy };
            }
        }
        reduce_runs(&mut pts, &starts, &mut lens, &mut scratch);
        for ((&b, &s), &len) in run_bucket.iter().zip(starts.iter()).zip(lens.iter()) {
            let p = pts[s as usize];
            filled[b] = len == 1 && !p.is_identity();
            if filled[b] {
                bucket[b] = p;
            }
        }
    }
    if c < SPLIT_REDUCTION_MIN_WINDOW {
        // Σ (b+1)·bucket[b] = Σ_b running_b, where running_b = Σ_{b' ≥ b} bucket[b'].
        let (mut running, mut total) = (A::Proj::identity(), A::Proj::identity());
        for b in (0..nb).rev() {
            if filled[b] {
                running += A::from_xy(&bucket[b]);
            }
            total += running;
        }
        return total;
    }
    reduce_buckets::<A>(&bucket, &filled, c, &mut scratch)
}

/// Σ_b (b+1)·bucket[b] over the filled buckets of one window.
///
/// Why not plain running sums: those cost two Jacobian additions (~27 multiplications) per bucket. Writing
/// b = h·2^L + l with row sums R_h = Σ_l B_{h,l} and column sums C_l = Σ_h B_{h,l} (both batch-affine, ~12
/// multiplications per bucket in all), the value is 2^L·Σ_h h·R_h + Σ_l l·C_l + Σ_h R_h, whose running sums
/// run over only 2^H + 2^L entries.
fn reduce_buckets<A: MsmAffine>(
    bucket: &[Xy<A::F>],
    filled: &[bool],
    c: usize,
    scratch: &mut Scratch<A::F>,
) -> A::Proj {
    let l_bits = (c - 1) / 2;
    let (rows, cols) = (1usize << (c - 1 - l_bits), 1usize << l_bits);
    let mut pts = vec![Xy::default(); bucket.len()];
    let (mut starts, mut lens) = (vec![0u32; rows.max(cols)], vec![0u32; rows.max(cols)]);
    // Row sums (runs of consecutive buckets), then column sums (strided buckets), each in place.
    let mut sums = [Vec::with_capacity(rows), Vec::with_capacity(cols)];
    for (pass, out) in sums.iter_mut().enumerate() {
        let (outer, inner) = if pass == 0 { (rows, cols) } else { (cols, rows) };
        let mut at = 0u32;
        for o in 0..outer {
            starts[o] = at;
            for i in 0..inner {
                let b = if pass == 0 { o * cols + i } else { i * cols + o };
                if filled[b] {
                    pts[at as usize] = bucket[b];
                    at += 1;
                }
            }
            lens[o] = at - starts[o];
        }
        reduce_runs(&mut pts, &starts[..outer], &mut lens[..outer], scratch);
        out.extend((0..outer).map(|o| {
            let p = &pts[starts[o] as usize];
            if lens[o] == 1 && !p.is_identity() {
                A::from_xy(p).to_curve()
            } else {
                A::Proj::identity()
            }
        }));
    }
    // Σ_k k·S_k by running sums; returns (Σ k·S_k, Σ S_k).
    let weighted = |s: &[A::Proj]| {
        let (mut running, mut total) = (A::Proj::identity(), A::Proj::identity());
        for v in s.iter().skip(1).rev() {
            running += *v;
            total += running;
        }
        (total, running + s[0])
    };
    let (row_weighted, row_total) = weighted(&sums[0]);
    let (col_weighted, _) = weighted(&sums[1]);
    let mut acc = row_weighted;
    for _ in 0..l_bits {
        acc = acc.double();
    }
    acc + col_weighted + row_total
}

/// G1 MSM Σ sᵢ·Pᵢ (see [`msm`]); the H, L, A and B_G1 tail MSMs of the prover.
pub fn msm_g1(bases: &[G1Affine], scalars: &[Scalar], window: Option<usize>) -> G1Projective {
    msm(bases, scalars, window)
}

/// G2 MSM Σ sᵢ·Qᵢ (see [`msm`]); the prover's B_G2 tail MSM.
pub fn msm_g2(bases: &[G2Affine], scalars: &[Scalar], window: Option<usize>) -> G2Projective {
    msm(bases, scalars, window)
}
