//! Merkle trees: native builders and inclusion gadgets for 8-ary and binary Poseidon trees (Filecoin's tree_c and
//! tree_r_last are 8-ary), plus the bit-vector swap a binary SHA-256 tree (tree_d) needs.
//!
//! A tree is kept as its levels: `levels[0]` the leaves, `levels.last()` the single root. A path lists, for
//! each level from the leaves up, the siblings of the node on the way to the root, in order with that node
//! left out. Index bits are little-endian: for arity 2^h, level `l` uses bits `h·l .. h·(l+1)`, which give the
//! node's position among its siblings.
//!
//! Constraints per level (index bits are allocated by the caller and not counted):
//! - 8-ary: 18 to insert the node among its 7 siblings ([`insert_8`]) + 385 for Poseidon-8 = 403;
//! - binary: 1 to order the pair + 235 for Poseidon-2 = 236.

use blstrs::Scalar;
use ff::Field;
use rayon::prelude::*;

use crate::cs::{ConstraintSystem, Lc, LinearCombination, TermStore, Variable};
use crate::gadgets::boolean::Boolean;
use crate::gadgets::num::{AllocatedNum, LcValue};
use crate::gadgets::poseidon::{poseidon_hash_2, poseidon_hash_8, poseidon_hash_gadget};

/// Levels with fewer nodes than this are hashed on the calling thread (rayon's overhead would dominate).
const PAR_MIN_NODES: usize = 256;

/// Builds an 8-ary Poseidon tree (the tree_c / tree_r_last shape) and returns its levels, leaves first.
///
/// # Panics
/// If the number of leaves is not a power of 8 (1, 8, 64, ...): tree sizes are fixed by the circuit shape,
/// so callers validate configured sizes before building (programmer error here).
pub fn build_tree_8(leaves: &[Scalar]) -> Vec<Vec<Scalar>> {
    build_tree::<8>(leaves, poseidon_hash_8)
}

/// Builds a binary Poseidon tree and returns its levels, leaves first.
///
/// # Panics
/// If the number of leaves is not a power of 2 (programmer error, as for [`build_tree_8`]).
pub fn build_tree_2(leaves: &[Scalar]) -> Vec<Vec<Scalar>> {
    build_tree::<2>(leaves, poseidon_hash_2)
}

/// The siblings of leaf `index` in an 8-ary tree, one group of 7 per level from the leaves up.
///
/// # Panics
/// If `index` is not a leaf of `levels` or `levels` is not an 8-ary tree (programmer error).
pub fn path_8(levels: &[Vec<Scalar>], index: usize) -> Vec<[Scalar; 7]> {
    path::<8, 7>(levels, index)
}

/// The sibling of leaf `index` in a binary tree at each level from the leaves up.
///
/// # Panics
/// If `index` is not a leaf of `levels` or `levels` is not a binary tree (programmer error).
pub fn path_2(levels: &[Vec<Scalar>], index: usize) -> Vec<Scalar> {
    path::<2, 1>(levels, index).into_iter().map(|[s]| s).collect()
}

fn build_tree<const A: usize>(leaves: &[Scalar], hash: fn(&[Scalar; A]) -> Scalar) -> Vec<Vec<Scalar>> {
    let mut n = leaves.len();
    while n > 1 && n.is_multiple_of(A) {
        n /= A;
    }
    assert!(n == 1 && !leaves.is_empty(), "build_tree: {} leaves is not a power of {A}", leaves.len());
    let mut levels = vec![leaves.to_vec()];
    while let Some(level) = levels.last().filter(|l| l.len() > 1) {
        let (groups, _) = level.as_chunks::<A>();
        let next: Vec<Scalar> = if level.len() >= PAR_MIN_NODES {
            groups.par_iter().map(hash).collect()
        } else {
            groups.iter().map(hash).collect()
        };
        levels.push(next);
    }
    levels
}

