//! Small mechanisms every layer may use and that know nothing of proofs: atomic file writes, cache folders.

pub mod atomic;
pub mod dirs;

pub use atomic::{write_atomic, write_atomic_with};
