//! Groth16 data formats, params file, cache and verifier, checked against layout arithmetic computed here and
//! a proof built from chosen toxic waste (no prover needed). All points are seeded random multiples of the
//! generators.

use std::path::{Path, PathBuf};

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk::groth16::cache::{checksum_path, CacheOutcome, ParamsCache};
use cuzk::groth16::params_file::{parse_params, read_params, write_atomic, write_params};
use cuzk::groth16::proof::{decode_inputs, decode_proofs, encode_inputs, read_proofs, write_proofs, Proof};
use cuzk::groth16::verify::{verify_batch, verify_proof, PreparedVerifyingKey};
use cuzk::groth16::{Error, Parameters, PointCheck, Section, VerifyingKey};
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve, Group};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const G1U: usize = 96;
const G2U: usize = 192;

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

fn g1(s: Scalar) -> G1Affine {
    (G1Projective::generator() * s).to_affine()
}

fn g2(s: Scalar) -> G2Affine {
    (G2Projective::generator() * s).to_affine()
}

fn rand_g1s(r: &mut ChaCha20Rng, n: usize) -> Vec<G1Affine> {
    (0..n).map(|_| g1(Scalar::random(&mut *r))).collect()
}

fn rand_vk(r: &mut ChaCha20Rng, n_ic: usize) -> VerifyingKey {
    VerifyingKey {
        alpha_g1: g1(Scalar::random(&mut *r)),
        beta_g1: g1(Scalar::random(&mut *r)),
        beta_g2: g2(Scalar::random(&mut *r)),
        gamma_g2: g2(Scalar::random(&mut *r)),
        delta_g1: g1(Scalar::random(&mut *r)),
        delta_g2: g2(Scalar::random(&mut *r)),
        ic: rand_g1s(r, n_ic),
    }
}

/// Params with distinct section sizes; A, B_G1 and B_G2 contain identity points as bellperson writes them.
fn rand_params(seed: u64) -> Parameters {
    let r = &mut rng(seed);
    let mut a = rand_g1s(r, 7);
    a[2] = G1Affine::identity();
    let mut b_g1 = rand_g1s(r, 5);
    b_g1[0] = G1Affine::identity();
    let mut b_g2: Vec<G2Affine> = (0..5).map(|_| g2(Scalar::random(&mut *r))).collect();
    b_g2[3] = G2Affine::identity();
    let (vk, h, l) = (rand_vk(r, 3), rand_g1s(r, 8), rand_g1s(r, 6));
    Parameters::new(vk, h, l, a, b_g1, b_g2)
}

