//! Pippenger MSM in G1 on the device (`cuda/msm.cu`): signed Booth window digits exactly as the CPU's
//! (`backend::cpu::digits`), buckets filled by a counting sort per window (histogram with counter atomics,
//! exclusive scan, scatter of `index << 1 | sign`), one thread per bucket summing by mixed XYZZ additions,
//! per-window bucket reduction by segmented running sums, and the window combination (Horner, ⌈255/c⌉ windows)
//! on the host with blstrs. The launch sequence is documented at the top of `cuda/msm.cu`;
//! `cuda/hostcheck/hostcheck.cpp` emulates the same sequence (keep [`Plan`] in step with its `plan`).

use blstrs::G1Projective;
use cudarc::driver::{CudaSlice, CudaView, LaunchConfig, PushKernelArg};
use group::Group;

use super::{g1_from_jacobian, GResult, Gpu, GpuError, Module};

/// Smallest accepted window width (1-bit windows are still correct).
pub const MIN_WINDOW: usize = 1;
/// Largest window width: 2^19 buckets per window (100 MiB of XYZZ buckets per window at 192 B each).
pub const MAX_WINDOW: usize = 20;
/// Windows processed together are limited so that windows·n ≤ 2^28 (keys, ranks and sorted entries: 12 bytes
/// each, so at most 3 GiB per pass; sorted indices stay below 2^31).
const PASS_BUDGET_LOG2: u32 = 28;
/// Threads per block of every launch.
const BLOCK: u32 = 128;
/// Chunks of the bucket-counter scan (one thread each; the chunk sums are scanned by one thread).
const SCAN_T: usize = 1024;
/// Bytes of one XYZZ G1 point on the device (4 × 6 u64).
const XYZZ_BYTES: usize = 192;
/// Bytes of one Jacobian G1 point (blst_p1: 3 × 6 u64).
const JAC_BYTES: usize = 144;
/// Large buckets: entries per thread of `msm_g1_range_partial`, partial sums per thread of
/// `msm_g1_range_reduce`, sums left for `msm_g1_range_finish`, and at most this many large buckets per pass.
const RANGE_PER: u32 = 256;
const RANGE_K: u32 = 32;
const RANGE_FINAL: u32 = 64;
const MAX_BIG: usize = 64;
/// A bucket is large when it holds more than BIG_AVG times the average and more than BIG_MIN points. Each
/// large bucket costs a few launches and a sync-free but serial finish, so the path must stay rare: with
/// 256 the top window at c = 13 (7 live bits, ~2^16/128 points per bucket) sent 64 buckets down it and a
/// 2^16 MSM took 878 ms on the H200 against 39 ms at 2^18 (docs/PERF.md); 4096 serial additions on one
/// thread cost about as much as those launches.
const BIG_MIN: usize = 4096;
/// See [`BIG_MIN`].
const BIG_AVG: usize = 16;

/// The buckets summed by the range kernels, as (bucket, start, end) in `sorted`, and the threshold `big`
/// given to `msm_g1_bucket_sum` (which sums exactly the buckets of at most `big` points). `offs` are the
/// M + 1 exclusive offsets. Mirrored by `big_buckets` in cuda/hostcheck/hostcheck.cpp.
fn big_buckets(offs: &[u32], n: usize, nb: u32) -> (Vec<(u32, u32, u32)>, u32) {
    let mut big = (BIG_AVG * n.div_ceil(nb as usize)).max(BIG_MIN).min(u32::MAX as usize) as u32;
    let count = |j: usize| offs[j + 1] - offs[j];
    let mut v: Vec<u32> = (0..offs.len() - 1).filter(|&j| count(j) > big).map(|j| j as u32).collect();
    if v.len() > MAX_BIG {
        let mut counts: Vec<u32> = v.iter().map(|&j| count(j as usize)).collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        big = counts[MAX_BIG];
        v.retain(|&j| count(j as usize) > big);
    }
    (v.into_iter().map(|j| (j, offs[j as usize], offs[j as usize + 1])).collect(), big)
}

