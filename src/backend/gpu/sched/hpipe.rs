//! `hpipe`: a lane's circuits through `ntt_msm_h` two at a time. A staging thread uploads circuit k + 1's
//! a/b/c and runs its compute_h on streams of its own (`Gpu::stage`) while the lane's thread runs circuit k's
//! msm_h on the lane's streams, so the copies and the transforms fill the MSM's gaps instead of waiting for
//! its result. Each circuit holds one of the lane's a/b/c buffer sets from its upload to the end of its
//! msm_h; with two sets the staging thread runs at most one circuit ahead. `ntt_msm_h` is the lane's entry;
//! [`run`] the two-thread pipeline it drives.

use std::sync::mpsc;

use blstrs::G1Projective;
use cudarc::driver::CudaSlice;

use super::super::error::{GResult, GpuError};
use super::super::h::{domain, h_scratch, msm_h, stage};
use super::super::lane_core::{lock, Counters, LaneCore};
use crate::backend::api::Bases;
use crate::cs::Evals;
use crate::vocab::{Phase, Probe, Site, Span};

/// The lane's circuits with circuit k + 1 uploaded and transformed on the staging streams while circuit k's
/// msm_h runs on the lane's; two a/b/c buffer sets. The circuits come back (`Err`) when the second set does
/// not fit beside the scratch: the caller runs them one after another.
#[allow(clippy::type_complexity)] // the results, or the inputs handed back
pub(in super::super) fn ntt_msm_h(
    core: &LaneCore,
    probe: &Probe,
    first: usize,
    abcs: Vec<[Evals; 3]>,
    h: Bases<'_>,
) -> GResult<Result<Vec<G1Projective>, Vec<[Evals; 3]>>> {
    let gpu = &*core.gpu;
    let n = abcs.iter().map(domain).max().unwrap_or(1);
    let m = n.min(h.host.len());
    let mut held = lock(&core.abc);
    let need = held.extra_bytes(n, 2) + h_scratch(n, m);
    if let Err(e) = gpu.check_mem("hpipe (two sets of a, b, c and scratch)", need) {
        tracing::warn!("GPU{}: {e}; hpipe off for this call, circuits one after another", gpu.ordinal);
        return Ok(Err(abcs));
    }
    let sets = vec![held.take(gpu, n)?, held.take(gpu, n)?];
    let opts = core.opts();
    let on = gpu.stage_streams()?.stage_on(opts.abc_streams);
    // Buffers `take` just allocated are stream-ordered on the lane's stream; none of this call's MSMs is
    // queued there yet.
    on.up.join(&gpu.stream)?;
    let staged = |k: usize, abc: [Evals; 3], bufs: &mut [CudaSlice<u64>; 3]| -> GResult<Span> {
        let c = first + k;
        let site = Site::new(Phase::NttMsmH).circuit(c).arg("n", abc[0].len()).arg("staged", true);
        let span = core.open_on(probe, site, on.up, &gpu.stream);
        stage(core, probe, c, abc, bufs, n, on, &opts)?;
        Counters::bump(&core.counters.hpipe_staged);
        Ok(span)
    };
    let finish = |k: usize, span: Span, bufs: &[CudaSlice<u64>; 3]| {
        let r = msm_h(core, probe, first + k, bufs, h, m);
        drop(span);
        r
    };
    let stop = || probe.checkpoint().is_err();
    let (out, sets) = run(abcs, sets, &staged, finish, &stop)?;
    for s in sets {
        held.keep(s);
    }
    Ok(Ok(out))
}

