//! The PoRep-shaped circuit: per challenge, what a StackedDRG PoRep challenge proves.
//!
//! Public inputs, in order: replica_id, comm_d, comm_r, then one challenged node index per challenge.
//! Per challenge: tree_d inclusion of the data node (binary, SHA-256 truncated to 254 bits), the node's label
//! on every layer (hash of replica id, layer, node index and parent labels), the column hash (Poseidon-11 over
//! the labels) with tree_c inclusion (8-ary Poseidon), the encoding replica = data + key (key = last label)
//! with tree_r_last inclusion (8-ary Poseidon); once per circuit comm_r = Poseidon-2(comm_c, comm_r_last).
//! The compact layout leaves parent labels free witnesses, each hashed once; the stacked layout is Filecoin's
//! StackedDRG shape: each parent's column opened in tree_c, labels over 37 repeated parents after a 64-byte
//! header, every inclusion path's index its own public input (1 + 3 + 18 per challenge, 328 at 18).

use blstrs::Scalar;
use ff::Field;

use super::porep_witness::{
    expand_parents, parents_on_layer, ChallengeWitness, SectorWitness, COLUMN_ARITY, LABEL_CHUNK,
};
use super::sample::{LabelHash, PorepKnobs, PorepLayout};
use crate::cs::{Circuit, ConstraintSystem, SynthesisError};
use crate::gadgets::boolean::Boolean;
use crate::gadgets::merkle::{conditionally_swap_bits, root_2, root_8};
use crate::gadgets::num::AllocatedNum;
use crate::gadgets::poseidon::poseidon_hash_gadget;
use crate::gadgets::sha256::sha256;

/// One partition's circuit of a PoRep-shaped sector.
#[derive(Clone, Debug)]
pub struct PorepCircuit {
    knobs: PorepKnobs,
    replica_id: Scalar,
    comm_d: Scalar,
    comm_c: Scalar,
    comm_r_last: Scalar,
    comm_r: Scalar,
    challenges: Vec<ChallengeWitness>,
}

impl PorepCircuit {
    /// The circuit of partition `partition` of a built sector.
    pub fn new(knobs: PorepKnobs, sector: &SectorWitness, partition: usize) -> Self {
        PorepCircuit {
            knobs,
            replica_id: sector.replica_id,
            comm_d: sector.comm_d,
            comm_c: sector.comm_c,
            comm_r_last: sector.comm_r_last,
            comm_r: sector.comm_r,
            challenges: sector.partitions[partition].clone(),
        }
    }

    /// The public inputs in circuit order (without the constant one).
    pub fn public_inputs(&self) -> Vec<Scalar> {
        let mut v = vec![self.replica_id, self.comm_d, self.comm_r];
        for c in &self.challenges {
            match self.knobs.layout {
                PorepLayout::Compact => v.push(Scalar::from(c.node)),
                PorepLayout::Stacked => {
                    // tree_d's path, each parent's tree_c path, the challenge, tree_r's and tree_c's paths.
                    v.push(Scalar::from(c.node));
                    v.extend(c.parent_columns.iter().map(|p| Scalar::from(p.node)));
                    v.extend([Scalar::from(c.node); 3]);
                }
            }
        }
        v
    }
}

/// SHA-256 input bits (big-endian within each byte) of a value given by its little-endian bits, as the
/// 32 little-endian bytes Filecoin hashes; missing high bits are constant zero.
fn sha_bits_of_le(bits_le: &[Boolean]) -> Vec<Boolean> {
    let mut out = Vec::with_capacity(256);
    for byte in 0..32 {
        for k in (0..8).rev() {
            out.push(bits_le.get(byte * 8 + k).copied().unwrap_or(Boolean::Constant(false)));
        }
    }
    out
}

/// The 254 little-endian bits of SHA-order bits read as a truncated field element (top two bits dropped).
fn le_bits_of_digest(digest: &[Boolean]) -> Vec<Boolean> {
    (0..254).map(|i| digest[8 * (i / 8) + 7 - i % 8]).collect()
}

/// `n` big-endian bits of a u64/u32 field: constant where the value is fixed, `bits_le` where it is not.
fn be_bits(bits_le: &[Boolean], width: usize) -> Vec<Boolean> {
    (0..width).rev().map(|i| bits_le.get(i).copied().unwrap_or(Boolean::Constant(false))).collect()
}

