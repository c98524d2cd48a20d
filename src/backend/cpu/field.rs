//! Base-field coordinates (Fp for G1, Fp2 for G2) in blst's limb layout, for the batch-affine kernels.
//!
//! Why: blstrs keeps its `Fp`/`Fp2` types unexported and every operation on them is a call into blst. For
//! multiplication, squaring and inversion the call is cheap next to the work, so those still go to blst (its
//! mulx assembly); addition, subtraction, negation and comparison cost less than the call itself, so they are
//! done here on the same limbs (Montgomery form, little-endian u64, always fully reduced below p). The layout
//! is the one the whole project keeps (G1 affine = 2 × 48 bytes, G2 affine = 2 × 96 bytes).

use std::fmt::Debug;
use std::ops::{Add, Mul, Neg, Sub};

use blstrs::{G1Affine, G2Affine};
use ff::Field;

/// The BLS12-381 base-field modulus p, little-endian limbs.
const P: [u64; 6] = [
    0xb9fe_ffff_ffff_aaab,
    0x1eab_fffe_b153_ffff,
    0x6730_d2a0_f6b0_f624,
    0x6477_4b84_f385_12bf,
    0x4b1b_a7b6_434b_acd7,
    0x1a01_11ea_397f_e69a,
];
/// 1 in Montgomery form: R = 2^384 mod p.
const R: [u64; 6] = [
    0x7609_0000_0002_fffd,
    0xebf4_000b_c40c_0002,
    0x5f48_9857_53c7_58ba,
    0x77ce_5853_7052_5745,
    0x5c07_1a97_a256_ec6d,
    0x15f6_5ec3_fa80_e493,
];

// The casts below rely on blst's layout: affine points are two coordinates with no padding.
const _: () = assert!(std::mem::size_of::<G1Affine>() == 96);
const _: () = assert!(std::mem::size_of::<G2Affine>() == 192);

/// Field operations the batch-affine kernels need, implemented for [`Fq`] and [`Fq2`].
pub trait Coord:
    Copy
    + Default
    + Debug
    + PartialEq
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
{
    /// 0.
    const ZERO: Self;
    /// 1 (Montgomery form).
    const ONE: Self;
    /// Whether this is 0.
    fn is_zero(&self) -> bool;
    /// 2·self.
    fn double(&self) -> Self;
    /// self² (blst).
    fn square(&self) -> Self;
    /// 1/self (blst); 0 maps to 0.
    fn invert(&self) -> Self;
}

/// An Fp element in blst's layout (Montgomery form, little-endian limbs, reduced below p).
#[derive(Clone, Copy, Debug, Default, Eq)]
#[repr(transparent)]
pub struct Fq(pub [u64; 6]);

