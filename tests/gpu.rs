//! The CUDA backend against the CPU backend. Without a GPU every device test prints a loud
//! "skipped: no CUDA driver" and passes; the checks that need no device (backend selection, the NVRTC compile
//! of every kernel module when libnvrtc can be found, the kernel cache, the prover's lane path on a fake
//! device-timed backend) always run. On the device machine `scripts/gpu-check.sh` runs this binary.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cudarc::driver::CudaSlice;
use cuzk::backend::api::{BResult, Backend, Bases, CallOpts, SrsRef};
use cuzk::backend::cpu::backend::CpuBackend;
use cuzk::backend::cpu::fixed_base::{fixed_base_g1, fixed_base_g2};
use cuzk::backend::gpu::backend::GpuBackend;
use cuzk::backend::gpu::{compile, discover, limbs, Gpu, GpuError};
use cuzk::backend::select::select;
use cuzk::circuits::{Sample, SampleCircuit};
use cuzk::cs::{Evals, ShapeCounter};
use cuzk::groth16::prover::{prove_assignments, synthesize, CallSpec};
use cuzk::groth16::setup::generate;
use cuzk::groth16::verify::{verify_batch, PreparedVerifyingKey};
use cuzk::groth16::{Parameters, Proof};
use cuzk::vocab::{BackendKind, Probe, Site, Span, Toggle, Toggles};
use ff::Field;
use group::{Curve, Group};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The GPU backend, or a loud skip line naming why there is none.
fn gpu(test: &str) -> Option<GpuBackend> {
    match GpuBackend::new() {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("\n*** {test}: skipped: no CUDA driver / usable GPU ({e}) ***\n");
            None
        }
    }
}

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn scalars(n: usize, r: &mut ChaCha8Rng, mix: bool) -> Vec<Scalar> {
    (0..n)
        .map(|_| match if mix { r.gen_range(0..4) } else { 3 } {
            0 => Scalar::ZERO,
            1 => Scalar::ONE,
            2 => -Scalar::ONE,
            _ => Scalar::random(&mut *r),
        })
        .collect()
}

fn g1_points(n: usize, seed: u64) -> Vec<G1Affine> {
    fixed_base_g1(&G1Projective::generator(), &scalars(n, &mut rng(seed), false))
}

fn g2_points(n: usize, seed: u64) -> Vec<G2Affine> {
    fixed_base_g2(&G2Projective::generator(), &scalars(n, &mut rng(seed), false))
}

fn bitmaps(n: usize, seed: u64) -> Vec<(&'static str, Vec<u64>)> {
    let words = n.div_ceil(64);
    let mut full = vec![u64::MAX; words];
    if !n.is_multiple_of(64) {
        full[words - 1] = (1u64 << (n % 64)) - 1;
    }
    let mut r = rng(seed);
    let random: Vec<u64> = full.iter().map(|&m| r.gen::<u64>() & m).collect();
    let sparse: Vec<u64> =
        full.iter().map(|&m| r.gen::<u64>() & r.gen::<u64>() & r.gen::<u64>() & m).collect();
    vec![("empty", vec![0; words]), ("full", full), ("random", random), ("sparse", sparse)]
}

#[test]
fn msm_g1_matches_cpu() {
    let Some(g) = gpu("msm_g1_matches_cpu") else { return };
    let cpu = CpuBackend::new();
    for (k, &n) in
        [1usize, 2, 100, (1 << 10) - 1, 1 << 12, (1 << 12) + 1, 1 << 16, 100_003].iter().enumerate()
    {
        let bases = g1_points(n, 10 + k as u64);
        for mix in [true, false] {
            let s = scalars(n, &mut rng(100 + k as u64), mix);
            let want =
                cpu.msm_g1(Bases::host(&bases), &s, None).unwrap_or_else(|e| panic!("{e}")).to_affine();
            let windows: &[Option<usize>] = if n == 1 << 12 || n == 100_003 {
                &[None, Some(4), Some(8), Some(11), Some(16)]
            } else {
                &[None]
            };
            for &w in windows {
                let got = g
                    .msm_g1(Bases::host(&bases), &s, w)
                    .unwrap_or_else(|e| panic!("n={n} window={w:?}: {e}"));
                assert_eq!(got.to_affine(), want, "msm_g1 n={n} mix={mix} window={w:?}");
            }
        }
    }
    // Below GPU_MSM_MIN the backend answers on the host: check the device kernels there directly too.
    if let Some(dev) = g.gpu(0) {
        for (k, &n) in [1usize, 2, 3, 100, 255].iter().enumerate() {
            let bases = g1_points(n, 60 + k as u64);
            let s = scalars(n, &mut rng(61 + k as u64), true);
            let want =
                cpu.msm_g1(Bases::host(&bases), &s, None).unwrap_or_else(|e| panic!("{e}")).to_affine();
            let db = dev.stream.clone_htod(limbs(&bases)).unwrap_or_else(|e| panic!("{e}"));
            let dsc = dev.stream.clone_htod(limbs(&s)).unwrap_or_else(|e| panic!("{e}"));
            let got = cuzk::backend::gpu::msm::msm_g1(dev, &db.slice(..), &dsc.slice(..), n, None)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(got.to_affine(), want, "device msm_g1 n={n}");
        }
    }
    // Input shapes that concentrate the buckets (runs of ±1, half the scalars equal, the porep mix).
    let bases = g1_points(1 << 16, 62);
    for shape in ["pm1_runs", "half_equal", "porep_mix", "equal"] {
        let sc = shaped_scalars(shape, bases.len(), 63);
        let want = cpu.msm_g1(Bases::host(&bases), &sc, None).unwrap_or_else(|e| panic!("{e}")).to_affine();
        let got = g.msm_g1(Bases::host(&bases), &sc, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.to_affine(), want, "msm_g1 shape {shape}");
    }
    // All scalars equal (one bucket takes every point) and all zero.
    for s in [Scalar::from(5u64), Scalar::ZERO] {
        let bases = g1_points(4097, 3);
        let sc = vec![s; bases.len()];
        let want = cpu.msm_g1(Bases::host(&bases), &sc, None).unwrap_or_else(|e| panic!("{e}")).to_affine();
        assert_eq!(
            g.msm_g1(Bases::host(&bases), &sc, None).unwrap_or_else(|e| panic!("{e}")).to_affine(),
            want
        );
    }
}

