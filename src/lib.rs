//! cuzk: a Groth16 prover for BLS12-381 shaped like Filecoin's PoRep C2 prover, with a CPU backend, a CUDA
//! backend and a profiling console. Layers, bottom up: `vocab` and `util`; `cs`, `gadgets`, `circuits`;
//! `backend`; `groth16`; `timeline`; `engine`; `cli` and `tui`. See docs/ARCHITECTURE.md.
#![warn(missing_docs)]

pub mod backend;
pub mod circuits;
pub mod cli;
pub mod cs;
pub mod daemon;
pub mod engine;
pub mod gadgets;
pub mod groth16;
pub mod timeline;
pub mod tui;
pub mod util;
pub mod vocab;
pub mod wire;
