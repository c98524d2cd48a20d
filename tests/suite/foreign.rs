//! Foreign circuits through cuzk: a bellperson 0.27 circuit (bellpepper-core 0.2's trait, as storage-proofs
//! writes them) and a bellpepper-core 0.4 circuit synthesize into cuzk's systems with the same counts as the
//! foreign crates' own test systems, a satisfied assignment, and proofs that verify; a foreign error comes back
//! as an error, never a panic.

use blstrs::Scalar;
use cuzk::backend::cpu::backend::CpuBackend;
use cuzk::cs::foreign::{bellpepper as bp4, bellperson as bp2};
use cuzk::cs::{Circuit, MatrixRecorder, ProvingAssignment, ShapeCounter, VecStore};
use cuzk::groth16::prover::{prove_assignments, synthesize, CallSpec};
use cuzk::groth16::setup::generate;
use cuzk::groth16::verify::{verify_batch, PreparedVerifyingKey};
use cuzk::vocab::{Probe, Toggles};
use ff::{Field, PrimeField};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// SHA-256 of a seeded message with bellperson 0.27's gadgets, the digest packed into public inputs.
#[derive(Clone)]
struct Sha2Circuit {
    message: Vec<u8>,
}

impl bellperson::Circuit<Scalar> for Sha2Circuit {
    fn synthesize<CS: bellperson::ConstraintSystem<Scalar>>(
        self,
        cs: &mut CS,
    ) -> Result<(), bellperson::SynthesisError> {
        use bellperson::gadgets::boolean::{AllocatedBit, Boolean};
        let bits: Vec<Boolean> = self
            .message
            .iter()
            .flat_map(|b| (0..8).rev().map(move |i| (b >> i) & 1 == 1))
            .enumerate()
            .map(|(i, v)| {
                AllocatedBit::alloc(cs.namespace(|| format!("bit {i}")), Some(v)).map(Boolean::from)
            })
            .collect::<Result<_, _>>()?;
        let digest = bellperson::gadgets::sha256::sha256(cs.namespace(|| "sha256"), &bits)?;
        bellperson::gadgets::multipack::pack_into_inputs(cs.namespace(|| "pack"), &digest)
    }
}

/// x³ + x + 5 = y with bellpepper-core 0.4 (y public).
#[derive(Clone)]
struct Cubic {
    x: Option<Scalar>,
}

impl bellpepper_core::Circuit<Scalar> for Cubic {
    fn synthesize<CS: bellpepper_core::ConstraintSystem<Scalar>>(
        self,
        cs: &mut CS,
    ) -> Result<(), bellpepper_core::SynthesisError> {
        use bellpepper_core::num::AllocatedNum;
        let x = AllocatedNum::alloc(cs.namespace(|| "x"), || {
            self.x.ok_or(bellpepper_core::SynthesisError::AssignmentMissing)
        })?;
        let x2 = x.square(cs.namespace(|| "x2"))?;
        let x3 = x2.mul(cs.namespace(|| "x3"), &x)?;
        let y = AllocatedNum::alloc_input(cs.namespace(|| "y"), || {
            let x = self.x.ok_or(bellpepper_core::SynthesisError::AssignmentMissing)?;
            Ok(x * x * x + x + Scalar::from(5u64))
        })?;
        cs.enforce(
            || "cubic",
            |lc| lc + x3.get_variable() + x.get_variable() + (Scalar::from(5u64), CS::one()),
            |lc| lc + CS::one(),
            |lc| lc + y.get_variable(),
        );
        Ok(())
    }
}

fn message(seed: u64) -> Vec<u8> {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    (0..40).map(|_| r.gen()).collect()
}

/// Counts, satisfaction, public inputs and witness against the foreign crate's own test system.
fn same_as_foreign<C: Circuit>(c: &C, constraints: usize, inputs: &[Scalar], aux: &[Scalar]) {
    let shape = ShapeCounter::count(c).expect("count");
    assert_eq!((shape.constraints, shape.inputs, shape.aux), (constraints, inputs.len() + 1, aux.len()));
    let rec = MatrixRecorder::record(c).expect("record");
    assert!(rec.unsatisfied().is_empty(), "unsatisfied rows {:?}", &rec.unsatisfied()[..1]);
    let asg = ProvingAssignment::synthesize::<VecStore, _>(c, None).expect("synthesis");
    assert_eq!(&asg.input_assignment[1..], inputs);
    assert_eq!(asg.aux_assignment, aux);
    let rows = asg.a.len() - asg.input_assignment.len();
    assert!((0..rows).all(|i| asg.a[i] * asg.b[i] == asg.c[i]), "a·b = c must hold on every row");
    assert_eq!(rows, constraints);
}

