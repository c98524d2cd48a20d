//! What every drawn export shares: where each event sits (lane, track, nesting depth), an event's drawn end,
//! and the compact text forms of durations and args.

use std::collections::HashMap;

use crate::timeline::record::{RecordEvent, RunRecord};

/// Where an event sits in its lane: its track (0 = the lane's row; overlapping, non-nested work moves to 1, 2,
/// …) and its nesting depth on that track (0 = top level, 1 = a sub-phase inside it, …).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Slot {
    pub(super) lane: usize,
    pub(super) track: usize,
    pub(super) depth: usize,
}

/// Lanes in display order, one slot per event (same order as `record.events`), and track count per lane.
pub(super) struct Layout {
    pub(super) lanes: Vec<String>,
    pub(super) slots: Vec<Slot>,
    pub(super) tracks: Vec<usize>,
}

/// End of an event as exports draw it: at least 1 µs long.
pub(super) fn end_us(e: &RecordEvent) -> u64 {
    e.start_us.saturating_add(e.dur_us.max(1))
}

/// Places every event so that work on one track either nests or does not overlap.
pub(super) fn layout(record: &RunRecord) -> Layout {
    let lanes = record.lanes();
    let index: HashMap<&str, usize> = lanes.iter().enumerate().map(|(i, l)| (l.as_str(), i)).collect();
    let lane_of = |e: &RecordEvent| index.get(e.lane.as_str()).copied().unwrap_or(0);
    let mut order: Vec<usize> = (0..record.events.len()).collect();
    // Parents first when two events start together (longer first), so children find them open.
    order.sort_by_key(|&i| {
        let e = &record.events[i];
        (lane_of(e), e.start_us, std::cmp::Reverse(end_us(e)), i)
    });
    let mut slots = vec![Slot::default(); record.events.len()];
    // Per lane, per track: the stack of open intervals' ends (innermost last).
    let mut open: Vec<Vec<Vec<u64>>> = vec![Vec::new(); lanes.len()];
    for i in order {
        let e = &record.events[i];
        let lane = lane_of(e);
        let (start, end) = (e.start_us, end_us(e));
        let tracks = &mut open[lane];
        let mut placed = None;
        for (t, stack) in tracks.iter_mut().enumerate() {
            while stack.last().is_some_and(|&top| top <= start) {
                stack.pop();
            }
            if stack.last().is_none_or(|&top| top >= end) {
                placed = Some(Slot { lane, track: t, depth: stack.len() });
                stack.push(end);
                break;
            }
        }
        slots[i] = placed.unwrap_or_else(|| {
            tracks.push(vec![end]);
            Slot { lane, track: tracks.len() - 1, depth: 0 }
        });
    }
    let tracks = open.iter().map(|t| t.len().max(1)).collect();
    Layout { lanes, slots, tracks }
}

/// A duration for people: µs below a millisecond, ms below a second, s above.
pub(super) fn fmt_us(us: u64) -> String {
    if us < 1_000 {
        format!("{us} µs")
    } else if us < 1_000_000 {
        format!("{:.2} ms", us as f64 / 1e3)
    } else {
        format!("{:.3} s", us as f64 / 1e6)
    }
}

/// The event's args as `k=v;k=v`, the compact form of CSV cells and tooltips.
pub(super) fn args_compact(e: &RecordEvent) -> String {
    e.args.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(";")
}
