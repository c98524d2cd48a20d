//! Witness-only synthesis and pre-compiled constraint evaluation against the independent references:
//! `ProvingAssignment::synthesize` (values, a/b/c, densities) and `MatrixRecorder` (the matrices), on the
//! seeded sample circuits of every kind and on random witnesses; plus the serialized record's integrity
//! checks and the refusal of records of other shapes.

use std::path::Path;

use blstrs::Scalar;
use cuzk::circuits::Sample;
use cuzk::cs::{
    Circuit, ConstraintSystem, HostBlock, HostPool, Index, MatrixRecorder, Pce, PceError, ProvingAssignment,
    RecordOptions, Shape, ShapeCounter, SynthesisError, Term, VecStore, WitnessOnly,
};
use ff::Field;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn sample(text: &str) -> Sample {
    Sample::parse(Path::new("test.toml"), text).unwrap_or_else(|e| panic!("{e}"))
}

/// Small samples of every circuit kind (both PoRep label hashes).
fn test_samples() -> Vec<Sample> {
    vec![
        Sample::load(Path::new("samples/porep-tiny.toml")).unwrap_or_else(|e| panic!("{e}")),
        sample(
            "name = \"porep-sha-small\"\npartitions = 2\nseed = 5\n[circuit]\nkind = \"porep\"\nchallenges = 1\n\
             layers = 2\nnodes_log2 = 6\nbase_parents = 2\nexpander_parents = 1\nhash = \"sha256\"\n",
        ),
        sample("name = \"chain\"\npartitions = 2\nseed = 9\n[circuit]\nkind = \"sha256-chain\"\ncompressions = 2\n"),
        sample(
            "name = \"pm\"\npartitions = 2\nseed = 4\n[circuit]\nkind = \"poseidon-merkle\"\nheight = 3\npaths = 2\n",
        ),
    ]
}

fn assert_same(name: &str, x: &ProvingAssignment, y: &ProvingAssignment) {
    assert_eq!(x.input_assignment, y.input_assignment, "{name}: inputs");
    assert_eq!(x.aux_assignment, y.aux_assignment, "{name}: aux");
    assert_eq!(x.a.len(), y.a.len(), "{name}: rows");
    for i in 0..x.a.len() {
        assert!(x.a[i] == y.a[i] && x.b[i] == y.b[i] && x.c[i] == y.c[i], "{name}: row {i} differs");
    }
    assert_eq!(x.a_aux_density, y.a_aux_density, "{name}: a_aux density");
    assert_eq!(x.b_input_density, y.b_input_density, "{name}: b_input density");
    assert_eq!(x.b_aux_density, y.b_aux_density, "{name}: b_aux density");
}

#[test]
fn witness_only_values_equal_full_synthesis() {
    for s in test_samples() {
        for sector in 0..2 {
            for (p, c) in s.sector_circuits(sector).iter().enumerate() {
                let full = ProvingAssignment::synthesize::<VecStore, _>(c, None).expect("synthesis");
                let w = WitnessOnly::synthesize(c, None).expect("witness");
                let name = format!("{} s{sector} c{p}", s.name);
                assert_eq!(w.inputs, full.input_assignment, "{name}: inputs");
                assert_eq!(w.aux, full.aux_assignment, "{name}: aux");
                assert_eq!(w.shape, ShapeCounter::count(c).expect("count"), "{name}: shape");
                assert!(w.aux.iter().any(|v| *v != Scalar::ZERO), "{name}: all-zero witness");
            }
        }
    }
}

