//! The engine bridge: one std thread that owns an [`Engine`], the backend and the run store, runs jobs one
//! at a time through the same engine API as the CLI, and streams what happens to the console as [`Msg`]s.
//! The console never calls the prover or a backend itself.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;

use super::source::Source;
use super::state::{Command, Level, Msg};
use crate::backend::api::Backend;
use crate::circuits::Sample;
use crate::engine::ablate::{AblateEvent, Ablation};
use crate::engine::setup_eta::SetupTracker;
use crate::engine::store::RunStore;
use crate::engine::{default_mem_budget, events, Engine, EngineError, RunCtl, RunResult, RunSpec};
use crate::timeline::export::{self, Format};
use crate::timeline::record::RunRecord;
use crate::timeline::{LiveFeed, LiveTap};
use crate::vocab::{CancelToken, Toggles};

/// How often a run in progress is sampled for the live view.
const POLL: Duration = Duration::from_millis(100);

/// What the worker needs to run jobs.
pub struct WorkerConfig {
    /// The sample file (loaded per job, so an edit between runs is picked up and errors are per run).
    pub sample: PathBuf,
    /// The backend.
    pub backend: Box<dyn Backend>,
    /// Where runs and exports go.
    pub store: RunStore,
}

/// The console's handle on the worker thread.
pub struct Worker {
    tx: Sender<Command>,
    handle: Option<JoinHandle<()>>,
    cancel: Arc<Mutex<CancelToken>>,
}

impl Source for Worker {
    fn send(&self, cmd: Command) {
        let _ = self.tx.send(cmd);
    }

    fn gone(&self) -> String {
        let why = crate::tui::term::last_panic().unwrap_or_else(|| "it ended".into());
        format!("worker stopped: {why}")
    }
}

impl Worker {
    /// Starts the worker thread; messages arrive on `out`.
    pub fn spawn(cfg: WorkerConfig, out: UnboundedSender<Msg>) -> std::io::Result<Worker> {
        let (tx, rx) = std::sync::mpsc::channel();
        let cancel = Arc::new(Mutex::new(CancelToken::new()));
        let cx = Ctx { cfg, rx, out, engine: Engine::new(), cancel: cancel.clone() };
        let handle =
            std::thread::Builder::new().name("cuzk-tui-worker".into()).spawn(move || worker_loop(cx))?;
        Ok(Worker { tx, handle: Some(handle), cancel })
    }

    /// Asks a run in progress to stop and waits up to `limit` for the worker to end; false if it did not.
    pub fn shutdown(mut self, limit: Duration) -> bool {
        crate::util::lock(&self.cancel).cancel();
        let _ = self.tx.send(Command::Quit);
        let Some(h) = self.handle.take() else { return true };
        let t0 = Instant::now();
        while !h.is_finished() {
            if t0.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = h.join();
        true
    }
}

/// What one job is.
#[derive(Clone, Copy)]
enum Job {
    /// One run.
    Run,
    /// An ablation (the toggles are its baseline).
    Ablate,
}

/// How a job ended, as far as the loop cares.
enum Outcome {
    Done,
    Quit,
}

struct Ctx {
    cfg: WorkerConfig,
    rx: Receiver<Command>,
    out: UnboundedSender<Msg>,
    engine: Engine,
    cancel: Arc<Mutex<CancelToken>>,
}

fn worker_loop(cx: Ctx) {
    while let Ok(cmd) = cx.rx.recv() {
        let outcome = match cmd {
            Command::Run { toggles, repeats } => cx.job(Job::Run, toggles, repeats),
            Command::Ablate { toggles, repeats } => cx.job(Job::Ablate, toggles, repeats),
            Command::Export(rec) => {
                cx.send(export_record(&cx.cfg.store, &rec));
                Outcome::Done
            }
            Command::Delete(id) => {
                cx.send(delete_record(&cx.cfg.store, id));
                Outcome::Done
            }
            Command::Cancel => Outcome::Done,
            Command::Quit => Outcome::Quit,
        };
        if let Outcome::Quit = outcome {
            return;
        }
    }
}

/// Sends worker messages from the engine's thread; setup progress is throttled to one message per 50 ms
/// per stage (and the last of each stage).
struct Reporter {
    out: UnboundedSender<Msg>,
    throttle: Mutex<(String, Option<Instant>)>,
    eta: Mutex<SetupTracker>,
}

impl Reporter {
    fn send(&self, m: Msg) {
        let _ = self.out.send(m);
    }

