//! The service's vocabulary: its config, requests and answers, priorities, job kinds and states, timings, the
//! status snapshot, and the events watchers receive.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::srs::SrsStatus;
use crate::backend::api::Backend;
use crate::circuits::Sample;
use crate::engine::store::RunStore;
use crate::vocab::Toggles;

/// How soon a job should run: higher first, FIFO within one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// Background work.
    Low,
    /// The default.
    Normal,
    /// Ahead of normal work.
    High,
    /// WinningPoSt: due within its epoch, ahead of everything queued.
    Critical,
}

impl Priority {
    /// Every priority, lowest first.
    pub const ALL: [Priority; 4] = [Priority::Low, Priority::Normal, Priority::High, Priority::Critical];

    /// `low`, `normal`, `high`, `critical`.
    pub fn name(self) -> &'static str {
        match self {
            Priority::Low => "low",
            Priority::Normal => "normal",
            Priority::High => "high",
            Priority::Critical => "critical",
        }
    }

    /// The priority of a name (as [`Priority::name`] writes it).
    pub fn parse(s: &str) -> Option<Priority> {
        Priority::ALL.into_iter().find(|p| p.name() == s.trim().to_ascii_lowercase())
    }

    /// Its rank for the device gate (higher goes first).
    pub fn rank(self) -> u8 {
        self as u8
    }
}

/// What a job proves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JobKind {
    /// PoRep C2 of one sector.
    Porep,
    /// A SnapDeals update proof.
    Snap,
    /// One WindowPoSt partition.
    WindowPost,
    /// A WinningPoSt.
    WinningPost,
    /// A sample circuit (cuzk's own: the console's submissions and the service's tests).
    Sample,
}

impl JobKind {
    /// Every kind.
    pub const ALL: [JobKind; 5] =
        [JobKind::Porep, JobKind::Snap, JobKind::WindowPost, JobKind::WinningPost, JobKind::Sample];

    /// `porep`, `snap`, `window-post`, `winning-post`, `sample`: queue and metric labels.
    pub fn name(self) -> &'static str {
        match self {
            JobKind::Porep => "porep",
            JobKind::Snap => "snap",
            JobKind::WindowPost => "window-post",
            JobKind::WinningPost => "winning-post",
            JobKind::Sample => "sample",
        }
    }
}

/// Where a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobState {
    /// Waiting in the queue.
    Queued,
    /// Admitted: synthesizing or proving.
    Running,
    /// Done: its proof is in the outcome.
    Completed,
    /// Stopped by an error (the outcome says which).
    Failed,
    /// Stopped by a cancel (or the daemon's shutdown).
    Cancelled,
}

impl JobState {
    /// `queued`, `running`, `completed`, `failed`, `cancelled`.
    pub fn name(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Completed => "completed",
            JobState::Failed => "failed",
            JobState::Cancelled => "cancelled",
        }
    }

    /// Whether the job has ended.
    pub fn is_final(self) -> bool {
        matches!(self, JobState::Completed | JobState::Failed | JobState::Cancelled)
    }
}

/// Where a finished job's time went, milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timings {
    /// Submitted → admitted.
    pub queue_wait_ms: u64,
    /// Reading (or generating) its SRS.
    pub srs_load_ms: u64,
    /// Synthesis, wall time covered.
    pub synthesis_ms: u64,
    /// The compute lanes' phases (NTT, MSM, batch additions), wall time covered.
    pub gpu_compute_ms: u64,
    /// Submitted → finished.
    pub total_ms: u64,
}

/// A finished job: its proof or why there is none.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Completed, failed or cancelled.
    pub state: JobState,
    /// The proof bytes (partition proofs of 192 bytes, concatenated), when completed.
    pub proof: Vec<u8>,
    /// One line, when failed or cancelled.
    pub error: String,
    /// Its timings.
    pub timings: Timings,
    /// Its run record's id in the run store: a completed job's, and a failed or cancelled one's once its run
    /// had begun (the record of what it captured). `None` for a job refused or cancelled before it ran, a
    /// run the plan refused, or a record that could not be saved (the error says so).
    pub run_id: Option<String>,
}

/// A phase span of a running job, on the service's clock (µs since it started).
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseEvent {
    /// The job.
    pub job_id: String,
    /// The phase's name.
    pub phase: String,
    /// Its timeline row.
    pub lane: String,
    /// Circuit index, for per-circuit phases.
    pub circuit: Option<u64>,
    /// GPU index, on a GPU.
    pub device: Option<u64>,
    /// Start, µs since the service started.
    pub start_us: u64,
    /// Duration, µs (0 while open).
    pub dur_us: u64,
    /// The span's fields.
    pub args: BTreeMap<String, String>,
    /// Started, not ended yet.
    pub open: bool,
}

/// A memory counter sample of a running job's sampler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryEvent {
    /// The job whose sampler took it.
    pub job_id: String,
    /// The counter (`host_rss`, `gpu0_mem`, …).
    pub counter: String,
    /// What bounds it, bytes (0: unknown).
    pub capacity: u64,
    /// When, µs since the service started.
    pub at_us: u64,
    /// The value, bytes.
    pub bytes: u64,
}

