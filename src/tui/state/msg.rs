//! What the engine's worker tells the console: the messages the model applies.

use std::path::PathBuf;

use super::Level;
use crate::engine::compare::AblationEntry;
use crate::timeline::record::{RecordEvent, RunRecord};
use crate::vocab::Toggles;

/// What the worker tells the console.
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
    /// A long step moved (params setup, kernel build): stage, done, total.
    Progress {
        /// Stage name as the engine reports it.
        stage: String,
        /// Units done.
        done: usize,
        /// Units in the stage.
        total: usize,
    },
    /// Events of the run in progress.
    Live {
        /// A new capture began: drop what was streamed before.
        restarted: bool,
        /// Phases closed since the last message.
        closed: Vec<RecordEvent>,
        /// Phases open now (duration up to `now_us`).
        open: Vec<RecordEvent>,
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
    /// A run failed (bad sample, engine or backend error); one line.
    Failed(String),
    /// A run stopped because the user asked.
    Cancelled,
    /// The worker has nothing running (after an aborted ablation).
    Idle,
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
    /// Anything else worth a log line.
    Log(Level, String),
}
