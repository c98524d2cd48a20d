//! The native side of the PoRep sample: a seeded sector's trees, labels and challenge openings.

use std::collections::BTreeSet;

use blstrs::Scalar;
use sha2::{Digest, Sha256};

use super::sample::{LabelHash, PorepKnobs, PorepLayout};
use super::seeded;
use super::sparse_tree::SparseTree;
use crate::gadgets::poseidon::poseidon_hash;

/// Column hash arity: Filecoin hashes the 11 layer labels of a node with Poseidon-11; fewer layers are padded
/// with zeros.
pub const COLUMN_ARITY: usize = 11;
/// Inputs absorbed per Poseidon-11 call when labeling with the Poseidon stand-in (one slot carries the chain).
pub const LABEL_CHUNK: usize = COLUMN_ARITY - 1;
/// Parent labels a stacked label hashes: Filecoin repeats the 6 + 8 parents (or layer 1's 6) to 37.
pub const EXPANDED_PARENTS: usize = 37;

/// Everything one challenge opens.
#[derive(Clone, Debug)]
pub struct ChallengeWitness {
    /// The challenged node.
    pub node: u64,
    /// The data (unsealed) node.
    pub data: Scalar,
    /// Parent labels per layer (base parents, then expander parents after layer 1).
    pub parents: Vec<Vec<Scalar>>,
    /// Stacked layout: the parents' openings in tree_c, base parents then expander parents (empty when
    /// compact).
    pub parent_columns: Vec<ParentColumn>,
    /// The node's label on each layer (native, for checking).
    pub labels: Vec<Scalar>,
    /// tree_d siblings per level (binary).
    pub tree_d: Vec<Scalar>,
    /// tree_c siblings per level (7 each).
    pub tree_c: Vec<Vec<Scalar>>,
    /// tree_r_last siblings per level (7 each).
    pub tree_r: Vec<Vec<Scalar>>,
}

/// A parent's column as a stacked challenge opens it: its node, its label on every layer, its tree_c path.
#[derive(Clone, Debug)]
pub struct ParentColumn {
    /// The parent node.
    pub node: u64,
    /// Its label on layers 1..=layers.
    pub labels: Vec<Scalar>,
    /// tree_c siblings per level (7 each).
    pub tree_c: Vec<Vec<Scalar>>,
}

/// One sector's public values and every challenge's openings, partition by partition.
#[derive(Clone, Debug)]
pub struct SectorWitness {
    /// Replica id (public input).
    pub replica_id: Scalar,
    /// Root of tree_d (public input).
    pub comm_d: Scalar,
    /// Root of tree_c.
    pub comm_c: Scalar,
    /// Root of tree_r_last.
    pub comm_r_last: Scalar,
    /// Poseidon-2(comm_c, comm_r_last) (public input).
    pub comm_r: Scalar,
    /// Challenges per partition.
    pub partitions: Vec<Vec<ChallengeWitness>>,
}

/// Bytes of a field element as SHA-256 sees it (little-endian limbs, as Filecoin serializes Fr).
fn le(s: &Scalar) -> [u8; 32] {
    s.to_bytes_le()
}

/// The SHA-256 tree_d node hash: SHA-256 of left‖right, truncated to 254 bits.
pub fn tree_d_sha(left: &Scalar, right: &Scalar) -> Scalar {
    let mut h = Sha256::new();
    h.update(le(left));
    h.update(le(right));
    seeded::fr_from_safe(h.finalize().into())
}

/// `parents` repeated in order to [`EXPANDED_PARENTS`], as Filecoin's labeling reads them (none stay none).
pub fn expand_parents<T: Clone>(parents: &[T]) -> Vec<T> {
    parents.iter().cycle().take(if parents.is_empty() { 0 } else { EXPANDED_PARENTS }).cloned().collect()
}

