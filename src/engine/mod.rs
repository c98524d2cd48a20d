//! The engine: turns a sample and toggles into proved, verified batches with a captured timeline; runs
//! ablations and comparisons; keeps the run store. The console and the CLI drive it through the same API; it
//! knows nothing of either.

pub mod ablate;
pub mod compare;
pub mod events;
pub mod floor;
pub mod host;
mod job;
mod params;
mod run;
pub mod sample;
mod sampler;
pub mod setup_eta;
pub mod stats;
pub mod store;

use std::sync::Arc;

pub use job::{bytes_per_circuit, run_job, JobOutput, JobSpec};
pub use params::{params_key, ParamsInfo};
pub use run::{RunCtl, RunResult, RunSpec};

use crate::circuits::Sample;
use crate::groth16::setup::Progress;
use crate::groth16::Parameters;
use crate::vocab::Probe;

/// Why a job could not run.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// Params could not be loaded or built.
    #[error(transparent)]
    Params(#[from] crate::groth16::Error),
    /// Proving failed.
    #[error(transparent)]
    Prove(#[from] crate::groth16::prover::ProveError),
    /// The run store failed.
    #[error(transparent)]
    Store(#[from] store::StoreError),
}

impl EngineError {
    /// Whether the run stopped because a cancel was asked for.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, EngineError::Prove(crate::groth16::prover::ProveError::Cancelled))
    }
}

/// The default pipeline memory budget: half the machine's memory (4 GiB where unknown).
pub fn default_mem_budget() -> u64 {
    match host::memory_bytes() {
        0 => 4 << 30,
        m => m / 2,
    }
}

/// One engine: the params and shapes it has loaded, reused by every run it makes. Several engines may run at
/// once in one process; each run carries its own capture and cancel token.
#[derive(Default)]
pub struct Engine {
    params: params::ParamsMemo,
}

impl Engine {
    /// An engine that has loaded nothing yet.
    pub fn new() -> Engine {
        Engine::default()
    }

    /// Params for `sample` (from memory, the on-disk cache, or a seeded setup reporting to `progress`).
    pub fn load_params(
        &self,
        sample: &Sample,
        progress: Progress,
    ) -> Result<(Arc<Parameters>, ParamsInfo), EngineError> {
        self.params.load(sample, progress, &Probe::silent())
    }

    /// Runs `spec` under one timeline capture and returns its record (not saved).
    pub fn run(&self, spec: &RunSpec, ctl: &RunCtl) -> Result<RunResult, EngineError> {
        run::run(&self.params, spec, ctl)
    }
}
