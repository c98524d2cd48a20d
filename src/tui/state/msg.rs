//! What a source tells the console: the messages the model applies. The in-process worker sends the run
//! messages; the attach client sends the same run messages for the daemon job it follows, plus the
//! daemon's (`Link`, `Daemon`, `Job`, `Follow`, `Stored`, `Streamed`).

use std::path::PathBuf;

use super::daemon::{DaemonInfo, JobLine, Link};
use super::{Level, SetupProgress};
use crate::engine::compare::AblationEntry;
use crate::timeline::record::{CounterSeries, RecordEvent, RunRecord};
use crate::vocab::Toggles;

/// What a source (the worker, the attach client) tells the console.
#[derive(Debug)]
pub enum Msg {
    /// A run began (`label` says which step of an ablation, empty otherwise).
    Started {
        /// Ablation step, or empty.
        label: String,
        /// Its toggles.
        toggles: Toggles,
        /// Its repeats.
        repeats: usize,
    },
    /// A long step moved (params setup): where it stands.
    Progress(SetupProgress),
    /// Events of the run in progress.
    Live {
        /// A new capture began: drop what was streamed before.
        restarted: bool,
        /// Phases closed since the last message.
        closed: Vec<RecordEvent>,
        /// Phases open now (duration up to `now_us`).
        open: Vec<RecordEvent>,
        /// Memory counter samples taken since the last message.
        counters: Vec<CounterSeries>,
        /// Run time now, µs.
        now_us: u64,
        /// Events dropped so far.
        dropped: u64,
    },
    /// A run finished; its record and where it was saved (or why not).
    Finished {
        /// The record.
        record: Box<RunRecord>,
        /// The record file, or the store error.
        saved: Result<PathBuf, String>,
    },
    /// A run that an error or a cancel stopped left a record of what it captured (outcome failed or
    /// cancelled): kept in the history, where it was saved (or why not). `Failed` or `Cancelled` follows.
    Kept {
        /// The partial record.
        record: Box<RunRecord>,
        /// The record file, or the store error.
        saved: Result<PathBuf, String>,
    },
    /// A run failed (bad sample, engine or backend error); one line.
    Failed(String),
    /// A run stopped because the user asked.
    Cancelled,
    /// The worker has nothing running (after an aborted ablation).
    Idle,
    /// One measurement of an ablation finished (not a run of its own: the configuration's merged record
    /// arrives as `Finished` at the end).
    StepDone {
        /// The step (`ablate round 1/3 · 2/6: a1 on`).
        label: String,
        /// Its proving wall, µs.
        wall_us: u64,
    },
    /// The ablation matrix so far, after each measurement.
    AblationProgress {
        /// Baseline run id.
        baseline: String,
        /// One column per flipped toggle measured so far.
        entries: Vec<AblationEntry>,
        /// Measurements done and planned.
        done: (usize, usize),
    },
    /// `a` finished: the matrix.
    AblationDone {
        /// Baseline run id.
        baseline: String,
        /// One column per flipped toggle.
        entries: Vec<AblationEntry>,
    },
    /// `e` finished.
    Exported {
        /// Run id.
        id: String,
        /// Files written.
        paths: Vec<PathBuf>,
    },
    /// `d` finished: the run's record file was removed (or why not).
    Deleted {
        /// Run id.
        id: String,
        /// Done, or the store's error.
        result: Result<(), String>,
    },
    /// Anything else worth a log line.
    Log(Level, String),
    /// Attached: the connection to the daemon changed.
    Link(Link),
    /// Attached: the daemon's status (queues, GPUs, its toggles and backend).
    Daemon(DaemonInfo),
    /// Attached: a job of the daemon changed state.
    Job(JobLine),
    /// Attached: the Live view follows this job now (`None`: the daemon runs none).
    Follow(Option<String>),
    /// Attached: records read from the run store the console shares with the daemon.
    Stored(Vec<RunRecord>),
    /// Attached: the followed job completed, but its record is not in this console's run store (the daemon
    /// has another home): the run as streamed becomes the record shown.
    Streamed {
        /// Its run id in the daemon's store.
        id: String,
    },
}
