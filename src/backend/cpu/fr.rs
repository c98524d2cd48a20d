//! Native Fr addition and subtraction on blst's limbs for the NTT butterflies, on `Scalar`s.
//!
//! Why: every blstrs `Scalar` operation is a call into blst; for an addition the call costs more than the
//! work, and a butterfly does two of them per multiplication. The limb arithmetic is `cs::fr`'s (the PCE
//! SpMV's), so these produce exactly what blst would.

use blstrs::Scalar;

use crate::cs::fr;

/// a + b mod r.
#[inline(always)]
pub fn add(a: Scalar, b: Scalar) -> Scalar {
    fr::scalar(fr::add(&fr::limbs(&a), &fr::limbs(&b)))
}

/// a − b mod r.
#[inline(always)]
pub fn sub(a: Scalar, b: Scalar) -> Scalar {
    fr::scalar(fr::sub(&fr::limbs(&a), &fr::limbs(&b)))
}
