//! Host and device memory of the CUDA backend, one file per kind, named for the toggle that governs it.

pub mod abc;
pub mod b1_pin;
pub mod b2_pool;
pub mod b2_staging;
pub mod dpool;
pub mod resident;
pub mod srs;
pub mod stage_gate;
pub mod upload;
