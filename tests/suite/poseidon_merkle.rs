//! Field numbers, Poseidon and Merkle inclusion gadgets against neptune's native Poseidon and the native tree
//! builders, on seeded random data.
//!
//! Constraints per Poseidon hash (gadget, output allocated): arity 2: 235, arity 8: 385, arity 11: 457.
//! Constraints per Merkle level: 8-ary 403 (18 insertion + 385 hash), binary 236 (1 ordering + 235 hash),
//! index bits not counted.

use blstrs::Scalar;
use cuzk::cs::{
    Circuit, ConstraintSystem, MatrixRecorder, ProvingAssignment, ShapeCounter, SmallStore, SynthesisError,
    VecStore,
};
use cuzk::gadgets::boolean::Boolean;
use cuzk::gadgets::merkle::{
    build_tree_2, build_tree_8, conditionally_swap_bits, path_2, path_8, root_2, root_8,
};
use cuzk::gadgets::num::{AllocatedNum, Num};
use cuzk::gadgets::poseidon::{
    poseidon_constraints, poseidon_hash, poseidon_hash_11, poseidon_hash_2, poseidon_hash_8,
    poseidon_hash_gadget,
};
use ff::{Field, PrimeField};
use neptune::poseidon::{Arity, HashMode, Poseidon, PoseidonConstants};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use typenum::{U11, U2, U8};

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn random_scalars(rng: &mut ChaCha8Rng, n: usize) -> Vec<Scalar> {
    (0..n).map(|_| Scalar::random(&mut *rng)).collect()
}

/// Hashes its inputs in the circuit and exposes the digest as public input 1.
struct HashCircuit {
    inputs: Vec<Scalar>,
}

impl Circuit for HashCircuit {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let nums: Vec<AllocatedNum> = self.inputs.iter().map(|v| AllocatedNum::alloc(cs, *v)).collect();
        poseidon_hash_gadget(cs, &nums).inputize(cs);
        Ok(())
    }
}

/// The gadget against neptune's native hash (both the optimized default and the textbook mode).
fn check_poseidon<A: Arity<Scalar>>(seed: u64) {
    let arity = A::to_usize();
    let constants = PoseidonConstants::<Scalar, A>::new();
    let mut rng = rng(seed);
    for trial in 0..4 {
        let inputs = random_scalars(&mut rng, arity);
        let expected = Poseidon::<Scalar, A>::new_with_preimage(&inputs, &constants).hash();
        let textbook =
            Poseidon::<Scalar, A>::new_with_preimage(&inputs, &constants).hash_in_mode(HashMode::Correct);
        assert_eq!(expected, textbook);
        assert_eq!(poseidon_hash(arity, &inputs), expected, "native wrapper, arity {arity}");

        let circuit = HashCircuit { inputs };
        let rec = MatrixRecorder::record(&circuit).expect("record");
        assert!(rec.unsatisfied().is_empty(), "arity {arity}: unsatisfied {:?}", rec.unsatisfied());
        assert_eq!(rec.inputs[1], expected, "arity {arity}, trial {trial}");
        let per_hash = rec.shape().constraints - 1; // minus inputize
        assert_eq!(per_hash, poseidon_constraints(arity));
        let (t, rf, rp) = (arity + 1, constants.full_rounds, constants.partial_rounds);
        assert_eq!(per_hash, 3 * (t * rf + rp - 1) + 1);
        assert_eq!(ShapeCounter::count(&circuit).expect("count"), rec.shape());
        if trial == 0 {
            println!("poseidon arity {arity}: {per_hash} constraints per hash ({} aux)", rec.shape().aux);
        }
    }
}

#[test]
fn poseidon_gadget_matches_neptune_arity_2() {
    check_poseidon::<U2>(2);
    assert_eq!(poseidon_constraints(2), 235);
}

#[test]
fn poseidon_gadget_matches_neptune_arity_8() {
    check_poseidon::<U8>(8);
    assert_eq!(poseidon_constraints(8), 385);
}

#[test]
fn poseidon_gadget_matches_neptune_arity_11() {
    check_poseidon::<U11>(11);
    assert_eq!(poseidon_constraints(11), 457);
}

