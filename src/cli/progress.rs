//! A progress display on stderr for params generation: on a terminal one line redrawn at most every 100 ms
//! (`stage 3 of 8, h 196 608/262 143, ~8 s left`); elsewhere (pipes, logs, CI) a line when each stage starts,
//! from the very first, and one when it ends with its time, so a long first stage never looks like a hang.

use crate::util::digits::group;
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::engine::setup_eta::{SetupProgress, SetupTracker};

/// What the display remembers between updates.
struct State {
    tracker: SetupTracker,
    last_draw: Option<Instant>,
    stage: Option<(String, Instant)>,
}

/// Reports a params generation on stderr.
pub struct LineProgress {
    label: String,
    state: Mutex<State>,
    tty: bool,
}

/// `stage 3 of 8, h 196 608/262 143, ~8 s left`.
fn describe(p: &SetupProgress) -> String {
    let eta = p.eta_s.map_or(String::new(), |s| format!(", ~{s:.0} s left"));
    format!(
        "stage {} of {}, {} {}/{}{eta}",
        p.index,
        p.stages,
        p.stage,
        group(p.done as u64),
        group(p.total as u64)
    )
}

impl LineProgress {
    /// A progress display prefixed with `label` (e.g. `generating params for porep-mini:`).
    pub fn new(label: impl Into<String>) -> Self {
        let state = State { tracker: SetupTracker::new(), last_draw: None, stage: None };
        LineProgress { label: label.into(), state: Mutex::new(state), tty: std::io::stderr().is_terminal() }
    }

    /// Reports one update; on a terminal throttled except for a stage's last one.
    pub fn update(&self, stage: &str, done: usize, total: usize) {
        let mut st = crate::util::lock(&self.state);
        let now = Instant::now();
        let p = st.tracker.update(stage, done, total, now);
        if !self.tty {
            if st.stage.as_ref().is_none_or(|(s, _)| s != stage) {
                st.stage = Some((stage.to_string(), now));
                eprintln!("{} {}", self.label, describe(&p));
            }
            if done >= total {
                let secs = st.stage.as_ref().map_or(0.0, |(_, t)| now.duration_since(*t).as_secs_f64());
                eprintln!("{} stage {} of {}, {} done in {secs:.1} s", self.label, p.index, p.stages, stage);
            }
            return;
        }
        if done < total && st.last_draw.is_some_and(|t| now - t < Duration::from_millis(100)) {
            return;
        }
        st.last_draw = Some(now);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{} {}", self.label, describe(&p));
        let _ = err.flush();
    }

    /// Ends the line (if anything was drawn).
    pub fn finish(&self) {
        if self.tty && crate::util::lock(&self.state).last_draw.is_some() {
            eprintln!();
        }
    }
}

/// Runs `work`, and when it takes longer than a second says so on stderr (`{what}…`, then `{what}: done in
/// 2.9 s`), so a slow count or synthesis never looks like a hang and a quick one prints nothing.
pub fn with_notice<T>(what: &str, work: impl FnOnce() -> T) -> T {
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let t = Instant::now();
    let label = what.to_string();
    let watcher = std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(Duration::from_secs(1)) {
            eprintln!("{label}…");
            let _ = rx.recv();
            eprintln!("{label}: done in {:.1} s", t.elapsed().as_secs_f64());
        }
    });
    let out = work();
    drop(tx);
    let _ = watcher.join();
    out
}