#[test]
fn pce_reproduces_full_synthesis_on_other_witnesses() {
    for s in test_samples() {
        let first = &s.sector_circuits(0)[0];
        let (pce, own) = Pce::record(first).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_same(
            &format!("{} recorded", s.name),
            &own,
            &ProvingAssignment::synthesize::<VecStore, _>(first, None).expect("synthesis"),
        );
        assert_eq!(
            (pce.shape(), pce.digest()),
            ShapeCounter::count_with_digest(first).expect("count"),
            "{}: identity",
            s.name
        );
        // The engine keys the record by the survey: the same identity.
        let sv = cuzk::cs::Survey::of(first, 3).expect("survey");
        assert_eq!((pce.shape(), pce.digest()), (sv.shape, sv.digest), "{}: identity, survey", s.name);
        for sector in 0..2 {
            for (p, c) in s.sector_circuits(sector).iter().enumerate() {
                let name = format!("{} s{sector} c{p}", s.name);
                let got = pce.synthesize(c).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_same(
                    &name,
                    &got,
                    &ProvingAssignment::synthesize::<VecStore, _>(c, None).expect("synthesis"),
                );
            }
        }
    }
}

#[test]
fn c_from_products_equals_full_synthesis_on_satisfying_witnesses() {
    let opts = RecordOptions { c_from_products: true };
    for s in test_samples() {
        let first = &s.sector_circuits(0)[0];
        let (exact, _) = Pce::record(first).unwrap_or_else(|e| panic!("{e}"));
        let (pce, own) = Pce::record_with(first, opts).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_same(
            &format!("{} recorded", s.name),
            &own,
            &ProvingAssignment::synthesize::<VecStore, _>(first, None).expect("synthesis"),
        );
        let (st, se) = (pce.stats(), exact.stats());
        println!(
            "{}: c = a·b on {} of {} constraints, terms {} → {}",
            s.name,
            st.c_products,
            pce.shape().constraints,
            se.terms,
            st.terms
        );
        assert!(st.c_products > 0 && st.terms < se.terms, "{}: nothing dropped", s.name);
        assert_eq!(Pce::from_bytes(&pce.to_bytes()).as_ref(), Ok(&pce));
        for sector in 0..2 {
            for (p, c) in s.sector_circuits(sector).iter().enumerate() {
                let name = format!("{} s{sector} c{p} (c = a·b)", s.name);
                let got = pce.synthesize(c).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_same(
                    &name,
                    &got,
                    &ProvingAssignment::synthesize::<VecStore, _>(c, None).expect("synthesis"),
                );
            }
        }
    }
}

/// ⟨row, w⟩ from a `MatrixRecorder` row.
fn eval(row: &[Term], inputs: &[Scalar], aux: &[Scalar]) -> Scalar {
    row.iter().fold(Scalar::ZERO, |acc, (v, k)| acc + v.value_in(inputs, aux) * k)
}

#[test]
fn recorded_matrices_reproduce_abc_for_random_witnesses_and_densities_follow_structure() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    for s in test_samples() {
        let c = &s.sector_circuits(0)[1];
        let (pce, _) = Pce::record(c).unwrap_or_else(|e| panic!("{e}"));
        let rec = MatrixRecorder::record(c).expect("record");
        for trial in 0..2 {
            let mut inputs: Vec<Scalar> = (0..rec.inputs.len()).map(|_| Scalar::random(&mut rng)).collect();
            inputs[0] = Scalar::ONE;
            let aux: Vec<Scalar> = (0..rec.aux.len())
                .map(|_| match rng.gen_range(0..4) {
                    0 => Scalar::ZERO,
                    1 => Scalar::ONE,
                    _ => Scalar::random(&mut rng),
                })
                .collect();
            let asg = pce.evaluate(inputs.clone(), aux.clone()).unwrap_or_else(|e| panic!("{e}"));
            let n = rec.a.len();
            for i in 0..n {
                assert_eq!(asg.a[i], eval(&rec.a[i], &inputs, &aux), "{} trial {trial}: A row {i}", s.name);
                assert_eq!(asg.b[i], eval(&rec.b[i], &inputs, &aux), "{} trial {trial}: B row {i}", s.name);
                assert_eq!(asg.c[i], eval(&rec.c[i], &inputs, &aux), "{} trial {trial}: C row {i}", s.name);
            }
            for (k, x) in inputs.iter().enumerate() {
                assert_eq!((asg.a[n + k], asg.b[n + k], asg.c[n + k]), (*x, Scalar::ZERO, Scalar::ZERO));
            }
            assert_eq!(asg.aux_assignment, aux);
            // Densities: exactly the variables that appear in some A (aux) / B (inputs, aux) row.
            let mut a_aux = vec![false; rec.aux.len()];
            let mut b_aux = vec![false; rec.aux.len()];
            let mut b_in = vec![false; rec.inputs.len()];
            for (v, _) in rec.a.iter().flatten() {
                if let Index::Aux(j) = v.0 {
                    a_aux[j] = true;
                }
            }
            for (v, _) in rec.b.iter().flatten() {
                match v.0 {
                    Index::Aux(j) => b_aux[j] = true,
                    Index::Input(j) => b_in[j] = true,
                }
            }
            assert!((0..a_aux.len()).all(|j| asg.a_aux_density.get(j) == a_aux[j]), "{}: a_aux", s.name);
            assert!((0..b_aux.len()).all(|j| asg.b_aux_density.get(j) == b_aux[j]), "{}: b_aux", s.name);
            assert!((0..b_in.len()).all(|j| asg.b_input_density.get(j) == b_in[j]), "{}: b_input", s.name);
        }
    }
}

