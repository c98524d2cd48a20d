//! The service's shared core: the job table and what it counts (`State`), each job's entry (`Job`), and what
//! every thread of the service shares (`Inner`: config, engine, device gate, clock, live feeds, event bus),
//! with the few things done under the state lock: a job's event, the status snapshot, a job's end.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use tokio::sync::watch;

use super::bus::Bus;
use super::feeds::LiveJobs;
use super::metrics::Metrics;
use super::queue::RunQueue;
use super::srs::{SrsBook, Tier};
use super::types::{
    DeviceStatus, EventBody, JobEvent, JobKind, JobState, Outcome, Priority, QueueDepth, ServiceConfig,
    ServiceStatus, Timings,
};
use crate::circuits::Sample;
use crate::engine::gate::DeviceGate;
use crate::engine::Engine;
use crate::vocab::CancelToken;

/// The lock helper this module's users share.
pub(super) use crate::util::lock;

/// Finished jobs kept for `AwaitProof` and idempotent resubmits; older ones are forgotten first.
pub const FINISHED_KEPT: usize = 4096;

pub(super) struct Job {
    pub(super) request_id: String,
    pub(super) kind: JobKind,
    pub(super) priority: Priority,
    pub(super) circuit_id: String,
    pub(super) sample: Option<Sample>,
    /// Its estimate without its params, bytes.
    pub(super) estimate: u64,
    /// Its params, bytes (counted once for every job of the circuit while resident).
    pub(super) params_bytes: u64,
    pub(super) state: JobState,
    pub(super) submitted: Instant,
    pub(super) started: Option<Instant>,
    pub(super) finished_seq: u64,
    pub(super) cancel: CancelToken,
    pub(super) done: watch::Sender<Option<Arc<Outcome>>>,
}

#[derive(Default)]
pub(super) struct State {
    pub(super) jobs: HashMap<String, Job>,
    pub(super) by_request: HashMap<String, String>,
    pub(super) queue: RunQueue,
    pub(super) srs: SrsBook,
    pub(super) in_use: u64,
    pub(super) completed: u64,
    pub(super) failed: u64,
    pub(super) finished: u64,
    pub(super) draining: bool,
    pub(super) paused: bool,
    pub(super) shutdown: bool,
    pub(super) metrics: Metrics,
}

pub(super) struct Inner {
    pub(super) cfg: ServiceConfig,
    pub(super) engine: Engine,
    pub(super) gate: DeviceGate,
    pub(super) started: Instant,
    pub(super) live: Mutex<LiveJobs>,
    pub(super) state: Mutex<State>,
    pub(super) moved: Condvar,
    pub(super) bus: Mutex<Bus>,
    pub(super) load_locks: Mutex<HashMap<String, Arc<Mutex<()>>>>,
}

impl Inner {
    /// The lock a job (or a preload) holds while it loads a circuit's SRS, so two never load one at once.
    pub(super) fn load_lock(&self, circuit_id: &str) -> Arc<Mutex<()>> {
        lock(&self.load_locks).entry(circuit_id.to_string()).or_default().clone()
    }

    pub(super) fn now_us(&self) -> u64 {
        self.started.elapsed().as_micros() as u64
    }

    /// Numbers and sends one event (callers hold the lock that orders it: `live` for phases, `state` for
    /// jobs).
    pub(super) fn emit(&self, body: EventBody) {
        let mut bus = lock(&self.bus);
        let ev = bus.next(self.now_us(), body);
        bus.send(ev);
    }

    pub(super) fn job_event(
        &self,
        id: &str,
        j: &Job,
        error: &str,
        run_id: Option<String>,
        timings: Timings,
    ) -> JobEvent {
        JobEvent {
            job_id: id.to_string(),
            request_id: j.request_id.clone(),
            kind: j.kind,
            circuit_id: j.circuit_id.clone(),
            priority: j.priority,
            state: j.state,
            error: error.to_string(),
            run_id,
            timings,
        }
    }

