//! Number-theoretic transforms over Fr on domains of 2^k points, and Groth16's quotient `compute_h`.
//!
//! Variants: the forward transform is decimation-in-frequency (Gentleman–Sande, natural order in,
//! bit-reversed out) followed by a bit-reversal permutation, so [`Domain::ntt`] and friends take and give
//! natural order. Inverse transforms reuse the forward one: Σ_j x_j·ω^(−ij) is the forward transform at
//! N − i, so an inverse is a forward transform, then `a[i] ← a[N − i]·(1/N)` (with any coset shift folded
//! into the same pass). [`compute_h`] takes C through one transform instead of three (its doc says why),
//! skips the permutation for the coset evaluations (a pointwise step does not care about order) and comes
//! back with a decimation-in-time (Cooley–Tukey) transform, bit-reversed in and natural out. Out-of-cache
//! stages run two at a time (radix 4), the rest block by block in cache (`ntt_kernels`). Figures:
//! docs/PERF.md.

use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

use super::fr::sub;
use super::ntt_kernels::{bit_reverse, reverse_and_scale, scale_by_powers, Twiddles, POINTWISE_CHUNK};

/// Largest supported domain, 2^28 points: Fr has 2-adicity S = 32, and a 32 GiB PoRep needs 2^27.
pub const MAX_LOG_SIZE: u32 = 28;
/// Twiddles are stored in full up to 2^21 of them (64 MiB, domains up to 2^22); larger domains use a
/// two-level table (ω^i = lo[i mod 2^21]·hi[i / 2^21]) and step the twiddles of a chunk by multiplication.
const FULL_TABLE_LOG: u32 = 21;
/// Stages with butterfly span below 2^12 run block by block: 2^12 Fr = 128 KiB stays in a 512 KiB L2.
const BLOCK_LOG: u32 = 12;

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
    tw: Twiddles,
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
        let tw = Twiddles::new(omega, log_n, table_bits, n.min(1 << BLOCK_LOG));
        Ok(Domain { log_n, n, omega, n_inv, g, g_inv, z_inv, tw })
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

    fn check_len(&self, a: &[Scalar]) -> Result<(), NttError> {
        if a.len() == self.n {
            Ok(())
        } else {
            Err(NttError::WrongLength { len: a.len(), n: self.n })
        }
    }

    /// Forward NTT in place, natural order: `a[i] ← Σ_j a[j]·ω^(ij)` (coefficients → evaluations).
    pub fn ntt(&self, a: &mut [Scalar]) -> Result<(), NttError> {
        self.check_len(a)?;
        self.tw.dif(a);
        bit_reverse(a);
        Ok(())
    }

    /// Inverse NTT in place, natural order: `a[i] ← (1/N)·Σ_j a[j]·ω^(−ij)` (evaluations → coefficients).
    pub fn intt(&self, a: &mut [Scalar]) -> Result<(), NttError> {
        self.ntt(a)?;
        reverse_and_scale(a, self.n_inv, Scalar::ONE);
        Ok(())
    }

    /// Coset NTT: `a[j] ← Σ_i a[i]·(g·ω^j)^i`, i.e. multiply coefficient i by g^i, then NTT.
    pub fn coset_ntt(&self, a: &mut [Scalar]) -> Result<(), NttError> {
        self.check_len(a)?;
        scale_by_powers(a, Scalar::ONE, self.g);
        self.ntt(a)
    }

    /// Inverse coset NTT: iNTT, then multiply coefficient i by g^−i (inverts [`Domain::coset_ntt`]).
    pub fn icoset_ntt(&self, a: &mut [Scalar]) -> Result<(), NttError> {
        self.ntt(a)?;
        reverse_and_scale(a, self.n_inv, self.g_inv);
        Ok(())
    }
}

/// Groth16's quotient H = (A·B − C)/Z, exactly as bellperson computes it, in six transforms instead of seven.
///
/// `a`, `b`, `c` hold the evaluations of A, B, C on the domain (shorter vectors are zero-padded to N). bellperson
/// takes all three to the coset g·⟨ω⟩ (iNTT then coset NTT), forms (a·b − c)·z there (z = 1/Z(g), Z = X^N − 1
/// being the constant g^N − 1 on the coset) and applies the inverse coset transform. That last transform is
/// linear and undoes the coset NTT exactly, so its C term is z·iNTT(C): H = z·(icoset(A_g·B_g) − iNTT(C)), the
/// same field elements for any input (satisfied or not) with C never leaving the domain.
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
    }
    for v in [&mut *a, &mut *b] {
        // Evaluations → coefficients shifted to the coset (natural order) → coset evaluations (bit-reversed).
        domain.tw.dif(v);
        bit_reverse(v);
        reverse_and_scale(v, domain.n_inv, domain.g);
        domain.tw.dif(v);
    }
    a.par_chunks_mut(POINTWISE_CHUNK).zip(b.par_chunks(POINTWISE_CHUNK)).for_each(|(x, y)| {
        for (x, y) in x.iter_mut().zip(y) {
            *x *= y;
        }
    });
    // Coset evaluations (bit-reversed) → forward transform (natural) → z·icoset(A_g·B_g).
    let zn = domain.n_inv * domain.z_inv;
    domain.tw.dit(a);
    reverse_and_scale(a, zn, domain.g_inv);
    // C: evaluations → z·coefficients, subtracted.
    domain.tw.dif(c);
    bit_reverse(c);
    reverse_and_scale(c, zn, Scalar::ONE);
    a.par_chunks_mut(POINTWISE_CHUNK).zip(c.par_chunks(POINTWISE_CHUNK)).for_each(|(x, y)| {
        for (x, y) in x.iter_mut().zip(y) {
            *x = sub(*x, *y);
        }
    });
    a.truncate(n.saturating_sub(1));
    Ok(())
}
