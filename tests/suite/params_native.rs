//! The params cache's native copies: written beside an entry, read in place of its params file (the same
//! params, nothing staged while it reads: the engine stages the set after), used only while the params file is as it was, and a bad copy
//! (any flipped byte, cut short, made from another entry) falls back to the params file and is written again.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk::backend::api::SrsSection;
use cuzk::groth16::cache::{CacheOutcome, Expect, ParamsCache};
use cuzk::groth16::params_native::path_of;
use cuzk::groth16::{Error, Parameters, VerifyingKey};
use cuzk::vocab::CancelToken;
use ff::Field;
use group::{prime::PrimeCurveAffine, Curve, Group};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuzk-native-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// `n` points P, P + Q, P + 2Q, … from random P and Q (one addition each, so a test can afford sections of
/// several read pieces).
fn run_g1(r: &mut ChaCha20Rng, n: usize) -> Vec<G1Affine> {
    let (mut p, q) = (G1Projective::random(&mut *r), G1Projective::random(&mut *r));
    let proj: Vec<G1Projective> = (0..n)
        .map(|_| {
            p += q;
            p
        })
        .collect();
    let mut out = vec![G1Affine::identity(); n];
    G1Projective::batch_normalize(&proj, &mut out);
    out
}

fn run_g2(r: &mut ChaCha20Rng, n: usize) -> Vec<G2Affine> {
    let (mut p, q) = (G2Projective::random(&mut *r), G2Projective::random(&mut *r));
    (0..n)
        .map(|_| {
            p += q;
            p.to_affine()
        })
        .collect()
}

/// Params whose H spans two 8 MiB read pieces, with identity points in A, B_G1 and B_G2.
fn params(seed: u64) -> Parameters {
    let r = &mut ChaCha20Rng::seed_from_u64(seed);
    let g1 = |s: Scalar| (G1Projective::generator() * s).to_affine();
    let g2 = |s: Scalar| (G2Projective::generator() * s).to_affine();
    let mut s = || Scalar::random(&mut *r);
    let vk = VerifyingKey {
        alpha_g1: g1(s()),
        beta_g1: g1(s()),
        beta_g2: g2(s()),
        gamma_g2: g2(s()),
        delta_g1: g1(s()),
        delta_g2: g2(s()),
        ic: vec![g1(s()), g1(s()), g1(s())],
    };
    let (h, l) = (run_g1(r, 100_000), run_g1(r, 3_001));
    let (mut a, mut b_g1, mut b_g2) = (run_g1(r, 2_500), run_g1(r, 700), run_g2(r, 64));
    a[7] = G1Affine::identity();
    b_g1[0] = G1Affine::identity();
    b_g2[63] = G2Affine::identity();
    Parameters::new(vk, h, l, a, b_g1, b_g2)
}

fn mtime(p: &Path) -> SystemTime {
    std::fs::metadata(p).and_then(|m| m.modified()).expect("mtime")
}

fn set_mtime(p: &Path, t: SystemTime) {
    std::fs::File::options().write(true).open(p).and_then(|f| f.set_modified(t)).expect("set mtime");
}

/// Flips one bit of the file at `pos`, keeping its modification time.
fn flip_keeping_mtime(p: &Path, pos: u64) {
    let t = mtime(p);
    let mut b = std::fs::read(p).expect("read");
    b[pos as usize] ^= 0x20;
    std::fs::write(p, b).expect("write");
    set_mtime(p, t);
}

/// The sections a load staged, in order (name, points).
type Staged = Mutex<Vec<(&'static str, usize)>>;

fn load(cache: &ParamsCache, key: &str, staged: &Staged) -> (Parameters, CacheOutcome) {
    let never = CancelToken::new();
    let on = |_: cuzk::backend::api::ParamsId, s: SrsSection<'_>| {
        let entry = match s {
            SrsSection::G1(q, v) => (q.name(), v.len()),
            SrsSection::BG2(v) => ("b_g2", v.len()),
        };
        staged.lock().unwrap_or_else(|e| e.into_inner()).push(entry);
    };
    let expect = Expect { check: &|_| None, cancel: &never, progress: &|_, _, _| {}, stage: Some(&on) };
    let (p, _, outcome) = cache
        .load_or_build_checked(key, &expect, || Err::<Parameters, _>(Error::Cancelled))
        .expect("the entry loads");
    (p, outcome)
}

