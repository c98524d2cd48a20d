//! Small mechanisms every layer may use and that know nothing of proofs: atomic file writes, cache folders, the
//! median.

pub mod atomic;
pub mod dirs;
pub mod median;

pub use atomic::{write_atomic, write_atomic_with};