#[test]
fn poseidon_typed_natives_agree() {
    let mut rng = rng(3);
    let v = random_scalars(&mut rng, 11);
    assert_eq!(poseidon_hash_2(&[v[0], v[1]]), poseidon_hash(2, &v[..2]));
    let v8: [Scalar; 8] = std::array::from_fn(|i| v[i]);
    assert_eq!(poseidon_hash_8(&v8), poseidon_hash(8, &v[..8]));
    let v11: [Scalar; 11] = std::array::from_fn(|i| v[i]);
    assert_eq!(poseidon_hash_11(&v11), poseidon_hash(11, &v));
    assert_ne!(poseidon_hash(2, &v[..2]), poseidon_hash(2, &v[1..3]));
}

#[test]
fn poseidon_every_tampered_witness_fails() {
    let mut rng = rng(4);
    let mut rec =
        MatrixRecorder::record(&HashCircuit { inputs: random_scalars(&mut rng, 2) }).expect("record");
    assert!(rec.unsatisfied().is_empty());
    for i in 0..rec.aux.len() {
        assert!(tampered_aux_fails(&mut rec, i), "aux {i} is unconstrained");
    }
    rec.inputs[1] += Scalar::ONE;
    assert!(!rec.unsatisfied().is_empty(), "public digest is unconstrained");
}

/// Whether adding one to aux value `i` breaks some constraint (the witness is restored afterwards).
fn tampered_aux_fails(rec: &mut MatrixRecorder, i: usize) -> bool {
    rec.aux[i] += Scalar::ONE;
    let fails = !rec.unsatisfied().is_empty();
    rec.aux[i] -= Scalar::ONE;
    fails
}

/// Proves that `leaf` sits at `index` of an 8-ary tree: index bits from an allocated number, root exposed.
struct Merkle8Circuit {
    leaf: Scalar,
    index: u64,
    path: Vec<[Scalar; 7]>,
}

impl Circuit for Merkle8Circuit {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let leaf = AllocatedNum::alloc(cs, self.leaf);
        let bits = AllocatedNum::alloc(cs, Scalar::from(self.index)).to_bits_le(cs, 3 * self.path.len());
        let sibs: Vec<[AllocatedNum; 7]> =
            self.path.iter().map(|group| group.map(|s| AllocatedNum::alloc(cs, s))).collect();
        root_8(cs, &leaf, &bits, &sibs).inputize(cs);
        Ok(())
    }
}

/// Proves that `leaf` sits at `index` of a binary tree.
struct Merkle2Circuit {
    leaf: Scalar,
    index: u64,
    path: Vec<Scalar>,
}

impl Circuit for Merkle2Circuit {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let leaf = AllocatedNum::alloc(cs, self.leaf);
        let bits = AllocatedNum::alloc(cs, Scalar::from(self.index)).to_bits_le(cs, self.path.len());
        let sibs: Vec<AllocatedNum> = self.path.iter().map(|s| AllocatedNum::alloc(cs, *s)).collect();
        root_2(cs, &leaf, &bits, &sibs).inputize(cs);
        Ok(())
    }
}

/// The root a circuit exposes, after checking every constraint holds.
fn proved_root<C: Circuit>(c: &C) -> Scalar {
    let rec = MatrixRecorder::record(c).expect("record");
    assert!(rec.unsatisfied().is_empty(), "unsatisfied rows {:?}", rec.unsatisfied());
    rec.inputs[1]
}

