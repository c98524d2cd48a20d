//! Backend discovery: `auto`, `cpu` or `gpu`, with the reason for the choice.

use super::api::Backend;
use super::cpu::backend::CpuBackend;
use super::gpu::backend::GpuBackend;
use super::gpu::discover::discovery;
use crate::vocab::BackendKind;

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

/// Picks a backend: `auto` takes the GPU when the driver, a device and NVRTC are present (else the CPU, with
/// the reason); `gpu` without a usable GPU is an error naming what is missing. Never panics.
pub fn select(kind: BackendKind) -> Result<Selected, SelectError> {
    match kind {
        BackendKind::Cpu => Ok(Selected { backend: Box::new(CpuBackend::new()), reason: "requested".into() }),
        BackendKind::Auto => Ok(match GpuBackend::new() {
            Ok(b) => Selected { backend: Box::new(b), reason: format!("auto: {}", discovery().summary()) },
            Err(e) => {
                // One line for headers (an NVRTC log continues on further lines).
                let e = e.to_string();
                let first = e.lines().next().unwrap_or_default();
                Selected { backend: Box::new(CpuBackend::new()), reason: format!("auto: {first}") }
            }
        }),
        BackendKind::Gpu => match GpuBackend::new() {
            Ok(b) => Ok(Selected { backend: Box::new(b), reason: "requested".into() }),
            Err(e) => Err(SelectError(e.to_string())),
        },
    }
}
