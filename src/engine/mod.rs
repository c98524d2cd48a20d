//! The engine: turns a sample and toggles into proved, verified batches with a captured timeline, and keeps
//! the run store. The console and the CLI drive it; it knows nothing of either.

pub mod compare;
pub mod host;
mod job;
mod params;
mod run;
pub mod stats;
pub mod store;

pub use job::{bytes_per_circuit, run_job, JobOutput, JobSpec};
pub use params::{load_params, params_key, ParamsInfo};
pub use run::{run, RunResult, RunSpec};

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

/// The default pipeline memory budget: half the machine's memory (4 GiB where unknown).
pub fn default_mem_budget() -> u64 {
    match host::memory_bytes() {
        0 => 4 << 30,
        m => m / 2,
    }
}
