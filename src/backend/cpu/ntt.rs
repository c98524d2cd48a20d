//! Number-theoretic transforms over Fr on domains of 2^k points, and Groth16's quotient `compute_h`.
//!
//! Variants: the forward transform is decimation-in-frequency (Gentleman–Sande), taking natural order to
//! bit-reversed order; the public [`Domain::ntt`] and friends then apply a bit-reversal permutation so callers
//! see natural order in and out. [`compute_h`] skips that permutation for the coset evaluations (a pointwise
//! step does not care about order) and returns to natural order with a decimation-in-time (Cooley–Tukey)
//! transform, which takes bit-reversed input to natural output. Inverse transforms use ω⁻¹ twiddles and a
//! final 1/N. Stages whose butterflies span more than a cache block run one parallel pass each; the remaining
//! stages run block by block in cache, blocks in parallel.

use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

/// Largest supported domain, 2^28 points: Fr has 2-adicity S = 32, and a 32 GiB PoRep needs 2^27.
pub const MAX_LOG_SIZE: u32 = 28;
/// Twiddles are stored in full up to 2^21 of them (64 MiB, domains up to 2^22); larger domains use a
/// two-level table (ω^i = lo[i mod 2^21]·hi[i / 2^21]) and step the twiddles of a chunk by multiplication.
const FULL_TABLE_LOG: u32 = 21;
/// Stages with butterfly span below 2^12 run block by block: 2^12 Fr = 128 KiB stays in a 512 KiB L2.
const BLOCK_LOG: u32 = 12;
/// Butterflies per parallel task in the out-of-cache stages; their twiddles are staged on the stack.
const CHUNK: usize = 512;
/// Elements per parallel task in pointwise passes.
const POINTWISE_CHUNK: usize = 1 << 12;

/// Why an NTT request was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NttError {
    /// The domain would exceed [`MAX_LOG_SIZE`].
    #[error("NTT domain of 2^{log_n} points exceeds the supported 2^{max}")]
    TooLarge {
        /// Requested log2 size.
        log_n: u32,
        /// Largest supported log2 size.
        max: u32,
    },
    /// A vector has more values than the domain has points.
    #[error("{len} values do not fit a domain of {n} points")]
    TooLong {
        /// Values given.
        len: usize,
        /// Domain size.
        n: usize,
    },
    /// An in-place transform got a vector whose length is not the domain size.
    #[error("vector of {len} values for a domain of {n} points")]
    WrongLength {
        /// Values given.
        len: usize,
        /// Domain size.
        n: usize,
    },
}

/// A multiplicative subgroup of Fr of size N = 2^k with its twiddle tables, reused across transforms.
pub struct Domain {
    log_n: u32,
    n: usize,
    omega: Scalar,
    n_inv: Scalar,
    g: Scalar,
    g_inv: Scalar,
    /// 1 / Z(g) where Z(X) = X^N − 1: the vanishing polynomial is constant on the coset g·⟨ω⟩.
    z_inv: Scalar,
    lo_bits: u32,
    /// ω^i for i < 2^lo_bits.
    tw_lo: Vec<Scalar>,
    /// ω^(i·2^lo_bits) for i < N/2 / 2^lo_bits (one entry when the full table fits in `tw_lo`).
    tw_hi: Vec<Scalar>,
    /// Per-stage twiddles of the in-cache stages: span h uses entries h−1 .. 2h−1 (ω_2h^j, j < h).
    local_fwd: Vec<Scalar>,
    /// The same for ω⁻¹.
    local_inv: Vec<Scalar>,
}

impl Domain {
    /// The domain of 2^log_n points (ω = ROOT_OF_UNITY^(2^(32−log_n)), coset generator 7).
    pub fn new(log_n: u32) -> Result<Self, NttError> {
        Self::with_table_bits(log_n, FULL_TABLE_LOG)
    }

    /// The smallest domain with at least `len` points (at least one), as bellperson sizes its domain.
    pub fn for_len(len: usize) -> Result<Self, NttError> {
        let log_n = len.max(1).next_power_of_two().trailing_zeros();
        Self::new(log_n)
    }

