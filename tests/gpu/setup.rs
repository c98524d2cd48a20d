//! Setup on the device: the fixed-base kernel against blstrs' scalar multiplication on random scalars and
//! edge values, and whole params files made with the GPU's fixed-base multiplications byte-identical to the
//! CPU setup's for the same seed (in the library, streamed into a file while made, and through `cuzk setup
//! --backend gpu|cpu`).

use super::*;
use cuzk::backend::gpu::kernels::fixed_base::CHUNK;
use cuzk::groth16::params_file::write_params;
use cuzk::groth16::params_stream::{ParamsStream, SectionCounts};
use cuzk::groth16::setup::{generate_into, generate_on};
use cuzk::vocab::CancelToken;
use group::prime::PrimeCurveAffine;

/// Random scalars with 0, 1, 2, r − 1 and −2 at the front.
fn edge_scalars(n: usize, seed: u64) -> Vec<Scalar> {
    let mut s = vec![Scalar::ZERO, Scalar::ONE, Scalar::from(2u64), -Scalar::ONE, -Scalar::from(2u64)];
    s.extend(scalars(n.saturating_sub(s.len()), &mut rng(seed), true));
    s.truncate(n);
    s
}

/// The device's kᵢ·b in G1 through the Backend call, every chunk heard.
fn on_g1(g: &dyn Backend, b: &G1Projective, s: &[Scalar]) -> Vec<G1Affine> {
    let mut out = vec![G1Affine::identity(); s.len()];
    g.fixed_base_g1(b, s, &mut out, &|_| true).unwrap_or_else(|e| panic!("{e}"));
    out
}

/// As [`on_g1`], in G2.
fn on_g2(g: &dyn Backend, b: &G2Projective, s: &[Scalar]) -> Vec<G2Affine> {
    let mut out = vec![G2Affine::identity(); s.len()];
    g.fixed_base_g2(b, s, &mut out, &|_| true).unwrap_or_else(|e| panic!("{e}"));
    out
}

#[test]
fn fixed_base_matches_blstrs() {
    let Some(g) = gpu("fixed_base_matches_blstrs") else { return };
    let mut r = rng(71);
    // The generator, and a random base (its own table on the device).
    let bases1 = [G1Projective::generator(), G1Projective::generator() * Scalar::random(&mut r)];
    let bases2 = [G2Projective::generator(), G2Projective::generator() * Scalar::random(&mut r)];
    for (k, &n) in [1usize, 5, 6, 1000, 4099].iter().enumerate() {
        let s = edge_scalars(n, 80 + k as u64);
        for b in &bases1 {
            let got = on_g1(&g, b, &s);
            let want: Vec<G1Affine> = s.iter().map(|k| (b * k).to_affine()).collect();
            assert_eq!(got, want, "G1 n={n}");
        }
        for b in &bases2 {
            let got = on_g2(&g, b, &s);
            let want: Vec<G2Affine> = s.iter().map(|k| (b * k).to_affine()).collect();
            assert_eq!(got, want, "G2 n={n}");
        }
    }
    // Past two device chunks: the pipeline reuses both pairs of page-locked buffers; against the CPU's table.
    let s = edge_scalars(2 * CHUNK + 7, 90);
    let b = bases1[1];
    assert!(on_g1(&g, &b, &s) == fixed_base_g1(&b, &s), "G1 over {} scalars", s.len());
    let s2 = &s[..CHUNK + 3];
    assert!(on_g2(&g, &bases2[1], s2) == fixed_base_g2(&bases2[1], s2), "G2 over {} scalars", s2.len());
    // A tick that answers `false` stops after that chunk: the first chunk is written, the rest untouched.
    let ticks = std::sync::Mutex::new(Vec::new());
    let mut out = vec![G1Affine::identity(); s.len()];
    let stop = |done: usize| {
        ticks.lock().unwrap_or_else(|p| p.into_inner()).push(done);
        false
    };
    g.fixed_base_g1(&b, &s, &mut out, &stop).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(*ticks.lock().unwrap_or_else(|p| p.into_inner()), vec![CHUNK], "one chunk heard");
    assert!(out[..CHUNK] == fixed_base_g1(&b, &s[..CHUNK]), "the first chunk");
    assert!(out[CHUNK..].iter().all(|p| bool::from(p.is_identity())), "nothing past the stop");
}

