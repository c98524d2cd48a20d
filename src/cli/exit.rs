//! How a CLI command's process ends: what the command leaves (params, the engine, the devices' buffers) is
//! freed by the process ending rather than value by value, and the C library's exit handlers (the CUDA
//! driver's context teardown among them) are skipped; the kernel releases all of it either way.
//!
//! Measured on the H200 host (docs/PERF.md, session ab): after a one-shot 2 KiB proof, dropping the session
//! took 27–46 ms and the exit after `main` 95–125 ms, of a 0.9 s process.

use std::io::Write;

/// Keeps `v` alive until the process ends (it is never dropped): for what a command holds at its end.
pub fn leave<T>(v: T) {
    std::mem::forget(v);
}

/// Ends the process with `code` once stdout and stderr are flushed (every file the command wrote is complete
/// by then: they are written whole and renamed into place).
pub fn end(code: i32) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` only ends the process; nothing after it runs, and the output is flushed above.
    unsafe { libc::_exit(code) }
}
