//! Pippenger MSM in G1 on the device (`cuda/msm.cu`): signed Booth window digits exactly as the CPU's
//! (`backend::cpu::digits`), buckets filled by a counting sort per window (histogram with counter atomics,
//! exclusive scan, scatter of `index << 1 | sign`), bucket sums by an even split of the sorted entries over
//! threads (mixed XYZZ additions; buckets cut by a slice boundary are finished by further levels of the same
//! walk, so no input shape makes one long chain), per-window bucket reduction by segmented running sums and a
//! shared-memory tree, and the window combination (Horner, ⌈255/c⌉ windows) on the host with blstrs. From
//! 2^22 points the windows go in two passes on two streams: pass k + 1's counting sort and pass k's
//! reduction run while pass k's accumulation does ([`split_for`]). Over precomputed shifted bases
//! (msm_shift.rs, toggle `shift`) the same sequence runs "folded": a pass's windows share one bucket set. The
//! launch sequence is documented at the
//! top of `cuda/msm.cu`; `cuda/hostcheck/hostcheck.cpp` emulates the same sequence (keep [`Plan`] in step
//! with its `plan`).

use blstrs::G1Projective;
use cudarc::driver::{CudaSlice, CudaView, LaunchConfig, PushKernelArg};
use group::Group;

use super::msm_profile::Profile;
use super::msm_variant::MsmVariant;
use super::{g1_from_jacobian, GResult, Gpu, GpuError, Module};

pub use super::msm_variant::{MAX_WINDOW, MIN_WINDOW};
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
/// Level-1 accumulation aims at this many threads per pass (entries per thread k1 = ⌈G·n / this⌉, at least
/// [`K1_MIN`]), or half as many when that gives k1 ≥ [`K1_LONG`]. Measured on the H200 (docs/PERF.md,
/// 2026-11-30): 2^19 threads best at 2^20 points (k1 = 34: 18.4 ms against 19.1 with 2^18), 2^18 at 2^22
/// (k1 = 240: 49.0 ms against 54.4) and 2^24 (166.2 against 170.7 ms); 2^20 threads slower everywhere.
/// With the flat walk (2026-12-01, `CUZK_MSM_TUNE`, median of 5) 2^18 threads pay at 2^20 too (k1 = 68:
/// 11.33 ms against 12.02 with 2^19) and 2^22 is within noise (35.76 / 35.86), hence [`K1_LONG`] 32.
const ACCUM_THREADS: usize = 1 << 19;
/// See [`ACCUM_THREADS`]: 32 halves the threads from 2^20 points up (k1 = 34 there with 2^19).
const K1_LONG: usize = 32;
/// Smallest level-1 slice (tiny MSMs: more threads, shorter chains).
const K1_MIN: usize = 8;
/// Items per thread at levels ≥ 2 (partial sums of buckets cut by slice boundaries).
const KR: u32 = 16;
/// Bucket-reduction threads per pass (segments of buckets; their sums go to a per-window tree).
const REDUCE_THREADS: u32 = 1 << 15;

/// The window width for an MSM of `n` points on the device.
///
/// Bucket sums are split evenly over threads whatever the bucket sizes, so the window only trades the
/// accumulation (⌈255/c⌉·n mixed additions) against the bucket reduction (⌈255/c⌉·2^c XYZZ additions) and
/// launch latency. Measured on the H200 (docs/PERF.md, 2026-11-30, sweeps of c = 12..21): 2^20 best at 15
/// (18.4 ms; 14 and 16 within 3%), 2^22 at 17 (54.4 ms; 16: 59.8, 18: 55.7), 2^24 at 19 (166.5 ms; 18:
/// 170.7, 20: 173.8, 17: 182.6, 16: 203.6; again with the longer slices of [`K1_LONG`]: 171.4, 18: 175.4,
/// 20: 186.3); 2^23 takes 18 (not measured: between its neighbours' best).
/// Below 2^15 points the old chain-length table stands: 3 below 16 points and 5 below 512 (the reduction of
/// 2^c buckets dominates tiny MSMs), 8 below 2^15.
pub fn window_for(n: usize) -> usize {
    match n {
        0..16 => 3,
        16..512 => 5,
        512..SMALL_MSM => 8,
        SMALL_MSM..MID_MSM => 15,
        MID_MSM..LARGE_MSM => 17,
        LARGE_MSM..HUGE_MSM => 18,
        _ => 19,
    }
}