/// Rows that exercise every coefficient class and edge: cancelling terms, repeats, 2^253, −2^k, a general
/// coefficient on the constant one, empty rows, inputs in A, B and C.
struct EdgeCircuit {
    x: Vec<Scalar>,
}

impl Circuit for EdgeCircuit {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let vars: Vec<_> = self.x.iter().map(|v| cs.alloc(*v)).collect();
        let input = cs.alloc_input(self.x[0] + self.x[1]);
        let big = Scalar::from(2u64).pow_vartime([253]);
        let odd = Scalar::from(0x1234_5678u64);
        let one = CS::one();
        cs.enforce(|lc| lc + vars[0] - vars[0], |lc| lc, |lc| lc + vars[1] + vars[1] + vars[1]);
        cs.enforce(|lc| lc + (big, vars[2]) - (big, vars[3]) + (odd, one), |lc| lc + input + one, |lc| lc);
        cs.enforce(
            |lc| lc - (Scalar::from(8u64), vars[4]) + (Scalar::from(8u64), vars[5]) - (Scalar::ONE, vars[4]),
            |lc| lc + (-odd, vars[6]) + (odd, vars[6]) + (odd, vars[7]),
            |lc| lc + input - (Scalar::from(3u64), one) + (big.double(), vars[0]),
        );
        for (k, &v) in vars.iter().enumerate() {
            cs.enforce(|lc| lc + (Scalar::from(1u64 << (k % 60)), v), |lc| lc + (-odd, one), |lc| lc + input);
        }
        Ok(())
    }
}

#[test]
fn edge_coefficients_and_rows_evaluate_exactly() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let c = EdgeCircuit { x: (0..40).map(|_| Scalar::random(&mut rng)).collect() };
    let (pce, own) = Pce::record(&c).unwrap_or_else(|e| panic!("{e}"));
    assert_same("edge", &own, &ProvingAssignment::synthesize::<VecStore, _>(&c, None).expect("synthesis"));
    let other = EdgeCircuit { x: (0..40).map(|_| Scalar::random(&mut rng)).collect() };
    let got = pce.synthesize(&other).unwrap_or_else(|e| panic!("{e}"));
    assert_same(
        "edge other",
        &got,
        &ProvingAssignment::synthesize::<VecStore, _>(&other, None).expect("synthesis"),
    );
}

