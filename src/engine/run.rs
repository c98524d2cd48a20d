//! A run: one sample × toggles × repeats under one timeline capture, turned into a `cuzk.run/1` record,
//! however it ends.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Instant, SystemTime};

use super::budget::{Footprint, Plan};
use super::error::{panic_message, EngineError, RunFailure};
use super::gate::DeviceClaim;
use super::host;
use super::job::{run_job, JobOutput, JobParams, JobSpec};
use super::params::{ParamsInfo, ParamsMemo};
use super::pce::PceMemo;
use super::{events, sampler};
use crate::backend::api::Backend;
use crate::circuits::Sample;
use crate::groth16::prover::ProveError;
use crate::groth16::setup::Progress;
use crate::groth16::Parameters;
use crate::timeline::record::{
    PhaseTotals, ProofEntry, RepeatSummary, RunOutcome, RunRecord, SampleInfo, SCHEMA,
};
use crate::timeline::{Capture, CaptureOpts, Captured, LiveFeed};
use crate::vocab::{CancelToken, Probe, Toggle, Toggles};

/// What a run needs besides the sample.
pub struct RunSpec<'a> {
    /// The sample.
    pub sample: &'a Sample,
    /// Toggles.
    pub toggles: Toggles,
    /// Backend.
    pub backend: &'a dyn Backend,
    /// Repeats (≥ 1).
    pub repeats: usize,
    /// Pipeline memory budget in bytes.
    pub mem_budget: u64,
}

/// How a caller steers and watches a run.
#[derive(Clone)]
pub struct RunCtl<'a> {
    /// Cancelling it stops the run after its current phase.
    pub cancel: CancelToken,
    /// Setup progress (stage, done, total).
    pub progress: Progress<'a>,
    /// Where a console watches the run's events while it proceeds.
    pub feed: Option<LiveFeed>,
    /// Print a `CUZK_TIMING:` line per finished phase on stderr.
    pub timing_log: bool,
    /// Take turns at the proving step with the other runs of the process (the daemon's jobs); `None`: this
    /// run is alone.
    pub device: Option<DeviceClaim<'a>>,
}

/// No progress reports.
fn no_progress(_: &str, _: usize, _: usize) {}

impl RunCtl<'_> {
    /// A run that nobody watches, stopping on `cancel`.
    pub fn quiet(cancel: CancelToken) -> RunCtl<'static> {
        RunCtl { cancel, progress: &no_progress, feed: None, timing_log: false, device: None }
    }
}

/// A finished run: its record, plus the last repeat's outputs and the params (for `--out`).
pub struct RunResult {
    /// The record (not yet saved).
    pub record: RunRecord,
    /// The last repeat's proofs and inputs.
    pub last: JobOutput,
    /// The params used.
    pub params: Arc<Parameters>,
    /// Where the params came from.
    pub params_info: ParamsInfo,
    /// What the engine changed from the request and why (one line each), e.g. the pipeline turned off
    /// because `--mem-budget` holds fewer than two calls; the record holds what actually ran.
    pub notes: Vec<String>,
    /// Warnings of the run, one line each: a PCE record on disk that was corrupt or of another circuit and
    /// was rebuilt, or could not be stored.
    pub warnings: Vec<String>,
}