/// Below this many points the window is 8 (see [`window_for`]).
const SMALL_MSM: usize = 1 << 15;
/// From this many points on the window is 17 (see [`window_for`]).
const MID_MSM: usize = 1 << 21;
/// From this many points on the window is 18 (see [`window_for`]).
const LARGE_MSM: usize = 1 << 23;
/// From this many points on the window is 19 (see [`window_for`]).
const HUGE_MSM: usize = 1 << 24;

#[derive(Clone, Debug)]
struct Plan {
    /// Window width.
    c: u32,
    /// ⌈255/c⌉.
    windows: u32,
    /// Buckets per window, 2^(c−1).
    nb: u32,
    /// Windows per pass.
    gmax: u32,
    /// Buckets per reduction segment (a power of two).
    seg_len: u32,
    /// Segments per window, nb / seg_len.
    segs: u32,
    /// Level-1 entries per accumulation thread.
    k1: u32,
    /// Items per thread at levels ≥ 2.
    kr: u32,
    /// Accumulation threads per level (level 1 first) for the worst case of G·n entries in one bucket.
    levels: Vec<u32>,
    /// Shifted bases (msm_shift.rs): a pass's windows share one bucket set.
    fold: bool,
}

impl Plan {
    /// Buckets per pass: one set shared by the pass's windows when folded, one per window otherwise.
    fn mb(&self) -> usize {
        if self.fold {
            self.nb as usize
        } else {
            (self.gmax * self.nb) as usize
        }
    }
    /// Blocks of the window sum per folded pass (1 unfolded); segments are a power of two, so they divide them.
    fn fin_blocks(&self) -> u32 {
        if self.fold {
            FOLD_FINAL.min(self.segs)
        } else {
            1
        }
    }
    /// Result slots: one per window, or folded one per window-sum block of each pass.
    fn slots(&self) -> usize {
        if self.fold {
            (self.windows.div_ceil(self.gmax) * self.fin_blocks()) as usize
        } else {
            self.windows as usize
        }
    }
    /// Bucket groups (windows as the reduction sees them) per pass.
    fn groups(&self, gc: u32) -> u32 {
        if self.fold {
            1
        } else {
            gc
        }
    }
}

/// `split`: passes wanted at least (windows shared out evenly), beyond those the sort scratch budget makes;
/// `fold`: shifted bases (one bucket set per pass, so the reduction's segments are those of one window).
fn plan(n: usize, window: usize, split: u32, fold: bool) -> Plan {
    let c = window.clamp(MIN_WINDOW, MAX_WINDOW) as u32;
    let windows = 255u32.div_ceil(c);
    let nb = 1u32 << (c - 1);
    let budget = ((1usize << PASS_BUDGET_LOG2) / n.max(1)).clamp(1, windows as usize) as u32;
    let gmax = budget.min(windows.div_ceil(split.clamp(1, windows)));
    let tune = Tune::get();
    // Segments per window as without the split: a split pass reduces fewer windows, not shorter segments
    // (halving them doubled the reduction's scalar multiplications: 2^24, 2 passes, 7.7 + 2.1 ms against
    // 6.5 + 0.6 in one pass, H200).
    let per = if fold { 1 } else { budget };
    let segs = (tune.reduce_threads / per).max(1).next_power_of_two().min(nb);
    let entries = gmax as usize * n.max(1);
    let mut k1 = entries.div_ceil(tune.accum_threads).max(K1_MIN);
    if k1 >= K1_LONG {
        k1 = entries.div_ceil((tune.accum_threads / 2).max(1));
    }
    let k1 = k1 as u32;
    let kr = tune.kr;
    let mut levels = vec![entries.div_ceil(k1 as usize) as u32];
    while let Some(&t) = levels.last().filter(|&&t| t > 1) {
        levels.push((2 * t).div_ceil(kr));
    }
    Plan { c, windows, nb, gmax, seg_len: nb / segs, segs, k1, kr, levels, fold }
}

