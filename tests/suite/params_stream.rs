//! A params file streamed while the setup makes it (`setup::generate_into` into a `ParamsStream`) holds the
//! bytes `write_params` writes for the same params, with the chunked digest of those bytes; a stream that
//! misses or mismatches a section leaves no file; the cache builds such entries, loads them and rebuilds a
//! corrupt one, and still loads an entry whose sidecar holds a plain SHA-256 (written before the chunked
//! one).

use std::path::{Path, PathBuf};

use blstrs::G1Affine;
use cuzk::backend::api::{ParamsId, Query, SrsSection};
use cuzk::cs::ShapeCounter;
use cuzk::groth16::cache::{checksum_path, CacheOutcome, Expect, ParamsCache};
use cuzk::groth16::digest::{chunked, sha256_chunked, SHA_SIDECAR_PREFIX, SIDECAR_PREFIX};
use cuzk::groth16::params_file::{hex, sha256, write_params};
use cuzk::groth16::params_stream::{ParamsStream, SectionCounts};
use cuzk::groth16::setup::{generate, generate_into};
use cuzk::groth16::{Parameters, Section};
use cuzk::vocab::CancelToken;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuzk-ps-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn counts_of(p: &Parameters) -> SectionCounts {
    SectionCounts { ic: p.vk.ic.len(), h: p.h.len(), l: p.l.len(), a: p.a.len(), b: p.b_g1.len() }
}

/// The porep-tiny circuit, its shape, and its params made the plain way (seed 11).
fn tiny() -> (cuzk::circuits::SampleCircuit, cuzk::cs::Shape, Parameters) {
    let s = cuzk::circuits::Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
    let c = s.sector_circuits(0).swap_remove(0);
    let shape = ShapeCounter::count(&c).expect("shape");
    let p = generate(&c, shape, 11, &|_, _, _| {}).expect("setup");
    (c, shape, p)
}

#[test]
fn a_streamed_setup_writes_the_same_bytes_and_their_chunked_digest() {
    let d = temp("bytes");
    let (c, shape, plain) = tiny();
    let reference = d.join("plain.params");
    let written_digest = write_params(&reference, &plain).expect("write");
    let want = std::fs::read(&reference).expect("read");
    assert_eq!(written_digest, chunked(&want), "write_params returns the chunked digest of its bytes");
    assert_eq!(counts_of(&plain).file_len(), want.len() as u64);

    let path = d.join("streamed.params");
    let stream = ParamsStream::create(&path, counts_of(&plain), CancelToken::new()).expect("stream");
    let stages = std::sync::Mutex::new(Vec::<String>::new());
    let progress = |stage: &str, _: usize, _: usize| {
        let mut v = stages.lock().unwrap_or_else(|p| p.into_inner());
        if v.last().is_none_or(|s| s != stage) {
            v.push(stage.to_string());
        }
    };
    let made = generate_into(&c, shape, 11, &progress, &CancelToken::new(), None, Some(&stream))
        .expect("streamed setup");
    assert!(!path.exists(), "the file appears only when finished");
    let digest = stream.finish().expect("finish");
    let got = std::fs::read(&path).expect("streamed file");
    assert!(got == want, "streamed bytes differ from write_params' ({} vs {} bytes)", got.len(), want.len());
    assert_eq!(digest, chunked(&got));
    assert!(made == plain, "the params returned are the plain setup's");
    let stages = stages.into_inner().unwrap_or_default();
    assert_eq!(stages, ["evaluate", "h", "l", "a", "b_g1", "b_g2", "vk", "write"], "{stages:?}");
    assert_eq!(names(&d), ["plain.params", "streamed.params"], "no temp file left");
}

