//! The proving service driven directly (no gRPC) with cheap sample circuits: priority order, idempotent
//! request ids, cancel of queued and running jobs, await timeouts, back-pressure by the memory budget, SRS
//! reference counts, the watch stream's job and phase events, and the records failed and cancelled jobs leave.

use std::collections::BTreeSet;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use blstrs::{G1Projective, G2Affine, G2Projective, Scalar};
use cuzk::backend::api::{BResult, Backend, BackendError, Bases, CallOpts, SrsRef};
use cuzk::backend::cpu::backend::CpuBackend;
use cuzk::backend::select::select;
use cuzk::circuits::Sample;
use cuzk::cs::Evals;
use cuzk::engine::sample::{self, Overrides};
use cuzk::engine::service::{
    EventBody, JobKind, JobRequest, JobState, Priority, Service, ServiceConfig, SrsError, SubmitError,
};
use cuzk::engine::store::RunStore;
use cuzk::engine::{Engine, RunCtl, RunSpec};
use cuzk::timeline::record::{RunOutcome, RunRecord};
use cuzk::vocab::{is_setup_phase, is_sub_phase, BackendKind, CancelToken, Probe, Toggles};

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
/// a finished one is left as it is; an await times out on a job still running. The running one, cancelled
/// once its synthesis began, leaves a record of what it captured: outcome cancelled, its phases a part of
/// the full run's, synthesis among them; `cuzk runs` and `export` show it, `compare` refuses it in one line.
#[test]
fn cancel_and_await_timeout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = service(dir.path(), 1, 8 << 30);
    // The full run's time, for the bound below.
    let t = Instant::now();
    let full = s.submit(job("full", Priority::Normal, 12)).expect("submit");
    let full_out = s.wait(&full.job_id, LONG).expect("done");
    assert_eq!(full_out.state, JobState::Completed);
    let full_time = t.elapsed();
    s.set_paused(true);
    let queued = s.submit(job("q", Priority::Normal, 16)).expect("submit");
    assert_eq!(s.cancel(&queued.job_id), Some(false));
    let o = s.wait(&queued.job_id, Duration::from_secs(5)).expect("cancelled at once");
    assert_eq!(o.state, JobState::Cancelled);
    assert_eq!(o.run_id, None, "a job cancelled before it ran has no record");
    s.set_paused(false);
    let (_, mut rx) = s.watch();
    let running = s.submit(job("r", Priority::Normal, 12)).expect("submit");
    let deadline = Instant::now() + LONG;
    loop {
        match rx.try_recv() {
            Ok(e) if matches!(&e.body, EventBody::Phase(p) if p.job_id == running.job_id && p.phase == "synthesis") => {
                break
            }
            Ok(_) => {}
            Err(_) => std::thread::sleep(Duration::from_millis(2)),
        }
        assert!(Instant::now() < deadline, "its synthesis never began");
    }
    assert_eq!(s.state(&running.job_id), Some(JobState::Running));
    assert!(s.wait(&running.job_id, Duration::from_millis(1)).is_none(), "await times out on a running job");
    let t = Instant::now();
    assert_eq!(s.cancel(&running.job_id), Some(true));
    let o = s.wait(&running.job_id, LONG).expect("stopped");
    assert_eq!(o.state, JobState::Cancelled, "{}", o.error);
    assert!(t.elapsed() < full_time, "cancel took {:?}, the whole job {:?}", t.elapsed(), full_time);
    assert_eq!(s.cancel(&full.job_id), Some(false), "a finished job stays finished");
    assert_eq!(s.cancel("no-such-job"), None);
    stop(&s);

    let store = RunStore::open(Some(dir.path())).expect("store");
    let whole = store.resolve(full_out.run_id.as_deref().expect("full run's record")).expect("full");
    let id = o.run_id.clone().expect("a cancelled running job leaves its record");
    let cut = store.resolve(&id).expect("the cancelled job's record");
    assert_eq!(cut.outcome, RunOutcome::Cancelled);
    assert!(cut.error.contains("cancelled"), "{}", cut.error);
    assert!(cut.proofs.is_empty() && cut.repeats.is_empty(), "its one repeat never finished");
    assert!(cut.events.iter().any(|e| e.phase == "synthesis"), "synthesis began");
    assert!(cut.events.iter().all(|e| e.start_us + e.dur_us <= cut.wall_us), "events within its wall");
    assert!(!cut.counters.is_empty(), "the memory counters so far");
    assert_eq!(
        (cut.sample.circuits, cut.sample.constraints),
        (whole.sample.circuits, whole.sample.constraints)
    );
    // Its phase instances (top-level, past setup) are the full run's, fewer of them.
    let instances = |r: &RunRecord| -> BTreeSet<(String, Option<u64>)> {
        r.events
            .iter()
            .filter(|e| !is_sub_phase(&e.phase) && !is_setup_phase(&e.phase))
            .map(|e| (e.phase.clone(), e.circuit))
            .collect()
    };
    let (part, all) = (instances(&cut), instances(&whole));
    assert!(part.is_subset(&all), "{:?} not in the full run", part.difference(&all).collect::<Vec<_>>());
    assert!(part.len() < all.len(), "the cancelled run stopped early: {} of {}", part.len(), all.len());

    let cuzk = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_cuzk")).args(args).env("CUZK_HOME", dir.path()).output();
        o.expect("run cuzk")
    };
    let o = cuzk(&["runs"]);
    let listed = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(listed.lines().any(|l| l.starts_with(&id) && l.contains(" cancelled ")), "{listed}");
    let o = cuzk(&["runs", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("runs json");
    let row = v.as_array().and_then(|a| a.iter().find(|r| r["id"] == id.as_str())).expect("listed").clone();
    assert_eq!(row["outcome"], "cancelled");
    let trace = dir.path().join("cut.trace.json");
    let o = cuzk(&["export", &id, "--format", "chrome", "-o", trace.to_str().expect("utf8")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).expect("trace")).expect("json");
    assert_eq!(v["otherData"]["outcome"], "cancelled");
    let spans = v["traceEvents"].as_array().map_or(0, |a| a.iter().filter(|e| e["ph"] == "X").count());
    assert_eq!(spans, cut.events.len(), "every captured phase in the trace");
    let o = cuzk(&["export", &id, "--format", "svg"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = cuzk(&["compare", &whole.id, &id]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "compare of a cancelled run");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains(&id) && err.contains("cancelled"), "{err}");
}

/// A backend that proves like the CPU one until proof call `ok_calls` begins, then fails (or panics): a
/// job whose run breaks after a synthesis.
struct Breaks {
    cpu: CpuBackend,
    panic: bool,
    ok_calls: usize,
    calls: AtomicUsize,
}

impl Breaks {
    fn new(panic: bool, ok_calls: usize) -> Breaks {
        Breaks { cpu: CpuBackend::new(), panic, ok_calls, calls: AtomicUsize::new(0) }
    }
}

impl Backend for Breaks {
    fn name(&self) -> &'static str {
        "cpu"
    }
    fn device(&self) -> String {
        self.cpu.device()
    }
    fn begin_call(&self, p: &Probe, o: CallOpts, srs: SrsRef<'_>) -> BResult<()> {
        if self.calls.fetch_add(1, Ordering::Relaxed) < self.ok_calls {
            return self.cpu.begin_call(p, o, srs);
        }
        assert!(!self.panic, "injected panic");
        Err(BackendError { backend: "cpu", op: "begin_call", msg: "injected failure".into() })
    }
    fn ntt_msm_h(&self, p: &Probe, c: usize, abc: [Evals; 3], h: Bases<'_>) -> BResult<G1Projective> {
        self.cpu.ntt_msm_h(p, c, abc, h)
    }
    fn batch_add_g1(&self, bases: Bases<'_>, bitmap: &[u64]) -> BResult<G1Projective> {
        self.cpu.batch_add_g1(bases, bitmap)
    }
    fn batch_add_g2(&self, bases: &[G2Affine], bitmap: &[u64]) -> BResult<G2Projective> {
        self.cpu.batch_add_g2(bases, bitmap)
    }
    fn msm_g1(&self, b: Bases<'_>, s: &[Scalar], w: Option<usize>) -> BResult<G1Projective> {
        self.cpu.msm_g1(b, s, w)
    }
    fn msm_g2(&self, b: &[G2Affine], s: &[Scalar], w: Option<usize>) -> BResult<G2Projective> {
        self.cpu.msm_g2(b, s, w)
    }
    fn window_for(&self, n: usize) -> usize {
        self.cpu.window_for(n)
    }
}

/// A job whose run fails after its synthesis (a backend error; a panic) fails with one line and leaves the
/// record of what it captured: outcome failed, the same error line, synthesis and nothing past the failed
/// call, no proofs.
#[test]
fn failed_job_leaves_its_record() {
    for (panic, want) in [(false, "injected failure"), (true, "internal error while proving")] {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = Service::start(ServiceConfig {
            backend: Arc::new(Breaks::new(panic, 0)),
            toggles: Toggles::default(),
            memory_budget: 8 << 30,
            workers: 1,
            seed: Some(7),
            store: RunStore::open(Some(dir.path())).expect("store"),
        })
        .expect("service");
        let sub = s.submit(job("f", Priority::Normal, 1)).expect("submit");
        let o = s.wait(&sub.job_id, LONG).expect("finished");
        assert_eq!(o.state, JobState::Failed, "{}", o.error);
        assert!(o.error.contains(want) && o.error.lines().count() == 1, "{}", o.error);
        let id = o.run_id.clone().expect("a failed job leaves its record");
        let rec = RunStore::open(Some(dir.path())).expect("store").resolve(&id).expect("record");
        assert_eq!(rec.outcome, RunOutcome::Failed);
        assert_eq!(rec.error, o.error, "the record carries the job's error line");
        assert!(rec.events.iter().any(|e| e.phase == "synthesis"), "synthesis ran");
        for after in ["ntt_msm_h", "tail_msm", "assemble", "verify"] {
            assert!(!rec.events.iter().any(|e| e.phase == after), "{after} after the failed call");
        }
        assert!(rec.proofs.is_empty() && rec.repeats.is_empty());
        assert_eq!(s.status().failed, 1);
        stop(&s);
    }
}

/// The in-process console keeps what a failed run captured, as `cuzk prove` and the daemon do: the worker
/// saves the partial record (outcome failed, the error line) and hands it to the model before `Failed`, so
/// the history lists it at once.
#[test]
fn the_consoles_failed_run_keeps_its_record() {
    use cuzk::tui::state::{Command as TuiCommand, Msg};
    use cuzk::tui::worker::{Worker, WorkerConfig};
    let dir = tempfile::tempdir().expect("tempdir");
    let store = RunStore::open(Some(dir.path())).expect("store");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let cfg = WorkerConfig {
        sample: "samples/porep-tiny.toml".into(),
        backend: Box::new(Breaks::new(false, 0)),
        store: store.clone(),
    };
    let w = Worker::spawn(cfg, tx).expect("worker");
    cuzk::tui::source::Source::send(&w, TuiCommand::Run { toggles: Toggles::default(), repeats: 1 });
    let t0 = Instant::now();
    let mut kept = None;
    let error = loop {
        assert!(t0.elapsed() < LONG, "no end of the run");
        match rx.try_recv() {
            Ok(Msg::Kept { record, saved }) => kept = Some((record, saved)),
            Ok(Msg::Failed(e)) => break e,
            Ok(Msg::Finished { .. }) => panic!("the run finished despite the failing backend"),
            Ok(_) => {}
            Err(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    assert!(error.contains("injected failure"), "{error}");
    let (record, saved) = kept.expect("the partial record came before Failed");
    assert_eq!(record.outcome, RunOutcome::Failed);
    assert!(record.error.contains("injected failure"), "{}", record.error);
    assert!(record.events.iter().any(|e| e.phase == "synthesis"), "synthesis ran");
    let path = saved.expect("saved");
    assert_eq!(store.resolve(&record.id).expect("in the store"), *record);
    assert!(path.is_file());
    assert!(w.shutdown(Duration::from_secs(30)), "worker did not end");
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

/// The engine's record of a run that fails in its second repeat: the first repeat's summary and proofs'
/// absence, the second's events marked repeat 1 and in no summary, outcome failed with the error line.
#[test]
fn run_failing_in_its_second_repeat_keeps_the_first() {
    let s = sample(1);
    let backend = Breaks::new(false, 1);
    let spec = RunSpec {
        sample: &s,
        toggles: Toggles::default(),
        backend: &backend,
        repeats: 2,
        mem_budget: 8 << 30,
    };
    let f = match Engine::new().run_recorded(&spec, &RunCtl::quiet(CancelToken::new())) {
        Err(f) => f,
        Ok(_) => panic!("the second repeat's proof call fails"),
    };
    assert!(f.error.to_string().contains("injected failure"), "{}", f.error);
    let rec = f.record.expect("a record of what it captured");
    assert_eq!((rec.outcome, rec.error.as_str()), (RunOutcome::Failed, f.error.to_string().as_str()));
    assert_eq!(rec.repeats.len(), 1, "the finished repeat only");
    assert!(rec.repeats[0].phases.contains_key("assemble"), "the first repeat proved");
    let second: Vec<&str> = rec.events.iter().filter(|e| e.repeat == 1).map(|e| e.phase.as_str()).collect();
    assert!(second.contains(&"synthesis") && !second.contains(&"assemble"), "{second:?}");
    let synth = |r: u32| rec.events.iter().filter(|e| e.repeat == r && e.phase == "synthesis").count() as u64;
    assert_eq!(rec.repeats[0].phases["synthesis"].count, synth(0), "repeat 1's events are in no summary");
    assert!(rec.proofs.is_empty());
}
