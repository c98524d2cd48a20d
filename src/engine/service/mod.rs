//! The long-lived proving service behind `cuzk daemon`: a job table (ids, the callers' idempotency keys,
//! states, outcomes), a priority queue, admission by the memory budget, workers that run jobs through the
//! engine side by side (one job's synthesis under another's proving, the device taken in turns by priority:
//! `engine::gate`), the SRS each circuit proves with (tiers, reference counts, preload and evict), every
//! finished job saved as a run record, and a numbered event stream for watchers. It knows nothing of gRPC:
//! the daemon maps its wire types to these, and the tests drive it directly.

mod bus;
pub mod circuit_id;
mod exec;
mod feeds;
mod inner;
mod live;
pub mod metrics;
mod preload;
mod queue;
mod srs;
pub mod types;

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{broadcast, watch};

pub use inner::FINISHED_KEPT;
pub use metrics::{Histogram, Metrics, BUCKETS_S};
pub use srs::{SrsError, SrsStatus, Tier};
pub use types::{
    DeviceStatus, DrainReport, EventBody, JobEvent, JobKind, JobRequest, JobState, MemoryEvent, Outcome,
    PhaseEvent, Priority, QueueDepth, ServiceConfig, ServiceEvent, ServiceStatus, SubmitError, Submitted,
    Timings,
};

use super::budget::{human, PlanError};
use super::gate::DeviceGate;
use super::{Engine, EngineError, RunSpec};
use crate::circuits::Sample;
use crate::vocab::{CancelToken, Toggles};
use bus::Bus;
use feeds::LiveJobs;
use inner::{lock, Inner, Job, State};

/// The most jobs that run at once: each holds its synthesized data, so a handful fills any machine.
pub const MAX_WORKERS: usize = 64;

/// Events a watcher may fall behind by before it misses some (it is told how many).
const EVENT_BUFFER: usize = 1 << 14;

/// The proving service: clone it freely (every clone is the same service).
#[derive(Clone)]
pub struct Service {
    inner: Arc<Inner>,
    threads: Arc<Mutex<Vec<std::thread::JoinHandle<()>>>>,
}

/// A fresh seed from the OS for a job's randomizers.
fn os_seed() -> Result<u64, SubmitError> {
    use std::io::Read;
    let mut b = [0u8; 8];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .map_err(|e| SubmitError::Invalid(format!("/dev/urandom: cannot read a proof seed: {e}")))?;
    Ok(u64::from_le_bytes(b))
}

impl Service {
    /// Starts the service's workers (`workers` general ones plus one for critical jobs) and its event pump.
    pub fn start(cfg: ServiceConfig) -> Result<Service, String> {
        let (tx, _) = broadcast::channel(EVENT_BUFFER);
        let workers = cfg.workers.clamp(1, MAX_WORKERS);
        let inner = Arc::new(Inner {
            cfg,
            engine: Engine::new(),
            gate: DeviceGate::new(),
            started: Instant::now(),
            live: Mutex::new(LiveJobs::default()),
            state: Mutex::new(State::default()),
            moved: Condvar::new(),
            bus: Mutex::new(Bus { seq: 0, tx }),
            load_locks: Mutex::new(HashMap::new()),
        });
        let mut threads = Vec::new();
        for w in 0..=workers {
            let inner = inner.clone();
            let critical_only = w == workers;
            let name = if critical_only { "cuzk-critical".to_string() } else { format!("cuzk-worker-{w}") };
            let h = std::thread::Builder::new()
                .name(name)
                .spawn(move || exec::worker(&inner, critical_only))
                .map_err(|e| format!("cannot start a worker thread: {e}"))?;
            threads.push(h);
        }
        let pump = inner.clone();
        let h = std::thread::Builder::new()
            .name("cuzk-events".into())
            .spawn(move || live::pump(&pump))
            .map_err(|e| format!("cannot start the event thread: {e}"))?;
        threads.push(h);
        Ok(Service { inner, threads: Arc::new(Mutex::new(threads)) })
    }

    /// The engine jobs run on (its params and PCE memos).
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The toggles jobs run with.
    pub fn toggles(&self) -> Toggles {
        self.inner.cfg.toggles
    }