fn path<const A: usize, const S: usize>(levels: &[Vec<Scalar>], index: usize) -> Vec<[Scalar; S]> {
    debug_assert_eq!(S + 1, A);
    let leaves = levels.first().map_or(0, Vec::len);
    assert!(index < leaves, "path: index {index} out of a tree of {leaves} leaves");
    let mut idx = index;
    let mut out = Vec::with_capacity(levels.len().saturating_sub(1));
    for level in &levels[..levels.len() - 1] {
        let start = idx - idx % A;
        assert!(start + A <= level.len(), "path: level of {} nodes is not {A}-ary", level.len());
        let mut sibs = [Scalar::ZERO; S];
        let others = level[start..start + A].iter().enumerate().filter(|(k, _)| start + k != idx);
        for (s, (_, v)) in sibs.iter_mut().zip(others) {
            *s = *v;
        }
        out.push(sibs);
        idx /= A;
    }
    out
}

/// The root of an 8-ary Poseidon tree from a leaf, its index bits (3 per level, little-endian) and its path:
/// equal to the native root exactly when the path is right. 403 constraints per level.
///
/// # Panics
/// If `index_bits.len() != 3 · siblings.len()` (programmer error: both follow from the tree height).
pub fn root_8<CS: ConstraintSystem>(
    cs: &mut CS,
    leaf: &AllocatedNum,
    index_bits: &[Boolean],
    siblings: &[[AllocatedNum; 7]],
) -> AllocatedNum {
    assert_eq!(index_bits.len(), 3 * siblings.len(), "root_8: 3 index bits per level");
    let mut cur = *leaf;
    for (bits, sibs) in index_bits.chunks_exact(3).zip(siblings) {
        let node = insert_8(cs, &cur, [&bits[0], &bits[1], &bits[2]], sibs);
        cur = poseidon_hash_gadget(cs, &node);
    }
    cur
}

/// The root of a binary Poseidon tree from a leaf, its index bits (1 per level) and its path. 236
/// constraints per level.
///
/// # Panics
/// If `index_bits.len() != siblings.len()` (programmer error).
pub fn root_2<CS: ConstraintSystem>(
    cs: &mut CS,
    leaf: &AllocatedNum,
    index_bits: &[Boolean],
    siblings: &[AllocatedNum],
) -> AllocatedNum {
    assert_eq!(index_bits.len(), siblings.len(), "root_2: 1 index bit per level");
    let mut cur = *leaf;
    for (bit, sib) in index_bits.iter().zip(siblings) {
        // t = b·(sib − cur); (left, right) = (cur + t, sib − t): (cur, sib) when b = 0, (sib, cur) when 1.
        let t_value = if bit.value() { sib.value() - cur.value() } else { Scalar::ZERO };
        let t = cs.alloc(t_value);
        cs.enforce(
            |lc| bit.add_to(lc, CS::one(), Scalar::ONE),
            |lc| lc + sib.variable() - cur.variable(),
            |lc| lc + t,
        );
        let left = Shifted { base: cur.variable(), delta: t, negate: false, value: cur.value() + t_value };
        let right = Shifted { base: sib.variable(), delta: t, negate: true, value: sib.value() - t_value };
        cur = poseidon_hash_gadget(cs, &[left, right]);
    }
    cur
}

/// `base ± delta` without a variable of its own: the ordered pair of a binary level costs 1 constraint.
struct Shifted {
    base: Variable,
    delta: Variable,
    negate: bool,
    value: Scalar,
}

impl<S: TermStore> LcValue<S> for Shifted {
    #[inline]
    fn value(&self) -> Scalar {
        self.value
    }

    #[inline]
    fn push_scaled(&self, lc: &mut LinearCombination<S>, coeff: Scalar) {
        lc.push(self.base, coeff);
        lc.push(self.delta, if self.negate { -coeff } else { coeff });
    }
}