#[test]
fn batch_add_matches_cpu() {
    let Some(g) = gpu("batch_add_matches_cpu") else { return };
    let Some(dev) = g.gpu(0) else { return };
    let cpu = CpuBackend::new();
    for (k, &n) in [1usize, 64, 100, 4097, 1 << 16].iter().enumerate() {
        let b1 = g1_points(n, 20 + k as u64);
        let b2 = g2_points(n.min(4097), 30 + k as u64);
        for (name, bm) in bitmaps(n, 40 + k as u64) {
            let want = cpu.batch_add_g1(Bases::host(&b1), &bm).unwrap_or_else(|e| panic!("{e}"));
            let got =
                g.batch_add_g1(Bases::host(&b1), &bm).unwrap_or_else(|e| panic!("g1 n={n} {name}: {e}"));
            assert_eq!(got.to_affine(), want.to_affine(), "batch_add_g1 n={n} {name}");
            let m = b2.len();
            let bm2: Vec<u64> = bm[..m.div_ceil(64)].to_vec();
            let want2 = cpu.batch_add_g2(&b2, &bm2).unwrap_or_else(|e| panic!("{e}"));
            let d = dev.stream.clone_htod(limbs(&b2)).unwrap_or_else(|e| panic!("{e}"));
            let got2 = cuzk::backend::gpu::batch_add::batch_add_g2(dev, &d.slice(..), m, &bm2)
                .unwrap_or_else(|e| panic!("g2 n={m} {name}: {e}"));
            assert_eq!(got2.to_affine(), want2.to_affine(), "batch_add_g2 n={m} {name}");
        }
    }
}

#[test]
fn ntt_and_compute_h_match_cpu() {
    let Some(g) = gpu("ntt_and_compute_h_match_cpu") else { return };
    let Some(dev) = g.gpu(0) else { return };
    for log_n in [1u32, 4, 10, 11, 16, 20] {
        let r =
            ntt_check_against_cpu(dev, log_n, 7 + log_n as u64).unwrap_or_else(|e| panic!("2^{log_n}: {e}"));
        if let Err(m) = r {
            panic!("ntt 2^{log_n}: {m}");
        }
    }
    // The whole ntt_msm_h phase (compute_h, then the MSM with the first N − 1 coefficients).
    let cpu = CpuBackend::new();
    for log_n in [10u32, 16] {
        let n = 1usize << log_n;
        let mut r = rng(log_n as u64);
        let (a, b, c) =
            (scalars(n - 3, &mut r, false), scalars(n - 3, &mut r, false), scalars(n - 3, &mut r, true));
        let h = g1_points(n - 1, 50);
        let p = Probe::silent();
        let want = cpu
            .ntt_msm_h(&p, 0, [a.clone().into(), b.clone().into(), c.clone().into()], Bases::host(&h))
            .unwrap_or_else(|e| panic!("{e}"));
        let got = g
            .ntt_msm_h(&p, 0, [a.into(), b.into(), c.into()], Bases::host(&h))
            .unwrap_or_else(|e| panic!("ntt_msm_h 2^{log_n}: {e}"));
        assert_eq!(got.to_affine(), want.to_affine(), "ntt_msm_h 2^{log_n}");
    }
}

