//! Fixed-base multiplication on the device (`cuda/fixed_base.cu`): kᵢ·P for many scalars and one base, G1 and
//! G2 — setup's H, L, A, B_G1 and B_G2 queries, and any SRS work after them. The window table (unsigned
//! [`WINDOW`]-bit windows, affine) is built on the host once per device and base; scalars go up in chunks of
//! [`CHUNK`] as canonical limbs, the results come back Jacobian and are normalized on the host with the CPU
//! path's own batch normalization (so every point is the value the CPU setup writes), under the device's work
//! on the next chunk. Session r measured the unpipelined loop at about 4 M G1 points/s at every size.
//! `cuda/hostcheck/fixed_base_check.py` runs the kernel body on the host against a big-integer model.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cudarc::driver::{LaunchConfig, PinnedHostSlice, PushKernelArg};
use group::Group;
use rayon::prelude::*;

use super::super::{limbs, GResult, Gpu, GpuError, Limbs};
use super::Module;
use crate::backend::cpu::affine::batch_normalize;
use crate::backend::cpu::curve::MsmAffine;

/// Window width: 26 windows × 1023 entries, a 2.6 MB G1 table (5.1 MB G2) that stays in the L2 cache, and
/// 26 mixed additions per scalar.
pub const WINDOW: u32 = 10;
/// Scalars per launch: 2^20 fills the H200 (132 SMs × 2048 threads is 2^18) several times over, and the four
/// page-locked buffers stay at 0.4 GB for G1 (0.7 GB for G2); a chunk is also the progress and cancel step.
pub const CHUNK: usize = 1 << 20;
/// Threads per block.
const BLOCK: u32 = 128;

/// The table's windows: enough c-bit windows for a 255-bit scalar.
fn windows() -> u32 {
    255u32.div_ceil(WINDOW)
}

/// The kernel's name and the u64 limbs of one Jacobian result.
struct Shape {
    kernel: &'static str,
    jac_limbs: usize,
}

/// Entry w·(2^c − 1) + (d − 1) = d·2^(c·w)·P, affine, windows built in parallel.
fn table<A: MsmAffine>(base: &A::Proj) -> Vec<A> {
    let per = (1usize << WINDOW) - 1;
    let proj: Vec<A::Proj> = (0..windows() as usize)
        .into_par_iter()
        .flat_map_iter(|w| {
            let mut start = *base;
            for _ in 0..w * WINDOW as usize {
                start = start.double();
            }
            let mut cur = A::Proj::identity();
            (0..per).map(move |_| {
                cur += start;
                cur
            })
        })
        .collect();
    let mut out = vec![A::identity(); proj.len()];
    batch_normalize(&proj, &mut out);
    out
}

/// The scalars as canonical little-endian limbs into `dst` (the kernel reads bits, not Montgomery form).
fn canonical_into(scalars: &[Scalar], dst: &mut [u64]) {
    dst[..4 * scalars.len()].par_chunks_mut(4 * 4096).zip(scalars.par_chunks(4096)).for_each(|(dst, src)| {
        for (d, s) in dst.chunks_exact_mut(4).zip(src) {
            let b = s.to_bytes_le();
            for (j, limb) in d.iter_mut().enumerate() {
                let mut w = [0u8; 8];
                w.copy_from_slice(&b[8 * j..8 * j + 8]);
                *limb = u64::from_le_bytes(w);
            }
        }
    });
}

/// Device bytes the call needs besides the table: one chunk's scalars and Jacobian results.
pub fn chunk_bytes(n: usize, g2: bool) -> usize {
    let n = n.min(CHUNK);
    n * 32 + n * 8 * if g2 { 36 } else { 18 }
}

/// Views page-locked limbs as the points they hold (the kernel writes blst's Jacobian layout).
fn as_points<T: Limbs>(l: &[u64]) -> &[T] {
    debug_assert_eq!(std::mem::size_of::<T>(), 8 * T::LIMBS);
    // SAFETY: `Limbs` guarantees T is exactly LIMBS u64s with u64's alignment; the length is rounded down.
    unsafe { std::slice::from_raw_parts(l.as_ptr().cast::<T>(), l.len() / T::LIMBS) }
}

