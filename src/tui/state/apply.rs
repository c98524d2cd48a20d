//! Worker messages → state: runs starting, streaming, finishing, ablation progress, exports, deletions.

use super::runs::partial_record;
use super::{secs2, wall_text, Ablation, App, Level, LiveRun, Msg, RunState, View};
use crate::timeline::record::RunRecord;

impl App {
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
                self.cursor = None;
            }
            Msg::Progress(p) => {
                if let Some(l) = &mut self.live {
                    l.progress = Some(p);
                }
            }
            Msg::Live { restarted, closed, open, counters, now_us, dropped } => {
                if let Some(l) = &mut self.live {
                    if restarted {
                        l.closed.clear();
                    }
                    l.closed.extend(closed);
                    l.open = open;
                    if restarted {
                        l.counters.clear();
                    }
                    for c in counters {
                        match l.counters.iter_mut().find(|s| s.name == c.name) {
                            Some(s) => s.samples.extend(c.samples),
                            None => l.counters.push(c),
                        }
                    }
                    l.now_us = now_us;
                    l.dropped = dropped;
                }
            }
            Msg::Finished { record, saved } => self.finished(*record, saved),
            Msg::Kept { record, saved } => self.kept(*record, saved),
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
            Msg::StepDone { label, wall_us } => {
                self.live = None;
                self.push_log(Level::Info, format!("{label}: wall {}", secs2(wall_us)));
            }
            Msg::AblationProgress { baseline, entries, done } => {
                self.ablation = Some(Ablation { baseline, entries, progress: Some(done) });
            }
            Msg::AblationDone { baseline, entries } => {
                self.push_log(
                    Level::Good,
                    format!("ablation done: baseline {baseline}, {} toggles", entries.len()),
                );
                self.ablation = Some(Ablation { baseline, entries, progress: None });
                self.view = View::Ablation;
            }
            Msg::Exported { id, paths } => {
                let list: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                self.push_log(Level::Good, format!("exported run {id}: {}", list.join(", ")));
            }
            Msg::Deleted { id, result } => match result {
                Ok(()) => self.remove_run(&id),
                Err(e) => self.push_log(Level::Error, format!("run {id} not deleted: {e}")),
            },
            Msg::Log(level, text) => self.push_log(level, text),
            Msg::Link(l) => self.link(l),
            Msg::Daemon(d) => self.daemon_status(d),
            Msg::Job(j) => self.daemon_job(j),
            Msg::Follow(j) => self.follow(j),
            Msg::Stored(runs) => self.stored(runs),
            Msg::Streamed { id } => self.streamed(id),
        }
    }

    fn finished(&mut self, record: RunRecord, saved: Result<std::path::PathBuf, String>) {
        let number = self.live.take().map_or(self.runs.len() + 1, |l| l.number);
        let total = record.proofs.len();
        let ok = record.proofs.iter().filter(|p| p.verified == Some(true)).count();
        let (verify, level) = if record.proofs.iter().all(|p| p.verified.is_none()) {
            ("verify off".to_string(), Level::Info)
        } else if ok == total && total > 0 {
            ("verified ✓".to_string(), Level::Good)
        } else {
            (format!("verify FAILED ✗ ({} of {total})", total - ok), Level::Error)
        };
        self.push_log(level, format!("run #{number} finished: {} · {verify}", wall_text(&record)));
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

    /// A stopped run's partial record joins the history (shown), the live run stays until `Failed` or
    /// `Cancelled` ends it.
    fn kept(&mut self, record: RunRecord, saved: Result<std::path::PathBuf, String>) {
        let number = self.live.as_ref().map_or(self.runs.len() + 1, |l| l.number);
        match saved {
            Ok(p) => self.push_log(
                Level::Info,
                format!(
                    "run #{number}: what it captured ({}) is saved to {}",
                    record.outcome.name(),
                    p.display()
                ),
            ),
            Err(e) => {
                self.push_log(Level::Error, format!("run #{number}: its partial record was not saved: {e}"))
            }
        }
        if self.run_index(&record.id).is_none() {
            self.runs.push(record);
            self.shown = Some(self.runs.len() - 1);
            self.history_sel = self.runs.len() - 1;
        }
    }

    /// The followed job's run as streamed, kept as its record (its events, counters and phase totals; no
    /// proofs or host details, which only the daemon's record has).
    fn streamed(&mut self, id: String) {
        let Some(l) = self.live.as_ref() else { return };
        let base = self.baseline_of(self.runs.len(), &self.sample.name, &self.backend.name);
        let mut record = partial_record(l, base.and_then(|b| self.runs.get(b)), self);
        record.id = id.clone();
        self.finished(record, Ok(std::path::PathBuf::new()));
        let why = "its record is in the daemon's run store, not this console's (another CUZK_HOME)";
        self.push_log(Level::Warn, format!("run {id}: {why}; shown as streamed"));
    }

    /// Drops a deleted run and keeps every index and mark pointing at the same runs.
    fn remove_run(&mut self, id: &str) {
        let Some(i) = self.run_index(id) else { return };
        self.runs.remove(i);
        let fix = |x: usize| if x > i { x - 1 } else { x };
        self.shown = match self.shown {
            Some(s) if s == i => self.latest_of_sample(self.runs.len()),
            s => s.map(fix),
        };
        self.history_sel = fix(self.history_sel).min(self.runs.len().saturating_sub(1));
        if self.baseline.as_deref() == Some(id) {
            self.baseline = None;
        }
        if self.candidate.as_deref() == Some(id) {
            self.candidate = None;
        }
        self.push_log(Level::Info, format!("deleted run {id}"));
    }
}