#[test]
fn a_native_copy_is_read_in_place_of_an_unchanged_params_file() {
    let d = temp("read");
    let cache = ParamsCache::new(d.join("params"));
    let key = "shape-native";
    let expected = params(1);
    let (p, path, outcome) = cache.load_or_build(key, || Ok::<_, Error>(expected.clone())).expect("built");
    assert_eq!((p == expected, outcome), (true, CacheOutcome::Built));
    let copy = path_of(&path);
    assert!(copy.is_file(), "the build wrote the native copy");

    let staged = Staged::default();
    let (p, outcome) = load(&cache, key, &staged);
    assert_eq!((p == expected, outcome), (true, CacheOutcome::Loaded));
    assert!(staged.lock().expect("staged").is_empty(), "a native read stages nothing");

    // Without the copy the params file is decoded, each section staged once as it comes, in file order.
    let saved = std::fs::read(&copy).expect("copy");
    std::fs::remove_file(&copy).expect("remove copy");
    let staged = Staged::default();
    let (p, outcome) = load(&cache, key, &staged);
    assert_eq!((p == expected, outcome), (true, CacheOutcome::Loaded));
    assert_eq!(
        staged.lock().expect("staged").clone(),
        vec![("h", 100_000), ("l", 3_001), ("a", 2_500), ("b_g1", 700), ("b_g2", 64)],
        "every section staged once, in file order"
    );
    assert_eq!(std::fs::read(&copy).expect("copy"), saved, "the decode wrote the same copy again");

    // A corrupt params file whose length and time are unchanged is not read: the copy serves.
    let good = std::fs::read(&path).expect("params");
    flip_keeping_mtime(&path, good.len() as u64 / 2);
    let (p, outcome) = load(&cache, key, &Staged::default());
    assert_eq!((p == expected, outcome), (true, CacheOutcome::Loaded), "served by the copy");

    // Touched, the params file is read and checked: its corruption is found and the entry rebuilt.
    set_mtime(&path, mtime(&path) + Duration::from_secs(3));
    let (p, _, outcome) = cache.load_or_build(key, || Ok::<_, Error>(expected.clone())).expect("rebuilt");
    assert!(p == expected);
    let warning = outcome.warning().unwrap_or_default().to_string();
    assert!(warning.contains("rebuilt") && warning.contains(key), "{outcome:?}");
    assert_eq!(std::fs::read(&path).expect("params"), good);
    let (p, outcome) = load(&cache, key, &Staged::default());
    assert_eq!((p == expected, outcome), (true, CacheOutcome::Loaded));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_bad_native_copy_falls_back_to_the_params_file_and_is_written_again() {
    let d = temp("bad");
    let cache = ParamsCache::new(d.join("params"));
    let key = "shape-native-bad";
    let expected = params(2);
    let (_, path, _) = cache.load_or_build(key, || Ok::<_, Error>(expected.clone())).expect("built");
    let copy = path_of(&path);
    let good = std::fs::read(&copy).expect("copy");
    // Another entry's copy, made from other params.
    let (_, other, _) = cache.load_or_build("shape-other", || Ok::<_, Error>(params(3))).expect("other");
    let other_copy = std::fs::read(path_of(&other)).expect("other copy");

    let len = good.len() as u64;
    type Corruption<'a> = (&'a str, Box<dyn Fn() + 'a>);
    let cases: Vec<Corruption> = vec![
        ("header", Box::new(|| flip_keeping_mtime(&copy, 60))),
        ("vk", Box::new(|| flip_keeping_mtime(&copy, 4096 + 100))),
        ("H, second piece", Box::new(|| flip_keeping_mtime(&copy, 8192 + (9 << 20)))),
        ("B_G2", Box::new(|| flip_keeping_mtime(&copy, len - 5))),
        ("cut short", Box::new(|| std::fs::write(&copy, &good[..good.len() - 192]).expect("cut"))),
        ("another entry's", Box::new(|| std::fs::write(&copy, &other_copy).expect("swap"))),
        ("empty", Box::new(|| std::fs::write(&copy, b"").expect("empty"))),
    ];
    for (what, corrupt) in &cases {
        corrupt();
        let staged = Staged::default();
        let (p, outcome) = load(&cache, key, &staged);
        assert_eq!((p == expected, outcome), (true, CacheOutcome::Loaded), "{what}");
        // Staged: the params file was decoded (a native read stages nothing).
        assert_eq!(staged.lock().expect("staged").last(), Some(&("b_g2", 64)), "{what}: staged");
        assert_eq!(std::fs::read(&copy).expect("copy"), good, "{what}: the copy written again");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_cache_without_native_copies_writes_none_and_ignores_one() {
    let d = temp("off");
    let key = "shape-native-off";
    let expected = params(4);
    let on = ParamsCache::new(d.join("params"));
    let (_, path, _) = on.load_or_build(key, || Ok::<_, Error>(expected.clone())).expect("built");
    let copy = path_of(&path);
    // The copy is there and valid, but a cache without copies reads the params file: its corruption is found.
    let off = ParamsCache::new(d.join("params")).without_native();
    let good = std::fs::read(&path).expect("params");
    flip_keeping_mtime(&path, good.len() as u64 / 2);
    let (p, _, outcome) = off.load_or_build(key, || Ok::<_, Error>(expected.clone())).expect("rebuilt");
    assert!(p == expected);
    assert!(outcome.warning().unwrap_or_default().contains("rebuilt"), "{outcome:?}");
    // And it writes no copy.
    std::fs::remove_file(&copy).expect("remove");
    let (p, outcome) = load(&off, key, &Staged::default());
    assert_eq!((p == expected, outcome), (true, CacheOutcome::Loaded));
    assert!(!copy.exists(), "a cache without copies wrote one");
    let _ = std::fs::remove_dir_all(&d);
}
