//! The proving service driven directly (no gRPC) with cheap sample circuits: priority order, idempotent
//! request ids, cancel of queued and running jobs, await timeouts, back-pressure by the memory budget, SRS
//! reference counts, and the watch stream's job and phase events.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cuzk::backend::select::select;
use cuzk::circuits::Sample;
use cuzk::engine::sample::{self, Overrides};
use cuzk::engine::service::{
    EventBody, JobKind, JobRequest, JobState, Priority, Service, ServiceConfig, SrsError, SubmitError,
};
use cuzk::engine::store::RunStore;
use cuzk::vocab::{BackendKind, Toggles};

const LONG: Duration = Duration::from_secs(300);

fn sample(sectors: usize) -> Sample {
    let o = Overrides { sectors: Some(sectors), ..Overrides::default() };
    sample::load("samples/porep-tiny.toml".as_ref(), &o).expect("porep-tiny").0
}

fn service(dir: &std::path::Path, workers: usize, budget: u64) -> Service {
    Service::start(ServiceConfig {
        backend: Arc::from(select(BackendKind::Cpu).expect("cpu backend").backend),
        toggles: Toggles::default(),
        memory_budget: budget,
        workers,
        seed: Some(7),
        store: RunStore::open(Some(dir)).expect("store"),
    })
    .expect("service")
}

fn job(request_id: &str, priority: Priority, sectors: usize) -> JobRequest {
    JobRequest {
        request_id: request_id.into(),
        kind: JobKind::Sample,
        priority,
        circuit_id: "porep-tiny".into(),
        sample: sample(sectors),
    }
}

fn stop(s: &Service) {
    s.shutdown();
    assert!(s.join(Duration::from_secs(60)), "service threads did not end");
}

/// Jobs queued while the service is paused start in priority order, FIFO within one; a repeated request id
/// answers with its first job; every completed job's proof verified and its record is in the store.
#[test]
fn priority_order_and_idempotency() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = service(dir.path(), 1, 8 << 30);
    s.set_paused(true);
    let (_, mut rx) = s.watch();
    let mut ids = Vec::new();
    for (name, p) in [
        ("low", Priority::Low),
        ("n1", Priority::Normal),
        ("high", Priority::High),
        ("crit", Priority::Critical),
        ("n2", Priority::Normal),
    ] {
        let sub = s.submit(job(name, p, 1)).expect("submit");
        assert!(!sub.existing);
        ids.push((name, sub.job_id));
    }
    let again = s.submit(job("n1", Priority::Critical, 1)).expect("resubmit");
    assert!(again.existing, "a repeated request id is the same job");
    assert_eq!(again.job_id, ids[1].1);
    assert_eq!(again.queue_position, 2, "n1 is behind crit and high");
    s.set_paused(false);
    for (_, id) in &ids {
        let o = s.wait(id, LONG).expect("finished");
        assert_eq!(o.state, JobState::Completed, "{}", o.error);
        assert_eq!(o.proof.len(), 2 * 192, "porep-tiny: 2 partitions");
        let run = o.run_id.as_ref().expect("record saved");
        assert!(dir.path().join("runs").join(format!("{run}.json")).is_file());
    }
    let mut started = Vec::new();
    while let Ok(e) = rx.try_recv() {
        if let EventBody::Job(j) = e.body {
            if j.state == JobState::Running {
                started.push(j.request_id);
            }
        }
    }
    assert_eq!(started, ["crit", "high", "n1", "n2", "low"]);
    assert_eq!(s.status().completed, 5);
    stop(&s);
}

/// A queued job cancels at once; a running one stops within a phase (well before the same job's full run);
/// a finished one is left as it is; an await times out on a job still running.
#[test]
fn cancel_and_await_timeout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = service(dir.path(), 1, 8 << 30);
    // The full run's time, for the bound below.
    let t = Instant::now();
    let full = s.submit(job("full", Priority::Normal, 12)).expect("submit");
    assert_eq!(s.wait(&full.job_id, LONG).expect("done").state, JobState::Completed);
    let full_time = t.elapsed();
    s.set_paused(true);
    let queued = s.submit(job("q", Priority::Normal, 16)).expect("submit");
    assert_eq!(s.cancel(&queued.job_id), Some(false));
    let o = s.wait(&queued.job_id, Duration::from_secs(5)).expect("cancelled at once");
    assert_eq!(o.state, JobState::Cancelled);
    s.set_paused(false);
    let running = s.submit(job("r", Priority::Normal, 12)).expect("submit");
    let deadline = Instant::now() + LONG;
    while s.state(&running.job_id) != Some(JobState::Running) {
        assert!(Instant::now() < deadline, "never ran");
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(s.wait(&running.job_id, Duration::from_millis(1)).is_none(), "await times out on a running job");
    let t = Instant::now();
    assert_eq!(s.cancel(&running.job_id), Some(true));
    let o = s.wait(&running.job_id, LONG).expect("stopped");
    assert_eq!(o.state, JobState::Cancelled, "{}", o.error);
    assert!(t.elapsed() < full_time, "cancel took {:?}, the whole job {:?}", t.elapsed(), full_time);
    assert_eq!(s.cancel(&full.job_id), Some(false), "a finished job stays finished");
    assert_eq!(s.cancel("no-such-job"), None);
    stop(&s);
}