#[test]
fn native_trees_hash_their_children() {
    let mut rng = rng(5);
    let leaves = random_scalars(&mut rng, 64);
    let t8 = build_tree_8(&leaves);
    assert_eq!(t8.iter().map(Vec::len).collect::<Vec<_>>(), vec![64, 8, 1]);
    for (k, node) in t8[1].iter().enumerate() {
        assert_eq!(*node, poseidon_hash(8, &leaves[8 * k..8 * k + 8]));
    }
    assert_eq!(t8[2][0], poseidon_hash(8, &t8[1]));
    let t2 = build_tree_2(&leaves[..16]);
    assert_eq!(t2.iter().map(Vec::len).collect::<Vec<_>>(), vec![16, 8, 4, 2, 1]);
    assert_eq!(t2[4][0], poseidon_hash(2, &t2[3]));
    assert_eq!(t2[1][3], poseidon_hash(2, &leaves[6..8]));
    // Paths leave the node out and keep the order.
    let p = path_8(&t8, 13);
    assert_eq!(p[0], [leaves[8], leaves[9], leaves[10], leaves[11], leaves[12], leaves[14], leaves[15]]);
    assert_eq!(p[1], [t8[1][0], t8[1][2], t8[1][3], t8[1][4], t8[1][5], t8[1][6], t8[1][7]]);
    assert_eq!(path_2(&t2, 5), vec![leaves[4], t2[1][3], t2[2][0], t2[3][1]]);
}

#[test]
fn merkle_8_gadget_root_matches_native_at_every_index() {
    let mut rng = rng(6);
    let leaves = random_scalars(&mut rng, 64);
    let levels = build_tree_8(&leaves);
    let root = levels[2][0];
    for (index, leaf) in leaves.iter().enumerate() {
        let c = Merkle8Circuit { leaf: *leaf, index: index as u64, path: path_8(&levels, index) };
        assert_eq!(proved_root(&c), root, "index {index}");
        if index == 0 {
            // leaf alloc, index alloc, 6 bits + packing, 14 siblings, 2 levels, inputize
            let shape = ShapeCounter::count(&c).expect("count");
            assert_eq!(shape.constraints, 6 + 1 + 2 * 403 + 1);
            println!("8-ary Merkle: 403 constraints per level ({} for a 2-level path)", shape.constraints);
        }
    }
}

#[test]
fn merkle_8_wrong_sibling_or_index_changes_root() {
    let mut rng = rng(7);
    let leaves = random_scalars(&mut rng, 64);
    let levels = build_tree_8(&leaves);
    let root = levels[2][0];
    let index = 43;
    let path = path_8(&levels, index);
    for level in 0..2 {
        for k in 0..7 {
            let mut bad = path.clone();
            bad[level][k] += Scalar::ONE;
            let c = Merkle8Circuit { leaf: leaves[index], index: index as u64, path: bad };
            assert_ne!(proved_root(&c), root, "sibling {k} of level {level}");
        }
    }
    for bit in 0..6 {
        let c =
            Merkle8Circuit { leaf: leaves[index], index: (index ^ (1 << bit)) as u64, path: path.clone() };
        assert_ne!(proved_root(&c), root, "index bit {bit}");
    }
    let c = Merkle8Circuit { leaf: leaves[index] + Scalar::ONE, index: index as u64, path };
    assert_ne!(proved_root(&c), root, "wrong leaf");
}

#[test]
fn merkle_8_tampered_slot_fails() {
    let mut rng = rng(8);
    let leaves = random_scalars(&mut rng, 64);
    let levels = build_tree_8(&leaves);
    let c = Merkle8Circuit { leaf: leaves[21], index: 21, path: path_8(&levels, 21) };
    let mut rec = MatrixRecorder::record(&c).expect("record");
    assert!(rec.unsatisfied().is_empty());
    // Aux layout: leaf, index, 6 bits, 14 siblings, then level 0's insertion (4 products, 8 slots, 6 partial
    // products) and hash.
    for i in 0..22 + 18 {
        assert!(tampered_aux_fails(&mut rec, i), "aux {i} is unconstrained");
    }
}

#[test]
fn merkle_2_gadget_root_matches_native_at_every_index() {
    let mut rng = rng(9);
    let leaves = random_scalars(&mut rng, 16);
    let levels = build_tree_2(&leaves);
    let root = levels[4][0];
    for (index, leaf) in leaves.iter().enumerate() {
        let c = Merkle2Circuit { leaf: *leaf, index: index as u64, path: path_2(&levels, index) };
        assert_eq!(proved_root(&c), root, "index {index}");
        if index == 0 {
            let shape = ShapeCounter::count(&c).expect("count");
            assert_eq!(shape.constraints, 4 + 1 + 4 * 236 + 1);
            println!("binary Merkle: 236 constraints per level ({} for a 4-level path)", shape.constraints);
        }
    }
}