    fn progress(&self, stage: &str, done: usize, total: usize) {
        let mut t = crate::util::lock(&self.throttle);
        let now = Instant::now();
        let fresh =
            t.0 != stage || done >= total || t.1.is_none_or(|at| now - at >= Duration::from_millis(50));
        let p = crate::util::lock(&self.eta).update(stage, done, total, now);
        if fresh {
            *t = (stage.to_string(), Some(now));
            self.send(Msg::Progress(p));
        }
    }

    /// The params cache's warning of a run (an entry rebuilt) and its other warnings (a PCE record rebuilt).
    fn warn_params(&self, r: &RunResult) {
        if let Some(w) = r.params_info.outcome.as_ref().and_then(|o| o.warning()) {
            self.send(Msg::Log(Level::Warn, w.to_string()));
        }
        for w in &r.warnings {
            self.send(Msg::Log(Level::Warn, w.clone()));
        }
    }

    /// A finished record, saved to the store (or not), announced.
    fn saved(&self, rec: &RunRecord, saved: Option<&Result<PathBuf, crate::engine::store::StoreError>>) {
        let saved = match saved {
            Some(Ok(p)) => Ok(p.clone()),
            Some(Err(e)) => Err(e.to_string()),
            None => Err("not saved".into()),
        };
        self.send(Msg::Finished { record: Box::new(rec.clone()), saved });
    }
}

impl Ctx {
    fn send(&self, m: Msg) {
        let _ = self.out.send(m);
    }

    /// One job: the engine on a scoped thread, its live events polled here, commands heard meanwhile.
    fn job(&self, job: Job, toggles: Toggles, repeats: usize) -> Outcome {
        let sample = match Sample::load(&self.cfg.sample) {
            Ok(s) => s,
            Err(e) => {
                self.send(Msg::Started { label: String::new(), toggles, repeats });
                self.send(Msg::Failed(e.to_string()));
                if let Job::Ablate = job {
                    self.send(Msg::Log(Level::Warn, "ablation stopped".into()));
                }
                return Outcome::Done;
            }
        };
        let cancel = CancelToken::new();
        *crate::util::lock(&self.cancel) = cancel.clone();
        let backend = self.cfg.backend.as_ref();
        let spec = RunSpec {
            sample: &sample,
            toggles,
            backend,
            repeats: repeats.max(1),
            mem_budget: default_mem_budget(),
        };
        let rep = Reporter {
            out: self.out.clone(),
            throttle: Mutex::new((String::new(), None)),
            eta: Mutex::new(SetupTracker::new()),
        };
        let feed = LiveFeed::new();
        let progress = |stage: &str, done: usize, total: usize| rep.progress(stage, done, total);
        let ctl = RunCtl {
            cancel: cancel.clone(),
            progress: &progress,
            feed: Some(feed.clone()),
            timing_log: false,
            device: None,
        };
        let mut tap = LiveTap::new(feed);
        let mut quit = false;
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let result = std::thread::scope(|s| {
            let (spec, ctl, rep, engine, store) = (&spec, &ctl, &rep, &self.engine, &self.cfg.store);
            let spawned =
                std::thread::Builder::new().name("cuzk-tui-run".into()).spawn_scoped(s, move || {
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        engine_job(engine, store, job, spec, ctl, rep)
                    }));
                    let _ = done_tx.send(r);
                });
            if let Err(e) = spawned {
                return Err(Some(format!("cannot start a run thread: {e}")));
            }
            loop {
                match done_rx.recv_timeout(POLL) {
                    Ok(Ok(Err(e))) if e.is_cancelled() => return Err(None),
                    Ok(Ok(r)) => return r.map_err(|e| Some(e.to_string())),
                    Ok(Err(panic)) => return Err(Some(format!("internal error: {}", panic_text(&panic)))),
                    Err(RecvTimeoutError::Disconnected) => {
                        return Err(Some("run thread ended without a result".into()))
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                }
                self.forward_live(&mut tap);
                loop {
                    match self.rx.try_recv() {
                        Ok(Command::Cancel) => cancel.cancel(),
                        Ok(Command::Quit) | Err(TryRecvError::Disconnected) => {
                            quit = true;
                            cancel.cancel();
                            break;
                        }
                        Ok(_) => self.send(Msg::Log(Level::Warn, "busy: one job at a time".into())),
                        Err(TryRecvError::Empty) => break,
                    }
                }
            }
        });
        if quit {
            return Outcome::Quit;
        }
        let stopped = matches!(job, Job::Ablate) && result.is_err();
        match result {
            Ok(Some(a)) => {
                let baseline = a.baseline.id.clone();
                self.send(Msg::AblationDone { baseline, entries: a.entries });
            }
            Ok(None) => {}
            Err(None) => self.send(Msg::Cancelled),
            Err(Some(e)) => self.send(Msg::Failed(e)),
        }
        if stopped {
            self.send(Msg::Log(Level::Warn, "ablation stopped".into()));
        }
        Outcome::Done
    }

    fn forward_live(&self, tap: &mut LiveTap) {
        let Some(p) = tap.poll() else { return };
        let closed = p.closed.iter().map(events::live_event).collect();
        let open = p.open.iter().map(|o| events::open_event(o, p.now_us)).collect();
        self.send(Msg::Live {
            restarted: p.restarted,
            closed,
            open,
            counters: p.counters,
            now_us: p.now_us,
            dropped: p.dropped,
        });
    }
}

