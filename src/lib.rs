//! cuzk: a Groth16 prover for BLS12-381 shaped like Filecoin's PoRep C2 prover, with a CPU backend, a CUDA
//! backend and a profiling console. See DESIGN.md (shared) and README.md.

pub mod backend;
pub mod circuits;
pub mod cli;
pub mod cs;
pub mod engine;
pub mod gadgets;
pub mod groth16;
pub mod timeline;
pub mod toggles;
pub mod tui;