/// Offsets of each count field, computed independently of the crate: (section, count offset, point size, n).
fn count_offsets(p: &Parameters) -> Vec<(Section, usize, usize, usize)> {
    let mut off = 3 * G1U + 3 * G2U;
    let mut out = Vec::new();
    for (s, size, n) in [
        (Section::Ic, G1U, p.vk.ic.len()),
        (Section::H, G1U, p.h.len()),
        (Section::L, G1U, p.l.len()),
        (Section::A, G1U, p.a.len()),
        (Section::BG1, G1U, p.b_g1.len()),
        (Section::BG2, G2U, p.b_g2.len()),
    ] {
        out.push((s, off, size, n));
        off += 4 + size * n;
    }
    out
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuzk-g16-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn dir_names(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn vk_roundtrip_and_layout() {
    let vk = rand_vk(&mut rng(1), 3);
    let bytes = vk.to_bytes();
    assert_eq!(bytes.len(), 96 * 3 + 192 * 3 + 4 + 96 * 3);
    assert_eq!(bytes.len(), vk.serialized_len());
    assert_eq!(&bytes[..96], &vk.alpha_g1.to_uncompressed()[..]);
    assert_eq!(&bytes[96..192], &vk.beta_g1.to_uncompressed()[..]);
    assert_eq!(&bytes[192..384], &vk.beta_g2.to_uncompressed()[..]);
    assert_eq!(&bytes[384..576], &vk.gamma_g2.to_uncompressed()[..]);
    assert_eq!(&bytes[576..672], &vk.delta_g1.to_uncompressed()[..]);
    assert_eq!(&bytes[672..864], &vk.delta_g2.to_uncompressed()[..]);
    assert_eq!(&bytes[864..868], &[0, 0, 0, 3]);
    assert_eq!(&bytes[868 + 2 * 96..], &vk.ic[2].to_uncompressed()[..]);
    assert_eq!(VerifyingKey::read(&bytes[..]).unwrap(), vk);

    let err = VerifyingKey::read(&bytes[..bytes.len() - 1]).unwrap_err();
    assert!(matches!(err, Error::Truncated { section: Section::Ic, .. }), "{err}");
    let d = temp_dir("vkfile");
    let p = d.join("k.vk");
    std::fs::write(&p, [&bytes[..], &[7u8]].concat()).unwrap();
    let err = VerifyingKey::read_file(&p).unwrap_err();
    assert!(matches!(err, Error::TrailingBytes { extra: 1, .. }), "{err}");
    std::fs::write(&p, &bytes).unwrap();
    assert_eq!(VerifyingKey::read_file(&p).unwrap(), vk);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn params_roundtrip_and_layout() {
    let p = rand_params(2);
    let d = temp_dir("roundtrip");
    let path = d.join("x.params");
    write_params(&path, &p).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let expected = (96 * 3 + 192 * 3 + 4 + 96 * 3) + 4 * 5 + 96 * (8 + 6 + 7 + 5) + 192 * 5;
    assert_eq!(bytes.len(), expected);
    assert_eq!(bytes.len(), p.serialized_len());
    for (_, off, size, n) in count_offsets(&p) {
        assert_eq!(&bytes[off..off + 4], &(n as u32).to_be_bytes());
        assert!(bytes.len() >= off + 4 + size * n);
    }
    let (_, a_off, _, _) = count_offsets(&p)[3];
    let inf = &bytes[a_off + 4 + 2 * 96..a_off + 4 + 3 * 96];
    assert_eq!(inf[0], 0x40, "identity is written with the infinity flag");
    assert!(inf[1..].iter().all(|&b| b == 0));
    for check in [PointCheck::OnCurve, PointCheck::Subgroup] {
        assert_eq!(read_params(&path, check).unwrap(), p);
    }
    assert_eq!(dir_names(&d), vec!["x.params".to_string()], "no temp files left");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn truncation_names_the_section() {
    let p = rand_params(3);
    let mut bytes = Vec::new();
    p.write(&mut bytes).unwrap();
    let offs = count_offsets(&p);
    let find = |s: Section| offs.iter().find(|o| o.0 == s).copied().unwrap();
    let (_, l_off, _, _) = find(Section::L);
    let (_, bg2_off, _, _) = find(Section::BG2);
    let (_, ic_off, _, _) = find(Section::Ic);
    let cases: Vec<(usize, Section, &str)> = vec![
        (0, Section::AlphaG1, "point"),
        (100, Section::BetaG1, "point"),
        (700, Section::DeltaG2, "point"),
        (ic_off + 2, Section::Ic, "count"),
        (ic_off + 4 + 10, Section::Ic, "3 points"),
        (l_off + 1, Section::L, "count"),
        (l_off + 4 + 3 * 96 + 5, Section::L, "6 points"),
        (bg2_off + 3, Section::BG2, "count"),
        (bytes.len() - 1, Section::BG2, "5 points"),
    ];
    let d = temp_dir("trunc");
    let path = d.join("t.params");
    for (cut, section, what) in cases {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let err = read_params(&path, PointCheck::OnCurve).unwrap_err();
        let msg = err.to_string();
        match &err {
            Error::Truncated { section: s, what: w, len, .. } => {
                assert_eq!((*s, w.as_str(), *len), (section, what, cut as u64), "{msg}");
            }
            other => panic!("cut at {cut}: expected Truncated, got {other}"),
        }
        assert!(msg.contains(&path.display().to_string()), "{msg}");
        assert!(msg.contains(&format!("section {section} truncated")), "{msg}");
        assert!(msg.contains(&format!("file is {cut} bytes")), "{msg}");
    }
    let err = parse_params(&[bytes.clone(), vec![1]].concat(), "mem", PointCheck::OnCurve).unwrap_err();
    assert!(matches!(err, Error::TrailingBytes { extra: 1, .. }), "{err}");
    // A count that is too large is caught by the arithmetic, before any point is decoded.
    let mut big = bytes.clone();
    big[l_off..l_off + 4].copy_from_slice(&1000u32.to_be_bytes());
    let err = parse_params(&big, "mem", PointCheck::OnCurve).unwrap_err();
    assert!(matches!(err, Error::Truncated { section: Section::L, expected: 96_000, .. }), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn every_byte_flip_in_a_point_is_detected() {
    let p = rand_params(4);
    let mut bytes = Vec::new();
    p.write(&mut bytes).unwrap();
    let offs = count_offsets(&p);
    let find = |s: Section| offs.iter().find(|o| o.0 == s).copied().unwrap();
    // Point 4 of L, the identity at A[2], point 1 of B_G2, the identity at B_G2[3], and the vk's gamma.
    let (_, l, _, _) = find(Section::L);
    let (_, a, _, _) = find(Section::A);
    let (_, b2, _, _) = find(Section::BG2);
    let targets = [
        (Section::L, 4, l + 4 + 4 * G1U, G1U),
        (Section::A, 2, a + 4 + 2 * G1U, G1U),
        (Section::BG2, 1, b2 + 4 + G2U, G2U),
        (Section::BG2, 3, b2 + 4 + 3 * G2U, G2U),
        (Section::GammaG2, 0, 384, G2U),
    ];
    for (section, index, start, size) in targets {
        for pos in start..start + size {
            for mask in [0x01u8, 0x20, 0x40, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[pos] ^= mask;
                match parse_params(&bad, "mem", PointCheck::OnCurve) {
                    Err(Error::BadPoint { section: s, index: i, offset, .. }) => {
                        assert_eq!((s, i, offset), (section, index, start as u64), "byte {pos} ^ {mask:#x}");
                    }
                    other => panic!("byte {pos} ^ {mask:#x} in {section}: {:?}", other.map(|_| ())),
                }
            }
        }
    }
}

#[test]
fn canonical_decode_equals_the_curve_checked_one_and_rejects_bad_coordinates() {
    let p = rand_params(8);
    let mut bytes = Vec::new();
    p.write(&mut bytes).unwrap();
    let on = parse_params(&bytes, "mem", PointCheck::OnCurve).unwrap();
    let canon = parse_params(&bytes, "mem", PointCheck::Canonical).unwrap();
    assert_eq!(
        (&canon.h, &canon.l, &canon.a, &canon.b_g1, &canon.b_g2),
        (&on.h, &on.l, &on.a, &on.b_g1, &on.b_g2)
    );
    assert_eq!((canon.a[2], on.a[2]), (G1Affine::identity(), G1Affine::identity()), "the identity decodes");
    assert_eq!(canon.b_g2[3], G2Affine::identity(), "the G2 identity decodes");
    assert!(canon.b_g2.iter().all(|q| bool::from(q.is_on_curve())));
    assert!(canon.h.iter().chain(&canon.l).all(|q| bool::from(q.is_on_curve())));
    // L[4]: a coordinate at or above p, or a flag bit, is still a bad point at its own index and offset.
    let offs = count_offsets(&p);
    let (_, l, _, _) = offs.iter().find(|o| o.0 == Section::L).copied().unwrap();
    let start = l + 4 + 4 * G1U;
    let x_high = |b: &mut Vec<u8>| b[start..start + 48].fill(0xff);
    let y_high = |b: &mut Vec<u8>| b[start + 48..start + 96].fill(0xff);
    let x_above_p = |b: &mut Vec<u8>| {
        b[start..start + 48].fill(0xff);
        b[start] = 0x1f; // no flag bits, value still above p (p < 2^381)
    };
    let sort_flag = |b: &mut Vec<u8>| b[start] |= 0x20;
    let infinity_with_bits = |b: &mut Vec<u8>| b[start] |= 0x40;
    type Corrupt<'a> = &'a dyn Fn(&mut Vec<u8>);
    let corruptions: [(&str, Corrupt); 5] = [
        ("x all ones", &x_high),
        ("y all ones", &y_high),
        ("x above p", &x_above_p),
        ("sort flag", &sort_flag),
        ("infinity flag on a point", &infinity_with_bits),
    ];
    for (what, corrupt) in corruptions {
        let mut bad = bytes.clone();
        corrupt(&mut bad);
        match parse_params(&bad, "mem", PointCheck::Canonical) {
            Err(Error::BadPoint { section: Section::L, index: 4, offset, .. }) => {
                assert_eq!(offset, start as u64, "{what}")
            }
            other => panic!("{what}: {:?}", other.map(|_| ())),
        }
    }
    // B_G2[1]: each of its four coordinates (x.c1, x.c0, y.c1, y.c0) at or above p, and the sort flag.
    let (_, b2, _, _) = offs.iter().find(|o| o.0 == Section::BG2).copied().unwrap();
    let start = b2 + 4 + G2U;
    for (what, at) in [("x.c1", 0), ("x.c0", 48), ("y.c1", 96), ("y.c0", 144)] {
        let mut bad = bytes.clone();
        bad[start + at..start + at + 48].fill(0xff);
        bad[start + at] = 0x1f;
        match parse_params(&bad, "mem", PointCheck::Canonical) {
            Err(Error::BadPoint { section: Section::BG2, index: 1, offset, .. }) => {
                assert_eq!(offset, start as u64, "{what}")
            }
            other => panic!("G2 {what} above p: {:?}", other.map(|_| ())),
        }
    }
    let mut bad = bytes.clone();
    bad[start] |= 0x20;
    assert!(matches!(
        parse_params(&bad, "mem", PointCheck::Canonical),
        Err(Error::BadPoint { section: Section::BG2, index: 1, .. })
    ));
}

/// A point on the curve that is (with overwhelming probability) outside the prime-order subgroup.
fn off_subgroup_g1() -> G1Affine {
    (1u8..=255)
        .find_map(|x| {
            let mut enc = [0u8; 48];
            enc[0] = 0x80;
            enc[47] = x;
            Option::<G1Affine>::from(G1Affine::from_compressed_unchecked(&enc))
        })
        .unwrap()
}

#[test]
fn subgroup_check_is_opt_in_for_sections_and_always_on_for_vk() {
    let q = off_subgroup_g1();
    assert!(bool::from(q.is_on_curve()) && !bool::from(q.is_torsion_free()));
    let mut p = rand_params(5);
    p.h[5] = q;
    let mut bytes = Vec::new();
    p.write(&mut bytes).unwrap();
    assert_eq!(parse_params(&bytes, "mem", PointCheck::OnCurve).unwrap().h[5], q);
    let err = parse_params(&bytes, "mem", PointCheck::Subgroup).unwrap_err();
    assert!(matches!(err, Error::BadPoint { section: Section::H, index: 5, .. }), "{err}");
    assert!(err.to_string().contains("subgroup"), "{err}");

    let mut vk = rand_vk(&mut rng(6), 2);
    vk.ic[1] = q;
    let err = VerifyingKey::read(&vk.to_bytes()[..]).unwrap_err();
    assert!(matches!(err, Error::BadPoint { section: Section::Ic, index: 1, .. }), "{err}");
}

#[test]
fn cache_builds_loads_and_rebuilds_corrupt_files() {
    let d = temp_dir("cache");
    // The params file's own checks (tests/suite/params_native.rs has the native copy's).
    let cache = ParamsCache::new(d.join("params")).without_native();
    let key = "shape-0123abcd";
    let expected = rand_params(7);
    let builds = std::cell::Cell::new(0);
    let build = || {
        builds.set(builds.get() + 1);
        Ok::<_, Error>(expected.clone())
    };
    let (p, path, outcome) = cache.load_or_build(key, build).unwrap();
    assert_eq!((p == expected, outcome), (true, CacheOutcome::Built));
    assert_eq!(path, cache.path_for(key).unwrap());
    let (p, _, outcome) = cache.load_or_build(key, build).unwrap();
    assert_eq!((p == expected, outcome), (true, CacheOutcome::Loaded));
    assert_eq!(builds.get(), 1);
    let names = dir_names(cache.dir());
    assert_eq!(names, vec![format!("{key}.params"), format!("{key}.params.sha256")]);

    let good = std::fs::read(&path).unwrap();
    // A flipped byte in a point, in the vk, and in a count; then a bad sidecar and a missing one.
    let offs = count_offsets(&expected);
    let corruptions: Vec<Box<dyn Fn()>> = vec![
        Box::new(|| flip(&path, offs[2].1 + 4 + 96 + 17)),
        Box::new(|| flip(&path, 5)),
        Box::new(|| flip(&path, offs[4].1 + 3)),
        Box::new(|| std::fs::write(checksum_path(&path), "zz").unwrap()),
        Box::new(|| std::fs::remove_file(checksum_path(&path)).unwrap()),
        Box::new(|| std::fs::write(checksum_path(&path), format!("{}  x\n", "0".repeat(64))).unwrap()),
    ];
    for (i, corrupt) in corruptions.iter().enumerate() {
        corrupt();
        let (p, _, outcome) = cache.load_or_build(key, build).unwrap();
        assert!(p == expected, "case {i}");
        let warning = outcome.warning().unwrap_or_else(|| panic!("case {i}: no warning, {outcome:?}"));
        assert!(warning.contains(key), "case {i}: {warning}");
        assert_eq!(std::fs::read(&path).unwrap(), good, "case {i}: file rebuilt");
        assert_eq!(cache.load_or_build(key, build).unwrap().2, CacheOutcome::Loaded);
    }
    assert_eq!(builds.get(), 1 + corruptions.len());
    assert!(
        cache.path_for("../evil").is_err() && cache.path_for("").is_err() && cache.path_for(".x").is_err()
    );
}

fn flip(path: &Path, pos: usize) {
    let mut b = std::fs::read(path).unwrap();
    b[pos] ^= 0x04;
    std::fs::write(path, b).unwrap();
}

#[test]
fn atomic_writer_replaces_only_complete_files() {
    let d = temp_dir("atomic");
    let path = d.join("out.bin");
    std::fs::write(&path, b"old contents").unwrap();
    let res = write_atomic(&path, "test file", |w| {
        w.write_all(&[9u8; 10_000])?;
        w.flush()?;
        assert_eq!(std::fs::read(&path).unwrap(), b"old contents", "target untouched mid-write");
        assert_eq!(dir_names(&d).len(), 2, "temp file lives beside the target");
        Err(std::io::Error::other("simulated failure"))
    });
    assert!(matches!(res, Err(Error::Io { action: "write", .. })));
    assert_eq!(std::fs::read(&path).unwrap(), b"old contents");
    assert_eq!(dir_names(&d), vec!["out.bin".to_string()], "failed write leaves no temp file");

    write_atomic(&path, "test file", |w| w.write_all(b"new")).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"new");
    assert_eq!(dir_names(&d), vec!["out.bin".to_string()]);
    let _ = std::fs::remove_dir_all(&d);
}

/// A vk and a valid proof built from chosen toxic waste: e(A,B) = e(α,β)·e(Σ xᵢ·ICᵢ, γ)·e(C, δ) holds when
/// c = (a·b − α·β − γ·Σ xᵢ·uᵢ)/δ with ICᵢ = uᵢ·G1 (x₀ = 1 for the constant).
fn toxic_proof(seed: u64, n_inputs: usize) -> (VerifyingKey, Proof, Vec<Scalar>) {
    let r = &mut rng(seed);
    let mut s = || Scalar::random(&mut *r);
    let (alpha, beta, gamma, delta) = (s(), s(), s(), s());
    let u: Vec<Scalar> = (0..=n_inputs).map(|_| s()).collect();
    let inputs: Vec<Scalar> = (0..n_inputs).map(|_| s()).collect();
    let (a, b) = (s(), s());
    let sum = u[0] + inputs.iter().zip(&u[1..]).map(|(x, ui)| *x * ui).sum::<Scalar>();
    let c = (a * b - alpha * beta - gamma * sum) * delta.invert().unwrap();
    let vk = VerifyingKey {
        alpha_g1: g1(alpha),
        beta_g1: g1(beta),
        beta_g2: g2(beta),
        gamma_g2: g2(gamma),
        delta_g1: g1(delta),
        delta_g2: g2(delta),
        ic: u.iter().map(|x| g1(*x)).collect(),
    };
    (vk, Proof { a: g1(a), b: g2(b), c: g1(c) }, inputs)
}

#[test]
fn proof_and_inputs_roundtrip() {
    let (_, proof, inputs) = toxic_proof(8, 4);
    let bytes = proof.to_bytes();
    assert_eq!(bytes.len(), 48 + 96 + 48);
    assert_eq!(&bytes[..48], &proof.a.to_compressed()[..]);
    assert_eq!(&bytes[48..144], &proof.b.to_compressed()[..]);
    assert_eq!(&bytes[144..], &proof.c.to_compressed()[..]);
    assert_eq!(Proof::read(&bytes[..]).unwrap(), proof);
    let mut w = Vec::new();
    proof.write(&mut w).unwrap();
    assert_eq!(w, bytes);
    let err = Proof::read(&bytes[..100]).unwrap_err();
    assert!(matches!(err, Error::Truncated { section: Section::ProofB, len: 100, .. }), "{err}");

    let proofs: Vec<Proof> = (0..5).map(|i| toxic_proof(20 + i, 1).1).collect();
    let d = temp_dir("proofs");
    let path = d.join("p.proof");
    write_proofs(&path, &proofs).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 5 * 192);
    assert_eq!(read_proofs(&path).unwrap(), proofs);
    let _ = std::fs::remove_dir_all(&d);
    let err = decode_proofs(&[0u8; 191], "mem").unwrap_err();
    assert!(matches!(err, Error::BadLength { len: 191, .. }), "{err}");
    let mut bad = cuzk::groth16::proof::encode_proofs(&proofs);
    bad[2 * 192 + 150] ^= 0x11;
    match decode_proofs(&bad, "mem") {
        Err(Error::BadProof { element: Section::ProofC, index: 2, offset: 528, .. }) => {}
        Ok(ps) => assert_ne!(ps[2], proofs[2]),
        Err(e) => panic!("{e}"),
    }

    let enc = encode_inputs(&inputs);
    assert_eq!(enc.len(), 4 * 32);
    assert_eq!(&enc[32..64], &inputs[1].to_bytes_le()[..]);
    assert_eq!(decode_inputs(&enc, "mem").unwrap(), inputs);
    let mut noncanon = enc.clone();
    noncanon[64..96].copy_from_slice(&[0xff; 32]);
    let err = decode_inputs(&noncanon, "mem").unwrap_err();
    assert!(matches!(err, Error::BadScalar { index: 2, offset: 64, .. }), "{err}");
    assert!(matches!(decode_inputs(&enc[..33], "mem"), Err(Error::BadLength { .. })));
}

#[test]
fn verifier_accepts_valid_and_rejects_tampered_proofs() {
    for n in [0usize, 3, 20] {
        let (vk, proof, inputs) = toxic_proof(30 + n as u64, n);
        let pvk = PreparedVerifyingKey::new(&vk);
        assert!(verify_proof(&pvk, &proof, &inputs).unwrap(), "valid proof with {n} inputs");

        // Any flipped byte: either the proof no longer decodes, or it does not verify.
        let bytes = proof.to_bytes();
        for pos in (0..192).step_by(7).chain([0, 48, 144]) {
            let mut b = bytes;
            b[pos] ^= 0x20;
            if let Ok(p) = Proof::from_bytes(&b) {
                assert!(!verify_proof(&pvk, &p, &inputs).unwrap(), "flip at {pos} verified");
            }
        }
        if n > 0 {
            let mut wrong = inputs.clone();
            wrong[n - 1] += Scalar::ONE;
            assert!(!verify_proof(&pvk, &proof, &wrong).unwrap());
        }
        let (other_vk, _, _) = toxic_proof(99, n);
        assert!(!verify_proof(&PreparedVerifyingKey::new(&other_vk), &proof, &inputs).unwrap());
        let too_many = [inputs.clone(), vec![Scalar::ONE]].concat();
        let err = verify_proof(&pvk, &proof, &too_many).unwrap_err();
        assert!(matches!(err, Error::InputCount { found, .. } if found == n + 1), "{err}");
    }

    // A batch of one key: valid and tampered proofs mixed, verdicts in order.
    let (vk, proof, inputs) = toxic_proof(40, 2);
    let pvk = PreparedVerifyingKey::new(&vk);
    let neg = Proof { a: -proof.a, ..proof };
    let proofs = vec![proof, neg, proof, proof];
    let mut wrong = inputs.clone();
    wrong[0] = Scalar::ZERO;
    let all_inputs = vec![inputs.clone(), inputs.clone(), wrong, inputs.clone()];
    assert_eq!(verify_batch(&pvk, &proofs, &all_inputs).unwrap(), vec![true, false, false, true]);
    assert!(matches!(verify_batch(&pvk, &proofs, &all_inputs[..3]), Err(Error::BatchMismatch { .. })));
    let short = vec![inputs.clone(), vec![], inputs.clone(), inputs];
    assert!(matches!(verify_batch(&pvk, &proofs, &short), Err(Error::InputCount { found: 0, .. })));
}

/// The resident kB of this process's mappings of `path` (`/proc/self/smaps`).
fn mapped_rss_kb(path: &Path) -> u64 {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("/proc/self/smaps");
    let name = path.to_string_lossy();
    let mut total = 0;
    let mut ours = false;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if first.contains('-') && first.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            ours = line.trim_end().ends_with(name.as_ref());
        } else if ours && first == "Rss:" {
            total += line.split_whitespace().nth(1).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        }
    }
    total
}

/// The staged reader hands the sections over in file order, each once and whole, while it decodes ahead of
/// the hand-off; a bad point stops it there: the sections before it were staged, the bad one and those
/// after it never are, and the error names the point.
#[test]
fn staged_sections_come_in_file_order_and_stop_at_a_bad_point() {
    use cuzk::backend::api::{Query, SrsSection};
    use cuzk::groth16::params_file::parse_params_staged;
    let r = &mut rng(11);
    let b_g2: Vec<G2Affine> = (0..5).map(|_| g2(Scalar::random(&mut *r))).collect();
    let p =
        Parameters::new(rand_vk(r, 2), rand_g1s(r, 9), rand_g1s(r, 7), rand_g1s(r, 6), rand_g1s(r, 4), b_g2);
    let mut bytes = Vec::new();
    p.write(&mut bytes).unwrap();
    let seen = std::sync::Mutex::new(Vec::new());
    let on = |_, s: SrsSection<'_>| {
        let (name, len) = match s {
            SrsSection::G1(q, v) => (q.name(), v.len()),
            SrsSection::BG2(v) => ("b_g2", v.len()),
        };
        seen.lock().unwrap().push((name, len));
    };
    let read = parse_params_staged(&bytes, "mem", PointCheck::OnCurve, Some(&on)).unwrap();
    assert_eq!(read, p);
    let names = |q: Query| q.name();
    let all = [
        (names(Query::H), 9),
        (names(Query::L), 7),
        (names(Query::A), 6),
        (names(Query::BG1), 4),
        ("b_g2", 5),
    ];
    assert_eq!(*seen.lock().unwrap(), all);
    seen.lock().unwrap().clear();
    // A[3]'s x at or above p.
    let offs = count_offsets(&p);
    let (_, a, _, _) = offs.iter().find(|o| o.0 == Section::A).copied().unwrap();
    let start = a + 4 + 3 * G1U;
    bytes[start..start + 48].fill(0xff);
    bytes[start] = 0x1f;
    match parse_params_staged(&bytes, "mem", PointCheck::OnCurve, Some(&on)) {
        Err(Error::BadPoint { section: Section::A, index: 3, offset, .. }) => {
            assert_eq!(offset, start as u64)
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    assert_eq!(*seen.lock().unwrap(), all[..2]);
}

/// A params file's pages leave the process as its sections are decoded: by the last section's hand-off the
/// mapping holds under a quarter of the 11 MB it read (they stay in the page cache only; what is left is
/// the page cache's large folios around the last section, which a fault maps whole), and the points are the
/// ones written.
#[test]
fn decoded_sections_leave_the_resident_set() {
    use cuzk::backend::api::SrsSection;
    use cuzk::groth16::params_file::read_params_staged;
    let r = &mut rng(9);
    let few = rand_g1s(r, 4);
    let many = |n: usize| (0..n).map(|i| few[i % few.len()]).collect::<Vec<_>>();
    let b_g2: Vec<G2Affine> = (0..6000).map(|i| g2(Scalar::from(i as u64 + 2))).collect();
    let p = Parameters::new(rand_vk(r, 3), many(40_000), many(30_000), many(25_000), many(12_000), b_g2);
    let d = temp_dir("released");
    let path = d.join("x.params");
    write_params(&path, &p).unwrap();
    let pages = std::fs::metadata(&path).unwrap().len() / 4096;
    assert!(pages > 2500, "{pages} pages");
    let at_last = std::sync::Mutex::new(None);
    let on = |_, s: SrsSection<'_>| {
        if matches!(s, SrsSection::BG2(_)) {
            *at_last.lock().unwrap() = Some(mapped_rss_kb(&path));
        }
    };
    let read = read_params_staged(&path, PointCheck::OnCurve, Some(&on)).unwrap();
    assert_eq!(read, p);
    let kb = at_last.into_inner().unwrap().expect("B_G2 was handed over");
    assert!(kb < pages, "{kb} kB of the {pages}-page file still resident in the mapping");
    let _ = std::fs::remove_dir_all(&d);
}
