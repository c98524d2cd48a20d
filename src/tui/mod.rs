//! The terminal console: a live timeline of the prover's phases, toggles, history, compare
//! and ablation views. `state` is the model (pure, tested without a terminal), `view` draws it, `app` runs
//! the event loop and `worker` is the only part that talks to the engine.

mod app;
pub mod keys;
pub mod prefs;
pub mod state;
pub mod theme;
pub mod view;
pub mod worker;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::Duration;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::{cursor, execute, terminal};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

use crate::backend::select::select;
use crate::circuits::Sample;
use crate::engine::floor::Floors;
use crate::engine::store::RunStore;
use crate::vocab::BackendKind;
use state::{App, BackendMeta, Level, SampleMeta};
use theme::ThemeSet;
use worker::{Worker, WorkerConfig};

/// How long quitting waits for a run in progress to stop before leaving anyway.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

/// What `cuzk tui` (and bare `cuzk`) opens.
#[derive(Clone, Debug)]
pub struct TuiOptions {
    /// The sample file.
    pub sample: PathBuf,
    /// Backend choice.
    pub backend: BackendKind,
    /// Theme name (default: the first, `dark`).
    pub theme: Option<String>,
}

/// Whether the console can open here: it needs a terminal on stdout.
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// Opens the console and runs it until the user quits; errors before the terminal is taken are one line.
pub fn run(opts: TuiOptions) -> Result<(), String> {
    if !stdout_is_terminal() {
        return Err("the console needs a terminal on stdout (try `cuzk info` or `cuzk prove`)".into());
    }
    let selected = select(opts.backend).map_err(|e| e.to_string())?;
    let store = RunStore::open(None).map_err(|e| e.to_string())?;
    // User themes: ./themes (a checkout) then <data dir>/themes (a later folder wins on a name clash).
    let user_themes = store.root().join("themes");
    let themes = ThemeSet::load_dirs(&[std::path::Path::new("themes"), &user_themes]);
    if let Some(name) = &opts.theme {
        themes.find(name)?;
    }
    let (runs, warnings) = store.list();
    let (sample_meta, sample_err) = match Sample::load(&opts.sample) {
        Ok(s) => (
            SampleMeta {
                name: s.name.clone(),
                path: opts.sample.display().to_string(),
                circuits: (s.sectors * s.circuits_per_sector()) as u64,
                proof: s.filecoin.as_ref().map(|job| {
                    let n = job.partitions();
                    format!("{} · {n} partition{}", job.registered.name(), if n == 1 { "" } else { "s" })
                }),
            },
            None,
        ),
        Err(e) => (
            SampleMeta {
                name: opts.sample.display().to_string(),
                path: opts.sample.display().to_string(),
                circuits: 0,
                proof: None,
            },
            Some(e),
        ),
    };
    let (mut prefs, prefs_warning) = prefs::PrefsFile::load(store.root());
    let toggles = match prefs.prefs().toggles.get(&sample_meta.name) {
        Some(t) => *t,
        None => Sample::load(&opts.sample).map(|s| s.toggles).unwrap_or_default(),
    };
    let backend = BackendMeta {
        name: selected.backend.name().into(),
        device: selected.backend.device(),
        reason: selected.reason.clone(),
    };
    let mut app = App::new(sample_meta, backend, toggles, runs, themes);
    app.clock = app::clock();
    match (&opts.theme, &prefs.prefs().theme) {
        (Some(name), _) => app.set_theme(name),
        (None, Some(name)) if themes_has(&app, name) => app.set_theme(name),
        _ => {}
    }
    app.floors = Floors::load_cached();
    if let Some(w) = prefs_warning {
        app.push_log(Level::Warn, w);
    }
    for w in warnings {
        app.push_log(Level::Warn, w);
    }
    let b = &app.backend;
    let line = format!("backend {}: {} ({})", b.name, b.device, b.reason);
    app.push_log(Level::Info, line);
    if let Some(e) = sample_err {
        app.push_log(Level::Error, e.to_string());
    }
    let n = app.runs.len();
    app.push_log(Level::Info, format!("{n} runs in {} · r run · ? help", store.runs_dir().display()));
    match app.floors.as_ref().map(|f| f.measured.clone()) {
        Some(at) => app.push_log(Level::Info, format!("machine floors measured {at} (cuzk bench floor)")),
        None => app.push_log(Level::Info, "no machine floors yet: `cuzk bench floor` measures them once"),
    }

    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let worker =
        Worker::spawn(WorkerConfig { sample: opts.sample.clone(), backend: selected.backend, store }, tx)
            .map_err(|e| format!("cannot start the worker thread: {e}"))?;
    install_panic_hook();
    let mut terminal = enter().map_err(|e| format!("terminal: {e}"))?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build();
    let result = match rt {
        Ok(rt) => rt.block_on(app::run_loop(&mut terminal, &mut app, &worker, rx, &mut prefs)),
        Err(e) => Err(e),
    };
    if app.running() {
        app.push_log(Level::Warn, "quitting: waiting for the run to stop after its current phase");
        let _ = terminal.draw(|f| view::render(f, &app));
    }
    let stopped = worker.shutdown(SHUTDOWN_WAIT);
    leave();
    if !stopped {
        eprintln!("cuzk: the run did not stop within {} s; exiting anyway", SHUTDOWN_WAIT.as_secs());
    }
    result.map_err(|e| format!("terminal: {e}"))
}

/// Whether a theme of this name is available (a remembered one may have been removed since).
fn themes_has(app: &App, name: &str) -> bool {
    app.themes.index_of(name).is_some()
}

/// Set while the console owns the terminal (raw mode, alternate screen).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The console's thread: a panic there restores the terminal; elsewhere it becomes a failed run.
static UI_THREAD: OnceLock<std::thread::ThreadId> = OnceLock::new();
/// The message of the last panic off the console thread, for the log.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// The last panic message caught off the console thread (worker, prover), taken once.
pub fn last_panic() -> Option<String> {
    LAST_PANIC.lock().unwrap_or_else(|p| p.into_inner()).take()
}

fn enter() -> std::io::Result<Terminal<CrosstermBackend<std::io::Stdout>>> {
    terminal::enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut out = std::io::stdout();
    if let Err(e) = execute!(out, terminal::EnterAlternateScreen, EnableMouseCapture, cursor::Hide) {
        leave();
        return Err(e);
    }
    Terminal::new(CrosstermBackend::new(out)).inspect_err(|_| leave())
}

/// Gives the terminal back: leaves the alternate screen, shows the cursor, ends raw mode (idempotent).
fn leave() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ =
            execute!(std::io::stdout(), DisableMouseCapture, terminal::LeaveAlternateScreen, cursor::Show);
        let _ = terminal::disable_raw_mode();
    }
}

/// Panic hook: on the console thread, restore the terminal, then report as usual; on other threads while
/// the console is up, keep the message for the log (the worker turns the panic into a failed run) instead
/// of printing over the screen.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    let _ = UI_THREAD.set(std::thread::current().id());
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let on_ui = UI_THREAD.get() == Some(&std::thread::current().id());
            if ACTIVE.load(Ordering::SeqCst) && !on_ui {
                *LAST_PANIC.lock().unwrap_or_else(|p| p.into_inner()) = Some(info.to_string());
                return;
            }
            leave();
            prev(info);
        }));
    });
}