    /// Queues a job, or answers with the one its request id made before. Refused at once when the service
    /// is draining or the job can never fit the memory budget; one that fits later waits in the queue.
    pub fn submit(&self, mut req: JobRequest) -> Result<Submitted, SubmitError> {
        let inner = &self.inner;
        if let Some(s) = self.existing(&req.request_id)? {
            return Ok(s);
        }
        match inner.cfg.seed {
            Some(seed) => {
                req.sample.seed = seed;
                req.sample.proof_seed = None;
            }
            None => req.sample.proof_seed = Some(os_seed()?),
        }
        let (estimate, params_bytes) = self.admission(&req.sample)?;
        let mut st = lock(&inner.state);
        if st.draining {
            return Err(SubmitError::Draining);
        }
        if let Some(id) = st.by_request.get(&req.request_id).filter(|_| !req.request_id.is_empty()) {
            let job_id = id.clone();
            let queue_position = st.queue.position(&job_id).unwrap_or(0) as u32;
            return Ok(Submitted { job_id, queue_position, existing: true });
        }
        let job_id = crate::engine::host::run_id(std::time::SystemTime::now());
        let position = st.queue.push(job_id.clone(), req.priority);
        st.srs.note_job(&req.circuit_id, &req.sample, &inner.engine, params_bytes);
        let job = Job {
            request_id: req.request_id.clone(),
            kind: req.kind,
            priority: req.priority,
            circuit_id: req.circuit_id,
            sample: Some(req.sample),
            estimate,
            params_bytes,
            state: JobState::Queued,
            submitted: Instant::now(),
            started: None,
            finished_seq: 0,
            cancel: CancelToken::new(),
            done: watch::channel(None).0,
        };
        let ev = inner.job_event(&job_id, &job, "", None, Timings::default());
        if !req.request_id.is_empty() {
            st.by_request.insert(req.request_id, job_id.clone());
        }
        st.jobs.insert(job_id.clone(), job);
        inner.emit(EventBody::Job(ev));
        inner.emit(EventBody::Status(Box::new(inner.status_of(&st))));
        inner.moved.notify_all();
        Ok(Submitted { job_id, queue_position: position as u32, existing: false })
    }

    /// Records a job that ends FAILED at once (a request this build cannot prove), so its caller's await and
    /// the counters see it like any other; a repeated request id answers with the first.
    pub fn reject(
        &self,
        request_id: &str,
        kind: JobKind,
        priority: Priority,
        circuit_id: &str,
        why: &str,
    ) -> Submitted {
        let inner = &self.inner;
        let mut st = lock(&inner.state);
        if let Some(id) = st.by_request.get(request_id).filter(|_| !request_id.is_empty()) {
            return Submitted { job_id: id.clone(), queue_position: 0, existing: true };
        }
        let job_id = crate::engine::host::run_id(std::time::SystemTime::now());
        let job = Job {
            request_id: request_id.to_string(),
            kind,
            priority,
            circuit_id: circuit_id.to_string(),
            sample: None,
            estimate: 0,
            params_bytes: 0,
            state: JobState::Queued,
            submitted: Instant::now(),
            started: None,
            finished_seq: 0,
            cancel: CancelToken::new(),
            done: watch::channel(None).0,
        };
        if !request_id.is_empty() {
            st.by_request.insert(request_id.to_string(), job_id.clone());
        }
        st.jobs.insert(job_id.clone(), job);
        let o = Outcome {
            state: JobState::Failed,
            proof: Vec::new(),
            error: why.to_string(),
            timings: Timings::default(),
            run_id: None,
        };
        inner.finish(&mut st, &job_id, o);
        Submitted { job_id, queue_position: 0, existing: false }
    }

    fn existing(&self, request_id: &str) -> Result<Option<Submitted>, SubmitError> {
        let st = lock(&self.inner.state);
        if st.draining {
            return Err(SubmitError::Draining);
        }
        Ok(st.by_request.get(request_id).filter(|_| !request_id.is_empty()).map(|id| Submitted {
            job_id: id.clone(),
            queue_position: st.queue.position(id).unwrap_or(0) as u32,
            existing: true,
        }))
    }

    /// What a job of `sample` needs of the memory budget while its SRS is not resident (its estimate plus
    /// its params), or why it can never fit.
    pub fn need_bytes(&self, sample: &Sample) -> Result<u64, SubmitError> {
        self.admission(sample).map(|(e, p)| e.saturating_add(p))
    }

