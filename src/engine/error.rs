//! The engine's one error type: why a job, a plan or a params load could not run.

use super::budget::{MemoryError, PlanError};
use super::store::StoreError;

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
    Store(#[from] StoreError),
    /// The run would need more memory than the machine or `--mem-budget` gives (refused before any work).
    #[error(transparent)]
    Memory(Box<PlanError>),
    /// A count (repeats, batch) out of its range.
    #[error(transparent)]
    Limit(#[from] crate::vocab::limits::LimitError),
    /// The params do not fit the circuit (named by file), or another one-line refusal.
    #[error("{0}")]
    Refused(String),
}

impl From<PlanError> for EngineError {
    fn from(e: PlanError) -> EngineError {
        EngineError::Memory(Box::new(e))
    }
}

impl From<Box<MemoryError>> for EngineError {
    fn from(e: Box<MemoryError>) -> EngineError {
        PlanError::from(e).into()
    }
}

impl EngineError {
    /// Whether the run stopped because a cancel was asked for.
    pub fn is_cancelled(&self) -> bool {
        matches!(
            self,
            EngineError::Prove(crate::groth16::prover::ProveError::Cancelled)
                | EngineError::Params(crate::groth16::Error::Cancelled)
        )
    }
}
