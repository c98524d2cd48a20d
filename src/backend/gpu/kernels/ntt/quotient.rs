//! Groth16's quotient `compute_h` on the device and the permutations that combine two bit-reversed vectors
//! (`ntt_bitrev_tile2`). The sequence is in the header of the parent module.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};

use super::super::super::{GResult, Gpu};
use super::super::Module;
use super::{
    bitrev_scale, check_args, dif, dif_global, dif_smem, global_radices, grid, n_of, tables, turn, HStreams,
    Kernels, NttTables, BR_T, SMEM_LOG,
};

/// Whether compute_h's product can ride on the last DIF⁻¹'s first pass (a radix-8 pass) at this size.
fn fuses_mul(log_n: u32) -> bool {
    log_n > SMEM_LOG && global_radices(log_n - SMEM_LOG).first() == Some(&3)
}

/// H = (A·B − C)/Z exactly as the CPU's `ntt::compute_h`: on return `a` holds H's N coefficients (the first
/// N − 1 are the MSM scalars); b, c are scratch. All three hold N = 2^log_n fr_t, zero-padded. a's transforms
/// and the combining passes run on `streams.a`, b's and c's on theirs (toggle `streams` gives them streams of
/// their own; `hpipe` stages the next circuit on its staging streams while the lane's MSM holds the main one).
pub fn compute_h(
    gpu: &Gpu,
    streams: HStreams<'_>,
    a: &mut CudaSlice<u64>,
    b: &mut CudaSlice<u64>,
    c: &mut CudaSlice<u64>,
    log_n: u32,
) -> GResult<()> {
    check_args(log_n, &[("a", a.len()), ("b", b.len()), ("c", c.len())])?;
    let t = tables(gpu, log_n)?;
    let k = Kernels::new(gpu)?;
    // The side streams join a's first: the callers' buffers may be stream-ordered allocations there.
    let (sa, sb, sc) = (streams.a, streams.b, streams.c);
    for s in [sb, sc] {
        if !Arc::ptr_eq(s, sa) {
            s.join(sa)?;
        }
    }
    // Above 2^SMEM_LOG points the coset evaluations come out natural with no permutation (ntt/turn.rs).
    let turn = log_n > SMEM_LOG;
    for (v, s) in [(&mut *a, sa), (&mut *b, sb)] {
        if turn {
            turn::to_coset(gpu, s, &k, &t, v)?;
        } else {
            // Evaluations → coefficients·g^i (natural) → coset evaluations (bit-reversed).
            dif(s, &k, &t, v, true)?;
            bitrev_scale(gpu, s, &t, v, Some(t.coset_h))?;
            dif(s, &k, &t, v, false)?;
        }
    }
    // C's coefficients (·N, bit-reversed) are all H needs of C: H = z·(icoset(A·B) − iNTT(C)).
    dif(sc, &k, &t, c, true)?;
    let s = &**sa;
    // A·B on the coset (natural) → DIF⁻¹ → H = the two combined.
    // The product on the last DIF⁻¹'s first loads saves ntt_mul's own pass over a and b (docs/PERF.md).
    if turn && fuses_mul(log_n) {
        dif_global(s, &k, &t, a, true, Some(&*b))?;
        dif_smem(s, &k, &t, a, true)?;
    } else {
        if turn {
            turn::mul(gpu, s, &t, a, b)?;
        } else {
            bitrev_combine(gpu, s, &t, a, b, Combine::Mul)?;
        }
        dif(s, &k, &t, a, true)?;
    }
    bitrev_combine(gpu, s, &t, a, c, Combine::Sub)
}

/// What [`bitrev_combine`] computes into `a` (BR2_* in cuda/ntt_stage.cuh), r = bitrev(i).
#[derive(Clone, Copy)]
pub(super) enum Combine {
    /// a[i] ← a[r]·b[r]: the product of the coset evaluations, put in natural order for the last DIF⁻¹.
    Mul,
    /// a[i] ← a[r]·z·g^(−i)/N − b[r]·z/N: H from DIF⁻¹(A·B) and DIF⁻¹(C).
    Sub,
}

/// compute_h's permutations that combine two bit-reversed vectors into `a` (natural order): `ntt_bitrev_tile2`
/// (coalesced tiles, as [`bitrev_scale`]) from 2^8, the per-element `ntt_bitrev2` below that.
pub(super) fn bitrev_combine(
    gpu: &Gpu,
    s: &CudaStream,
    t: &NttTables,
    a: &mut CudaSlice<u64>,
    b: &CudaSlice<u64>,
    op: Combine,
) -> GResult<()> {
    let log_n = t.log_n;
    let (lo, hi) = t.pow_slices(t.h_out);
    let zn = t.zn_slice();
    let mode = matches!(op, Combine::Sub) as u32;
    let tile = log_n >= 2 * BR_T;
    let (f, cfg) = if tile {
        let cfg = LaunchConfig {
            grid_dim: (1u32 << (log_n - 2 * BR_T), 1, 1),
            block_dim: (1u32 << (2 * BR_T), 1, 1),
            shared_mem_bytes: 0, // static 34 KiB
        };
        (gpu.kernel(Module::Ntt, "ntt_bitrev_tile2")?, cfg)
    } else {
        (gpu.kernel(Module::Ntt, "ntt_bitrev2")?, grid(n_of(log_n)))
    };
    let mut lb = s.launch_builder(&f);
    lb.arg(&mut *a).arg(b).arg(&lo).arg(&hi).arg(&zn).arg(&log_n).arg(&t.lo_bits).arg(&mode);
    // SAFETY: ntt_bitrev_tile2 / ntt_bitrev2(u64*, 4 × const u64*, 3 × u32); a and b hold N fr_t (distinct
    // buffers); the tile kernel runs one block of 256 threads (its __launch_bounds__) per 2^8-element tile from
    // N = 2^8, the per-element one N threads; the h_out table covers i < N, zn is one fr_t.
    unsafe { lb.launch(cfg) }?;
    Ok(())
}
