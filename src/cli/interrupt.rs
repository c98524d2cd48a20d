//! Ctrl-C: the first asks the prover to stop after its current phase (no partial record is written); the
//! second exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

static INSTALLED: AtomicBool = AtomicBool::new(false);
static ASKED: AtomicBool = AtomicBool::new(false);

/// Installs the handler once per process (later calls do nothing).
pub fn install() {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    let _ = ctrlc::set_handler(|| {
        if ASKED.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: stopping after the current phase (Ctrl-C again to exit now)");
        crate::groth16::prover::request_cancel();
    });
}
