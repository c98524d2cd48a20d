//! compute_h's coset transforms of a and b without a permutation (log_n > SMEM_LOG): DIF⁻¹'s global passes,
//! `ntt_smem_turn` (DIF⁻¹'s shared stages, ·g^i/N at the bit-reversed index, the forward DIT's shared stages,
//! one kernel), then the forward DIT's global passes (`ntt_dit_r8`/`r4`/`r2`, bit-reversed in, natural out).
//! The coset evaluations come out in natural order, so the product rides on the last DIF⁻¹'s first pass
//! (`ntt_dif_r8_inv_mul`) or, where that pass is not radix 8, is a plain `ntt_mul`.

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};

use super::super::super::{GResult, Gpu, GpuError};
use super::super::Module;
use super::{global_radices, grid, n_of, Kernels, NttTables, SMEM_LOG};

/// Threads per `ntt_smem_turn` block: four elements each of the 2^SMEM_LOG.
const TURN_THREADS: u32 = 1 << (SMEM_LOG - 2);

/// Evaluations (natural) → coset evaluations (natural) in place: DIF⁻¹, the turn, DIT. log_n > SMEM_LOG.
pub(super) fn to_coset(
    gpu: &Gpu,
    s: &CudaStream,
    k: &Kernels,
    t: &NttTables,
    v: &mut CudaSlice<u64>,
) -> GResult<()> {
    let log_n = t.log_n;
    if log_n <= SMEM_LOG {
        return Err(GpuError::Invalid(format!(
            "the coset turn needs more than 2^{SMEM_LOG} points, got 2^{log_n}"
        )));
    }
    super::dif_global(s, k, t, v, true, None)?;
    let f = gpu.kernel(Module::Ntt, "ntt_smem_turn")?;
    let (lo, hi) = t.pow_slices(t.coset_h);
    let lt = t.lt_slice();
    let cfg = LaunchConfig {
        grid_dim: ((n_of(log_n) >> SMEM_LOG) as u32, 1, 1),
        block_dim: (TURN_THREADS, 1, 1),
        shared_mem_bytes: 0, // static 32 KiB
    };
    let mut b = s.launch_builder(&f);
    b.arg(&mut *v).arg(&lt).arg(&lo).arg(&hi).arg(&log_n).arg(&t.lo_bits);
    // SAFETY: ntt_smem_turn(u64*, 3 × const u64*, u32, u32); v holds N = 2^log_n > 2^SMEM_LOG fr_t, one block of
    // 256 threads (its __launch_bounds__) per 2^SMEM_LOG elements; lt holds LT_LEN fr_t, the table covers i < N.
    unsafe { b.launch(cfg) }?;
    dit_global(gpu, s, t, v)
}

/// The forward DIT's global passes, spans 2^SMEM_LOG … N/2 (DIF's radices in reverse order).
fn dit_global(gpu: &Gpu, s: &CudaStream, t: &NttTables, v: &mut CudaSlice<u64>) -> GResult<()> {
    let log_n = t.log_n;
    let tw = &t.tw;
    let mut low = SMEM_LOG;
    for r in global_radices(log_n - SMEM_LOG).into_iter().rev() {
        let log_h = low + r - 1; // the pass's largest span
        let name = ["ntt_dit_r2", "ntt_dit_r4", "ntt_dit_r8"][r as usize - 1];
        let f = gpu.kernel(Module::Ntt, name)?;
        let mut b = s.launch_builder(&f);
        b.arg(&mut *v).arg(tw).arg(&log_h).arg(&log_n);
        // SAFETY: ntt_dit_r{2,4,8}(u64*, const u64*, u32, u32); v holds N fr_t, tw N/2 + 1; N/2^r threads, each
        // reading and writing its 2^r elements below N (spans 2^(log_h − r + 1) … 2^log_h, log_h < log_n).
        unsafe { b.launch(grid(n_of(log_n) >> r)) }?;
        low += r;
    }
    Ok(())
}

/// a[i] ← a[i]·b[i]: the product of the coset evaluations (natural order).
pub(super) fn mul(
    gpu: &Gpu,
    s: &CudaStream,
    t: &NttTables,
    a: &mut CudaSlice<u64>,
    b: &CudaSlice<u64>,
) -> GResult<()> {
    let f = gpu.kernel(Module::Ntt, "ntt_mul")?;
    let mut lb = s.launch_builder(&f);
    lb.arg(&mut *a).arg(b).arg(&t.log_n);
    // SAFETY: ntt_mul(u64*, const u64*, u32); N threads, a and b hold N fr_t (distinct buffers).
    unsafe { lb.launch(grid(n_of(t.log_n))) }?;
    Ok(())
}
