//! The G1 MSM over precomputed shifted bases (src/backend/gpu/kernels/msm/shift.rs) against the CPU MSM: random
//! scalars at odd sizes, the shapes that concentrate one bucket (now shared by every window of a pass), bases
//! at infinity, MSMs shorter than the shifted set (the copies' stride is not n), narrow and wide windows, and
//! the one-stream schedule; plus the copies themselves against blstrs (2^(c·j)·P).

use super::{dev0, g1_points, gpu, rng, scalars, shaped_scalars};
use blstrs::{G1Affine, G1Projective, Scalar};
use cuzk::backend::api::{Backend, Bases};
use cuzk::backend::cpu::backend::CpuBackend;
use cuzk::backend::gpu::kernels::msm::shift::{msm_g1_shifted, shift_bases};
use cuzk::backend::gpu::{limbs, Gpu};
use group::{Curve, Group};

/// Shifts `bases` for each window and compares the shifted MSM of the first `n` with the CPU's.
fn check(dev: &Gpu, what: &str, bases: &[G1Affine], sc: &[Scalar], windows: &[usize]) {
    let n = sc.len();
    let cpu = CpuBackend::new();
    let want = cpu.msm_g1(Bases::host(&bases[..n]), sc, None).unwrap_or_else(|e| panic!("{e}")).to_affine();
    let db = dev.stream.clone_htod(limbs(bases)).unwrap_or_else(|e| panic!("{e}"));
    let ds = dev.stream.clone_htod(limbs(sc)).unwrap_or_else(|e| panic!("{e}"));
    for &c in windows {
        let sb = shift_bases(dev, &db.slice(..), bases.len(), Some(c))
            .unwrap_or_else(|e| panic!("{what} c={c}: {e}"));
        for overlap in [true, false] {
            let got = msm_g1_shifted(dev, &sb, &ds.slice(..), n, overlap)
                .unwrap_or_else(|e| panic!("{what} c={c} overlap={overlap}: {e}"));
            assert_eq!(
                got.to_affine(),
                want,
                "shifted msm {what} n={n} of {} c={c} overlap={overlap}",
                bases.len()
            );
        }
    }
}

#[test]
fn shifted_msm_matches_cpu() {
    let Some(g) = gpu("shifted_msm_matches_cpu") else { return };
    let dev = dev0(&g);
    for (k, &n) in [1usize, 3, 255, 4097, 65_537].iter().enumerate() {
        let bases = g1_points(n, 400 + k as u64);
        for mix in [false, true] {
            let sc = scalars(n, &mut rng(410 + k as u64), mix);
            check(dev, &format!("random mix={mix}"), &bases, &sc, &[8, 13]);
        }
    }
    let bases = g1_points(1 << 16, 420);
    for shape in ["equal", "pm1_runs", "half_equal", "porep_mix"] {
        let sc = shaped_scalars(shape, bases.len(), 421);
        check(dev, shape, &bases, &sc, &[16]);
    }
    // Fewer scalars than shifted bases: entries index copy j at j·len + i, not j·n + i.
    let sc = scalars(40_000, &mut rng(422), true);
    check(dev, "shorter than the bases", &bases, &sc, &[12, 17]);
    let mut with_inf = g1_points(20_001, 423);
    for p in with_inf.iter_mut().step_by(5) {
        *p = G1Projective::identity().to_affine();
    }
    let sc = scalars(with_inf.len(), &mut rng(424), true);
    check(dev, "bases at infinity", &with_inf, &sc, &[10]);
    // Wide windows, the ones the shifted path is for (one shared set of 2^(c−1) buckets).
    let bases = g1_points(1 << 18, 425);
    let sc = scalars(bases.len(), &mut rng(426), false);
    check(dev, "wide windows", &bases, &sc, &[20, 22]);
}

#[test]
fn shifted_copies_are_the_doubled_bases() {
    let Some(g) = gpu("shifted_copies_are_the_doubled_bases") else { return };
    let dev = dev0(&g);
    let mut bases = g1_points(1000, 430);
    bases[7] = G1Projective::identity().to_affine();
    let db = dev.stream.clone_htod(limbs(&bases)).unwrap_or_else(|e| panic!("{e}"));
    for c in [5usize, 22] {
        let sb = shift_bases(dev, &db.slice(..), bases.len(), Some(c)).unwrap_or_else(|e| panic!("{e}"));
        let w = 255usize.div_ceil(c);
        let got: Vec<u64> = dev.stream.clone_dtoh(sb.device_slice()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.len(), 12 * w * bases.len());
        for j in [0, 1, w / 2, w - 1] {
            for i in [0usize, 7, 500, 999] {
                let mut p = G1Projective::from(bases[i]);
                for _ in 0..c * j {
                    p = p.double();
                }
                let mut a = [G1Projective::identity().to_affine()];
                cuzk::backend::gpu::limbs_mut(&mut a)
                    .copy_from_slice(&got[12 * (j * bases.len() + i)..12 * (j * bases.len() + i + 1)]);
                assert_eq!(a[0], p.to_affine(), "copy j={j} of base {i}, c={c}");
            }
        }
    }
}

#[test]
fn shifted_msm_h_proofs_match_cpu() {
    use cuzk::vocab::{Toggle, Toggles};
    let Some(g) = gpu("shifted_msm_h_proofs_match_cpu") else { return };
    // The prover shifts H from 2^21 points; porep-mini is far smaller. The threshold and the counts are this
    // backend's own, so other tests running at the same time change neither.
    g.first().set_shift_min_points(1);
    let (params, circuits) = super::setup_for("samples/porep-mini.toml");
    let want = super::prove(&CpuBackend::new(), &params, &circuits, &Toggles::default());
    // (shift, srs_resident, copies built, msm_h over them): built on the first call, reused by the second,
    // not used without `shift` (which frees them) nor without a resident SRS.
    for (shift, resident, built, used) in
        [(true, true, 1, true), (true, true, 0, true), (false, true, 0, false), (true, false, 0, false)]
    {
        let mut t = Toggles::default();
        t.set(Toggle::Shift, shift);
        t.set(Toggle::SrsResident, resident);
        let c0 = g.first().counts();
        assert_eq!(super::prove(&g, &params, &circuits, &t), want, "shift={shift} srs_resident={resident}");
        let c1 = g.first().counts();
        assert_eq!(
            c1.shift_builds - c0.shift_builds,
            built,
            "copies built, shift={shift} srs_resident={resident}"
        );
        assert_eq!(
            c1.shift_runs > c0.shift_runs,
            used,
            "msm_h over shifted copies, shift={shift} srs_resident={resident}"
        );
    }
}
