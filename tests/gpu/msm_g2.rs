//! The device G2 MSM (`cuda/msm_g2.cu` over `cuda/msm.cu`'s sort, `g2d`'s B_G2 MSM) against the CPU's and
//! blstrs' `G2Projective::multi_exp`: random scalars at odd sizes and powers of two, the 0/1/−1 mix, forced
//! windows and passes, the shapes that concentrate buckets, bases at infinity, repeated bases and P + (−P);
//! and through a lane: the MSM over positions of a resident B_G2, equal to the host's over the gathered bases.

use super::{dev0, g2_points, gpu, rng, scalars, shaped_scalars};
use blstrs::{G2Affine, G2Projective, Scalar};
use cuzk::backend::api::{Backend, CallOpts, ParamsId, SrsRef};
use cuzk::backend::cpu::backend::CpuBackend;
use cuzk::backend::gpu::kernels::msm::msm_g2_on;
use cuzk::backend::gpu::{limbs, Gpu};
use cuzk::vocab::Probe;
use ff::Field;
use group::{Curve, Group};
use rand::Rng;

/// Runs the device G2 MSM under every given (window, passes) and compares each with the CPU's result.
fn check(dev: &Gpu, what: &str, bases: &[G2Affine], sc: &[Scalar], shapes: &[(Option<usize>, Option<u32>)]) {
    let want = CpuBackend::new().msm_g2(bases, sc, None).unwrap_or_else(|e| panic!("{e}")).to_affine();
    let db = dev.stream.clone_htod(limbs(bases)).unwrap_or_else(|e| panic!("{e}"));
    let ds = dev.stream.clone_htod(limbs(sc)).unwrap_or_else(|e| panic!("{e}"));
    let n = bases.len();
    for &(w, passes) in shapes {
        let got = msm_g2_on(dev, &dev.stream, &db.slice(..), &ds.slice(..), n, w, passes)
            .unwrap_or_else(|e| panic!("{what} n={n} window={w:?} passes={passes:?}: {e}"));
        assert_eq!(got.to_affine(), want, "msm_g2 {what} n={n} window={w:?} passes={passes:?}");
    }
}

#[test]
fn msm_g2_matches_cpu() {
    let Some(g) = gpu("msm_g2_matches_cpu") else { return };
    let dev = dev0(&g);
    // blstrs' own Pippenger as a second, independent reference at one size.
    let bases = g2_points(3001, 400);
    let sc = scalars(bases.len(), &mut rng(401), false);
    let db = dev.stream.clone_htod(limbs(&bases)).unwrap_or_else(|e| panic!("{e}"));
    let ds = dev.stream.clone_htod(limbs(&sc)).unwrap_or_else(|e| panic!("{e}"));
    let got = msm_g2_on(dev, &dev.stream, &db.slice(..), &ds.slice(..), bases.len(), None, None)
        .unwrap_or_else(|e| panic!("{e}"));
    let proj: Vec<G2Projective> = bases.iter().map(|p| G2Projective::from(*p)).collect();
    assert_eq!(got, G2Projective::multi_exp(&proj, &sc), "msm_g2 against blstrs' multi_exp");
    // Random scalars and the 0 / 1 / −1 mix at odd sizes and powers of two, default window.
    for (k, &n) in [1usize, 2, 3, 127, 1000, 4096, 65_537].iter().enumerate() {
        let bases = g2_points(n, 410 + k as u64);
        for mix in [false, true] {
            let sc = scalars(n, &mut rng(420 + k as u64), mix);
            check(dev, &format!("random mix={mix}"), &bases, &sc, &[(None, None)]);
        }
    }
    // Forced windows and passes (several passes in one buffer set).
    let bases = g2_points(20_001, 430);
    let sc = scalars(bases.len(), &mut rng(431), true);
    let shapes =
        [(Some(4), None), (Some(9), Some(3)), (Some(13), Some(2)), (Some(16), None), (None, Some(8))];
    check(dev, "forced", &bases, &sc, &shapes);
    // Bucket-concentrating shapes, and all zeros.
    let bases = g2_points(1 << 14, 440);
    for shape in ["equal", "pm1_runs", "half_equal", "porep_mix"] {
        check(dev, shape, &bases, &shaped_scalars(shape, bases.len(), 441), &[(None, None)]);
    }
    check(dev, "zeros", &bases[..3000], &vec![Scalar::ZERO; 3000], &[(None, None)]);
    // Bases at infinity, one point repeated (P + P in a bucket), P next to −P with equal scalars (cancels).
    let mut odd = g2_points(5003, 450);
    for p in odd.iter_mut().step_by(5) {
        *p = G2Projective::identity().to_affine();
    }
    let p = odd[1];
    for i in (3..odd.len()).step_by(7) {
        odd[i] = p;
    }
    for i in (2..odd.len()).step_by(11) {
        odd[i] = -p;
    }
    let v = Scalar::random(&mut rng(451));
    let sc: Vec<Scalar> =
        (0..odd.len()).map(|i| if i % 3 == 0 { v } else { Scalar::random(&mut rng(i as u64)) }).collect();
    check(dev, "infinity, repeats, P and -P", &odd, &sc, &[(None, None), (Some(6), None)]);
}

#[test]
fn g2d_msm_over_resident_positions_matches_host() {
    let Some(g) = gpu("g2d_msm_over_resident_positions_matches_host") else { return };
    let lane = g.first();
    let bases = g2_points(9000, 460);
    let srs = SrsRef { id: ParamsId::fresh(), h: &[], l: &[], a: &[], b_g1: &[], b_g2: &bases };
    let opts = CallOpts { g2_device: true, srs_resident: true, ..CallOpts::default() };
    lane.begin_call(&Probe::silent(), opts, srs).unwrap_or_else(|e| panic!("{e}"));
    let cpu = CpuBackend::new();
    let mut r = rng(461);
    let before = lane.g2().msms().0;
    for (k, &n) in [1usize, 5, 300, 4097, 8999].iter().enumerate() {
        // Sorted positions as the prover's (inputs, then the tail), and positions with repeats.
        let mut idx: Vec<u32> = (0..n).map(|_| r.gen_range(0..bases.len() as u32)).collect();
        if k % 2 == 0 {
            idx.sort_unstable();
        }
        let sc = scalars(n, &mut r, true);
        let (a, b) = sc.split_at(n / 3);
        let gathered: Vec<G2Affine> = idx.iter().map(|&i| bases[i as usize]).collect();
        let want = cpu.msm_g2(&gathered, &sc, None).unwrap_or_else(|e| panic!("{e}"));
        let got = lane
            .msm_b_g2(srs, &idx, &[a, &[], b])
            .unwrap_or_else(|| panic!("n={n}: resident B_G2 but the MSM stayed on the host"))
            .unwrap_or_else(|e| panic!("n={n}: {e}"));
        assert_eq!(got.to_affine(), want.to_affine(), "g2d msm n={n}");
    }
    assert_eq!(lane.g2().msms().0 - before, 5, "every MSM ran on the device");
    // Positions past the query are an error, not a read past the bases.
    assert!(lane.msm_b_g2(srs, &[bases.len() as u32], &[&[Scalar::ONE]]).is_some_and(|r| r.is_err()));
    // No room: the caller is told to run it on the host.
    lane.g2().limit(Some(1024));
    assert!(
        lane.msm_b_g2(srs, &[0, 1], &[&[Scalar::ONE, Scalar::ONE]]).is_none(),
        "no room, yet on the device"
    );
    lane.g2().limit(None);
    lane.end_call();
}
