//! Compute backends for the prover's heavy phases (NTT, MSM, batch addition, fixed-base multiplication).
//!
//! `cpu` runs anywhere on a rayon pool and is the reference every other backend is tested against; `gpu` runs
//! them on CUDA devices. [`select`] picks one with the reason; [`deferred`] lets a run begin while a device
//! starts.

pub mod api;
pub mod cpu;
pub mod deferred;
pub mod gpu;
pub mod resident;
pub mod select;
