//! The engine bridge: one std thread that owns the sample, backend and run store, runs jobs one at a time
//! (the timeline capture is process-global) and streams what happens to the console as [`Msg`]s. The console
//! never calls the prover or a backend itself.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;

use super::state::{Command, Level};
use crate::backend::api::Backend;
use crate::circuits::Sample;
use crate::engine::compare::{compare, AblationEntry};
use crate::engine::store::RunStore;
use crate::engine::{default_mem_budget, EngineError, RunSpec};
use crate::groth16::prover::{request_cancel, ProveError};
use crate::timeline::export::{self, Format};
use crate::timeline::record::{lane_for, RecordEvent, RunRecord};
use crate::timeline::{LiveTap, OpenSpan, PhaseEvent};
use crate::toggles::Toggles;

/// How often a run in progress is sampled for the live view.
const POLL: Duration = Duration::from_millis(100);

/// The toggles `a` flips one at a time (the same list as `cuzk ablate`).
pub use crate::cli::runs::ABLATE_TOGGLES;

/// What the worker tells the console.
#[derive(Debug)]
pub enum Msg {
    /// A run began (`label` says which step of an ablation, empty otherwise).
    Started {
        /// Ablation step, or empty.
        label: String,
        /// Its toggles.
        toggles: Toggles,
        /// Its repeats.
        repeats: usize,
    },
    /// A long step moved (params setup, kernel build): stage, done, total.
    Progress {
        /// Stage name as the engine reports it.
        stage: String,
        /// Units done.
        done: usize,
        /// Units in the stage.
        total: usize,
    },
    /// Events of the run in progress.
    Live {
        /// A new capture began: drop what was streamed before.
        restarted: bool,
        /// Phases closed since the last message.
        closed: Vec<RecordEvent>,
        /// Phases open now (duration up to `now_us`).
        open: Vec<RecordEvent>,
        /// Run time now, µs.
        now_us: u64,
        /// Events dropped so far.
        dropped: u64,
    },
    /// A run finished; its record and where it was saved (or why not).
    Finished {
        /// The record.
        record: Box<RunRecord>,
        /// The record file, or the store error.
        saved: Result<PathBuf, String>,
    },
    /// A run failed (bad sample, engine or backend error); one line.
    Failed(String),
    /// A run stopped because the user asked.
    Cancelled,
    /// The worker has nothing running (after an aborted ablation).
    Idle,
    /// `a` finished: the matrix.
    AblationDone {
        /// Baseline run id.
        baseline: String,
        /// One column per flipped toggle.
        entries: Vec<AblationEntry>,
    },
    /// `e` finished.
    Exported {
        /// Run id.
        id: String,
        /// Files written.
        paths: Vec<PathBuf>,
    },
    /// Anything else worth a log line.
    Log(Level, String),
}

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
}

impl Worker {
    /// Starts the worker thread; messages arrive on `out`.
    pub fn spawn(cfg: WorkerConfig, out: UnboundedSender<Msg>) -> std::io::Result<Worker> {
        let (tx, rx) = std::sync::mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("cuzk-tui-worker".into())
            .spawn(move || worker_loop(cfg, rx, out))?;
        Ok(Worker { tx, handle: Some(handle) })
    }

    /// Sends a command (ignored if the worker is gone).
    pub fn send(&self, cmd: Command) {
        let _ = self.tx.send(cmd);
    }