/// The params file a setup writes, as bytes.
fn params_bytes(p: &Parameters, dir: &Path, name: &str) -> Vec<u8> {
    let path = dir.join(name);
    write_params(&path, p).unwrap_or_else(|e| panic!("{e}"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn gpu_setup_file_equals_cpu_setup_file() {
    let Some(g) = gpu("gpu_setup_file_equals_cpu_setup_file") else { return };
    let dir = std::env::temp_dir().join(format!("cuzk-gpu-setup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    for path in ["samples/porep-tiny.toml", "samples/sha256-chain-39.toml"] {
        let s = Sample::load(Path::new(path)).unwrap_or_else(|e| panic!("{e}"));
        let c = s.sector_circuits(0).swap_remove(0);
        let shape = ShapeCounter::count(&c).expect("count");
        let cancel = CancelToken::new();
        let on = |b: Option<&dyn Backend>| {
            generate_on(&c, shape, s.seed, &|_, _, _| {}, &cancel, b)
                .unwrap_or_else(|_| panic!("{path}: setup"))
        };
        let cpu = params_bytes(&on(None), &dir, "cpu.params");
        let dev = params_bytes(&on(Some(&g)), &dir, "gpu.params");
        assert!(cpu.len() > 10_000, "{path}: {} bytes", cpu.len());
        assert!(
            cpu == dev,
            "{path}: GPU setup file differs from the CPU's ({} vs {} bytes)",
            dev.len(),
            cpu.len()
        );
        // Streamed while made (H beside the evaluation, each section written as it is done), on the device.
        let p = on(None);
        let counts =
            SectionCounts { ic: p.vk.ic.len(), h: p.h.len(), l: p.l.len(), a: p.a.len(), b: p.b_g1.len() };
        let file = dir.join("streamed.params");
        let st = ParamsStream::create(&file, counts, cancel.clone()).unwrap_or_else(|e| panic!("{e}"));
        generate_into(&c, shape, s.seed, &|_, _, _| {}, &cancel, Some(&g), Some(&st))
            .unwrap_or_else(|_| panic!("{path}: streamed setup"));
        st.finish().unwrap_or_else(|e| panic!("{e}"));
        let streamed = std::fs::read(&file).unwrap_or_else(|e| panic!("{e}"));
        assert!(cpu == streamed, "{path}: the GPU's streamed file differs from the CPU's");
    }
    // Through the command line: `cuzk setup --backend gpu`, the entry removed, then `--backend cpu` into the
    // same cache (gpu-check's, which holds the compiled kernels), the same file bytes.
    let bin =
        std::env::var_os("CUZK_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_cuzk")), PathBuf::from);
    let cache = std::env::var_os("CUZK_CACHE").map_or_else(|| dir.join("cache"), PathBuf::from);
    let mut files = Vec::new();
    for b in ["gpu", "cpu"] {
        let o = std::process::Command::new(&bin)
            .args(["setup", "--sample", "samples/porep-tiny.toml", "--seed", "5", "--backend", b])
            .env("CUZK_CACHE", &cache)
            .env("CUZK_HOME", dir.join("home"))
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "setup --backend {b}: {err}");
        assert!(err.contains(": generated"), "{b}: not generated: {err}");
        assert_eq!(b == "gpu", err.contains("fixed-base multiplications on GPU"), "{b}: {err}");
        let out = String::from_utf8_lossy(&o.stdout);
        let file = PathBuf::from(out.lines().last().unwrap_or_default());
        files.push(std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display())));
        let sidecar = PathBuf::from(format!("{}.sha256", file.display()));
        for f in [&file, &sidecar] {
            std::fs::remove_file(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        }
    }
    assert!(files[0] == files[1], "cuzk setup: GPU and CPU params files differ");
    let _ = std::fs::remove_dir_all(&dir);
}
