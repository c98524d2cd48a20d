//! The timeline: phase spans turned into events (phase, circuit, start, duration, args) for tables, run
//! records and exports.

mod capture;
pub mod record;

pub use capture::{emit_device_event, install, set_timing_log, Capture, PhaseEvent};

use std::collections::BTreeMap;

/// Totals of one phase over a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PhaseTotal {
    /// Instances (spans) of the phase.
    pub count: usize,
    /// Sum of their durations in microseconds.
    pub total_us: u64,
}

/// Per-phase totals, keyed by phase name.
pub fn totals(events: &[PhaseEvent]) -> BTreeMap<&'static str, PhaseTotal> {
    let mut out: BTreeMap<&'static str, PhaseTotal> = BTreeMap::new();
    for e in events {
        let t = out.entry(e.phase).or_default();
        t.count += 1;
        t.total_us += e.dur_us;
    }
    out
}
pub mod export;
