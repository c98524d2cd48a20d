//! One convention for tests that need what a machine may lack (README, "Tests"). The test asks [`gpu`] or
//! [`host_tools`] whether to run. Where the need is met it runs; where not, it prints one line,
//! `*** SKIPPED <test>: <why> (<SWITCH>=1 makes this a failure) ***`, straight to the process's stderr (cargo
//! test captures a passing test's own output, so an `eprintln!` would not be seen), and returns; with the
//! switch set to 1 the test fails instead. `scripts/gpu-check.sh` sets `CUZK_REQUIRE_GPU=1`.
//!
//! A test that needs time rather than hardware (the real 2 KiB C2's 2^22 setup) is `#[ignore = "why"]`: cargo
//! lists it as ignored on every run, and `--include-ignored` runs it.
#![allow(dead_code)]

use std::fmt::Display;
use std::io::Write;
use std::process::Command;

/// Set to 1, a missing GPU (driver, device, or NVRTC for the kernel compile) fails the test (gpu-check).
pub const REQUIRE_GPU: &str = "CUZK_REQUIRE_GPU";
/// Set to 1, a missing host compiler or interpreter (g++, python3) fails the test.
pub const REQUIRE_HOSTCC: &str = "CUZK_REQUIRE_HOSTCC";

/// The skip line of `test`, missing what `why` says, under `switch`.
pub fn skip_line(switch: &str, test: &str, why: &str) -> String {
    format!("*** SKIPPED {test}: {why} ({switch}=1 makes this a failure) ***")
}

/// What `test` needs, found (`Ok`) or not (`Err(why)`): the value to run with, or Err(the skip line).
/// Fails instead when `required`.
pub fn decide<T>(required: bool, switch: &str, test: &str, found: Result<T, String>) -> Result<T, String> {
    found.map_err(|why| {
        assert!(!required, "{test}: {why} ({switch}=1: it must run here)");
        skip_line(switch, test, &why)
    })
}

/// [`decide`] with `switch` read from the environment; a skip prints its line.
pub fn need<T>(switch: &str, test: &str, found: Result<T, String>) -> Option<T> {
    match decide(std::env::var(switch).as_deref() == Ok("1"), switch, test, found) {
        Ok(v) => Some(v),
        Err(line) => {
            let _ = writeln!(std::io::stderr(), "{line}");
            None
        }
    }
}

/// What a GPU test needs (a backend, a device, NVRTC), or None after the skip line; fails under
/// `CUZK_REQUIRE_GPU=1`.
pub fn gpu<T, E: Display>(test: &str, found: Result<T, E>) -> Option<T> {
    need(REQUIRE_GPU, test, found.map_err(|e| e.to_string()))
}

/// Whether `tool --version` runs here.
pub fn runs(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Whether every one of `tools` runs here; else the skip line naming the missing ones (a failure under
/// `CUZK_REQUIRE_HOSTCC=1`).
pub fn host_tools(test: &str, tools: &[&str]) -> bool {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !runs(t)).collect();
    let found = if missing.is_empty() { Ok(()) } else { Err(format!("{} not found", missing.join(" and "))) };
    need(REQUIRE_HOSTCC, test, found).is_some()
}

#[test]
fn a_missing_need_skips_loudly_or_fails_when_required() {
    assert_eq!(decide(false, "CUZK_REQUIRE_X", "t", Ok::<u8, String>(7)), Ok(7));
    assert_eq!(decide(true, "CUZK_REQUIRE_X", "t", Ok::<u8, String>(7)), Ok(7));
    let skipped = decide::<u8>(false, "CUZK_REQUIRE_X", "t", Err("no x".into()));
    assert_eq!(skipped, Err("*** SKIPPED t: no x (CUZK_REQUIRE_X=1 makes this a failure) ***".into()));
    let failed = std::panic::catch_unwind(|| decide::<u8>(true, "CUZK_REQUIRE_X", "t", Err("no x".into())));
    let msg = failed.err().and_then(|e| e.downcast_ref::<String>().cloned()).unwrap_or_default();
    assert_eq!(msg, "t: no x (CUZK_REQUIRE_X=1: it must run here)");
}