    /// Asks a run in progress to stop and waits up to `limit` for the worker to end; false if it did not.
    pub fn shutdown(mut self, limit: Duration) -> bool {
        request_cancel();
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

/// Outcome of one run on the worker.
enum Outcome {
    Done(Box<RunRecord>),
    Failed,
    Cancelled,
    Quit,
}

struct Ctx {
    cfg: WorkerConfig,
    rx: Receiver<Command>,
    out: UnboundedSender<Msg>,
}

fn worker_loop(cfg: WorkerConfig, rx: Receiver<Command>, out: UnboundedSender<Msg>) {
    let cx = Ctx { cfg, rx, out };
    while let Ok(cmd) = cx.rx.recv() {
        match cmd {
            Command::Run { toggles, repeats } => {
                if let Outcome::Quit = cx.run(toggles, repeats, String::new()) {
                    return;
                }
            }
            Command::Ablate { toggles, repeats } => {
                if !cx.ablate(toggles, repeats) {
                    return;
                }
            }
            Command::Export(rec) => cx.export(&rec),
            Command::Cancel => {}
            Command::Quit => return,
        }
    }
}

impl Ctx {
    fn send(&self, m: Msg) {
        let _ = self.out.send(m);
    }

    /// One run: engine on a scoped thread, live events polled here. Saves the record.
    fn run(&self, toggles: Toggles, repeats: usize, label: String) -> Outcome {
        self.send(Msg::Started { label, toggles, repeats });
        let sample = match Sample::load(&self.cfg.sample) {
            Ok(s) => s,
            Err(e) => {
                self.send(Msg::Failed(e.to_string()));
                return Outcome::Failed;
            }
        };
        let backend = self.cfg.backend.as_ref();
        let spec = RunSpec {
            sample: &sample,
            toggles,
            backend,
            repeats: repeats.max(1),
            mem_budget: default_mem_budget(),
        };
        let throttle: Mutex<(String, Option<Instant>)> = Mutex::new((String::new(), None));
        let out = self.out.clone();
        let progress = move |stage: &str, done: usize, total: usize| {
            let mut t = throttle.lock().unwrap_or_else(|p| p.into_inner());
            let now = Instant::now();
            let fresh =
                t.0 != stage || done >= total || t.1.is_none_or(|at| now - at >= Duration::from_millis(50));
            if fresh {
                *t = (stage.to_string(), Some(now));
                let _ = out.send(Msg::Progress { stage: stage.to_string(), done, total });
            }
        };
        let mut tap = LiveTap::new();
        let mut quit = false;
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let result = std::thread::scope(|s| {
            let spawned = std::thread::Builder::new().name("cuzk-tui-run".into()).spawn_scoped(s, || {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    crate::engine::run(&spec, &progress)
                }));
                let _ = done_tx.send(r);
            });
            if let Err(e) = spawned {
                return Err(Some(format!("cannot start a run thread: {e}")));
            }
            loop {
                match done_rx.recv_timeout(POLL) {
                    Ok(Ok(Err(EngineError::Prove(ProveError::Cancelled)))) => return Err(None),
                    Ok(Ok(r)) => return r.map_err(|e| Some(e.to_string())),
                    Ok(Err(panic)) => return Err(Some(format!("internal error: {}", panic_text(&panic)))),
                    Err(RecvTimeoutError::Disconnected) => {
                        return Err(Some("run thread ended without a result".into()))
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                }
                self.forward_live(&mut tap, backend.name());
                loop {
                    match self.rx.try_recv() {
                        Ok(Command::Cancel) => request_cancel(),
                        Ok(Command::Quit) | Err(TryRecvError::Disconnected) => {
                            quit = true;
                            request_cancel();
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
        match result {
            Ok(r) => {
                let saved = self.cfg.store.save(&r.record).map_err(|e| e.to_string());
                if let Some(w) = r.params_info.outcome.as_ref().and_then(|o| o.warning()) {
                    self.send(Msg::Log(Level::Warn, w.to_string()));
                }
                let record = Box::new(r.record);
                self.send(Msg::Finished { record: record.clone(), saved });
                Outcome::Done(record)
            }
            Err(None) => {
                self.send(Msg::Cancelled);
                Outcome::Cancelled
            }
            Err(Some(e)) => {
                self.send(Msg::Failed(e));
                Outcome::Failed
            }
        }
    }

    fn forward_live(&self, tap: &mut LiveTap, backend: &str) {
        let Some(p) = tap.poll() else { return };
        let closed = p.closed.iter().map(|e| closed_event(e, backend)).collect();
        let open = p.open.iter().map(|o| open_event(o, p.now_us, backend)).collect();
        self.send(Msg::Live { restarted: p.restarted, closed, open, now_us: p.now_us, dropped: p.dropped });
    }

    /// Baseline, then each ablation toggle flipped alone; false when the user quit.
    fn ablate(&self, base_toggles: Toggles, repeats: usize) -> bool {
        let steps = ABLATE_TOGGLES.len() + 1;
        let base = match self.run(base_toggles, repeats, format!("ablate 1/{steps}: baseline")) {
            Outcome::Done(r) => r,
            Outcome::Quit => return false,
            _ => {
                self.send(Msg::Log(Level::Warn, "ablation stopped".into()));
                return true;
            }
        };
        let mut entries = Vec::new();
        for (i, id) in ABLATE_TOGGLES.iter().enumerate() {
            let mut t = base_toggles;
            let on = !t.get(id).unwrap_or(false);
            t.set(id, on);
            let label = format!("ablate {}/{steps}: {id} {}", i + 2, if on { "on" } else { "off" });
            match self.run(t, repeats, label) {
                Outcome::Done(r) => entries.push(AblationEntry {
                    toggle: id.to_string(),
                    record_id: r.id.clone(),
                    rows: compare(&base, &r),
                }),
                Outcome::Quit => return false,
                _ => {
                    self.send(Msg::Log(Level::Warn, "ablation stopped".into()));
                    return true;
                }
            }
        }
        self.send(Msg::AblationDone { baseline: base.id.clone(), entries });
        true
    }

    /// Every export format of `rec` into `<data dir>/exports/`.
    fn export(&self, rec: &RunRecord) {
        let dir = self.cfg.store.exports_dir();
        if let Err(e) = std::fs::create_dir_all(&dir) {
            self.send(Msg::Log(Level::Error, format!("{}: cannot create folder: {e}", dir.display())));
            return;
        }
        let mut paths = Vec::new();
        for f in Format::ALL {
            let p = dir.join(f.file_name(&rec.id));
            match export::write(rec, f, &p) {
                Ok(()) => paths.push(p),
                Err(e) => {
                    self.send(Msg::Log(Level::Error, format!("{}: cannot write: {e}", p.display())));
                    return;
                }
            }
        }
        self.send(Msg::Exported { id: rec.id.clone(), paths });
    }
}

fn arg<'a>(args: &'a [(&'static str, String)], key: &str) -> Option<&'a str> {
    args.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str())
}

fn record_event(
    phase: &str,
    circuit: Option<u64>,
    device: Option<u64>,
    start_us: u64,
    dur_us: u64,
    args: &[(&'static str, String)],
    backend: &str,
) -> RecordEvent {
    let slot = arg(args, "slot").and_then(|v| v.parse().ok());
    RecordEvent {
        phase: phase.to_string(),
        lane: lane_for(phase, slot, device, backend),
        circuit,
        device,
        batch: None,
        repeat: 0,
        start_us,
        dur_us,
        args: args.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
    }
}

/// A closed span as the live timeline draws it (same lane rule as the run record).
fn closed_event(e: &PhaseEvent, backend: &str) -> RecordEvent {
    record_event(e.phase, e.circuit, e.device, e.start_us, e.dur_us, &e.args, backend)
}

/// An open span drawn as a block growing up to `now_us`.
fn open_event(o: &OpenSpan, now_us: u64, backend: &str) -> RecordEvent {
    let dur = now_us.saturating_sub(o.start_us).max(1);
    let mut e = record_event(o.phase, o.circuit, o.device, o.start_us, dur, &o.args, backend);
    e.args.insert("running".into(), "yes".into());
    e
}

/// The message of a caught panic.
pub fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = crate::tui::last_panic() {
        s
    } else {
        "panic".to_string()
    }
}