#[test]
fn merkle_2_wrong_sibling_or_index_changes_root() {
    let mut rng = rng(10);
    let leaves = random_scalars(&mut rng, 16);
    let levels = build_tree_2(&leaves);
    let root = levels[4][0];
    let index = 11;
    let path = path_2(&levels, index);
    for level in 0..4 {
        let mut bad = path.clone();
        bad[level] += Scalar::ONE;
        let c = Merkle2Circuit { leaf: leaves[index], index: index as u64, path: bad };
        assert_ne!(proved_root(&c), root, "sibling of level {level}");
        let c =
            Merkle2Circuit { leaf: leaves[index], index: (index ^ (1 << level)) as u64, path: path.clone() };
        assert_ne!(proved_root(&c), root, "index bit {level}");
    }
}

/// Decomposes a value into bits and packs them back two ways; both results are public inputs 1 and 2.
struct BitsCircuit {
    value: Scalar,
    n_bits: usize,
}

impl Circuit for BitsCircuit {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let num = AllocatedNum::alloc(cs, self.value);
        let bits = num.to_bits_le(cs, self.n_bits);
        AllocatedNum::from_bits_le(cs, &bits).inputize(cs);
        Num::<CS::Store>::from_bits_le(&bits, CS::one()).into_allocated(cs).inputize(cs);
        Ok(())
    }
}

/// A random value below 2^n_bits.
fn random_below(rng: &mut ChaCha8Rng, n_bits: usize) -> Scalar {
    let mut bytes = Scalar::random(&mut *rng).to_repr();
    for (i, byte) in bytes.as_mut().iter_mut().enumerate() {
        let keep = n_bits.saturating_sub(8 * i).min(8);
        *byte &= ((1u16 << keep) - 1) as u8;
    }
    Option::from(Scalar::from_repr(bytes)).expect("below 2^254 < r")
}

#[test]
fn bits_round_trip_and_tampering_fails() {
    let mut rng = rng(11);
    for n_bits in [1, 3, 8, 31, 64, 100, 200, 254] {
        let value = random_below(&mut rng, n_bits);
        let rec = MatrixRecorder::record(&BitsCircuit { value, n_bits }).expect("record");
        assert!(rec.unsatisfied().is_empty(), "{n_bits} bits");
        assert_eq!(rec.inputs[1], value);
        assert_eq!(rec.inputs[2], value);
        let le = value.to_bytes_le();
        for i in 0..n_bits {
            let bit = (le[i / 8] >> (i % 8)) & 1;
            assert_eq!(rec.aux[1 + i], Scalar::from(u64::from(bit)), "bit {i} of {n_bits}");
        }
        // Flip one bit (still boolean): the packing constraint must catch it.
        let i = rng.gen_range(0..n_bits);
        let mut bad = rec;
        bad.aux[1 + i] = Scalar::ONE - bad.aux[1 + i];
        assert!(!bad.unsatisfied().is_empty(), "flipped bit {i} of {n_bits} went unnoticed");
    }
}

#[test]
fn bits_of_a_value_too_wide_leave_packing_unsatisfied() {
    let mut rng = rng(12);
    let value = random_below(&mut rng, 64) + Scalar::from(1u64 << 40);
    let rec = MatrixRecorder::record(&BitsCircuit { value, n_bits: 40 }).expect("record");
    assert!(!rec.unsatisfied().is_empty());
}

/// Swaps bit vectors and numbers under a condition; packs the outputs into public inputs 1..=4.
struct SwapCircuit {
    a: Vec<bool>,
    b: Vec<bool>,
    x: Scalar,
    y: Scalar,
    condition: bool,
}