/// Every export format of `rec` into `<data dir>/exports/`: what the console says about it.
pub fn export_record(store: &RunStore, rec: &RunRecord) -> Msg {
    let dir = store.exports_dir();
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return Msg::Log(Level::Error, format!("{}: cannot create folder: {e}", dir.display()));
    }
    let mut paths = Vec::new();
    for f in Format::ALL {
        let p = dir.join(f.file_name(&rec.id));
        match export::write(rec, f, &p) {
            Ok(()) => paths.push(p),
            Err(e) => return Msg::Log(Level::Error, format!("{}: cannot write: {e}", p.display())),
        }
    }
    Msg::Exported { id: rec.id.clone(), paths }
}

/// Removes run `id` from the store: what the console says about it.
pub fn delete_record(store: &RunStore, id: String) -> Msg {
    let result = store.delete(&id).map_err(|e| e.to_string());
    Msg::Deleted { id, result }
}

/// Runs the job on the engine (on the run thread); an ablation returns its matrix.
fn engine_job(
    engine: &Engine,
    store: &RunStore,
    job: Job,
    spec: &RunSpec,
    ctl: &RunCtl,
    rep: &Reporter,
) -> Result<Option<Ablation>, EngineError> {
    match job {
        Job::Run => {
            rep.send(Msg::Started { label: String::new(), toggles: spec.toggles, repeats: spec.repeats });
            let r = match engine.run_recorded(spec, ctl) {
                Ok(r) => r,
                Err(f) => {
                    // What a stopped run captured joins the history, as `cuzk prove` saves it.
                    if let Some(record) = f.record {
                        let saved = store.save(&record).map_err(|e| e.to_string());
                        rep.send(Msg::Kept { record, saved });
                    }
                    return Err(f.error);
                }
            };
            rep.warn_params(&r);
            rep.saved(&r.record, Some(&store.save(&r.record)));
            Ok(None)
        }
        Job::Ablate => {
            let a = engine.ablate(spec, ctl, Some(store), &mut |ev| match ev {
                AblateEvent::Started(step) => {
                    rep.send(Msg::Started { label: step.label(), toggles: step.toggles, repeats: 1 })
                }
                AblateEvent::Measured(step, r) => {
                    rep.warn_params(r);
                    rep.send(Msg::StepDone { label: step.label(), wall_us: r.record.wall_median_us() })
                }
                AblateEvent::Progress(a) => rep.send(Msg::AblationProgress {
                    baseline: a.baseline.id.clone(),
                    entries: a.entries.clone(),
                    done: a.done,
                }),
                AblateEvent::Finished(_, rec, saved) => rep.saved(rec, saved),
            })?;
            Ok(Some(a))
        }
    }
}

/// The message of a caught panic.
pub fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = crate::tui::term::last_panic() {
        s
    } else {
        "panic".to_string()
    }
}
