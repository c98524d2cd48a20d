//! Fixed-base multiplication on the device (`cuda/fixed_base.cu`): kᵢ·P for many scalars and one base, G1 and
//! G2 — setup's H, L, A, B_G1 and B_G2 queries, and any SRS work after them. The window table (unsigned
//! [`WINDOW`]-bit windows, affine) is built on the host once per device and base; scalars go up in chunks of
//! [`CHUNK`] as canonical limbs, the results come back Jacobian and are normalized on the host with the CPU
//! path's own batch normalization, so every point is the value the CPU setup writes.
//! `cuda/hostcheck/fixed_base_check.py` runs the kernel body on the host against a big-integer model.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use group::Group;
use rayon::prelude::*;

use super::super::{limbs, limbs_mut, GResult, Gpu, GpuError, Limbs};
use super::Module;
use crate::backend::cpu::affine::batch_normalize;
use crate::backend::cpu::curve::MsmAffine;

/// Window width: 26 windows × 1023 entries, a 2.6 MB G1 table (5.1 MB G2) that stays in the L2 cache, and
/// 26 mixed additions per scalar.
pub const WINDOW: u32 = 10;
/// Scalars per launch: 2^22 G2 results are 1.2 GB of device memory; a chunk is also the progress step.
pub const CHUNK: usize = 1 << 22;
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

/// The scalars as canonical little-endian limbs (the kernel reads bits, not Montgomery form).
fn canonical(scalars: &[Scalar]) -> Vec<u64> {
    let mut out = vec![0u64; 4 * scalars.len()];
    out.par_chunks_mut(4 * 4096).zip(scalars.par_chunks(4096)).for_each(|(dst, src)| {
        for (d, s) in dst.chunks_exact_mut(4).zip(src) {
            let b = s.to_bytes_le();
            for (j, limb) in d.iter_mut().enumerate() {
                let mut w = [0u8; 8];
                w.copy_from_slice(&b[8 * j..8 * j + 8]);
                *limb = u64::from_le_bytes(w);
            }
        }
    });
    out
}

/// Device bytes one chunk of `n` scalars needs besides the table: the scalars and the Jacobian results.
pub fn chunk_bytes(n: usize, g2: bool) -> usize {
    let n = n.min(CHUNK);
    n * 32 + n * 8 * if g2 { 36 } else { 18 }
}

fn run<A>(
    gpu: &Gpu,
    g: &Shape,
    base: &A::Proj,
    scalars: &[Scalar],
    progress: &dyn Fn(usize),
) -> GResult<Vec<A>>
where
    A: MsmAffine + Limbs,
    A::Proj: Limbs,
{
    let mut out = vec![A::identity(); scalars.len()];
    if scalars.is_empty() {
        return Ok(out);
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
    let mut host = vec![A::Proj::identity(); n_max];
    let (c, windows) = (WINDOW, windows());
    let mut done = 0;
    for (src, dst) in scalars.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        let n = src.len();
        s.memcpy_htod(&canonical(src), &mut dscal.slice_mut(..4 * n))?;
        let n32 = n as u32;
        let mut lb = s.launch_builder(&f);
        lb.arg(dtable.as_ref()).arg(&dscal).arg(&n32).arg(&c).arg(&windows).arg(&mut dout);
        let cfg = LaunchConfig {
            grid_dim: ((n as u32).div_ceil(BLOCK), 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: fixed_base_g1/g2(table, scalars, n, c, windows, out): the table holds windows·(2^c − 1)
        // affine points (built above for this c), scalars 4n u64 and out jac_limbs·n u64 (allocated for the
        // largest chunk); threads at or past n return before reading.
        unsafe { lb.launch(cfg) }?;
        s.memcpy_dtoh(&dout.slice(..g.jac_limbs * n), limbs_mut(&mut host[..n]))?;
        s.synchronize()?;
        batch_normalize(&host[..n], dst);
        done += n;
        progress(done);
    }
    Ok(out)
}

/// kᵢ·base in G1 for every scalar, affine and in order; `progress` hears the scalars done after each chunk.
pub fn fixed_base_g1(
    gpu: &Gpu,
    base: &G1Projective,
    scalars: &[Scalar],
    progress: &dyn Fn(usize),
) -> GResult<Vec<G1Affine>> {
    run::<G1Affine>(gpu, &Shape { kernel: "fixed_base_g1", jac_limbs: 18 }, base, scalars, progress)
}

/// kᵢ·base in G2 for every scalar, as [`fixed_base_g1`].
pub fn fixed_base_g2(
    gpu: &Gpu,
    base: &G2Projective,
    scalars: &[Scalar],
    progress: &dyn Fn(usize),
) -> GResult<Vec<G2Affine>> {
    run::<G2Affine>(gpu, &Shape { kernel: "fixed_base_g2", jac_limbs: 36 }, base, scalars, progress)
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
        let limbs = canonical(&k);
        assert_eq!(&limbs[..4], &[5, 0, 0, 0]);
        assert_eq!(limbs[4], 0xffff_ffff_0000_0000, "r − 1's low limb");
    }
}
