//! The device G1 MSM's schedules (its windows split into 1 to 8 passes, overlapped on two streams or all on
//! one: toggle `msm2s`) and forced windows against the CPU MSM: random scalars at odd sizes, the shapes that
//! concentrate buckets (all equal, runs of ±1, half equal, the porep mix, zeros), bases at infinity, and wide
//! windows. Schedules are arguments, never environment variables (tests run in parallel).

use super::{dev0, g1_points, gpu, rng, scalars, shaped_scalars};
use blstrs::{G1Affine, G1Projective, Scalar};
use cuzk::backend::api::{Backend, Bases};
use cuzk::backend::cpu::backend::CpuBackend;
use cuzk::backend::gpu::kernels::msm::{msm_g1_scheduled, Schedule};
use cuzk::backend::gpu::{limbs, Gpu};
use ff::Field;
use group::{Curve, Group};

/// The schedules every input runs under: the default split overlapped and not, three and eight passes
/// overlapped (the two-set path at test sizes), four passes on one stream (the one-set path).
const SCHEDULES: [Schedule; 5] = [
    Schedule { passes: None, overlap: true },
    Schedule { passes: None, overlap: false },
    Schedule { passes: Some(3), overlap: true },
    Schedule { passes: Some(8), overlap: true },
    Schedule { passes: Some(4), overlap: false },
];

/// Runs every schedule (and the given windows) on one input and compares each with the CPU's result.
fn check_all(dev: &Gpu, what: &str, bases: &[G1Affine], sc: &[Scalar], windows: &[Option<usize>]) {
    let cpu = CpuBackend::new();
    let want = cpu.msm_g1(Bases::host(bases), sc, None).unwrap_or_else(|e| panic!("{e}")).to_affine();
    let db = dev.stream.clone_htod(limbs(bases)).unwrap_or_else(|e| panic!("{e}"));
    let ds = dev.stream.clone_htod(limbs(sc)).unwrap_or_else(|e| panic!("{e}"));
    let n = bases.len();
    for sched in SCHEDULES {
        for &w in windows {
            let got = msm_g1_scheduled(dev, &db.slice(..), &ds.slice(..), n, w, sched)
                .unwrap_or_else(|e| panic!("{what} [{sched:?}] window={w:?}: {e}"));
            assert_eq!(got.to_affine(), want, "msm_g1 {what} n={n} {sched:?} window={w:?}");
        }
    }
}

#[test]
fn msm_schedules_match_cpu() {
    let Some(g) = gpu("msm_schedules_match_cpu") else { return };
    let dev = dev0(&g);
    // Random scalars (and the 0 / 1 / −1 mix) at odd sizes, default window.
    for (k, &n) in [1usize, 3, 255, 1000, 4097, 65_537, 1 << 18].iter().enumerate() {
        let bases = g1_points(n, 200 + k as u64);
        for mix in [false, true] {
            let sc = scalars(n, &mut rng(300 + k as u64), mix);
            check_all(dev, &format!("random mix={mix}"), &bases, &sc, &[None]);
        }
    }
    // Shapes that concentrate the buckets: one huge bucket (all equal), runs of ±1, half equal, porep mix.
    let bases = g1_points(1 << 16, 210);
    for shape in ["equal", "pm1_runs", "half_equal", "porep_mix"] {
        let sc = shaped_scalars(shape, bases.len(), 211);
        check_all(dev, shape, &bases, &sc, &[None]);
    }
    // All zeros, and bases at infinity inside buckets (every 5th base).
    check_all(dev, "zeros", &bases[..5000], &vec![Scalar::ZERO; 5000], &[None]);
    let mut with_inf = g1_points(20_001, 212);
    for p in with_inf.iter_mut().step_by(5) {
        *p = G1Projective::identity().to_affine();
    }
    let sc = scalars(with_inf.len(), &mut rng(213), true);
    check_all(dev, "bases at infinity", &with_inf, &sc, &[None, Some(8)]);
    // Wide and narrow forced windows: many empty buckets between the filled ones, or very many windows.
    let bases = g1_points(70_001, 214);
    let sc = scalars(bases.len(), &mut rng(215), false);
    check_all(dev, "forced windows", &bases, &sc, &[Some(12), Some(18), Some(20), Some(21), Some(22)]);
}
