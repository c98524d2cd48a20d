//! The console's model: runs, the run in progress, selection, viewport, toggles, log and view. Pure data
//! plus transitions (keys → commands, worker messages → state), so it is tested without a terminal.

mod input;
pub mod timeline;

use std::collections::BTreeMap;

pub use timeline::Viewport;

use crate::engine::compare::{compare, AblationEntry, PhaseRow};
use crate::timeline::record::{PhaseTotals, RecordEvent, RepeatSummary, RunRecord};
use crate::tui::theme::{Theme, ThemeSet};
use crate::vocab::Toggles;

pub use msg::Msg;

mod msg;

/// What the console proves: shown in the header.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SampleMeta {
    /// Sample name.
    pub name: String,
    /// Sample file as given.
    pub path: String,
    /// Circuits per repeat (sectors × partitions).
    pub circuits: u64,
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
    /// What it is (`ablate 2/7: a1 on`), empty for a plain run.
    pub label: String,
    /// Its toggles.
    pub toggles: Toggles,
    /// Its repeats.
    pub repeats: usize,
    /// Phases finished so far.
    pub closed: Vec<RecordEvent>,
    /// Phases running now, drawn up to `now_us`.
    pub open: Vec<RecordEvent>,
    /// Run time of the latest update, µs.
    pub now_us: u64,
    /// Events the capture dropped so far.
    pub dropped: u64,
    /// The long step in progress (params setup, kernel build): stage, done, total.
    pub progress: Option<(String, usize, usize)>,
}

/// An ablation to show: the baseline and one column per flipped toggle.
#[derive(Clone, Debug, PartialEq)]
pub struct Ablation {
    /// Baseline run id.
    pub baseline: String,
    /// One entry per toggle flipped alone.
    pub entries: Vec<AblationEntry>,
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
    /// Baseline with these toggles, then each ablation toggle flipped alone.
    Ablate {
        /// Baseline toggles.
        toggles: Toggles,
        /// Repeats per configuration.
        repeats: usize,
    },
    /// Write every export format of this run.
    Export(Box<RunRecord>),
    /// Stop the run in progress after its current phase.
    Cancel,
    /// Leave the console (cancelling a run in progress).
    Quit,
}

/// Everything the console shows.
pub struct App {
    /// The sample.
    pub sample: SampleMeta,
    /// The backend.
    pub backend: BackendMeta,
    /// Toggles for the next run.
    pub toggles: Toggles,
    /// Repeats of the last `R` (also used by `a`).
    pub repeats: usize,
    /// Stored runs, oldest first, plus the ones finished in this session.
    pub runs: Vec<RunRecord>,
    /// Index into `runs` of the run the Live view shows when idle.
    pub shown: Option<usize>,
    /// Cursor of the History view.
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
    /// Details popup of a phase instance (Enter).
    pub details: Option<RecordEvent>,
    /// The repeat-count prompt (`R`): digits typed so far.
    pub prompt: Option<String>,
    /// Timeline zoom/pan/lane.
    pub viewport: Viewport,
    /// Log pane, oldest first.
    pub log: Vec<LogLine>,
    /// Time of day for new log lines (set by the app loop; fixed in tests).
    pub clock: String,
    /// Available themes.
    pub themes: ThemeSet,
    /// Index of the theme in use.
    pub theme: usize,
    /// Latest ablation.
    pub ablation: Option<Ablation>,
    /// Set when the user asked to quit.
    pub quit: bool,
}

/// Longest log kept in memory.
const LOG_CAP: usize = 2000;

impl App {
    /// A console over `runs` (oldest first) with the given themes; theme errors go to the log.
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
        let shown = runs.len().checked_sub(1);
        let mut app = App {
            sample,
            backend,
            toggles,
            repeats: 1,
            history_sel: shown.unwrap_or(0),
            shown,
            runs,
            baseline: None,
            candidate: None,
            live: None,
            state: RunState::Idle,
            elapsed_us: 0,
            view: View::Live,
            details: None,
            prompt: None,
            viewport: Viewport::default(),
            log: Vec::new(),
            clock: "00:00:00".into(),
            themes,
            theme: 0,
            ablation: None,
            quit: false,
        };
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

