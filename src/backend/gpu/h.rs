//! One circuit's `ntt_msm_h` on a lane: a/b/c uploaded (`mem::upload` picks how) and through compute_h (span
//! `ntt_h`, from the first upload to the combination), then msm_h over the H bases (span `msm_h`; over their
//! shifted copies with `shift`). `sched::hpipe` runs the same two steps for several circuits, staging the next
//! one under this one's msm_h.

use std::sync::Arc;

use blstrs::G1Projective;
use cudarc::driver::CudaSlice;

use super::error::GResult;
use super::kernels::{msm, ntt};
use super::lane_core::{lock, Counters, LaneCore};
use super::mem::upload::{self, Upload};
use super::streams::StageOn;
use crate::backend::api::{Bases, CallOpts};
use crate::cs::Evals;
use crate::vocab::{Phase, Probe, Site};

/// The domain of one circuit's a/b/c: the next power of two of the longest.
pub(super) fn domain(abc: &[Evals; 3]) -> usize {
    abc.iter().map(|e| e.len()).max().unwrap_or(0).max(1).next_power_of_two()
}

/// Device scratch of one circuit's compute_h and msm_h beside its a/b/c (the memory checks' other term).
pub(super) fn h_scratch(n: usize, m: usize) -> usize {
    ntt::scratch_bytes(n.trailing_zeros()) + msm::scratch_bytes(m.max(1), msm::window_for(m.max(1)))
}

/// H of circuit `circuit` on the lane's own streams, then its MSM over the first `min(n, |h|)` H bases.
pub(super) fn one(
    core: &LaneCore,
    probe: &Probe,
    circuit: usize,
    abc: [Evals; 3],
    h: Bases<'_>,
) -> GResult<G1Projective> {
    let gpu = &*core.gpu;
    let n = domain(&abc);
    let m = n.min(h.host.len());
    let opts = core.opts();
    let mut held = lock(&core.abc);
    if !opts.h_pipeline {
        // The second set is `hpipe`'s: a call without it holds one.
        held.trim(1);
    }
    gpu.check_mem("ntt_msm_h (a, b, c and scratch)", held.extra_bytes(n, 1) + h_scratch(n, m))?;
    let mut bufs = held.take(gpu, n)?;
    let on = gpu.streams()?.stage_on(&gpu.stream, opts.abc_streams);
    // Buffers `take` just allocated are stream-ordered on the lane's stream.
    if !Arc::ptr_eq(on.up, &gpu.stream) {
        on.up.join(&gpu.stream)?;
    }
    stage(core, probe, circuit, abc, &mut bufs, n, on, &opts)?;
    let r = msm_h(core, probe, circuit, &bufs, h, m);
    held.keep(bufs);
    r
}

/// One circuit's a/b/c into `bufs` (zero-padded to `n`), then compute_h on `on`'s streams (span `ntt_h`, from
/// the first upload to the combination, with the upload's way as its `upload` arg): H's coefficients end in
/// `bufs[0]`.
#[allow(clippy::too_many_arguments)] // one circuit's whole staging; a struct would only rename them
pub(super) fn stage(
    core: &LaneCore,
    probe: &Probe,
    circuit: usize,
    abc: [Evals; 3],
    bufs: &mut [CudaSlice<u64>; 3],
    n: usize,
    on: StageOn<'_>,
    opts: &CallOpts,
) -> GResult<()> {
    let how = Upload::choose(&abc, opts);
    let site = Site::new(Phase::NttH).circuit(circuit).arg("n", n).arg("upload", how.name());
    let span = core.open_on(probe, site, on.up, on.h.a);
    upload::run(how, &core.upload_ctx(), probe, circuit, on.up, bufs, abc, n)?;
    let [da, db, dc] = bufs;
    ntt::compute_h(&core.gpu, on.h, da, db, dc, n.trailing_zeros())?;
    drop(span);
    Ok(())
}

/// msm_h of one circuit: Σ hᵢ·Hᵢ over the first `m` coefficients in `bufs[0]`, on the lane's streams (span
/// `msm_h`; shifted bases with `shift`, from the lane's `shift_min` points, `srs_resident` on). The bases' lock
/// is held while the launches are queued, not while they run, so `tailseq` can queue the tails beside.
pub(super) fn msm_h(
    core: &LaneCore,
    probe: &Probe,
    circuit: usize,
    bufs: &[CudaSlice<u64>; 3],
    h: Bases<'_>,
    m: usize,
) -> GResult<G1Projective> {
    let gpu = &*core.gpu;
    let opts = core.opts();
    let scalars = bufs[0].slice(0..4 * m);
    core.gate.wait_bases(h.id);
    let mut srs = lock(&core.srs);
    let want_shift = opts.msm_shift
        && opts.srs_resident
        && m > 0
        && m >= core.shift_min.load(std::sync::atomic::Ordering::Relaxed);
    if want_shift {
        let (sb, built) = srs.shifted(gpu, probe, &h, m)?;
        if let Some(sb) = sb {
            if built {
                Counters::bump(&core.counters.shift_builds);
            }
            let site = Site::new(Phase::MsmH).circuit(circuit).arg("n", m).arg("shifted", true);
            let _span = core.open(probe, site);
            Counters::bump(&core.counters.shift_runs);
            let pending = msm::shift::msm_g1_shifted_launch(gpu, sb, &scalars, m, opts.msm_overlap)?;
            drop(srs);
            return pending.collect(gpu);
        }
    }
    let _span = core.open(probe, Site::new(Phase::MsmH).circuit(circuit).arg("n", m).arg("shifted", false));
    if m == 0 {
        return Ok(<G1Projective as group::Group>::identity());
    }
    let mut tmp = None;
    let view = srs.view(gpu, &mut tmp, h.prefix(m))?;
    let pending = msm::msm_g1_launch(gpu, &gpu.stream, &view, &scalars, m, None, opts.msm_overlap)?;
    drop(srs);
    // A copy made for this MSM alone is freed in stream order, after the launches that read it.
    drop(tmp);
    pending.collect(gpu)
}
