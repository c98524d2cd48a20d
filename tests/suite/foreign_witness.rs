//! The lean witness paths of the vendored gadgets (`vendor/*/PATCH.md`): under witness-only synthesis,
//! bellperson's SHA-256 compression (and neptune's Poseidon) take a path of their own, which must make the
//! allocations of the gadget exactly — same values, same order, same constraint count and fingerprint.
//! Each circuit here runs through `Pce::record` (the gadgets' own path, the reference) and through
//! `WitnessOnly` (the lean path); the witnesses, fingerprints and the a/b/c evaluated from the lean witness
//! must be equal, and the digests must match the `sha2` crate (neptune's native hash for Poseidon).

use bellperson::gadgets::boolean::{AllocatedBit, Boolean};
use bellperson::gadgets::sha256::{sha256, sha256_compression_function};
use bellperson::gadgets::uint32::UInt32;
use bellperson::{ConstraintSystem as Bp, SynthesisError as BpError};
use blstrs::Scalar;
use cuzk::cs::foreign::bellperson::Foreign;
use cuzk::cs::{Circuit, Pce, WitnessOnly};
// cuzk's own native compression (checked against `sha2` in sha256.rs), not the lean gadget under test.
use cuzk::gadgets::sha256::compress_native;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};
use std::sync::{Arc, Mutex};

/// How the bits of a message enter the hash.
#[derive(Clone, Copy, Debug)]
enum Kinds {
    /// Every bit allocated.
    Allocated,
    /// Allocated, negated allocated and constant bits mixed at random.
    Mixed,
    /// Every bit constant (the gadget allocates nothing up to the last addition).
    Constant,
}

/// Bits of `bytes` (big-endian per byte), each allocated, negated or constant as `kinds` says.
fn bits<CS: Bp<Scalar>>(
    cs: &mut CS,
    bytes: &[u8],
    kinds: Kinds,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Boolean>, BpError> {
    let mut out = Vec::with_capacity(bytes.len() * 8);
    for (i, v) in bytes.iter().flat_map(|b| (0..8).rev().map(move |k| (b >> k) & 1 == 1)).enumerate() {
        let kind = match kinds {
            Kinds::Allocated => 0,
            Kinds::Mixed => rng.gen_range(0..3),
            Kinds::Constant => 2,
        };
        out.push(match kind {
            0 => Boolean::from(AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), Some(v))?),
            1 => Boolean::from(AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), Some(!v))?).not(),
            _ => Boolean::constant(v),
        });
    }
    Ok(out)
}

/// Big-endian bytes of `bits`, or `None` when a value is missing.
fn bytes_of(bits: &[Boolean]) -> Option<Vec<u8>> {
    bits.chunks(8)
        .map(|c| c.iter().try_fold(0u8, |acc, b| Some((acc << 1) | u8::from(b.get_value()?))))
        .collect()
}

/// SHA-256 of seeded messages of several lengths (one to three blocks, padding and IV constants
/// included), then one compression from an allocated state with mixed (negated, constant) state bits.
/// The digests are kept for the check against `sha2`.
#[derive(Clone)]
struct ShaCircuit {
    seed: u64,
    kinds: Kinds,
    digests: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl bellperson::Circuit<Scalar> for ShaCircuit {
    fn synthesize<CS: Bp<Scalar>>(self, cs: &mut CS) -> Result<(), BpError> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let mut digests = vec![];
        for (n, len) in [0usize, 5, 55, 56, 64, 100, 150].into_iter().enumerate() {
            let msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let input = bits(&mut cs.namespace(|| format!("msg {n}")), &msg, self.kinds, &mut rng)?;
            let out = sha256(cs.namespace(|| format!("sha {n}")), &input)?;
            digests.push(bytes_of(&out).ok_or(BpError::AssignmentMissing)?);
        }
        // One block from a state of allocated, negated and constant words (not the IV).
        let block: Vec<u8> = (0..64).map(|_| rng.gen()).collect();
        let input = bits(&mut cs.namespace(|| "block"), &block, self.kinds, &mut rng)?;
        let mut state = vec![];
        for i in 0..8 {
            let v: u32 = rng.gen();
            let word = match (self.kinds, i % 3) {
                (Kinds::Constant, _) | (_, 2) => UInt32::constant(v),
                (_, 0) => UInt32::alloc(cs.namespace(|| format!("state {i}")), Some(v))?,
                _ => {
                    let w = UInt32::alloc(cs.namespace(|| format!("state {i}")), Some(!v))?;
                    UInt32::from_bits(&w.into_bits().iter().map(Boolean::not).collect::<Vec<_>>())
                }
            };
            state.push(word);
        }
        let out = sha256_compression_function(cs.namespace(|| "compression"), &input, &state)?;
        let out: Vec<Boolean> = out.into_iter().flat_map(UInt32::into_bits_be).collect();
        digests.push(bytes_of(&out).ok_or(BpError::AssignmentMissing)?);
        // The last digest is exposed so the circuit has an input besides the constant one.
        let x = bellperson::gadgets::num::AllocatedNum::alloc(cs.namespace(|| "x"), || Ok(Scalar::from(3)))?;
        x.inputize(cs.namespace(|| "x input"))?;
        *self.digests.lock().map_err(|_| BpError::Unsatisfiable)? = digests;
        Ok(())
    }
}

