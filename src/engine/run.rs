//! A run: one sample × toggles × repeats under one timeline capture, turned into a `cuzk.run/1` record.

use std::collections::BTreeMap;
use std::time::{Instant, SystemTime};

use super::host;
use super::job::{run_job, JobOutput, JobSpec};
use super::params::{load_params, ParamsInfo};
use super::EngineError;
use crate::backend::api::Backend;
use crate::circuits::Sample;
use crate::groth16::prover::clear_cancel;
use crate::groth16::setup::Progress;
use crate::groth16::Parameters;
use crate::timeline::record::{
    lane_for, PhaseTotals, ProofEntry, RecordEvent, RepeatSummary, RunRecord, SampleInfo, SCHEMA,
};
use crate::timeline::{Capture, PhaseEvent};
use crate::toggles::Toggles;

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

/// A finished run: its record, plus the last repeat's outputs and the params (for `--out`).
pub struct RunResult {
    /// The record (not yet saved).
    pub record: RunRecord,
    /// The last repeat's proofs and inputs.
    pub last: JobOutput,
    /// The params used.
    pub params: std::sync::Arc<Parameters>,
    /// Where the params came from.
    pub params_info: ParamsInfo,
}

/// Runs `repeats` repeats of the job, capturing every phase (params loading included).
pub fn run(spec: &RunSpec, progress: Progress) -> Result<RunResult, EngineError> {
    clear_cancel();
    let started = SystemTime::now();
    let capture = Capture::begin();
    let origin = capture.origin();
    let result = (|| {
        let (params, info) = load_params(spec.sample, progress)?;
        let mut windows = Vec::new();
        let mut last = JobOutput::default();
        for _ in 0..spec.repeats.max(1) {
            let t0 = Instant::now();
            last = run_job(&JobSpec {
                sample: spec.sample,
                toggles: spec.toggles,
                backend: spec.backend,
                params: params.clone(),
                shape: info.shape,
                mem_budget: spec.mem_budget,
            })?;
            let start = t0.duration_since(origin).as_micros() as u64;
            windows.push((start, start + t0.elapsed().as_micros() as u64));
        }
        Ok::<_, EngineError>((params, info, windows, last))
    })();
    let wall_us = origin.elapsed().as_micros() as u64;
    let (events, dropped) = capture.finish();
    let (params, params_info, windows, last) = result?;
    let s = spec.sample;
    let per_call = (spec.toggles.batch.max(1) * s.circuits_per_sector()) as u64;
    let record = RunRecord {
        schema: SCHEMA.into(),
        id: host::run_id(started),
        started: host::rfc3339(started),
        sample: SampleInfo {
            name: s.name.clone(),
            path: s.path.display().to_string(),
            constraints: params_info.shape.rows() as u64,
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
        repeats: summarize(&events, &windows),
        events: events.iter().map(|e| to_record(e, &windows, per_call, spec.backend.name())).collect(),
        wall_us,
        peak_rss_bytes: host::peak_rss_bytes(),
        dropped_events: dropped,
        proofs: last
            .proofs
            .iter()
            .enumerate()
            .map(|(i, p)| ProofEntry {
                hex: p.to_bytes().iter().map(|b| format!("{b:02x}")).collect(),
                verified: last.verified.as_ref().map(|v| v[i]),
            })
            .collect(),
        version: env!("CARGO_PKG_VERSION").into(),
    };
    Ok(RunResult { record, last, params, params_info })
}

/// Which repeat an event belongs to: the window holding its start (events before the first repeat, such
/// as srs_load, count to repeat 0).
fn repeat_of(start_us: u64, windows: &[(u64, u64)]) -> u32 {
    windows.iter().rposition(|w| start_us >= w.0).unwrap_or(0) as u32
}

fn arg_u64(e: &PhaseEvent, key: &str) -> Option<u64> {
    e.args.iter().find(|(k, _)| *k == key).and_then(|(_, v)| v.parse().ok())
}

fn to_record(e: &PhaseEvent, windows: &[(u64, u64)], per_call: u64, backend: &str) -> RecordEvent {
    let slot = arg_u64(e, "slot");
    let batch = e.circuit.or_else(|| arg_u64(e, "first")).map(|c| c / per_call.max(1));
    RecordEvent {
        phase: e.phase.into(),
        lane: lane_for(e.phase, slot, e.device, backend),
        circuit: e.circuit,
        device: e.device,
        batch,
        repeat: repeat_of(e.start_us, windows),
        start_us: e.start_us,
        dur_us: e.dur_us,
        args: e.args.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
    }
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

fn summarize(events: &[PhaseEvent], windows: &[(u64, u64)]) -> Vec<RepeatSummary> {
    windows
        .iter()
        .enumerate()
        .map(|(r, &(ws, we))| {
            let mine: Vec<&PhaseEvent> =
                events.iter().filter(|e| repeat_of(e.start_us, windows) == r as u32).collect();
            let mut phases: BTreeMap<String, PhaseTotals> = BTreeMap::new();
            let mut spans: BTreeMap<&str, Vec<(u64, u64)>> = BTreeMap::new();
            for e in &mine {
                let t = phases.entry(e.phase.to_string()).or_default();
                t.count += 1;
                t.sum_us += e.dur_us;
                spans.entry(e.phase).or_default().push((e.start_us, e.start_us + e.dur_us));
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