/// The label of `node` on `layer` from its parents' labels, as the layout hashes them.
pub fn label(k: &PorepKnobs, replica_id: &Scalar, layer: usize, node: u64, parents: &[Scalar]) -> Scalar {
    match (k.layout, k.hash) {
        (PorepLayout::Compact, hash) => label_compact(hash, replica_id, layer, node, parents),
        (PorepLayout::Stacked, LabelHash::Sha256) => {
            // replica_id ‖ layer (u32 BE) ‖ node (u64 BE) ‖ zeros to 64 bytes ‖ 37 parents.
            let mut h = Sha256::new();
            h.update(le(replica_id));
            h.update((layer as u32).to_be_bytes());
            h.update(node.to_be_bytes());
            h.update([0u8; 20]);
            for p in expand_parents(parents) {
                h.update(le(&p));
            }
            seeded::fr_from_safe(h.finalize().into())
        }
        (PorepLayout::Stacked, LabelHash::Poseidon) => {
            label_compact(LabelHash::Poseidon, replica_id, layer, node, &expand_parents(parents))
        }
    }
}

/// The compact layout's label: each parent hashed once, no header padding.
fn label_compact(
    hash: LabelHash,
    replica_id: &Scalar,
    layer: usize,
    node: u64,
    parents: &[Scalar],
) -> Scalar {
    match hash {
        LabelHash::Sha256 => {
            let mut h = Sha256::new();
            h.update(le(replica_id));
            h.update((layer as u32).to_be_bytes());
            h.update(node.to_be_bytes());
            for p in parents {
                h.update(le(p));
            }
            seeded::fr_from_safe(h.finalize().into())
        }
        LabelHash::Poseidon => {
            let mut inputs = vec![*replica_id, Scalar::from(layer as u64), Scalar::from(node)];
            inputs.extend_from_slice(parents);
            poseidon_chain(&inputs)
        }
    }
}

/// Poseidon-11 over a sequence: each call absorbs `LABEL_CHUNK` inputs plus the previous output.
pub fn poseidon_chain(inputs: &[Scalar]) -> Scalar {
    let mut acc = Scalar::from(0u64);
    for chunk in inputs.chunks(LABEL_CHUNK) {
        let mut block = vec![acc];
        block.extend_from_slice(chunk);
        block.resize(COLUMN_ARITY, Scalar::from(0u64));
        acc = poseidon_hash(COLUMN_ARITY, &block);
    }
    acc
}

/// The column hash of a node: Poseidon-11 over its labels, zero-padded.
pub fn column_hash(labels: &[Scalar]) -> Scalar {
    let mut col = labels.to_vec();
    col.resize(COLUMN_ARITY, Scalar::from(0u64));
    poseidon_hash(COLUMN_ARITY, &col)
}

/// Parents a label on `layer` (1-based) hashes.
pub fn parents_on_layer(k: &PorepKnobs, layer: usize) -> usize {
    k.base_parents + if layer > 1 { k.expander_parents } else { 0 }
}

