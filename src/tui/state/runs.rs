//! Which runs the views put side by side: the run shown, its baseline (the last run of the same sample and
//! backend unless `b` chose one), the Compare pair, the History rows after the filter, and the Live phase
//! table (Δ only for phases that have finished while a run is in progress).

use std::collections::BTreeMap;

use super::{App, LiveRun};
use crate::engine::compare::{compare, shape_mismatch, PhaseRow};
use crate::timeline::record::{PhaseTotals, RepeatSummary, RunOutcome, RunRecord, SampleInfo, SCHEMA};
use crate::vocab::is_setup_phase;

/// The Live phase table: the rows and what they compare.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PhaseTable {
    /// Phase rows in pipeline order, then the wall row.
    pub rows: Vec<PhaseRow>,
    /// `#28` for the run shown or in progress.
    pub label: String,
    /// `#27` for its baseline, if any.
    pub base_label: Option<String>,
    /// One line when the two runs proved different circuit shapes.
    pub mismatch: Option<String>,
    /// Setup phases (outside the wall) and their time in µs.
    pub setup: Vec<(String, u64)>,
    /// Whether the current side is a run in progress.
    pub running: bool,
    /// The current side's record (finished, or what the run in progress closed so far).
    pub current: Option<RunRecord>,
}

impl App {
    /// The last run before index `before` of this console's sample on its backend; failing that, of its
    /// sample on any backend.
    pub fn latest_of_sample(&self, before: usize) -> Option<usize> {
        let (s, b) = (self.sample.name.as_str(), self.backend.name.as_str());
        let runs = &self.runs[..before.min(self.runs.len())];
        let last = |f: &dyn Fn(&RunRecord) -> bool| runs.iter().rposition(f);
        last(&|r| r.sample.name == s && r.backend == b).or_else(|| last(&|r| r.sample.name == s))
    }

    /// The baseline of run `cur` (an index, or `runs.len()` for the run in progress) of `sample` on
    /// `backend`: the run `b` marked (unless it is `cur`), else the last earlier completed run of the same
    /// sample and backend (a failed or cancelled one has partial phases).
    pub fn baseline_of(&self, cur: usize, sample: &str, backend: &str) -> Option<usize> {
        if let Some(b) = self.baseline.as_deref().and_then(|id| self.run_index(id)) {
            if b != cur {
                return Some(b);
            }
        }
        let before = &self.runs[..cur.min(self.runs.len())];
        before.iter().rposition(|r| r.completed() && r.sample.name == sample && r.backend == backend)
    }

    /// Baseline and candidate of the Compare view: the candidate (or the last run) against its baseline.
    pub fn compare_pair(&self) -> Option<(usize, usize)> {
        let cand = match &self.candidate {
            Some(id) => self.run_index(id)?,
            None => self.runs.len().checked_sub(1)?,
        };
        let c = &self.runs[cand];
        Some((self.baseline_of(cand, &c.sample.name, &c.backend)?, cand))
    }

    /// Indices of the runs the History view lists: every word of the filter matches the run's sample,
    /// backend, toggles or id (case-insensitive).
    pub fn history_rows(&self) -> Vec<usize> {
        let words: Vec<String> = self.history_filter.split_whitespace().map(str::to_lowercase).collect();
        (0..self.runs.len())
            .filter(|&i| {
                let r = &self.runs[i];
                let hay = format!(
                    "{} {} {} {} {}",
                    r.sample.name,
                    r.backend,
                    r.toggles.changed(),
                    r.toggles.compact(),
                    r.id
                )
                .to_lowercase();
                words.iter().all(|w| hay.contains(w.as_str()))
            })
            .collect()
    }