/// Accumulation and reduction sizes: the constants above, or `CUZK_MSM_TUNE=accum_threads,kr,reduce_threads`
/// (for measuring alternatives on the device without a rebuild; cuda/hostcheck checks the defaults' shapes
/// and others through its own parameters).
#[derive(Clone, Copy, Debug)]
struct Tune {
    accum_threads: usize,
    kr: u32,
    reduce_threads: u32,
}

impl Tune {
    fn get() -> Tune {
        let d = Tune { accum_threads: ACCUM_THREADS, kr: KR, reduce_threads: REDUCE_THREADS };
        let Ok(v) = std::env::var("CUZK_MSM_TUNE") else { return d };
        let f: Vec<usize> = v.split(',').filter_map(|x| x.trim().parse().ok()).collect();
        match f[..] {
            [a, k, r] if a >= 1 && k >= 4 && r >= 1 => {
                Tune { accum_threads: a, kr: k as u32, reduce_threads: r.min(1 << 24) as u32 }
            }
            _ => d,
        }
    }
}

/// Passes the windows are split into by default for `n` points (each pass's counting sort runs under the
/// previous pass's accumulation, its bucket reduction under the next one's; see [`msm_g1`]).
pub fn split_for(n: usize) -> u32 {
    if n >= OVERLAP_MIN {
        OVERLAP_SPLIT
    } else {
        1
    }
}

/// From this many points the windows are split into [`OVERLAP_SPLIT`] passes on two streams. Measured on
/// the H200 (docs/PERF.md, 2026-12-01, `cuzk bench msm`, median of 7): 2^24 129.5 ms in one pass, 126.3 in
/// two; 2^22 35.7 against 35.4; 2^20 11.5 against 14.6 (its accumulation launches are too small to split).
/// Inside proofs (chain-156, porep-16m) no measurable change either way.
const OVERLAP_MIN: usize = 1 << 22;
/// Passes of the overlapped schedule (two, three and four measured: 2^24 128.3 / 130.7 / 129.7 ms before the
/// reduction kept its segments per window; two best).
const OVERLAP_SPLIT: u32 = 2;

/// Device bytes msm_g1 needs beyond bases and scalars, for the memory check (exact, before allocator
/// rounding), with the default split ([`split_for`]) and overlap.
pub fn scratch_bytes(n: usize, window: usize) -> usize {
    let p = plan(n.max(1), window, split_for(n), false);
    plan_bytes(&p, n, sets(&p, n, true))
}

/// [`scratch_bytes`] for an MSM over shifted bases (msm_shift.rs), bases not included.
pub(super) fn scratch_bytes_fold(n: usize, window: usize) -> usize {
    let p = plan(n.max(1), window, split_for(n), true);
    plan_bytes(&p, n, sets(&p, n, true))
}

/// Buffer sets a plan uses: two when its passes overlap (pass k + 1 sorts while pass k accumulates) and both
/// fit the one-pass sort budget (2·G·n ≤ 2^28: up to 2^24 points the overlap costs no memory; beyond, the
/// budget already splits the windows and the passes run in turn).
fn sets(p: &Plan, n: usize, overlap: bool) -> usize {
    if overlap && p.windows > p.gmax && 2 * p.gmax as usize * n <= 1 << PASS_BUDGET_LOG2 {
        2
    } else {
        1
    }
}

