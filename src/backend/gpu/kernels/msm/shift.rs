//! G1 MSM over precomputed shifted bases, for a resident SRS: each base P_i is stored W = ⌈255/c⌉ times as
//! 2^(c·j)·P_i (kernel `msm_shift_bases`, once), so every window's digit files into one shared bucket set per
//! pass (`fold` in `cuda/msm.cu`): no per-window bucket reduction and no Horner doublings, which lets the
//! window grow (fewer windows, so fewer mixed additions) without the reduction's cost growing with it.
//! The price is memory: 96·W·n bytes (2^24 bases at c = 22: 12 copies, 18 GiB), hence an opt-in.

use blstrs::G1Projective;
use cudarc::driver::{CudaSlice, CudaView, LaunchConfig, PushKernelArg};

use super::super::super::{GResult, Gpu, GpuError};
use super::super::Module;
use super::plan::{scratch_bytes_fold, MAX_WINDOW, MIN_WINDOW};
use super::{launch, Curve, Pending, Schedule};

/// Bytes of one affine G1 base on the device.
const AFFINE_BYTES: usize = 96;
/// Threads per block of `msm_shift_bases`.
const BLOCK: u32 = 128;

/// The W shifted copies of n bases on one device (W·n affine points, copy j at offset j·n).
pub struct ShiftedBases {
    buf: CudaSlice<u64>,
    n: usize,
    c: usize,
}

impl ShiftedBases {
    /// Bases per copy (the largest MSM these serve).
    pub fn len(&self) -> usize {
        self.n
    }
    /// Whether there are no bases.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    /// The window width the copies are spaced for.
    pub fn window(&self) -> usize {
        self.c
    }
    /// Device bytes held.
    pub fn bytes(&self) -> usize {
        shifted_bytes(self.n, self.c)
    }
    /// The copies' limbs on the device (copy j of base i at 12·(j·len + i)), for checks.
    pub fn device_slice(&self) -> &CudaSlice<u64> {
        &self.buf
    }
}

/// Device bytes of the shifted copies of `n` bases for window `c`.
pub fn shifted_bytes(n: usize, c: usize) -> usize {
    AFFINE_BYTES * copies(c) * n
}

/// ⌈255/c⌉ copies: the windows of a signed-digit scalar (msm.rs Plan).
fn copies(c: usize) -> usize {
    255usize.div_ceil(c.clamp(MIN_WINDOW, MAX_WINDOW))
}

/// The window for an MSM of `n` points over shifted bases: 20 at 2^22 (31.8 ms against 36.0 at 18), 22 from
/// 2^23, where it ties with 20 at 2^24 (112.7 ms) on 12 copies instead of 13 (docs/PERF.md, the `shift` section).
pub fn window_for(n: usize) -> usize {
    match n {
        0..LARGE => 20,
        _ => 22,
    }
}

/// From this many points [`window_for`] takes 22.
const LARGE: usize = 1 << 23;

/// Smallest msm_h the prover runs over shifted bases: at 2^20 they were slower (12.0 against 11.35 ms), at 2^22
/// faster (31.8 against 35.15), see [`window_for`]. A lane can lower it (tests of the path on small circuits).
pub const MIN_POINTS: usize = 1 << 21;

/// Builds the copies of the first `n` bases (12n u64 affine limbs, blst layout, the identity all-zero) for
/// window `c` (`None`: [`window_for`]`(n)`). Checks device memory first; waits for the kernel.
pub fn shift_bases(gpu: &Gpu, bases: &CudaView<u64>, n: usize, c: Option<usize>) -> GResult<ShiftedBases> {
    let c = c.unwrap_or_else(|| window_for(n)).clamp(MIN_WINDOW, MAX_WINDOW);
    let w = copies(c);
    if bases.len() < 12 * n {
        return Err(GpuError::Invalid(format!(
            "shift_bases: {n} points need {} limbs, got {}",
            12 * n,
            bases.len()
        )));
    }
    if w * n >= 1 << 31 {
        return Err(GpuError::Invalid(format!("shift_bases: {n} points × {w} copies (at most 2^31 − 1)")));
    }
    gpu.check_mem("shifted bases", shifted_bytes(n, c))?;
    // SAFETY: msm_shift_bases writes all W·n points (12 limbs each) before anything reads them.
    let mut buf = unsafe { gpu.stream.alloc::<u64>((12 * w * n).max(1)) }?;
    if n > 0 {
        let k = gpu.kernel(Module::Msm, "msm_shift_bases")?;
        let (n32, c32, w32) = (n as u32, c as u32, w as u32);
        let mut b = gpu.stream.launch_builder(&k);
        b.arg(bases).arg(&n32).arg(&c32).arg(&w32).arg(&mut buf);
        let blocks = n.div_ceil(BLOCK as usize) as u32;
        let lc = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: arguments match msm_shift_bases(const g1_affine_t*, u32, u32, u32, g1_affine_t*) in
        // cuda/msm.cu; `bases` holds n points and `buf` W·n.
        unsafe { b.launch(lc) }?;
        gpu.stream.synchronize()?;
    }
    Ok(ShiftedBases { buf, n, c })
}

/// Device bytes an MSM over shifted bases needs beyond the copies and scalars (for the memory check).
pub fn scratch_bytes(n: usize, c: usize) -> usize {
    scratch_bytes_fold(n, c)
}

/// Σ sᵢ·Pᵢ over the first `n` ≤ `sb.len()` bases, scalars on the device (4n u64 Montgomery). `overlap` as in
/// `msm::msm_g1` (toggle `msm2s`). Equal to `msm::msm_g1` on the plain bases for every input.
pub fn msm_g1_shifted(
    gpu: &Gpu,
    sb: &ShiftedBases,
    scalars: &CudaView<u64>,
    n: usize,
    overlap: bool,
) -> GResult<G1Projective> {
    msm_g1_shifted_launch(gpu, sb, scalars, n, overlap)?.collect(gpu)
}

/// [`msm_g1_shifted`]'s launches on the lane's stream without waiting (msm_h lets go of the bases' lock
/// before it waits).
pub fn msm_g1_shifted_launch(
    gpu: &Gpu,
    sb: &ShiftedBases,
    scalars: &CudaView<u64>,
    n: usize,
    overlap: bool,
) -> GResult<Pending> {
    if n > sb.n {
        return Err(GpuError::Invalid(format!("msm_g1_shifted: {n} points, {} bases shifted", sb.n)));
    }
    let sched = Schedule::overlap(overlap);
    launch(gpu, &gpu.stream, Curve::G1, &sb.buf.slice(..), scalars, n, sb.c, sched, Some(sb.n))
}
