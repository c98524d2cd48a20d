//! Fr on blst's raw Montgomery limbs: addition, subtraction and doubling for the PCE SpMV's inner loop, and
//! tests of zero and one for the loops that branch on them.
//!
//! Why: `blstrs::Scalar`'s `+`/`-` are calls into blst, and for a 4-limb add the call costs about as much as
//! the work; the SpMV does almost nothing but adds (±1 and ±2^k coefficients are 90–99% of the terms of the
//! sample circuits), so they are done here inline. Multiplication still goes to blst (its mulx assembly).
//! Addition, subtraction and doubling are the same in Montgomery form as on plain values, so the limbs are
//! used as they are. `==` and `is_zero` on a `Scalar` are constant-time (`subtle`): where the answer is
//! branched on at once (prep_msm's classification of the witness), [`is_zero`] and [`is_one`] compare limbs.

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

/// x + y + carry, with the carry out (written so LLVM emits one `adc`).
#[inline(always)]
fn adc(x: u64, y: u64, carry: bool) -> (u64, bool) {
    let (t, c1) = x.overflowing_add(y);
    let (t, c2) = t.overflowing_add(u64::from(carry));
    (t, c1 | c2)
}

/// x − y − borrow, with the borrow out (one `sbb`).
#[inline(always)]
fn sbb(x: u64, y: u64, borrow: bool) -> (u64, bool) {
    let (t, b1) = x.overflowing_sub(y);
    let (t, b2) = t.overflowing_sub(u64::from(borrow));
    (t, b1 | b2)
}

/// a + b − r·[a + b ≥ r]; a, b < r < 2^255, so a + b never overflows 256 bits.
#[inline(always)]
pub(crate) fn add(a: &Limbs, b: &Limbs) -> Limbs {
    let (s0, c) = adc(a[0], b[0], false);
    let (s1, c) = adc(a[1], b[1], c);
    let (s2, c) = adc(a[2], b[2], c);
    let (s3, _) = adc(a[3], b[3], c);
    reduce_once([s0, s1, s2, s3])
}

/// a − b + r·[a < b].
#[inline(always)]
pub(crate) fn sub(a: &Limbs, b: &Limbs) -> Limbs {
    let (d0, br) = sbb(a[0], b[0], false);
    let (d1, br) = sbb(a[1], b[1], br);
    let (d2, br) = sbb(a[2], b[2], br);
    let (d3, br) = sbb(a[3], b[3], br);
    // Add r back when the subtraction borrowed (a mask, not a branch: the sign is data-dependent).
    let m = u64::from(br).wrapping_neg();
    let (d0, c) = adc(d0, MODULUS[0] & m, false);
    let (d1, c) = adc(d1, MODULUS[1] & m, c);
    let (d2, c) = adc(d2, MODULUS[2] & m, c);
    let (d3, _) = adc(d3, MODULUS[3] & m, c);
    [d0, d1, d2, d3]
}

/// 2·a.
#[inline(always)]
pub(crate) fn double(a: &Limbs) -> Limbs {
    reduce_once([
        a[0] << 1,
        (a[1] << 1) | (a[0] >> 63),
        (a[2] << 1) | (a[1] >> 63),
        (a[3] << 1) | (a[2] >> 63),
    ])
}

/// s − r when s ≥ r, else s (for s < 2r).
#[inline(always)]
fn reduce_once(s: Limbs) -> Limbs {
    let (d0, br) = sbb(s[0], MODULUS[0], false);
    let (d1, br) = sbb(s[1], MODULUS[1], br);
    let (d2, br) = sbb(s[2], MODULUS[2], br);
    let (d3, br) = sbb(s[3], MODULUS[3], br);
    // A borrow means s < r: keep s.
    if br {
        s
    } else {
        [d0, d1, d2, d3]
    }
}

/// R mod r: one in Montgomery form.
const ONE: Limbs =
    [0x0000_0001_ffff_fffe, 0x5884_b7fa_0003_4802, 0x998c_4fef_ecbc_4ff5, 0x1824_b159_acc5_056f];

/// Whether `s` is zero, in variable time (the result is branched on; nothing is hidden by a constant-time form).
#[inline(always)]
pub(crate) fn is_zero(s: &Scalar) -> bool {
    let l = limbs(s);
    (l[0] | l[1] | l[2] | l[3]) == 0
}

/// Whether `s` is one, in variable time (see [`is_zero`]).
#[inline(always)]
pub(crate) fn is_one(s: &Scalar) -> bool {
    let l = limbs(s);
    ((l[0] ^ ONE[0]) | (l[1] ^ ONE[1]) | (l[2] ^ ONE[2]) | (l[3] ^ ONE[3])) == 0
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
    }

    /// The limb tests against blstrs' own comparisons: zero, one, minus one, random values, and one with a
    /// single bit of any limb flipped.
    #[test]
    fn zero_and_one_tests_match_blstrs() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut vals: Vec<Scalar> = (0..100).map(|_| Scalar::random(&mut rng)).collect();
        vals.extend([Scalar::ZERO, Scalar::ONE, -Scalar::ONE, Scalar::ONE.double()]);
        for limb in 0..4 {
            for bit in [0, 1, 31, 62] {
                let mut l = limbs(&Scalar::ONE);
                l[limb] ^= 1 << bit;
                // Below r: R mod r's top limb with bit 62 flipped is still below r's.
                vals.push(scalar(l));
            }
        }
        assert_eq!(limbs(&Scalar::ONE), ONE);
        for v in &vals {
            assert_eq!(is_zero(v), bool::from(v.is_zero()), "{v:?}");
            assert_eq!(is_one(v), *v == Scalar::ONE, "{v:?}");
        }
    }
}
