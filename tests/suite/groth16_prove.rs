//! The prover end to end on the CPU backend: proofs verify with the pairing check, tampering fails, every
//! toggle combination gives byte-identical proofs, and prep_msm's split equals the full MSM.

use std::path::Path;
use std::sync::Arc;

use blstrs::{G1Affine, G1Projective, Scalar};
use cuzk::backend::api::{Backend, Bases};
use cuzk::backend::cpu::backend::CpuBackend;
use cuzk::circuits::{Sample, SampleCircuit};
use cuzk::cs::{Density, ProvingAssignment, ShapeCounter};
use cuzk::groth16::prover::{
    prove_assignments, synthesize, synthesize_with, AuxBases, CallSpec, PceSlot, Prep,
};
use cuzk::groth16::setup::generate;
use cuzk::groth16::verify::{verify_batch, verify_proof, PreparedVerifyingKey};
use cuzk::groth16::{Parameters, Proof};
use cuzk::vocab::{Probe, Toggle, Toggles};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn sample(text: &str) -> Sample {
    Sample::parse(Path::new("test.toml"), text).unwrap_or_else(|e| panic!("{e}"))
}

fn tiny() -> Sample {
    Sample::load(Path::new("samples/porep-tiny.toml")).unwrap_or_else(|e| panic!("{e}"))
}

fn setup_for(s: &Sample) -> (Arc<Parameters>, Vec<SampleCircuit>) {
    let circuits = s.sector_circuits(0);
    let shape = ShapeCounter::count(&circuits[0]).expect("count");
    (Arc::new(generate(&circuits[0], shape, s.seed, &|_, _, _| {}).expect("setup")), circuits)
}

fn prove(params: &Parameters, circuits: &[SampleCircuit], t: &Toggles, seed: u64) -> Vec<Proof> {
    prove_pce(params, circuits, t, seed, None)
}

/// [`prove`] with a PCE slot (used when `t` has `pce` on).
fn prove_pce(
    params: &Parameters,
    circuits: &[SampleCircuit],
    t: &Toggles,
    seed: u64,
    slot: Option<&PceSlot>,
) -> Vec<Proof> {
    let hint = Some(ShapeCounter::count(&circuits[0]).expect("count"));
    let asgs = synthesize_with(&Probe::silent(), circuits, t, hint, 0, slot, None).expect("synthesis");
    let call = CallSpec { params, toggles: t, seed, first: 0 };
    prove_assignments(&Probe::silent(), &CpuBackend::new(), call, asgs).unwrap_or_else(|e| panic!("{e}"))
}

fn inputs(circuits: &[SampleCircuit]) -> Vec<Vec<Scalar>> {
    circuits.iter().map(|c| c.public_inputs()).collect()
}

#[test]
fn proofs_verify_and_tampering_fails() {
    let samples = [
        tiny(),
        sample("name = \"chain\"\npartitions = 2\nseed = 9\n[circuit]\nkind = \"sha256-chain\"\ncompressions = 1\n"),
        sample("name = \"pm\"\npartitions = 3\nseed = 4\n[circuit]\nkind = \"poseidon-merkle\"\nheight = 2\npaths = 2\n"),
    ];
    let mut other_vk = None;
    for s in &samples {
        let (params, circuits) = setup_for(s);
        let proofs = prove(&params, &circuits, &Toggles::default(), s.seed);
        let pvk = PreparedVerifyingKey::new(&params.vk);
        let ins = inputs(&circuits);
        assert!(
            verify_batch(&pvk, &proofs, &ins).unwrap().iter().all(|ok| *ok),
            "{}: proofs must verify",
            s.name
        );

        // A flipped byte: either not a valid encoding any more, or a proof that fails.
        let mut bytes = proofs[0].to_bytes();
        for pos in [5usize, 60, 150] {
            bytes[pos] ^= 0x04;
            if let Ok(p) = Proof::from_bytes(&bytes) {
                assert!(
                    !verify_proof(&pvk, &p, &ins[0]).unwrap_or(false),
                    "{}: flipped byte {pos} verified",
                    s.name
                );
            }
            bytes[pos] ^= 0x04;
        }
        // A wrong public input.
        let mut wrong = ins[0].clone();
        wrong[0] += Scalar::ONE;
        assert!(!verify_proof(&pvk, &proofs[0], &wrong).unwrap_or(false), "{}: wrong input verified", s.name);
        // Another circuit's proof with these inputs.
        if proofs.len() > 1 && ins[0] != ins[1] {
            assert!(!verify_proof(&pvk, &proofs[1], &ins[0]).unwrap_or(false));
        }
        // Another circuit's vk (same input count needed to reach the pairing).
        if let Some(vk) = other_vk.replace(params.vk.clone()) {
            let pvk2 = PreparedVerifyingKey::new(&vk);
            assert!(
                !verify_proof(&pvk2, &proofs[0], &ins[0]).unwrap_or(false),
                "{}: foreign vk verified",
                s.name
            );
        }
    }
}

