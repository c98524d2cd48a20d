//! The timeline: a run's phase instances captured (the [`PhaseSink`](crate::vocab::PhaseSink) of a run),
//! turned into run records, and exported.

mod capture;
pub mod export;
pub mod record;

pub use capture::{
    Capture, CaptureOpts, Captured, CounterSink, LiveFeed, LivePoll, LiveTap, OpenSpan, CHANNEL_CAPACITY,
};
