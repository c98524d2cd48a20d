//! Batch addition on the device (`cuda/batch_add.cu`): the sum of the bases selected by a bitmap (bit i of
//! word i/64), G1 and G2. Thread t sums the selected bases of `WORDS_PER_THREAD` bitmap words by mixed XYZZ
//! additions; partial sums are reduced `REDUCE_K` at a time until at most `FINAL` remain, which one thread
//! adds and converts to Jacobian (blst layout). `cuda/hostcheck/hostcheck.cpp` emulates the same sequence.
//! G1 runs on the device's stream; G2 on any stream of its context ([`batch_add_g2_on`]: `g2d` uses the lane's
//! second stream). Device memory per call besides the bases: the bitmap, two partial-sum buffers
//! (n/64 and n/512 XYZZ points) and the result ([`g2_scratch_bytes`]; ≈ 30 MiB for 4 M G2 bases).

use std::sync::Arc;

use blstrs::{G1Projective, G2Projective};
use cudarc::driver::{CudaSlice, CudaStream, CudaView, LaunchConfig, PushKernelArg};
use group::Group;

use super::super::{g1_from_jacobian, g2_from_jacobian, read_back, GResult, Gpu, GpuError};
use super::Module;

/// Bitmap words (64 bases) per thread of the first pass. Every step is a serial chain of additions on one
/// thread, so short chains and more threads win (4 words per thread: 2^16 half-selected bases took 14.8 ms;
/// one wave of resident threads with longer chains was slower too; docs/PERF.md).
const WORDS_PER_THREAD: u32 = 1;
/// Partial sums per thread of a reduction pass (a tree of fan-in 8).
const REDUCE_K: u32 = 8;
/// Partial sums left for the single finishing thread.
const FINAL: u32 = 8;
/// Threads per block.
const BLOCK: u32 = 128;

