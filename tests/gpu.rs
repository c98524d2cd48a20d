//! The CUDA backend against the CPU backend. Without a GPU every device test prints one line,
//! `*** SKIPPED <test>: no usable GPU: … ***`, and passes (`CUZK_REQUIRE_GPU=1`, set by gpu-check, makes it
//! fail instead: `support/require.rs`); the checks that need no device (backend selection, the NVRTC compile
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

/// The GPU backend, or None after the skip line (a failure under `CUZK_REQUIRE_GPU=1`, as in gpu-check).
fn gpu(test: &str) -> Option<GpuBackend> {
    require::gpu(test, GpuBackend::new())
}

/// The backend's first device: a backend that opened has one.
fn dev0(g: &GpuBackend) -> &Arc<Gpu> {
    g.gpu(0).unwrap_or_else(|| panic!("GpuBackend::new opened no device"))
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

#[path = "support/require.rs"]
mod require;

// First: its `delegate!` macro is used by the modules after it.
#[macro_use]
#[path = "gpu/proofs.rs"]
mod proofs;
#[path = "gpu/g2d.rs"]
mod g2d;
#[path = "gpu/host.rs"]
mod host;
#[path = "gpu/kernels.rs"]
mod kernels;
#[path = "gpu/msm_g2.rs"]
mod msm_g2;
#[path = "gpu/msm_schedules.rs"]
mod msm_schedules;
#[path = "gpu/msm_shift.rs"]
mod msm_shift;
#[path = "gpu/ntt.rs"]
mod ntt;
#[path = "gpu/perf.rs"]
mod perf;
#[path = "gpu/pools.rs"]
mod pools;
#[path = "gpu/setup.rs"]
mod setup;
#[path = "gpu/staged.rs"]
mod staged;