fn const_be(value: u64, width: usize) -> Vec<Boolean> {
    (0..width).rev().map(|i| Boolean::Constant((value >> i) & 1 == 1)).collect()
}

/// Allocates the 254 bits of a private Fr-safe value.
fn alloc_value_bits<CS: ConstraintSystem>(cs: &mut CS, v: &Scalar) -> Vec<Boolean> {
    let bytes = v.to_bytes_le();
    (0..254).map(|i| Boolean::alloc(cs, (bytes[i / 8] >> (i % 8)) & 1 == 1)).collect()
}

impl Circuit for PorepCircuit {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let k = &self.knobs;
        let replica_id = AllocatedNum::alloc_input(cs, self.replica_id);
        let comm_d = AllocatedNum::alloc_input(cs, self.comm_d);
        let comm_r = AllocatedNum::alloc_input(cs, self.comm_r);
        let comm_c = AllocatedNum::alloc(cs, self.comm_c);
        let comm_r_last = AllocatedNum::alloc(cs, self.comm_r_last);
        let zero = AllocatedNum::alloc(cs, Scalar::ZERO);
        cs.enforce(|lc| lc + zero.variable(), |lc| lc + CS::one(), |lc| lc);
        let replica_sha = match k.hash {
            LabelHash::Sha256 => sha_bits_of_le(&replica_id.to_bits_le(cs, 254)),
            LabelHash::Poseidon => vec![],
        };

        let roots = Roots { comm_d, comm_c, comm_r_last, zero };
        for ch in &self.challenges {
            match k.layout {
                PorepLayout::Compact => compact_challenge(cs, k, ch, &replica_id, &replica_sha, &roots),
                PorepLayout::Stacked => stacked_challenge(cs, k, ch, &replica_id, &replica_sha, &roots),
            }
        }

        let comm_r_calc = poseidon_hash_gadget(cs, &[comm_c, comm_r_last]);
        AllocatedNum::enforce_equal(cs, &comm_r_calc, &comm_r);
        Ok(())
    }
}

/// The values every challenge checks against.
struct Roots {
    comm_d: AllocatedNum,
    comm_c: AllocatedNum,
    comm_r_last: AllocatedNum,
    zero: AllocatedNum,
}

/// One challenge of the compact layout: parent labels free, each hashed once; every path on the node's bits.
fn compact_challenge<CS: ConstraintSystem>(
    cs: &mut CS,
    k: &PorepKnobs,
    ch: &ChallengeWitness,
    replica_id: &AllocatedNum,
    replica_sha: &[Boolean],
    roots: &Roots,
) {
    let zero = roots.zero;
    let node = AllocatedNum::alloc_input(cs, Scalar::from(ch.node));
    let node_bits = node.to_bits_le(cs, k.nodes_log2);
    let data = AllocatedNum::alloc(cs, ch.data);
    let root_d = tree_d_root(cs, k, &data, &node_bits, &ch.tree_d);
    AllocatedNum::enforce_equal(cs, &root_d, &roots.comm_d);

    // Labels on every layer.
    let mut labels = Vec::with_capacity(k.layers);
    for layer in 1..=k.layers {
        let parents = &ch.parents[layer - 1];
        debug_assert_eq!(parents.len(), parents_on_layer(k, layer));
        let label = match k.hash {
            LabelHash::Sha256 => {
                let mut input = label_header(replica_sha, layer, &node_bits);
                for p in parents {
                    input.extend(sha_bits_of_le(&alloc_value_bits(cs, p)));
                }
                let digest = sha256(cs, &input);
                AllocatedNum::from_bits_le(cs, &le_bits_of_digest(&digest))
            }
            LabelHash::Poseidon => {
                let layer_num = layer_constant(cs, layer);
                let parents: Vec<AllocatedNum> =
                    parents.iter().map(|p| AllocatedNum::alloc(cs, *p)).collect();
                poseidon_label(cs, [*replica_id, layer_num, node], &parents, zero)
            }
        };
        labels.push(label);
    }

    let col = column_hash_gadget(cs, &labels, zero);
    enforce_in_tree_8(cs, &col, &node_bits, &ch.tree_c, &roots.comm_c);
    encoding(cs, ch, &data, &labels, &node_bits, roots);
}