    /// Baseline and candidate of the Compare view: the candidate (or the last run) against the baseline
    /// (or the run before the candidate).
    pub fn compare_pair(&self) -> Option<(usize, usize)> {
        let cand = match &self.candidate {
            Some(id) => self.run_index(id)?,
            None => self.runs.len().checked_sub(1)?,
        };
        let base = match self.baseline.as_deref().and_then(|id| self.run_index(id)) {
            Some(b) if b != cand => b,
            _ => cand.checked_sub(1)?,
        };
        Some((base, cand))
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

    /// The Live phase table: the run shown (or in progress) against the baseline (or the run before it),
    /// with its label and the baseline's number; verdicts are left out while a run is in progress.
    pub fn phase_rows(&self) -> (Vec<PhaseRow>, String, Option<usize>) {
        let (cur, label, cur_idx) = match (&self.live, self.shown) {
            (Some(l), _) => (partial_record(l), format!("#{}", l.number), self.runs.len()),
            (None, Some(i)) => match self.runs.get(i) {
                Some(r) => (r.clone(), format!("#{}", i + 1), i),
                None => return (Vec::new(), String::new(), None),
            },
            (None, None) => return (Vec::new(), String::new(), None),
        };
        let base_idx = match self.baseline.as_deref().and_then(|id| self.run_index(id)) {
            Some(b) if b != cur_idx => Some(b),
            _ => cur_idx.checked_sub(1),
        };
        let empty;
        let base = match base_idx.and_then(|b| self.runs.get(b)) {
            Some(b) => b,
            None => {
                empty = RunRecord { repeats: Vec::new(), events: Vec::new(), ..cur.clone() };
                &empty
            }
        };
        let mut rows = compare(base, &cur);
        if self.live.is_some() {
            for r in &mut rows {
                r.verdict = None;
            }
        }
        (rows, label, base_idx.map(|b| b + 1))
    }

    /// Applies a worker message.
    pub fn apply(&mut self, msg: Msg) {
        match msg {
            Msg::Started { label, toggles, repeats } => {
                let number = self.runs.len() + 1;
                let what = if label.is_empty() { String::new() } else { format!(" ({label})") };
                self.push_log(
                    Level::Info,
                    format!("run #{number} started{what}: {} ×{repeats}", toggles.compact()),
                );
                self.live = Some(LiveRun { number, label, toggles, repeats, ..LiveRun::default() });
                self.state = RunState::Running;
                self.elapsed_us = 0;
                self.viewport.fit();
                self.details = None;
            }
            Msg::Progress { stage, done, total } => {
                if let Some(l) = &mut self.live {
                    l.progress = Some((stage, done, total));
                }
            }
            Msg::Live { restarted, closed, open, now_us, dropped } => {
                if let Some(l) = &mut self.live {
                    if restarted {
                        l.closed.clear();
                    }
                    l.closed.extend(closed);
                    l.open = open;
                    l.now_us = now_us;
                    l.dropped = dropped;
                }
            }
            Msg::Finished { record, saved } => self.finished(*record, saved),
            Msg::Failed(e) => {
                let n = self.live.take().map_or(self.runs.len() + 1, |l| l.number);
                self.push_log(Level::Error, format!("run #{n} failed: {e}"));
                self.state = RunState::Failed;
            }
            Msg::Cancelled => {
                let n = self.live.take().map_or(self.runs.len() + 1, |l| l.number);
                self.push_log(Level::Warn, format!("run #{n} cancelled"));
                self.state = RunState::Idle;
            }
            Msg::Idle => {
                if self.state == RunState::Running {
                    self.state = RunState::Idle;
                }
                self.live = None;
            }
            Msg::AblationDone { baseline, entries } => {
                self.push_log(
                    Level::Good,
                    format!("ablation done: baseline {baseline}, {} toggles", entries.len()),
                );
                self.ablation = Some(Ablation { baseline, entries });
                self.view = View::Ablation;
            }
            Msg::Exported { id, paths } => {
                let list: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                self.push_log(Level::Good, format!("exported run {id}: {}", list.join(", ")));
            }
            Msg::Log(level, text) => self.push_log(level, text),
        }
    }

    fn finished(&mut self, record: RunRecord, saved: Result<std::path::PathBuf, String>) {
        let number = self.live.take().map_or(self.runs.len() + 1, |l| l.number);
        let secs = record.wall_us as f64 / 1e6;
        let total = record.proofs.len();
        let ok = record.proofs.iter().filter(|p| p.verified == Some(true)).count();
        let (verify, level) = if record.proofs.iter().all(|p| p.verified.is_none()) {
            ("verify off".to_string(), Level::Info)
        } else if ok == total && total > 0 {
            ("verified ✓".to_string(), Level::Good)
        } else {
            (format!("verify FAILED ✗ ({} of {total})", total - ok), Level::Error)
        };
        self.push_log(level, format!("run #{number} finished in {secs:.2} s · {verify}"));
        if record.dropped_events > 0 {
            self.push_log(
                Level::Warn,
                format!("run #{number}: {} timeline events dropped", record.dropped_events),
            );
        }
        if let Err(e) = saved {
            self.push_log(Level::Error, format!("run #{number} not saved: {e}"));
        }
        self.runs.push(record);
        self.shown = Some(self.runs.len() - 1);
        self.history_sel = self.runs.len() - 1;
        self.state = RunState::Idle;
    }
}

/// A record of the events a run in progress has closed so far (one repeat), so the phase table can compare
/// it with the baseline while it runs.
fn partial_record(l: &LiveRun) -> RunRecord {
    let mut phases: BTreeMap<String, PhaseTotals> = BTreeMap::new();
    for e in &l.closed {
        let t = phases.entry(e.phase.clone()).or_default();
        t.count += 1;
        t.sum_us += e.dur_us;
    }
    RunRecord {
        schema: crate::timeline::record::SCHEMA.into(),
        id: format!("live-{}", l.number),
        started: String::new(),
        sample: Default::default(),
        toggles: l.toggles,
        backend: String::new(),
        devices: Vec::new(),
        host: Default::default(),
        events: Vec::new(),
        repeats: vec![RepeatSummary { wall_us: l.now_us, phases }],
        wall_us: l.now_us,
        peak_rss_bytes: 0,
        dropped_events: l.dropped,
        proofs: Vec::new(),
        version: String::new(),
    }
}
