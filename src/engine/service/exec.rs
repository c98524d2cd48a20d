//! The workers: each takes the queue's head when it fits the memory budget, runs it through the engine
//! (the run's live feed to the event pump, the device taken in turns by priority), saves its run record
//! (completed, failed or cancelled: what it captured) and hands its outcome to the waiters.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::inner::{lock, Inner, State};
use super::types::{EventBody, JobState, Outcome, Priority, Timings};
use crate::engine::error::panic_message;
use crate::engine::gate::DeviceClaim;
use crate::engine::{RunCtl, RunFailure, RunResult, RunSpec};
use crate::timeline::record::{RunOutcome, RunRecord};
use crate::timeline::LiveFeed;
use crate::vocab::Phase;

/// How long an idle worker sleeps before it looks at the queue again (it is woken on every change).
const IDLE_POLL: Duration = Duration::from_secs(1);

fn no_progress(_: &str, _: usize, _: usize) {}

/// A worker's loop: run jobs until the service shuts down. `critical_only`: the worker kept for critical
/// jobs, so one never waits for a general worker to free.
pub(super) fn worker(inner: &Arc<Inner>, critical_only: bool) {
    loop {
        let id = {
            let mut st = lock(&inner.state);
            loop {
                if st.shutdown {
                    return;
                }
                if let Some(id) = admit(inner, &mut st, critical_only) {
                    break id;
                }
                st = inner
                    .moved
                    .wait_timeout(st, IDLE_POLL)
                    .map(|(g, _)| g)
                    .unwrap_or_else(|p| p.into_inner().0);
            }
        };
        run(inner, &id);
    }
}

/// Takes the queue's head when this worker may run it and it fits the budget now (idle resident SRS are
/// dropped to make room); marks it running.
fn admit(inner: &Inner, st: &mut State, critical_only: bool) -> Option<String> {
    if st.paused {
        return None;
    }
    let (head, priority) = st.queue.head()?;
    if critical_only && priority != Priority::Critical {
        return None;
    }
    let head = head.to_string();
    let j = st.jobs.get(&head)?;
    let (circuit, estimate, params) = (j.circuit_id.clone(), j.estimate, j.params_bytes);
    let engine = &inner.engine;
    let need = |st: &State| {
        let own = if st.srs.resident(&circuit, engine) { 0 } else { params };
        st.in_use.saturating_add(st.srs.resident_bytes(engine)).saturating_add(estimate).saturating_add(own)
    };
    let budget = inner.cfg.memory_budget;
    if need(st) > budget {
        let over = need(st) - budget;
        st.srs.evict_idle(&circuit, over, engine);
        if need(st) > budget {
            return None;
        }
    }
    st.queue.pop();
    st.in_use = st.in_use.saturating_add(estimate);
    st.srs.acquire(&circuit);
    let j = st.jobs.get_mut(&head)?;
    j.state = JobState::Running;
    j.started = Some(Instant::now());
    let timings = Timings { queue_wait_ms: j.submitted.elapsed().as_millis() as u64, ..Timings::default() };
    let ev = inner.job_event(&head, j, "", None, timings);
    inner.emit(EventBody::Job(ev));
    inner.emit(EventBody::Status(Box::new(inner.status_of(st))));
    Some(head)
}

/// Runs an admitted job to its outcome.
fn run(inner: &Inner, id: &str) {
    let taken = {
        let mut st = lock(&inner.state);
        st.jobs.get_mut(id).and_then(|j| {
            Some((
                j.sample.take()?,
                j.cancel.clone(),
                j.priority,
                j.circuit_id.clone(),
                j.submitted,
                j.started?,
            ))
        })
    };
    let Some((sample, cancel, priority, circuit, submitted, started)) = taken else { return };
    let feed = LiveFeed::new();
    lock(&inner.live).add(id, feed.clone());
    // A cold SRS is loaded by one job at a time: a second job of the circuit waits here, then finds it.
    let load_lock = inner.load_lock(&circuit);
    let loading = (!inner.engine.params_held(&sample)).then(|| lock(&load_lock));
    let spec = RunSpec {
        sample: &sample,
        toggles: inner.cfg.toggles,
        backend: inner.cfg.backend.as_ref(),
        repeats: 1,
        mem_budget: inner.cfg.memory_budget,
    };
    let ctl = RunCtl {
        cancel: cancel.clone(),
        progress: &no_progress,
        feed: Some(feed),
        timing_log: false,
        device: Some(DeviceClaim { gate: &inner.gate, priority: priority.rank(), label: id }),
    };
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.engine.run_recorded(&spec, &ctl)));
    drop(loading);
    let record = match &r {
        Ok(Ok(result)) => Some(&result.record),
        Ok(Err(f)) => f.record.as_deref(),
        Err(_) => None,
    };
    lock(&inner.live).remove(inner, id, record);
    let queue_wait_ms = started.duration_since(submitted).as_millis() as u64;
    let mut outcome = match r {
        Ok(Ok(result)) => completed(inner, &circuit, &result, queue_wait_ms),
        Ok(Err(f)) => stopped(inner, f, cancel.is_cancelled()),
        Err(panic) => {
            ended(JobState::Failed, format!("internal error while proving: {}", panic_message(&*panic)))
        }
    };
    outcome.timings.queue_wait_ms = queue_wait_ms;
    outcome.timings.total_ms = submitted.elapsed().as_millis() as u64;
    let mut st = lock(&inner.state);
    inner.finish(&mut st, id, outcome);
}