    pub(super) fn status_of(&self, st: &State) -> ServiceStatus {
        let mut queues: Vec<QueueDepth> =
            JobKind::ALL.iter().map(|k| QueueDepth { kind: Some(*k), ..QueueDepth::default() }).collect();
        for j in st.jobs.values() {
            let Some(q) = queues.iter_mut().find(|q| q.kind == Some(j.kind)) else { continue };
            match j.state {
                JobState::Queued => q.pending += 1,
                JobState::Running => q.running += 1,
                _ => {}
            }
        }
        let holder = self.gate.holder();
        let kind_of = |id: &Option<String>| id.as_ref().and_then(|id| st.jobs.get(id)).map(|j| j.kind);
        let b = self.cfg.backend.as_ref();
        let mem = b.memory();
        let lanes = b.lanes().max(1);
        let devices = if b.has_device() {
            (0..lanes)
                .map(|d| {
                    let name = b.lane(d).map_or_else(|| b.device(), |l| l.device());
                    let m = mem.devices.iter().find(|m| m.device == d as u64);
                    DeviceStatus {
                        ordinal: d as u32,
                        name,
                        mem_total: m.map_or(0, |m| m.total),
                        mem_free: m.map_or(0, |m| m.total.saturating_sub(m.used)),
                        current_job: holder.clone(),
                        current_kind: kind_of(&holder),
                    }
                })
                .collect()
        } else {
            vec![DeviceStatus {
                ordinal: 0,
                name: b.device(),
                current_job: holder.clone(),
                current_kind: kind_of(&holder),
                ..DeviceStatus::default()
            }]
        };
        let srs = st.srs.status(&self.engine);
        let resident: u64 = srs.iter().filter(|s| s.tier == Tier::Hot).map(|s| s.size_bytes).sum();
        ServiceStatus {
            uptime_s: self.started.elapsed().as_secs(),
            queues,
            devices,
            srs,
            completed: st.completed,
            failed: st.failed,
            pinned_bytes: mem.pinned_bytes.unwrap_or(0),
            mem_budget: self.cfg.memory_budget,
            mem_in_use: st.in_use.saturating_add(resident),
            draining: st.draining,
            toggles: self.cfg.toggles,
            backend: format!("{} ({})", b.name(), b.device()),
        }
    }

    /// Ends a job: its outcome to its waiters, its memory back, its counters, its event. `run_ended`: it had
    /// been admitted.
    pub(super) fn finish(&self, st: &mut State, id: &str, outcome: Outcome) {
        st.finished += 1;
        let seq = st.finished;
        let Some(j) = st.jobs.get_mut(id) else { return };
        let admitted = j.state == JobState::Running;
        j.state = outcome.state;
        j.finished_seq = seq;
        j.sample = None;
        let (kind, circuit, estimate) = (j.kind, j.circuit_id.clone(), j.estimate);
        let outcome = Arc::new(outcome);
        j.done.send_replace(Some(outcome.clone()));
        let ev = self.job_event(id, j, &outcome.error, outcome.run_id.clone(), outcome.timings);
        if admitted {
            st.in_use = st.in_use.saturating_sub(estimate);
            st.srs.release(&circuit);
        }
        let m = &mut st.metrics;
        match outcome.state {
            JobState::Completed => {
                st.completed += 1;
                *m.completed.entry(kind).or_default() += 1;
                m.latency.entry(kind).or_default().observe(outcome.timings.total_ms as f64 / 1e3);
                m.queue_wait.entry(kind).or_default().observe(outcome.timings.queue_wait_ms as f64 / 1e3);
            }
            JobState::Failed => {
                st.failed += 1;
                *m.failed.entry(kind).or_default() += 1;
            }
            _ => *m.cancelled.entry(kind).or_default() += 1,
        }
        self.emit(EventBody::Job(ev));
        self.emit(EventBody::Status(Box::new(self.status_of(st))));
        forget_old(st);
        self.moved.notify_all();
    }
}

/// Drops the oldest finished jobs past [`FINISHED_KEPT`].
fn forget_old(st: &mut State) {
    let done = st.jobs.values().filter(|j| j.state.is_final()).count();
    if done <= FINISHED_KEPT {
        return;
    }
    let mut old: Vec<(u64, String)> = st
        .jobs
        .iter()
        .filter(|(_, j)| j.state.is_final())
        .map(|(id, j)| (j.finished_seq, id.clone()))
        .collect();
    old.sort_unstable();
    for (_, id) in old.into_iter().take(done - FINISHED_KEPT) {
        if let Some(j) = st.jobs.remove(&id) {
            st.by_request.remove(&j.request_id);
        }
    }
}
