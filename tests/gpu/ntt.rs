//! The device NTT against the CPU `Domain` functions, element for element: every direction and compute_h
//! (with and without the side streams of toggle `streams`) at 2^1 … 2^12 (blocks below 2^10, the shared-only
//! sizes, every mix of global radices) and at 2^20 and 2^22.

use super::*;
use cuzk::backend::cpu::ntt as cpu;
use cuzk::backend::gpu::kernels::ntt::{compute_h, ntt, NttDir};
use cuzk::backend::gpu::limbs_mut;
use cuzk::backend::gpu::streams::HStreams;

/// compute_h on `gpu`'s main stream alone, or with b's and c's transforms on the lane's side streams.
fn h_streams(gpu: &Gpu, side: bool) -> Result<HStreams<'_>, GpuError> {
    Ok(if side {
        let s = gpu.streams()?;
        HStreams { a: &gpu.stream, b: &s.b_ntt, c: &s.c_ntt }
    } else {
        HStreams::one(&gpu.stream)
    })
}

/// One size; a one-line description of the first mismatch.
pub(crate) fn check(gpu: &Gpu, log_n: u32, seed: u64) -> Result<Result<(), String>, GpuError> {
    let n = 1usize << log_n;
    let mut r = rng(seed);
    let dom = cpu::Domain::new(log_n).map_err(|e| GpuError::Invalid(e.to_string()))?;
    let from_dev = |d: &CudaSlice<u64>| -> Result<Vec<Scalar>, GpuError> {
        let mut v = vec![Scalar::ZERO; n];
        gpu.stream.memcpy_dtoh(&d.slice(0..4 * n), limbs_mut(&mut v))?;
        Ok(v)
    };
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
        ntt(gpu, &mut d, log_n, dir)?;
        let got = from_dev(&d)?;
        if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
            return Ok(Err(format!("ntt {dir:?} 2^{log_n}: first mismatch at {i} of {n}")));
        }
    }
    let (x, y) = (scalars(n, &mut r, false), scalars(n, &mut r, true));
    let mut z = scalars(n, &mut r, true);
    z.truncate(n - n / 4); // zero-padded on the device, short on the CPU (as the prover passes it)
    let mut zp = z.clone();
    zp.resize(n, Scalar::ZERO);
    let mut got = Vec::new();
    for side in [true, false] {
        let (mut da, mut db, mut dc) = (
            gpu.stream.clone_htod(limbs(&x))?,
            gpu.stream.clone_htod(limbs(&y))?,
            gpu.stream.clone_htod(limbs(&zp))?,
        );
        compute_h(gpu, h_streams(gpu, side)?, &mut da, &mut db, &mut dc, log_n)?;
        got.push((side, from_dev(&da)?));
    }
    let (mut a, mut b, mut c) = (x, y, z);
    cpu::compute_h(&mut a, &mut b, &mut c, &dom).map_err(|e| GpuError::Invalid(e.to_string()))?;
    for (side, got) in got {
        if let Some(i) = (0..a.len()).find(|&i| got[i] != a[i]) {
            return Ok(Err(format!("compute_h 2^{log_n} side={side}: first mismatch at {i} of {}", a.len())));
        }
    }
    Ok(Ok(()))
}

#[test]
fn ntt_matches_cpu_every_size() {
    let Some(g) = gpu("ntt_matches_cpu_every_size") else { return };
    let dev = dev0(&g);
    let mut bad = Vec::new();
    for log_n in (1u32..=12).chain([20, 22]) {
        match check(dev, log_n, 100 + log_n as u64) {
            Ok(Ok(())) => {}
            Ok(Err(m)) => bad.push(m),
            Err(e) => bad.push(format!("2^{log_n}: {e}")),
        }
    }
    assert!(bad.is_empty(), "NTT mismatches:\n{}", bad.join("\n"));
}

/// Device timings of the NTT and compute_h (ignored; on the device:
/// `cargo test --release --test gpu -- --ignored --nocapture ntt_perf`). Prints `PERF ntt 2^k median … ms`
/// (Forward, data on the device) and `PERF compute_h 2^k median … ms` (side streams) for 2^20, 2^22, 2^24
/// (`CUZK_PERF_MAX_LOG` caps); `scripts/gpu-check.sh` reads them.
#[test]
#[ignore = "device timings for docs/PERF.md, not a check: gpu-check runs it by name"]
fn ntt_perf() {
    let Some(g) = gpu("ntt_perf") else { return };
    let dev = dev0(&g);
    let max_log: u32 = std::env::var("CUZK_PERF_MAX_LOG").ok().and_then(|v| v.parse().ok()).unwrap_or(24);
    let fail = |e: GpuError| -> ! { panic!("{e}") };
    let sync = || dev.stream.synchronize().unwrap_or_else(|e| fail(e.into()));
    let hs = h_streams(dev, true).unwrap_or_else(|e| fail(e));
    for lg in [20u32, 22, 24].into_iter().filter(|&l| l <= max_log) {
        let x = scalars(1 << lg, &mut rng(lg as u64), false);
        let mut d = dev.stream.clone_htod(limbs(&x)).unwrap_or_else(|e| fail(e.into()));
        ntt(dev, &mut d, lg, NttDir::Forward).unwrap_or_else(|e| fail(e));
        sync();
        let ms = median_ms(time_ms(7, || {
            ntt(dev, &mut d, lg, NttDir::Forward).unwrap_or_else(|e| fail(e));
            sync()
        }));
        println!("PERF ntt 2^{lg} median {ms:.3} ms");
        let (mut da, mut db, mut dc) = (d.clone(), d.clone(), d.clone());
        compute_h(dev, hs, &mut da, &mut db, &mut dc, lg).unwrap_or_else(|e| fail(e));
        sync();
        let ms = median_ms(time_ms(7, || {
            compute_h(dev, hs, &mut da, &mut db, &mut dc, lg).unwrap_or_else(|e| fail(e));
            sync()
        }));
        println!("PERF compute_h 2^{lg} median {ms:.3} ms");
    }
}
