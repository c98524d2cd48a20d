//! Backend discovery: `auto`, `cpu` or `gpu`, with the reason for the choice.

use super::api::Backend;
use super::cpu::backend::CpuBackend;
use super::deferred::Deferred;
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

/// [`select`] for a run that can begin before its devices are up: once discovery finds a usable device, the
/// contexts and kernels start on a thread ([`Deferred`]) and the run reads its params and synthesizes
/// meanwhile. No usable device: as [`select`] (the CPU under `auto`, the reason under `gpu`), without
/// waiting. A start that fails after discovery fails the run's first device operation, with its reason.
pub fn select_deferred(kind: BackendKind) -> Result<Selected, SelectError> {
    if kind == BackendKind::Cpu || !discovery().usable() {
        return select(kind);
    }
    let reason = match kind {
        BackendKind::Auto => format!("auto: {}", discovery().summary()),
        _ => "requested".into(),
    };
    let start = move || match select(kind) {
        Ok(s) => Ok(s.backend),
        Err(e) => Err(e.to_string()),
    };
    Ok(Selected { backend: Box::new(Deferred::start("gpu", discovery().devices.len(), start)), reason })
}
