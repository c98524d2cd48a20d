//! The CLI's one error type: every command's failure as one line, then a non-zero exit.

/// Every error the CLI reports: one line, then a non-zero exit.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A sample file problem.
    #[error(transparent)]
    Sample(#[from] crate::circuits::SampleError),
    /// A params, proof, vk or inputs file problem.
    #[error(transparent)]
    Groth16(#[from] crate::groth16::Error),
    /// A job failure.
    #[error(transparent)]
    Engine(#[from] crate::engine::EngineError),
    /// A sample file or `--set` problem.
    #[error(transparent)]
    SampleLoad(#[from] crate::engine::sample::SampleLoadError),
    /// No such backend here.
    #[error(transparent)]
    Backend(#[from] crate::backend::select::SelectError),
    /// Anything else, already phrased.
    #[error("{0}")]
    Msg(String),
}