    /// The job's estimate without its params, and its params' bytes; refused when the two can never fit.
    fn admission(&self, sample: &Sample) -> Result<(u64, u64), SubmitError> {
        let inner = &self.inner;
        let spec = RunSpec {
            sample,
            toggles: inner.cfg.toggles,
            backend: inner.cfg.backend.as_ref(),
            repeats: 1,
            mem_budget: inner.cfg.memory_budget,
        };
        let budget = inner.cfg.memory_budget;
        let plan = inner.engine.plan(&spec).map_err(|e| match e {
            EngineError::Memory(m) => match *m {
                // The budget is below one proof call: said in the daemon's terms, not `--mem-budget`'s.
                PlanError::Budget(_) => {
                    let fp = inner.engine.footprint(sample);
                    // The smallest call: one partition (a sector is split when it must be), or `batch` sectors.
                    let batch = inner.cfg.toggles.batch.max(1);
                    let circuits = if batch > 1 { sample.circuits_per_sector() * batch } else { 1 };
                    let call = crate::engine::bytes_per_circuit(&fp.shape).saturating_mul(circuits as u64);
                    SubmitError::Memory(format!(
                        "{}: one proof call holds {} of synthesized data, more than the daemon's memory budget of \
                         {}; raise `memory_budget` in the daemon's config",
                        sample.name,
                        human(call),
                        human(budget)
                    ))
                }
                m => SubmitError::Memory(m.to_string()),
            },
            e => SubmitError::Invalid(e.to_string()),
        })?;
        let est = &plan.estimate;
        let params_part: u64 = est.parts.iter().filter(|(n, _)| n == "params").map(|(_, b)| *b).sum();
        let params_bytes = inner.engine.footprint(sample).params_bytes();
        let estimate = est.total().saturating_sub(params_part);
        let need = estimate.saturating_add(params_bytes);
        if need > budget {
            return Err(SubmitError::Memory(format!(
                "{} needs about {} (params {}, proving {}), more than the daemon's memory budget of {}; raise \
                 `memory_budget` in the daemon's config or {}",
                est.what,
                human(need),
                human(params_bytes),
                human(estimate),
                human(budget),
                est.knob
            )));
        }
        Ok((estimate, params_bytes))
    }

    /// A watch of the job's outcome (`None` inside until it ends); `None`: no such job (or long forgotten).
    pub fn outcome(&self, job_id: &str) -> Option<watch::Receiver<Option<Arc<Outcome>>>> {
        lock(&self.inner.state).jobs.get(job_id).map(|j| j.done.subscribe())
    }