/// Recoded scalars 32n; per buffer set: keys, ranks, sorted 12·G·n, bucket offsets 4·(M + 1), XYZZ
/// buckets 192·M (M = [`Plan::mb`]); once: scan chunk sums 4·1024, partial sums 192·2·(T1 + T2) (threads of
/// accumulation levels 1 and 2) and their bucket keys 4·T1, segment sums 2·192·G'·segs (G' bucket groups per
/// pass), window results 144·[`Plan::slots`].
fn plan_bytes(p: &Plan, n: usize, sets: usize) -> usize {
    let (g, mb) = (p.gmax as usize, p.mb());
    let (pa, pb) = part_slots(p);
    XYZZ_BYTES * (pa + pb)
        + 4 * p.levels[0] as usize
        + 32 * n
        + sets * (12 * g * n + 4 * (mb + 1) + XYZZ_BYTES * mb)
        + 4 * SCAN_T
        + 2 * XYZZ_BYTES * p.groups(p.gmax) as usize * p.segs as usize
        + JAC_BYTES * p.slots()
}

/// Partial-sum slots of the accumulation levels: odd levels write buffer A (2 per level-1 thread), even
/// levels buffer B (2 per level-2 thread); thread counts fall from level to level.
fn part_slots(p: &Plan) -> (usize, usize) {
    let t = |i: usize| p.levels.get(i).map_or(0, |&t| t as usize);
    (2 * t(0), 2 * t(1))
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
/// width c (clamped to [[`MIN_WINDOW`], [`MAX_WINDOW`]]). `overlap` (toggle `msm2s`): from 2^22 points the
/// windows go in two passes on `gpu.stream` and `gpu.side()[3]` ([`split_for`]); off, one pass on
/// `gpu.stream`. Waits for the windows. Kernels as `CUZK_MSM_VARIANT` names (default when unset; an unknown
/// name is an error; its `pN` and `seq` tokens override `overlap`).
pub fn msm_g1(
    gpu: &Gpu,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    window: Option<usize>,
    overlap: bool,
) -> GResult<G1Projective> {
    msm_g1_launch(gpu, bases, scalars, n, window, overlap)?.collect(gpu)
}

/// [`msm_g1`] with the kernel variant given (tests compare every variant in one process without env vars).
pub fn msm_g1_variant(
    gpu: &Gpu,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    window: Option<usize>,
    variant: &MsmVariant,
) -> GResult<G1Projective> {
    variant_launch(gpu, bases, scalars, n, window, variant)?.collect(gpu)
}

/// [`msm_g1_variant`]'s launches, not waited for.
fn variant_launch(
    gpu: &Gpu,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    window: Option<usize>,
    variant: &MsmVariant,
) -> GResult<Pending> {
    let c = window.or(variant.window).unwrap_or_else(|| window_for(n));
    msm_launch(gpu, bases, scalars, n, c, variant, None)
}

/// The launch sequence for window width `c`, waiting for its sum; `fold = Some(S)`: `bases` are
/// msm_shift.rs's ⌈255/c⌉ shifted copies of S ≥ n bases (2^(c·j)·P_i at j·S + i).
pub(super) fn msm_run(
    gpu: &Gpu,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    c: usize,
    variant: &MsmVariant,
    fold: Option<usize>,
) -> GResult<G1Projective> {
    msm_launch(gpu, bases, scalars, n, c, variant, fold)?.collect(gpu)
}

/// [`msm_g1`]'s launches without waiting: the windows' sums stay on the device until [`Pending::collect`], so
/// a lane can queue every tail MSM of a call back to back (toggle `tailseq`). The scratch goes back to the
/// stream-ordered pool as the launches are queued; the next MSM's reuses it.
pub fn msm_g1_launch(
    gpu: &Gpu,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    window: Option<usize>,
    overlap: bool,
) -> GResult<Pending> {
    let mut v = MsmVariant::from_env()?;
    if !overlap && v.split.is_none() && !v.seq {
        (v.split, v.seq) = (Some(1), true);
    }
    variant_launch(gpu, bases, scalars, n, window, &v)
}

/// An MSM whose launches are queued on the lane's stream: its window sums on the device.
pub struct Pending {
    /// The window (or folded slot) sums, Jacobian; `None` for an empty MSM.
    wins: Option<CudaSlice<u64>>,
    windows: usize,
    c: usize,
    slots: usize,
    fold: bool,
}

impl Pending {
    /// Waits for the sums and combines them on the host.
    pub fn collect(self, gpu: &Gpu) -> GResult<G1Projective> {
        let Some(wins) = self.wins else { return Ok(G1Projective::identity()) };
        let host = gpu.stream.clone_dtoh(&wins)?;
        gpu.stream.synchronize()?;
        let window = |w: usize| -> G1Projective {
            let mut l = [0u64; 18];
            l.copy_from_slice(&host[18 * w..18 * w + 18]);
            g1_from_jacobian(&l)
        };
        let mut acc = G1Projective::identity();
        if self.fold {
            // Each slot already carries its windows' weights 2^(c·j) in the bases.
            for k in 0..self.slots {
                acc += window(k);
            }
        } else {
            for w in (0..self.windows).rev() {
                for _ in 0..self.c {
                    acc = acc.double();
                }
                acc += window(w);
            }
        }
        Ok(acc)
    }
}

fn msm_launch(
    gpu: &Gpu,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    c: usize,
    variant: &MsmVariant,
    fold: Option<usize>,
) -> GResult<Pending> {
    if n == 0 {
        return Ok(Pending { wins: None, windows: 0, c, slots: 0, fold: false });
    }
    let p = plan(n.max(1), c, variant.split.unwrap_or_else(|| split_for(n)), fold.is_some());
    let (stride, copies) = match fold {
        Some(s) => (s, p.windows as usize),
        None => (n, 1),
    };
    if stride < n || bases.len() < 12 * stride * copies || scalars.len() < 4 * n {
        return Err(GpuError::Invalid(format!(
            "msm_g1: {n} points need {} base and {} scalar limbs, got {} and {}",
            12 * n.max(stride) * copies,
            4 * n,
            bases.len(),
            scalars.len()
        )));
    }
    if stride * copies >= 1 << 31 {
        return Err(GpuError::Invalid(format!("msm_g1: {} bases (at most 2^31 − 1)", stride * copies)));
    }
    let fold = fold.is_some();
    let prof = Profile::new(gpu)?;
    // Profiling marks stages with events on one stream, so it runs them all there.
    let nsets = sets(&p, n, !variant.seq && !prof.on());
    let need = plan_bytes(&p, n, nsets);
    let checked = if fold { scratch_bytes_fold(n, c) } else { scratch_bytes(n, c) };
    if need > checked {
        // The callers checked memory for scratch_bytes (window_for(n), split_for(n)); a variant's shape may
        // need more.
        gpu.check_mem("msm_g1 (CUZK_MSM_VARIANT shape)", need)?;
    }
    let n32 = n as u32;
    // The flat walk loads bases as 16-byte vectors: 96-byte points from a 16-byte aligned start.
    let aligned = {
        let (ptr, _sync) = cudarc::driver::DevicePtr::device_ptr(bases, &gpu.stream);
        ptr % 16 == 0
    };
    let points_kernel = if variant.flat && !aligned {
        MsmVariant { flat: false, nopf: false, ..*variant }.points_kernel()
    } else {
        variant.points_kernel()
    };
    let points_block = if variant.block == 0 { BLOCK } else { variant.block };
    let k = |name: &str| gpu.kernel(Module::Msm, name);
    let (k_prep, k_zero, k_digits) = (k("msm_prep")?, k("msm_zero_u32")?, k("msm_digits")?);
    let (k_scan_a, k_scan_b, k_scan_c) = (k("msm_scan_a")?, k("msm_scan_b")?, k("msm_scan_c")?);
    let (k_scatter, k_points, k_parts) = (k("msm_scatter")?, k(points_kernel)?, k("msm_g1_accum_parts")?);
    let k_fix = k("msm_g1_accum_fix")?;
    let (k_reduce, k_final) = (k("msm_g1_bucket_reduce")?, k("msm_g1_window_final")?);
    let gmax = p.gmax as usize;
    let mmax = p.mb();
    // The kernels' `fold` argument: the stride of the shifted copies, 0 for plain bases.
    let fold32 = if fold { stride as u32 } else { 0 };
    let mut limbs = alloc::<u64>(gpu, 4 * n)?;
    let mut bufs = (0..nsets).map(|_| SortSet::new(gpu, gmax, n, mmax)).collect::<GResult<Vec<_>>>()?;
    let mut csum = alloc::<u32>(gpu, SCAN_T)?;
    let mut segs = alloc::<u64>(gpu, 2 * p.groups(p.gmax) as usize * p.segs as usize * XYZZ_BYTES / 8)?;
    let passes: Vec<(u32, u32)> =
        (0..p.windows).step_by(p.gmax as usize).map(|w0| (w0, (p.windows - w0).min(p.gmax))).collect();
    let (fin_blocks, slots) = (p.fin_blocks(), p.slots());
    let mut wins = alloc::<u64>(gpu, slots * JAC_BYTES / 8)?;
    let (pa, pb) = part_slots(&p);
    let mut parts_a = alloc::<u64>(gpu, pa * XYZZ_BYTES / 8)?;
    let mut parts_b = alloc::<u64>(gpu, pb * XYZZ_BYTES / 8)?;
    let mut b_key = alloc::<u32>(gpu, p.levels[0] as usize)?;

    // Accumulation (the multiply-bound bulk) runs on `gpu.stream`; with two buffer sets the counting sort of
    // pass k + 1 and the bucket reduction of pass k run on a side stream meanwhile. cudarc's per-buffer events
    // order the two (a set is re-sorted only after its accumulation and reduction have read it).
    let a = &gpu.stream;
    let s = if nsets == 2 {
        let side = &gpu.side()?[3];
        // The buffers above may be stream-ordered allocations on `gpu.stream`.
        side.join(a)?;
        side
    } else {
        a
    };
    let mut b = s.launch_builder(&k_prep);
    b.arg(scalars).arg(&n32).arg(&mut limbs);
    // SAFETY (every launch below): argument types and order match the kernel's signature in cuda/msm.cu, and
    // every buffer holds at least the elements the launch's threads index (sizes from the same Plan).
    unsafe { b.launch(cfg(n, 1)) }?;
    prof.mark("prep")?;

    let sort = |set: &mut SortSet, csum: &mut CudaSlice<u32>, w0: u32, gc: u32| -> GResult<()> {
        let m1 = p.groups(gc) * p.nb + 1; // bucket counters this pass, and the total
        let len = (m1 as usize).div_ceil(SCAN_T) as u32;
        let t = m1.div_ceil(len);
        let mut b = s.launch_builder(&k_zero);
        b.arg(&mut set.offsets).arg(&m1);
        unsafe { b.launch(cfg(m1 as usize, 1)) }?;
        // Buckets no entry reaches stay the identity (all-zero XYZZ).
        s.memset_zeros(&mut set.buckets)?;

        let mut b = s.launch_builder(&k_digits);
        b.arg(&limbs)
            .arg(&n32)
            .arg(&p.c)
            .arg(&w0)
            .arg(&p.nb)
            .arg(&gc)
            .arg(&fold32)
            .arg(&mut set.keys)
            .arg(&mut set.ranks)
            .arg(&mut set.offsets);
        unsafe { b.launch(cfg(n, 1)) }?;
        prof.mark("digits")?;

        let mut b = s.launch_builder(&k_scan_a);
        b.arg(&set.offsets).arg(&m1).arg(&len).arg(&mut *csum);
        unsafe { b.launch(cfg(t as usize, 1)) }?;
        let mut b = s.launch_builder(&k_scan_b);
        b.arg(&mut *csum).arg(&t);
        unsafe { b.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 }) }?;
        let mut b = s.launch_builder(&k_scan_c);
        b.arg(&mut set.offsets).arg(&m1).arg(&len).arg(&*csum);
        unsafe { b.launch(cfg(t as usize, 1)) }?;
        prof.mark("scan")?;

        let mut b = s.launch_builder(&k_scatter);
        b.arg(&set.keys).arg(&set.ranks).arg(&n32).arg(&p.nb).arg(&w0).arg(&fold32);
        b.arg(&set.offsets).arg(&mut set.sorted);
        unsafe { b.launch(cfg(n, gc)) }?;
        prof.mark("scatter")?;
        Ok(())
    };
    if let (Some(&(w0, gc)), Some(set)) = (passes.first(), bufs.first_mut()) {
        sort(set, &mut csum, w0, gc)?;
    }
    for (k, &(w0, gc)) in passes.iter().enumerate() {
        let m = p.groups(gc) * p.nb;
        let set = &mut bufs[k % nsets];
        let mut b = a.launch_builder(&k_points);
        b.arg(bases)
            .arg(&set.sorted)
            .arg(&set.offsets)
            .arg(&m)
            .arg(&p.k1)
            .arg(&mut set.buckets)
            .arg(&mut parts_a)
            .arg(&mut b_key);
        let blocks = p.levels[0].div_ceil(points_block).max(1);
        let lc =
            LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (points_block, 1, 1), shared_mem_bytes: 0 };
        unsafe { b.launch(lc) }?;
        prof.mark("accum_points")?;
        let mut b = a.launch_builder(&k_fix);
        b.arg(&set.offsets).arg(&m).arg(&p.k1).arg(&b_key).arg(&parts_a).arg(&mut set.buckets);
        unsafe { b.launch(cfg(p.levels[0] as usize, 1)) }?;
        prof.mark("accum_fix")?;
        for (i, &threads) in p.levels.iter().enumerate().skip(1) {
            let level = i as u32 + 1;
            let (src, dst) =
                if level.is_multiple_of(2) { (&parts_a, &mut parts_b) } else { (&parts_b, &mut parts_a) };
            let mut b = a.launch_builder(&k_parts);
            b.arg(&set.offsets)
                .arg(&m)
                .arg(&level)
                .arg(&p.k1)
                .arg(&p.kr)
                .arg(src)
                .arg(&mut set.buckets)
                .arg(dst);
            unsafe { b.launch(cfg(threads as usize, 1)) }?;
        }
        prof.mark("accum_parts")?;

        // With two sets the next pass's sort goes ahead of this pass's reduction on the side stream, so that it
        // runs under this accumulation rather than behind a reduction that waits for it; with one set it must
        // wait for the reduction (it overwrites the buckets).
        let next = passes.get(k + 1);
        if let (Some(&(w1, g1)), 2) = (next, nsets) {
            sort(&mut bufs[(k + 1) % 2], &mut csum, w1, g1)?;
        }
        let set = &bufs[k % nsets];
        let mut b = s.launch_builder(&k_reduce);
        b.arg(&set.buckets).arg(&p.nb).arg(&p.seg_len).arg(&p.segs).arg(&mut segs);
        unsafe { b.launch(cfg(p.segs as usize, p.groups(gc))) }?;
        prof.mark("reduce")?;

        // Folded, pass k's one bucket set is summed by `fin_blocks` blocks into slots [k·F, k·F + F).
        let (slot, fin_segs) = if fold { (k as u32 * fin_blocks, p.segs / fin_blocks) } else { (w0, p.segs) };
        let mut b = s.launch_builder(&k_final);
        b.arg(&segs).arg(&fin_segs).arg(&p.seg_len).arg(&slot).arg(&fold32).arg(&mut wins);
        let grid = if fold { fin_blocks } else { gc };
        let fin = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (FINAL_T, 1, 1), shared_mem_bytes: 0 };
        unsafe { b.launch(fin) }?;
        prof.mark("final")?;
        if let (Some(&(w1, g1)), 1) = (next, nsets) {
            sort(&mut bufs[0], &mut csum, w1, g1)?;
        }
    }

    let pending = Pending { wins: Some(wins), windows: p.windows as usize, c: p.c as usize, slots, fold };
    if prof.on() {
        // The stages' events are read once the stream has drained.
        gpu.stream.synchronize()?;
    }
    prof.report(|| {
        format!(
            "n={n} c={} passes={} fold={} k1={} levels={} kernel={points_kernel}/{points_block}",
            p.c,
            p.windows.div_ceil(p.gmax),
            p.fold,
            p.k1,
            p.levels.len()
        )
    })?;
    Ok(pending)
}

