//! The daemon's watch stream turned into the console's messages: pure (no I/O), so a recorded stream is
//! tested against the in-process worker's messages for the same run.
//!
//! The daemon runs several jobs at once; the Live view follows one, the newest running, and moves to another
//! running one when it ends. Every unfinished job's spans and memory samples are kept so that switching
//! redraws the new one from its start. Spans arrive on the daemon's clock; the followed job's are shifted so
//! its earliest span or sample is 0, as the worker's are relative to its run's start.

use std::collections::BTreeMap;

use crate::timeline::record::{CounterSeries, RecordEvent};
use crate::tui::state::daemon::{DaemonInfo, GpuLine, JobLine, QueueLine};
use crate::tui::state::Msg;
use crate::vocab::{Toggle, Toggles};
use crate::wire::console::{self as pb, watch_event::Event};

/// What the feed keeps of one unfinished job.
#[derive(Default)]
struct JobBuf {
    line: JobLine,
    /// Earliest span start or sample seen, on the daemon's clock, µs.
    origin: Option<u64>,
    /// Closed spans, daemon clock.
    closed: Vec<RecordEvent>,
    /// Open spans by (phase, circuit, start), daemon clock.
    open: BTreeMap<(String, Option<u64>, u64), RecordEvent>,
    /// Memory samples, daemon clock.
    counters: Vec<CounterSeries>,
}

impl JobBuf {
    /// Lowers the origin to `t`; whether it moved (what was sent must be sent again, shifted).
    fn note_time(&mut self, t: u64) -> bool {
        match self.origin {
            Some(o) if o <= t => false,
            Some(_) => {
                self.origin = Some(t);
                true
            }
            None => {
                self.origin = Some(t);
                false
            }
        }
    }
}

/// Whether a job is still to be shown: not finished.
fn unfinished(state: &str) -> bool {
    matches!(state, "queued" | "running")
}

/// The translator from watch events to console messages.
#[derive(Default)]
pub struct Feed {
    jobs: BTreeMap<String, JobBuf>,
    /// Jobs in the order they started running (the newest last).
    started: Vec<String>,
    following: Option<String>,
    toggles: Toggles,
    /// The daemon's clock at the latest event, µs.
    now_us: u64,
}

/// A record of the daemon's run store, looked up by run id when a followed job completes (`None`: not in
/// this console's store).
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<(crate::timeline::record::RunRecord, std::path::PathBuf)>;

impl Feed {
    /// A feed that has seen nothing.
    pub fn new() -> Feed {
        Feed::default()
    }

    /// The job the Live view follows.
    pub fn following(&self) -> Option<&str> {
        self.following.as_deref()
    }

    /// The stream starts again (a reconnect): the backlog that follows resends every unfinished job, so
    /// forget them; the model drops the run it showed (it may have ended meanwhile).
    pub fn reset(&mut self) -> Vec<Msg> {
        let was = self.following.take();
        *self = Feed { toggles: self.toggles, ..Feed::default() };
        match was {
            Some(_) => vec![Msg::Follow(None)],
            None => Vec::new(),
        }
    }

    /// The messages one watch event means.
    pub fn event(&mut self, ev: pb::WatchEvent, lookup: Lookup) -> Vec<Msg> {
        self.now_us = self.now_us.max(ev.t_us);
        let mut out = Vec::new();
        match ev.event {
            Some(Event::Status(s)) => {
                let info = info_of(&s);
                self.toggles = info.toggles;
                out.push(Msg::Daemon(info));
                self.live(&mut out, false, Vec::new(), Vec::new());
            }
            Some(Event::Job(j)) => self.job(j, lookup, &mut out),
            Some(Event::Phase(p)) => self.phase(p, &mut out),
            Some(Event::Memory(m)) => self.memory(m, &mut out),
            None => {}
        }
        out
    }

    fn job(&mut self, j: pb::JobEvent, lookup: Lookup, out: &mut Vec<Msg>) {
        let line = JobLine {
            id: j.job_id.clone(),
            kind: j.kind,
            circuit: j.circuit_id,
            priority: j.priority,
            state: j.state,
            error: j.error,
            run_id: j.run_id,
        };
        out.push(Msg::Job(line.clone()));
        let id = line.id.clone();
        if unfinished(&line.state) {
            let running = line.state == "running";
            self.jobs.entry(id.clone()).or_default().line = line;
            if running && !self.started.contains(&id) {
                self.started.push(id.clone());
                if self.following.is_none() {
                    self.follow(Some(id), out);
                }
            }
            return;
        }
        self.started.retain(|s| *s != id);
        let followed = self.following.as_deref() == Some(id.as_str());
        // A record the daemon saved for a job this view does not end with `Finished` (a failed or cancelled
        // one, or one not followed) joins the history now, not at the next dial.
        let ends_with_finished = followed && line.state == "completed";
        if !ends_with_finished && !line.run_id.is_empty() {
            if let Some((record, path)) = lookup(&line.run_id) {
                out.push(match followed {
                    true => Msg::Kept { record: Box::new(record), saved: Ok(path) },
                    false => Msg::Stored(vec![record]),
                });
            }
        }
        if followed {
            match line.state.as_str() {
                "completed" => match lookup(&line.run_id) {
                    Some((record, path)) => {
                        out.push(Msg::Finished { record: Box::new(record), saved: Ok(path) })
                    }
                    None => {
                        let id = if line.run_id.is_empty() { line.id.clone() } else { line.run_id.clone() };
                        out.push(Msg::Streamed { id });
                    }
                },
                "cancelled" => out.push(Msg::Cancelled),
                _ => out.push(Msg::Failed(format!("job {}: {}", line.id, line.error))),
            }
            self.jobs.remove(&id);
            let next = self.started.last().cloned();
            self.follow(next, out);
        } else {
            self.jobs.remove(&id);
        }
    }

