//! `tailseq`: a lane's `batch_add` and `tail_msm` groups of all its circuits as one launch sequence. Every
//! bitmap and scalar vector goes up first (pageable copies, queued before any kernel, so none waits for one),
//! then every group's batch additions and MSMs are queued on the lane's stream with no wait between them (the
//! MSMs' scratch goes back to the stream-ordered pool as each is queued, and the next reuses it), the small
//! MSMs run on the host meanwhile, and the lane waits once, when it reads the first result back. Each group's
//! span is bracketed by events recorded as it is queued and closed after the wait.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use blstrs::G1Projective;
use cudarc::driver::{CudaSlice, CudaView};

use super::batch_add::{batch_add_g1_launch, g1_sum, upload_bits};
use super::device::Gpu;
use super::error::{GResult, GpuError};
use super::limbs;
use super::msm::{self, Pending};
use super::timing::{ClockSlot, GpuTimer};
use crate::backend::api::{Backend, G1Group, G1Op};
use crate::vocab::{Probe, Site};

/// Sequences run so far in this process (tests: the path did run).
static SEQUENCES: AtomicUsize = AtomicUsize::new(0);

/// How many `tailseq` sequences this process has run to the end.
pub fn sequences() -> usize {
    SEQUENCES.load(Ordering::Relaxed)
}

/// Whether `op` runs on the device: a batch addition with a bit set, an MSM of at least `msm_min` points
/// (the lane's `GPU_MSM_MIN`; fewer run on the host).
pub(super) fn on_device(op: &G1Op<'_>, msm_min: usize) -> bool {
    match *op {
        G1Op::Ones(b, bits) => b.host.len().min(64 * bits.len()) > 0 && bits.iter().any(|&w| w != 0),
        G1Op::Msm(b, s, _) => b.host.len().min(s.len()) >= msm_min,
    }
}

/// The bases an op reads, cut to the points it uses.
pub(super) fn op_bases<'a>(op: &G1Op<'a>) -> crate::backend::api::Bases<'a> {
    match *op {
        G1Op::Ones(b, bits) => b.prefix(64 * bits.len()),
        G1Op::Msm(b, s, _) => b.prefix(s.len()),
    }
}

/// Device bytes the sequence needs beside the bases: every device MSM's scalars and every bitmap held at
/// once, the largest MSM's scratch (freed in stream order and reused by the next), and the sums.
pub(super) fn need_bytes(groups: &[G1Group<'_>], msm_min: usize) -> usize {
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

/// What the device path needs of the lane: its device, its span clock, the host backend for small MSMs.
pub(super) struct Lane<'l> {
    /// The lane's device.
    pub gpu: &'l Arc<Gpu>,
    /// The lane's span clock.
    pub clock: &'l Arc<Mutex<ClockSlot>>,
    /// Where the ops without a device view run (small MSMs, empty bitmaps).
    pub host: &'l dyn Backend,
    /// `msm2s`.
    pub overlap: bool,
    /// The lane's device index (the spans' `device`).
    pub ordinal: u64,
}

/// Runs `groups` as one sequence; `views[k]` is the device copy of op k's bases (ops in group order, `None`
/// for ops that run on the host). Stops queueing at a cancel (fewer groups back).
pub(super) fn run(
    lane: &Lane<'_>,
    probe: &Probe,
    groups: Vec<G1Group<'_>>,
    views: &[Option<CudaView<'_, u64>>],
) -> GResult<Vec<Vec<G1Projective>>> {
    let gpu = &**lane.gpu;
    let s = &gpu.stream;
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
    // Per group: its site when its span is still to be closed (device groups), and its timer.
    let mut timers: Vec<(Option<Site>, Option<GpuTimer>)> = Vec::with_capacity(groups.len());
    let mut k = 0;
    for g in &groups {
        if probe.checkpoint().is_err() {
            break;
        }
        let on_dev = views[k..k + g.ops.len()].iter().any(Option::is_some);
        // A group with nothing on the device (small tails) is timed on the host as it runs; one with device
        // work by events, its span closed after the wait.
        let host_span = (!on_dev).then(|| probe.open(g.site.clone().device(lane.ordinal)));
        let mut timer = if probe.recording() && on_dev {
            GpuTimer::start_on(lane.gpu, lane.clock, s, s).ok()
        } else {
            None
        };
        for op in &g.ops {
            let q = match (*op, &views[k], &inputs[k]) {
                (G1Op::Ones(_, _), Some(v), Some(bits)) => {
                    Queued::Ones(batch_add_g1_launch(gpu, v, v.len() / 12, bits)?)
                }
                (G1Op::Msm(b, sc, w), Some(v), Some(ds)) => {
                    let n = b.host.len().min(sc.len());
                    Queued::Msm(msm::msm_g1_launch(gpu, v, &ds.slice(..), n, w, lane.overlap)?)
                }
                // The host's share runs while the device works through what is queued.
                (G1Op::Ones(b, bits), ..) => Queued::Done(host(lane.host.batch_add_g1(b, bits))?),
                (G1Op::Msm(b, sc, w), ..) => Queued::Done(host(lane.host.msm_g1(b, sc, w))?),
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
    let mut sums = queued.into_iter().map(|q| match q {
        Queued::Ones(out) => g1_sum(gpu, &out),
        Queued::Msm(p) => p.collect(gpu),
        Queued::Done(x) => Ok(x),
    });
    let mut out = Vec::with_capacity(timers.len());
    for ((site, timer), g) in timers.into_iter().zip(&groups) {
        let r = (&mut sums).take(g.ops.len()).collect::<GResult<Vec<_>>>()?;
        if let Some(site) = site.map(|s| s.device(lane.ordinal)) {
            drop(match timer {
                Some(t) => probe.open_timed(site, Box::new(t)),
                None => probe.open(site),
            });
        }
        out.push(r);
    }
    SEQUENCES.fetch_add(1, Ordering::Relaxed);
    Ok(out)
}

/// A host backend's result as the device path's error type.
fn host<T>(r: crate::backend::api::BResult<T>) -> GResult<T> {
    r.map_err(|e| GpuError::Invalid(e.to_string()))
}