#[test]
fn parallel_evaluation_is_independent_of_threads_and_chunks() {
    let s = &test_samples()[2];
    let c = &s.sector_circuits(0)[0];
    let (pce, base) = Pce::record(c).unwrap_or_else(|e| panic!("{e}"));
    for threads in [1, 2, 3] {
        let pool =
            rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap_or_else(|e| panic!("{e}"));
        for chunk in [1, 7, 256, 1 << 20] {
            let w = WitnessOnly::synthesize(c, Some(pce.shape())).expect("witness");
            let got = pool
                .install(|| pce.evaluate_chunked(w.inputs, w.aux, chunk))
                .unwrap_or_else(|e| panic!("{e}"));
            assert_same(&format!("{threads} threads, chunk {chunk}"), &got, &base);
        }
    }
}

#[test]
fn serialized_record_round_trips_and_corruption_is_detected() {
    let s = &test_samples()[3];
    let c = &s.sector_circuits(0)[0];
    let (pce, _) = Pce::record(c).unwrap_or_else(|e| panic!("{e}"));
    let bytes = pce.to_bytes();
    assert_eq!(Pce::from_bytes(&bytes).as_ref(), Ok(&pce));
    let (shape, digest) = ShapeCounter::count_with_digest(c).expect("count");
    assert!(Pce::from_bytes_expecting(&bytes, shape, digest).is_ok());

    let mut rng = ChaCha8Rng::seed_from_u64(99);
    for _ in 0..300 {
        let mut bad = bytes.clone();
        let flips = rng.gen_range(1..4);
        for _ in 0..flips {
            let i = rng.gen_range(0..bad.len());
            bad[i] ^= 1 << rng.gen_range(0..8);
        }
        assert!(Pce::from_bytes(&bad).is_err(), "a bit flip went undetected");
    }
    for _ in 0..100 {
        let cut = rng.gen_range(0..bytes.len());
        assert!(Pce::from_bytes(&bytes[..cut]).is_err(), "truncation to {cut} bytes went undetected");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Pce::from_bytes(&longer).is_err());
    assert_eq!(Pce::from_bytes(b"not a record at all, not at all"), Err(PceError::BadMagic));
    // A record of another format version (v1 had a SHA-256 trailer) is refused by its version.
    for other in [1u32, cuzk::cs::pce::FORMAT_VERSION + 1] {
        let mut v = bytes.clone();
        v[8..12].copy_from_slice(&other.to_le_bytes());
        assert_eq!(Pce::from_bytes(&v), Err(PceError::Version(other)));
    }
}

/// Re-signs a modified body so only the structural checks can catch it.
fn resign(mut body: Vec<u8>) -> Vec<u8> {
    let n = body.len() - 16;
    let sum = xxhash_rust::xxh3::xxh3_128(&body[..n]).to_le_bytes();
    body[n..].copy_from_slice(&sum);
    body
}

#[test]
fn checksum_valid_but_malformed_records_are_rejected() {
    let s = &test_samples()[2];
    let (pce, _) = Pce::record(&s.sector_circuits(0)[0]).unwrap_or_else(|e| panic!("{e}"));
    let bytes = pce.to_bytes();
    let header = 8 + 4 + 4 + 8 * 8;
    let rows = 3 * pce.shape().constraints;
    let cols_at = header + 4 * (rows + 1);
    // A column beyond the variables.
    let mut bad = bytes.clone();
    bad[cols_at..cols_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(Pce::from_bytes(&resign(bad)), Err(PceError::Invalid("column out of range")));
    // Row pointers that decrease.
    let mut bad = bytes.clone();
    bad[header + 4..header + 8].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(Pce::from_bytes(&resign(bad)), Err(PceError::Invalid(_))));
    // A shape whose row count does not match.
    let mut bad = bytes.clone();
    bad[16..24].copy_from_slice(&1u64.to_le_bytes());
    assert!(matches!(Pce::from_bytes(&resign(bad)), Err(PceError::Invalid(_))));
    // Random re-signed corruption anywhere: an error or a record, never a panic.
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..300 {
        let mut bad = bytes.clone();
        let i = rng.gen_range(0..bad.len() - 32);
        bad[i] = rng.gen();
        if let Ok(p) = Pce::from_bytes(&resign(bad)) {
            // Whatever it decoded is in bounds: evaluating it must not panic either.
            let w = WitnessOnly::synthesize(&s.sector_circuits(0)[0], None).expect("witness");
            let _ = p.evaluate(w.inputs, w.aux);
        }
    }
}

