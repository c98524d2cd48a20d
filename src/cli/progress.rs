//! A one-line progress display on stderr for long steps (params setup), redrawn at most every 100 ms on a
//! terminal; elsewhere (logs, CI) one line per finished stage.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Redraws `label stage done/total (pct)` in place on stderr.
pub struct LineProgress {
    label: String,
    last: Mutex<Option<Instant>>,
    tty: bool,
}

impl LineProgress {
    /// A progress line prefixed with `label`.
    pub fn new(label: impl Into<String>) -> Self {
        LineProgress { label: label.into(), last: Mutex::new(None), tty: std::io::stderr().is_terminal() }
    }

    /// Reports one update; throttled except for the final one of a stage.
    pub fn update(&self, stage: &str, done: usize, total: usize) {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if !self.tty {
            if done >= total {
                *last = Some(now);
                eprintln!("{} {stage} {total} done", self.label);
            }
            return;
        }
        if done < total && last.is_some_and(|t| now - t < Duration::from_millis(100)) {
            return;
        }
        *last = Some(now);
        let pct = if total == 0 { 100.0 } else { 100.0 * done as f64 / total as f64 };
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{} {stage:<8} {done:>10}/{total:<10} {pct:5.1}%", self.label);
        let _ = err.flush();
    }

    /// Ends the line (if anything was drawn).
    pub fn finish(&self) {
        if self.tty && self.last.lock().unwrap_or_else(|p| p.into_inner()).is_some() {
            eprintln!();
        }
    }
}
