//! The shape of one device MSM (G1, or G2 for `g2d`'s B_G2): its window width, how its windows split into passes, the level-1 slice
//! length and accumulation levels, and the exact device bytes it needs. `cuda/hostcheck/hostcheck.cpp`
//! mirrors `plan` (keep them in step). Measured figures behind the constants: docs/PERF.md (the MSM
//! sections of 2026-11-30 and 2026-12-01).

/// Smallest accepted window width (1-bit windows are still correct).
pub const MIN_WINDOW: usize = 1;
/// Largest window width: 2^21 buckets per window (384 MiB of XYZZ buckets per window at 192 B each; the
/// default table stops at 19, wider windows are for forced widths and shifted bases).
pub const MAX_WINDOW: usize = 22;
/// Most passes a caller may ask for: beyond this each pass is too small to hide the next one's sort.
pub const MAX_PASSES: u32 = 8;
/// Windows processed together are limited so that windows·n ≤ 2^28 (keys, ranks and sorted entries: 12 bytes
/// each, so at most 3 GiB per pass; sorted indices stay below 2^31).
pub(super) const PASS_BUDGET_LOG2: u32 = 28;
/// Chunks of the bucket-counter scan (one thread each; the chunk sums are scanned by one thread).
pub(super) const SCAN_T: usize = 1024;

/// The group an MSM runs in: the sizes of its points on the device and the module of its steps 5–7 (the
/// counting sort before them is the same for both).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Curve {
    /// G1 (`cuda/msm.cu`'s `msm_g1_*`).
    G1,
    /// G2 (`cuda/msm_g2.cu`'s `msm_g2_*`), over bases in blst_p2_affine's layout.
    G2,
}

impl Curve {
    /// u64 limbs of one coordinate (Fp: 6, Fp2: 12).
    fn fe_limbs(self) -> usize {
        match self {
            Curve::G1 => 6,
            Curve::G2 => 12,
        }
    }
    /// u64 limbs of one affine point (x, y).
    pub fn affine_limbs(self) -> usize {
        2 * self.fe_limbs()
    }
    /// Bytes of one XYZZ point on the device (G1 192, G2 384).
    pub(super) fn xyzz_bytes(self) -> usize {
        32 * self.fe_limbs()
    }
    /// u64 limbs of one Jacobian point (blst_p1 / blst_p2: x, y, z).
    pub(super) fn jac_limbs(self) -> usize {
        3 * self.fe_limbs()
    }
    /// Bytes of one Jacobian point.
    pub(super) fn jac_bytes(self) -> usize {
        8 * self.jac_limbs()
    }
    /// The kernels' name prefix (`msm_g1`, `msm_g2`).
    pub(super) fn prefix(self) -> &'static str {
        match self {
            Curve::G1 => "msm_g1",
            Curve::G2 => "msm_g2",
        }
    }
    /// Threads per block of the window sum (`MSM_FINAL_T`, `MSM_G2_FINAL_T` in cuda/msm_accum.cuh: G2's
    /// 384-byte points keep its shared tree at 24 KiB).
    pub(super) fn final_threads(self) -> u32 {
        match self {
            Curve::G1 => 128,
            Curve::G2 => 64,
        }
    }
}
/// Level-1 accumulation aims at this many threads per pass (entries per thread k1 = ⌈G·n / this⌉, at least
/// [`K1_MIN`]), or half as many when that gives k1 ≥ [`K1_LONG`]: 2^19 was best at 2^20 points, 2^18 from
/// 2^22 (2^24: 166.2 against 170.7 ms with 2^19).
const ACCUM_THREADS: usize = 1 << 19;
/// See [`ACCUM_THREADS`]: 32 halves the threads from 2^20 points up (the flat walk at 2^20: 11.33 ms against
/// 12.02 with 2^19 threads).
const K1_LONG: usize = 32;
/// Smallest level-1 slice (tiny MSMs: more threads, shorter chains).
const K1_MIN: usize = 8;
/// Items per thread at levels ≥ 2 (partial sums of buckets cut by slice boundaries).
const KR: u32 = 16;
/// Bucket-reduction threads per pass (segments of buckets; their sums go to a per-window tree).
const REDUCE_THREADS: u32 = 1 << 15;
/// Blocks of `msm_g1_window_final` per folded pass: one block over 2^15 segments took 11 ms per pass at 2^24;
/// 64 give each thread 4 segments, as many as an unfolded window's 32 per thread / 7.
const FOLD_FINAL: u32 = 64;

