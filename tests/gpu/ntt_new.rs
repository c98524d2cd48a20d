//! The NTT's strided-pass path (CUZK_NTT_PASS=1) and the old path (default) against the CPU `Domain` functions,
//! element for element: every direction and compute_h at 2^1 … 2^12 (one to two passes, odd and even splits,
//! blocks below 2^10) and 2^20, 2^22 (two and three passes, the 10+10 and 7+7+8 splits).

use super::*;
use cuzk::backend::cpu::ntt as cpu;
use cuzk::backend::gpu::limbs_mut;
use cuzk::backend::gpu::ntt::{compute_h_on, ntt_on, NttDir};

/// One size on one path; a one-line description of the first mismatch.
pub(crate) fn check(gpu: &Gpu, log_n: u32, old: bool, seed: u64) -> Result<Result<(), String>, GpuError> {
    let n = 1usize << log_n;
    let mut r = rng(seed);
    let dom = cpu::Domain::new(log_n).map_err(|e| GpuError::Invalid(e.to_string()))?;
    let from_dev = |d: &CudaSlice<u64>| -> Result<Vec<Scalar>, GpuError> {
        let mut v = vec![Scalar::ZERO; n];
        gpu.stream.memcpy_dtoh(&d.slice(0..4 * n), limbs_mut(&mut v))?;
        Ok(v)
    };
    let path = if old { "old" } else { "pass" };
    for dir in [NttDir::Forward, NttDir::Inverse, NttDir::CosetForward, NttDir::CosetInverse] {
        let x = scalars(n, &mut r, true);
        let mut want = x.clone();
        match dir {
            NttDir::Forward => dom.ntt(&mut want),
            NttDir::Inverse => dom.intt(&mut want),
            NttDir::CosetForward => dom.coset_ntt(&mut want),
            NttDir::CosetInverse => dom.icoset_ntt(&mut want),
        }
        .map_err(|e| GpuError::Invalid(e.to_string()))?;
        let mut d = gpu.stream.clone_htod(limbs(&x))?;
        ntt_on(gpu, &mut d, log_n, dir, old)?;
        let got = from_dev(&d)?;
        if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
            return Ok(Err(format!("{path} ntt {dir:?} 2^{log_n}: first mismatch at {i} of {n}")));
        }
    }
    let (x, y) = (scalars(n, &mut r, false), scalars(n, &mut r, true));
    let mut z = scalars(n, &mut r, true);
    z.truncate(n - n / 4); // zero-padded on the device, short on the CPU (as the prover passes it)
    let mut zp = z.clone();
    zp.resize(n, Scalar::ZERO);
    let mut got = Vec::new();
    // With and without the side streams (toggle `streams`; the pass path runs on one stream either way).
    for side in [true, false] {
        let (mut da, mut db, mut dc) = (
            gpu.stream.clone_htod(limbs(&x))?,
            gpu.stream.clone_htod(limbs(&y))?,
            gpu.stream.clone_htod(limbs(&zp))?,
        );
        compute_h_on(gpu, &mut da, &mut db, &mut dc, log_n, old, side)?;
        got.push((side, from_dev(&da)?));
    }
    let (mut a, mut b, mut c) = (x, y, z);
    cpu::compute_h(&mut a, &mut b, &mut c, &dom).map_err(|e| GpuError::Invalid(e.to_string()))?;
    for (side, got) in got {
        if let Some(i) = (0..a.len()).find(|&i| got[i] != a[i]) {
            return Ok(Err(format!(
                "{path} compute_h 2^{log_n} side={side}: first mismatch at {i} of {}",
                a.len()
            )));
        }
    }
    Ok(Ok(()))
}

#[test]
fn ntt_passes_match_cpu_every_size() {
    let Some(g) = gpu("ntt_passes_match_cpu_every_size") else { return };
    let dev = dev0(&g);
    let mut bad = Vec::new();
    for log_n in (1u32..=12).chain([20, 22]) {
        for old in [false, true] {
            match check(dev, log_n, old, 100 + log_n as u64) {
                Ok(Ok(())) => {}
                Ok(Err(m)) => bad.push(m),
                Err(e) => bad.push(format!("2^{log_n} old={old}: {e}")),
            }
        }
    }
    assert!(bad.is_empty(), "NTT mismatches:\n{}", bad.join("\n"));
}

/// Device timings of both NTT paths in one run (ignored; on the device:
/// `cargo test --release --test gpu -- --ignored --nocapture ntt_paths_perf`). Prints
/// `PERF ntt_path {pass|old} 2^k median … ms` (Forward, data on the device) and
/// `PERF compute_h_path {pass|old} 2^k median … ms` for 2^20, 2^22, 2^24 (`CUZK_PERF_MAX_LOG` caps).
#[test]
#[ignore = "device timings for docs/PERF.md, not a check: gpu-check runs it by name"]
fn ntt_paths_perf() {
    let Some(g) = gpu("ntt_paths_perf") else { return };
    let dev = dev0(&g);
    let max_log: u32 = std::env::var("CUZK_PERF_MAX_LOG").ok().and_then(|v| v.parse().ok()).unwrap_or(24);
    let fail = |e: GpuError| -> ! { panic!("{e}") };
    let sync = || dev.stream.synchronize().unwrap_or_else(|e| fail(e.into()));
    for lg in [20u32, 22, 24].into_iter().filter(|&l| l <= max_log) {
        let x = scalars(1 << lg, &mut rng(lg as u64), false);
        for old in [false, true] {
            let path = if old { "old" } else { "pass" };
            let mut d = dev.stream.clone_htod(limbs(&x)).unwrap_or_else(|e| fail(e.into()));
            ntt_on(dev, &mut d, lg, NttDir::Forward, old).unwrap_or_else(|e| fail(e));
            sync();
            let ms = median_ms(time_ms(7, || {
                ntt_on(dev, &mut d, lg, NttDir::Forward, old).unwrap_or_else(|e| fail(e));
                sync()
            }));
            println!("PERF ntt_path {path} 2^{lg} median {ms:.3} ms");
            let (mut da, mut db, mut dc) = (d.clone(), d.clone(), d.clone());
            compute_h_on(dev, &mut da, &mut db, &mut dc, lg, old, true).unwrap_or_else(|e| fail(e));
            sync();
            let ms = median_ms(time_ms(7, || {
                compute_h_on(dev, &mut da, &mut db, &mut dc, lg, old, true).unwrap_or_else(|e| fail(e));
                sync()
            }));
            println!("PERF compute_h_path {path} 2^{lg} median {ms:.3} ms");
        }
    }
}