/// Runs `circuit` both ways and checks the lean witness against the gadgets' own.
fn check_both_paths<C: Circuit>(circuit: &C, what: &str) {
    let (pce, reference) = Pce::record(circuit).unwrap_or_else(|e| panic!("{what}: record: {e}"));
    let lean = WitnessOnly::synthesize(circuit, None).unwrap_or_else(|e| panic!("{what}: witness-only: {e}"));
    assert_eq!(lean.shape, pce.shape(), "{what}: shape");
    assert_eq!(lean.fingerprint, pce.fingerprint(), "{what}: order of allocations and constraints");
    assert_eq!(lean.inputs, reference.input_assignment, "{what}: inputs");
    assert_eq!(lean.aux.len(), reference.aux_assignment.len(), "{what}: aux count");
    if let Some(i) = (0..lean.aux.len()).find(|&i| lean.aux[i] != reference.aux_assignment[i]) {
        panic!("{what}: aux {i} differs: lean {:?}, gadget {:?}", lean.aux[i], reference.aux_assignment[i]);
    }
    let evaluated = pce.evaluate_witness(lean).unwrap_or_else(|e| panic!("{what}: evaluate: {e}"));
    assert!(
        evaluated.a == reference.a && evaluated.b == reference.b && evaluated.c == reference.c,
        "{what}: a/b/c"
    );
}

#[test]
fn lean_sha256_makes_the_gadgets_witness() {
    for (seed, kinds) in [(1, Kinds::Allocated), (2, Kinds::Mixed), (3, Kinds::Mixed), (4, Kinds::Constant)] {
        let what = format!("sha256 seed {seed} {kinds:?}");
        let digests = Arc::new(Mutex::new(vec![]));
        let circuit = Foreign(ShaCircuit { seed, kinds, digests: digests.clone() });
        check_both_paths(&circuit, &what);
        // The digests the lean path computed (the last synthesis was witness-only) against sha2.
        let got = digests.lock().expect("digests").clone();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for (n, len) in [0usize, 5, 55, 56, 64, 100, 150].into_iter().enumerate() {
            let msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            // bits() draws one kind per bit in mixed mode; replay those draws.
            if matches!(kinds, Kinds::Mixed) {
                for _ in 0..len * 8 {
                    rng.gen_range(0..3);
                }
            }
            assert_eq!(got[n], Sha256::digest(&msg).to_vec(), "{what}: message {n} ({len} bytes)");
        }
        let block: [u8; 64] = std::array::from_fn(|_| rng.gen());
        if matches!(kinds, Kinds::Mixed) {
            for _ in 0..512 {
                rng.gen_range(0..3);
            }
        }
        let state: [u32; 8] = std::array::from_fn(|_| rng.gen());
        let want: Vec<u8> = compress_native(state, &block).iter().flat_map(|w| w.to_be_bytes()).collect();
        assert_eq!(got[7], want, "{what}: compression from a non-IV state");
    }
}