#[test]
fn a_stream_missing_or_mismatching_a_section_leaves_no_file() {
    let d = temp("partial");
    let (_, _, p) = tiny();
    let path = d.join("x.params");
    // Everything but B_G2.
    let st = ParamsStream::create(&path, counts_of(&p), CancelToken::new()).expect("stream");
    st.put_vk(&p.vk);
    for (s, v) in [(Section::H, &p.h), (Section::L, &p.l), (Section::A, &p.a), (Section::BG1, &p.b_g1)] {
        st.put_g1(s, v);
    }
    let err = st.finish().expect_err("incomplete");
    assert!(err.to_string().contains("B_G2"), "{err}");
    // One point short in L.
    let st = ParamsStream::create(&path, counts_of(&p), CancelToken::new()).expect("stream");
    st.put_vk(&p.vk);
    st.put_g1(Section::L, &p.l[1..]);
    let err = st.finish().expect_err("short L");
    assert!(err.to_string().contains("L has"), "{err}");
    // Cancelled while being written.
    let cancel = CancelToken::new();
    let st = ParamsStream::create(&path, counts_of(&p), cancel.clone()).expect("stream");
    st.put_vk(&p.vk);
    cancel.cancel();
    st.put_g1(Section::H, &p.h);
    assert!(st.finish().is_err());
    // Dropped unfinished.
    drop(ParamsStream::create(&path, counts_of(&p), CancelToken::new()).expect("stream"));
    assert!(names(&d).is_empty(), "left: {:?}", names(&d));
}

#[test]
fn the_cache_builds_streamed_entries_and_still_reads_plain_sidecars() {
    let d = temp("cache");
    let (c, shape, plain) = tiny();
    let cache = ParamsCache::new(d.join("params"));
    let key = "tiny-streamed";
    let cancel = CancelToken::new();
    let expect = Expect { check: &|_| None, cancel: &cancel, progress: &|_, _, _| {}, stage: None };
    let builds = std::cell::Cell::new(0);
    let build = |out: Option<&ParamsStream>| {
        builds.set(builds.get() + 1);
        generate_into(&c, shape, 11, &|_, _, _| {}, &cancel, None, out)
            .map_err(|_| cuzk::groth16::Error::Cancelled)
    };
    let counts = counts_of(&plain);
    let (p, path, outcome) = cache.load_or_build_streamed(key, &expect, counts, build).expect("build");
    assert_eq!((p == plain, outcome), (true, CacheOutcome::Built));
    assert!(
        cuzk::groth16::params_native::path_of(&path).is_file(),
        "a streamed build writes the native copy"
    );
    // From here on the params file's own path (tests/suite/params_native.rs has the copy's); a rebuild below
    // removes the copy, and this cache writes none.
    let cache = ParamsCache::new(d.join("params")).without_native();
    let bytes = std::fs::read(&path).expect("entry");
    let side = std::fs::read_to_string(checksum_path(&path)).expect("sidecar");
    assert_eq!(side, format!("{SIDECAR_PREFIX}{}  {key}.params\n", hex(&chunked(&bytes))));
    let (p, _, outcome) = cache.load_or_build_streamed(key, &expect, counts, build).expect("load");
    assert_eq!((p == plain, outcome, builds.get()), (true, CacheOutcome::Loaded, 1));

    // A load hands every section on as it is decoded, in file order, under the identity the params then have.
    let seen = std::sync::Mutex::new(Vec::new());
    let on = |id: ParamsId, s: SrsSection<'_>| {
        let copy = match s {
            SrsSection::G1(q, v) => (Some(q), v.to_vec(), Vec::new()),
            SrsSection::BG2(v) => (None, Vec::new(), v.to_vec()),
        };
        seen.lock().unwrap().push((id, copy));
    };
    let staged = Expect { stage: Some(&on), ..expect };
    let (p, _, outcome) = cache.load_or_build_streamed(key, &staged, counts, build).expect("staged load");
    assert_eq!((outcome, builds.get()), (CacheOutcome::Loaded, 1));
    let seen = seen.into_inner().unwrap();
    assert!(seen.iter().all(|(id, _)| *id == p.id()), "every section under the loaded params' identity");
    let got: Vec<_> = seen.into_iter().map(|(_, c)| c).collect();
    let g1 = |q, v: &Vec<G1Affine>| (Some(q), v.clone(), Vec::new());
    let want = vec![
        g1(Query::H, &plain.h),
        g1(Query::L, &plain.l),
        g1(Query::A, &plain.a),
        g1(Query::BG1, &plain.b_g1),
        (None, Vec::new(), plain.b_g2.clone()),
    ];
    assert!(got == want, "the sections handed on are the file's, in order");

    // Sidecars of the earlier formats (`sha256sum`'s line, the chunked SHA-256) still check their file, and
    // once checked are rewritten as the chunked XXH3-128 one.
    let sha_side = format!("{SHA_SIDECAR_PREFIX}{}  {key}.params\n", hex(&sha256_chunked(&bytes)));
    for old in [format!("{}  {key}.params\n", hex(&sha256(&bytes))), sha_side] {
        std::fs::write(checksum_path(&path), &old).expect("old sidecar");
        let (_, _, outcome) = cache.load_or_build_streamed(key, &expect, counts, build).expect("old load");
        assert_eq!((outcome, builds.get()), (CacheOutcome::Loaded, 1), "{old}");
        assert_eq!(std::fs::read_to_string(checksum_path(&path)).expect("sidecar"), side, "{old}");
    }

    // A flipped byte inside the last B_G2 point under a chunked sidecar: named, rebuilt, the same bytes
    // again.
    std::fs::write(checksum_path(&path), &side).expect("chunked sidecar back");
    let mut bad = bytes.clone();
    let at = bytes.len() - 7;
    bad[at] ^= 0x10;
    std::fs::write(&path, &bad).expect("corrupt");
    let (p, _, outcome) = cache.load_or_build_streamed(key, &expect, counts, build).expect("rebuild");
    let warning = outcome.warning().unwrap_or_default().to_string();
    assert!(p == plain && warning.contains("chunked XXH3-128"), "{outcome:?}");
    assert_eq!(builds.get(), 2);
    assert!(std::fs::read(&path).expect("entry") == bytes, "rebuilt to the same bytes");
    assert_eq!(names(cache.dir()), [format!("{key}.params"), format!("{key}.params.sha256")]);
}