    /// Waits up to `timeout` for the job to end, on the calling thread; `None` when it has not (or there is
    /// no such job).
    pub fn wait(&self, job_id: &str, timeout: Duration) -> Option<Arc<Outcome>> {
        let deadline = Instant::now() + timeout;
        let mut st = lock(&self.inner.state);
        loop {
            let j = st.jobs.get(job_id)?;
            if let Some(o) = j.done.borrow().clone() {
                return Some(o);
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            st = self.inner.moved.wait_timeout(st, left).map(|(g, _)| g).unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// The job's state now.
    pub fn state(&self, job_id: &str) -> Option<JobState> {
        lock(&self.inner.state).jobs.get(job_id).map(|j| j.state)
    }

    /// Stops a queued job at once or a running one after its current phase; `Some(was_running)`, or `None`
    /// when there is no such job. A finished job is left as it is (`Some(false)`).
    pub fn cancel(&self, job_id: &str) -> Option<bool> {
        let inner = &self.inner;
        let mut st = lock(&inner.state);
        let j = st.jobs.get(job_id)?;
        let waited = j.submitted.elapsed().as_millis() as u64;
        match j.state {
            JobState::Queued => {
                st.queue.remove(job_id);
                let timings = Timings { queue_wait_ms: waited, total_ms: waited, ..Timings::default() };
                let o = Outcome {
                    state: JobState::Cancelled,
                    proof: Vec::new(),
                    error: "cancelled while queued".into(),
                    timings,
                    run_id: None,
                };
                inner.finish(&mut st, job_id, o);
                Some(false)
            }
            JobState::Running => {
                j.cancel.cancel();
                Some(true)
            }
            _ => Some(false),
        }
    }

    /// The service now.
    pub fn status(&self) -> ServiceStatus {
        let st = lock(&self.inner.state);
        self.inner.status_of(&st)
    }

    /// Everything counted since start.
    pub fn metrics(&self) -> Metrics {
        lock(&self.inner.state).metrics.clone()
    }

    /// Jobs queued, in run order.
    pub fn queued(&self) -> usize {
        lock(&self.inner.state).queue.len()
    }

    /// The backlog a new watcher starts from (the running jobs' events so far, every unfinished job, the
    /// status) and the live events after it, none missed and none twice.
    pub fn watch(&self) -> (Vec<ServiceEvent>, broadcast::Receiver<ServiceEvent>) {
        let inner = &self.inner;
        let live = lock(&inner.live);
        let st = lock(&inner.state);
        let bus = lock(&inner.bus);
        let rx = bus.tx.subscribe();
        let (seq, t_us) = (bus.seq, inner.now_us());
        let mut backlog = Vec::new();
        let at = |body| ServiceEvent { seq, t_us, body };
        backlog.push(at(EventBody::Status(Box::new(inner.status_of(&st)))));
        let mut open: Vec<(&String, &Job)> = st.jobs.iter().filter(|(_, j)| !j.state.is_final()).collect();
        open.sort_by_key(|(id, _)| id.as_str());
        for (id, j) in open {
            backlog.push(at(EventBody::Job(inner.job_event(id, j, "", None, Timings::default()))));
        }
        backlog.extend(live.backlog());
        drop((bus, st, live));
        (backlog, rx)
    }

    /// Stops (or restarts) taking jobs off the queue: jobs queue up while paused. For tests and drains.
    pub fn set_paused(&self, paused: bool) {
        lock(&self.inner.state).paused = paused;
        self.inner.moved.notify_all();
    }

    /// Whether the service refuses new jobs (a drain began).
    pub fn is_draining(&self) -> bool {
        lock(&self.inner.state).draining
    }

    /// Refuses new jobs, cancels the queued ones, lets the running ones finish for up to `grace`, then
    /// cancels those still running and waits up to `grace` again for them to stop; then stops the workers.
    pub fn drain(&self, grace: Duration) -> DrainReport {
        let inner = &self.inner;
        let mut report = DrainReport::default();
        let running_ids = |st: &State| -> Vec<String> {
            st.jobs.iter().filter(|(_, j)| j.state == JobState::Running).map(|(id, _)| id.clone()).collect()
        };
        let before = {
            let mut st = lock(&inner.state);
            st.draining = true;
            for id in st.queue.drain() {
                let o = Outcome {
                    state: JobState::Cancelled,
                    proof: Vec::new(),
                    error: "the daemon is shutting down".into(),
                    timings: Timings::default(),
                    run_id: None,
                };
                inner.finish(&mut st, &id, o);
                report.dropped += 1;
            }
            running_ids(&st)
        };
        let wait_idle = |limit: Duration| {
            let deadline = Instant::now() + limit;
            let mut st = lock(&inner.state);
            while !running_ids(&st).is_empty() {
                let Some(left) = deadline.checked_duration_since(Instant::now()) else { break };
                st = inner.moved.wait_timeout(st, left).map(|(g, _)| g).unwrap_or_else(|p| p.into_inner().0);
            }
            running_ids(&st)
        };
        let left = wait_idle(grace);
        report.finished = before.len() - left.len();
        if !left.is_empty() {
            for id in &left {
                self.cancel(id);
            }
            report.cancelled = left.len();
            wait_idle(grace);
        }
        self.shutdown();
        report
    }

    /// Stops the workers and the event pump (jobs still running finish on their own threads first).
    pub fn shutdown(&self) {
        lock(&self.inner.state).shutdown = true;
        self.inner.moved.notify_all();
    }

    /// Waits for the service's threads to end after [`Service::shutdown`] (at most `limit`); whether all did.
    pub fn join(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut threads = lock(&self.threads);
        while Instant::now() < deadline {
            if threads.iter().all(|h| h.is_finished()) {
                for h in threads.drain(..) {
                    let _ = h.join();
                }
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Loads a circuit's SRS now (`PreloadSRS`): whether it was already resident, and how long loading took.
    pub fn preload(&self, circuit_id: &str) -> Result<(bool, u64), SrsError> {
        preload::preload(&self.inner, circuit_id)
    }

    /// Drops a circuit's SRS from memory (`EvictSRS`), never while a job uses it: whether it was loaded, and
    /// the bytes freed.
    pub fn evict(&self, circuit_id: &str) -> Result<(bool, u64), SrsError> {
        let inner = &self.inner;
        let mut st = lock(&inner.state);
        let State { srs, .. } = &mut *st;
        let r = srs.evict(circuit_id, &inner.engine);
        if r.is_ok() {
            inner.emit(EventBody::Status(Box::new(inner.status_of(&st))));
        }
        r
    }
}