    /// Follows `id` (or nothing): the model is told, and the job's run starts over from what is kept.
    fn follow(&mut self, id: Option<String>, out: &mut Vec<Msg>) {
        self.following = id.clone();
        out.push(Msg::Follow(id.clone()));
        let Some(job) = id.and_then(|id| self.jobs.get(&id)) else { return };
        let l = &job.line;
        let label = format!("{} {} · job {}", l.kind, l.circuit, l.id);
        out.push(Msg::Started { label, toggles: self.toggles, repeats: 1 });
        let closed = job.closed.clone();
        let counters = job.counters.clone();
        self.live(out, true, closed, counters);
    }

    fn phase(&mut self, p: pb::PhaseEvent, out: &mut Vec<Msg>) {
        let job = self.jobs.entry(p.job_id.clone()).or_default();
        let moved = job.note_time(p.start_us);
        let key = (p.phase.clone(), p.circuit, p.start_us);
        let mut e = RecordEvent {
            phase: p.phase,
            lane: p.lane,
            circuit: p.circuit,
            device: p.device,
            batch: None,
            repeat: 0,
            start_us: p.start_us,
            dur_us: p.dur_us,
            args: p.args.into_iter().collect(),
        };
        let closed = if p.open {
            e.args.insert("running".into(), "yes".into());
            job.open.insert(key, e);
            Vec::new()
        } else {
            job.open.remove(&key);
            job.closed.push(e.clone());
            vec![e]
        };
        if self.following.as_deref() == Some(p.job_id.as_str()) {
            self.resend_or(moved, out, closed, Vec::new());
        }
    }

    fn memory(&mut self, m: pb::MemorySample, out: &mut Vec<Msg>) {
        let job = self.jobs.entry(m.job_id.clone()).or_default();
        let moved = job.note_time(m.at_us);
        let sample = (m.at_us, m.bytes);
        match job.counters.iter_mut().find(|c| c.name == m.counter) {
            Some(c) => c.samples.push(sample),
            None => job.counters.push(CounterSeries {
                name: m.counter.clone(),
                capacity: m.capacity,
                samples: vec![sample],
            }),
        }
        let one = CounterSeries { name: m.counter, capacity: m.capacity, samples: vec![sample] };
        if self.following.as_deref() == Some(m.job_id.as_str()) {
            self.resend_or(moved, out, Vec::new(), vec![one]);
        }
    }

    /// The followed job's update: everything again when its origin moved, else what is new.
    fn resend_or(
        &self,
        moved: bool,
        out: &mut Vec<Msg>,
        closed: Vec<RecordEvent>,
        counters: Vec<CounterSeries>,
    ) {
        match (moved, self.following.as_ref().and_then(|id| self.jobs.get(id))) {
            (true, Some(job)) => self.live(out, true, job.closed.clone(), job.counters.clone()),
            _ => self.live(out, false, closed, counters),
        }
    }

    /// A live update of the followed job: `closed` and `counters` (daemon clock) shifted to its origin,
    /// every open span drawn up to now.
    fn live(
        &self,
        out: &mut Vec<Msg>,
        restarted: bool,
        closed: Vec<RecordEvent>,
        counters: Vec<CounterSeries>,
    ) {
        let Some(job) = self.following.as_ref().and_then(|id| self.jobs.get(id)) else { return };
        let origin = job.origin.unwrap_or(self.now_us);
        let shift = |mut e: RecordEvent| {
            e.start_us = e.start_us.saturating_sub(origin);
            e
        };
        let now = self.now_us.saturating_sub(origin);
        let open = job
            .open
            .values()
            .cloned()
            .map(|e| {
                let mut e = shift(e);
                e.dur_us = now.saturating_sub(e.start_us).max(1);
                e
            })
            .collect();
        let counters = counters
            .into_iter()
            .map(|mut c| {
                for s in &mut c.samples {
                    s.0 = s.0.saturating_sub(origin);
                }
                c
            })
            .collect();
        let closed = closed.into_iter().map(shift).collect();
        out.push(Msg::Live { restarted, closed, open, counters, now_us: now, dropped: 0 });
    }
}

/// The console's form of a daemon status.
pub fn info_of(s: &pb::DaemonStatus) -> DaemonInfo {
    let mut toggles = Toggles::default();
    for t in Toggle::ALL {
        if let Some(on) = s.toggles.get(t.id()) {
            toggles.set(*t, *on);
        }
    }
    toggles.batch = (s.batch as usize).max(1);
    DaemonInfo {
        queues: s
            .queues
            .iter()
            .map(|q| QueueLine { kind: q.kind.clone(), pending: q.pending, running: q.running })
            .collect(),
        gpus: s
            .gpus
            .iter()
            .map(|g| GpuLine {
                ordinal: g.ordinal,
                name: g.name.clone(),
                mem_total: g.mem_total_bytes,
                mem_free: g.mem_free_bytes,
                job: g.current_job_id.clone(),
            })
            .collect(),
        toggles,
        backend: s.backend.clone(),
        mem_budget: s.mem_budget_bytes,
        mem_in_use: s.mem_in_use_bytes,
        completed: s.proofs_completed,
        failed: s.proofs_failed,
        draining: s.draining,
    }
}