/// Two circuits with the same counts whose allocations and constraints come in another order.
struct Order(bool);

impl Circuit for Order {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let x = cs.alloc(Scalar::from(3u64));
        if self.0 {
            cs.enforce(|lc| lc + x, |lc| lc + x, |lc| lc + x);
            let _ = cs.alloc(Scalar::from(9u64));
        } else {
            let _ = cs.alloc(Scalar::from(9u64));
            cs.enforce(|lc| lc + x, |lc| lc + x, |lc| lc + x);
        }
        Ok(())
    }
}

#[test]
fn a_record_of_another_shape_is_never_used() {
    let samples = test_samples();
    let chain = &samples[2].sector_circuits(0)[0];
    let pm = &samples[3].sector_circuits(0)[0];
    let (pce, _) = Pce::record(chain).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(pce.synthesize(pm), Err(PceError::ShapeMismatch { .. })));
    let w = WitnessOnly::synthesize(pm, None).expect("witness");
    assert!(matches!(pce.evaluate(w.inputs, w.aux), Err(PceError::ShapeMismatch { .. })));

    let (order, _) = Pce::record(&Order(true)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ShapeCounter::count(&Order(false)).expect("count"), order.shape());
    assert!(matches!(order.synthesize(&Order(false)), Err(PceError::FingerprintMismatch { .. })));
    assert!(order.synthesize(&Order(true)).is_ok());

    let (shape, digest) = ShapeCounter::count_with_digest(pm).expect("count");
    let err = Pce::from_bytes_expecting(&pce.to_bytes(), shape, digest);
    assert!(matches!(err, Err(PceError::WrongCircuit { .. })));
    let other_digest = Pce::from_bytes_expecting(&pce.to_bytes(), pce.shape(), pce.digest() ^ 1);
    assert!(matches!(other_digest, Err(PceError::WrongCircuit { .. })));
    assert_ne!(pce.shape(), Shape::default());
}

/// Only allocations, no constraint.
struct Empty;

impl Circuit for Empty {
    fn synthesize<CS: ConstraintSystem>(&self, cs: &mut CS) -> Result<(), SynthesisError> {
        let _ = cs.alloc(Scalar::from(7u64));
        let _ = cs.alloc_input(Scalar::from(5u64));
        Ok(())
    }
}

#[test]
fn degenerate_circuits_and_wrong_buffers_are_handled() {
    let (pce, asg) = Pce::record(&Empty).unwrap_or_else(|e| panic!("{e}"));
    assert_same(
        "empty",
        &asg,
        &ProvingAssignment::synthesize::<VecStore, _>(&Empty, None).expect("synthesis"),
    );
    assert_eq!(Pce::from_bytes(&pce.to_bytes()).as_ref(), Ok(&pce));

    let s = &test_samples()[2];
    let c = &s.sector_circuits(0)[0];
    let (pce, base) = Pce::record(c).unwrap_or_else(|e| panic!("{e}"));
    let mut w = base.aux_assignment.clone();
    w.extend_from_slice(&base.input_assignment);
    let n = pce.shape().constraints;
    let (mut a, mut b, mut cc) = (vec![Scalar::ZERO; n], vec![Scalar::ZERO; n], vec![Scalar::ZERO; n + 1]);
    assert!(matches!(
        pce.evaluate_into(&w, &mut a, &mut b, &mut cc, 64),
        Err(PceError::Length { what: "c", .. })
    ));
    cc.pop();
    assert!(matches!(
        pce.evaluate_into(&w[1..], &mut a, &mut b, &mut cc, 64),
        Err(PceError::Length { what: "w", .. })
    ));
    pce.evaluate_into(&w, &mut a, &mut b, &mut cc, 64).unwrap_or_else(|e| panic!("{e}"));
    assert!(a[..] == base.a[..n] && b[..] == base.b[..n] && cc[..] == base.c[..n]);
}