/// Poseidon through filecoin-hashers (neptune 11's `circuit::poseidon_hash`, as storage-proofs calls it)
/// at arities 2, 8 and 11 and the multi-chunk `hash_md_circuit`, on seeded random field elements; the
/// digests are kept for the check against neptune 13's native hash.
#[derive(Clone)]
struct PoseidonCircuit {
    seed: u64,
    digests: Arc<Mutex<Vec<Scalar>>>,
}

/// The seeded preimages of [`PoseidonCircuit`]: 2, 8, 11 elements and 80 for the MD hash.
fn poseidon_preimages(seed: u64) -> Vec<Vec<Scalar>> {
    use ff::Field;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    [2usize, 8, 11, 80].iter().map(|&n| (0..n).map(|_| Scalar::random(&mut rng)).collect()).collect()
}

impl bellperson::Circuit<Scalar> for PoseidonCircuit {
    fn synthesize<CS: Bp<Scalar>>(self, cs: &mut CS) -> Result<(), BpError> {
        use bellperson::gadgets::num::AllocatedNum;
        use filecoin_hashers::poseidon::PoseidonFunction;
        use filecoin_hashers::HashFunction;
        use typenum::{U11, U8};
        let mut nums = vec![];
        for (k, pre) in poseidon_preimages(self.seed).iter().enumerate() {
            let mut v = vec![];
            for (i, x) in pre.iter().enumerate() {
                v.push(AllocatedNum::alloc(cs.namespace(|| format!("in {k} {i}")), || Ok(*x))?);
            }
            nums.push(v);
        }
        let d2 = PoseidonFunction::hash2_circuit(cs.namespace(|| "h2"), &nums[0][0], &nums[0][1])?;
        let d8 = PoseidonFunction::hash_multi_leaf_circuit::<U8, _>(cs.namespace(|| "h8"), &nums[1], 0)?;
        let d11 = PoseidonFunction::hash_multi_leaf_circuit::<U11, _>(cs.namespace(|| "h11"), &nums[2], 0)?;
        let md = PoseidonFunction::hash_md_circuit(&mut cs.namespace(|| "md"), &nums[3])?;
        md.inputize(cs.namespace(|| "md input"))?;
        let digests = [d2, d8, d11, md].iter().map(|d| d.get_value()).collect::<Option<Vec<_>>>();
        *self.digests.lock().map_err(|_| BpError::Unsatisfiable)? =
            digests.ok_or(BpError::AssignmentMissing)?;
        Ok(())
    }
}

/// neptune 13's native Poseidon of `pre` at arity `A` (the same constants as neptune 11's).
fn native<A: neptune::Arity<Scalar>>(pre: &[Scalar]) -> Scalar {
    let constants = neptune::poseidon::PoseidonConstants::<Scalar, A>::new();
    neptune::Poseidon::new_with_preimage(pre, &constants).hash()
}

#[test]
fn lean_poseidon_makes_the_gadgets_witness() {
    use typenum::{U11, U2, U36, U8};
    for seed in [7, 8] {
        let what = format!("poseidon seed {seed}");
        let digests = Arc::new(Mutex::new(vec![]));
        let circuit = Foreign(PoseidonCircuit { seed, digests: digests.clone() });
        check_both_paths(&circuit, &what);
        let got = digests.lock().expect("digests").clone();
        let pre = poseidon_preimages(seed);
        assert_eq!(got[0], native::<U2>(&pre[0]), "{what}: arity 2");
        assert_eq!(got[1], native::<U8>(&pre[1]), "{what}: arity 8");
        assert_eq!(got[2], native::<U11>(&pre[2]), "{what}: arity 11");
        // The MD hash: chunks of 35 after the running hash, the last chunk padded with zeros.
        let mut h = pre[3][0];
        for chunk in pre[3][1..].chunks(35) {
            let mut block = vec![h];
            block.extend_from_slice(chunk);
            block.resize(36, Scalar::from(0));
            h = native::<U36>(&block);
        }
        assert_eq!(got[3], h, "{what}: md");
    }
}