/// The 8 children of a node with `cur` at position `b0 + 2·b1 + 4·b2` and `siblings` filling the other slots
/// in order: the preimage an 8-ary level hashes. 18 constraints.
///
/// The one-hot position indicators are linear in the monomials 1, b0, b1, b2, b0b1, b0b2, b1b2, b0b1b2 (4
/// products). Slot j holds `siblings[j−1]` before the position, `cur` at it, `siblings[j]` after it; the end
/// slots are a single product each, the six middle ones two.
pub fn insert_8<CS: ConstraintSystem>(
    cs: &mut CS,
    cur: &AllocatedNum,
    bits: [&Boolean; 3],
    siblings: &[AllocatedNum; 7],
) -> [AllocatedNum; 8] {
    let one = CS::one();
    let b = |k: usize| Monomial::Bit(*bits[k]);
    let prod = |cs: &mut CS, x: &Monomial, y: &Monomial| {
        let var = cs.alloc(if x.value() && y.value() { Scalar::ONE } else { Scalar::ZERO });
        cs.enforce(|lc| x.add_to(lc, one, Scalar::ONE), |lc| y.add_to(lc, one, Scalar::ONE), |lc| lc + var);
        Monomial::Var(var, x.value() && y.value())
    };
    let b01 = prod(cs, &b(0), &b(1));
    let b02 = prod(cs, &b(0), &b(2));
    let b12 = prod(cs, &b(1), &b(2));
    let b012 = prod(cs, &b01, &b(2));
    // Indexed by the set of bits multiplied (bit k of the index ↔ b_k).
    let monos = [Monomial::One, b(0), b(1), b01, b(2), b02, b12, b012];
    let indicator = |lc: Lc<CS>, coeffs: &[i8; 8]| add_indicator(lc, coeffs, &monos, one);

    let pos = bits.iter().enumerate().fold(0, |acc, (k, bit)| acc | (usize::from(bit.value()) << k));
    let slot_value = |j: usize| match j.cmp(&pos) {
        std::cmp::Ordering::Less => siblings[j].value(),
        std::cmp::Ordering::Equal => cur.value(),
        std::cmp::Ordering::Greater => siblings[j - 1].value(),
    };
    let (c, s) = (cur.variable(), |k: usize| siblings[k].variable());

    let mut slots = [*cur; 8];
    for (j, slot) in slots.iter_mut().enumerate() {
        *slot = AllocatedNum::alloc(cs, slot_value(j));
        let out = slot.variable();
        match j {
            // slot_0 = s_0 + e_0·(cur − s_0); slot_7 = s_6 + e_7·(cur − s_6)
            0 | 7 => {
                let base = s(j.min(6));
                cs.enforce(|lc| indicator(lc, &EQ[j]), |lc| lc + c - base, |lc| lc + out - base);
            }
            // p = e_j·(cur − s_{j−1}); slot_j = s_{j−1} + p + g_j·(s_j − s_{j−1})
            _ => {
                let p_value = if pos == j { cur.value() - siblings[j - 1].value() } else { Scalar::ZERO };
                let p = cs.alloc(p_value);
                cs.enforce(|lc| indicator(lc, &EQ[j]), |lc| lc + c - s(j - 1), |lc| lc + p);
                cs.enforce(
                    |lc| indicator(lc, &GT[j]),
                    |lc| lc + s(j) - s(j - 1),
                    |lc| lc + out - s(j - 1) - p,
                );
            }
        }
    }
    slots
}

/// A product of index bits: the constant 1, one bit, or an allocated product with its value.
enum Monomial {
    One,
    Bit(Boolean),
    Var(Variable, bool),
}

impl Monomial {
    fn value(&self) -> bool {
        match self {
            Monomial::One => true,
            Monomial::Bit(b) => b.value(),
            Monomial::Var(_, v) => *v,
        }
    }