/// A job that can never fit the budget is refused at submit with one line naming the knob; one that fits
/// only alone waits until the one before it is done; SRS requests name unknown circuit ids.
#[test]
fn back_pressure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = service(dir.path(), 2, 1 << 20);
    match s.submit(job("big", Priority::Normal, 1)) {
        Err(SubmitError::Memory(m)) => {
            assert!(
                m.contains("memory budget of 1.0 MiB")
                    && m.contains("`memory_budget`")
                    && !m.contains("--mem"),
                "{m}"
            );
            assert!(!m.contains('\n'), "one line: {m}");
        }
        other => panic!("expected a memory refusal, got {other:?}"),
    }
    stop(&s);
    // A budget holding one job and its params, not two.
    let probe = service(dir.path(), 1, 8 << 30);
    let need = probe.need_bytes(&sample(16)).expect("fits 8 GiB");
    stop(&probe);
    let s = service(dir.path(), 2, need + need / 2);
    let (_, mut rx) = s.watch();
    s.set_paused(true);
    let a = s.submit(job("a", Priority::Normal, 4)).expect("fits alone");
    let b = s.submit(job("b", Priority::Normal, 4)).expect("fits alone");
    s.set_paused(false);
    assert_eq!(s.wait(&a.job_id, LONG).expect("a").state, JobState::Completed);
    assert_eq!(s.wait(&b.job_id, LONG).expect("b").state, JobState::Completed);
    let mut order = Vec::new();
    while let Ok(e) = rx.try_recv() {
        if let EventBody::Job(j) = e.body {
            if matches!(j.state, JobState::Running | JobState::Completed) {
                order.push(format!("{} {}", j.request_id, j.state.name()));
            }
        }
    }
    // Two workers, but memory for one job: b starts only once a is done.
    assert_eq!(order, ["a running", "a completed", "b running", "b completed"]);
    match s.evict("wpost-2k") {
        Ok((false, 0)) => {} // never loaded here
        other => panic!("{other:?}"),
    }
    match s.evict("porep-tiny") {
        Err(SrsError::Unknown(m)) => assert!(m.starts_with("circuit_id"), "{m}"),
        other => panic!("{other:?}"),
    }
    stop(&s);
}

/// The watch stream: a status first, then a job's queued → running → completed events and its phase spans
/// (opened, then closed with a duration) on the service's clock, numbered in order.
#[test]
fn watch_stream_carries_jobs_and_phases() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = service(dir.path(), 1, 8 << 30);
    let (backlog, mut rx) = s.watch();
    assert!(matches!(backlog.first().map(|e| &e.body), Some(EventBody::Status(_))));
    let sub = s.submit(job("w", Priority::High, 2)).expect("submit");
    s.wait(&sub.job_id, LONG).expect("done");
    std::thread::sleep(Duration::from_millis(200));
    let (mut states, mut closed, mut opened, mut last) = (Vec::new(), Vec::new(), 0, 0);
    while let Ok(e) = rx.try_recv() {
        assert!(e.seq > last, "events numbered in order");
        last = e.seq;
        match e.body {
            EventBody::Job(j) if j.job_id == sub.job_id => states.push(j.state),
            EventBody::Phase(p) if p.job_id == sub.job_id && p.open => opened += 1,
            EventBody::Phase(p) if p.job_id == sub.job_id => closed.push(p),
            _ => {}
        }
    }
    assert_eq!(states, [JobState::Queued, JobState::Running, JobState::Completed]);
    let names: std::collections::BTreeSet<&str> = closed.iter().map(|p| p.phase.as_str()).collect();
    for want in ["synthesis", "ntt_msm_h", "assemble"] {
        assert!(names.contains(want), "{want} missing from {names:?}");
    }
    assert!(opened > 0, "open spans are announced");
    assert!(closed.iter().all(|p| p.dur_us > 0 || p.phase == "batch_add"), "closed spans carry durations");
    stop(&s);
}