/// Runs all four transforms and compute_h at 2^log_n on pseudo-random inputs and compares with the CPU
/// backend element for element. Returns a one-line description of the first mismatch.
fn ntt_check_against_cpu(gpu: &Gpu, log_n: u32, seed: u64) -> Result<Result<(), String>, GpuError> {
    use cuzk::backend::cpu::ntt as cpu;
    use cuzk::backend::gpu::limbs_mut;
    use cuzk::backend::gpu::ntt::{compute_h, ntt, NttDir};
    let n = 1usize << log_n;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rand_vec = |len: usize| -> Vec<Scalar> { (0..len).map(|_| Scalar::random(&mut rng)).collect() };
    let dom = cpu::Domain::new(log_n).map_err(|e| GpuError::Invalid(e.to_string()))?;
    let from_dev = |d: &CudaSlice<u64>| -> Result<Vec<Scalar>, GpuError> {
        let mut v = vec![Scalar::ZERO; n];
        gpu.stream.memcpy_dtoh(&d.slice(0..4 * n), limbs_mut(&mut v))?;
        Ok(v)
    };
    for dir in [NttDir::Forward, NttDir::Inverse, NttDir::CosetForward, NttDir::CosetInverse] {
        let x = rand_vec(n);
        let mut want = x.clone();
        match dir {
            NttDir::Forward => dom.ntt(&mut want),
            NttDir::Inverse => dom.intt(&mut want),
            NttDir::CosetForward => dom.coset_ntt(&mut want),
            NttDir::CosetInverse => dom.icoset_ntt(&mut want),
        }
        .map_err(|e| GpuError::Invalid(e.to_string()))?;
        let mut d = gpu.stream.clone_htod(limbs(&x))?;
        ntt(gpu, &mut d, log_n, dir)?;
        let got = from_dev(&d)?;
        if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
            return Ok(Err(format!("ntt {dir:?} 2^{log_n}: first mismatch at {i} of {n}")));
        }
    }
    let (x, y) = (rand_vec(n), rand_vec(n));
    let mut z = rand_vec(n);
    z.truncate(n - n / 4); // zero-padded on the device, short on the CPU (as the prover passes it)
    let mut zp = z.clone();
    zp.resize(n, Scalar::ZERO);
    let (mut da, mut db, mut dc) = (
        gpu.stream.clone_htod(limbs(&x))?,
        gpu.stream.clone_htod(limbs(&y))?,
        gpu.stream.clone_htod(limbs(&zp))?,
    );
    compute_h(gpu, &mut da, &mut db, &mut dc, log_n)?;
    let got = from_dev(&da)?;
    let (mut a, mut b, mut c) = (x, y, z);
    cpu::compute_h(&mut a, &mut b, &mut c, &dom).map_err(|e| GpuError::Invalid(e.to_string()))?;
    if let Some(i) = (0..a.len()).find(|&i| got[i] != a[i]) {
        return Ok(Err(format!("compute_h 2^{log_n}: first mismatch at {i} of {}", a.len())));
    }
    Ok(Ok(()))
}

fn setup_for(path: &str) -> (Arc<Parameters>, Vec<SampleCircuit>) {
    let s = Sample::load(Path::new(path)).unwrap_or_else(|e| panic!("{e}"));
    let circuits = s.sector_circuits(0);
    let shape = ShapeCounter::count(&circuits[0]).expect("count");
    (Arc::new(generate(&circuits[0], shape, s.seed, &|_, _, _| {}).expect("setup")), circuits)
}

fn prove_with(b: &dyn Backend, params: &Parameters, circuits: &[SampleCircuit], t: &Toggles) -> Vec<Proof> {
    let p = Probe::silent();
    let asgs = synthesize(&p, circuits, t, Some(ShapeCounter::count(&circuits[0]).expect("count")), 0)
        .expect("synthesis");
    let call = CallSpec { params, toggles: t, seed: 77, first: 0 };
    prove_assignments(&p, b, call, asgs).unwrap_or_else(|e| panic!("{}: {e}", t.compact()))
}

fn prove(b: &dyn Backend, params: &Parameters, circuits: &[SampleCircuit], t: &Toggles) -> Vec<[u8; 192]> {
    prove_with(b, params, circuits, t).iter().map(Proof::to_bytes).collect()
}

/// The five prover toggles set from the bits of `mask` (a1 = bit 0 … d4 = bit 4).
fn toggles(mask: u32) -> Toggles {
    let mut t = Toggles::default();
    let all = [Toggle::A1, Toggle::A2, Toggle::A4, Toggle::B1, Toggle::D4, Toggle::B2];
    for (bit, tog) in all.into_iter().enumerate() {
        t.set(tog, mask & (1 << bit) != 0);
    }
    t
}