impl SectorWitness {
    /// Builds sector `sector` of a sample: its challenges for every partition and the trees they open.
    pub fn build(k: &PorepKnobs, seed: u64, sector: u64, partitions: usize) -> Self {
        let s = seeded::u64_of(seed, "sector", sector, 0);
        let nodes = 1u64 << k.nodes_log2;
        let replica_id = seeded::scalar(s, "replica-id", 0, 0);
        let nodes_of: Vec<Vec<u64>> = (0..partitions)
            .map(|p| {
                (0..k.challenges)
                    .map(|c| seeded::u64_of(s, "challenge", p as u64, c as u64) % nodes)
                    .collect()
            })
            .collect();
        let opened: BTreeSet<u64> = nodes_of.iter().flatten().copied().collect();
        let mut chals: Vec<Vec<ChallengeWitness>> = nodes_of
            .iter()
            .map(|part| {
                part.iter()
                    .map(|&node| {
                        let data = seeded::scalar(s, "data", node, 0);
                        let (parents, parent_columns) = match k.layout {
                            PorepLayout::Compact => (compact_parents(k, s, node), vec![]),
                            PorepLayout::Stacked => stacked_parents(k, s, node, &opened),
                        };
                        let labels: Vec<Scalar> =
                            (1..=k.layers).map(|l| label(k, &replica_id, l, node, &parents[l - 1])).collect();
                        ChallengeWitness {
                            node,
                            data,
                            parents,
                            parent_columns,
                            labels,
                            tree_d: vec![],
                            tree_c: vec![],
                            tree_r: vec![],
                        }
                    })
                    .collect()
            })
            .collect();
        let all: Vec<&ChallengeWitness> = chals.iter().flatten().collect();
        let opaque =
            |tag: &'static str| move |level: usize, idx: u64| seeded::scalar(s, tag, level as u64, idx);
        let tree_d = match k.hash {
            LabelHash::Sha256 => SparseTree::build(
                2,
                k.nodes_log2,
                &all.iter().map(|c| (c.node, c.data)).collect::<Vec<_>>(),
                opaque("tree-d"),
                |ch| tree_d_sha(&ch[0], &ch[1]),
            ),
            LabelHash::Poseidon => SparseTree::build(
                2,
                k.nodes_log2,
                &all.iter().map(|c| (c.node, c.data)).collect::<Vec<_>>(),
                opaque("tree-d"),
                |ch| poseidon_hash(2, ch),
            ),
        };
        let h8 = k.nodes_log2 / 3;
        let columns = all.iter().flat_map(|c| {
            std::iter::once((c.node, &c.labels)).chain(c.parent_columns.iter().map(|p| (p.node, &p.labels)))
        });
        let tree_c = SparseTree::build(
            8,
            h8,
            &columns.map(|(node, labels)| (node, column_hash(labels))).collect::<Vec<_>>(),
            opaque("tree-c"),
            |ch| poseidon_hash(8, ch),
        );
        let tree_r = SparseTree::build(
            8,
            h8,
            &all.iter().map(|c| (c.node, replica_node(c))).collect::<Vec<_>>(),
            opaque("tree-r"),
            |ch| poseidon_hash(8, ch),
        );
        for c in chals.iter_mut().flatten() {
            c.tree_d = tree_d.siblings(c.node).into_iter().flatten().collect();
            c.tree_c = tree_c.siblings(c.node);
            for p in &mut c.parent_columns {
                p.tree_c = tree_c.siblings(p.node);
            }
            c.tree_r = tree_r.siblings(c.node);
        }
        let (comm_c, comm_r_last) = (tree_c.root(), tree_r.root());
        SectorWitness {
            replica_id,
            comm_d: tree_d.root(),
            comm_c,
            comm_r_last,
            comm_r: poseidon_hash(2, &[comm_c, comm_r_last]),
            partitions: chals,
        }
    }
}

/// The compact layout's parent labels per layer: free seeded values.
fn compact_parents(k: &PorepKnobs, s: u64, node: u64) -> Vec<Vec<Scalar>> {
    (1..=k.layers)
        .map(|l| {
            (0..parents_on_layer(k, l))
                .map(|j| seeded::scalar(s, "parent-label", node, (l * 16 + j) as u64))
                .collect()
        })
        .collect()
}

/// The stacked layout's parent columns (seeded nodes no challenge opens, seeded labels) and the labels each
/// layer reads from them: base parents on the same layer, expander parents on the one before.
fn stacked_parents(
    k: &PorepKnobs,
    s: u64,
    node: u64,
    opened: &BTreeSet<u64>,
) -> (Vec<Vec<Scalar>>, Vec<ParentColumn>) {
    let nodes = 1u64 << k.nodes_log2;
    let columns: Vec<ParentColumn> = (0..k.base_parents + k.expander_parents)
        .map(|j| {
            // Step past opened nodes: the sample's load check leaves at least one unopened node.
            let start = seeded::u64_of(s, "parent", node, j as u64) % nodes;
            let parent =
                (0..nodes).map(|d| (start + d) % nodes).find(|p| !opened.contains(p)).unwrap_or(start);
            let labels =
                (1..=k.layers).map(|l| seeded::scalar(s, "column-label", parent, l as u64)).collect();
            ParentColumn { node: parent, labels, tree_c: vec![] }
        })
        .collect();
    let (base, exp) = columns.split_at(k.base_parents);
    let parents = (1..=k.layers)
        .map(|l| {
            let mut v: Vec<Scalar> = base.iter().map(|c| c.labels[l - 1]).collect();
            if l > 1 {
                v.extend(exp.iter().map(|c| c.labels[l - 2]));
            }
            v
        })
        .collect();
    (parents, columns)
}

/// The sealed node: data + key, the key being the last layer's label.
pub fn replica_node(c: &ChallengeWitness) -> Scalar {
    c.data + c.labels.last().copied().unwrap_or(Scalar::from(0u64))
}