fn ended(state: JobState, error: String) -> Outcome {
    Outcome { state, proof: Vec::new(), error, timings: Timings::default(), run_id: None }
}

/// A run that an error or a cancel stopped: failed or cancelled (`cancel_asked`: its token was cancelled),
/// its record of what it captured saved when it has one (it has none when the plan refused it).
fn stopped(inner: &Inner, f: RunFailure, cancel_asked: bool) -> Outcome {
    let mut outcome = if f.error.is_cancelled() || cancel_asked {
        ended(JobState::Cancelled, "cancelled".into())
    } else {
        ended(JobState::Failed, f.error.to_string())
    };
    if let Some(mut record) = f.record {
        if outcome.state == JobState::Cancelled {
            record.outcome = RunOutcome::Cancelled;
        }
        outcome.timings = timings_of(&record);
        save(inner, &record, &mut outcome);
    }
    outcome
}

/// Saves a job's record: its id into the outcome, or the loss said in the outcome's message.
fn save(inner: &Inner, record: &RunRecord, outcome: &mut Outcome) {
    match inner.cfg.store.save(record) {
        Ok(_) => outcome.run_id = Some(record.id.clone()),
        Err(e) if outcome.error.is_empty() => outcome.error = format!("run record not saved: {e}"),
        Err(e) => outcome.error = format!("{}; run record not saved: {e}", outcome.error),
    }
}

/// A run that returned: its proofs (when every one verified; else failed, its record saying why), its
/// record saved, its timings and metrics.
fn completed(inner: &Inner, circuit: &str, r: &RunResult, queue_wait_ms: u64) -> Outcome {
    if let Some(v) = &r.last.verified {
        if let Some(bad) = v.iter().position(|ok| !ok) {
            let line = format!(
                "proof {bad} did not verify against its public inputs (params {})",
                r.params_info.path.display()
            );
            let record = RunRecord { outcome: RunOutcome::Failed, error: line.clone(), ..r.record.clone() };
            let mut outcome = ended(JobState::Failed, line);
            outcome.timings = timings_of(&record);
            save(inner, &record, &mut outcome);
            return outcome;
        }
    }
    let proof: Vec<u8> = r.last.proofs.iter().flat_map(|p| p.to_bytes()).collect();
    let mut timings = timings_of(&r.record);
    timings.queue_wait_ms = queue_wait_ms;
    let mut st = lock(&inner.state);
    st.srs.note_file(circuit, r.params_info.path.clone());
    for rep in &r.record.repeats {
        for (name, t) in &rep.phases {
            st.metrics.phases.entry(name.clone()).or_default().observe(t.sum_us as f64 / 1e6);
        }
    }
    for (name, us) in r.record.setup_phases() {
        st.metrics.phases.entry(name.to_string()).or_default().observe(us as f64 / 1e6);
    }
    drop(st);
    let mut outcome =
        Outcome { state: JobState::Completed, proof, error: String::new(), timings, run_id: None };
    // The proof stands; a record's loss is said in the outcome's message.
    save(inner, &r.record, &mut outcome);
    outcome
}

/// Union of intervals, µs.
fn covered(mut iv: Vec<(u64, u64)>) -> u64 {
    iv.sort_unstable();
    let (mut total, mut end) = (0u64, 0u64);
    for (s, e) in iv {
        let s = s.max(end);
        if e > s {
            total += e - s;
            end = e;
        }
    }
    total
}

/// The response's timings from a run's events: SRS load (and generation), synthesis, and the compute lanes'
/// phases, each the wall time its instances cover.
fn timings_of(rec: &RunRecord) -> Timings {
    let span = |keep: &dyn Fn(&str, &str) -> bool| {
        covered(
            rec.events
                .iter()
                .filter(|e| keep(&e.phase, &e.lane))
                .map(|e| (e.start_us, e.start_us + e.dur_us))
                .collect(),
        ) / 1000
    };
    let lane_phase =
        |p: &str| [Phase::NttMsmH, Phase::BatchAdd, Phase::TailMsm].iter().any(|x| x.name() == p);
    Timings {
        srs_load_ms: span(&|p, _| p == Phase::SrsLoad.name() || p == Phase::ParamsGen.name()),
        synthesis_ms: span(&|p, _| p == Phase::Synthesis.name()),
        gpu_compute_ms: span(&|p, _| lane_phase(p)),
        ..Timings::default()
    }
}

#[cfg(test)]
mod tests {
    use super::covered;

    #[test]
    fn union_of_spans() {
        assert_eq!(covered(vec![(0, 10), (5, 20), (30, 31), (31, 40)]), 30);
        assert_eq!(covered(vec![]), 0);
    }
}