impl PartialEq for Fq {
    /// Limb comparison (values are fully reduced, so equal elements have equal limbs); not constant time.
    #[inline(always)]
    fn eq(&self, o: &Fq) -> bool {
        self.0.iter().zip(&o.0).fold(0, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

/// An Fp2 element c0 + c1·u in blst's layout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Fq2(pub Fq, pub Fq);

#[inline(always)]
fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = a as u128 + b as u128 + carry as u128;
    (t as u64, (t >> 64) as u64)
}

#[inline(always)]
fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let t = (a as u128).wrapping_sub(b as u128 + (borrow >> 63) as u128);
    (t as u64, (t >> 64) as u64)
}

/// a − b over six limbs; the second value is all ones on borrow, zero otherwise.
#[inline(always)]
fn sub_limbs(a: &[u64; 6], b: &[u64; 6]) -> ([u64; 6], u64) {
    let mut out = [0u64; 6];
    let mut borrow = 0;
    for (o, (x, y)) in out.iter_mut().zip(a.iter().zip(b)) {
        (*o, borrow) = sbb(*x, *y, borrow);
    }
    (out, borrow)
}

/// a + (p & mask).
#[inline(always)]
fn add_masked_p(a: &[u64; 6], mask: u64) -> [u64; 6] {
    let mut out = [0u64; 6];
    let mut carry = 0;
    for (o, (x, p)) in out.iter_mut().zip(a.iter().zip(&P)) {
        (*o, carry) = adc(*x, p & mask, carry);
    }
    out
}

impl Add for Fq {
    type Output = Fq;
    #[inline(always)]
    fn add(self, o: Fq) -> Fq {
        // a + b < 2p < 2^382 fits six limbs; subtract p unless that borrows.
        let mut s = [0u64; 6];
        let mut carry = 0;
        for (si, (x, y)) in s.iter_mut().zip(self.0.iter().zip(&o.0)) {
            (*si, carry) = adc(*x, *y, carry);
        }
        let (t, borrow) = sub_limbs(&s, &P);
        Fq(if borrow == 0 { t } else { s })
    }
}

impl Sub for Fq {
    type Output = Fq;
    #[inline(always)]
    fn sub(self, o: Fq) -> Fq {
        let (d, borrow) = sub_limbs(&self.0, &o.0);
        Fq(add_masked_p(&d, borrow))
    }
}

impl Neg for Fq {
    type Output = Fq;
    #[inline(always)]
    fn neg(self) -> Fq {
        if self.is_zero() {
            self
        } else {
            Fq(sub_limbs(&P, &self.0).0)
        }
    }
}

/// The G1 point (a, b): a value blst can read, which is how `Fq` reaches blst's Fp arithmetic.
#[inline(always)]
fn as_g1(a: Fq, b: Fq) -> G1Affine {
    // SAFETY: G1Affine is repr(transparent) over blst_p1_affine, repr(C) {x, y: blst_fp}, each [u64; 6];
    // Xy<Fq> is repr(C) {x, y: Fq}, Fq repr(transparent) [u64; 6]: same size, alignment and layout.
    unsafe { std::mem::transmute::<Xy<Fq>, G1Affine>(Xy { x: a, y: b }) }
}

/// The G2 point (a, b), to reach blst's Fp2 arithmetic.
#[inline(always)]
fn as_g2(a: Fq2, b: Fq2) -> G2Affine {
    // SAFETY: as for `as_g1`, with blst_fp2 = [blst_fp; 2] and Fq2 repr(C) (Fq, Fq).
    unsafe { std::mem::transmute::<Xy<Fq2>, G2Affine>(Xy { x: a, y: b }) }
}

/// Reinterprets a blstrs field value (`Fp` or `Fp2`, whose types are not exported) as its limbs.
#[inline(always)]
fn from_blst<T: Copy, U: Copy>(v: T) -> U {
    const { assert!(std::mem::size_of::<T>() == std::mem::size_of::<U>()) };
    // SAFETY: T is blstrs' Fp (Fp2), repr(transparent) over [u64; 6] ([u64; 12]), and U is Fq (Fq2) with
    // the same layout; the sizes are checked above.
    unsafe { std::mem::transmute_copy::<T, U>(&v) }
}

impl Mul for Fq {
    type Output = Fq;
    #[inline(always)]
    fn mul(self, o: Fq) -> Fq {
        let p = as_g1(self, o);
        from_blst(p.x() * p.y())
    }
}

impl Coord for Fq {
    const ZERO: Fq = Fq([0; 6]);
    const ONE: Fq = Fq(R);
    #[inline(always)]
    fn is_zero(&self) -> bool {
        self.0.iter().fold(0, |acc, l| acc | l) == 0
    }
    #[inline(always)]
    fn double(&self) -> Fq {
        *self + *self
    }
    #[inline(always)]
    fn square(&self) -> Fq {
        from_blst(as_g1(*self, Fq::ZERO).x().square())
    }
    #[inline]
    fn invert(&self) -> Fq {
        let p = as_g1(*self, Fq::ZERO);
        from_blst(p.x().invert().unwrap_or(p.y()))
    }
}

impl Add for Fq2 {
    type Output = Fq2;
    #[inline(always)]
    fn add(self, o: Fq2) -> Fq2 {
        Fq2(self.0 + o.0, self.1 + o.1)
    }
}

impl Sub for Fq2 {
    type Output = Fq2;
    #[inline(always)]
    fn sub(self, o: Fq2) -> Fq2 {
        Fq2(self.0 - o.0, self.1 - o.1)
    }
}

impl Neg for Fq2 {
    type Output = Fq2;
    #[inline(always)]
    fn neg(self) -> Fq2 {
        Fq2(-self.0, -self.1)
    }
}

impl Mul for Fq2 {
    type Output = Fq2;
    #[inline(always)]
    fn mul(self, o: Fq2) -> Fq2 {
        let p = as_g2(self, o);
        from_blst(p.x() * p.y())
    }
}

impl Coord for Fq2 {
    const ZERO: Fq2 = Fq2(Fq::ZERO, Fq::ZERO);
    const ONE: Fq2 = Fq2(Fq::ONE, Fq::ZERO);
    #[inline(always)]
    fn is_zero(&self) -> bool {
        self.0.is_zero() && self.1.is_zero()
    }
    #[inline(always)]
    fn double(&self) -> Fq2 {
        *self + *self
    }
    #[inline(always)]
    fn square(&self) -> Fq2 {
        from_blst(as_g2(*self, Fq2::ZERO).x().square())
    }
    #[inline]
    fn invert(&self) -> Fq2 {
        let p = as_g2(*self, Fq2::ZERO);
        from_blst(p.x().invert().unwrap_or(p.y()))
    }
}

/// The coordinates of an affine point that is not the identity, in blst's layout (x then y).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(C)]
pub struct Xy<F> {
    /// The x coordinate (Montgomery form, as blst keeps it).
    pub x: F,
    /// The y coordinate.
    pub y: F,
}

impl<F: Coord> Xy<F> {
    /// The identity marker (x = y = 0, blst's encoding; no curve point has it since b ≠ 0).
    pub const IDENTITY: Self = Xy { x: F::ZERO, y: F::ZERO };

    /// Whether this is the identity marker.
    #[inline(always)]
    pub fn is_identity(&self) -> bool {
        self.x.is_zero() && self.y.is_zero()
    }

    /// The point's negation (−P = (x, −y)); used for negative window digits.
    #[inline(always)]
    pub fn neg(&self) -> Self {
        Xy { x: self.x, y: -self.y }
    }
}
