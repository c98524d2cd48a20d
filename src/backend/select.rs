//! Backend discovery: `auto`, `cpu` or `gpu`, with the reason for the choice.

use super::api::Backend;
use super::cpu::backend::CpuBackend;

/// What the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// The GPU when one is usable, else the CPU.
    Auto,
    /// The CPU backend.
    Cpu,
    /// The CUDA backend.
    Gpu,
}

/// Why a backend could not be had.
#[derive(Debug, thiserror::Error)]
#[error("--backend gpu: {0}")]
pub struct SelectError(pub String);

/// The chosen backend and why it was chosen.
pub struct Selected {
    /// The backend.
    pub backend: Box<dyn Backend>,
    /// One line: why this backend (shown in headers).
    pub reason: String,
}

/// Why no GPU backend is available in this build.
pub const NO_GPU_REASON: &str = "this build has no CUDA backend yet";

/// Picks a backend.
pub fn select(kind: BackendKind) -> Result<Selected, SelectError> {
    match kind {
        BackendKind::Cpu => Ok(Selected { backend: Box::new(CpuBackend::new()), reason: "requested".into() }),
        BackendKind::Auto => {
            Ok(Selected { backend: Box::new(CpuBackend::new()), reason: format!("auto: {NO_GPU_REASON}") })
        }
        BackendKind::Gpu => Err(SelectError(NO_GPU_REASON.into())),
    }
}
