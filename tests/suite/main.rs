//! The integration tests that need no process of their own, in one binary: the library's generics are
//! instantiated and linked once instead of once per file (CI's build time, docs/PERF.md "CI's time").
//! Their own binaries: tests that set process-wide environment variables (budget, engine, pce_toggle,
//! synth_workers), the binaries `scripts/gpu-check.sh` runs on the device (gpu, filecoin, filecoin_snap)
//! and the insta snapshot tests, whose snapshot names carry the binary's name (tui_layout, tui_snapshots).

#[path = "../support/fil.rs"]
mod fil;
#[path = "../support/tui_fixture.rs"]
mod fixture;
#[path = "../support/daemon.rs"]
mod harness;
#[path = "../support/require.rs"]
mod require;

mod attach;
mod attach_feed;
mod circuits;
mod cli;
mod cpu_msm;
mod cpu_ntt;
mod daemon;
mod exports;
mod field_gen;
mod foreign;
mod foreign_witness;
mod fuzz_parsers;
mod groth16_formats;
mod groth16_prove;
mod info_extrapolate;
mod layers;
mod ntt_host;
mod params_cache;
mod params_native;
mod params_stream;
mod pce;
mod poseidon_lean;
mod poseidon_merkle;
mod reliability;
mod resident;
mod sample_errors;
mod service;
mod settings;
mod sha256;
mod stats;
mod tui_e2e;
mod tui_state;
mod vendor_patch;
mod wire_proto;
