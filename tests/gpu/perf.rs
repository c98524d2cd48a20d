//! Device timings for docs/PERF.md (ignored; not a check).

use super::kernels::ntt_check_against_cpu;
use super::*;

/// Device timings for docs/PERF.md, not a check (ignored; `--ignored --nocapture perf_probe` on the device
/// machine). MSM at 2^16..2^24 (default window, windows 18 and 20 at 2^24), MSM input shapes (checked against
/// the CPU at 2^20), small MSMs on the device against the CPU, NTT and compute_h, batch_add. `CUZK_PERF_MAX_LOG`
/// caps the sizes
/// (default 24). Points beyond 2^22 repeat the first 2^22 (distinct random scalars; 400 MB of bases is far
/// beyond the L2). Lines start with `PERF`.
#[test]
#[ignore = "device timings for docs/PERF.md, not a check: run it by name on the device"]
fn perf_probe() {
    use cuzk::backend::gpu::kernels::ntt::{compute_h, ntt, NttDir};
    use cuzk::backend::gpu::kernels::{batch_add, msm};
    use cuzk::backend::gpu::streams::HStreams;
    let Some(g) = gpu("perf_probe") else { return };
    let dev = dev0(&g);
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
        msm::msm_g1(dev, &db.slice(0..12 * n), &ds.slice(0..4 * n), n, w, true).unwrap_or_else(|e| ok(e))
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
    for lg in [16u32, 18, 20, 22, 24].into_iter().filter(|&l| l <= max_log) {
        let n = 1usize << lg;
        let ms = median_ms(time_ms(5, || run(n, None)));
        println!("PERF msm 2^{lg} window {} median {ms:.2} ms", msm::window_for(n));
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
            let go = || {
                msm::msm_g1(dev, &db.slice(0..12 * n), &d.slice(..), n, None, true).unwrap_or_else(|e| ok(e))
            };
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
    // NTT forward and compute_h (data on the device; checked here against the CPU first).
    for lg in [11u32, 16, 20] {
        let r = ntt_check_against_cpu(dev, lg, 3 + lg as u64).unwrap_or_else(|e| ok(e));
        println!("PERF check ntt 2^{lg}: {}", r.map_or_else(|m| m, |()| "ok".into()));
    }
    let hs = HStreams::one(&dev.stream);
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
        println!("PERF ntt 2^{lg} median {ms:.3} ms");
        let (mut da, mut dbb, mut dc) = (d.clone(), d.clone(), d.clone());
        let ms = median_ms(time_ms(5, || {
            compute_h(dev, hs, &mut da, &mut dbb, &mut dc, lg).unwrap_or_else(|e| ok(e));
            sync()
        }));
        println!("PERF compute_h 2^{lg} median {ms:.3} ms");
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
