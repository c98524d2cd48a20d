//! The console attached to a daemon (`cuzk tui --attach ADDR`): what it knows of the daemon (the link,
//! its queues, GPUs, toggles and backend, the jobs it saw change state). How the daemon's messages change
//! the model is `attach.rs`'s; where they come from (the watch stream) is the attach client's business.

use crate::vocab::Toggles;

/// The state of the connection to the daemon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link {
    /// Dialing (first time, or again after the daemon went away).
    Connecting,
    /// The watch stream is open.
    Up,
    /// The daemon went away (or never answered): why, one line. The client dials again.
    Lost(String),
}

/// One queue of the daemon: jobs of a kind waiting and running.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueLine {
    /// `porep`, `snap`, `window-post`, `winning-post`, `sample`.
    pub kind: String,
    /// Queued.
    pub pending: u32,
    /// Running.
    pub running: u32,
}

/// One device of the daemon.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuLine {
    /// Its index.
    pub ordinal: u32,
    /// What it is.
    pub name: String,
    /// Its memory, bytes (0: unknown, e.g. the CPU backend).
    pub mem_total: u64,
    /// Free, bytes.
    pub mem_free: u64,
    /// The job holding it now (empty: none).
    pub job: String,
}

/// The daemon's periodic status, as the console shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DaemonInfo {
    /// Per kind.
    pub queues: Vec<QueueLine>,
    /// Per device.
    pub gpus: Vec<GpuLine>,
    /// The toggles every job of the daemon runs with (its config's).
    pub toggles: Toggles,
    /// `gpu (NVIDIA H200 …)` or `cpu (…)`.
    pub backend: String,
    /// Its memory budget, bytes.
    pub mem_budget: u64,
    /// What the admitted jobs and resident SRS hold of it, bytes.
    pub mem_in_use: u64,
    /// Proofs completed since it started.
    pub completed: u64,
    /// Proofs failed since it started.
    pub failed: u64,
    /// SIGTERM received: new jobs are refused.
    pub draining: bool,
}

/// A job of the daemon as its state changes arrive.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobLine {
    /// The daemon's job id.
    pub id: String,
    /// `porep`, `window-post`, …, `sample`.
    pub kind: String,
    /// Curio's circuit id or the sample's name.
    pub circuit: String,
    /// `low` … `critical`.
    pub priority: String,
    /// `queued`, `running`, `completed`, `failed`, `cancelled`.
    pub state: String,
    /// Why it failed or was cancelled.
    pub error: String,
    /// Its run record, once completed.
    pub run_id: String,
}

/// Jobs remembered for the header and the log (the newest).
pub const JOBS_KEPT: usize = 64;

/// What the console knows of the daemon it is attached to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attached {
    /// The address as given (`127.0.0.1:9820`, `unix:///run/cuzk.sock`).
    pub addr: String,
    /// The connection.
    pub link: Link,
    /// The latest status (`None` before the first).
    pub info: Option<DaemonInfo>,
    /// Jobs seen, oldest first (at most [`JOBS_KEPT`]).
    pub jobs: Vec<JobLine>,
    /// The job the Live view follows (the newest running one).
    pub following: Option<String>,
    /// The sample file `r` submits (a path on the daemon's host).
    pub submit: String,
}

impl Attached {
    /// A console about to dial `addr`; `r` submits `submit`.
    pub fn new(addr: &str, submit: &str) -> Attached {
        Attached {
            addr: addr.to_string(),
            link: Link::Connecting,
            info: None,
            jobs: Vec::new(),
            following: None,
            submit: submit.to_string(),
        }
    }

    /// Jobs queued and running on the daemon, over every kind.
    pub fn totals(&self) -> (u32, u32) {
        self.info
            .as_ref()
            .map_or((0, 0), |i| i.queues.iter().fold((0, 0), |(p, r), q| (p + q.pending, r + q.running)))
    }
}
