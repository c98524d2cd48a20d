//! The NTT's strided-pass path (default) and the CUZK_NTT_OLD path against the CPU `Domain` functions,
//! element for element: every direction and compute_h at 2^1 … 2^12 (one to two passes, odd and even splits,
//! blocks below 2^10) and 2^20, 2^22 (two and three passes, the 10+10 and 8+7+7 splits).

use super::*;
use cuzk::backend::cpu::ntt as cpu;
use cuzk::backend::gpu::limbs_mut;
use cuzk::backend::gpu::ntt::{compute_h_on, ntt_on, NttDir};

/// One size on one path; a one-line description of the first mismatch.
fn check(gpu: &Gpu, log_n: u32, old: bool, seed: u64) -> Result<Result<(), String>, GpuError> {
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
    let (mut da, mut db, mut dc) = (
        gpu.stream.clone_htod(limbs(&x))?,
        gpu.stream.clone_htod(limbs(&y))?,
        gpu.stream.clone_htod(limbs(&zp))?,
    );
    compute_h_on(gpu, &mut da, &mut db, &mut dc, log_n, old)?;
    let got = from_dev(&da)?;
    let (mut a, mut b, mut c) = (x, y, z);
    cpu::compute_h(&mut a, &mut b, &mut c, &dom).map_err(|e| GpuError::Invalid(e.to_string()))?;
    if let Some(i) = (0..a.len()).find(|&i| got[i] != a[i]) {
        return Ok(Err(format!("{path} compute_h 2^{log_n}: first mismatch at {i} of {}", a.len())));
    }
    Ok(Ok(()))
}

#[test]
fn ntt_passes_match_cpu_every_size() {
    let Some(g) = gpu("ntt_passes_match_cpu_every_size") else { return };
    let Some(dev) = g.gpu(0) else { return };
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
