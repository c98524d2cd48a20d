//! Groth16 over BLS12-381: the bellperson-compatible data formats (verifying key, params, proof, public
//! inputs), the `.params` file reader/writer and its cache, and the verifier. Prover and setup live beside them.

pub mod cache;
pub mod digest;
pub mod error;
pub mod keys;
pub mod params_file;
pub mod params_native;
pub mod params_stream;
pub mod proof;
pub mod prover;
mod qap;
pub mod setup;
pub mod verify;

pub use error::{Error, Section};
pub use keys::{Parameters, PointCheck, VerifyingKey};
pub use proof::Proof;