/// Proves `path` on the CPU once and on `b` for every mask; all must match byte for byte and verify.
fn same_proofs(b: &dyn Backend, path: &str, masks: &[u32], srs_resident: &[bool]) {
    let (params, circuits) = setup_for(path);
    let want = prove(&CpuBackend::new(), &params, &circuits, &Toggles::default());
    for &mask in masks {
        for &res in srs_resident {
            let mut t = toggles(mask);
            t.set(Toggle::SrsResident, res);
            assert_eq!(
                prove(b, &params, &circuits, &t),
                want,
                "{path}: toggles {} changed the proofs",
                t.compact()
            );
        }
    }
    let pvk = PreparedVerifyingKey::new(&params.vk);
    let proofs = prove_with(b, &params, &circuits, &Toggles::default());
    let inputs: Vec<Vec<Scalar>> = circuits.iter().map(|c| c.public_inputs()).collect();
    assert!(verify_batch(&pvk, &proofs, &inputs).unwrap_or_else(|e| panic!("{e}")).iter().all(|ok| *ok));
}

#[test]
fn gpu_proofs_porep_tiny_all_toggles() {
    let Some(g) = gpu("gpu_proofs_porep_tiny_all_toggles") else { return };
    same_proofs(&g, "samples/porep-tiny.toml", &(0..64).collect::<Vec<_>>(), &[true, false]);
}

#[test]
fn gpu_proofs_porep_mini_some_toggles() {
    let Some(g) = gpu("gpu_proofs_porep_mini_some_toggles") else { return };
    same_proofs(&g, "samples/porep-mini.toml", &[0, 0b11111, 0b01000, 0b10100, 0b100000, 0b110100], &[true]);
}

/// A device-like backend made of CPU lanes that run beside the host: exercises the prover's lane path
/// (split, overlap, lane-opened phases) on any machine.
struct FakeLanes {
    lanes: Vec<FakeLane>,
    calls: AtomicUsize,
}

#[derive(Default)]
struct FakeLane {
    cpu: CpuBackend,
    phases: AtomicUsize,
}

macro_rules! delegate {
    () => {
        fn ntt_msm_h(&self, p: &Probe, c: usize, abc: [Evals; 3], h: Bases<'_>) -> BResult<G1Projective> {
            self.cpu().ntt_msm_h(p, c, abc, h)
        }
        fn batch_add_g1(&self, bases: Bases<'_>, bitmap: &[u64]) -> BResult<G1Projective> {
            self.cpu().batch_add_g1(bases, bitmap)
        }
        fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective> {
            self.cpu().batch_add_g2(bases, bitmap)
        }
        fn msm_g1(&self, bases: Bases<'_>, s: &[Scalar], w: Option<usize>) -> BResult<G1Projective> {
            self.cpu().msm_g1(bases, s, w)
        }
        fn msm_g2(&self, bases: &[G2Affine], s: &[Scalar], w: Option<usize>) -> BResult<G2Projective> {
            self.cpu().msm_g2(bases, s, w)
        }
        fn window_for(&self, n: usize) -> usize {
            self.cpu().window_for(n)
        }
        fn overlaps_host(&self) -> bool {
            true
        }
    };
}

impl FakeLane {
    fn cpu(&self) -> &CpuBackend {
        &self.cpu
    }
}

impl Backend for FakeLane {
    fn name(&self) -> &'static str {
        "fake"
    }
    fn device(&self) -> String {
        "fake lane".into()
    }
    delegate!();
    fn open(&self, probe: &Probe, site: Site) -> Span {
        self.phases.fetch_add(1, Ordering::SeqCst);
        probe.open(site.device(7))
    }
}

impl FakeLanes {
    fn cpu(&self) -> &CpuBackend {
        &self.lanes[0].cpu
    }
}