/// A file of several 64 MiB digest chunks, its sections put out of file order from threads of their own (as
/// the setup does: H before the vk, the rest as they are made): every chunk, including those that straddle two
/// sections written at different times, is hashed as it completes, and the digest `finish` returns is the
/// chunked digest of the bytes, which are `write_params`'.
#[test]
fn a_stream_of_several_chunks_hashes_each_as_it_completes() {
    use blstrs::{G1Projective, G2Affine, G2Projective};
    use cuzk::groth16::digest::CHUNK;
    use cuzk::groth16::VerifyingKey;
    use group::Group;
    let d = temp("chunks");
    // 61 distinct random points, cycled: no two neighbours alike, never the identity.
    let mut rng = rand_core::OsRng;
    let g1s: Vec<G1Affine> = (0..61).map(|_| G1Affine::from(G1Projective::random(&mut rng))).collect();
    let g2p = G2Projective::random(&mut rng);
    let g2s: [G2Affine; 3] = [g2p.into(), g2p.double().into(), (g2p.double() + g2p).into()];
    let pts = |n: usize, skew: usize| (0..n).map(|i| g1s[(i * 7 + skew) % g1s.len()]).collect::<Vec<_>>();
    // H alone spans more than one chunk, and L straddles the next boundary.
    let per_chunk = CHUNK / 96;
    let vk = VerifyingKey {
        alpha_g1: g1s[0],
        beta_g1: g1s[1],
        beta_g2: g2s[0],
        gamma_g2: g2s[1],
        delta_g1: g1s[2],
        delta_g2: g2s[2],
        ic: pts(3, 5),
    };
    let p = Parameters::new(
        vk,
        pts(per_chunk + per_chunk / 3, 1),
        pts(per_chunk, 2),
        pts(1_000, 3),
        pts(999, 4),
        (0..999).map(|i| g2s[i % 3]).collect(),
    );
    let counts = counts_of(&p);
    assert!(counts.file_len() > 2 * CHUNK as u64, "{} bytes", counts.file_len());
    let reference = d.join("plain.params");
    write_params(&reference, &p).expect("write");
    let want = std::fs::read(&reference).expect("read");

    let path = d.join("streamed.params");
    let st = ParamsStream::create(&path, counts, CancelToken::new()).expect("stream");
    std::thread::scope(|s| {
        s.spawn(|| st.put_g1(Section::L, &p.l));
        s.spawn(|| st.put_g1(Section::H, &p.h));
        s.spawn(|| {
            st.put_g2(&p.b_g2);
            st.put_vk(&p.vk);
        });
        s.spawn(|| {
            st.put_g1(Section::BG1, &p.b_g1);
            st.put_g1(Section::A, &p.a);
        });
    });
    let digest = st.finish().expect("finish");
    let got = std::fs::read(&path).expect("streamed");
    assert!(got == want, "streamed bytes differ from write_params'");
    assert_eq!(digest, chunked(&got), "the digest of chunks hashed as they completed");
    assert_eq!(names(&d), ["plain.params", "streamed.params"], "no temp file left");
    let _ = std::fs::remove_dir_all(&d);
}