/// One pass's counting-sort output and buckets (two of them when passes overlap).
struct SortSet {
    keys: CudaSlice<u32>,
    ranks: CudaSlice<u32>,
    sorted: CudaSlice<u32>,
    offsets: CudaSlice<u32>,
    buckets: CudaSlice<u64>,
}

impl SortSet {
    fn new(gpu: &Gpu, gmax: usize, n: usize, mmax: usize) -> GResult<SortSet> {
        Ok(SortSet {
            keys: alloc(gpu, gmax * n)?,
            ranks: alloc(gpu, gmax * n)?,
            sorted: alloc(gpu, gmax * n)?,
            offsets: alloc(gpu, mmax + 1)?,
            buckets: alloc(gpu, mmax * XYZZ_BYTES / 8)?,
        })
    }
}

/// Threads per block of `msm_g1_window_final` (`MSM_FINAL_T` in cuda/msm.cu).
const FINAL_T: u32 = 128;
/// Blocks of `msm_g1_window_final` per folded pass: one block over 2^15 segments took 11 ms per pass at 2^24
/// (H200, docs/PERF.md); 64 give each thread 4 segments, as many as an unfolded window's 32 per thread / 7.
const FOLD_FINAL: u32 = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_table_and_plan() {
        assert_eq!(window_for(0), 3);
        assert_eq!(window_for(100), 5);
        assert_eq!(window_for(1 << 10), 8);
        assert_eq!(window_for(1 << 16), 15);
        assert_eq!(window_for(1 << 22), 17);
        assert_eq!(window_for(1 << 23), 18);
        assert_eq!(window_for(1 << 24), 19);
        assert_eq!(window_for(1 << 27), 19);
        for c in MIN_WINDOW..=MAX_WINDOW {
            for n in [1usize, 1000, 1 << 20] {
                let p = plan(n, c, 1, false);
                assert_eq!(p.segs * p.seg_len, p.nb);
                assert!(p.windows * p.c >= 255);
                // Enough levels for every entry of the pass in one bucket: the last level has one thread.
                assert_eq!(*p.levels.last().unwrap_or(&0), 1, "n={n} c={c}");
                assert!(p.levels.windows(2).all(|w| w[1] < w[0]));
                assert!(p.levels[0] as usize * p.k1 as usize >= p.gmax as usize * n);
            }
        }
        // The split halves the windows per pass, not the reduction's segments per window; two sets overlap.
        let (one, two) = (plan(1 << 24, 19, 1, false), plan(1 << 24, 19, 2, false));
        assert_eq!((one.gmax, two.gmax, one.segs), (14, 7, two.segs));
        let n = 1 << 24;
        assert_eq!((sets(&one, n, true), sets(&two, n, true), sets(&two, n, false)), (1, 2, 1));
        assert_eq!(sets(&plan(1 << 27, 18, 2, false), 1 << 27, true), 1);
        assert_eq!(plan(1000, 8, 99, false).gmax, 1);
        assert!(plan_bytes(&two, 1 << 24, 2) < plan_bytes(&one, 1 << 24, 1) + (64 << 20));
        assert_eq!((split_for(1 << 21), split_for(1 << 22)), (1, OVERLAP_SPLIT));
        // A 2^27 MSM processes 2 windows per pass: 3 GiB of sort scratch.
        assert_eq!(plan(1 << 27, 18, 1, false).gmax, 2);
        assert!(scratch_bytes(1 << 27, 18) < 8 << 30);
    }
}