/// The window width for an MSM of `n` points on the device.
///
/// Every device step is a serial chain of additions per thread (one thread per bucket, per reduction segment,
/// per window), and with the portable 64-bit field code one dependent G1 addition costs tens of µs, so the
/// longest chain sets the time of small and mid-size MSMs. The top window is the trap: recoded scalars are
/// below 2^254, so window ⌈255/c⌉ − 1 has only 254 − (⌈255/c⌉ − 1)·c live bits and its few buckets take all n
/// points. That is 7 bits at c = 13 (2^16 took 48 ms on the H200, its top buckets ~512 points deep), 1 at
/// c = 11, 4 at c = 10 (porep-1m's ~4.6k-point tails: 290-deep chains, tail_msm 101 ms). c = 8, 15 and 16
/// leave 6, 14 and 14 live bits, c = 3 and 5 a full c − 1. A chain-length model (docs/PERF.md) picks 3 below
/// 16 points and 5 below 512 (the reduction chain of 2^c buckets dominates tiny MSMs such as the prover's
/// public-input ones), 8 below 2^15 points, 15 up to 2^24 (≈ 2^(log n − 14) points per bucket, 128-bucket
/// reduction segments) and 16 beyond, where 2^24 measured 428 ms.
pub fn window_for(n: usize) -> usize {
    match n {
        0..16 => 3,
        16..512 => 5,
        512..SMALL_MSM => 8,
        SMALL_MSM..LARGE_MSM => 15,
        _ => 16,
    }
}

/// Below this many points the window is 8 (see [`window_for`]).
const SMALL_MSM: usize = 1 << 15;
/// From this many points on the window is 16 (see [`window_for`]).
const LARGE_MSM: usize = 1 << 24;

#[derive(Clone, Copy, Debug)]
struct Plan {
    /// Window width.
    c: u32,
    /// ⌈255/c⌉.
    windows: u32,
    /// Buckets per window, 2^(c−1).
    nb: u32,
    /// Windows per pass.
    gmax: u32,
    /// Buckets per reduction segment, 2^⌊c/2⌋.
    seg_len: u32,
    /// Segments per window, nb / seg_len.
    segs: u32,
}

fn plan(n: usize, window: usize) -> Plan {
    let c = window.clamp(MIN_WINDOW, MAX_WINDOW) as u32;
    let windows = 255u32.div_ceil(c);
    let nb = 1u32 << (c - 1);
    let gmax = ((1usize << PASS_BUDGET_LOG2) / n.max(1)).clamp(1, windows as usize) as u32;
    let seg_len = 1u32 << (c / 2);
    Plan { c, windows, nb, gmax, seg_len, segs: nb / seg_len }
}

/// Device bytes msm_g1 needs beyond bases and scalars, for the memory check (exact, before allocator
/// rounding): recoded scalars 32n; per pass keys, ranks, sorted 12·G·n; bucket offsets 4·(G·nb + 1); scan
/// chunk sums 4·1024; XYZZ buckets 192·G·nb; segment sums 192·G·segs; window results 144·⌈255/c⌉;
/// large-bucket partial sums 192·(⌈n/256⌉ + ⌈n/8192⌉ + 1).
pub fn scratch_bytes(n: usize, window: usize) -> usize {
    let p = plan(n.max(1), window);
    let (g, nb) = (p.gmax as usize, p.nb as usize);
    let (ra, rb) = range_parts(n.max(1));
    XYZZ_BYTES * (ra + rb)
        + 32 * n
        + 12 * g * n
        + 4 * (g * nb + 1)
        + 4 * SCAN_T
        + XYZZ_BYTES * g * nb
        + XYZZ_BYTES * g * p.segs as usize
        + JAC_BYTES * p.windows as usize
}

/// Partial-sum slots of the large-bucket kernels for a bucket of up to n entries (ping-pong buffers).
fn range_parts(n: usize) -> (usize, usize) {
    let a = n.div_ceil(RANGE_PER as usize);
    (a, a.div_ceil(RANGE_K as usize) + 1)
}

