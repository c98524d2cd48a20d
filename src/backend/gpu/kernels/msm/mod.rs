//! Pippenger MSM in G1 and G2 on the device (`cuda/msm.cu`, whose header documents the launch sequence; G2's
//! steps 5–7 in `cuda/msm_g2.cu`, templated with G1's in `cuda/msm_accum.cuh`): signed Booth
//! window digits exactly as the CPU's (`backend::cpu::digits`), buckets filled by a counting sort per window
//! (histogram with counter atomics, exclusive scan, scatter of `index << 1 | sign`), bucket sums by an even
//! split of the sorted entries over threads (mixed XYZZ additions; buckets cut by a slice boundary are
//! finished by further levels of the same walk, so no input shape makes one long chain), per-window bucket
//! reduction by segmented running sums and a shared-memory tree, and the window combination (Horner,
//! ⌈255/c⌉ windows) on the host with blstrs. [`plan`] sizes it; `stages::Stages` launches one stage at a
//! time; `sched::msm2s` orders the stages of the passes over one or two streams (toggle `msm2s`). Over
//! precomputed shifted bases ([`shift`], toggle `shift`) the same sequence runs "folded": a pass's windows
//! share one bucket set. G2 ([`msm_g2_on`], `g2d`'s B_G2 MSM) runs the same sequence on a stream it is
//! given, in one buffer set. `cuda/hostcheck/hostcheck.cpp` emulates the whole sequence on the host.

pub mod plan;
pub mod shift;
pub(crate) mod stages;

use std::sync::Arc;

use blstrs::{G1Projective, G2Projective};
use cudarc::driver::{CudaSlice, CudaStream, CudaView, PushKernelArg};
use group::Group;

use super::super::sched::msm2s;
use super::super::{g1_from_jacobian, g2_from_jacobian, read_back, GResult, Gpu, GpuError};
use plan::{plan, plan_bytes, sets};
use stages::Stages;

pub use plan::{
    scratch_bytes, scratch_bytes_g2, split_for, window_for, Curve, MAX_PASSES, MAX_WINDOW, MIN_WINDOW,
};

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
    launch(gpu, &gpu.stream, Curve::G1, bases, scalars, n, c, sched, None)?.collect(gpu)
}

/// Σ sᵢ·Pᵢ in G2 over the first `n` bases/scalars already on the device (bases: 24n u64 affine, blst_p2_affine's
/// layout, the identity all-zero; scalars: 4n u64 Montgomery), every launch and allocation on stream `s` (`g2d`:
/// the lane's second stream, so it runs beside the lane's G1 work). `window` as in [`msm_g1`]; `passes`:
/// `None` for [`split_for`]. One buffer set: the passes run in turn. Waits for the windows.
pub fn msm_g2_on(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    window: Option<usize>,
    passes: Option<u32>,
) -> GResult<G2Projective> {
    let c = window.unwrap_or_else(|| window_for(n));
    let sched = Schedule { passes, overlap: false };
    launch(gpu, s, Curve::G2, bases, scalars, n, c, sched, None)?.collect_g2()
}

/// `out[i] = bases[idx[i]]` for G2 affine points on stream `s` (`g2d`: the B_G2 query entries an MSM takes,
/// from the resident query). `idx` must hold n < 2^31 positions, each below the number of bases (checked on
/// the host by the caller, which has them).
pub fn gather_g2_on(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    bases: &CudaView<u64>,
    idx: &CudaSlice<u32>,
    n: usize,
) -> GResult<CudaSlice<u64>> {
    const L: usize = 24;
    if idx.len() < n || n >= 1 << 31 {
        return Err(GpuError::Invalid(format!("gather_g2: {n} positions, {} on the device", idx.len())));
    }
    // SAFETY: msm_g2_gather writes all n points before anything reads them.
    let mut out = unsafe { s.alloc::<u64>((L * n).max(1)) }?;
    if n > 0 {
        let k = gpu.kernel(super::Module::MsmG2, "msm_g2_gather")?;
        let n32 = n as u32;
        let mut b = s.launch_builder(&k);
        b.arg(bases).arg(idx).arg(&n32).arg(&mut out);
        let cfg = cudarc::driver::LaunchConfig::for_num_elems(n32);
        // SAFETY: arguments match msm_g2_gather(const g2_affine_t*, const u32*, u32, g2_affine_t*) in
        // cuda/msm_g2.cu; `out` holds n points, `idx` n positions below the bases' count (the caller's check).
        unsafe { b.launch(cfg) }?;
    }
    Ok(out)
}

/// [`msm_g1`]'s launches on stream `s` without waiting: the windows' sums stay on the device until
/// [`Pending::collect`], so a lane can queue every tail MSM of a call back to back (toggle `tailseq`), or
/// let go of its bases' lock while msm_h runs. The scratch goes back to the stream-ordered pool as the
/// launches are queued; the next MSM's reuses it.
pub fn msm_g1_launch(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    window: Option<usize>,
    overlap: bool,
) -> GResult<Pending> {
    let c = window.unwrap_or_else(|| window_for(n));
    launch(gpu, s, Curve::G1, bases, scalars, n, c, Schedule::overlap(overlap), None)
}