/// Runs `repeats` repeats of the job, capturing every phase (params loading included), within `plan` (the
/// pipeline's depth and whether it runs). A run that an error, a cancel or a panic stops still hands back
/// the record of what it captured ([`RunFailure`]).
pub(super) fn run(
    memo: &ParamsMemo,
    pce: &PceMemo,
    spec: &RunSpec,
    ctl: &RunCtl,
    plan: &Plan,
    fp: &Footprint,
) -> Result<RunResult, RunFailure> {
    let mut toggles = spec.toggles;
    if plan.note.is_some() {
        toggles.set(Toggle::Pipeline, false);
    }
    let spec = &RunSpec { toggles, mem_budget: plan.budget, ..*spec };
    let started = SystemTime::now();
    let capture =
        Capture::begin(CaptureOpts { capacity: 0, timing_log: ctl.timing_log, feed: ctl.feed.clone() });
    let probe = Probe::new(capture.sink(), ctl.cancel.clone());
    let origin = capture.origin();
    crate::util::marks::mark("timeline_origin");
    let (sink, stop) = (capture.counter_sink(), AtomicBool::new(false));
    // The finished repeats' windows (µs from the origin), and the start of the one under way.
    let (mut windows, mut under_way) = (Vec::new(), None);
    let body = || {
        let (shape, digest) = memo.shape_of(spec.sample, fp)?;
        let slot = spec.toggles.on(Toggle::Pce).then(|| pce.slot(shape, digest));
        if let Some(s) = &slot {
            s.set_record_passes(super::footprint::record_passes(spec.sample, shape.rows()));
        }
        // A run alone on its device also puts the SRS there (kept resident, so the call finds it): a params
        // file's sections as each is decoded, the rest (a native copy's, the memo's) once loaded, beside the
        // first call; beside other runs' calls the device is theirs until the gate says so.
        let stage = ctl.device.is_none() && spec.backend.has_device() && spec.toggles.on(Toggle::SrsResident);
        let opts = crate::backend::api::CallOpts::from(&spec.toggles);
        let to_device = |id, section: crate::backend::api::SrsSection<'_>| {
            // A failure here only leaves the upload to the call, which reports it.
            let _ = spec.backend.stage_section(&probe, opts, id, section);
        };
        let on_section: Option<crate::groth16::params_file::OnSection> = stage.then_some(&to_device);
        let load = || memo.load(spec.sample, fp, ctl.progress, &probe, Some(spec.backend), on_section);
        // Params on hand (memo, named file, cache entry) load beside the first call's synthesis, which needs
        // only the shape; a setup runs first, alone (it takes every core and its own memory).
        let cell: OnceLock<Option<Arc<Parameters>>> = OnceLock::new();
        std::thread::scope(|sc| {
            let mut loaded: Option<(Arc<Parameters>, ParamsInfo)> = None;
            let mut loader = None;
            if memo.on_hand(spec.sample, digest) {
                let (cell, load, probe) = (&cell, &load, &probe);
                loader = Some(sc.spawn(move || {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let r = load();
                        if let (Ok((p, _)), true) = (&r, stage) {
                            // What the load did not stage (a native copy's sections, params from the memo, a
                            // section refused) goes up while the first call runs: its proof starts once H is
                            // there. A failure only leaves the upload to the call, which reports it.
                            let ready = || {
                                let _ = cell.set(Some(p.clone()));
                            };
                            let _ = spec.backend.stage_set(probe, opts, p.srs(), &ready);
                        }
                        r
                    }))
                    .unwrap_or_else(|p| Err(EngineError::Panicked(panic_message(&*p))));
                    let _ = cell.set(r.as_ref().ok().map(|(p, _)| p.clone()));
                    r
                }));
            } else {
                loaded = Some(load()?);
            }
            let mut last = JobOutput::default();
            let mut warnings = Vec::new();
            for _ in 0..spec.repeats.max(1) {
                let t0 = Instant::now();
                let start = t0.duration_since(origin).as_micros() as u64;
                under_way = Some(start);
                let params = match &loaded {
                    Some((p, _)) => JobParams::Ready(p),
                    None => JobParams::Loading(&cell),
                };
                let last_out = run_job(
                    &JobSpec {
                        sample: spec.sample,
                        toggles: spec.toggles,
                        backend: spec.backend,
                        params,
                        shape,
                        mem_budget: spec.mem_budget,
                        pce: slot.as_deref(),
                        device: ctl.device,
                        circuits_per_call: plan.circuits_per_call,
                    },
                    &probe,
                );
                warnings.extend(slot.iter().flat_map(|s| {
                    s.wait_stored();
                    s.take_warnings()
                }));
                // The loader's error, if it failed, is the run's (the job only saw that params never came).
                if let Some(h) = loader.take() {
                    let r = h.join().unwrap_or_else(|_| Err(EngineError::Panicked("params loader".into())));
                    loaded = Some(r?);
                }
                let Some((_, info)) = &loaded else { return Err(EngineError::ParamsUnavailable) };
                last = last_out.map_err(|e| name_params(e, &info.path, spec.sample))?;
                windows.push((start, start + t0.elapsed().as_micros() as u64));
                under_way = None;
            }
            let (params, info) = loaded.ok_or(EngineError::ParamsUnavailable)?;
            Ok::<_, EngineError>((params, info, last, warnings))
        })
    };
    // The memory sampler runs beside the whole run and stops with it, a panic of the run's included.
    let ram = sampler::begin(&sink, spec.backend);
    let result = std::thread::scope(|s| {
        let sampler = s.spawn(|| sampler::run(&sink, spec.backend, ram, &stop));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body))
            .unwrap_or_else(|p| Err(EngineError::Panicked(panic_message(&*p))));
        stop.store(true, Ordering::Relaxed);
        let _ = sampler.join();
        r
    });
    let wall_us = origin.elapsed().as_micros() as u64;
    let counters = capture.counters();
    let (events, dropped) = capture.finish();
    // Events of the repeat under way belong to it, though it has no summary.
    let marks: Vec<(u64, u64)> = windows.iter().copied().chain(under_way.map(|s| (s, wall_us))).collect();
    let mut repeats = summarize(&events, &marks);
    repeats.truncate(windows.len());
    let s = spec.sample;
    let per_call = plan.circuits_per_call.max(1) as u64;
    let constraints = match &result {
        Ok((_, info, _, _)) => info.shape.rows(),
        Err(_) => fp.shape.rows(),
    };
    let mut record = RunRecord {
        schema: SCHEMA.into(),
        id: host::run_id(started),
        started: host::rfc3339(started),
        sample: SampleInfo {
            name: s.name.clone(),
            path: s.path.display().to_string(),
            constraints: constraints as u64,
            circuits: (s.sectors * s.circuits_per_sector()) as u64,
            seed: s.seed,
        },
        toggles: spec.toggles,
        backend: spec.backend.name().into(),
        devices: match spec.backend.lanes() {
            1 => vec![spec.backend.device()],
            k => (0..k).filter_map(|d| spec.backend.lane(d).map(|l| l.device())).collect(),
        },
        host: host::host_info(),
        repeats,
        events: events
            .iter()
            .map(|e| events::record_event(e, per_call, repeat_of(e.start_us, &marks)))
            .collect(),
        wall_us,
        peak_rss_bytes: host::peak_rss_bytes(),
        dropped_events: dropped,
        proofs: Vec::new(),
        outcome: RunOutcome::Completed,
        error: String::new(),
        counters,
        version: env!("CARGO_PKG_VERSION").into(),
    };
    // Outside the wall: the run's buffers are freed; give their pages back before the next run.
    host::release_free_memory();
    let (params, params_info, last, warnings) = match result {
        Ok(r) => r,
        Err(error) => {
            let cancelled = error.is_cancelled() || ctl.cancel.is_cancelled();
            record.outcome = if cancelled { RunOutcome::Cancelled } else { RunOutcome::Failed };
            record.error = error.to_string().lines().next().unwrap_or_default().to_string();
            return Err(RunFailure { error, record: Some(Box::new(record)) });
        }
    };
    record.proofs = last
        .proofs
        .iter()
        .enumerate()
        .map(|(i, p)| ProofEntry {
            hex: p.to_bytes().iter().map(|b| format!("{b:02x}")).collect(),
            verified: last.verified.as_ref().map(|v| v[i]),
        })
        .collect();
    Ok(RunResult {
        record,
        last,
        params,
        params_info,
        notes: plan.note.iter().cloned().chain(plan.split_note(spec.sample)).collect(),
        warnings,
    })
}