/// Writes kᵢ·base into `out[i]` for every scalar, [`CHUNK`] per launch, pipelined: while the device multiplies
/// chunk k + 1 (its scalars up, the kernel, its results down, all on one stream through two pairs of
/// page-locked buffers), the host normalizes chunk k straight into `out`. `tick` hears the points done after
/// each chunk; `false` stops at that chunk (a cancel).
fn run<A>(
    gpu: &Gpu,
    g: &Shape,
    base: &A::Proj,
    scalars: &[Scalar],
    out: &mut [A],
    tick: &dyn Fn(usize) -> bool,
) -> GResult<()>
where
    A: MsmAffine + Limbs,
    A::Proj: Limbs,
{
    if scalars.len() != out.len() {
        return Err(GpuError::Invalid(format!(
            "{}: {} scalars for {} points",
            g.kernel,
            scalars.len(),
            out.len()
        )));
    }
    if scalars.is_empty() {
        return Ok(());
    }
    if scalars.len() > u32::MAX as usize / 2 {
        return Err(GpuError::Invalid(format!("{}: {} scalars (at most 2^31 − 1)", g.kernel, scalars.len())));
    }
    let key = {
        let mut p = [A::identity()];
        batch_normalize(std::slice::from_ref(base), &mut p);
        let bytes: Vec<String> = limbs(&p).iter().map(|l| format!("{l:016x}")).collect();
        format!("{}:{WINDOW}:{}", g.kernel, bytes.concat())
    };
    let s = &gpu.stream;
    let dtable = gpu.cached(&key, || Ok(s.clone_htod(limbs(&table::<A>(base)))?))?;
    gpu.check_mem(g.kernel, chunk_bytes(scalars.len(), g.jac_limbs == 36))?;
    let f = gpu.kernel(Module::FixedBase, g.kernel)?;
    let n_max = scalars.len().min(CHUNK);
    let mut dscal = s.alloc_zeros::<u64>(4 * n_max)?;
    let mut dout = s.alloc_zeros::<u64>(g.jac_limbs * n_max)?;
    // SAFETY: each upload buffer is filled (`canonical_into`) before it is copied, and each download buffer is
    // read only after the copy into it has completed (`as_slice` waits for it).
    let alloc = |n: usize| unsafe { gpu.ctx.alloc_pinned_with_flags::<u64>(n, 0) };
    let mut up = [alloc(4 * n_max)?, alloc(4 * n_max)?];
    let mut down = [alloc(g.jac_limbs * n_max)?, alloc(g.jac_limbs * n_max)?];
    let (c, windows) = (WINDOW, windows());
    let chunks: Vec<&[Scalar]> = scalars.chunks(CHUNK).collect();
    // Queues chunk k: its scalars into up[k % 2] and on to the device, the kernel, the results into down[k % 2].
    let mut enqueue = |src: &[Scalar], up: &mut PinnedHostSlice<u64>, down: &mut PinnedHostSlice<u64>| {
        canonical_into(src, up.as_mut_slice()?);
        s.memcpy_htod(up, &mut dscal)?;
        let n32 = src.len() as u32;
        let mut lb = s.launch_builder(&f);
        lb.arg(dtable.as_ref()).arg(&dscal).arg(&n32).arg(&c).arg(&windows).arg(&mut dout);
        let cfg = LaunchConfig {
            grid_dim: (n32.div_ceil(BLOCK), 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: fixed_base_g1/g2(table, scalars, n, c, windows, out): the table holds windows·(2^c − 1)
        // affine points (built above for this c), scalars 4n u64 and out jac_limbs·n u64 (allocated for the
        // largest chunk); threads at or past n return before reading.
        unsafe { lb.launch(cfg) }?;
        s.memcpy_dtoh(&dout, down)?;
        GResult::Ok(())
    };
    enqueue(chunks[0], &mut up[0], &mut down[0])?;
    let mut done = 0;
    for (k, dst) in out.chunks_mut(CHUNK).enumerate() {
        if let Some(next) = chunks.get(k + 1) {
            let j = (k + 1) % 2;
            enqueue(next, &mut up[j], &mut down[j])?;
        }
        let host = as_points::<A::Proj>(down[k % 2].as_slice()?);
        batch_normalize(&host[..dst.len()], dst);
        done += dst.len();
        if !tick(done) {
            break;
        }
    }
    s.synchronize()?;
    Ok(())
}

/// kᵢ·base in G1 for every scalar into `out` (affine, in order); `tick` as in `run`.
pub fn fixed_base_g1(
    gpu: &Gpu,
    base: &G1Projective,
    scalars: &[Scalar],
    out: &mut [G1Affine],
    tick: &dyn Fn(usize) -> bool,
) -> GResult<()> {
    run::<G1Affine>(gpu, &Shape { kernel: "fixed_base_g1", jac_limbs: 18 }, base, scalars, out, tick)
}

/// kᵢ·base in G2 for every scalar, as [`fixed_base_g1`].
pub fn fixed_base_g2(
    gpu: &Gpu,
    base: &G2Projective,
    scalars: &[Scalar],
    out: &mut [G2Affine],
    tick: &dyn Fn(usize) -> bool,
) -> GResult<()> {
    run::<G2Affine>(gpu, &Shape { kernel: "fixed_base_g2", jac_limbs: 36 }, base, scalars, out, tick)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ff::Field;

    #[test]
    fn table_entries_are_digit_multiples() {
        let g = G1Projective::generator();
        let t = table::<G1Affine>(&g);
        let per = (1usize << WINDOW) - 1;
        assert_eq!(t.len(), windows() as usize * per);
        let two_c = Scalar::from(1u64 << WINDOW);
        for (w, d) in [(0usize, 1usize), (0, per), (3, 17), (windows() as usize - 1, per)] {
            let k = two_c.pow_vartime([w as u64]) * Scalar::from(d as u64);
            assert_eq!(t[w * per + d - 1], (g * k).into(), "window {w} digit {d}");
        }
        let k = [Scalar::from(5u64), -Scalar::ONE];
        let mut limbs = [0u64; 8];
        canonical_into(&k, &mut limbs);
        assert_eq!(&limbs[..4], &[5, 0, 0, 0]);
        assert_eq!(limbs[4], 0xffff_ffff_0000_0000, "r − 1's low limb");
    }
}