#[test]
fn bellperson_circuit_matches_its_own_test_system() {
    use bellperson::util_cs::test_cs::TestConstraintSystem;
    let circuit = Sha2Circuit { message: message(3) };
    let mut theirs = TestConstraintSystem::<Scalar>::new();
    bellperson::Circuit::synthesize(circuit.clone(), &mut theirs).expect("theirs");
    assert!(theirs.is_satisfied());
    let inputs = theirs.scalar_inputs();
    same_as_foreign(&bp2::Foreign(circuit), theirs.num_constraints(), &inputs[1..], &theirs.scalar_aux());
}

#[test]
fn bellpepper_circuit_matches_its_own_test_system() {
    use bellpepper_core::test_cs::TestConstraintSystem;
    let x = Scalar::from(7u64);
    let circuit = Cubic { x: Some(x) };
    let mut theirs = TestConstraintSystem::<Scalar>::new();
    bellpepper_core::Circuit::synthesize(circuit.clone(), &mut theirs).expect("theirs");
    assert!(theirs.is_satisfied());
    let inputs = theirs.scalar_inputs();
    assert_eq!(inputs[1..], [x * x * x + x + Scalar::from(5u64)]);
    same_as_foreign(&bp4::Foreign(circuit), theirs.num_constraints(), &inputs[1..], &theirs.scalar_aux());
}

#[test]
fn foreign_errors_are_errors() {
    let missing = bp4::Foreign(Cubic { x: None });
    let e = ProvingAssignment::synthesize::<VecStore, _>(&missing, None).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("assignment"), "{e}");
    assert!(ShapeCounter::count(&missing).is_err());
}

#[test]
fn foreign_circuit_proofs_verify_and_are_deterministic() {
    let circuits: Vec<_> = (0..2).map(|s| bp2::Foreign(Sha2Circuit { message: message(10 + s) })).collect();
    let shape = ShapeCounter::count(&circuits[0]).expect("count");
    let params = generate(&circuits[0], shape, 5, &|_, _, _| {}).expect("setup");
    let t = Toggles::default();
    let prove = || {
        let p = Probe::silent();
        let asgs = synthesize(&p, &circuits, &t, Some(shape), 0).expect("synthesis");
        let inputs: Vec<Vec<Scalar>> = asgs.iter().map(|g| g.input_assignment[1..].to_vec()).collect();
        let call = CallSpec { params: &params, toggles: &t, seed: 9, first: 0 };
        (prove_assignments(&p, &CpuBackend::new(), call, asgs).expect("prove"), inputs)
    };
    let (proofs, inputs) = prove();
    let pvk = PreparedVerifyingKey::new(&params.vk);
    assert!(verify_batch(&pvk, &proofs, &inputs).expect("verify").iter().all(|ok| *ok));
    let mut wrong = inputs.clone();
    wrong[0][0] += Scalar::ONE;
    assert!(!verify_batch(&pvk, &proofs, &wrong).expect("verify")[0]);
    assert_eq!(prove().0, proofs, "same seed, same proofs");
    assert!(Scalar::from_repr_vartime(Scalar::ONE.to_repr()).is_some());
}

/// bellperson's SHA-256 gadgets skip their linear combinations in witness-only synthesis (the patch in
/// vendor/bellperson): the witness, the shape and the fingerprint must stay those of full synthesis, the PCE
/// assignment of other messages must equal normal synthesis field by field, and a normal synthesis after it
/// still builds every combination.
#[test]
fn witness_only_bellperson_gadgets_give_the_full_witness() {
    use cuzk::cs::{Pce, WitnessOnly};
    let first = bp2::Foreign(Sha2Circuit { message: message(20) });
    let (pce, _) = Pce::record(&first).expect("record");
    for seed in 21..24 {
        let c = bp2::Foreign(Sha2Circuit { message: message(seed) });
        let w = WitnessOnly::synthesize(&c, None).expect("witness-only");
        let full = ProvingAssignment::synthesize::<VecStore, _>(&c, None).expect("synthesis");
        assert_eq!((w.inputs, w.aux), (full.input_assignment.clone(), full.aux_assignment.clone()));
        assert_eq!((w.shape, w.fingerprint), (pce.shape(), pce.fingerprint()));
        let fast = pce.synthesize(&c).expect("pce");
        assert_eq!((&fast.a, &fast.b, &fast.c), (&full.a, &full.b, &full.c), "seed {seed}");
        assert_eq!((&fast.a_aux_density, &fast.b_aux_density), (&full.a_aux_density, &full.b_aux_density));
        let rows = full.a.len() - full.input_assignment.len();
        assert!((0..rows).all(|i| full.a[i] * full.b[i] == full.c[i]), "seed {seed}: a·b = c");
    }
}