fn cfg(threads: usize) -> LaunchConfig {
    let blocks = threads.div_ceil(BLOCK as usize).max(1) as u32;
    LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// The kernels' name prefix and the u64 limbs of one affine, XYZZ and Jacobian point of a group.
struct Shape {
    prefix: &'static str,
    affine_limbs: usize,
    xyzz_limbs: usize,
    jac_limbs: usize,
}
const G1: Shape = Shape { prefix: "batch_add_g1", affine_limbs: 12, xyzz_limbs: 24, jac_limbs: 18 };
const G2: Shape = Shape { prefix: "batch_add_g2", affine_limbs: 24, xyzz_limbs: 48, jac_limbs: 36 };

/// Device bytes one batch addition of `n` G2 bases allocates besides the bases (bitmap, partial sums, result),
/// for the memory check before it.
pub fn g2_scratch_bytes(n: usize) -> usize {
    let t = n.div_ceil(64).div_ceil(WORDS_PER_THREAD as usize).max(1);
    8 * (n.div_ceil(64) + (t + t.div_ceil(REDUCE_K as usize) + 1) * G2.xyzz_limbs + G2.jac_limbs)
}

/// Runs the three-kernel sequence for group `g` on stream `s`; returns the sum's Jacobian limbs.
fn run(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    g: &Shape,
    bases: &CudaView<u64>,
    n: usize,
    bitmap: &[u64],
) -> GResult<Vec<u64>> {
    let dbits = upload_bits(s, n, bitmap)?;
    let out = launch(gpu, s, g, bases, n, &dbits)?;
    read_back(s, &out)
}

/// The bitmap of `n` bases on the device: ⌈n/64⌉ words, bits past `bitmap`'s end zero.
pub fn upload_bits(s: &Arc<CudaStream>, n: usize, bitmap: &[u64]) -> GResult<CudaSlice<u64>> {
    let words = n.div_ceil(64);
    // Bits past the bitmap's end read as zero; the kernel ignores bits at or past n.
    let mut host_bits = vec![0u64; words.max(1)];
    let k = bitmap.len().min(words);
    host_bits[..k].copy_from_slice(&bitmap[..k]);
    Ok(s.clone_htod(&host_bits)?)
}

/// [`batch_add_g1`]'s launches on stream `s` without waiting (toggle `tailseq`), the bitmap already on the
/// device ([`upload_bits`]): the sum's Jacobian limbs stay there for [`g1_sum`].
pub fn batch_add_g1_launch(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    bases: &CudaView<u64>,
    n: usize,
    dbits: &CudaSlice<u64>,
) -> GResult<CudaSlice<u64>> {
    launch(gpu, s, &G1, bases, n, dbits)
}

/// The G1 sum [`batch_add_g1_launch`] left on the device, once stream `s` (the one it was launched on)
/// reaches it.
pub fn g1_sum(s: &Arc<CudaStream>, out: &CudaSlice<u64>) -> GResult<G1Projective> {
    let l = read_back(s, out)?;
    let l: &[u64; 18] = l
        .get(..18)
        .and_then(|l| l.try_into().ok())
        .ok_or_else(|| GpuError::Invalid(format!("batch_add_g1: {} result limbs, want 18", l.len())))?;
    Ok(g1_from_jacobian(l))
}

/// The three-kernel sequence for group `g` on stream `s` over the device bitmap `dbits`; the sum's Jacobian
/// limbs on the device.
fn launch(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    g: &Shape,
    bases: &CudaView<u64>,
    n: usize,
    dbits: &CudaSlice<u64>,
) -> GResult<CudaSlice<u64>> {
    let Shape { prefix, affine_limbs, xyzz_limbs, jac_limbs } = *g;
    if bases.len() < affine_limbs * n {
        return Err(GpuError::Invalid(format!(
            "{prefix}: {n} bases need {} limbs, got {}",
            affine_limbs * n,
            bases.len()
        )));
    }
    if n > u32::MAX as usize / 2 {
        return Err(GpuError::Invalid(format!("{prefix}: {n} bases (at most 2^31 − 1)")));
    }
    let n32 = n as u32;
    let words = n.div_ceil(64);
    if dbits.len() < words {
        return Err(GpuError::Invalid(format!(
            "{prefix}: {n} bases need {words} bitmap words, got {}",
            dbits.len()
        )));
    }
    let words32 = words as u32;
    let t = words32.div_ceil(WORDS_PER_THREAD);

    let f_part = gpu.kernel(Module::BatchAdd, &format!("{prefix}_partial"))?;
    let f_red = gpu.kernel(Module::BatchAdd, &format!("{prefix}_reduce"))?;
    let f_fin = gpu.kernel(Module::BatchAdd, &format!("{prefix}_finish"))?;
    // SAFETY: every element read is written first by an earlier kernel (threads past the end write nothing
    // and nothing reads their slots).
    let mut a: CudaSlice<u64> = unsafe { s.alloc::<u64>(t as usize * xyzz_limbs) }?;
    let mut b: CudaSlice<u64> =
        unsafe { s.alloc::<u64>((t.div_ceil(REDUCE_K) as usize).max(1) * xyzz_limbs) }?;
    let mut out: CudaSlice<u64> = unsafe { s.alloc::<u64>(jac_limbs) }?;

    let wpt = WORDS_PER_THREAD;
    let mut lb = s.launch_builder(&f_part);
    lb.arg(bases).arg(dbits).arg(&n32).arg(&words32).arg(&wpt).arg(&mut a);
    // SAFETY (all three launches): argument types and order match cuda/batch_add.cu; buffers sized above.
    unsafe { lb.launch(cfg(t as usize)) }?;
    let mut m = t;
    while m > FINAL {
        let m2 = m.div_ceil(REDUCE_K);
        let rk = REDUCE_K;
        let mut lb = s.launch_builder(&f_red);
        lb.arg(&a).arg(&m).arg(&rk).arg(&mut b);
        unsafe { lb.launch(cfg(m2 as usize)) }?;
        std::mem::swap(&mut a, &mut b);
        m = m2;
    }
    let mut lb = s.launch_builder(&f_fin);
    lb.arg(&a).arg(&m).arg(&mut out);
    unsafe { lb.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 }) }?;
    Ok(out)
}

/// Sum of the G1 bases whose bit is set (bit i of word i/64), bases (12n u64, blst affine) on the device.
/// Bits at or past `n` are ignored; a short bitmap selects nothing past its end; bases at infinity add nothing.
pub fn batch_add_g1(gpu: &Gpu, bases: &CudaView<u64>, n: usize, bitmap: &[u64]) -> GResult<G1Projective> {
    if n == 0 {
        return Ok(G1Projective::identity());
    }
    let l = run(gpu, &gpu.stream, &G1, bases, n, bitmap)?;
    Ok(g1_from_jacobian(l[..18].try_into().expect("18 limbs")))
}

/// Sum of the G2 bases whose bit is set, bases (24n u64, blst affine) on the device; as [`batch_add_g1`].
pub fn batch_add_g2(gpu: &Gpu, bases: &CudaView<u64>, n: usize, bitmap: &[u64]) -> GResult<G2Projective> {
    batch_add_g2_on(gpu, &gpu.stream, bases, n, bitmap)
}

/// [`batch_add_g2`] on stream `s` of `gpu`'s context (`g2d`: a lane's second stream, so the sum overlaps the
/// lane's G1 work on `gpu.stream`). Returns once the sum is on the host.
pub fn batch_add_g2_on(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    bases: &CudaView<u64>,
    n: usize,
    bitmap: &[u64],
) -> GResult<G2Projective> {
    if n == 0 {
        return Ok(G2Projective::identity());
    }
    let l = run(gpu, s, &G2, bases, n, bitmap)?;
    Ok(g2_from_jacobian(l[..36].try_into().expect("36 limbs")))
}