fn cfg(threads: usize, gy: u32) -> LaunchConfig {
    let blocks = threads.div_ceil(BLOCK as usize).max(1) as u32;
    LaunchConfig { grid_dim: (blocks, gy, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// Uninitialised device buffer of `len` (≥ 1) elements; every kernel writes what it later reads.
fn alloc<T: cudarc::driver::DeviceRepr>(gpu: &Gpu, len: usize) -> GResult<CudaSlice<T>> {
    // SAFETY: the MSM kernels write every element they read (see cuda/msm.cu).
    Ok(unsafe { gpu.stream.alloc::<T>(len.max(1)) }?)
}

/// Σ sᵢ·Pᵢ over the first `n` bases/scalars already on the device (bases: 12n u64 affine, blst layout, the
/// identity all-zero; scalars: 4n u64 Montgomery). `window`: `None` picks [`window_for`]`(n)`, `Some(c)` forces
/// width c (clamped to [[`MIN_WINDOW`], [`MAX_WINDOW`]]). Enqueues on `gpu.stream` and waits for the windows.
pub fn msm_g1(
    gpu: &Gpu,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    window: Option<usize>,
) -> GResult<G1Projective> {
    if n == 0 {
        return Ok(G1Projective::identity());
    }
    if bases.len() < 12 * n || scalars.len() < 4 * n {
        return Err(GpuError::Invalid(format!(
            "msm_g1: {n} points need {} base and {} scalar limbs, got {} and {}",
            12 * n,
            4 * n,
            bases.len(),
            scalars.len()
        )));
    }
    if n >= 1 << 31 {
        return Err(GpuError::Invalid(format!("msm_g1: {n} points (at most 2^31 − 1)")));
    }
    let p = plan(n, window.unwrap_or_else(|| window_for(n)));
    let n32 = n as u32;
    let k = |name: &str| gpu.kernel(Module::Msm, name);
    let (k_prep, k_zero, k_digits) = (k("msm_prep")?, k("msm_zero_u32")?, k("msm_digits")?);
    let (k_scan_a, k_scan_b, k_scan_c) = (k("msm_scan_a")?, k("msm_scan_b")?, k("msm_scan_c")?);
    let (k_scatter, k_bsum) = (k("msm_scatter")?, k("msm_g1_bucket_sum")?);
    let (k_reduce, k_final) = (k("msm_g1_bucket_reduce")?, k("msm_g1_window_final")?);
    let (k_rpart, k_rred, k_rfin) =
        (k("msm_g1_range_partial")?, k("msm_g1_range_reduce")?, k("msm_g1_range_finish")?);

    let gmax = p.gmax as usize;
    let mmax = gmax * p.nb as usize;
    let mut limbs = alloc::<u64>(gpu, 4 * n)?;
    let mut keys = alloc::<u32>(gpu, gmax * n)?;
    let mut ranks = alloc::<u32>(gpu, gmax * n)?;
    let mut sorted = alloc::<u32>(gpu, gmax * n)?;
    let mut offsets = alloc::<u32>(gpu, mmax + 1)?;
    let mut csum = alloc::<u32>(gpu, SCAN_T)?;
    let mut buckets = alloc::<u64>(gpu, mmax * XYZZ_BYTES / 8)?;
    let mut segs = alloc::<u64>(gpu, gmax * p.segs as usize * XYZZ_BYTES / 8)?;
    let mut wins = alloc::<u64>(gpu, p.windows as usize * JAC_BYTES / 8)?;
    let (ra, rb) = range_parts(n);
    let mut rparts_a = alloc::<u64>(gpu, ra * XYZZ_BYTES / 8)?;
    let mut rparts_b = alloc::<u64>(gpu, rb * XYZZ_BYTES / 8)?;

    let s = &gpu.stream;
    let mut b = s.launch_builder(&k_prep);
    b.arg(scalars).arg(&n32).arg(&mut limbs);
    // SAFETY (every launch below): argument types and order match the kernel's signature in cuda/msm.cu, and
    // every buffer holds at least the elements the launch's threads index (sizes from the same Plan).
    unsafe { b.launch(cfg(n, 1)) }?;

    let mut w0 = 0u32;
    while w0 < p.windows {
        let gc = (p.windows - w0).min(p.gmax);
        let m = gc * p.nb; // bucket counters this pass
        let m1 = m + 1;
        let len = (m1 as usize).div_ceil(SCAN_T) as u32;
        let t = m1.div_ceil(len);

        let mut b = s.launch_builder(&k_zero);
        b.arg(&mut offsets).arg(&m1);
        unsafe { b.launch(cfg(m1 as usize, 1)) }?;

        let mut b = s.launch_builder(&k_digits);
        b.arg(&limbs)
            .arg(&n32)
            .arg(&p.c)
            .arg(&w0)
            .arg(&p.nb)
            .arg(&mut keys)
            .arg(&mut ranks)
            .arg(&mut offsets);
        unsafe { b.launch(cfg(n, gc)) }?;

        let mut b = s.launch_builder(&k_scan_a);
        b.arg(&offsets).arg(&m1).arg(&len).arg(&mut csum);
        unsafe { b.launch(cfg(t as usize, 1)) }?;
        let mut b = s.launch_builder(&k_scan_b);
        b.arg(&mut csum).arg(&t);
        unsafe { b.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 }) }?;
        let mut b = s.launch_builder(&k_scan_c);
        b.arg(&mut offsets).arg(&m1).arg(&len).arg(&csum);
        unsafe { b.launch(cfg(t as usize, 1)) }?;

        let mut b = s.launch_builder(&k_scatter);
        b.arg(&keys).arg(&ranks).arg(&n32).arg(&p.nb).arg(&offsets).arg(&mut sorted);
        unsafe { b.launch(cfg(n, gc)) }?;

        // Large buckets (repeated scalars) are summed by many threads each; the rest one thread per bucket.
        let offs = s.clone_dtoh(&offsets.slice(0..m1 as usize))?;
        s.synchronize()?;
        let (bigs, big) = big_buckets(&offs, n, p.nb);
        for &(j, a, e) in &bigs {
            let parts = (e - a).div_ceil(RANGE_PER);
            let mut b = s.launch_builder(&k_rpart);
            b.arg(bases).arg(&sorted).arg(&a).arg(&e).arg(&RANGE_PER).arg(&mut rparts_a);
            unsafe { b.launch(cfg(parts as usize, 1)) }?;
            let (mut src, mut dst) = (&mut rparts_a, &mut rparts_b);
            let mut pm = parts;
            while pm > RANGE_FINAL {
                let pm2 = pm.div_ceil(RANGE_K);
                let mut b = s.launch_builder(&k_rred);
                b.arg(&*src).arg(&pm).arg(&RANGE_K).arg(&mut *dst);
                unsafe { b.launch(cfg(pm2 as usize, 1)) }?;
                std::mem::swap(&mut src, &mut dst);
                pm = pm2;
            }
            let mut b = s.launch_builder(&k_rfin);
            b.arg(&*src).arg(&pm).arg(&mut buckets).arg(&j);
            unsafe {
                b.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 })
            }?;
        }

        let mut b = s.launch_builder(&k_bsum);
        b.arg(bases).arg(&sorted).arg(&offsets).arg(&m).arg(&big).arg(&mut buckets);
        unsafe { b.launch(cfg(m as usize, 1)) }?;

        let mut b = s.launch_builder(&k_reduce);
        b.arg(&buckets).arg(&p.nb).arg(&p.seg_len).arg(&p.segs).arg(&mut segs);
        unsafe { b.launch(cfg(p.segs as usize, gc)) }?;

        let mut b = s.launch_builder(&k_final);
        b.arg(&segs).arg(&p.segs).arg(&gc).arg(&w0).arg(&mut wins);
        unsafe { b.launch(cfg(gc as usize, 1)) }?;

        w0 += gc;
    }

    let host = s.clone_dtoh(&wins)?;
    s.synchronize()?;
    let mut acc = G1Projective::identity();
    for w in (0..p.windows as usize).rev() {
        for _ in 0..p.c {
            acc = acc.double();
        }
        let l: &[u64; 18] = host[18 * w..18 * w + 18].try_into().expect("18 limbs");
        acc += g1_from_jacobian(l);
    }
    Ok(acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_table_and_plan() {
        assert_eq!(window_for(0), 3);
        assert_eq!(window_for(100), 5);
        assert_eq!(window_for(1 << 10), 8);
        assert_eq!(window_for(1 << 16), 15);
        assert_eq!(window_for(1 << 24), 16);
        assert_eq!(window_for(1 << 27), 16);
        // No chosen window leaves the top window with fewer than min(6, c − 1) live bits.
        for lg in 0..31 {
            let c = window_for(1 << lg);
            assert!(254 - (255usize.div_ceil(c) - 1) * c >= 6.min(c - 1), "c = {c}");
        }
        for c in MIN_WINDOW..=MAX_WINDOW {
            let p = plan(1000, c);
            assert_eq!(p.segs * p.seg_len, p.nb);
            assert!(p.windows * p.c >= 255);
        }
        // A 2^27 MSM at c = 16 processes 2 windows per pass: 3 GiB of sort scratch.
        assert_eq!(plan(1 << 27, 16).gmax, 2);
        assert!(scratch_bytes(1 << 27, 16) < 8 << 30);
    }
}