/// A job changed state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobEvent {
    /// The job.
    pub job_id: String,
    /// The caller's key.
    pub request_id: String,
    /// What it proves.
    pub kind: JobKind,
    /// Curio's circuit id or the sample's name.
    pub circuit_id: String,
    /// Its priority.
    pub priority: Priority,
    /// Its new state.
    pub state: JobState,
    /// Why it failed or was cancelled.
    pub error: String,
    /// Its run record, once finished (see [`Outcome::run_id`]).
    pub run_id: Option<String>,
    /// Its timings so far.
    pub timings: Timings,
}

/// What a watcher receives.
#[derive(Clone, Debug)]
pub enum EventBody {
    /// A phase span opened or closed.
    Phase(PhaseEvent),
    /// A memory sample.
    Memory(MemoryEvent),
    /// A job's state change.
    Job(JobEvent),
    /// The service's status (periodic, and after every job change).
    Status(Box<ServiceStatus>),
}

/// One numbered event.
#[derive(Clone, Debug)]
pub struct ServiceEvent {
    /// Increases by one per event of this service.
    pub seq: u64,
    /// µs since the service started.
    pub t_us: u64,
    /// The event.
    pub body: EventBody,
}

/// How the service runs.
pub struct ServiceConfig {
    /// The backend every job proves on.
    pub backend: Arc<dyn Backend>,
    /// The toggles every job runs with.
    pub toggles: Toggles,
    /// Bytes the admitted jobs' estimates and the resident SRS may hold together.
    pub memory_budget: u64,
    /// Jobs that run at once (one more runs critical jobs only, so they never wait for a worker).
    pub workers: usize,
    /// For tests only: every job's params and randomizer seed (the same input then gives the same proof).
    /// `None`: params of seed [`crate::engine::sample::DEFAULT_SEED`], randomizers from the OS per job.
    pub seed: Option<u64>,
    /// Where each finished job's run record goes.
    pub store: RunStore,
}

/// A job to queue.
pub struct JobRequest {
    /// The caller's idempotency key (empty: none).
    pub request_id: String,
    /// What it proves.
    pub kind: JobKind,
    /// How soon.
    pub priority: Priority,
    /// The SRS it proves with: Curio's circuit id, or the sample's name.
    pub circuit_id: String,
    /// The circuits (a Filecoin request's, or a sample's).
    pub sample: Sample,
}

/// A job queued (or found again by its request id).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submitted {
    /// Its id.
    pub job_id: String,
    /// Jobs ahead of it now (0 when it runs or has run).
    pub queue_position: u32,
    /// Whether the request id named a job made before.
    pub existing: bool,
}

/// Why a job was not queued.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    /// The service is shutting down.
    #[error("the daemon is shutting down: no new jobs")]
    Draining,
    /// It can never fit the memory budget (or the machine).
    #[error("{0}")]
    Memory(String),
    /// The request cannot be proved as given.
    #[error("{0}")]
    Invalid(String),
}

/// Jobs of one kind waiting and running.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueDepth {
    /// The kind.
    pub kind: Option<JobKind>,
    /// Queued.
    pub pending: u32,
    /// Running.
    pub running: u32,
}

/// One compute device.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceStatus {
    /// Its index.
    pub ordinal: u32,
    /// What it is.
    pub name: String,
    /// Its memory, bytes (0: unknown).
    pub mem_total: u64,
    /// Free, bytes.
    pub mem_free: u64,
    /// The job proving on it now.
    pub current_job: Option<String>,
    /// That job's kind.
    pub current_kind: Option<JobKind>,
}

/// A snapshot of the service.
#[derive(Clone, Debug, Default)]
pub struct ServiceStatus {
    /// Seconds since it started.
    pub uptime_s: u64,
    /// Per kind, every kind listed.
    pub queues: Vec<QueueDepth>,
    /// The backend's devices.
    pub devices: Vec<DeviceStatus>,
    /// Every SRS it knows of.
    pub srs: Vec<SrsStatus>,
    /// Proofs completed since start.
    pub completed: u64,
    /// Proofs failed since start.
    pub failed: u64,
    /// Page-locked host bytes the backend holds.
    pub pinned_bytes: u64,
    /// The memory budget.
    pub mem_budget: u64,
    /// What the admitted jobs and the resident SRS hold of it.
    pub mem_in_use: u64,
    /// Shutting down.
    pub draining: bool,
    /// The toggles jobs run with.
    pub toggles: Toggles,
    /// The backend's name and device.
    pub backend: String,
}

/// What [`Service::drain`](super::Service::drain) did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrainReport {
    /// Queued jobs cancelled unstarted.
    pub dropped: usize,
    /// Running jobs that finished within the grace time.
    pub finished: usize,
    /// Running jobs cancelled when the grace time ran out.
    pub cancelled: usize,
}
