//! Ctrl-C: the first cancels the command's runs (they stop after their current phase; no partial record is
//! written); the second exits at once. Signals are process-wide, so the handler is installed once and holds
//! the token of the command's session.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::vocab::CancelToken;

static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Installs the handler once per process (later calls do nothing); it cancels `token`.
pub fn install(token: CancelToken) {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    let asked = AtomicBool::new(false);
    let _ = ctrlc::set_handler(move || {
        if asked.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: stopping after the current phase (Ctrl-C again to exit now)");
        token.cancel();
    });
}
