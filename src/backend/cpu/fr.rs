//! Native Fr addition and subtraction on blst's limbs for the NTT butterflies.
//!
//! Why: every blstrs `Scalar` operation is a call into blst; for an addition the call costs more than the
//! work, and a butterfly does two of them per multiplication. Values are blst's Montgomery form (4
//! little-endian u64 limbs, fully reduced below r), so these produce exactly what blst would.

use blstrs::Scalar;

/// The scalar field modulus r, little-endian limbs.
const R: [u64; 4] =
    [0xffff_ffff_0000_0001, 0x53bd_a402_fffe_5bfe, 0x3339_d808_09a1_d805, 0x73ed_a753_299d_7d48];

#[inline(always)]
fn limbs(s: Scalar) -> [u64; 4] {
    // SAFETY: Scalar is repr(transparent) over blst_fr, repr(C) { l: [u64; 4] }.
    unsafe { std::mem::transmute::<Scalar, [u64; 4]>(s) }
}

#[inline(always)]
fn scalar(l: [u64; 4]) -> Scalar {
    // SAFETY: as in `limbs`; callers pass values below r, which is what blst keeps.
    unsafe { std::mem::transmute::<[u64; 4], Scalar>(l) }
}

/// a − b over four limbs and the borrow (all ones or zero).
#[inline(always)]
fn sub_limbs(a: &[u64; 4], b: &[u64; 4]) -> ([u64; 4], u64) {
    let mut out = [0u64; 4];
    let mut borrow = 0u64;
    for (o, (x, y)) in out.iter_mut().zip(a.iter().zip(b)) {
        let t = (*x as u128).wrapping_sub(*y as u128 + (borrow >> 63) as u128);
        *o = t as u64;
        borrow = (t >> 64) as u64;
    }
    (out, borrow)
}

/// a + b mod r.
#[inline(always)]
pub fn add(a: Scalar, b: Scalar) -> Scalar {
    let (a, b) = (limbs(a), limbs(b));
    // a + b < 2r < 2^256: no carry out of four limbs.
    let mut s = [0u64; 4];
    let mut carry = 0u64;
    for (o, (x, y)) in s.iter_mut().zip(a.iter().zip(&b)) {
        let t = *x as u128 + *y as u128 + carry as u128;
        *o = t as u64;
        carry = (t >> 64) as u64;
    }
    let (t, borrow) = sub_limbs(&s, &R);
    scalar(if borrow == 0 { t } else { s })
}

/// a − b mod r.
#[inline(always)]
pub fn sub(a: Scalar, b: Scalar) -> Scalar {
    let (d, borrow) = sub_limbs(&limbs(a), &limbs(b));
    let mut out = [0u64; 4];
    let mut carry = 0u64;
    for (o, (x, r)) in out.iter_mut().zip(d.iter().zip(&R)) {
        let t = *x as u128 + (r & borrow) as u128 + carry as u128;
        *o = t as u64;
        carry = (t >> 64) as u64;
    }
    scalar(out)
}