/// One challenge of the stacked layout, in the order of Filecoin's StackedDRG circuit (and its inputs):
/// tree_d, the parents' columns, the challenge, the labels, the encoding in tree_r, the column in tree_c.
fn stacked_challenge<CS: ConstraintSystem>(
    cs: &mut CS,
    k: &PorepKnobs,
    ch: &ChallengeWitness,
    replica_id: &AllocatedNum,
    replica_sha: &[Boolean],
    roots: &Roots,
) {
    let zero = roots.zero;
    let data = AllocatedNum::alloc(cs, ch.data);
    let d_bits = index_input(cs, ch.node, k.nodes_log2);
    let root_d = tree_d_root(cs, k, &data, &d_bits, &ch.tree_d);
    AllocatedNum::enforce_equal(cs, &root_d, &roots.comm_d);

    let mut columns = Vec::with_capacity(ch.parent_columns.len());
    for p in &ch.parent_columns {
        let labels: Vec<AllocatedNum> = p.labels.iter().map(|v| AllocatedNum::alloc(cs, *v)).collect();
        let col = column_hash_gadget(cs, &labels, zero);
        let bits = index_input(cs, p.node, k.nodes_log2);
        enforce_in_tree_8(cs, &col, &bits, &p.tree_c, &roots.comm_c);
        columns.push(labels);
    }
    let (base, exp) = columns.split_at(k.base_parents.min(columns.len()));

    let node = AllocatedNum::alloc_input(cs, Scalar::from(ch.node));
    let node_bits = node.to_bits_le(cs, 64);
    let mut labels = Vec::with_capacity(k.layers);
    for layer in 1..=k.layers {
        let mut parents: Vec<AllocatedNum> = base.iter().map(|c| c[layer - 1]).collect();
        if layer > 1 {
            parents.extend(exp.iter().map(|c| c[layer - 2]));
        }
        let label = match k.hash {
            LabelHash::Sha256 => {
                // Each parent's bits once per layer, then read 37 times over, as Filecoin's circuit does.
                let bits: Vec<Vec<Boolean>> =
                    parents.iter().map(|p| sha_bits_of_le(&p.to_bits_le(cs, 254))).collect();
                let mut input = label_header(replica_sha, layer, &node_bits);
                input.resize(512, Boolean::Constant(false));
                for b in expand_parents(&bits) {
                    input.extend(b);
                }
                let digest = sha256(cs, &input);
                AllocatedNum::from_bits_le(cs, &le_bits_of_digest(&digest))
            }
            LabelHash::Poseidon => {
                let layer_num = layer_constant(cs, layer);
                poseidon_label(cs, [*replica_id, layer_num, node], &expand_parents(&parents), zero)
            }
        };
        labels.push(label);
    }

    let r_bits = index_input(cs, ch.node, k.nodes_log2);
    encoding(cs, ch, &data, &labels, &r_bits, roots);
    let col = column_hash_gadget(cs, &labels, zero);
    let c_bits = index_input(cs, ch.node, k.nodes_log2);
    enforce_in_tree_8(cs, &col, &c_bits, &ch.tree_c, &roots.comm_c);
}

/// tree_d's root from the data node, its index bits and its binary path (SHA-256 or the Poseidon stand-in).
fn tree_d_root<CS: ConstraintSystem>(
    cs: &mut CS,
    k: &PorepKnobs,
    data: &AllocatedNum,
    node_bits: &[Boolean],
    path: &[Scalar],
) -> AllocatedNum {
    match k.hash {
        LabelHash::Sha256 => {
            let mut cur = sha_bits_of_le(&data.to_bits_le(cs, 254));
            for (level, sib) in path.iter().enumerate() {
                let sib = sha_bits_of_le(&alloc_value_bits(cs, sib));
                let (l, r) = conditionally_swap_bits(cs, &cur, &sib, &node_bits[level]);
                let mut input = l;
                input.extend(r);
                let digest = sha256(cs, &input);
                cur = sha_bits_of_le(&le_bits_of_digest(&digest));
            }
            AllocatedNum::from_bits_le(cs, &le_bits_of_digest(&cur))
        }
        LabelHash::Poseidon => {
            let sibs: Vec<AllocatedNum> = path.iter().map(|s| AllocatedNum::alloc(cs, *s)).collect();
            root_2(cs, data, node_bits, &sibs)
        }
    }
}

