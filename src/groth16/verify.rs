//! The Groth16 verifier: checks e(A, B) = e(α, β) · e(Σ inputᵢ·ICᵢ, γ) · e(C, δ) with one multi-Miller loop
//! and one final exponentiation per proof (as e(A, B) · e(acc, −γ) · e(C, −δ) = e(α, β)).

use blstrs::{Bls12, G1Affine, G1Projective, G2Prepared, Gt, Scalar};
use group::Curve;
use pairing::{MillerLoopResult, MultiMillerLoop};
use rayon::prelude::*;

use super::error::{Error, Result};
use super::keys::VerifyingKey;
use super::proof::Proof;

/// Inputs above this count use blst's multi-exponentiation instead of a simple loop for Σ inputᵢ·ICᵢ.
const MSM_THRESHOLD: usize = 16;

/// A verifying key with the per-key work done once: e(α, β), −γ and −δ prepared for the Miller loop.
#[derive(Clone, Debug)]
pub struct PreparedVerifyingKey {
    alpha_beta: Gt,
    neg_gamma: G2Prepared,
    neg_delta: G2Prepared,
    ic: Vec<G1Affine>,
}

impl PreparedVerifyingKey {
    /// Prepares `vk` for verifying many proofs.
    pub fn new(vk: &VerifyingKey) -> Self {
        PreparedVerifyingKey {
            alpha_beta: blstrs::pairing(&vk.alpha_g1, &vk.beta_g2),
            neg_gamma: G2Prepared::from(-vk.gamma_g2),
            neg_delta: G2Prepared::from(-vk.delta_g2),
            ic: vk.ic.clone(),
        }
    }

    /// The number of public inputs (excluding the constant one) this key expects.
    pub fn num_inputs(&self) -> usize {
        self.ic.len().saturating_sub(1)
    }

    /// IC[0] + Σ inputᵢ·IC[i+1], after checking the input count.
    fn input_acc(&self, inputs: &[Scalar]) -> Result<G1Affine> {
        let expected = self.num_inputs();
        if self.ic.is_empty() || inputs.len() != expected {
            return Err(Error::InputCount { ic: self.ic.len(), expected, found: inputs.len() });
        }
        let bases = &self.ic[1..];
        let mut acc = G1Projective::from(self.ic[0]);
        if inputs.len() > MSM_THRESHOLD {
            let proj: Vec<G1Projective> = bases.iter().map(G1Projective::from).collect();
            acc += G1Projective::multi_exp(&proj, inputs);
        } else {
            for (base, s) in bases.iter().zip(inputs) {
                acc += *base * s;
            }
        }
        Ok(acc.to_affine())
    }
}

impl From<&VerifyingKey> for PreparedVerifyingKey {
    fn from(vk: &VerifyingKey) -> Self {
        Self::new(vk)
    }
}

/// Prepares a verifying key (same as `PreparedVerifyingKey::new`, named like bellperson's function).
pub fn prepare_verifying_key(vk: &VerifyingKey) -> PreparedVerifyingKey {
    PreparedVerifyingKey::new(vk)
}

/// Verifies one proof against its public inputs (excluding the constant one). `Ok(false)` means the pairing
/// check failed; a wrong number of inputs is an error.
pub fn verify_proof(pvk: &PreparedVerifyingKey, proof: &Proof, public_inputs: &[Scalar]) -> Result<bool> {
    let acc = pvk.input_acc(public_inputs)?;
    let b = G2Prepared::from(proof.b);
    let ml = Bls12::multi_miller_loop(&[(&proof.a, &b), (&acc, &pvk.neg_gamma), (&proof.c, &pvk.neg_delta)]);
    Ok(ml.final_exponentiation() == pvk.alpha_beta)
}

/// Verifies many proofs of one key in parallel; one verdict per proof, in order. Input counts are checked for
/// every proof before any pairing is computed.
pub fn verify_batch<I: AsRef<[Scalar]> + Sync>(
    pvk: &PreparedVerifyingKey,
    proofs: &[Proof],
    public_inputs: &[I],
) -> Result<Vec<bool>> {
    if proofs.len() != public_inputs.len() {
        return Err(Error::BatchMismatch { proofs: proofs.len(), inputs: public_inputs.len() });
    }
    let expected = pvk.num_inputs();
    if let Some(bad) = public_inputs.iter().find(|i| i.as_ref().len() != expected || pvk.ic.is_empty()) {
        return Err(Error::InputCount { ic: pvk.ic.len(), expected, found: bad.as_ref().len() });
    }
    proofs.par_iter().zip(public_inputs).map(|(p, i)| verify_proof(pvk, p, i.as_ref())).collect()
}