/// A lender of heap blocks (filled with a pattern, so unwritten slots would show) that counts what it lends
/// and what comes back.
struct CountingPool {
    lent: std::sync::atomic::AtomicUsize,
    back: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    /// Blocks this many scalars short of what is asked (0: exactly the size; > 0 forces a spill to the heap).
    short: usize,
}

struct PatternBlock(Vec<Scalar>, std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl HostBlock for PatternBlock {
    fn ptr(&self) -> *mut Scalar {
        self.0.as_ptr() as *mut Scalar
    }
    fn capacity(&self) -> usize {
        self.0.len()
    }
}

impl Drop for PatternBlock {
    fn drop(&mut self) {
        self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl HostPool for CountingPool {
    fn lend(&self, scalars: usize) -> Option<Box<dyn HostBlock>> {
        self.lent.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let fill = Scalar::from(0xdead_beefu64);
        Some(Box::new(PatternBlock(vec![fill; scalars - self.short], self.back.clone())))
    }
}

#[test]
fn evaluations_written_into_lent_blocks_equal_heap_synthesis_and_the_blocks_come_back() {
    use std::sync::atomic::Ordering;
    for s in test_samples() {
        let first = &s.sector_circuits(0)[0];
        let (pce, _) = Pce::record(first).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        for short in [0, 1] {
            let back = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let pool = CountingPool { lent: Default::default(), back: back.clone(), short };
            let c = &s.sector_circuits(1)[1];
            let name = format!("{} short {short}", s.name);
            let got = pce.synthesize_into(c, || (), Some(&pool)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(pool.lent.load(Ordering::Relaxed), 3, "{name}: a, b, c each lent a block");
            // Blocks that fit keep the values; one scalar short spills them to the heap and returns the block.
            assert!([&got.a, &got.b, &got.c].iter().all(|e| e.is_lent() == (short == 0)), "{name}");
            assert_eq!(back.load(Ordering::Relaxed), if short == 0 { 0 } else { 3 }, "{name}");
            assert_same(
                &name,
                &got,
                &ProvingAssignment::synthesize::<VecStore, _>(c, None).expect("synthesis"),
            );
            drop(got);
            assert_eq!(back.load(Ordering::Relaxed), 3, "{name}: every block returned");
        }
    }
}

/// A record made in several passes at once (`Pce::record_striped`) is the one-pass record, field for field,
/// for every circuit kind and a real Filecoin circuit through the foreign adapter; and the first circuit's
/// assignment from it equals full synthesis.
#[test]
fn striped_records_equal_one_pass_records() {
    let mut samples = test_samples();
    samples.push(Sample::load(Path::new("samples/winning-post-2kib.toml")).unwrap_or_else(|e| panic!("{e}")));
    for s in samples {
        let c = &s.sector_circuits(0)[0];
        for c_from_products in [false, true] {
            let options = RecordOptions { c_from_products };
            let (one, recorded) = Pce::record_with(c, options).unwrap_or_else(|e| panic!("{}: {e}", s.name));
            let rows = one.shape().constraints;
            for passes in [2, 3] {
                let striped = Pce::record_striped(c, options, passes, rows).unwrap_or_else(|e| panic!("{e}"));
                assert!(striped == one, "{}: {passes} passes, {options:?}", s.name);
            }
            let from_striped = Pce::record_striped(c, options, 2, rows).and_then(|p| p.synthesize(c));
            let name = format!("{} from a striped record", s.name);
            assert_same(&name, &from_striped.unwrap_or_else(|e| panic!("{e}")), &recorded);
        }
    }
}