/// An MSM whose launches are queued on a stream: its window sums on the device.
pub struct Pending {
    /// The window (or folded slot) sums, Jacobian; `None` for an empty MSM.
    wins: Option<CudaSlice<u64>>,
    /// The stream the launches went on.
    stream: Arc<CudaStream>,
    /// u64 limbs of one Jacobian sum.
    jac: usize,
    windows: usize,
    c: usize,
    slots: usize,
    fold: bool,
}

impl Pending {
    /// Waits for the sums and combines them on the host (a G1 MSM).
    pub fn collect(self, _gpu: &Gpu) -> GResult<G1Projective> {
        self.combine(|l| l.try_into().ok().map(g1_from_jacobian))
    }

    /// As [`Pending::collect`] for a G2 MSM ([`msm_g2_on`]).
    pub fn collect_g2(self) -> GResult<G2Projective> {
        self.combine(|l| l.try_into().ok().map(g2_from_jacobian))
    }

    /// Reads the sums back (`dec` turns one Jacobian's limbs into a point) and adds them: Horner over the
    /// windows, or folded the slots as they are.
    fn combine<P: Group>(self, dec: impl Fn(&[u64]) -> Option<P>) -> GResult<P> {
        let Some(wins) = self.wins else { return Ok(P::identity()) };
        let host = read_back(&self.stream, &wins)?;
        let limbs = self.jac;
        let window = |w: usize| -> GResult<P> {
            host.get(limbs * w..limbs * w + limbs)
                .and_then(&dec)
                .ok_or_else(|| GpuError::Invalid(format!("msm: window {w} of {} result limbs", host.len())))
        };
        let mut acc = P::identity();
        if self.fold {
            // Each slot already carries its windows' weights 2^(c·j) in the bases.
            for k in 0..self.slots {
                acc += window(k)?;
            }
        } else {
            for w in (0..self.windows).rev() {
                for _ in 0..self.c {
                    acc = acc.double();
                }
                acc += window(w)?;
            }
        }
        Ok(acc)
    }
}

/// The launch sequence for window width `c` in `curve`, `s` its main stream; `fold = Some(S)` (G1 only):
/// `bases` are [`shift`]'s ⌈255/c⌉ shifted copies of S ≥ n bases (2^(c·j)·P_i at j·S + i).
#[allow(clippy::too_many_arguments)] // the MSM's inputs, its group, stream and shape: one launch sequence
pub(super) fn launch(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    curve: Curve,
    bases: &CudaView<u64>,
    scalars: &CudaView<u64>,
    n: usize,
    c: usize,
    sched: Schedule,
    fold: Option<usize>,
) -> GResult<Pending> {
    let name = curve.prefix();
    if n == 0 {
        return Ok(Pending { wins: None, stream: s.clone(), jac: 0, windows: 0, c, slots: 0, fold: false });
    }
    if fold.is_some() && curve != Curve::G1 {
        return Err(GpuError::Invalid(format!("{name}: shifted bases are G1's only")));
    }
    let split = sched.passes.unwrap_or_else(|| split_for(n)).clamp(1, MAX_PASSES);
    let p = plan(curve, n, c, split, fold.is_some());
    let (stride, copies) = match fold {
        Some(s) => (s, p.windows as usize),
        None => (n, 1),
    };
    let al = curve.affine_limbs();
    if stride < n || bases.len() < al * stride * copies || scalars.len() < 4 * n {
        return Err(GpuError::Invalid(format!(
            "{name}: {n} points need {} base and {} scalar limbs, got {} and {}",
            al * n.max(stride) * copies,
            4 * n,
            bases.len(),
            scalars.len()
        )));
    }
    if stride * copies >= 1 << 31 {
        return Err(GpuError::Invalid(format!("{name}: {} bases (at most 2^31 − 1)", stride * copies)));
    }
    let nsets = if curve == Curve::G1 { sets(&p, n, sched.overlap) } else { 1 };
    let need = plan_bytes(&p, n, nsets);
    let checked = match (curve, fold) {
        (Curve::G2, _) => plan::scratch_bytes_g2(n, c),
        (Curve::G1, Some(_)) => plan::scratch_bytes_fold(n, c),
        (Curve::G1, None) => plan::scratch_bytes(n, c),
    };
    if need > checked {
        // The callers checked memory for scratch_bytes (window_for(n), split_for(n)); a forced shape may need
        // more.
        gpu.check_mem(&format!("{name} (forced window or passes)"), need)?;
    }
    let mut st = Stages::new(gpu, s, &p, n, stride, fold.is_some(), nsets)?;
    msm2s::run(gpu, s, &mut st, bases, scalars)?;
    Ok(Pending {
        wins: Some(st.into_wins()),
        stream: s.clone(),
        jac: curve.jac_limbs(),
        windows: p.windows as usize,
        c: p.c as usize,
        slots: p.slots(),
        fold: p.fold,
    })
}
