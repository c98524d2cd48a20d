//! The console's model: runs, the run in progress, selection, viewport, toggles, focus and scrolling, log and
//! view. Pure data plus transitions (keys and mouse → commands, worker messages → state), so it is tested
//! without a terminal.

mod apply;
mod attach;
pub mod cursor;
pub mod daemon;
mod input;
pub mod layout;
mod mouse;
mod msg;
pub mod nav;
pub mod runs;
pub mod timeline;

pub use layout::{Drawn, Panel, Scrolls};
pub use msg::Msg;
pub use runs::PhaseTable;
pub use timeline::Viewport;

pub use crate::engine::setup_eta::SetupProgress;

use crate::engine::compare::AblationEntry;
use crate::engine::floor::Floors;
use crate::timeline::record::{CounterSeries, RecordEvent, RunRecord};
use crate::tui::theme::{Theme, ThemeSet};
use crate::vocab::Toggles;

/// What the console proves: shown in the header.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SampleMeta {
    /// Sample name.
    pub name: String,
    /// Sample file as given.
    pub path: String,
    /// Circuits per repeat (sectors × partitions).
    pub circuits: u64,
    /// For a real Filecoin circuit: the registered proof and its partitions (`StackedDrg2KiBV1_1 · 1
    /// partition`), shown in the header so a user sees which proof type runs.
    pub proof: Option<String>,
}

/// The backend runs go to: shown in the header, and it decides which toggles apply.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BackendMeta {
    /// `cpu` or `gpu`.
    pub name: String,
    /// Device description.
    pub device: String,
    /// Why this backend was chosen.
    pub reason: String,
}

impl BackendMeta {
    /// Whether the GPU-only toggles apply.
    pub fn is_gpu(&self) -> bool {
        self.name == "gpu"
    }
}

/// The screens of the console.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// Header, toggles, live timeline, phase table, log.
    Live,
    /// Every stored run.
    History,
    /// Baseline against candidate.
    Compare,
    /// The toggle × phase matrix.
    Ablation,
    /// Every key.
    Help,
}

impl View {
    /// Views in `Tab` order.
    pub const ALL: [View; 5] = [View::Live, View::History, View::Compare, View::Ablation, View::Help];

    /// Title in the view bar.
    pub fn title(self) -> &'static str {
        match self {
            View::Live => "Live",
            View::History => "History",
            View::Compare => "Compare",
            View::Ablation => "Ablation",
            View::Help => "Help",
        }
    }
}

/// Whether a run is in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// Nothing running.
    Idle,
    /// The worker is running a job.
    Running,
    /// The last job failed (the log says why); the next `r` starts over.
    Failed,
}

/// How a log line is colored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Plain.
    Info,
    /// Success (verified).
    Good,
    /// Something to notice (n/a toggle, dropped events).
    Warn,
    /// A failure.
    Error,
}

/// One line of the log pane.
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    /// Wall-clock time `HH:MM:SS`.
    pub at: String,
    /// The message.
    pub text: String,
    /// Its color.
    pub level: Level,
}

/// The run in progress as the worker streams it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveRun {
    /// Its number (position it will take in the history, 1-based).
    pub number: usize,
    /// What it is (`ablate 2/6: a1 on`), empty for a plain run.
    pub label: String,
    /// Its toggles.
    pub toggles: Toggles,
    /// Its repeats.
    pub repeats: usize,
    /// Phases finished so far.
    pub closed: Vec<RecordEvent>,
    /// Phases running now, drawn up to `now_us`.
    pub open: Vec<RecordEvent>,
    /// Memory counters sampled so far.
    pub counters: Vec<CounterSeries>,
    /// Run time of the latest update, µs.
    pub now_us: u64,
    /// Events the capture dropped so far.
    pub dropped: u64,
    /// The long step in progress (params setup).
    pub progress: Option<SetupProgress>,
}

/// An ablation to show: the baseline and one column per flipped toggle.
#[derive(Clone, Debug, PartialEq)]
pub struct Ablation {
    /// Baseline run id.
    pub baseline: String,
    /// One entry per toggle flipped alone (measured so far while it runs).
    pub entries: Vec<AblationEntry>,
    /// Measurements done and planned while it runs; `None` once finished.
    pub progress: Option<(usize, usize)>,
}

/// A one-line prompt in the controls line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prompt {
    /// `R`: the repeat count typed so far.
    Repeats(String),
    /// `/`: the filter typed so far (History: runs; Live: lanes).
    Filter(String),
    /// `d`: delete this run id? (y/n).
    Delete(String),
}

