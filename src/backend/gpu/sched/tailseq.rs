//! `tailseq`: a lane's `batch_add` and `tail_msm` groups of all its circuits as one launch sequence. Every
//! bitmap and scalar vector goes up first (pageable copies, queued before any kernel, so none waits for one),
//! then every group's batch additions and MSMs are queued with no wait between them (the MSMs' scratch goes
//! back to the stream-ordered pool as each is queued, and the next reuses it), the small MSMs run on the host
//! meanwhile, and the lane waits once, when it reads the first result back. All of it runs on the lane's tails
//! stream (`LaneStreams::tails`), so a call's tails run beside its msm_h once `prep_msm` is done. Each
//! group's span is bracketed by events recorded as it is queued and closed after the wait. `g1_groups` is
//! the lane's entry (every group's bases made resident first), `queue` and `collect` the sequence.

use std::sync::Arc;

use blstrs::G1Projective;
use cudarc::driver::{CudaSlice, CudaStream, CudaView};

use super::super::error::{GResult, GpuError};
use super::super::kernels::batch_add::{batch_add_g1_launch, g1_sum, upload_bits};
use super::super::kernels::msm::{self, Pending};
use super::super::lane_core::{lock, Counters, LaneCore};
use super::super::limbs;
use super::super::timing::GpuTimer;
use crate::backend::api::{Backend, G1Group, G1Op};
use crate::vocab::{Probe, Site};

/// `tailseq`: the groups as one launch sequence on the lane's tails stream; the groups come back (`Err`) when
/// every input and one MSM's scratch do not fit at once (the caller runs them one by one). MSMs of fewer than
/// `msm_min` points run on the host. While the lane's H is still to allocate its scratch and the device has
/// not room for both, the sequence waits for H to finish first.
#[allow(clippy::type_complexity)] // the results, or the inputs handed back
pub(in super::super) fn g1_groups<'g>(
    core: &LaneCore,
    probe: &Probe,
    groups: Vec<G1Group<'g>>,
    msm_min: usize,
) -> GResult<Result<Vec<Vec<G1Projective>>, Vec<G1Group<'g>>>> {
    let gpu = &*core.gpu;
    let need = need_bytes(&groups, msm_min);
    const WHAT: &str = "tailseq (every tail's inputs and one MSM's scratch)";
    let reserve = core.h_reserved();
    if reserve > 0 && gpu.check_mem(WHAT, need + reserve).is_err() {
        core.wait_h_idle();
    }
    if let Err(e) = gpu.check_mem(WHAT, need) {
        tracing::warn!("GPU{}: {e}; tailseq off for this call, one tail after another", gpu.ordinal);
        return Ok(Err(groups));
    }
    let overlap = core.opts().msm_overlap;
    let ts = &gpu.streams()?.tails;
    let ops: Vec<G1Op> = groups.iter().flat_map(|g| g.ops.iter().copied()).collect();
    let dev = |op: &G1Op| on_device(op, msm_min);
    for op in ops.iter().filter(|op| dev(op)) {
        core.gate.wait_bases(op_bases(op).id);
    }
    // The bases' lock only while the sequence is queued: the lane's msm_h takes it to queue its own.
    let mut srs = lock(&core.srs);
    let mut tmps = Vec::with_capacity(ops.len());
    for op in &ops {
        tmps.push(if dev(op) { srs.prepare_on(gpu, ts, op_bases(op))? } else { None });
    }
    let views = ops
        .iter()
        .zip(&tmps)
        .map(|(op, t)| dev(op).then(|| srs.on(t.as_ref(), op_bases(op))).transpose())
        .collect::<GResult<Vec<_>>>()?;
    let queued = queue(core, ts, probe, &groups, &views, overlap)?;
    drop(views);
    drop(srs);
    let out = collect(core, ts, probe, &groups, queued)?;
    drop(tmps);
    Counters::bump(&core.counters.tailseq_runs);
    Ok(Ok(out))
}

/// Whether `op` runs on the device: a batch addition with a bit set, an MSM of at least `msm_min` points
/// (fewer run on the host).
fn on_device(op: &G1Op<'_>, msm_min: usize) -> bool {
    match *op {
        G1Op::Ones(b, bits) => b.host.len().min(64 * bits.len()) > 0 && bits.iter().any(|&w| w != 0),
        G1Op::Msm(b, s, _) => b.host.len().min(s.len()) >= msm_min,
    }
}

/// The bases an op reads, cut to the points it uses.
fn op_bases<'a>(op: &G1Op<'a>) -> crate::backend::api::Bases<'a> {
    match *op {
        G1Op::Ones(b, bits) => b.prefix(64 * bits.len()),
        G1Op::Msm(b, s, _) => b.prefix(s.len()),
    }
}