    /// Like [`Domain::new`] but storing at most 2^table_bits twiddles in full; lets tests exercise the
    /// two-level twiddle table at small sizes.
    pub fn with_table_bits(log_n: u32, table_bits: u32) -> Result<Self, NttError> {
        if log_n > MAX_LOG_SIZE {
            return Err(NttError::TooLarge { log_n, max: MAX_LOG_SIZE });
        }
        let n = 1usize << log_n;
        let omega = Scalar::ROOT_OF_UNITY.pow_vartime([1u64 << (Scalar::S - log_n)]);
        let n_inv = Scalar::from(n as u64).invert().unwrap_or(Scalar::ZERO);
        let g = Scalar::MULTIPLICATIVE_GENERATOR;
        let g_inv = g.invert().unwrap_or(Scalar::ZERO);
        let z_inv = (g.pow_vartime([n as u64]) - Scalar::ONE).invert().unwrap_or(Scalar::ZERO);
        let half_log = log_n.saturating_sub(1);
        let lo_bits = half_log.min(table_bits.max(1));
        let tw_lo = powers(omega, 1usize << lo_bits);
        let tw_hi =
            powers(omega.pow_vartime([1u64 << lo_bits]), 1usize << (half_log - lo_bits.min(half_log)));
        let mut d = Domain {
            log_n,
            n,
            omega,
            n_inv,
            g,
            g_inv,
            z_inv,
            lo_bits,
            tw_lo,
            tw_hi,
            local_fwd: Vec::new(),
            local_inv: Vec::new(),
        };
        let bk = d.block_len();
        let (mut fwd, mut inv) = (Vec::with_capacity(bk), Vec::with_capacity(bk));
        let mut h = 1;
        while 2 * h <= bk {
            let s = n / (2 * h);
            for j in 0..h {
                fwd.push(d.twiddle(j * s, false));
                inv.push(d.twiddle(j * s, true));
            }
            h *= 2;
        }
        d.local_fwd = fwd;
        d.local_inv = inv;
        Ok(d)
    }

    /// N, the number of points.
    pub fn size(&self) -> usize {
        self.n
    }

    /// log2 N.
    pub fn log_size(&self) -> u32 {
        self.log_n
    }

    /// ω, the generator of the domain (a primitive N-th root of unity).
    pub fn omega(&self) -> Scalar {
        self.omega
    }

    /// g, the coset shift (Fr's multiplicative generator, 7, as in bellperson).
    pub fn coset_generator(&self) -> Scalar {
        self.g
    }

    /// Elements per in-cache block: min(N, 2^BLOCK_LOG).
    fn block_len(&self) -> usize {
        self.n.min(1 << BLOCK_LOG)
    }

    /// ω^i (or ω^−i) for i < N/2.
    #[inline]
    fn twiddle(&self, i: usize, inverse: bool) -> Scalar {
        if inverse {
            // ω^−i = ω^(N−i) = ω^(N/2)·ω^(N/2−i) = −ω^(N/2−i) for 0 < i < N/2.
            return if i == 0 { Scalar::ONE } else { -self.twiddle(self.n / 2 - i, false) };
        }
        let mask = (1usize << self.lo_bits) - 1;
        let lo = self.tw_lo[i & mask];
        let hi = i >> self.lo_bits;
        if hi == 0 {
            lo
        } else {
            lo * self.tw_hi[hi]
        }
    }

    /// Fills `out[t]` with the twiddle of index (j0 + t)·s (direct lookups, or stepping by ω^s when the
    /// table is two-level).
    fn fill_twiddles(&self, j0: usize, s: usize, out: &mut [Scalar], inverse: bool) {
        if self.tw_hi.len() <= 1 {
            for (t, o) in out.iter_mut().enumerate() {
                *o = self.twiddle((j0 + t) * s, inverse);
            }
        } else if let Some((first, rest)) = out.split_first_mut() {
            *first = self.twiddle(j0 * s, inverse);
            let step = self.twiddle(s, inverse);
            let mut cur = *first;
            for o in rest {
                cur *= step;
                *o = cur;
            }
        }
    }

    /// One out-of-cache decimation-in-frequency stage with butterfly span `h`.
    fn dif_stage(&self, a: &mut [Scalar], h: usize, inverse: bool) {
        let s = self.n / (2 * h);
        a.par_chunks_mut(2 * h).for_each(|grp| {
            let (lo, hi) = grp.split_at_mut(h);
            lo.par_chunks_mut(CHUNK).zip(hi.par_chunks_mut(CHUNK)).enumerate().for_each(|(ci, (l, r))| {
                let mut tw = [Scalar::ZERO; CHUNK];
                self.fill_twiddles(ci * CHUNK, s, &mut tw[..l.len()], inverse);
                for ((x, y), w) in l.iter_mut().zip(r.iter_mut()).zip(tw.iter()) {
                    let (u, v) = (*x, *y);
                    *x = u + v;
                    *y = (u - v) * w;
                }
            });
        });
    }

