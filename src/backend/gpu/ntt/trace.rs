//! Per-launch device times of the NTT's old path for kernel work (`CUZK_NTT_TRACE=1`).

use cudarc::driver::CudaStream;

use super::GResult;

/// Per-launch device times of the old path (`CUZK_NTT_TRACE=1`, for kernel work: each launch is followed by
/// a stream synchronize, so whole-transform times under it are not the real ones), one stderr line each.
pub(super) struct Trace(Option<std::cell::Cell<std::time::Instant>>);

impl Trace {
    /// Inert unless `CUZK_NTT_TRACE` is set; else drains `s` and starts the clock.
    pub(super) fn start(s: &CudaStream) -> GResult<Trace> {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        if !*ON.get_or_init(|| std::env::var_os("CUZK_NTT_TRACE").is_some()) {
            return Ok(Trace(None));
        }
        s.synchronize()?;
        Ok(Trace(Some(std::cell::Cell::new(std::time::Instant::now()))))
    }

    /// Drains `s` and prints the time since the last lap as kernel `what` at `log`.
    pub(super) fn lap(&self, s: &CudaStream, what: &str, log: u32) -> GResult<()> {
        if let Some(c) = &self.0 {
            s.synchronize()?;
            eprintln!("ntt_trace {what} {log} {:.4} ms", c.get().elapsed().as_secs_f64() * 1e3);
            c.set(std::time::Instant::now());
        }
        Ok(())
    }
}
