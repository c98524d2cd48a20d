//! Compute backends for the prover's heavy phases (NTT, MSM, batch addition, fixed-base multiplication).
//!
//! `cpu` runs anywhere on a rayon pool and is the reference every other backend is tested against.

pub mod api;
pub mod cpu;
pub mod gpu;
pub mod select;
