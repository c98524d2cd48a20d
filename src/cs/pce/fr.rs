//! Fr addition, subtraction and doubling on raw Montgomery limbs, for the SpMV inner loop.
//!
//! Why: `blstrs::Scalar`'s `+`/`-` are calls into blst, and for a 4-limb add the call costs about as much as
//! the work; the SpMV does almost nothing but adds (±1 and ±2^k coefficients are 90–99% of the terms of the
//! sample circuits), so they are done here inline. Multiplication still goes to blst (its mulx assembly).
//! Addition, subtraction and doubling are the same in Montgomery form as on plain values, so the limbs are
//! used as they are.

use blstrs::Scalar;

/// The scalar field modulus r, little-endian limbs.
pub(crate) const MODULUS: [u64; 4] =
    [0xffff_ffff_0000_0001, 0x53bd_a402_fffe_5bfe, 0x3339_d808_09a1_d805, 0x73ed_a753_299d_7d48];

/// A field element as blst keeps it: Montgomery form, little-endian limbs, fully reduced below r.
pub(crate) type Limbs = [u64; 4];

// Scalar is repr(transparent) over blst_fr, a repr(C) struct of [u64; 4]: the casts below rely on it.
const _: () = assert!(std::mem::size_of::<Scalar>() == 32 && std::mem::align_of::<Scalar>() == 8);

/// The limbs of a scalar.
#[inline(always)]
pub(crate) fn limbs(s: &Scalar) -> Limbs {
    // SAFETY: same size and layout (checked above); every bit pattern is a valid [u64; 4].
    unsafe { std::mem::transmute_copy::<Scalar, Limbs>(s) }
}

/// The scalar with these limbs; they must be fully reduced Montgomery limbs (as every function here returns).
#[inline(always)]
pub(crate) fn scalar(l: Limbs) -> Scalar {
    // SAFETY: same size and layout; callers pass reduced limbs, which is all blst requires of a blst_fr.
    unsafe { std::mem::transmute::<Limbs, Scalar>(l) }
}

/// A slice of scalars viewed as limbs.
#[inline(always)]
pub(crate) fn as_limbs(s: &[Scalar]) -> &[Limbs] {
    // SAFETY: same size, alignment and layout per element (checked above); the length is unchanged.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<Limbs>(), s.len()) }
}

/// A zero-filled vector of `n` scalars, obtained as zeroed memory (calloc: fresh pages are not written
/// twice) rather than by writing `n` zeros.
pub(crate) fn zeroed(n: usize) -> Vec<Scalar> {
    let v: Vec<Limbs> = vec![[0u64; 4]; n];
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: Limbs and Scalar have the same size and alignment, so the allocation's layout is the same;
    // all-zero limbs are the scalar 0; ownership moves to the new vector (the old one is not dropped).
    unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<Scalar>(), v.len(), v.capacity()) }
}

/// a + b − r·[a + b ≥ r]; a, b < r < 2^255, so a + b never overflows 256 bits.
#[inline(always)]
pub(crate) fn add(a: &Limbs, b: &Limbs) -> Limbs {
    let mut s = [0u64; 4];
    let mut carry = 0u64;
    for i in 0..4 {
        let t = a[i] as u128 + b[i] as u128 + carry as u128;
        s[i] = t as u64;
        carry = (t >> 64) as u64;
    }
    reduce_once(s)
}

/// a − b + r·[a < b].
#[inline(always)]
pub(crate) fn sub(a: &Limbs, b: &Limbs) -> Limbs {
    let mut d = [0u64; 4];
    let mut borrow = 0u64;
    for i in 0..4 {
        let t = (a[i] as u128).wrapping_sub(b[i] as u128 + borrow as u128);
        d[i] = t as u64;
        borrow = (t >> 127) as u64;
    }
    // Add r back when the subtraction borrowed (mask instead of a branch: the sign is data-dependent).
    let mask = borrow.wrapping_neg();
    let mut carry = 0u64;
    for i in 0..4 {
        let t = d[i] as u128 + (MODULUS[i] & mask) as u128 + carry as u128;
        d[i] = t as u64;
        carry = (t >> 64) as u64;
    }
    d
}

/// 2·a.
#[inline(always)]
pub(crate) fn double(a: &Limbs) -> Limbs {
    let s = [a[0] << 1, (a[1] << 1) | (a[0] >> 63), (a[2] << 1) | (a[1] >> 63), (a[3] << 1) | (a[2] >> 63)];
    reduce_once(s)
}

/// s − r when s ≥ r, else s (for s < 2r).
#[inline(always)]
fn reduce_once(s: Limbs) -> Limbs {
    let mut d = [0u64; 4];
    let mut borrow = 0u64;
    for i in 0..4 {
        let t = (s[i] as u128).wrapping_sub(MODULUS[i] as u128 + borrow as u128);
        d[i] = t as u64;
        borrow = (t >> 127) as u64;
    }
    // borrow = 1: s < r, keep s.
    let keep = borrow.wrapping_neg();
    [
        (s[0] & keep) | (d[0] & !keep),
        (s[1] & keep) | (d[1] & !keep),
        (s[2] & keep) | (d[2] & !keep),
        (s[3] & keep) | (d[3] & !keep),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;
    use rand_chacha::rand_core::SeedableRng;

    #[test]
    fn limb_ops_match_blstrs() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut vals: Vec<Scalar> = (0..200).map(|_| Scalar::random(&mut rng)).collect();
        vals.extend([Scalar::ZERO, Scalar::ONE, -Scalar::ONE, Scalar::ONE.double()]);
        for a in &vals {
            assert_eq!(scalar(double(&limbs(a))), a.double());
            for b in vals.iter().step_by(7) {
                assert_eq!(scalar(add(&limbs(a), &limbs(b))), *a + b);
                assert_eq!(scalar(sub(&limbs(a), &limbs(b))), *a - b);
            }
        }
        assert!(zeroed(5).iter().all(|x| *x == Scalar::ZERO));
    }
}