/// What the key handler asks the app loop to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Run the sample with these toggles and repeats.
    Run {
        /// Toggles.
        toggles: Toggles,
        /// Repeats.
        repeats: usize,
    },
    /// Baseline with these toggles and each ablation toggle flipped alone, in interleaved rounds.
    Ablate {
        /// Baseline toggles.
        toggles: Toggles,
        /// Rounds (repeats per configuration).
        repeats: usize,
    },
    /// Write every export format of this run.
    Export(Box<RunRecord>),
    /// Delete this run from the store.
    Delete(String),
    /// Stop the run in progress after its current phase.
    Cancel,
    /// Leave the console (cancelling a run in progress).
    Quit,
}

/// An ablation's rounds when `R` was never given: verdicts need three repeats a side.
pub const ABLATE_REPEATS: usize = 3;

/// Everything the console shows.
pub struct App {
    /// The sample.
    pub sample: SampleMeta,
    /// The backend.
    pub backend: BackendMeta,
    /// Toggles for the next run.
    pub toggles: Toggles,
    /// Repeats of the last `R`.
    pub repeats: usize,
    /// Whether `R` was given in this session (else `a` runs [`ABLATE_REPEATS`] rounds).
    pub repeats_set: bool,
    /// Stored runs, oldest first, plus the ones finished in this session.
    pub runs: Vec<RunRecord>,
    /// Index into `runs` of the run the Live view shows when idle.
    pub shown: Option<usize>,
    /// Cursor of the History view (an index into `runs`).
    pub history_sel: usize,
    /// Baseline run id (`b`).
    pub baseline: Option<String>,
    /// Candidate run id (History `Enter`/`c`); `None` means the last run.
    pub candidate: Option<String>,
    /// The run in progress.
    pub live: Option<LiveRun>,
    /// Running, idle or failed.
    pub state: RunState,
    /// Elapsed time of the job in progress (set by the app loop), µs.
    pub elapsed_us: u64,
    /// Current screen.
    pub view: View,
    /// The panel keys scroll (and `e` maximizes).
    pub focus: Panel,
    /// Whether the focused panel fills the view (`e`).
    pub maximized: bool,
    /// Scroll positions of the tables and the log.
    pub scroll: Scrolls,
    /// What the last frame drew where (written by the views, read by scrolling and clicks).
    pub drawn: std::cell::Cell<Drawn>,
    /// Start (µs) of the block under the timeline cursor on the selected lane.
    pub cursor: Option<u64>,
    /// Details popup of a phase instance (Enter).
    pub details: Option<RecordEvent>,
    /// The prompt being typed, if any.
    pub prompt: Option<Prompt>,
    /// History filter (words that must all match a run's sample, backend, toggles or id).
    pub history_filter: String,
    /// Lane filter of the Live timeline (words that must all match a lane name).
    pub lane_filter: String,
    /// Timeline zoom/pan/lane.
    pub viewport: Viewport,
    /// A drag of the timeline in progress: start column, pan then, µs per column.
    pub drag: Option<(u16, u64, f64)>,
    /// Log pane, oldest first.
    pub log: Vec<LogLine>,
    /// Time of day for new log lines (set by the app loop; fixed in tests).
    pub clock: String,
    /// Available themes.
    pub themes: ThemeSet,
    /// Index of the theme in use.
    pub theme: usize,
    /// Latest ablation (in progress or finished).
    pub ablation: Option<Ablation>,
    /// This machine's measured floors (`cuzk bench floor`), if cached.
    pub floors: Option<Floors>,
    /// Set when the user asked to quit.
    pub quit: bool,
    /// The daemon the console is attached to (`None`: the in-process worker runs the proofs).
    pub attached: Option<daemon::Attached>,
}

/// Longest log kept in memory.
const LOG_CAP: usize = 2000;

impl App {
    /// A console over `runs` (oldest first) with the given themes; theme errors go to the log. The Live view
    /// starts on the last run of this sample and backend (never another sample's run).
    pub fn new(
        sample: SampleMeta,
        backend: BackendMeta,
        toggles: Toggles,
        runs: Vec<RunRecord>,
        themes: ThemeSet,
    ) -> App {
        let mut themes = themes;
        if themes.themes.is_empty() {
            themes.themes.push(Theme::default_dark());
        }
        let errors = std::mem::take(&mut themes.errors);
        let mut app = App {
            sample,
            backend,
            toggles,
            repeats: 1,
            repeats_set: false,
            history_sel: runs.len().saturating_sub(1),
            shown: None,
            runs,
            baseline: None,
            candidate: None,
            live: None,
            state: RunState::Idle,
            elapsed_us: 0,
            view: View::Live,
            focus: Panel::Timeline,
            maximized: false,
            scroll: Scrolls::default(),
            drawn: std::cell::Cell::new(Drawn::default()),
            cursor: None,
            details: None,
            prompt: None,
            history_filter: String::new(),
            lane_filter: String::new(),
            viewport: Viewport::default(),
            drag: None,
            log: Vec::new(),
            clock: "00:00:00".into(),
            themes,
            theme: 0,
            ablation: None,
            floors: None,
            quit: false,
            attached: None,
        };
        app.shown = app.latest_of_sample(app.runs.len());
        for e in errors {
            app.push_log(Level::Warn, format!("theme: {e}"));
        }
        app
    }

