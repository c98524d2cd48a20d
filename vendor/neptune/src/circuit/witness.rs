//! cuzk patch: `poseidon_hash` for witness generators, lean.
//!
//! `circuit::poseidon_hash` takes this path when its constraint system says it is a witness generator
//! (`is_witness_generator()`, cuzk's witness-only synthesis) and every preimage element has its value. It
//! makes exactly the gadget's allocations (same values, same order) and the same number of `enforce` calls,
//! with empty linear combinations, which a witness generator ignores. The gadget carries every state element
//! as a `Num` whose linear combination grows over the partial rounds and is scaled and merged term by term
//! at each matrix product; here the state is its values only, so a hash costs its field multiplications.
//! The rounds, round keys and matrices are the gadget's, step for step (`PoseidonCircuit::hash`).

use super::{Arity, PoseidonConstants};
use bellpepper_core::num::AllocatedNum;
use bellpepper_core::{ConstraintSystem, SynthesisError};
use ff::PrimeField;

/// The state's values and the constraint system, with the gadget's round counter and key offset.
struct Lean<'a, Scalar: PrimeField, A: Arity<Scalar>, CS: ConstraintSystem<Scalar>> {
    cs: CS,
    state: Vec<Scalar>,
    constants: &'a PoseidonConstants<Scalar, A>,
    offset: usize,
    round: usize,
}

impl<Scalar: PrimeField, A: Arity<Scalar>, CS: ConstraintSystem<Scalar>> Lean<'_, Scalar, A, CS> {
    /// One allocation and its one constraint (`AllocatedNum::alloc` + the gadget's `enforce`).
    fn gate(&mut self, value: Scalar) -> Result<(), SynthesisError> {
        self.cs.alloc(|| "", || Ok(value))?;
        self.cs.enforce(|| "", |lc| lc, |lc| lc, |lc| lc);
        Ok(())
    }

    /// `quintic_s_box` on a state element that is a `Num` (every element after the first round): the element
    /// allocated (`ensure_allocated`), l², l⁴ and l⁴·l + post.
    fn s_box(&mut self, i: usize, post: Option<Scalar>) -> Result<(), SynthesisError> {
        let l = self.state[i];
        self.gate(l)?;
        let l2 = l.square();
        self.gate(l2)?;
        let l4 = l2.square();
        self.gate(l4)?;
        let mut l5 = l4 * l;
        if let Some(post) = post {
            l5 += post;
        }
        self.gate(l5)?;
        self.state[i] = l5;
        Ok(())
    }

    fn full_round(&mut self, first: bool, last: bool) -> Result<(), SynthesisError> {
        let width = self.state.len();
        // The constants outlive `self`'s borrow: the keys are read in place, not copied per round.
        let keys: &[Scalar] = &self.constants.compressed_round_constants;
        let pre = first.then(|| &keys[self.offset..self.offset + width]);
        if first {
            self.offset += width;
        }
        let post = (first || !last).then(|| &keys[self.offset..self.offset + width]);
        if post.is_some() {
            self.offset += width;
        }
        for i in 0..width {
            let post_key = post.map(|k| k[i]);
            match (pre, i) {
                // The domain tag's s-box is computed as a constant (`constant_quintic_s_box_pre_add_tag`).
                (Some(pre), 0) => {
                    let mut l = self.state[0] + pre[0];
                    l *= l.square().square();
                    if let Some(post) = post_key {
                        l += post;
                    }
                    self.state[0] = l;
                }
                // `quintic_s_box_pre_add` on an allocated input: (l + pre)², its square, l⁴·(l + pre) + post.
                (Some(pre), _) => {
                    let l = self.state[i] + pre[i];
                    let l2 = l.square();
                    self.gate(l2)?;
                    let l4 = l2.square();
                    self.gate(l4)?;
                    let mut l5 = l4 * l;
                    if let Some(post) = post_key {
                        l5 += post;
                    }
                    self.gate(l5)?;
                    self.state[i] = l5;
                }
                (None, _) => self.s_box(i, post_key)?,
            }
        }
        self.product_mds();
        Ok(())
    }

    fn partial_round(&mut self) -> Result<(), SynthesisError> {
        let key = self.constants.compressed_round_constants[self.offset];
        self.offset += 1;
        self.s_box(0, Some(key))?;
        self.product_mds();
        Ok(())
    }

    /// `PoseidonCircuit::product_mds`: the pre-sparse matrix, a sparse matrix, or M, by round.
    fn product_mds(&mut self) {
        let c = self.constants;
        let sparse_offset = c.half_full_rounds - 1;
        if self.round == sparse_offset {
            self.dense(&c.pre_sparse_matrix);
        } else if self.round > sparse_offset && self.round < c.half_full_rounds + c.partial_rounds {
            let m = &c.sparse_matrixes[self.round - sparse_offset - 1];
            let first = self.state.iter().zip(&m.w_hat).map(|(e, w)| *e * w).fold(Scalar::ZERO, |a, b| a + b);
            let e0 = self.state[0];
            for (e, v) in self.state[1..].iter_mut().zip(&m.v_rest) {
                *e += e0 * v;
            }
            self.state[0] = first;
        } else {
            self.dense(&c.mds_matrices.m);
        }
        self.round += 1;
    }

    /// result[j] = Σᵢ state[i] · m[i][j].
    fn dense(&mut self, m: &[Vec<Scalar>]) {
        let width = self.state.len();
        let out: Vec<Scalar> = (0..width)
            .map(|j| self.state.iter().zip(m).map(|(e, row)| *e * row[j]).fold(Scalar::ZERO, |a, b| a + b))
            .collect();
        self.state = out;
    }
}

/// `poseidon_hash` of `preimage`'s values; the digest allocated as the gadget's `hash result`.
pub(super) fn poseidon_hash<CS, Scalar, A>(
    cs: CS,
    preimage: &[Scalar],
    constants: &PoseidonConstants<Scalar, A>,
) -> Result<AllocatedNum<Scalar>, SynthesisError>
where
    CS: ConstraintSystem<Scalar>,
    Scalar: PrimeField,
    A: Arity<Scalar>,
{
    let mut state = Vec::with_capacity(preimage.len() + 1);
    state.push(constants.domain_tag);
    state.extend_from_slice(preimage);
    let mut lean = Lean { cs, state, constants, offset: 0, round: 0 };
    lean.full_round(true, false)?;
    for _ in 1..constants.full_rounds / 2 {
        lean.full_round(false, false)?;
    }
    for _ in 0..constants.partial_rounds {
        lean.partial_round()?;
    }
    for _ in 0..(constants.full_rounds / 2) - 1 {
        lean.full_round(false, false)?;
    }
    lean.full_round(false, true)?;
    // `ensure_allocated` of element 1: allocated, then constrained to its combination.
    let digest = lean.state[1];
    let out = AllocatedNum::alloc(lean.cs.namespace(|| "hash result"), || Ok(digest))?;
    lean.cs.enforce(|| "", |lc| lc, |lc| lc, |lc| lc);
    Ok(out)
}
