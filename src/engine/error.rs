//! The engine's one error type: why a job, a plan or a params load could not run.

use super::budget::{MemoryError, PlanError};
use super::store::StoreError;
use crate::timeline::record::RunRecord;

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
    /// The params a job waited for did not load (the loader's own error is what the run reports).
    #[error("the params did not load")]
    ParamsUnavailable,
    /// The prover panicked (a bug): caught so that the run ends with its record and the process goes on.
    #[error("internal error while proving: {0}")]
    Panicked(String),
}

/// A run that stopped before its end: why, and the record of what it had captured by then.
#[derive(Debug)]
pub struct RunFailure {
    /// Why it stopped.
    pub error: EngineError,
    /// Its phases so far, counters, sample, toggles, backend and host, its finished repeats, no proofs; the
    /// outcome says failed or cancelled. `None` when it stopped before its capture began (refused by the
    /// plan); a job refused before the engine sees it (a bad C1 rejected while parsing) has none either.
    pub record: Option<Box<RunRecord>>,
}

impl From<EngineError> for RunFailure {
    fn from(error: EngineError) -> RunFailure {
        RunFailure { error, record: None }
    }
}

/// The message of a caught panic's payload (`"a panic"` when it is neither a `&str` nor a `String`).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
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