    /// The Live phase table: the run in progress (or shown) against its baseline. During a run, Δ is shown
    /// only for phases that have finished (no instance open, as many instances as the baseline ran) and never
    /// a verdict.
    pub fn phase_table(&self) -> PhaseTable {
        let (cur, label, cur_idx, running) = match (&self.live, self.shown) {
            (Some(l), _) => (None, format!("#{}", l.number), self.runs.len(), true),
            (None, Some(i)) if i < self.runs.len() => (Some(&self.runs[i]), format!("#{}", i + 1), i, false),
            _ => return PhaseTable::default(),
        };
        let (sample, backend) = match cur {
            Some(r) => (r.sample.name.as_str(), r.backend.as_str()),
            None => (self.sample.name.as_str(), self.backend.name.as_str()),
        };
        let base_idx = self.baseline_of(cur_idx, sample, backend);
        let base = base_idx.and_then(|b| self.runs.get(b));
        let current = match (cur, &self.live) {
            (Some(r), _) => r.clone(),
            (None, Some(l)) => partial_record(l, base, self),
            (None, None) => return PhaseTable::default(),
        };
        let empty;
        let base_rec = match base {
            Some(b) => b,
            None => {
                empty = RunRecord { repeats: Vec::new(), events: Vec::new(), ..current.clone() };
                &empty
            }
        };
        let mut rows = compare(base_rec, &current);
        rows.retain(|r| r.base.is_some() || r.cand.is_some());
        if let (Some(l), true) = (&self.live, running) {
            for r in &mut rows {
                r.verdict = None;
                if !finished(l, base_rec, &r.phase) {
                    (r.delta_pct, r.ratio, r.no_verdict) = (None, None, None);
                }
            }
        }
        let setup = match cur {
            Some(r) => r.setup_phases(),
            None => setup_of_live(self.live.as_ref()),
        };
        PhaseTable {
            rows,
            label,
            base_label: base_idx.map(|b| format!("#{}", b + 1)),
            mismatch: base.and_then(|b| shape_mismatch(b, &current)),
            setup,
            running,
            current: Some(current),
        }
    }
}

/// Whether `phase` of the run in progress has finished: none of it open, and at least as many instances
/// closed as the baseline's first repeat ran (a single-repeat run only; the wall finishes with the run).
fn finished(l: &LiveRun, base: &RunRecord, phase: &str) -> bool {
    let want = base.repeats.first().and_then(|r| r.phases.get(phase)).map_or(u64::MAX, |t| t.count);
    let closed = l.closed.iter().filter(|e| e.phase == phase).count() as u64;
    l.repeats <= 1 && !l.open.iter().any(|e| e.phase == phase) && closed >= want
}

/// Setup phases the run in progress has closed, with their time.
fn setup_of_live(l: Option<&LiveRun>) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = Vec::new();
    for e in l.into_iter().flat_map(|l| l.closed.iter()).filter(|e| is_setup_phase(&e.phase)) {
        match out.iter_mut().find(|(n, _)| *n == e.phase) {
            Some((_, us)) => *us += e.dur_us,
            None => out.push((e.phase.clone(), e.dur_us)),
        }
    }
    out
}

/// A record of the events a run in progress has closed so far (one repeat), so the phase table can compare
/// it with the baseline while it runs; it claims the baseline's shape when the baseline is of this sample.
pub(super) fn partial_record(l: &LiveRun, base: Option<&RunRecord>, app: &App) -> RunRecord {
    let mut phases: BTreeMap<String, PhaseTotals> = BTreeMap::new();
    for e in l.closed.iter().filter(|e| !is_setup_phase(&e.phase)) {
        let t = phases.entry(e.phase.clone()).or_default();
        t.count += 1;
        t.sum_us += e.dur_us;
    }
    let sample = match base {
        Some(b) if b.sample.name == app.sample.name => b.sample.clone(),
        _ => SampleInfo {
            name: app.sample.name.clone(),
            circuits: app.sample.circuits,
            constraints: app.constraints().unwrap_or(0),
            ..SampleInfo::default()
        },
    };
    let setup_end = l.closed.iter().filter(|e| is_setup_phase(&e.phase)).map(|e| e.start_us + e.dur_us).max();
    let wall = l.now_us.saturating_sub(setup_end.unwrap_or(0));
    // No repeat has begun while only setup has run: no wall yet (setup is never part of it).
    let proving = !phases.is_empty() || l.open.iter().any(|e| !is_setup_phase(&e.phase));
    let repeats = if proving { vec![RepeatSummary { wall_us: wall, phases }] } else { Vec::new() };
    RunRecord {
        schema: SCHEMA.into(),
        id: format!("live-{}", l.number),
        started: String::new(),
        sample,
        toggles: l.toggles,
        backend: app.backend.name.clone(),
        devices: Vec::new(),
        host: Default::default(),
        events: l.closed.clone(),
        repeats,
        wall_us: l.now_us,
        peak_rss_bytes: 0,
        dropped_events: l.dropped,
        proofs: Vec::new(),
        // Still under way: compared as it stands, phase by finished phase.
        outcome: RunOutcome::Completed,
        error: String::new(),
        counters: l.counters.clone(),
        version: String::new(),
    }
}