    /// The theme in use.
    pub fn theme(&self) -> &Theme {
        &self.themes.themes[self.theme.min(self.themes.themes.len().saturating_sub(1))]
    }

    /// Picks a theme by name; an unknown one is logged with the available names.
    pub fn set_theme(&mut self, name: &str) {
        match self.themes.index_of(name) {
            Some(i) => self.theme = i,
            None => {
                let names: Vec<&str> = self.themes.themes.iter().map(|t| t.name.as_str()).collect();
                let msg = format!("unknown theme `{name}` (available: {})", names.join(", "));
                self.push_log(Level::Error, msg);
            }
        }
    }

    /// Appends a log line stamped with [`App::clock`].
    pub fn push_log(&mut self, level: Level, text: impl Into<String>) {
        self.log.push(LogLine { at: self.clock.clone(), text: text.into(), level });
        if self.log.len() > LOG_CAP {
            self.log.drain(..self.log.len() - LOG_CAP);
        }
    }

    /// Whether the console is attached to a daemon (its keys then act on the daemon, or say why not).
    pub fn is_attached(&self) -> bool {
        self.attached.is_some()
    }

    /// Whether a job is in progress.
    pub fn running(&self) -> bool {
        self.state == RunState::Running
    }

    /// The run the Live view shows when idle.
    pub fn shown_run(&self) -> Option<&RunRecord> {
        self.shown.and_then(|i| self.runs.get(i))
    }

    /// Index of a run by id.
    pub fn run_index(&self, id: &str) -> Option<usize> {
        self.runs.iter().position(|r| r.id == id)
    }

    /// Constraints per circuit, from the latest run of this sample (`None` before the first).
    pub fn constraints(&self) -> Option<u64> {
        self.runs.iter().rev().find(|r| r.sample.name == self.sample.name).map(|r| r.sample.constraints)
    }

    /// Rounds an `a` runs: the last `R`, else [`ABLATE_REPEATS`].
    pub fn ablate_repeats(&self) -> usize {
        if self.repeats_set {
            self.repeats.max(1)
        } else {
            ABLATE_REPEATS
        }
    }

    /// The events the Live timeline draws and the run time they cover (µs).
    pub fn timeline_events(&self) -> (Vec<&RecordEvent>, u64) {
        if let Some(l) = &self.live {
            let evs: Vec<&RecordEvent> = l.closed.iter().chain(l.open.iter()).collect();
            let end = evs.iter().map(|e| e.start_us.saturating_add(e.dur_us)).max().unwrap_or(0);
            return (evs, l.now_us.max(end));
        }
        match self.shown_run() {
            Some(r) => {
                let end = r.events.iter().map(|e| e.start_us.saturating_add(e.dur_us)).max().unwrap_or(0);
                (r.events.iter().collect(), r.wall_us.max(end))
            }
            None => (Vec::new(), 0),
        }
    }

    /// The memory counters the Live timeline draws (of the run in progress, else the run shown).
    pub fn timeline_counters(&self) -> &[CounterSeries] {
        match (&self.live, self.shown_run()) {
            (Some(l), _) => &l.counters,
            (None, Some(r)) => &r.counters,
            (None, None) => &[],
        }
    }

    /// Lane names of the Live timeline in display order, after the lane filter.
    pub fn timeline_lanes(&self) -> Vec<String> {
        let (events, _) = self.timeline_events();
        let words: Vec<String> = self.lane_filter.split_whitespace().map(str::to_lowercase).collect();
        timeline::lanes_of(events.iter().copied())
            .into_iter()
            .filter(|l| words.iter().all(|w| l.to_lowercase().contains(w)))
            .collect()
    }
}

/// Seconds with two decimals (`1.85 s`), the log's unit for walls.
pub fn secs2(us: u64) -> String {
    format!("{:.2} s", us as f64 / 1e6)
}

/// A run's wall as the log and status lines say it: the median proving wall (with the repeat count when
/// repeated), then the setup outside it, e.g. `wall 1.85 s (median of 3) · setup 31.20 s (params_gen)`.
pub fn wall_text(r: &RunRecord) -> String {
    let n = r.repeats.len();
    let median = if n > 1 { format!(" (median of {n})") } else { String::new() };
    let setup = r.setup_phases();
    let setup = match r.setup_us() {
        us if us >= 10_000 => {
            let names: Vec<&str> =
                setup.iter().filter(|(_, t)| *t >= 10_000).map(|(p, _)| p.as_str()).collect();
            format!(" · setup {} ({})", secs2(us), names.join(", "))
        }
        _ => String::new(),
    };
    format!("wall {}{median}{setup}", secs2(r.wall_median_us()))
}