    fn add_to<S: TermStore>(
        &self,
        lc: LinearCombination<S>,
        one: Variable,
        coeff: Scalar,
    ) -> LinearCombination<S> {
        match self {
            Monomial::One => lc + (coeff, one),
            Monomial::Bit(b) => b.add_to(lc, one, coeff),
            Monomial::Var(v, _) => lc + (coeff, *v),
        }
    }
}

/// Adds `Σ coeffs[T] · monomial_T` to `lc`.
fn add_indicator<S: TermStore>(
    mut lc: LinearCombination<S>,
    coeffs: &[i8; 8],
    monos: &[Monomial; 8],
    one: Variable,
) -> LinearCombination<S> {
    for (&k, m) in coeffs.iter().zip(monos) {
        if k != 0 {
            let mag = Scalar::from(u64::from(k.unsigned_abs()));
            lc = m.add_to(lc, one, if k < 0 { -mag } else { mag });
        }
    }
    lc
}

/// Multilinear coefficients of the indicator of a set of positions (bit p of `set` ↔ position p): the
/// coefficient of monomial T is Σ over positions p ⊆ T in the set of (−1)^(|T|−|p|).
const fn indicator_coeffs(set: u8) -> [i8; 8] {
    let mut out = [0i8; 8];
    let mut t = 0;
    while t < 8 {
        let mut p = 0;
        while p < 8 {
            if set & (1 << p) != 0 && p & !t == 0 {
                let sign = ((t as u32).count_ones() - (p as u32).count_ones()) % 2;
                out[t] += if sign == 0 { 1 } else { -1 };
            }
            p += 1;
        }
        t += 1;
    }
    out
}

const fn indicator_table(gt: bool) -> [[i8; 8]; 8] {
    let mut out = [[0i8; 8]; 8];
    let mut j = 0;
    while j < 8 {
        // {j}, or {p : p > j}
        let set = if gt { ((0xffu16 << (j + 1)) & 0xff) as u8 } else { 1u8 << j };
        out[j] = indicator_coeffs(set);
        j += 1;
    }
    out
}

/// `EQ[j]`: indicator of position = j.
const EQ: [[i8; 8]; 8] = indicator_table(false);
/// `GT[j]`: indicator of position > j.
const GT: [[i8; 8]; 8] = indicator_table(true);

/// Swaps two equal-length bit vectors when `condition` is true: orders a node and its sibling before a
/// binary SHA-256 tree (tree_d) hashes `left ‖ right`.
///
/// 2 constraints per bit position, each output bit being the one-constraint mux `c ? y : x`
/// ([`Boolean::sha256_ch`]); none where the two bits are the same bit or equal constants, none at all when the
/// condition is constant.
///
/// # Panics
/// If `a.len() != b.len()` (programmer error).
pub fn conditionally_swap_bits<CS: ConstraintSystem>(
    cs: &mut CS,
    a: &[Boolean],
    b: &[Boolean],
    condition: &Boolean,
) -> (Vec<Boolean>, Vec<Boolean>) {
    assert_eq!(a.len(), b.len(), "conditionally_swap_bits: lengths differ");
    let mut left = Vec::with_capacity(a.len());
    let mut right = Vec::with_capacity(b.len());
    for (x, y) in a.iter().zip(b) {
        if same_bit(x, y) {
            left.push(*x);
            right.push(*y);
        } else {
            left.push(Boolean::sha256_ch(cs, condition, y, x));
            right.push(Boolean::sha256_ch(cs, condition, x, y));
        }
    }
    (left, right)
}

/// Whether two booleans are the same bit (swapping them changes nothing).
fn same_bit(x: &Boolean, y: &Boolean) -> bool {
    match (x, y) {
        (Boolean::Constant(p), Boolean::Constant(q)) => p == q,
        (Boolean::Is(p), Boolean::Is(q)) | (Boolean::Not(p), Boolean::Not(q)) => p.variable() == q.variable(),
        _ => false,
    }
}
