//! `assemble`: the proof from the MSM sums and the randomizers r, s.

use blstrs::{G1Projective, G2Projective, Scalar};
use group::Curve;

use crate::groth16::keys::VerifyingKey;
use crate::groth16::proof::Proof;

/// Per-circuit MSM results before assembly.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sums {
    pub(super) h: G1Projective,
    pub(super) l: G1Projective,
    pub(super) a: G1Projective,
    pub(super) b_g1: G1Projective,
    pub(super) b_g2: G2Projective,
}

/// A = α + ΣA + rδ; B = β + ΣB₂ + sδ; C = H + L + s·A + r·B₁ − rs·δ, with B₁ = β + ΣB₁ + sδ in G1.
pub(crate) fn proof(vk: &VerifyingKey, s: &Sums, (r, sr): (Scalar, Scalar)) -> Proof {
    let a = s.a + vk.alpha_g1 + vk.delta_g1 * r;
    let b_g2 = s.b_g2 + vk.beta_g2 + vk.delta_g2 * sr;
    let b_g1 = s.b_g1 + vk.beta_g1 + vk.delta_g1 * sr;
    let c = s.h + s.l + a * sr + b_g1 * r - vk.delta_g1 * (r * sr);
    Proof { a: a.to_affine(), b: b_g2.to_affine(), c: c.to_affine() }
}
