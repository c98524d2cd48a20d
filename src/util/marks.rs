//! Process milestones on stderr (`CUZK_TIMING: process <what> at_ms=…`) when `CUZK_TIMING=1`: where a fresh
//! process's time goes outside a run's own timeline (the driver's start, kernels loaded, the request read,
//! the record saved), which a one-shot `cuzk prove` pays in full.

use std::sync::OnceLock;
use std::time::Instant;

/// The environment variable that turns the milestones (and the CLI's per-phase lines) on: `1`.
pub const TIMING_ENV: &str = "CUZK_TIMING";

/// When the process started counting: the first [`start`] or [`mark`].
fn origin() -> Instant {
    static T0: OnceLock<Instant> = OnceLock::new();
    *T0.get_or_init(Instant::now)
}

/// Whether `CUZK_TIMING=1` (read once).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var(TIMING_ENV).is_ok_and(|v| v == "1"))
}

/// Sets the origin the milestones count from; `main` calls it first.
pub fn start() {
    let _ = origin();
}

/// Milliseconds since [`start`].
pub fn now_ms() -> f64 {
    origin().elapsed().as_secs_f64() * 1e3
}

/// [`mark`] with a name made only when enabled (names that carry a section, a query or a size).
pub fn mark_with(what: impl FnOnce() -> String) {
    if enabled() {
        mark(&what());
    }
}

/// Prints milestone `what` (one line, when enabled).
pub fn mark(what: &str) {
    if enabled() {
        eprintln!("CUZK_TIMING: process {what} at_ms={:.1}", now_ms());
    }
}