/// The window width for an MSM of `n` points on the device.
///
/// Bucket sums are split evenly over threads whatever the bucket sizes, so the window only trades the
/// accumulation (⌈255/c⌉·n mixed additions) against the bucket reduction (⌈255/c⌉·2^c XYZZ additions) and
/// launch latency. Sweeps of c = 12..21 on the H200 put the best at 15 for 2^20, 17 for 2^22 and 19 for 2^24
/// (2^24: 166.5 ms at 19, 170.7 at 18, 173.8 at 20); 2^23 takes 18, between its neighbours; c = 19..22 at
/// 2^26 and 2^27 put it at 20 (2^27: 931 ms against 977 at 19, 999 at 21, 936 at 22; docs/PERF.md, session
/// z). Below 2^15 points the reduction of 2^c buckets dominates: 3 below 16 points, 5 below 512, 8 below 2^15.
pub fn window_for(n: usize) -> usize {
    match n {
        0..16 => 3,
        16..512 => 5,
        512..SMALL_MSM => 8,
        SMALL_MSM..MID_MSM => 15,
        MID_MSM..LARGE_MSM => 17,
        LARGE_MSM..HUGE_MSM => 18,
        HUGE_MSM..SECTOR_MSM => 19,
        _ => 20,
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
/// From this many points on the window is 20 (see [`window_for`]): a 32 GiB sector's H (2^27 − 1 points)
/// and any tail as large.
const SECTOR_MSM: usize = 1 << 26;

/// Passes the windows are split into by default for `n` points (toggle `msm2s` overlaps them:
/// `sched::msm2s`).
pub fn split_for(n: usize) -> u32 {
    if n >= OVERLAP_MIN {
        OVERLAP_SPLIT
    } else {
        1
    }
}

/// From this many points the windows are split into [`OVERLAP_SPLIT`] passes: 2^24 126.3 ms in two against
/// 129.5 in one; at 2^20 two passes are slower (14.6 against 11.5: its accumulation launches are too small to
/// split).
const OVERLAP_MIN: usize = 1 << 22;
/// Passes of the overlapped schedule (two, three and four measured at 2^24: 128.3 / 130.7 / 129.7 ms).
const OVERLAP_SPLIT: u32 = 2;

/// One MSM's shape.
#[derive(Clone, Debug)]
pub(super) struct Plan {
    /// Window width.
    pub c: u32,
    /// ⌈255/c⌉.
    pub windows: u32,
    /// Buckets per window, 2^(c−1).
    pub nb: u32,
    /// Windows per pass.
    pub gmax: u32,
    /// Buckets per reduction segment (a power of two).
    pub seg_len: u32,
    /// Segments per window, nb / seg_len.
    pub segs: u32,
    /// Level-1 entries per accumulation thread.
    pub k1: u32,
    /// Items per thread at levels ≥ 2.
    pub kr: u32,
    /// Accumulation threads per level (level 1 first) for the worst case of G·n entries in one bucket.
    pub levels: Vec<u32>,
    /// Shifted bases (`shift`): a pass's windows share one bucket set.
    pub fold: bool,
    /// The group of the points.
    pub curve: Curve,
}

impl Plan {
    /// Buckets per pass: one set shared by the pass's windows when folded, one per window otherwise.
    pub fn mb(&self) -> usize {
        if self.fold {
            self.nb as usize
        } else {
            (self.gmax * self.nb) as usize
        }
    }

    /// Blocks of the window sum per folded pass (1 unfolded); segments are a power of two, so they divide them.
    pub fn fin_blocks(&self) -> u32 {
        if self.fold {
            FOLD_FINAL.min(self.segs)
        } else {
            1
        }
    }

    /// Result slots: one per window, or folded one per window-sum block of each pass.
    pub fn slots(&self) -> usize {
        if self.fold {
            (self.windows.div_ceil(self.gmax) * self.fin_blocks()) as usize
        } else {
            self.windows as usize
        }
    }

    /// Bucket groups (windows as the reduction sees them) per pass of `gc` windows.
    pub fn groups(&self, gc: u32) -> u32 {
        if self.fold {
            1
        } else {
            gc
        }
    }

    /// The passes: (first window, windows) each.
    pub fn passes(&self) -> Vec<(u32, u32)> {
        (0..self.windows)
            .step_by(self.gmax as usize)
            .map(|w0| (w0, (self.windows - w0).min(self.gmax)))
            .collect()
    }

    /// Partial-sum slots of the accumulation levels: odd levels write buffer A (2 per level-1 thread), even
    /// levels buffer B (2 per level-2 thread); thread counts fall from level to level.
    pub fn part_slots(&self) -> (usize, usize) {
        let t = |i: usize| self.levels.get(i).map_or(0, |&t| t as usize);
        (2 * t(0), 2 * t(1))
    }
}

/// `split`: passes wanted at least (windows shared out evenly), beyond those the sort scratch budget makes;
/// `fold`: shifted bases (one bucket set per pass, so the reduction's segments are those of one window).
pub(super) fn plan(curve: Curve, n: usize, window: usize, split: u32, fold: bool) -> Plan {
    let c = window.clamp(MIN_WINDOW, MAX_WINDOW) as u32;
    let windows = 255u32.div_ceil(c);
    let nb = 1u32 << (c - 1);
    let budget = ((1usize << PASS_BUDGET_LOG2) / n.max(1)).clamp(1, windows as usize) as u32;
    let gmax = budget.min(windows.div_ceil(split.clamp(1, windows)));
    // Segments per window as without the split: a split pass reduces fewer windows, not shorter segments
    // (halving them doubled the reduction's scalar multiplications).
    let per = if fold { 1 } else { budget };
    let segs = (REDUCE_THREADS / per).max(1).next_power_of_two().min(nb);
    let entries = gmax as usize * n.max(1);
    let mut k1 = entries.div_ceil(ACCUM_THREADS).max(K1_MIN);
    if k1 >= K1_LONG {
        k1 = entries.div_ceil(ACCUM_THREADS / 2);
    }
    let k1 = k1 as u32;
    let mut levels = vec![entries.div_ceil(k1 as usize) as u32];
    while let Some(&t) = levels.last().filter(|&&t| t > 1) {
        levels.push((2 * t).div_ceil(KR));
    }
    Plan { c, windows, nb, gmax, seg_len: nb / segs, segs, k1, kr: KR, levels, fold, curve }
}

/// Buffer sets a plan uses: two when its passes overlap (pass k + 1 sorts while pass k accumulates) and both
/// fit the one-pass sort budget (2·G·n ≤ 2^28: up to 2^24 points the overlap costs no memory; beyond, the
/// budget already splits the windows and the passes run in turn).
pub(super) fn sets(p: &Plan, n: usize, overlap: bool) -> usize {
    if overlap && p.windows > p.gmax && 2 * p.gmax as usize * n <= 1 << PASS_BUDGET_LOG2 {
        2
    } else {
        1
    }
}

/// Recoded scalars 32n; per buffer set: keys, ranks, sorted 12·G·n, bucket offsets 4·(M + 1), XYZZ
/// buckets X·M (M = [`Plan::mb`], X = 192 in G1, 384 in G2); once: scan chunk sums 4·1024, partial sums
/// X·2·(T1 + T2) (threads of accumulation levels 1 and 2) and their bucket keys 4·T1, segment sums
/// 2·X·G'·segs (G' bucket groups per pass), window results J·[`Plan::slots`] (J = 144 in G1, 288 in G2).
pub(super) fn plan_bytes(p: &Plan, n: usize, sets: usize) -> usize {
    let (g, mb) = (p.gmax as usize, p.mb());
    let (pa, pb) = p.part_slots();
    let x = p.curve.xyzz_bytes();
    x * (pa + pb)
        + 4 * p.levels[0] as usize
        + 32 * n
        + sets * (12 * g * n + 4 * (mb + 1) + x * mb)
        + 4 * SCAN_T
        + 2 * x * p.groups(p.gmax) as usize * p.segs as usize
        + p.curve.jac_bytes() * p.slots()
}

/// Device bytes `msm_g1` needs beyond bases and scalars, for the memory check (exact, before allocator
/// rounding), with the default split ([`split_for`]) and overlap.
pub fn scratch_bytes(n: usize, window: usize) -> usize {
    let p = plan(Curve::G1, n.max(1), window, split_for(n), false);
    plan_bytes(&p, n, sets(&p, n, true))
}

/// Device bytes `msm_g2` needs beyond bases and scalars (one stream, so one buffer set).
pub fn scratch_bytes_g2(n: usize, window: usize) -> usize {
    let p = plan(Curve::G2, n.max(1), window, split_for(n), false);
    plan_bytes(&p, n, 1)
}

/// [`scratch_bytes`] for an MSM over shifted bases, bases not included.
pub(super) fn scratch_bytes_fold(n: usize, window: usize) -> usize {
    let p = plan(Curve::G1, n.max(1), window, split_for(n), true);
    plan_bytes(&p, n, sets(&p, n, true))
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
        assert_eq!(window_for(1 << 22), 17);
        assert_eq!(window_for(1 << 23), 18);
        assert_eq!(window_for(1 << 24), 19);
        assert_eq!(window_for((1 << 26) - 1), 19);
        assert_eq!(window_for((1 << 27) - 1), 20);
        for c in MIN_WINDOW..=MAX_WINDOW {
            for n in [1usize, 1000, 1 << 20] {
                let p = plan(Curve::G1, n, c, 1, false);
                assert_eq!(p.segs * p.seg_len, p.nb);
                assert!(p.windows * p.c >= 255);
                // Enough levels for every entry of the pass in one bucket: the last level has one thread.
                assert_eq!(*p.levels.last().unwrap_or(&0), 1, "n={n} c={c}");
                assert!(p.levels.windows(2).all(|w| w[1] < w[0]));
                assert!(p.levels[0] as usize * p.k1 as usize >= p.gmax as usize * n);
                let covered: u32 = p.passes().iter().map(|&(_, g)| g).sum();
                assert_eq!(covered, p.windows);
            }
        }
        // The split halves the windows per pass, not the reduction's segments per window; two sets overlap.
        let (one, two) = (plan(Curve::G1, 1 << 24, 19, 1, false), plan(Curve::G1, 1 << 24, 19, 2, false));
        assert_eq!((one.gmax, two.gmax, one.segs), (14, 7, two.segs));
        let n = 1 << 24;
        assert_eq!((sets(&one, n, true), sets(&two, n, true), sets(&two, n, false)), (1, 2, 1));
        assert_eq!(sets(&plan(Curve::G1, 1 << 27, 18, 2, false), 1 << 27, true), 1);
        assert_eq!(plan(Curve::G1, 1000, 8, 99, false).gmax, 1);
        assert!(plan_bytes(&two, 1 << 24, 2) < plan_bytes(&one, 1 << 24, 1) + (64 << 20));
        assert_eq!((split_for(1 << 21), split_for(1 << 22)), (1, OVERLAP_SPLIT));
        // A 2^27 MSM processes 2 windows per pass: 3 GiB of sort scratch.
        assert_eq!(plan(Curve::G1, 1 << 27, 18, 1, false).gmax, 2);
        assert!(scratch_bytes(1 << 27, 18) < 8 << 30);
        // G2's points are twice G1's: its buckets and partial sums take twice the bytes, the sort the same.
        let (g1, g2) = (plan(Curve::G1, 1 << 20, 15, 1, false), plan(Curve::G2, 1 << 20, 15, 1, false));
        assert_eq!((g1.k1, g1.levels.clone(), g1.segs), (g2.k1, g2.levels.clone(), g2.segs));
        let sort = 32 * (1 << 20)
            + 12 * g1.gmax as usize * (1 << 20)
            + 4 * (g1.mb() + 1)
            + 4 * SCAN_T
            + 4 * g1.levels[0] as usize;
        assert_eq!(plan_bytes(&g2, 1 << 20, 1) - sort, 2 * (plan_bytes(&g1, 1 << 20, 1) - sort));
    }
}