/// What a bellperson gadget asks `is_witness_generator()` of, under namespaces and a `MultiEq` (where the
/// patched SHA-256 adders ask it), recorded per synthesis.
#[derive(Clone)]
struct AsksWitnessGenerator(std::sync::Arc<std::sync::Mutex<Vec<bool>>>);

impl bellperson::Circuit<Scalar> for AsksWitnessGenerator {
    fn synthesize<CS: bellperson::ConstraintSystem<Scalar>>(
        self,
        cs: &mut CS,
    ) -> Result<(), bellperson::SynthesisError> {
        use bellperson::gadgets::multieq::MultiEq;
        use bellperson::ConstraintSystem as _;
        let x =
            bellperson::gadgets::num::AllocatedNum::alloc(cs.namespace(|| "x"), || Ok(Scalar::from(3u64)))?;
        let answer = {
            let mut outer = cs.namespace(|| "outer");
            let mut inner = outer.namespace(|| "inner");
            let mut meq = MultiEq::new(&mut inner);
            let answer = meq.namespace(|| "under multieq").is_witness_generator();
            answer
        };
        self.0.lock().map_err(|_| bellperson::SynthesisError::Unsatisfiable)?.push(answer);
        x.square(cs.namespace(|| "x^2"))?;
        Ok(())
    }
}

/// The adapter says "witness generator" to bellperson's gadgets exactly in cuzk's witness-only synthesis,
/// through namespaces and `MultiEq`, on a rayon worker as on the calling thread (the answer belongs to the
/// system, not to a thread); every other system says no.
#[test]
fn only_witness_only_synthesis_is_a_witness_generator() {
    use cuzk::cs::{Pce, WitnessOnly};
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let c = bp2::Foreign(AsksWitnessGenerator(log.clone()));
    let answers = |f: &dyn Fn()| {
        log.lock().expect("log").clear();
        f();
        std::mem::take(&mut *log.lock().expect("log"))
    };
    assert_eq!(answers(&|| drop(WitnessOnly::synthesize(&c, None).expect("witness-only"))), [true]);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    let on_worker = answers(&|| pool.install(|| drop(WitnessOnly::synthesize(&c, None).expect("worker"))));
    assert_eq!(on_worker, [true], "on a rayon worker");
    assert_eq!(
        answers(&|| drop(ProvingAssignment::synthesize::<VecStore, _>(&c, None).expect("prove"))),
        [false]
    );
    assert_eq!(
        answers(&|| {
            let _ = ShapeCounter::count(&c).expect("count");
        }),
        [false]
    );
    assert_eq!(answers(&|| drop(MatrixRecorder::record(&c).expect("matrix"))), [false]);
    assert_eq!(answers(&|| drop(Pce::record(&c).expect("record"))), [false]);
}

/// Random constraints through bellperson's trait, built to stress the adapter's in-place evaluation: public
/// inputs in A and B, a variable added and subtracted again (a zero coefficient kept by the foreign merge),
/// repeated variables, random and ±1 coefficients, empty combinations.
#[derive(Clone)]
struct Mixed {
    seed: u64,
}

