//! Pippenger MSM in G1 on the device (`cuda/msm.cu`, whose header documents the launch sequence): signed Booth
//! window digits exactly as the CPU's (`backend::cpu::digits`), buckets filled by a counting sort per window
//! (histogram with counter atomics, exclusive scan, scatter of `index << 1 | sign`), bucket sums by an even
//! split of the sorted entries over threads (mixed XYZZ additions; buckets cut by a slice boundary are
//! finished by further levels of the same walk, so no input shape makes one long chain), per-window bucket
//! reduction by segmented running sums and a shared-memory tree, and the window combination (Horner,
//! ⌈255/c⌉ windows) on the host with blstrs. [`plan`] sizes it; [`stages::Stages`] launches one stage at a time;
//! `sched::msm2s` orders the stages of the passes over one or two streams (toggle `msm2s`). Over precomputed
//! shifted bases ([`shift`], toggle `shift`) the same sequence runs "folded": a pass's windows share one
//! bucket set. `cuda/hostcheck/hostcheck.cpp` emulates the whole sequence on the host.

pub mod plan;
pub mod shift;
pub(crate) mod stages;

use blstrs::G1Projective;
use cudarc::driver::{CudaSlice, CudaView};
use group::Group;

use super::super::sched::msm2s;
use super::super::{g1_from_jacobian, GResult, Gpu, GpuError};
use plan::{plan, plan_bytes, sets};
use stages::Stages;

pub use plan::{scratch_bytes, split_for, window_for, MAX_PASSES, MAX_WINDOW, MIN_WINDOW};

/// How an MSM's windows are scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Passes the windows are split into at least (`None`: [`split_for`]).
    pub passes: Option<u32>,
    /// `msm2s`: pass k + 1's sort and pass k's reduction on a second stream under pass k's accumulation.
    pub overlap: bool,
}

impl Schedule {
    /// The default split, overlapped or not.
    pub fn overlap(overlap: bool) -> Schedule {
        Schedule { passes: None, overlap }
    }
}

/// Σ sᵢ·Pᵢ over the first `n` bases/scalars already on the device (bases: 12n u64 affine, blst layout, the
/// identity all-zero; scalars: 4n u64 Montgomery). `window`: `None` picks [`window_for`]`(n)`, `Some(c)` forces
/// width c (clamped to [[`MIN_WINDOW`], [`MAX_WINDOW`]]). `overlap` (toggle `msm2s`): from 2^22 points the
/// windows go in two passes, overlapped on two streams ([`split_for`]). Waits for the windows.
pub fn msm_g1(
    gpu: &Gpu,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    window: Option<usize>,
    overlap: bool,
) -> GResult<G1Projective> {
    msm_g1_scheduled(gpu, bases, scalars, n, window, Schedule::overlap(overlap))
}

/// [`msm_g1`] with its schedule given (tests cover every split at small sizes; `cuzk bench msm --passes`).
pub fn msm_g1_scheduled(
    gpu: &Gpu,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    window: Option<usize>,
    sched: Schedule,
) -> GResult<G1Projective> {
    let c = window.unwrap_or_else(|| window_for(n));
    launch(gpu, bases, scalars, n, c, sched, None)?.collect(gpu)
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
    let c = window.unwrap_or_else(|| window_for(n));
    launch(gpu, bases, scalars, n, c, Schedule::overlap(overlap), None)
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

/// The launch sequence for window width `c`; `fold = Some(S)`: `bases` are [`shift`]'s ⌈255/c⌉ shifted
/// copies of S ≥ n bases (2^(c·j)·P_i at j·S + i).
pub(super) fn launch(
    gpu: &Gpu,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    c: usize,
    sched: Schedule,
    fold: Option<usize>,
) -> GResult<Pending> {
    if n == 0 {
        return Ok(Pending { wins: None, windows: 0, c, slots: 0, fold: false });
    }
    let split = sched.passes.unwrap_or_else(|| split_for(n)).clamp(1, MAX_PASSES);
    let p = plan(n, c, split, fold.is_some());
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
    let nsets = sets(&p, n, sched.overlap);
    let need = plan_bytes(&p, n, nsets);
    let checked = if fold.is_some() { plan::scratch_bytes_fold(n, c) } else { plan::scratch_bytes(n, c) };
    if need > checked {
        // The callers checked memory for scratch_bytes (window_for(n), split_for(n)); a forced shape may need
        // more.
        gpu.check_mem("msm_g1 (forced window or passes)", need)?;
    }
    let mut st = Stages::new(gpu, &p, n, stride, fold.is_some(), nsets)?;
    msm2s::run(gpu, &mut st, bases, scalars)?;
    Ok(Pending {
        wins: Some(st.into_wins()),
        windows: p.windows as usize,
        c: p.c as usize,
        slots: p.slots(),
        fold: p.fold,
    })
}