impl Circuit for SwapCircuit {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        // Mix representations: allocated, negated and constant bits.
        let bit = |cs: &mut CS, i: usize, v: bool| match i % 5 {
            3 => Boolean::alloc(cs, !v).not(),
            4 => Boolean::Constant(v),
            _ => Boolean::alloc(cs, v),
        };
        let a: Vec<Boolean> = self.a.iter().enumerate().map(|(i, v)| bit(cs, i, *v)).collect();
        let b: Vec<Boolean> = self.b.iter().enumerate().map(|(i, v)| bit(cs, i + 1, *v)).collect();
        let c = Boolean::alloc(cs, self.condition);
        let (l, r) = conditionally_swap_bits(cs, &a, &b, &c);
        AllocatedNum::from_bits_le(cs, &l).inputize(cs);
        AllocatedNum::from_bits_le(cs, &r).inputize(cs);
        let (x, y) = (AllocatedNum::alloc(cs, self.x), AllocatedNum::alloc(cs, self.y));
        let (p, q) = AllocatedNum::conditionally_reverse(cs, &x, &y, &c);
        p.inputize(cs);
        q.inputize(cs);
        Ok(())
    }
}

fn pack(bits: &[bool]) -> Scalar {
    bits.iter().rev().fold(Scalar::ZERO, |acc, b| acc.double() + if *b { Scalar::ONE } else { Scalar::ZERO })
}

#[test]
fn swaps_follow_the_condition() {
    let mut rng = rng(13);
    let a: Vec<bool> = (0..64).map(|_| rng.gen()).collect();
    let b: Vec<bool> = (0..64).map(|_| rng.gen()).collect();
    let (x, y) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
    for condition in [false, true] {
        let c = SwapCircuit { a: a.clone(), b: b.clone(), x, y, condition };
        let mut rec = MatrixRecorder::record(&c).expect("record");
        assert!(rec.unsatisfied().is_empty());
        let (l, r, p, q) = if condition { (&b, &a, y, x) } else { (&a, &b, x, y) };
        assert_eq!(rec.inputs[1..5], [pack(l), pack(r), p, q], "condition {condition}");
        // 103 allocated input bits + the condition; 2 constraints per bit pair; 2 packings, 4 inputizes, 2
        // selects.
        let allocated = (0..64).filter(|i| i % 5 != 4).count() + (1..65).filter(|i| i % 5 != 4).count() + 1;
        assert_eq!(rec.shape().constraints, allocated + 2 * 64 + 2 + 4 + 2);
        // Flipping a swapped output bit or a reversed number breaks its constraint.
        let first_out = allocated;
        rec.aux[first_out] = Scalar::ONE - rec.aux[first_out];
        assert!(!rec.unsatisfied().is_empty());
        rec.aux[first_out] = Scalar::ONE - rec.aux[first_out];
        let last = rec.aux.len() - 1;
        assert!(tampered_aux_fails(&mut rec, last));
    }
}

#[test]
fn synthesis_is_identical_across_term_stores_and_capacity_hints() {
    let mut rng = rng(14);
    let leaves = random_scalars(&mut rng, 64);
    let levels = build_tree_8(&leaves);
    let c8 = Merkle8Circuit { leaf: leaves[37], index: 37, path: path_8(&levels, 37) };
    let levels2 = build_tree_2(&leaves[..16]);
    let c2 = Merkle2Circuit { leaf: leaves[9], index: 9, path: path_2(&levels2, 9) };
    check_a1_a2(&c8);
    check_a1_a2(&c2);
}

fn check_a1_a2<C: Circuit>(c: &C) {
    let x = ProvingAssignment::synthesize::<VecStore, _>(c, None).expect("synthesis");
    let y = ProvingAssignment::synthesize::<SmallStore, _>(c, Some(ShapeCounter::count(c).expect("count")))
        .expect("synthesis");
    assert!(x.num_constraints() > 400);
    assert_eq!(x.a, y.a);
    assert_eq!(x.b, y.b);
    assert_eq!(x.c, y.c);
    assert_eq!(x.input_assignment, y.input_assignment);
    assert_eq!(x.aux_assignment, y.aux_assignment);
    assert_eq!(x.a_aux_density, y.a_aux_density);
    assert_eq!(x.b_input_density, y.b_input_density);
    assert_eq!(x.b_aux_density, y.b_aux_density);
    // a·b = c on every row, as the recorder says.
    assert!(x.a.iter().zip(&x.b).zip(&x.c).all(|((a, b), c)| *a * b == *c));
}