#[test]
fn every_toggle_combination_gives_identical_proofs() {
    let s = tiny();
    let (params, circuits) = setup_for(&s);
    let base = prove(&params, &circuits, &Toggles::default(), 77);
    let pvk = PreparedVerifyingKey::new(&params.vk);
    assert!(verify_batch(&pvk, &base, &inputs(&circuits)).unwrap().iter().all(|ok| *ok));
    let base_bytes: Vec<_> = base.iter().map(Proof::to_bytes).collect();
    // `pce` is flipped against half of the 32 combinations (on where the mask has an odd popcount, so every
    // other toggle is seen both with and without it) rather than doubling the loop; one slot serves every
    // combination, so its record (made on first use) is reused.
    let (shape, digest) = ShapeCounter::count_with_digest(&circuits[0]).expect("count");
    let slot = PceSlot::new(shape, digest);
    let mut with_pce = 0;
    for mask in 0u32..32 {
        let mut t = Toggles::default();
        for (bit, tog) in [Toggle::A1, Toggle::A2, Toggle::A4, Toggle::B1, Toggle::D4].into_iter().enumerate()
        {
            t.set(tog, mask & (1 << bit) != 0);
        }
        t.set(Toggle::Pce, mask.count_ones() % 2 == 1);
        // g2d is device-only: the CPU backend ignores it (adds B_G2 on the host), proofs unchanged.
        t.set(Toggle::G2d, mask.is_multiple_of(3));
        with_pce += usize::from(t.on(Toggle::Pce));
        let got: Vec<_> =
            prove_pce(&params, &circuits, &t, 77, Some(&slot)).iter().map(Proof::to_bytes).collect();
        assert_eq!(got, base_bytes, "toggles {} changed the proofs", t.compact());
    }
    assert_eq!(with_pce, 16);
    assert!(slot.get().is_some_and(|p| p.matches(shape, digest)), "pce runs recorded the shape");
    // A different seed changes the randomizers, hence the proofs.
    let other: Vec<_> =
        prove(&params, &circuits, &Toggles::default(), 78).iter().map(Proof::to_bytes).collect();
    assert_ne!(other, base_bytes);
}

#[test]
fn circuit_index_fixes_the_randomizers() {
    // Proving circuit 1 alone at job index 1 gives the same proof as proving both together.
    let s = tiny();
    let (params, circuits) = setup_for(&s);
    let t = Toggles::default();
    let both = prove(&params, &circuits, &t, 5);
    let asgs = synthesize(&Probe::silent(), &circuits[1..], &t, None, 1).expect("synthesis");
    let call = CallSpec { params: &params, toggles: &t, seed: 5, first: 1 };
    let alone = prove_assignments(&Probe::silent(), &CpuBackend::new(), call, asgs).unwrap();
    assert_eq!(alone[0].to_bytes(), both[1].to_bytes());
}

