//! The timeline: phase spans turned into events (phase, circuit, start, duration, args) for tables, run
//! records and exports.

mod capture;
pub mod export;
pub mod record;

pub use capture::{
    emit_device_event, install, set_timing_log, Capture, LivePoll, LiveTap, OpenSpan, PhaseEvent,
};
