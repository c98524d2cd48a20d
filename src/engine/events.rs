//! The one conversion from captured phase instances to record events, used for run records and for the
//! console's live view alike.

use crate::timeline::record::RecordEvent;
use crate::timeline::{Captured, OpenSpan};

/// Which proof call an instance belongs to: from its circuit, or the `first` circuit of a call-wide phase.
fn call_of(e: &Captured, per_call: u64) -> Option<u64> {
    let first = || e.site.args.iter().find(|(k, _)| *k == "first").and_then(|(_, v)| v.parse::<u64>().ok());
    e.site.circuit.or_else(first).map(|c| c / per_call.max(1))
}

/// A finished instance as the record keeps it; `per_call` circuits per proof call, `repeat` its repeat.
pub fn record_event(e: &Captured, per_call: u64, repeat: u32) -> RecordEvent {
    let mut r = RecordEvent::from_site(&e.site, e.start_us, e.dur_us);
    r.batch = call_of(e, per_call);
    r.repeat = repeat;
    r
}

/// A finished instance as a live view draws it (call and repeat not known yet).
pub fn live_event(e: &Captured) -> RecordEvent {
    RecordEvent::from_site(&e.site, e.start_us, e.dur_us)
}

/// An open instance drawn as a block growing up to `now_us`, marked `running`.
pub fn open_event(o: &OpenSpan, now_us: u64) -> RecordEvent {
    let mut e = RecordEvent::from_site(&o.site, o.start_us, now_us.saturating_sub(o.start_us).max(1));
    e.args.insert("running".into(), "yes".into());
    e
}
