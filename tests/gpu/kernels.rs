//! Kernels against the CPU backend on random inputs and edge values: G1 MSM, batch addition, NTTs and
//! compute_h, and the floor probe's sanity.

use super::*;

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
            let got =
                cuzk::backend::gpu::kernels::msm::msm_g1(dev, &db.slice(..), &dsc.slice(..), n, None, true)
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

/// Toggle `msm2s`: at 2^22 points (where `split_for` starts the two-stream passes) the MSM with and without
/// them equals the CPU's, on random scalars with the 0 / 1 / −1 mix.
#[test]
fn msm_two_stream_passes_match_cpu() {
    let Some(g) = gpu("msm_two_stream_passes_match_cpu") else { return };
    let dev = dev0(&g);
    let n = 1usize << 22;
    assert_eq!(
        cuzk::backend::gpu::kernels::msm::split_for(n),
        2,
        "2^22 points must take the two-pass schedule"
    );
    let bases = g1_points(n, 64);
    let s = scalars(n, &mut rng(65), true);
    let cpu = CpuBackend::new();
    let want = cpu.msm_g1(Bases::host(&bases), &s, None).unwrap_or_else(|e| panic!("{e}")).to_affine();
    let db = dev.stream.clone_htod(limbs(&bases)).unwrap_or_else(|e| panic!("{e}"));
    let dsc = dev.stream.clone_htod(limbs(&s)).unwrap_or_else(|e| panic!("{e}"));
    for overlap in [true, false] {
        let got =
            cuzk::backend::gpu::kernels::msm::msm_g1(dev, &db.slice(..), &dsc.slice(..), n, None, overlap)
                .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.to_affine(), want, "device msm_g1 2^22 overlap={overlap}");
    }
}

#[test]
fn batch_add_matches_cpu() {
    let Some(g) = gpu("batch_add_matches_cpu") else { return };
    let dev = dev0(&g);
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
            let got2 = cuzk::backend::gpu::kernels::batch_add::batch_add_g2(dev, &d.slice(..), m, &bm2)
                .unwrap_or_else(|e| panic!("g2 n={m} {name}: {e}"));
            assert_eq!(got2.to_affine(), want2.to_affine(), "batch_add_g2 n={m} {name}");
        }
    }
}

#[test]
fn ntt_and_compute_h_match_cpu() {
    let Some(g) = gpu("ntt_and_compute_h_match_cpu") else { return };
    let dev = dev0(&g);
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
pub(crate) fn ntt_check_against_cpu(
    gpu: &Gpu,
    log_n: u32,
    seed: u64,
) -> Result<Result<(), String>, GpuError> {
    super::ntt::check(gpu, log_n, seed)
}

/// `cuzk bench floor`'s device part: the kernels of `cuda/floor.cu` run and the rates are of a plausible
/// order for a data-center GPU (an H200 does ~10^12 64-bit products/s, ~4 TB/s, ~50 GB/s pinned over PCIe).
#[test]
fn floor_measures_the_device() {
    let Some(b) = gpu("floor_measures_the_device") else { return };
    let g = b.gpu(0).unwrap_or_else(|| panic!("a backend without lane 0"));
    let f = cuzk::backend::gpu::kernels::floor::measure(g).unwrap_or_else(|e| panic!("{e}"));
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