    /// One out-of-cache decimation-in-time stage with butterfly span `h`.
    fn dit_stage(&self, a: &mut [Scalar], h: usize, inverse: bool) {
        let s = self.n / (2 * h);
        a.par_chunks_mut(2 * h).for_each(|grp| {
            let (lo, hi) = grp.split_at_mut(h);
            lo.par_chunks_mut(CHUNK).zip(hi.par_chunks_mut(CHUNK)).enumerate().for_each(|(ci, (l, r))| {
                let mut tw = [Scalar::ZERO; CHUNK];
                self.fill_twiddles(ci * CHUNK, s, &mut tw[..l.len()], inverse);
                for ((x, y), w) in l.iter_mut().zip(r.iter_mut()).zip(tw.iter()) {
                    let (u, v) = (*x, *y * w);
                    *x = u + v;
                    *y = u - v;
                }
            });
        });
    }

    /// All stages with span < block length on one block, decimation in frequency (spans descending).
    fn dif_block(&self, blk: &mut [Scalar], inverse: bool) {
        let table = if inverse { &self.local_inv } else { &self.local_fwd };
        let mut h = blk.len() / 2;
        while h > 1 {
            let tw = &table[h - 1..2 * h - 1];
            for grp in blk.chunks_exact_mut(2 * h) {
                let (l, r) = grp.split_at_mut(h);
                for ((x, y), w) in l.iter_mut().zip(r.iter_mut()).zip(tw.iter()) {
                    let (u, v) = (*x, *y);
                    *x = u + v;
                    *y = (u - v) * w;
                }
            }
            h /= 2;
        }
        if h == 1 {
            radix2_unit(blk);
        }
    }

    /// All stages with span < block length on one block, decimation in time (spans ascending).
    fn dit_block(&self, blk: &mut [Scalar], inverse: bool) {
        let table = if inverse { &self.local_inv } else { &self.local_fwd };
        if blk.len() >= 2 {
            radix2_unit(blk);
        }
        let mut h = 2;
        while h < blk.len() {
            let tw = &table[h - 1..2 * h - 1];
            for grp in blk.chunks_exact_mut(2 * h) {
                let (l, r) = grp.split_at_mut(h);
                for ((x, y), w) in l.iter_mut().zip(r.iter_mut()).zip(tw.iter()) {
                    let (u, v) = (*x, *y * w);
                    *x = u + v;
                    *y = u - v;
                }
            }
            h *= 2;
        }
    }

    /// Unnormalized transform, natural order in, bit-reversed order out (with ω⁻¹ if `inverse`).
    fn dif(&self, a: &mut [Scalar], inverse: bool) {
        let bk = self.block_len();
        let mut h = self.n / 2;
        while h >= bk {
            self.dif_stage(a, h, inverse);
            h /= 2;
        }
        a.par_chunks_mut(bk).for_each(|blk| self.dif_block(blk, inverse));
    }

    /// Unnormalized transform, bit-reversed order in, natural order out (with ω⁻¹ if `inverse`).
    fn dit(&self, a: &mut [Scalar], inverse: bool) {
        let bk = self.block_len();
        a.par_chunks_mut(bk).for_each(|blk| self.dit_block(blk, inverse));
        let mut h = bk;
        while h < self.n {
            self.dit_stage(a, h, inverse);
            h *= 2;
        }
    }

    fn check_len(&self, a: &[Scalar]) -> Result<(), NttError> {
        if a.len() == self.n {
            Ok(())
        } else {
            Err(NttError::WrongLength { len: a.len(), n: self.n })
        }
    }

    /// Forward NTT in place, natural order: a[i] ← Σ_j a[j]·ω^(ij) (coefficients → evaluations).
    pub fn ntt(&self, a: &mut [Scalar]) -> Result<(), NttError> {
        self.check_len(a)?;
        self.dif(a, false);
        bit_reverse(a);
        Ok(())
    }

    /// Inverse NTT in place, natural order: a[i] ← (1/N)·Σ_j a[j]·ω^(−ij) (evaluations → coefficients).
    pub fn intt(&self, a: &mut [Scalar]) -> Result<(), NttError> {
        self.check_len(a)?;
        self.dif(a, true);
        bit_reverse(a);
        scale(a, self.n_inv);
        Ok(())
    }

    /// Coset NTT: a[j] ← Σ_i a[i]·(g·ω^j)^i, i.e. multiply coefficient i by g^i, then NTT.
    pub fn coset_ntt(&self, a: &mut [Scalar]) -> Result<(), NttError> {
        self.check_len(a)?;
        scale_by_powers(a, Scalar::ONE, self.g);
        self.dif(a, false);
        bit_reverse(a);
        Ok(())
    }

    /// Inverse coset NTT: iNTT, then multiply coefficient i by g^−i (inverts [`Domain::coset_ntt`]).
    pub fn icoset_ntt(&self, a: &mut [Scalar]) -> Result<(), NttError> {
        self.check_len(a)?;
        self.dif(a, true);
        bit_reverse(a);
        scale_by_powers(a, self.n_inv, self.g_inv);
        Ok(())
    }
}