impl bellperson::Circuit<Scalar> for Mixed {
    fn synthesize<CS: bellperson::ConstraintSystem<Scalar>>(
        self,
        cs: &mut CS,
    ) -> Result<(), bellperson::SynthesisError> {
        use bellperson::{LinearCombination, Variable};
        let mut r = ChaCha8Rng::seed_from_u64(self.seed);
        let mut inputs = Vec::new();
        let mut aux = Vec::new();
        for i in 0..4 {
            let v = Scalar::random(&mut r);
            inputs.push(cs.alloc_input(|| format!("in {i}"), || Ok(v))?);
        }
        for i in 0..40 {
            let v = Scalar::random(&mut r);
            aux.push(cs.alloc(|| format!("aux {i}"), || Ok(v))?);
        }
        // Named only with coefficients that cancel: used by the density rule, worth nothing in a/b/c.
        let ghosts = [
            cs.alloc_input(|| "ghost in", || Ok(Scalar::from(3u64)))?,
            cs.alloc(|| "ghost a", || Ok(Scalar::from(5u64)))?,
            cs.alloc(|| "ghost b", || Ok(Scalar::from(7u64)))?,
        ];
        let pick = |r: &mut ChaCha8Rng| -> (Variable, Scalar) {
            let var = if r.gen_bool(0.2) { inputs[r.gen_range(0..4)] } else { aux[r.gen_range(0..40)] };
            let coeff = match r.gen_range(0..3) {
                0 => Scalar::ONE,
                1 => -Scalar::ONE,
                _ => Scalar::random(&mut *r),
            };
            (var, coeff)
        };
        for row in 0..200 {
            let mut lcs: Vec<LinearCombination<Scalar>> = Vec::new();
            for which in 0..3 {
                let mut lc = LinearCombination::zero();
                for _ in 0..r.gen_range(0..6) {
                    let (v, k) = pick(&mut r);
                    lc = lc + (k, v);
                }
                if r.gen_bool(0.3) {
                    // Added and taken away: the foreign merge keeps the variable with coefficient zero.
                    let v = if which == 2 { pick(&mut r).0 } else { ghosts[r.gen_range(0..3)] };
                    lc = lc + v - v;
                }
                lcs.push(lc);
            }
            let [a, b, c]: [LinearCombination<Scalar>; 3] = lcs.try_into().expect("three");
            cs.enforce(|| format!("row {row}"), |lc| lc + &a, |lc| lc + &b, |lc| lc + &c);
        }
        Ok(())
    }
}

/// The prover's in-place evaluation of foreign combinations (`ConstraintSystem::direct`) gives the a/b/c and
/// densities that the recorded matrices give by plain arithmetic (a variable named with coefficient zero
/// still counts as used), and the recorder and shape counter, which read the adapter's terms where they are,
/// agree with the survey's digest and with normal synthesis.
#[test]
fn foreign_combinations_evaluated_in_place_match_the_recorded_matrices() {
    use cuzk::cs::{Index, Pce, Survey};
    for seed in 0..3 {
        let c = bp2::Foreign(Mixed { seed: 40 + seed });
        let rec = MatrixRecorder::record(&c).expect("record");
        let asg = ProvingAssignment::synthesize::<VecStore, _>(&c, None).expect("synthesis");
        let eval = |row: &[cuzk::cs::Term]| {
            row.iter().fold(Scalar::ZERO, |acc, (v, k)| acc + v.value_in(&rec.inputs, &rec.aux) * k)
        };
        let n = rec.a.len();
        assert_eq!(n, 200);
        for i in 0..n {
            assert_eq!(
                (asg.a[i], asg.b[i], asg.c[i]),
                (eval(&rec.a[i]), eval(&rec.b[i]), eval(&rec.c[i])),
                "seed {seed} row {i}"
            );
        }
        assert_eq!(asg.input_assignment, rec.inputs);
        assert_eq!(asg.aux_assignment, rec.aux);
        let used = |rows: &[Vec<cuzk::cs::Term>], want_input: bool, len: usize| {
            let mut m = vec![false; len];
            for (v, _) in rows.iter().flatten() {
                match v.0 {
                    Index::Input(j) if want_input => m[j] = true,
                    Index::Aux(j) if !want_input => m[j] = true,
                    _ => {}
                }
            }
            m
        };
        let bits = |d: &cuzk::cs::Density| (0..d.len()).map(|i| d.get(i)).collect::<Vec<_>>();
        assert_eq!(bits(&asg.a_aux_density), used(&rec.a, false, rec.aux.len()));
        assert_eq!(bits(&asg.b_aux_density), used(&rec.b, false, rec.aux.len()));
        assert_eq!(bits(&asg.b_input_density), used(&rec.b, true, rec.inputs.len()));
        // The ghosts (last input, last two aux) are named only with cancelling coefficients: marked all the
        // same where they were named, so the rule above was exercised.
        let (gi, ga) = (rec.inputs.len() - 1, rec.aux.len() - 2);
        assert!(asg.b_input_density.get(gi) && (asg.a_aux_density.get(ga) || asg.a_aux_density.get(ga + 1)));

        let (pce, recorded) = Pce::record(&c).expect("pce record");
        assert_eq!((&recorded.a, &recorded.b, &recorded.c), (&asg.a, &asg.b, &asg.c));
        assert_eq!(recorded.a_aux_density, asg.a_aux_density);
        assert_eq!(recorded.b_input_density, asg.b_input_density);
        let (shape, digest) = ShapeCounter::count_with_digest(&c).expect("count");
        let survey = Survey::of(&c, 2).expect("survey");
        assert_eq!((pce.shape(), pce.digest()), (shape, digest));
        assert_eq!((survey.shape, survey.digest), (shape, digest));
    }
}