impl Backend for FakeLanes {
    fn name(&self) -> &'static str {
        "fake"
    }
    fn device(&self) -> String {
        format!("{} fake lanes", self.lanes.len())
    }
    delegate!();
    fn lanes(&self) -> usize {
        self.lanes.len()
    }
    fn lane(&self, i: usize) -> Option<&dyn Backend> {
        self.lanes.get(i).map(|l| l as &dyn Backend)
    }
    fn begin_call(&self, _p: &Probe, _o: CallOpts, srs: SrsRef<'_>) -> BResult<()> {
        assert!(!srs.h.is_empty());
        self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

#[test]
fn lane_path_matches_cpu_path() {
    let (params, circuits) = setup_for("samples/porep-tiny.toml");
    let want = prove(&CpuBackend::new(), &params, &circuits, &Toggles::default());
    for lanes in [1usize, 2, 3] {
        let b = FakeLanes {
            lanes: (0..lanes).map(|_| FakeLane::default()).collect(),
            calls: AtomicUsize::new(0),
        };
        for mask in [0u32, 0b11111, 0b00100] {
            assert_eq!(prove(&b, &params, &circuits, &toggles(mask)), want, "{lanes} lanes, mask {mask:05b}");
        }
        assert_eq!(b.calls.load(Ordering::SeqCst), 3);
        // Three lane phases (ntt_msm_h, batch_add, tail_msm) per circuit per call, spread over the lanes.
        let phases: usize = b.lanes.iter().map(|l| l.phases.load(Ordering::SeqCst)).sum();
        assert_eq!(phases, 3 * 3 * circuits.len(), "{lanes} lanes");
    }
}

#[test]
fn selection_says_why() {
    let d = discover::discovery();
    let auto = select(BackendKind::Auto).unwrap_or_else(|e| panic!("auto never fails: {e}"));
    assert!(auto.reason.starts_with("auto: "), "{}", auto.reason);
    match select(BackendKind::Gpu) {
        Ok(s) => {
            assert!(d.usable());
            assert_eq!(s.backend.name(), "gpu");
            assert_eq!(auto.backend.name(), "gpu");
        }
        Err(e) => {
            assert!(!d.usable());
            let msg = e.to_string();
            assert!(msg.starts_with("--backend gpu: no usable GPU: "), "{msg}");
            assert!(!msg.contains('\n'), "{msg}");
            assert_eq!(auto.backend.name(), "cpu", "{}", auto.reason);
            eprintln!("\n*** no GPU here: auto → cpu ({}) ***\n", auto.reason);
        }
    }
}

fn cuzk_bin() -> PathBuf {
    match std::env::var_os("CUZK_BIN") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_BIN_EXE_cuzk")),
    }
}

