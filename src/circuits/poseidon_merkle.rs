//! Inclusion proofs in one 8-ary Poseidon tree: the Poseidon-heavy part of PoRep (tree_c, tree_r_last) alone.
//! Public inputs: the root, then each opened leaf's index.

use blstrs::Scalar;

use super::seeded;
use super::sparse_tree::SparseTree;
use crate::cs::{Circuit, ConstraintSystem, SynthesisError};
use crate::gadgets::merkle::root_8;
use crate::gadgets::num::AllocatedNum;
use crate::gadgets::poseidon::poseidon_hash;

/// `paths` openings of a seeded 8-ary Poseidon tree of `height` levels.
#[derive(Clone, Debug)]
pub struct PoseidonMerkleCircuit {
    height: usize,
    root: Scalar,
    /// (leaf index, leaf value, siblings per level).
    openings: Vec<(u64, Scalar, Vec<Vec<Scalar>>)>,
}

impl PoseidonMerkleCircuit {
    /// The circuit `index` of a sample with `seed`.
    pub fn new(height: usize, paths: usize, seed: u64, index: u64) -> Self {
        let s = seeded::u64_of(seed, "poseidon-merkle", index, 0);
        let leaves_n = 1u64 << (3 * height);
        let leaves: Vec<(u64, Scalar)> = (0..paths as u64)
            .map(|i| {
                let idx = seeded::u64_of(s, "leaf-index", i, 0) % leaves_n;
                (idx, seeded::scalar(s, "leaf", idx, 0))
            })
            .collect();
        let tree = SparseTree::build(
            8,
            height,
            &leaves,
            |level, idx| seeded::scalar(s, "opaque", level as u64, idx),
            |ch| poseidon_hash(8, ch),
        );
        let openings = leaves.iter().map(|&(i, v)| (i, v, tree.siblings(i))).collect();
        PoseidonMerkleCircuit { height, root: tree.root(), openings }
    }

    /// Public inputs: root, then the leaf indices.
    pub fn public_inputs(&self) -> Vec<Scalar> {
        let mut v = vec![self.root];
        v.extend(self.openings.iter().map(|o| Scalar::from(o.0)));
        v
    }
}

impl Circuit for PoseidonMerkleCircuit {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let root = AllocatedNum::alloc_input(cs, self.root);
        for (idx, leaf, sibs) in &self.openings {
            let index = AllocatedNum::alloc_input(cs, Scalar::from(*idx));
            let bits = index.to_bits_le(cs, 3 * self.height);
            let leaf = AllocatedNum::alloc(cs, *leaf);
            let sibs: Vec<[AllocatedNum; 7]> =
                sibs.iter().map(|l| std::array::from_fn(|j| AllocatedNum::alloc(cs, l[j]))).collect();
            let got = root_8(cs, &leaf, &bits, &sibs);
            AllocatedNum::enforce_equal(cs, &got, &root);
        }
        Ok(())
    }
}