/// A circuit that does not fit its params names the params file (the cache checks counts and seed, so this
/// means an entry that agrees on those but not on a density: remove the file to rebuild it). A Filecoin
/// circuit's remembered survey picked those params, so it is forgotten too: the next run surveys again.
fn name_params(e: EngineError, path: &std::path::Path, sample: &Sample) -> EngineError {
    match e {
        EngineError::Prove(p @ ProveError::ShapeMismatch { .. }) => {
            let survey = super::footprint::forget_remembered(sample)
                .map(|id| format!("; the remembered survey of {id} is removed, run again"))
                .unwrap_or_default();
            EngineError::Refused(format!(
                "params file {}: {p} (remove the file to rebuild it{survey})",
                path.display()
            ))
        }
        e => e,
    }
}

/// Which repeat an event belongs to: the window holding its start (events before the first repeat, the
/// setup phases, are marked repeat 0 but summed into no repeat).
fn repeat_of(start_us: u64, windows: &[(u64, u64)]) -> u32 {
    windows.iter().rposition(|w| start_us >= w.0).unwrap_or(0) as u32
}

/// Total time covered by a set of intervals.
fn union_us(mut iv: Vec<(u64, u64)>) -> u64 {
    iv.sort_unstable();
    let (mut total, mut cur): (u64, Option<(u64, u64)>) = (0, None);
    for (s, e) in iv {
        match cur {
            Some((cs, ce)) if s <= ce => cur = Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                total += ce - cs;
                cur = Some((s, e));
            }
            None => cur = Some((s, e)),
        }
    }
    total + cur.map_or(0, |(s, e)| e - s)
}

fn summarize(events: &[Captured], windows: &[(u64, u64)]) -> Vec<RepeatSummary> {
    windows
        .iter()
        .enumerate()
        .map(|(r, &(ws, we))| {
            // Setup phases lie before the proving wall: they belong to the run, never to a repeat.
            let mine = events
                .iter()
                .filter(|e| !e.site.phase.is_setup() && repeat_of(e.start_us, windows) == r as u32);
            let mut phases: BTreeMap<String, PhaseTotals> = BTreeMap::new();
            let mut spans: BTreeMap<&str, Vec<(u64, u64)>> = BTreeMap::new();
            for e in mine {
                let name = e.site.phase.name();
                let t = phases.entry(name.to_string()).or_default();
                t.count += 1;
                t.sum_us += e.dur_us;
                spans.entry(name).or_default().push((e.start_us, e.start_us + e.dur_us));
            }
            for (name, iv) in spans {
                if let Some(t) = phases.get_mut(name) {
                    t.span_us = union_us(iv);
                }
            }
            RepeatSummary { wall_us: we - ws, phases }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::union_us;

    #[test]
    fn union_of_intervals() {
        assert_eq!(union_us(vec![]), 0);
        assert_eq!(union_us(vec![(0, 10), (5, 15), (20, 25)]), 20);
        assert_eq!(union_us(vec![(20, 25), (0, 10), (2, 3)]), 15);
    }
}