/// Device bytes the sequence needs beside the bases: every device MSM's scalars and every bitmap held at
/// once, the largest MSM's scratch (freed in stream order and reused by the next), and the sums.
fn need_bytes(groups: &[G1Group<'_>], msm_min: usize) -> usize {
    let (mut held, mut scratch) = (0usize, 0usize);
    for op in groups.iter().flat_map(|g| &g.ops).filter(|op| on_device(op, msm_min)) {
        match *op {
            G1Op::Ones(..) => {
                let n = op_bases(op).host.len();
                held += 8 * n.div_ceil(64) + 8 * 64;
                // The batch addition's partial sums: 24 limbs per 64 bases, twice.
                scratch = scratch.max(2 * 8 * 24 * n.div_ceil(64));
            }
            G1Op::Msm(b, s, w) => {
                let n = b.host.len().min(s.len());
                held += 32 * n + 8 * 18 * 64;
                scratch = scratch.max(msm::scratch_bytes(n, w.unwrap_or_else(|| msm::window_for(n))));
            }
        }
    }
    held + scratch
}

/// A queued op: its sum on the device, or already on the host.
enum Queued {
    Ones(CudaSlice<u64>),
    Msm(Pending),
    Done(G1Projective),
}

/// The queued sequence: every op, each group's site (device groups, whose span closes after the wait) and
/// timer, and the inputs on the device (held until the wait).
struct Sequence {
    ops: Vec<Queued>,
    timers: Vec<(Option<Site>, Option<GpuTimer>)>,
    _inputs: Vec<Option<CudaSlice<u64>>>,
}

/// Queues `groups` on stream `s`; `views[k]` is the device copy of op k's bases (ops in group order, `None`
/// for ops that run on the host). Stops queueing at a cancel (fewer groups back).
fn queue(
    lane: &LaneCore,
    s: &Arc<CudaStream>,
    probe: &Probe,
    groups: &[G1Group<'_>],
    views: &[Option<CudaView<'_, u64>>],
    overlap: bool,
) -> GResult<Sequence> {
    let gpu = &*lane.gpu;
    let ops: Vec<&G1Op> = groups.iter().flat_map(|g| &g.ops).collect();
    if views.len() != ops.len() {
        return Err(GpuError::Invalid(format!("tailseq: {} ops but {} base views", ops.len(), views.len())));
    }
    // Inputs first: a pageable copy queued behind kernels would wait for them.
    let mut inputs: Vec<Option<CudaSlice<u64>>> = Vec::with_capacity(ops.len());
    for (op, v) in ops.iter().zip(views) {
        inputs.push(match (v, **op) {
            (None, _) => None,
            (Some(v), G1Op::Ones(_, bits)) => Some(upload_bits(s, v.len() / 12, bits)?),
            (Some(_), G1Op::Msm(b, sc, _)) => Some(s.clone_htod(limbs(&sc[..b.host.len().min(sc.len())]))?),
        });
    }
    let mut queued: Vec<Queued> = Vec::with_capacity(ops.len());
    let mut timers: Vec<(Option<Site>, Option<GpuTimer>)> = Vec::with_capacity(groups.len());
    let mut k = 0;
    for g in groups {
        if probe.checkpoint().is_err() {
            break;
        }
        let on_dev = views[k..k + g.ops.len()].iter().any(Option::is_some);
        // A group with nothing on the device (small tails) is timed on the host as it runs; one with device
        // work by events, its span closed after the wait.
        let host_span = (!on_dev).then(|| probe.open(g.site.clone().device(lane.ordinal())));
        let mut timer = if probe.recording() && on_dev {
            GpuTimer::start_on(&lane.gpu, &lane.clock, s, s).ok()
        } else {
            None
        };
        for op in &g.ops {
            let q = match (*op, &views[k], &inputs[k]) {
                (G1Op::Ones(_, _), Some(v), Some(bits)) => {
                    Queued::Ones(batch_add_g1_launch(gpu, s, v, v.len() / 12, bits)?)
                }
                (G1Op::Msm(b, sc, w), Some(v), Some(ds)) => {
                    let n = b.host.len().min(sc.len());
                    Queued::Msm(msm::msm_g1_launch(gpu, s, v, &ds.slice(..), n, w, overlap)?)
                }
                // The host's share runs while the device works through what is queued.
                (G1Op::Ones(b, bits), ..) => Queued::Done(host(lane.cpu.batch_add_g1(b, bits))?),
                (G1Op::Msm(b, sc, w), ..) => Queued::Done(host(lane.cpu.msm_g1(b, sc, w))?),
            };
            queued.push(q);
            k += 1;
        }
        if let Some(t) = &mut timer {
            t.end_now()?;
        }
        drop(host_span);
        timers.push((on_dev.then(|| g.site.clone()), timer));
    }
    Ok(Sequence { ops: queued, timers, _inputs: inputs })
}

/// Waits for the queued sequence on stream `s` and reads every group's sums back, closing the device
/// groups' spans.
fn collect(
    lane: &LaneCore,
    s: &Arc<CudaStream>,
    probe: &Probe,
    groups: &[G1Group<'_>],
    seq: Sequence,
) -> GResult<Vec<Vec<G1Projective>>> {
    let gpu = &*lane.gpu;
    let Sequence { ops, timers, _inputs } = seq;
    let mut sums = ops.into_iter().map(|q| match q {
        Queued::Ones(out) => g1_sum(s, &out),
        Queued::Msm(p) => p.collect(gpu),
        Queued::Done(x) => Ok(x),
    });
    let mut out = Vec::with_capacity(timers.len());
    for ((site, timer), g) in timers.into_iter().zip(groups) {
        let r = (&mut sums).take(g.ops.len()).collect::<GResult<Vec<_>>>()?;
        if let Some(site) = site.map(|s| s.device(lane.ordinal())) {
            drop(match timer {
                Some(t) => probe.open_timed(site, Box::new(t)),
                None => probe.open(site),
            });
        }
        out.push(r);
    }
    Ok(out)
}

/// A host backend's result as the device path's error type.
fn host<T>(r: crate::backend::api::BResult<T>) -> GResult<T> {
    r.map_err(|e| GpuError::Invalid(e.to_string()))
}
