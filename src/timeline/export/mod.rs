//! Exports of a run record: Chrome trace JSON for Perfetto / chrome://tracing / Firefox
//! Profiler, CSV for spreadsheets, the record itself as JSON, and an SVG Gantt chart for issues.
//!
//! File names: `<id>.trace.json` (chrome), `<id>.json` (json), `<id>.csv`, `<id>.svg` — the chrome export gets
//! its own double extension so it never collides with the JSON record of the same run.

mod chrome;
mod csv;
mod svg;

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use super::record::{RecordEvent, RunRecord};

/// The export formats a user can ask for by name (`--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Chrome trace event JSON (object form), for Perfetto, chrome://tracing and Firefox Profiler.
    Chrome,
    /// One CSV row per event, for spreadsheets and scripts.
    Csv,
    /// The run record itself, pretty-printed.
    Json,
    /// A Gantt chart of the lanes, to paste into an issue.
    Svg,
}

/// Why a format name was rejected: names the valid ones so the message alone fixes the command line.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown export format `{0}` (expected chrome|csv|json|svg)")]
pub struct UnknownFormat(
    /// The name as given, echoed in the message.
    pub String,
);

impl Format {
    /// Every format, in the order help texts list them.
    pub const ALL: [Format; 4] = [Format::Chrome, Format::Csv, Format::Json, Format::Svg];

    /// The name users type and messages print.
    pub fn name(self) -> &'static str {
        match self {
            Format::Chrome => "chrome",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Svg => "svg",
        }
    }

    /// File extension without the leading dot (`trace.json` for chrome, so it differs from the record's `.json`).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Chrome => "trace.json",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Svg => "svg",
        }
    }

    /// The default file name of a run's export, `<id>.<extension>`.
    pub fn file_name(self, run_id: &str) -> String {
        format!("{run_id}.{}", self.extension())
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| UnknownFormat(s.to_string()))
    }
}

/// Renders a record in a format, as the text that `write` saves (callers may also print it).
pub fn render(record: &RunRecord, format: Format) -> String {
    match format {
        Format::Chrome => chrome::render(record),
        Format::Csv => csv::render(record),
        Format::Json => render_json(record),
        Format::Svg => svg::render(record),
    }
}

/// Writes a record's export atomically: a temp file in the same folder, fsync, then rename over `path`, so a
/// reader never sees half a file and an old export is replaced whole.
pub fn write(record: &RunRecord, format: Format, path: &Path) -> std::io::Result<()> {
    crate::util::write_atomic(path, render(record, format).as_bytes())
}

/// The record as pretty JSON; serializing plain data cannot fail, but a failure still yields valid JSON.
fn render_json(record: &RunRecord) -> String {
    match serde_json::to_string_pretty(record) {
        Ok(mut s) => {
            s.push('\n');
            s
        }
        Err(e) => format!("{}\n", serde_json::json!({ "error": e.to_string() })),
    }
}

/// Where an event sits in its lane: its track (0 = the lane's row; overlapping, non-nested work moves to 1, 2,
/// …) and its nesting depth on that track (0 = top level, 1 = a sub-phase inside it, …).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    lane: usize,
    track: usize,
    depth: usize,
}

/// Lanes in display order, one slot per event (same order as `record.events`), and track count per lane.
struct Layout {
    lanes: Vec<String>,
    slots: Vec<Slot>,
    tracks: Vec<usize>,
}

/// End of an event as exports draw it: at least 1 µs long.
fn end_us(e: &RecordEvent) -> u64 {
    e.start_us.saturating_add(e.dur_us.max(1))
}

/// Places every event so that work on one track either nests or does not overlap.
fn layout(record: &RunRecord) -> Layout {
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
fn fmt_us(us: u64) -> String {
    if us < 1_000 {
        format!("{us} µs")
    } else if us < 1_000_000 {
        format!("{:.2} ms", us as f64 / 1e3)
    } else {
        format!("{:.3} s", us as f64 / 1e6)
    }
}

/// The event's args as `k=v;k=v`, the compact form of CSV cells and tooltips.
fn args_compact(e: &RecordEvent) -> String {
    e.args.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(";")
}