#[test]
fn cli_backend_gpu_without_gpu_is_one_line() {
    if discover::discovery().usable() {
        eprintln!("\n*** cli_backend_gpu_without_gpu_is_one_line: skipped: a GPU is present ***\n");
        return;
    }
    let bin = cuzk_bin();
    if !bin.exists() {
        eprintln!("\n*** cli test skipped: {} not found (set CUZK_BIN) ***\n", bin.display());
        return;
    }
    let dir = std::env::temp_dir().join(format!("cuzk-gpu-cli-{}", std::process::id()));
    for args in [
        &["bench", "msm", "--backend", "gpu", "--log-size", "4"][..],
        &["prove", "--sample", "samples/porep-tiny.toml", "--backend", "gpu"],
    ] {
        let o = std::process::Command::new(&bin)
            .args(args)
            .env("CUZK_CACHE", &dir)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: --backend gpu: no usable GPU"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nvrtc_compiles_every_module() {
    if !discover::nvrtc_present() {
        eprintln!(
            "\n*** nvrtc_compiles_every_module: SKIPPED: libnvrtc not found (set {} or CUDA_HOME, or LD_LIBRARY_PATH) ***\n",
            discover::NVRTC_LIB_ENV
        );
        return;
    }
    // The device's own arch when there is one, else the H200's (sm_90): one compile per module (each takes
    // a while: the curve arithmetic is fully inlined).
    let arch = discover::discovery().devices.first().map_or((9, 0), |d| d.arch);
    for m in compile::Module::ALL {
        let t = std::time::Instant::now();
        let cubin =
            compile::compile_cubin(m, arch).unwrap_or_else(|e| panic!("sm_{}{}: {e}", arch.0, arch.1));
        assert!(cubin.starts_with(b"\x7fELF"), "{m:?} is not a cubin");
        // CUZK_PREBUILD_KERNELS=DIR: also store the cubin in DIR/kernels as the kernel cache names it, so a
        // device machine with the same NVRTC loads it instead of compiling (device time is scarce).
        if let (Some(dir), Some(v)) = (std::env::var_os("CUZK_PREBUILD_KERNELS"), discover::nvrtc_version()) {
            let name = compile::cache_name(m, arch, v).unwrap_or_else(|e| panic!("{e}"));
            let path = Path::new(&dir).join("kernels").join(name);
            compile::write_cached(&path, &cubin).unwrap_or_else(|e| panic!("{e}"));
            eprintln!("NVRTC: cached {}", path.display());
        }
        eprintln!(
            "NVRTC: cuda/{} → sm_{}{} cubin, {} bytes, {:.1} s",
            m.file(),
            arch.0,
            arch.1,
            cubin.len(),
            t.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn kernel_cache_detects_corruption() {
    let dir = std::env::temp_dir().join(format!("cuzk-kcache-{}", std::process::id()));
    let p = dir.join("x.cubin");
    compile::write_cached(&p, b"\x7fELF cubin bytes").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compile::read_cached(&p).as_deref(), Some(&b"\x7fELF cubin bytes"[..]));
    let mut bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{e}"));
    bytes[2] ^= 1;
    std::fs::write(&p, &bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compile::read_cached(&p), None, "a flipped bit must be detected");
    std::fs::write(&p, &bytes[..10]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compile::read_cached(&p), None, "a truncated file must be detected");
    let _ = std::fs::remove_dir_all(&dir);
    // Sources resolve their includes (no `#include` left for NVRTC to miss).
    for m in compile::Module::ALL {
        if let Ok(src) = compile::source(m) {
            assert!(!src.contains("#include \""), "{m:?} still includes a file");
        }
    }
}

/// Median of timings in ms.
fn median_ms(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Milliseconds of each of `reps` calls of `f` (host clock around a call that waits for its result).
fn time_ms<T>(reps: usize, mut f: impl FnMut() -> T) -> Vec<f64> {
    (0..reps)
        .map(|_| {
            let t = std::time::Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect()
}

/// Scalars of one MSM input shape: random, all equal, runs of ±1, half of them one value (one huge bucket
/// per window), the porep mix of 0/1/other.
fn shaped_scalars(shape: &str, n: usize, seed: u64) -> Vec<Scalar> {
    let mut r = rng(seed);
    let v = Scalar::random(&mut r);
    (0..n)
        .map(|i| match shape {
            "equal" => v,
            "pm1_runs" => {
                if (i / 7) % 2 == 0 {
                    Scalar::ONE
                } else {
                    -Scalar::ONE
                }
            }
            "half_equal" => {
                if i % 2 == 0 {
                    v
                } else {
                    Scalar::random(&mut r)
                }
            }
            "porep_mix" => match r.gen_range(0..200) {
                0..99 => Scalar::ZERO,
                99..199 => Scalar::ONE,
                _ => Scalar::random(&mut r),
            },
            _ => Scalar::random(&mut r),
        })
        .collect()
}

/// Device timings for docs/PERF.md, not a check (ignored; `--ignored --nocapture perf_probe` on the device
/// machine). MSM at 2^16..2^24 (default window, per-stage times with CUZK_MSM_PROFILE, windows 18 and 20 at
/// 2^24), MSM input shapes (checked against the CPU at 2^20), small MSMs on the device
/// against the CPU, NTT and compute_h (radix 4 and 8), batch_add. `CUZK_PERF_MAX_LOG` caps the sizes
/// (default 24). Points beyond 2^22 repeat the first 2^22 (distinct random scalars; 400 MB of bases is far
/// beyond the L2). Lines start with `PERF`.
#[test]
#[ignore]
fn perf_probe() {
    use cuzk::backend::gpu::ntt::{compute_h, ntt, NttDir};
    use cuzk::backend::gpu::{batch_add, msm};
    let Some(g) = gpu("perf_probe") else { return };
    let Some(dev) = g.gpu(0) else { return };
    let max_log: u32 = std::env::var("CUZK_PERF_MAX_LOG").ok().and_then(|v| v.parse().ok()).unwrap_or(24);
    let cpu = CpuBackend::new();
    let t0 = std::time::Instant::now();
    let nmax = 1usize << max_log;
    let mut bases = g1_points(nmax.min(1 << 22), 77);
    while bases.len() < nmax {
        let k = bases.len().min(nmax - bases.len());
        bases.extend_from_within(..k);
    }
    let scal = scalars(nmax, &mut rng(78), false);
    println!("PERF data 2^{max_log} points+scalars generated in {:.1} s", t0.elapsed().as_secs_f64());
    let ok = |e: GpuError| -> ! { panic!("{e}") };
    let db = dev.stream.clone_htod(limbs(&bases)).unwrap_or_else(|e| ok(e.into()));
    let ds = dev.stream.clone_htod(limbs(&scal)).unwrap_or_else(|e| ok(e.into()));
    let run = |n: usize, w: Option<usize>| {
        msm::msm_g1(dev, &db.slice(0..12 * n), &ds.slice(0..4 * n), n, w).unwrap_or_else(|e| ok(e))
    };
    // A probe reports a mismatch and goes on timing (the checks proper are the other tests).
    let check = |what: &str, got: G1Projective, want: G1Projective| {
        println!(
            "PERF check {what}: {}",
            if got.to_affine() == want.to_affine() { "ok" } else { "MISMATCH" }
        );
    };
    let n20 = 1usize << max_log.min(20);
    let want = cpu.msm_g1(Bases::host(&bases[..n20]), &scal[..n20], None).unwrap_or_else(|e| panic!("{e}"));
    check("msm 2^20 random", run(n20, None), want);
    let with_env = |k: &str, v: &str, f: &mut dyn FnMut()| {
        std::env::set_var(k, v);
        f();
        std::env::remove_var(k);
    };
    for lg in [16u32, 18, 20, 22, 24].into_iter().filter(|&l| l <= max_log) {
        let n = 1usize << lg;
        let ms = median_ms(time_ms(5, || run(n, None)));
        println!("PERF msm 2^{lg} window {} median {ms:.2} ms", msm::window_for(n));
        with_env("CUZK_MSM_PROFILE", "1", &mut || {
            run(n, None);
        });
        if lg == 24 {
            for c in [18usize, 20] {
                let ms = median_ms(time_ms(3, || run(n, Some(c))));
                println!("PERF msm 2^{lg} window {c} median {ms:.2} ms");
            }
        }
    }
    // Input shapes: same bases, scalars of each shape; checked against the CPU at 2^20.
    for lg in [20u32, 24].into_iter().filter(|&l| l <= max_log) {
        let n = 1usize << lg;
        for shape in ["random", "equal", "pm1_runs", "half_equal", "porep_mix"] {
            let sc = shaped_scalars(shape, n, 90 + lg as u64);
            let d = dev.stream.clone_htod(limbs(&sc)).unwrap_or_else(|e| ok(e.into()));
            let go =
                || msm::msm_g1(dev, &db.slice(0..12 * n), &d.slice(..), n, None).unwrap_or_else(|e| ok(e));
            let got = go();
            if lg == 20 {
                let want = cpu.msm_g1(Bases::host(&bases[..n]), &sc, None).unwrap_or_else(|e| panic!("{e}"));
                check(&format!("msm shape {shape} 2^{lg}"), got, want);
            }
            let ms = median_ms(time_ms(3, go));
            println!("PERF msm_shape {shape} 2^{lg} median {ms:.2} ms");
        }
    }
    // Small MSMs: the device kernels (not the backend, which sends tiny ones to the host) against the CPU.
    for n in [64usize, 128, 256, 512, 1024, 4600, 16384].into_iter().filter(|&n| n <= nmax) {
        let gms = median_ms(time_ms(5, || run(n, None)));
        let cms = median_ms(time_ms(5, || cpu.msm_g1(Bases::host(&bases[..n]), &scal[..n], None)));
        println!("PERF msm_small n={n} gpu {gms:.3} ms cpu {cms:.3} ms");
    }
    // NTT forward and compute_h (data on the device), radix-4 passes (default) and radix 8 (checked here
    // against the CPU first: the tests run the default).
    for radix in ["4", "8"] {
        std::env::set_var("CUZK_NTT_RADIX", radix);
        for lg in [11u32, 16, 20] {
            let r = ntt_check_against_cpu(dev, lg, 3 + lg as u64).unwrap_or_else(|e| ok(e));
            println!("PERF check ntt radix {radix} 2^{lg}: {}", r.map_or_else(|m| m, |()| "ok".into()));
        }
        for lg in [20u32, 22, 24].into_iter().filter(|&l| l <= max_log) {
            let n = 1usize << lg;
            let mut d = dev.stream.clone_htod(limbs(&scal[..n])).unwrap_or_else(|e| ok(e.into()));
            let sync = || dev.stream.synchronize().unwrap_or_else(|e| ok(e.into()));
            ntt(dev, &mut d, lg, NttDir::Forward).unwrap_or_else(|e| ok(e));
            sync();
            let ms = median_ms(time_ms(5, || {
                ntt(dev, &mut d, lg, NttDir::Forward).unwrap_or_else(|e| ok(e));
                sync()
            }));
            println!("PERF ntt radix {radix} 2^{lg} median {ms:.3} ms");
            let (mut da, mut dbb, mut dc) = (d.clone(), d.clone(), d.clone());
            let ms = median_ms(time_ms(5, || {
                compute_h(dev, &mut da, &mut dbb, &mut dc, lg).unwrap_or_else(|e| ok(e));
                sync()
            }));
            println!("PERF compute_h radix {radix} 2^{lg} median {ms:.3} ms");
        }
        std::env::remove_var("CUZK_NTT_RADIX");
    }
    // batch_add G1, about half the bits set.
    for lg in [12u32, 16, 20, 24].into_iter().filter(|&l| l <= max_log) {
        let n = 1usize << lg;
        let mut r = rng(5);
        let bm: Vec<u64> = (0..n.div_ceil(64)).map(|_| r.gen::<u64>()).collect();
        let go = || batch_add::batch_add_g1(dev, &db.slice(0..12 * n), n, &bm).unwrap_or_else(|e| ok(e));
        go();
        let gms = median_ms(time_ms(5, go));
        let cms = median_ms(time_ms(3, || cpu.batch_add_g1(Bases::host(&bases[..n]), &bm)));
        println!("PERF batch_add 2^{lg} gpu {gms:.3} ms cpu {cms:.3} ms");
    }
}

/// With `pce` and B2, synthesis writes a/b/c into the backend's page-locked pool, the lane copies them
/// straight from there, and the proofs equal the CPU's (three calls, so blocks go back and are lent again).
#[test]
fn pool_written_abc_prove_like_the_cpu() {
    use cuzk::cs::HostPool;
    use cuzk::groth16::prover::{synthesize_with, PceSlot};
    let Some(b) = gpu("pool_written_abc_prove_like_the_cpu") else { return };
    for path in ["samples/porep-tiny.toml", "samples/sha256-chain.toml"] {
        let (params, circuits) = setup_for(path);
        let (shape, digest) = ShapeCounter::count_with_digest(&circuits[0]).expect("count");
        let slot = PceSlot::new(shape, digest);
        let t = Toggles::default();
        assert!(t.on(Toggle::Pce) && t.on(Toggle::B2) && !t.on(Toggle::B1), "the defaults changed");
        let want = prove(&CpuBackend::new(), &params, &circuits, &t);
        let pool: Option<&dyn HostPool> = b.host_pool();
        assert!(pool.is_some(), "the GPU backend lends no pool");
        for call in 0..3 {
            let p = Probe::silent();
            let asgs =
                synthesize_with(&p, &circuits, &t, Some(shape), 0, Some(&slot), pool).expect("synthesis");
            // Circuit 0 of the first call records the shape (its a/b/c come from the recorder).
            let lent = asgs
                .iter()
                .skip(usize::from(call == 0))
                .all(|g| g.a.is_lent() && g.b.is_lent() && g.c.is_lent());
            assert!(lent, "{path} call {call}: a/b/c not written into the pool");
            let cs = CallSpec { params: &params, toggles: &t, seed: 77, first: 0 };
            let got: Vec<[u8; 192]> = prove_assignments(&p, &b, cs, asgs)
                .unwrap_or_else(|e| panic!("{path}: {e}"))
                .iter()
                .map(Proof::to_bytes)
                .collect();
            assert_eq!(got, want, "{path} call {call}: proofs from pool-written a/b/c differ from the CPU's");
        }
        // Every block came back once its copy was done (the release thread waits on the copy's event).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while b.pinned_pool().idle_blocks() < 3 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(b.pinned_pool().idle_blocks() >= 3, "{path}: lent blocks did not come back");
    }
}

/// B2's staging pool: random vectors of 1 word, less than a chunk, exactly two chunks and 2.5 chunks reach
/// the device intact (the double buffer reused, a partial last chunk), after a zero-filled prefix.
#[test]
fn staging_pool_uploads_exactly() {
    use cuzk::backend::gpu::staging::{Staging, CHUNK_BYTES};
    let Some(b) = gpu("staging_pool_uploads_exactly") else { return };
    let g = b.gpu(0).unwrap_or_else(|| panic!("a backend without lane 0"));
    let mut pool = Staging::new(g).unwrap_or_else(|e| panic!("{e}"));
    let words = CHUNK_BYTES / 8;
    let mut r = rng(41);
    for len in [1, words / 3, 2 * words, 5 * words / 2] {
        let src: Vec<u64> = (0..len).map(|_| r.gen()).collect();
        let mut d = g.stream.alloc_zeros::<u64>(len + 7).unwrap_or_else(|e| panic!("{e}"));
        pool.upload(g, &src, &mut d).unwrap_or_else(|e| panic!("{e}"));
        let back = g.stream.clone_dtoh(&d).unwrap_or_else(|e| panic!("{e}"));
        assert!(back[..len] == src[..], "{len} words came back different");
        assert!(back[len..].iter().all(|&w| w == 0), "{len} words: the padding was written");
    }
    let mut small = g.stream.alloc_zeros::<u64>(3).unwrap_or_else(|e| panic!("{e}"));
    assert!(pool.upload(g, &[1, 2, 3, 4], &mut small).is_err(), "a source longer than the buffer is refused");
}

/// `cuzk bench floor`'s device part: the kernels of `cuda/floor.cu` run and the rates are of a plausible
/// order for a data-center GPU (an H200 does ~10^12 64-bit products/s, ~4 TB/s, ~50 GB/s pinned over PCIe).
#[test]
fn floor_measures_the_device() {
    let Some(b) = gpu("floor_measures_the_device") else { return };
    let g = b.gpu(0).unwrap_or_else(|| panic!("a backend without lane 0"));
    let f = cuzk::backend::gpu::floor::measure(g).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "gpu0 floor: {:.3e} mul64/s, memory {:.0} GB/s, h2d pinned {:.1} GB/s, pageable {:.1} GB/s",
        f.mul64_per_s,
        f.mem_bytes_per_s / 1e9,
        f.h2d_pinned_bytes_per_s / 1e9,
        f.h2d_pageable_bytes_per_s / 1e9
    );
    assert!(f.mul64_per_s > 1e10, "{f:?}");
    assert!(f.mem_bytes_per_s > 1e11, "{f:?}");
    assert!(f.h2d_pinned_bytes_per_s > 1e9 && f.h2d_pageable_bytes_per_s > 1e8, "{f:?}");
}
#[path = "gpu/g2d.rs"]
mod g2d;
