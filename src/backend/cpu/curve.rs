//! Coordinate access for G1 and G2 so that one generic batch-affine implementation serves both curves.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use group::{prime::PrimeCurveAffine, Curve, Group};

pub use super::field::Xy;
use super::field::{Coord, Fq, Fq2};

/// An affine point type of a curve y² = x³ + b (G1 over Fp, G2 over Fp2) with its Jacobian type.
///
/// It exists so MSM, batch addition and fixed-base multiplication are written once for both groups.
pub trait MsmAffine: PrimeCurveAffine<Scalar = Scalar, Curve = Self::Proj> + Send + Sync {
    /// The projective (blst: Jacobian) group type results are accumulated in.
    type Proj: Curve<AffineRepr = Self> + Group<Scalar = Scalar> + Send + Sync;
    /// The coordinate field.
    type F: Coord;

    /// Whether this is the identity (blst encodes it as x = y = 0).
    #[inline(always)]
    fn is_inf(&self) -> bool {
        self.xy().is_identity()
    }
    /// The coordinates; only meaningful when `!self.is_inf()`.
    fn xy(&self) -> Xy<Self::F>;
    /// The affine point with these coordinates (not checked to be on the curve).
    fn from_xy(p: &Xy<Self::F>) -> Self;
    /// Jacobian coordinates [X, Y, Z] of `p`: x = X/Z², y = Y/Z³; Z = 0 is the identity.
    fn jacobian(p: &Self::Proj) -> [Self::F; 3];
}

impl MsmAffine for G1Affine {
    type Proj = G1Projective;
    type F = Fq;

    #[inline(always)]
    fn xy(&self) -> Xy<Fq> {
        // SAFETY: G1Affine is repr(transparent) over blst_p1_affine, repr(C) {x, y} of [u64; 6] each, the
        // layout of Xy<Fq>; sizes are checked by transmute.
        unsafe { std::mem::transmute::<G1Affine, Xy<Fq>>(*self) }
    }
    #[inline(always)]
    fn from_xy(p: &Xy<Fq>) -> Self {
        // SAFETY: the inverse of `xy`.
        unsafe { std::mem::transmute::<Xy<Fq>, G1Affine>(*p) }
    }
    #[inline(always)]
    fn jacobian(p: &G1Projective) -> [Fq; 3] {
        // SAFETY: G1Projective is repr(transparent) over blst_p1, repr(C) {x, y, z} of [u64; 6] each.
        unsafe { std::mem::transmute::<G1Projective, [Fq; 3]>(*p) }
    }
}

impl MsmAffine for G2Affine {
    type Proj = G2Projective;
    type F = Fq2;

    #[inline(always)]
    fn xy(&self) -> Xy<Fq2> {
        // SAFETY: as for G1, with blst_fp2 = [blst_fp; 2] laid out like Fq2.
        unsafe { std::mem::transmute::<G2Affine, Xy<Fq2>>(*self) }
    }
    #[inline(always)]
    fn from_xy(p: &Xy<Fq2>) -> Self {
        // SAFETY: the inverse of `xy`.
        unsafe { std::mem::transmute::<Xy<Fq2>, G2Affine>(*p) }
    }
    #[inline(always)]
    fn jacobian(p: &G2Projective) -> [Fq2; 3] {
        // SAFETY: G2Projective is repr(transparent) over blst_p2, repr(C) {x, y, z} of blst_fp2 each.
        unsafe { std::mem::transmute::<G2Projective, [Fq2; 3]>(*p) }
    }
}