#[test]
fn wrong_params_are_a_clear_error() {
    let s = tiny();
    let (_, circuits) = setup_for(&s);
    let other = sample("name = \"pm\"\npartitions = 1\nseed = 4\n[circuit]\nkind = \"poseidon-merkle\"\nheight = 1\npaths = 1\n");
    let (params, _) = setup_for(&other);
    let t = Toggles::default();
    let asgs = synthesize(&Probe::silent(), &circuits, &t, None, 0).expect("synthesis");
    let call = CallSpec { params: &params, toggles: &t, seed: 1, first: 0 };
    let err = prove_assignments(&Probe::silent(), &CpuBackend::new(), call, asgs).unwrap_err();
    assert!(err.to_string().contains("does not match the params"), "{err}");
}

/// Random points as multiples of the generator.
fn points(n: usize, rng: &mut ChaCha8Rng) -> Vec<G1Affine> {
    let g = G1Projective::generator();
    (0..n).map(|_| (g * Scalar::random(&mut *rng)).to_affine()).collect()
}

fn naive(bases: &[G1Affine], scalars: &[Scalar]) -> G1Projective {
    bases.iter().zip(scalars).fold(G1Projective::identity(), |acc, (p, s)| acc + *p * s)
}

/// An assignment whose aux values follow `pick` (0 → zero, 1 → one, else random), densities all set.
fn assignment(n: usize, rng: &mut ChaCha8Rng, pick: impl Fn(&mut ChaCha8Rng) -> u8) -> ProvingAssignment {
    let mut g = ProvingAssignment::default();
    let mut d = Density::default();
    for _ in 0..n {
        g.aux_assignment.push(match pick(rng) {
            0 => Scalar::ZERO,
            1 => Scalar::ONE,
            _ => Scalar::random(&mut *rng),
        });
        d.push_clear();
    }
    for i in (0..n).step_by(2) {
        d.set(i);
    }
    g.a_aux_density = d.clone();
    g.b_aux_density = d;
    g
}

#[test]
fn prep_split_equals_full_msm() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let n = 300;
    let bases = points(n, &mut rng);
    let half: Vec<G1Affine> = bases.iter().step_by(2).copied().collect();
    let g2 = vec![blstrs::G2Affine::generator(); n];
    let backend = CpuBackend::new();
    type Pick = fn(&mut ChaCha8Rng) -> u8;
    let cases: [(&str, Pick, bool); 5] = [
        ("mostly 0/1", |r| if r.gen_bool(0.1) { 2 } else { r.gen_range(0..2) }, true),
        ("mostly other", |r| if r.gen_bool(0.9) { 2 } else { r.gen_range(0..2) }, false),
        ("all zero", |_| 0, true),
        ("all one", |_| 1, true),
        ("even mix", |r| r.gen_range(0..3), false),
    ];
    for (label, pick, split_expected) in cases {
        let asgs = vec![assignment(n, &mut rng, pick), assignment(n, &mut rng, pick)];
        let prep = Prep::new(&asgs, AuxBases { l: &bases, a: &half, b_g1: &half, b_g2: &g2[..half.len()] });
        assert_eq!(prep.l.split, split_expected, "{label}: split decision");
        for (i, g) in asgs.iter().enumerate() {
            let dense: Vec<Scalar> = g.a_aux_density.iter_set().map(|j| g.aux_assignment[j]).collect();
            for (plan, tail_bases, full_bases, scalars) in [
                (&prep.l, &prep.l_bases, &bases[..], &g.aux_assignment[..]),
                (&prep.a, &prep.a_bases, &half[..], &dense[..]),
            ] {
                let ones = if plan.split {
                    backend.batch_add_g1(Bases::host(full_bases), &plan.ones[i]).unwrap()
                } else {
                    G1Projective::identity()
                };
                let tail = backend.msm_g1(Bases::host(tail_bases), &plan.tail_scalars[i], None).unwrap();
                assert_eq!(
                    ones + tail,
                    naive(full_bases, scalars),
                    "{label}: {} split {}",
                    plan.name,
                    plan.split
                );
            }
        }
    }
}