/// The encoding replica = data + key (key = the last label) and its inclusion in tree_r on `bits`.
fn encoding<CS: ConstraintSystem>(
    cs: &mut CS,
    ch: &ChallengeWitness,
    data: &AllocatedNum,
    labels: &[AllocatedNum],
    bits: &[Boolean],
    roots: &Roots,
) {
    let key = labels.last().unwrap_or(&roots.zero);
    let replica = AllocatedNum::alloc(cs, ch.data + key.value());
    cs.enforce(|lc| lc + data.variable() + key.variable(), |lc| lc + CS::one(), |lc| lc + replica.variable());
    enforce_in_tree_8(cs, &replica, bits, &ch.tree_r, &roots.comm_r_last);
}

/// `leaf` at `bits` under `root` in an 8-ary Poseidon tree, `path` holding 7 siblings a level.
fn enforce_in_tree_8<CS: ConstraintSystem>(
    cs: &mut CS,
    leaf: &AllocatedNum,
    bits: &[Boolean],
    path: &[Vec<Scalar>],
    root: &AllocatedNum,
) {
    let sibs = alloc_siblings(cs, path);
    let got = root_8(cs, leaf, bits, &sibs);
    AllocatedNum::enforce_equal(cs, &got, root);
}

/// A label's SHA-256 header: replica id ‖ layer (u32 BE) ‖ node (u64 BE), before any padding.
fn label_header(replica_sha: &[Boolean], layer: usize, node_bits: &[Boolean]) -> Vec<Boolean> {
    let mut input = replica_sha.to_vec();
    input.extend(const_be(layer as u64, 32));
    input.extend(be_bits(node_bits, 64));
    input
}

/// A path index as its own public input and its `width` little-endian bits, as Filecoin's PoR gadget packs
/// a path.
fn index_input<CS: ConstraintSystem>(cs: &mut CS, index: u64, width: usize) -> Vec<Boolean> {
    AllocatedNum::alloc_input(cs, Scalar::from(index)).to_bits_le(cs, width)
}

/// The layer number, allocated and pinned to its constant (the Poseidon label's input).
fn layer_constant<CS: ConstraintSystem>(cs: &mut CS, layer: usize) -> AllocatedNum {
    let layer_num = AllocatedNum::alloc(cs, Scalar::from(layer as u64));
    cs.enforce(
        |lc| lc + layer_num.variable(),
        |lc| lc + CS::one(),
        |lc| lc + (Scalar::from(layer as u64), CS::one()),
    );
    layer_num
}

/// The Poseidon stand-in's label: a Poseidon-11 chain over the header and the parents.
fn poseidon_label<CS: ConstraintSystem>(
    cs: &mut CS,
    header: [AllocatedNum; 3],
    parents: &[AllocatedNum],
    zero: AllocatedNum,
) -> AllocatedNum {
    let mut inputs = header.to_vec();
    inputs.extend_from_slice(parents);
    let mut acc = zero;
    for chunk in inputs.chunks(LABEL_CHUNK) {
        let mut block = vec![acc];
        block.extend_from_slice(chunk);
        block.resize(COLUMN_ARITY, zero);
        acc = poseidon_hash_gadget(cs, &block);
    }
    acc
}

/// A column's hash: Poseidon-11 over its labels, zero-padded.
fn column_hash_gadget<CS: ConstraintSystem>(
    cs: &mut CS,
    labels: &[AllocatedNum],
    zero: AllocatedNum,
) -> AllocatedNum {
    let mut column = labels.to_vec();
    column.resize(COLUMN_ARITY, zero);
    poseidon_hash_gadget(cs, &column)
}

fn alloc_siblings<CS: ConstraintSystem>(cs: &mut CS, levels: &[Vec<Scalar>]) -> Vec<[AllocatedNum; 7]> {
    levels.iter().map(|l| std::array::from_fn(|j| AllocatedNum::alloc(cs, l[j]))).collect()
}