/// The first `count` powers of `x` (x^0 ..), computed in parallel chunks.
fn powers(x: Scalar, count: usize) -> Vec<Scalar> {
    let mut out = vec![Scalar::ZERO; count];
    out.par_chunks_mut(POINTWISE_CHUNK).enumerate().for_each(|(ci, chunk)| {
        let mut cur = x.pow_vartime([(ci * POINTWISE_CHUNK) as u64]);
        for o in chunk {
            *o = cur;
            cur *= x;
        }
    });
    out
}

/// Span-1 butterflies (twiddle 1) over a block.
#[inline]
fn radix2_unit(blk: &mut [Scalar]) {
    for pair in blk.chunks_exact_mut(2) {
        let (u, v) = (pair[0], pair[1]);
        pair[0] = u + v;
        pair[1] = u - v;
    }
}

/// a[i] ← a[i]·c.
fn scale(a: &mut [Scalar], c: Scalar) {
    a.par_chunks_mut(POINTWISE_CHUNK).for_each(|chunk| chunk.iter_mut().for_each(|x| *x *= c));
}

/// a[i] ← a[i]·c·g^i (coset shifts, with a normalization folded into `c`).
fn scale_by_powers(a: &mut [Scalar], c: Scalar, g: Scalar) {
    a.par_chunks_mut(POINTWISE_CHUNK).enumerate().for_each(|(ci, chunk)| {
        let mut cur = c * g.pow_vartime([(ci * POINTWISE_CHUNK) as u64]);
        for x in chunk {
            *x *= cur;
            cur *= g;
        }
    });
}

/// A raw pointer that may cross threads; used only by [`bit_reverse`], whose swaps touch disjoint pairs.
#[derive(Clone, Copy)]
struct SharedMut(*mut Scalar);
// SAFETY: the pointer is only dereferenced in `bit_reverse`, where each index pair is swapped by one task.
unsafe impl Send for SharedMut {}
// SAFETY: as above.
unsafe impl Sync for SharedMut {}

impl SharedMut {
    fn get(self) -> *mut Scalar {
        self.0
    }
}

/// The bit-reversal permutation of a power-of-two slice, in parallel.
pub fn bit_reverse(a: &mut [Scalar]) {
    let n = a.len();
    if n <= 2 || !n.is_power_of_two() {
        return;
    }
    let shift = usize::BITS - n.trailing_zeros();
    let base = SharedMut(a.as_mut_ptr());
    (0..n).into_par_iter().with_min_len(POINTWISE_CHUNK).for_each(move |i| {
        let j = i.reverse_bits() >> shift;
        if i < j {
            // SAFETY: i, j < n = a.len(), and the pair {i, j} is swapped only by the task holding i = min.
            unsafe { std::ptr::swap(base.get().add(i), base.get().add(j)) };
        }
    });
}

/// Groth16's quotient H = (A·B − C)/Z, exactly as bellperson computes it.
///
/// `a`, `b`, `c` hold the evaluations of A, B, C on the domain (shorter vectors are zero-padded to N). Each
/// is inverse-transformed to coefficients and evaluated on the coset g·⟨ω⟩; there a ← (a·b − c)/Z(g)
/// (Z = X^N − 1 is the constant g^N − 1 on the coset); an inverse coset transform gives H's coefficients.
/// On return `a` holds the first N − 1 coefficients (the H MSM's scalars); `b` and `c` are scratch.
pub fn compute_h(
    a: &mut Vec<Scalar>,
    b: &mut Vec<Scalar>,
    c: &mut Vec<Scalar>,
    domain: &Domain,
) -> Result<(), NttError> {
    let n = domain.n;
    for v in [&*a, &*b, &*c] {
        if v.len() > n {
            return Err(NttError::TooLong { len: v.len(), n });
        }
    }
    for v in [&mut *a, &mut *b, &mut *c] {
        v.resize(n, Scalar::ZERO);
        // Evaluations → coefficients (natural order, still times N) → coset evaluations (bit-reversed).
        domain.dif(v, true);
        bit_reverse(v);
        scale_by_powers(v, domain.n_inv, domain.g);
        domain.dif(v, false);
    }
    let z_inv = domain.z_inv;
    a.par_chunks_mut(POINTWISE_CHUNK)
        .zip(b.par_chunks(POINTWISE_CHUNK))
        .zip(c.par_chunks(POINTWISE_CHUNK))
        .for_each(|((x, y), z)| {
            for ((x, y), z) in x.iter_mut().zip(y).zip(z) {
                *x = (*x * y - z) * z_inv;
            }
        });
    // Coset evaluations (bit-reversed) → coefficients (natural).
    domain.dit(a, true);
    scale_by_powers(a, domain.n_inv, domain.g_inv);
    a.truncate(n.saturating_sub(1));
    Ok(())
}
