//! The daemon's messages → state (attached only): the link, its status (the toggles and backend shown
//! become the daemon's), job state changes, the job the Live view follows, runs read from the shared store.

use super::daemon::{DaemonInfo, JobLine, Link, JOBS_KEPT};
use super::{App, BackendMeta, Level, RunState};

/// The backend of a daemon status (`gpu (NVIDIA H200)`): its name and device.
fn backend_meta(backend: &str, addr: &str) -> BackendMeta {
    let (name, device) = match backend.split_once(" (") {
        Some((n, d)) => (n.to_string(), d.trim_end_matches(')').to_string()),
        None => (backend.to_string(), String::new()),
    };
    BackendMeta { name, device, reason: format!("the daemon's at {addr}") }
}

impl App {
    /// The connection changed: said in the log; the model keeps what it showed.
    pub(super) fn link(&mut self, link: Link) {
        let Some(a) = self.attached.as_mut() else { return };
        if a.link == link {
            return;
        }
        let addr = a.addr.clone();
        a.link = link.clone();
        match link {
            Link::Connecting => {}
            Link::Up => self.push_log(Level::Good, format!("attached to the daemon at {addr}")),
            Link::Lost(why) => self.push_log(
                Level::Error,
                format!("daemon at {addr} gone: {why}; dialing again every 2 s (q quits)"),
            ),
        }
    }

    /// A daemon status: the header's queues and GPUs, and the toggles and backend shown become the daemon's.
    pub(super) fn daemon_status(&mut self, info: DaemonInfo) {
        let Some(a) = self.attached.as_mut() else { return };
        self.toggles = info.toggles;
        self.backend = backend_meta(&info.backend, &a.addr);
        a.info = Some(info);
    }

    /// A job changed state on the daemon: kept for the header, said in the log (the Live view's run follows
    /// from the messages the client sends with it).
    pub(super) fn daemon_job(&mut self, job: JobLine) {
        let Some(a) = self.attached.as_mut() else { return };
        let line = match job.state.as_str() {
            "queued" => {
                let what = format!("{} {} ({})", job.kind, job.circuit, job.priority);
                Some((Level::Info, format!("job {} queued: {what}", job.id)))
            }
            "failed" if a.following.as_deref() != Some(job.id.as_str()) => {
                Some((Level::Error, format!("job {} failed: {}", job.id, job.error)))
            }
            "cancelled" if a.following.as_deref() != Some(job.id.as_str()) => {
                Some((Level::Warn, format!("job {} cancelled: {}", job.id, job.error)))
            }
            _ => None,
        };
        match a.jobs.iter_mut().find(|j| j.id == job.id) {
            Some(j) => *j = job,
            None => a.jobs.push(job),
        }
        if a.jobs.len() > JOBS_KEPT {
            a.jobs.remove(0);
        }
        if let Some((level, text)) = line {
            self.push_log(level, text);
        }
    }

    /// The Live view now follows this job of the daemon (`None`: none is running); the header names its
    /// circuit, and its phase table compares it with the last run of that circuit.
    pub(super) fn follow(&mut self, job: Option<String>) {
        let Some(a) = self.attached.as_mut() else { return };
        if let Some(j) = job.as_ref().and_then(|id| a.jobs.iter().find(|j| &j.id == id)) {
            self.sample.name = j.circuit.clone();
            self.sample.path = format!("job {}", j.id);
            self.sample.proof = Some(j.kind.clone());
        }
        a.following = job;
        if a.following.is_none() && self.state == RunState::Running {
            self.state = RunState::Idle;
            self.live = None;
        }
    }

    /// Records the daemon saved, read from the run store this console shares with it: the ones not listed
    /// yet are added, in the store's order. The history's selection stays on its run unless it was on the
    /// newest, which it then follows.
    pub(super) fn stored(&mut self, runs: Vec<crate::timeline::record::RunRecord>) {
        let tail = self.history_sel + 1 >= self.runs.len();
        let selected = self.runs.get(self.history_sel).map(|r| r.id.clone());
        let mut added = Vec::new();
        for r in runs {
            if self.run_index(&r.id).is_none() {
                added.push(format!("{} ({})", r.id, r.outcome.name()));
                self.runs.push(r);
            }
        }
        if added.is_empty() {
            return;
        }
        self.runs.sort_by(|a, b| (&a.started, &a.id).cmp(&(&b.started, &b.id)));
        let last = self.runs.len() - 1;
        self.history_sel = match selected.and_then(|id| self.run_index(&id)) {
            Some(i) if !tail => i,
            _ => last,
        };
        self.shown = Some(self.history_sel);
        let text = match &added[..] {
            [one] => format!("run {one} from the run store"),
            many => format!("{} runs from the run store", many.len()),
        };
        self.push_log(Level::Info, text);
    }
}