/// Runs `stage(k, item, set)` on a thread of its own and `finish(k, staged, set)` on this one, for every
/// item in order: item k takes a free set, is staged into it, finished from it, and the set goes back for
/// item k + sets. Returns the finished results (fewer when `stop` says so before a stage) and the sets.
/// The first error, of either side, stops both and is returned.
pub fn run<I: Send, B: Send, X: Send, T>(
    items: Vec<I>,
    sets: Vec<B>,
    stage: &(dyn Fn(usize, I, &mut B) -> GResult<X> + Sync),
    mut finish: impl FnMut(usize, X, &B) -> GResult<T>,
    stop: &(dyn Fn() -> bool + Sync),
) -> GResult<(Vec<T>, Vec<B>)> {
    let n = items.len();
    let depth = sets.len();
    if depth == 0 {
        return Err(GpuError::Invalid("hpipe: no buffer set to stage into".into()));
    }
    std::thread::scope(|s| {
        let (free_tx, free_rx) = mpsc::channel::<B>();
        let (done_tx, done_rx) = mpsc::channel::<(usize, GResult<X>, B)>();
        for b in sets {
            // The receiver is alive here: the send cannot fail.
            let _ = free_tx.send(b);
        }
        let stager = std::thread::Builder::new()
            .name("cuzk-hpipe".into())
            .spawn_scoped(s, move || {
                for (k, item) in items.into_iter().enumerate() {
                    if stop() {
                        break;
                    }
                    let Ok(mut b) = free_rx.recv() else { break };
                    let x = stage(k, item, &mut b);
                    let failed = x.is_err();
                    if done_tx.send((k, x, b)).is_err() || failed {
                        break;
                    }
                }
                // Sets no item took (fewer items than sets, or a stop).
                free_rx.try_iter().collect::<Vec<B>>()
            })
            .map_err(|e| GpuError::Invalid(format!("hpipe: no staging thread: {e}")))?;
        let (mut out, mut kept, mut err) = (Vec::with_capacity(n), Vec::with_capacity(depth), None);
        for (k, x, b) in done_rx.iter() {
            match x.and_then(|x| finish(k, x, &b)) {
                Ok(t) => out.push(t),
                Err(e) => {
                    err = Some(e);
                    kept.push(b);
                    break;
                }
            }
            if k + depth >= n {
                kept.push(b);
            } else if let Err(back) = free_tx.send(b) {
                kept.push(back.0);
            }
        }
        // A stager waiting for a set sees the channel close and ends.
        drop(free_tx);
        drop(done_rx);
        let rest =
            stager.join().map_err(|_| GpuError::Invalid("hpipe: the staging thread panicked".into()))?;
        if let Some(e) = err {
            return Err(e);
        }
        kept.extend(rest);
        Ok((out, kept))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Items come out in order, every set comes back, and the stager never runs more than `sets` ahead.
    #[test]
    fn stages_in_order_within_the_sets() {
        for (n, depth) in [(0usize, 2usize), (1, 2), (2, 2), (5, 2), (7, 3), (4, 1)] {
            let log = Mutex::new(Vec::new());
            let sets: Vec<usize> = (0..depth).collect();
            let stage = |k: usize, item: u64, set: &mut usize| -> GResult<(u64, usize)> {
                crate::util::lock(&log).push(('s', k));
                Ok((item * 10, *set))
            };
            let (out, back) = run(
                (0..n as u64).collect(),
                sets,
                &stage,
                |k, (x, set_at_stage), set: &usize| {
                    crate::util::lock(&log).push(('f', k));
                    assert_eq!(set_at_stage, *set, "item {k} finished from another set");
                    Ok(x + 1)
                },
                &|| false,
            )
            .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(out, (0..n as u64).map(|i| i * 10 + 1).collect::<Vec<_>>());
            let mut back = back;
            back.sort_unstable();
            assert_eq!(back, (0..depth).collect::<Vec<_>>(), "n {n} depth {depth}: sets lost");
            let log = log.into_inner().unwrap_or_else(|p| p.into_inner());
            for k in 0..n {
                let staged = log.iter().position(|&e| e == ('s', k));
                let limit = k.checked_sub(depth).and_then(|j| log.iter().position(|&e| e == ('f', j)));
                if let (Some(s), Some(l)) = (staged, limit) {
                    assert!(s > l, "item {k} staged before item {} finished: {log:?}", k - depth);
                }
            }
        }
    }

    /// An error on either side stops the run and is returned; a stop before a stage returns fewer results.
    #[test]
    fn errors_and_stops_end_the_run() {
        let fail_stage = |k: usize, item: u32, _: &mut u8| -> GResult<u32> {
            if k == 2 {
                Err(GpuError::Invalid("stage 2".into()))
            } else {
                Ok(item)
            }
        };
        let r = run((0..6).collect(), vec![0u8, 1], &fail_stage, |_, x, _| Ok(x), &|| false);
        assert!(matches!(r, Err(GpuError::Invalid(ref m)) if m == "stage 2"), "{:?}", r.err());
        let ok = |_: usize, item: u32, _: &mut u8| -> GResult<u32> { Ok(item) };
        let r = run(
            (0..6).collect(),
            vec![0u8, 1],
            &ok,
            |k, x, _| if k == 3 { Err(GpuError::Invalid("finish 3".into())) } else { Ok(x) },
            &|| false,
        );
        assert!(matches!(r, Err(GpuError::Invalid(ref m)) if m == "finish 3"), "{:?}", r.err());
        let r = run((0..6).collect(), vec![0u8, 1], &ok, |_, x, _| Ok(x), &|| true);
        assert_eq!(r.map(|(out, back)| (out.len(), back.len())).ok(), Some((0, 2)));
        assert!(run((0..2).collect(), Vec::<u8>::new(), &ok, |_, x, _| Ok(x), &|| false).is_err());
    }
}
