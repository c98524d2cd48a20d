//! The terminal console: a live timeline of the prover's phases, toggles, history, compare and ablation
//! views. `state` is the model (pure, tested without a terminal), `view` draws it, `app` runs the event loop,
//! and a [`source::Source`] feeds it: `worker`, the in-process engine, or `attach`, a daemon's watch stream.

mod app;
pub mod attach;
pub mod keys;
pub mod prefs;
pub mod setup;
pub mod source;
pub mod state;
pub mod term;
pub mod theme;
pub mod view;
pub mod worker;

use std::path::PathBuf;
use std::time::Duration;

use crate::backend::select::select;
use crate::circuits::Sample;
use crate::vocab::BackendKind;
use state::{App, BackendMeta, Level};
pub use term::stdout_is_terminal;
use worker::{Worker, WorkerConfig};

/// How long quitting waits for a run in progress to stop before leaving anyway.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

/// What `cuzk tui` (and bare `cuzk`) opens.
#[derive(Clone, Debug)]
pub struct TuiOptions {
    /// The sample file (attached: the one `r` submits to the daemon).
    pub sample: PathBuf,
    /// Backend choice (in-process only: attached, the daemon's).
    pub backend: BackendKind,
    /// Theme name (default: the first, `dark`).
    pub theme: Option<String>,
    /// A running daemon to attach to (`host:port`, `unix:///path`) instead of proving in-process.
    pub attach: Option<String>,
    /// Attached: print the console's screen once (no terminal needed) and leave.
    pub once: bool,
}

/// Opens the console and runs it until the user quits; errors before the terminal is taken are one line.
pub fn run(opts: TuiOptions) -> Result<(), String> {
    if let Some(addr) = &opts.attach {
        let how = attach::Open { addr, sample: &opts.sample, theme: opts.theme.as_deref(), once: opts.once };
        return attach::open(&how);
    }
    if opts.once {
        return Err("--once prints an attached console's screen: give --attach ADDR".into());
    }
    if !stdout_is_terminal() {
        return Err("the console needs a terminal on stdout (try `cuzk info` or `cuzk prove`)".into());
    }
    let selected = select(opts.backend).map_err(|e| e.to_string())?;
    let mut setup = setup::open(opts.theme.as_deref())?;
    let (sample_meta, sample_err) = setup::sample_meta(&opts.sample);
    let toggles = match setup.prefs.prefs().toggles.get(&sample_meta.name) {
        Some(t) => *t,
        None => Sample::load(&opts.sample).map(|s| s.toggles).unwrap_or_default(),
    };
    let backend = BackendMeta {
        name: selected.backend.name().into(),
        device: selected.backend.device(),
        reason: selected.reason.clone(),
    };
    let mut app = App::new(sample_meta, backend, toggles, setup.runs.clone(), setup.themes.clone());
    setup.dress(&mut app, opts.theme.as_deref());
    let b = &app.backend;
    let line = format!("backend {}: {} ({})", b.name, b.device, b.reason);
    app.push_log(Level::Info, line);
    if let Some(e) = sample_err {
        app.push_log(Level::Error, e);
    }
    let n = app.runs.len();
    app.push_log(Level::Info, format!("{n} runs in {} · r run · ? help", setup.store.runs_dir().display()));
    match app.floors.as_ref().map(|f| f.measured.clone()) {
        Some(at) => app.push_log(Level::Info, format!("machine floors measured {at} (cuzk bench floor)")),
        None => app.push_log(Level::Info, "no machine floors yet: `cuzk bench floor` measures them once"),
    }

    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let store = setup.store.clone();
    let worker =
        Worker::spawn(WorkerConfig { sample: opts.sample.clone(), backend: selected.backend, store }, tx)
            .map_err(|e| format!("cannot start the worker thread: {e}"))?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| format!("cannot start the console's runtime: {e}"))?;
    let mut screen = app::Screen::enter().map_err(|e| format!("terminal: {e}"))?;
    let result = screen.run(&rt, &mut app, &worker, rx, &mut setup.prefs);
    if app.running() {
        app.push_log(Level::Warn, "quitting: waiting for the run to stop after its current phase");
        screen.draw(&app);
    }
    let stopped = worker.shutdown(SHUTDOWN_WAIT);
    drop(screen);
    if !stopped {
        eprintln!("cuzk: the run did not stop within {} s; exiting anyway", SHUTDOWN_WAIT.as_secs());
    }
    result.map_err(|e| format!("terminal: {e}"))
}
